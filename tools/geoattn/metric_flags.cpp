#include "metric_flags.h"

#include <algorithm>
#include <functional>
#include <string_view>

#include "cli.h"
#include "setting_flags.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

namespace {

// The flags of the same table as a command line that gives every setting its value.
struct FlagArgs {
  std::vector<std::string>& args;
  void put(FieldName name, std::string value) {
    args.emplace_back(name.flag);
    args.push_back(std::move(value));
  }
  template <typename T>
  void parsed(FieldName name, const T& field, const std::string&) { put(name, field.text()); }
  template <typename E, size_t N>
  void choice(FieldName name, const E& field, const EnumName<E> (&names)[N], const std::string&) {
    put(name, name_of(names, field));
  }
  template <typename E, size_t N>
  void choice(FieldName name, const std::optional<E>& field, const EnumName<E> (&names)[N], const std::string&) {
    put(name, optional_name(names, field));
  }
  template <typename T>
  void number(FieldName name, const T& field, T, T, const std::string&, LowBound = LowBound::Closed) {
    put(name, fmt::format("{}", field));
  }
};

}  // namespace

std::vector<std::string> metric_flag_args(const MetricFlags& flags) {
  std::vector<std::string> all, defaults, args;
  metrics::MetricParams::visit_settings(flags, FlagArgs{all});
  const MetricFlags unset;
  metrics::MetricParams::visit_settings(unset, FlagArgs{defaults});
  // Only the settings off their defaults: a default given would read as given (--kappa with the
  // envelopes off is refused: refuse_unused_metric_flags).
  for (size_t i = 0; i + 1 < all.size(); i += 2)
    if (all[i + 1] != defaults[i + 1]) args.insert(args.end(), {all[i], all[i + 1]});
  return args;
}

void add_metric_flags(CLI::App& cmd, MetricFlags& f, bool with_seed) {
  using P = metrics::MetricParams;
  P::visit_settings(f, FlagBinder{cmd, [with_seed](FieldName name) { return with_seed || name.flag != P::kSeed.flag; }});
}

void add_metric_flags(CLI::App& cmd, MetricFlags& f, std::initializer_list<FieldName> only) {
  const std::vector<FieldName> names(only);
  const auto wanted = [names](FieldName name) {
    return std::any_of(names.begin(), names.end(), [&](FieldName n) { return n.flag == name.flag; });
  };
  metrics::MetricParams::visit_settings(f, FlagBinder{cmd, wanted});
}

// The table's rules (metrics::kMetricUnused): "--kappa: not used with --envelopes off (kappa is
// the envelopes' constant, SPEC §5): leave it out".
void refuse_unused_metric_flags(const GivenFlags& given, const pipeline::MetricSpec& spec) {
  for (const metrics::MetricUnused& rule : metrics::kMetricUnused)
    if (given.has(std::string(rule.setting.flag)) && rule.unread(spec))
      refuse_flag(std::string(rule.setting.flag), fmt::format("with {} {} ({})", rule.when.flag, rule.value, rule.why));
}

}  // namespace geoattn::cli
