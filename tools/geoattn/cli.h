#pragma once
// What the subcommands share: run settings (device, dtype, threads), token input, query
// positions. Each subcommand lives in its own cmd_*.cpp and registers itself here.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "geoattn/arch/device.h"
#include "geoattn/io/checkpoint.h"
#include "geoattn/io/windows.h"
#include "geoattn/metrics/run/run_info.h"
#include "geoattn/pipeline/results.h"
#include "geoattn/util/argument_names.h"
#include "geoattn/pipeline/resume.h"
#include "geoattn/util/enum_names.h"
#include "geoattn/util/error.h"
#include "geoattn/util/numbers.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::cli {

// The flags given on a command line (with a value or not), by their long name "--shard".
struct GivenFlags {
  std::set<std::string> names;
  bool has(const std::string& flag) const { return names.count(flag) > 0; }
};
// Flags a mode of a command does not read are refused, not ignored: fails naming the first of
// `given` outside `used` ("--shard: not used with --capture (...)"); `mode` says which mode.
void refuse_unused(const GivenFlags& given, const std::set<std::string>& used, const std::string& mode);
// The same wording for one flag: "<flag>: not used <mode>: leave it out".
[[noreturn]] void refuse_flag(const std::string& flag, const std::string& mode);

// A flag a mode does not read, as a rule of a command's table: given with `applies(options)`
// true, `flag` is refused ("--kappa: not used with the envelopes off: leave it out").
template <typename Options>
struct UnusedFlag {
  const char* flag;
  const char* when;  // "with --ids (...)": completes "not used ..."
  bool (*applies)(const Options&);
};
// Fails naming the first rule of `rules` whose flag `given` holds where it applies.
template <typename Options, size_t N>
void refuse_unused(const GivenFlags& given, const Options& options, const UnusedFlag<Options> (&rules)[N]) {
  for (const UnusedFlag<Options>& rule : rules)
    if (given.has(rule.flag) && rule.applies(options)) refuse_flag(rule.flag, rule.when);
}

template <typename T, typename = void>
struct HasGivenFlags : std::false_type {};
template <typename T>
struct HasGivenFlags<T, std::void_t<decltype(std::declval<T&>().given)>> : std::true_type {};
template <typename T, typename = void>
struct HasInputGivenFlags : std::false_type {};
template <typename T>
struct HasInputGivenFlags<T, std::void_t<decltype(std::declval<T&>().input.given)>> : std::true_type {};

// What a command line runs, set once its flags are parsed.
using Action = std::function<void()>;
// Command `cmd` (named and described by the table, commands.h): flags(cmd, options) declares what
// fills its Options; once they are parsed, its action is run(options). Options with a member
// `GivenFlags given` learn which flags the command line gave.
template <typename Options>
void bind_command(CLI::App& cmd_ref, Action& action, void (*flags)(CLI::App&, Options&), void (*run)(const Options&)) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = &cmd_ref;
  flags(*cmd, *options);
  cmd->callback([options, run, cmd, &action] {
    GivenFlags given;
    for (const CLI::Option* option : cmd->get_options())
      if (option->count() > 0) given.names.insert(option->get_name());
    if constexpr (HasGivenFlags<Options>::value) options->given = given;
    if constexpr (HasInputGivenFlags<Options>::value) options->input.given = given;
    action = [options, run] { run(*options); };
  });
}

