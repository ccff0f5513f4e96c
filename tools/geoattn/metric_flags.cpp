#include "metric_flags.h"

#include <string_view>

#include "cli.h"
#include "geoattn/metrics/grid.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

namespace {

// The flags of MetricParams::visit_settings: each bound to its field, its default shown (leaving
// out `skip`, a setting the command gives its own flag).
struct FlagBinder {
  CLI::App& cmd;
  std::string_view skip;
  static std::string flag(FieldName name) { return std::string(name.flag); }
  void text(FieldName name, std::string& field, const std::string& help) {
    if (name.flag != skip) cmd.add_option(flag(name), field, help)->capture_default_str();
  }
  template <typename Field, typename E, size_t N>
  void choice(FieldName name, Field& field, const EnumName<E> (&names)[N], const std::string& help) {
    if (name.flag != skip) add_enum_option(cmd, flag(name), field, names, help);
  }
  template <typename T>
  void number(FieldName name, T& field, T low, T high, const std::string& help) {
    if (name.flag != skip) add_number_option(cmd, flag(name), field, low, high, help);
  }
};

}  // namespace

void add_metric_flags(CLI::App& cmd, MetricFlags& f, bool with_seed) {
  using P = pipeline::MetricParams;
  P::visit_settings(f, FlagBinder{cmd, with_seed ? std::string_view() : P::kSeed.flag});
}

void add_window_tokens_option(CLI::App& cmd, metrics::WindowTokens& value) {
  add_enum_option(cmd, std::string(pipeline::MetricParams::kWindowTokens.flag), value, metrics::kWindowTokensNames,
                  pipeline::MetricParams::kWindowTokensHelp);
}

namespace {
using pipeline::MetricSpec;
constexpr UnusedFlag<MetricSpec> kUnusedMetricFlags[] = {
    // SPEC §5: kappa is the envelopes' constant, and nothing else reads it.
    {"--kappa", "with the envelopes off (--envelopes off, or auto on a GPU): kappa is their constant",
     [](const MetricSpec& s) { return !s.envelopes_on(); }},
    {"--bootstrap-level", "with --bootstrap 0 (no intervals)", [](const MetricSpec& s) { return s.bootstrap == 0; }},
    {"--bootstrap-unit", "with --bootstrap 0 (no intervals)", [](const MetricSpec& s) { return s.bootstrap == 0; }},
};
}  // namespace

void refuse_unused_metric_flags(const GivenFlags& given, const MetricSpec& spec) {
  refuse_unused(given, spec, kUnusedMetricFlags);
}

pipeline::MetricSpec metric_spec(const MetricFlags& flags, int64_t T, const std::vector<int64_t>& queries) {
  pipeline::MetricSpec spec;
  static_cast<pipeline::MetricParams&>(spec) = flags;
  spec.grid = parse_grid_flag(flags.n, T);
  spec.queries = queries;
  return spec;
}

}  // namespace geoattn::cli
