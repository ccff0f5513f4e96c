#pragma once
// Output files are written whole or not at all: write to `<path>.tmp.<pid>`, then rename.
#include <functional>
#include <ostream>
#include <string>

namespace geoattn {

// Fails (geoattn::Error) before writing anything if the folder of `path` does not exist.
void check_output_path(const std::string& path);

// Calls `write` on a stream to a temporary file beside `path`, flushes it, and renames it
// over `path`. If `write` throws or the stream fails, the temporary file is removed and
// `path` is untouched.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace geoattn
