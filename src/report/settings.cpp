// The "settings" block of results and sidecars <-> the typed settings (metrics/run/run_info.h).
#include "geoattn/report/settings.h"

#include <limits>
#include <map>
#include <string_view>

#include "geoattn/metrics/core/exact.h"
#include "geoattn/metrics/run/metric_params.h"
#include "geoattn/report/frame_config_json.h"
#include "geoattn/report/prediction_json.h"

namespace geoattn::report {

using nlohmann::ordered_json;

namespace {
using P = metrics::MetricParams;

// One walk of the settings table writes the record: each entry the run read at its path
// (FieldName::record_path, and also_in), the table's facts where it places them. An on/off
// setting is the presence of its object (the envelopes: their kappa inside).
struct RecordWriter {
  const metrics::MetricRecord& rec;
  const P& p = rec.params;
  ordered_json& j;
  std::map<std::string_view, ordered_json> defaults;  // each entry's default as recorded (left_out_at_default)

  void put(FieldName name, const ordered_json& value) {
    if (name.record_path().empty() || metrics::metric_unread(p, name)) return;
    if (name.left_out_at_default && defaults.count(name.python) && defaults.at(name.python) == value) return;
    (name.recorded_in.empty() ? j : j[std::string(name.recorded_in)])[name.record_key()] = value;
    if (!name.also_in.empty()) j[std::string(name.also_in)][name.record_key()] = value;
  }
  void fact(const char* key, const char* text) { j[key] = text; }
  void parsed(FieldName name, const metrics::NGrid& field, const std::string&) { put(name, field.text()); }
  void parsed(FieldName name, const metrics::KappaScan& field, const std::string&) {
    if (!field.list().empty()) put(name, field.list());
  }
  void parsed(FieldName name, const metrics::PredictFrom&, const std::string&) {  // what the prediction took
    if (rec.prediction) j[std::string(name.recorded_in)] = prediction_json(*rec.prediction);
  }
  template <typename E, size_t N>
  void choice(FieldName name, const E& field, const EnumName<E> (&names)[N], const std::string&) {
    put(name, name_of(names, field));
  }
  void choice(FieldName, const std::optional<bool>&, const EnumName<bool> (&)[2], const std::string&) {}
  template <typename E, size_t N>
  void choice(FieldName name, const std::optional<E>& field, const EnumName<E> (&names)[N], const std::string&) {
    if (field) put(name, name_of(names, *field));  // as run: none where it did not run
  }
  template <typename T>
  void number(FieldName name, const T& field, T, T, const std::string&, LowBound = LowBound::Closed) {
    put(name, field);
  }
};

// Each number entry's default, as the writer records it.
struct Defaults {
  std::map<std::string_view, ordered_json>& out;
  template <typename T>
  void parsed(FieldName, const T&, const std::string&) {}
  template <typename E, typename Names>
  void choice(FieldName, const E&, const Names&, const std::string&) {}
  template <typename T>
  void number(FieldName name, const T& field, T, T, const std::string&, LowBound = LowBound::Closed) {
    out[name.python] = field;
  }
};

// A number as the table spells an `absent` value ("0").
template <typename T>
std::optional<T> parse_number(std::string_view text) {
  return nlohmann::json::parse(text).get<T>();
}

// The same walk reads it back: an entry a file omits reads as its `absent` spelling or its
// default, a value of the wrong type or out of its range is an error naming it.
struct RecordReader {
  io::ConfigReader& top;
  metrics::MetricRecord& rec;
  std::map<std::string, std::optional<io::ConfigReader>> objects;

