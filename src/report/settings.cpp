#include "geoattn/report/settings.h"

#include "geoattn/metrics/exact.h"

namespace geoattn::report {

using nlohmann::ordered_json;

void to_json(ordered_json& j, const ControlSettings& s) {
  j = {{"random_permutations", s.random_permutations}, {"seed", s.seed}};
}
void from_json(const ordered_json& j, ControlSettings& s) {
  j.at("random_permutations").get_to(s.random_permutations);
  j.at("seed").get_to(s.seed);
}

void to_json(ordered_json& j, const BootstrapSettings& s) {
  j = {{"replicates", s.replicates}, {"seed", s.seed}};
  if (!s.level.empty()) j["level"] = s.level;
  if (!s.unit.empty()) j["unit"] = s.unit;
}
void from_json(const ordered_json& j, BootstrapSettings& s) {
  j.at("replicates").get_to(s.replicates);
  j.at("seed").get_to(s.seed);
  s.level = j.value("level", "");
  s.unit = j.value("unit", "");
}

void to_json(ordered_json& j, const MetricSettings& s) {
  j = {{"n", s.n},
       {"decay_k", s.decay_k},
       {"distance", s.distance},
       {"ball", "closed (paper appendix A.1)"},
       {"comparisons", metrics::kComparisons},
       {"metrics_precision", "float64"},
       {"controls", s.controls},
       {"bootstrap", s.bootstrap}};
}
void from_json(const ordered_json& j, MetricSettings& s) {
  j.at("n").get_to(s.n);
  j.at("decay_k").get_to(s.decay_k);
  j.at("distance").get_to(s.distance);
  j.at("controls").get_to(s.controls);
  j.at("bootstrap").get_to(s.bootstrap);
}

}  // namespace geoattn::report