// An option whose text `parse` turns into a value (nullopt: a text it does not take), parsed
// here at the flag: any other text is a one-line error naming the flag and what it takes,
// "--dtype: 'fp64' is not one of auto, fp32, bf16 or fp16" (`takes`: "one of auto, ...").
template <typename T, typename Parse>
CLI::Option* add_parsed_option(CLI::App& cmd, const std::string& flag, T& value, Parse parse, const std::string& takes,
                               const std::string& default_text, const std::string& help) {
  auto* option = cmd.add_option_function<std::string>(flag, [&value, parse](const std::string& text) { value = *parse(text); },
                                                      help);
  option->check(CLI::Validator(
      [parse, takes](std::string& text) { return parse(text) ? std::string() : "'" + echoed(text) + "' is not " + takes; },
      takes, ""));
  return option->default_str(default_text);
}
// An option whose text T::parse reads once, into a typed value (its message, geoattn::Error,
// the flag's one-line error), its default shown as value.text(): --n, --kappa-scan.
template <typename T>
CLI::Option* add_read_option(CLI::App& cmd, const std::string& flag, T& value, const std::string& help) {
  auto* option = cmd.add_option_function<std::string>(
      flag,
      [&value, flag](const std::string& text) {
        try {
          value = T::parse(text);
        } catch (const Error& e) {
          throw CLI::ValidationError(flag, e.what());
        }
      },
      help);
  return option->default_str(value.text());
}
// A number in [low, high], the whole text one decimal number (util/numbers.h: no empty text, no
// wrap, no saturation); `takes` says so, "an integer from 0 to 4096".
template <typename T>
auto number_parser(T low, T high, std::string& takes, LowBound bound = LowBound::Closed) {
  const std::string kind = std::is_integral_v<T> ? "an integer" : "a number";
  const bool open_above = std::is_signed_v<T> && high == std::numeric_limits<T>::max();  // int64's max: no bound
  const bool open_below = low == std::numeric_limits<T>::lowest();
  const bool above = bound == LowBound::Open;
  takes = open_above && open_below ? kind
          : open_above && above    ? fmt::format("{} > {}", kind, low)
          : open_above             ? fmt::format("{} of at least {}", kind, low)
          : above                  ? fmt::format("{} > {} and <= {}", kind, low, high)
                                   : fmt::format("{} from {} to {}", kind, low, high);
  return [low, high, above](const std::string& text) -> std::optional<T> {
    std::optional<T> v;
    if constexpr (std::is_integral_v<T>)
      v = parse_integer<T>(text);
    else
      v = parse_real(text);
    if (v && !(*v >= low && *v <= high && !(above && *v == low))) v.reset();
    return v;
  };
}
// A number flag: "--threads: '-3' is not an integer from 0 to 4096".
template <typename T>
CLI::Option* add_number_option(CLI::App& cmd, const std::string& flag, T& value, T low, T high, const std::string& help,
                               LowBound bound = LowBound::Closed) {
  std::string takes;
  const auto parse = number_parser(low, high, takes, bound);
  return add_parsed_option(cmd, flag, value, parse, takes, fmt::format("{}", value), help)
      ->type_name(std::is_integral_v<T> ? "INT" : "FLOAT");
}
// The same for a flag without a default (unset: nullopt).
template <typename T>
CLI::Option* add_number_option(CLI::App& cmd, const std::string& flag, std::optional<T>& value, T low, T high,
                               const std::string& help) {
  std::string takes;
  const auto number = number_parser(low, high, takes);
  const auto parse = [number](const std::string& text) -> std::optional<std::optional<T>> {
    if (const auto v = number(text)) return std::optional<T>(*v);
    return std::nullopt;
  };
  return add_parsed_option(cmd, flag, value, parse, takes, "", help)->type_name(std::is_integral_v<T> ? "INT" : "FLOAT");
}
// A comma-separated list of numbers, read at the flag (util/numbers.h: parse_list of parse_real);
// their range is the settings' validate().
inline CLI::Option* add_number_list_option(CLI::App& cmd, const std::string& flag, std::vector<double>& value,
                                           const std::string& help) {
  const auto parse = [](const std::string& text) { return parse_list(text, parse_real); };
  return add_parsed_option(cmd, flag, value, parse, "a list of numbers like 0.01,0.05 (no spaces, no empty item)",
                           fmt::format("{}", fmt::join(value, ",")), help);
}
// One of the names of the enum's table (util/enum_names.h).
template <typename E, size_t N>
CLI::Option* add_enum_option(CLI::App& cmd, const std::string& flag, E& value, const EnumName<E> (&table)[N],
                             const std::string& help) {
  return add_parsed_option(
      cmd, flag, value, [&table](const std::string& text) { return value_of(table, text); }, "one of " + names_of(table),
      name_of(table, value), help);
}
// An optional enum's name on the command line: its value's, or "auto".
template <typename E, size_t N>
std::string optional_name(const EnumName<E> (&table)[N], const std::optional<E>& value) {
  return value ? name_of(table, *value) : kAutoName;
}
// One of the names of the enum's table, or "auto" (nullopt: the command decides).
template <typename E, size_t N>
CLI::Option* add_enum_option(CLI::App& cmd, const std::string& flag, std::optional<E>& value,
                             const EnumName<E> (&table)[N], const std::string& help) {
  const auto parse = [&table](const std::string& text) -> std::optional<std::optional<E>> {
    if (text == kAutoName) return std::optional<E>();
    if (const auto v = value_of(table, text)) return v;
    return std::nullopt;
  };
  return add_parsed_option(cmd, flag, value, parse, "one of " + std::string(kAutoName) + ", " + names_of(table),
                           optional_name(table, value), help);
}