  io::ConfigReader* in(std::string_view object) {
    if (object.empty()) return &top;
    auto it = objects.find(std::string(object));
    if (it == objects.end()) it = objects.emplace(std::string(object), top.object(object)).first;
    return it->second ? &*it->second : nullptr;
  }
  // The entry where the file has it (the seed: in bootstrap, else in controls).
  template <typename T>
  std::optional<T> get(FieldName name) {
    if (name.record_path().empty()) return std::nullopt;
    if (io::ConfigReader* r = in(name.recorded_in))
      if (auto value = r->get<T>(name.record_key())) return value;
    if (io::ConfigReader* r = name.also_in.empty() ? nullptr : in(name.also_in)) return r->get<T>(name.record_key());
    return std::nullopt;
  }
  void parsed(FieldName name, metrics::NGrid& field, const std::string&) {
    if (const auto text = get<std::string>(name)) field = metrics::NGrid::parse(*text);
  }
  void parsed(FieldName name, metrics::KappaScan& field, const std::string&) {
    const auto kappas = get<std::vector<double>>(name);
    if (!kappas && !in(name.recorded_in)) return;
    if (!kappas || kappas->empty()) fail("settings.{} is not a list of kappas", name.record_path());
    field = metrics::KappaScan::of(*kappas);
  }
  void parsed(FieldName name, metrics::PredictFrom& field, const std::string&) {
    if (const auto* f = top.find(name.recorded_in)) {
      rec.prediction = prediction_from_json(*f);
      if (!rec.prediction->file.empty()) field = metrics::PredictFrom::parse(rec.prediction->file);
    }
  }
  template <typename E, size_t N>
  void choice(FieldName name, E& field, const EnumName<E> (&names)[N], const std::string&) {
    io::ConfigReader* r = in(name.recorded_in);
    if (auto value = r ? read_enum(*r, name.record_key(), names) : std::nullopt) field = *value;
    else if (!name.absent.empty()) field = *value_of(names, name.absent);
  }
  void choice(FieldName name, std::optional<bool>& field, const EnumName<bool> (&)[2], const std::string&) {
    field = top.object(name.key()).has_value();  // on where its object is
  }
  template <typename E, size_t N>
  void choice(FieldName name, std::optional<E>& field, const EnumName<E> (&names)[N], const std::string&) {
    io::ConfigReader* r = in(name.recorded_in);
    field = r ? read_enum(*r, name.record_key(), names) : std::nullopt;
  }
  template <typename T>
  void number(FieldName name, T& field, T low, T high, const std::string&, LowBound bound = LowBound::Closed) {
    auto value = get<T>(name);
    if (!value && !name.absent.empty()) value = parse_number<T>(name.absent);
    if (!value) return;
    if (!(bound == LowBound::Open ? *value > low : *value >= low) || !(*value <= high))
      fail("settings.{} is {}, not a number {} {}{}", name.record_path(), *value, bound == LowBound::Open ? ">" : ">=",
           low, high == std::numeric_limits<T>::max() ? "" : fmt::format(" and <= {}", high));
    field = *value;
  }
};
}  // namespace

void put_json(ordered_json& j, const metrics::CommandSettings& s) {
  j["ctx"] = s.ctx;
  std::visit([&](const auto& q) { j["queries"] = q; }, s.queries);
  if (s.dtype) j["dtype"] = name_of(arch::kForwardDtypeNames, *s.dtype);
}

void put_json(ordered_json& j, const metrics::MetricRecord& s) {
  std::map<std::string_view, ordered_json> defaults;
  const P table_defaults;
  P::visit_settings(table_defaults, Defaults{defaults});
  P::visit_settings(s.params, RecordWriter{s, s.params, j, std::move(defaults)});
  j["layer_windows"] = s.layer_windows;
}

void put_json(ordered_json& j, const metrics::SinkSettings& s) {
  using S = metrics::SinkSettings;
  j[S::kConvention.record_key()] = name_of(metrics::kSinkConventionNames, s.convention);
  j[S::kEps.record_key()] = s.eps;
  j[S::kTaus.record_key()] = s.taus;
  j[S::kResidual.record_key()] = s.residual;
  j[S::kProfilePositions.record_key()] = s.profile_positions;
  j["rule"] = to_json(s.rule);
  j["config"] = s.rule_source;
}

metrics::CommandSettings read_command_settings(io::ConfigReader& r) {
  metrics::CommandSettings s;
  s.ctx = r.get_or<int64_t>("ctx", 0);
  if (r.has("queries")) {
    const auto text = r.find("queries");
    if (text->is_string())
      s.queries = text->get<std::string>();
    else
      s.queries = r.get<std::vector<int64_t>>("queries").value();  // a wrong type: the error naming it
  }
  s.dtype = read_enum(r, "dtype", arch::kForwardDtypeNames);
  return s;
}

metrics::MetricRecord read_metric_settings(io::ConfigReader& r) {
  metrics::MetricRecord s;
  P::visit_settings(s.params, RecordReader{r, s, {}});
  s.layer_windows = r.get_or<std::vector<int64_t>>("layer_windows", {});
  return s;
}

metrics::SinkSettings read_sink_settings(io::ConfigReader& r, const ordered_json& ordered) {
  using S = metrics::SinkSettings;
  S s;
  s.convention = read_enum(r, S::kConvention.record_key(), metrics::kSinkConventionNames).value_or(s.convention);
  s.eps = r.get_or<double>(S::kEps.record_key(), s.eps);
  s.taus = r.get_or<std::vector<double>>(S::kTaus.record_key(), s.taus);
  s.residual = r.get_or<bool>(S::kResidual.record_key(), s.residual);
  s.profile_positions = r.get_or<int64_t>(S::kProfilePositions.record_key(), s.profile_positions);
  if (r.has("rule")) s.rule = sink_rule_from_json(ordered.at("rule"));
  s.rule_source = r.get_or<std::string>("config", s.rule_source);
  return s;
}

}  // namespace geoattn::report
