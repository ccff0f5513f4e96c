#include "geoattn/pipeline_torch/library_threads.h"

#include <torch/torch.h>

namespace geoattn::pipeline {

LibraryThreads::LibraryThreads() : torch_threads_(torch::get_num_threads()) { torch::set_num_threads(1); }

LibraryThreads::~LibraryThreads() { torch::set_num_threads(torch_threads_); }

}  // namespace geoattn::pipeline
