// The "settings" block of results and sidecars <-> the typed settings (metrics/run/run_info.h).
#include "geoattn/report/settings.h"

#include "geoattn/metrics/core/exact.h"
#include "geoattn/metrics/run/metric_params.h"
#include "geoattn/report/frame_config_json.h"
#include "geoattn/report/prediction_json.h"

namespace geoattn::report {

using nlohmann::ordered_json;

namespace {
// The metric settings' keys: metric_params.h's descriptor (a setting's object is keyed by its
// name, its value inside by its record key).
using P = metrics::MetricParams;

ordered_json controls_json(const metrics::ControlSettings& s) {
  return {{P::kControls.record_key(), s.random_permutations}, {P::kSeed.record_key(), s.seed}};
}

ordered_json bootstrap_json(const metrics::BootstrapSettings& s) {
  ordered_json j = {{P::kBootstrap.record_key(), s.replicates}, {P::kSeed.record_key(), s.seed}};
  if (s.level) j[P::kBootLevel.record_key()] = metrics::boot_level_name(*s.level);
  if (s.unit) j[P::kBootUnit.record_key()] = name_of(metrics::kBootUnitNames, *s.unit);
  if (s.ci != metrics::kSpecCi) j[P::kCi.record_key()] = s.ci;
  return j;
}
}  // namespace

void put_json(ordered_json& j, const metrics::CommandSettings& s) {
  j["ctx"] = s.ctx;
  std::visit([&](const auto& q) { j["queries"] = q; }, s.queries);
  if (s.dtype) j["dtype"] = name_of(arch::kForwardDtypeNames, *s.dtype);
}

void put_json(ordered_json& j, const metrics::MetricSettings& s) {
  j[P::kN.record_key()] = s.n;
  j[P::kDecayK.record_key()] = s.decay_k;
  j[P::kDistance.record_key()] = name_of(metrics::kDistanceNames, s.distance);
  j["ball"] = "closed (paper appendix A.1)";
  j["comparisons"] = metrics::kComparisons;
  j["metrics_precision"] = "float64";
  j[P::kControls.key()] = controls_json(s.controls);
  j[P::kBootstrap.key()] = bootstrap_json(s.bootstrap);
  if (s.envelope_kappa) j[P::kEnvelopes.key()] = {{P::kKappa.record_key(), *s.envelope_kappa}};
  if (!s.kappa_scan.empty()) j[P::kKappaScan.key()] = {{P::kKappaScan.record_key(), s.kappa_scan}};
  if (s.prediction) j[P::kPredictFrom.key()] = prediction_json(*s.prediction);
  j[P::kWindowTokens.record_key()] = name_of(metrics::kWindowTokensNames, s.window_tokens);
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

metrics::MetricSettings read_metric_settings(io::ConfigReader& r) {
  const P defaults;  // what a key a file omits reads as
  metrics::MetricSettings s;
  s.n = r.get_or<std::string>(P::kN.record_key(), "");
  s.decay_k = r.get_or<int64_t>(P::kDecayK.record_key(), defaults.decay_k);
  s.distance = read_enum(r, P::kDistance.record_key(), metrics::kDistanceNames).value_or(defaults.distance);
  if (auto c = r.object(P::kControls.key())) {
    s.controls.random_permutations = c->get_or<int64_t>(P::kControls.record_key(), 0);
    s.controls.seed = c->get_or<uint64_t>(P::kSeed.record_key(), 0);
  }
  if (auto b = r.object(P::kBootstrap.key())) {
    s.bootstrap.replicates = b->get_or<int64_t>(P::kBootstrap.record_key(), 0);
    s.bootstrap.seed = b->get_or<uint64_t>(P::kSeed.record_key(), 0);
    s.bootstrap.level = read_enum(*b, P::kBootLevel.record_key(), metrics::kBootLevelNames);
    s.bootstrap.unit = read_enum(*b, P::kBootUnit.record_key(), metrics::kBootUnitNames);
    s.bootstrap.ci = b->get_or<double>(P::kCi.record_key(), metrics::kSpecCi);  // absent: the SPEC's, as every earlier file
    if (!(s.bootstrap.ci > 0 && s.bootstrap.ci < 100)) fail("settings.bootstrap.ci is not a number from 0 to 100 (exclusive)");
  }
  if (auto e = r.object(P::kEnvelopes.key())) {
    s.envelope_kappa = e->get<double>(P::kKappa.record_key());
    if (!s.envelope_kappa || !(*s.envelope_kappa > 0)) fail("settings.envelopes.kappa is not a number > 0");
  }
  if (auto k = r.object(P::kKappaScan.key())) {
    s.kappa_scan = k->get<std::vector<double>>(P::kKappaScan.record_key()).value_or(std::vector<double>{});
    if (s.kappa_scan.empty()) fail("settings.kappa_scan.kappas is not a list of kappas");
  }
  if (const auto* f = r.find(P::kPredictFrom.key())) s.prediction = prediction_from_json(*f);
  // Results written before SPEC §1's window convention counted every key 0..q: causal.
  s.window_tokens =
      read_enum(r, P::kWindowTokens.record_key(), metrics::kWindowTokensNames).value_or(metrics::WindowTokens::Causal);
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
