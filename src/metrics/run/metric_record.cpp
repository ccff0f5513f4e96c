// Two records of the metric settings compared entry by entry, by the walk of the settings table
// (metric_params.h) that writes and reads them (report/settings.cpp).
#include "geoattn/metrics/run/metric_record.h"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace geoattn::metrics {

namespace {

// Each recorded entry's value as text (fmt's shortest round-trip form for a number), in the
// table's order; an entry the run left unread (kMetricUnused) as "unread".
struct RecordedValues {
  const MetricParams& p;
  std::vector<std::pair<std::string_view, std::string>> values;

  void put(FieldName name, std::string text) {
    if (name.record_path().empty()) return;
    values.emplace_back(name.python, metric_unread(p, name) ? "unread" : std::move(text));
  }
  void parsed(FieldName name, const NGrid& field, const std::string&) { put(name, field.text()); }
  void parsed(FieldName name, const KappaScan& field, const std::string&) { put(name, fmt::format("{}", field.list())); }
  void parsed(FieldName, const PredictFrom&, const std::string&) {}  // MetricRecord::prediction says what it took
  template <typename E, size_t N>
  void choice(FieldName name, const E& field, const EnumName<E> (&names)[N], const std::string&) {
    put(name, std::string(name_of(names, field)));
  }
  template <typename E, size_t N>
  void choice(FieldName name, const std::optional<E>& field, const EnumName<E> (&names)[N], const std::string&) {
    put(name, field ? std::string(name_of(names, *field)) : "none");
  }
  template <typename T>
  void number(FieldName name, const T& field, T, T, const std::string&, LowBound = LowBound::Closed) {
    put(name, fmt::format("{}", field));
  }
};

std::vector<std::pair<std::string_view, std::string>> recorded_values(const MetricParams& p) {
  RecordedValues walk{p, {}};
  MetricParams::visit_settings(p, walk);
  return std::move(walk.values);
}

}  // namespace

bool MetricRecord::operator==(const MetricRecord& o) const {
  return recorded_values(params) == recorded_values(o.params) && layer_windows == o.layer_windows &&
         prediction == o.prediction;
}

}  // namespace geoattn::metrics