struct RunOptions {
  arch::Device device;                      // --device
  std::optional<arch::ForwardDtype> dtype;  // --dtype; nullopt: auto
  int threads = 0;                          // 0: all cores
  // --dtype, auto resolved for --device (bf16 on CUDA, fp32 on the CPU): what runs and is recorded.
  arch::ForwardDtype forward_dtype() const { return arch::forward_dtype(dtype, device); }
};
void add_run_options(CLI::App& cmd, RunOptions& options);
// --device: cpu, cuda or cuda:N (the device of a run, or of a benchmark).
void add_device_option(CLI::App& cmd, arch::Device& device);
// --threads N: 0 (all cores) to kMaxWorkerThreads (util/worker_pool.h).
void add_threads_option(CLI::App& cmd, int& threads);
// Before a run: `out` and the files written beside it (X.curves.safetensors, X.state.safetensors)
// can be written without harm to `inputs` or to anything that is not a regular file
// (util/atomic_file.h: check_outputs); then `out` is held for this run (hold_output).
void check_outputs_of(const std::string& out, const std::vector<std::string>& inputs);

// --out FILE (required; `what` says what is written there) and --quiet (no progress line).
void add_output_options(CLI::App& cmd, std::string& out, bool& quiet, const std::string& what);

// Where the tokens come from: literal text, literal ids, or data shards.
struct InputOptions {
  std::string text;
  std::string ids;
  std::vector<std::string> data;
  int64_t ctx = 1024;
  io::WindowMode window = io::WindowMode::Doc;
  io::OffsetMode offset = io::OffsetMode::Start;
  uint64_t seed = 0;
  int64_t max_windows = -1;
  GivenFlags given;  // the command line's flags (the window flags a way of giving tokens ignores are refused)
  bool seed_draws_more = false;  // --seed drives more than the hashed offsets (measure: controls, bootstrap)
};
// --data and the window flags; unless `data_only`, --text and --ids too (one of the three).
void add_input_options(CLI::App& cmd, InputOptions& options, bool data_only);
// The window flags the input's way of giving tokens does not read, refused by name: --ctx with
// --ids, --window/--offset/--max-windows with --ids or --text, --offset with --window stream,
// --seed without --offset hashed where the offsets are all it draws.
void refuse_unused_input_flags(const InputOptions& options);
// --ctx within 1..the model's positions (geoattn::Error naming the flag).
void check_ctx(int64_t ctx, const arch::ModelConfig& config);
// No file of `paths` given twice (the same file by another name included).
void check_distinct_files(const std::vector<std::string>& paths, const std::string& flag);
// Windows of token ids for the checkpoint (tokenising text with its tokenizer.model).
std::vector<io::Window> read_windows(const InputOptions& options, const io::Checkpoint& checkpoint);

// A JSON file: geoattn::Error "<path>: cannot open" / "<path>: not valid JSON" (parse_json_or_fail).
nlohmann::ordered_json read_json(const std::string& path);  // keys in file order

// An id's text: the checkpoint's sentencepiece decoding of it alone ("<s>" for BOS), or its
// tokenizer.json vocabulary entry; "<id>" when neither has it.
std::function<std::string(int64_t)> token_text_for(const io::Checkpoint& checkpoint);

// "1,2,3" -> ids
std::vector<int64_t> parse_id_list(const std::string& text, const std::string& flag);

}  // namespace geoattn::cli

namespace geoattn::cli {

// The pipeline's pieces the commands call by their short names.
using pipeline::capture_model_info;
using pipeline::finalize;
using pipeline::Finalized;
using pipeline::model_info;
using pipeline::StageTimes;
using pipeline::state_path;
using pipeline::write_results;
}  // namespace geoattn::cli
