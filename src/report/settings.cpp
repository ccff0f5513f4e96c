// The "settings" block of results and sidecars <-> the typed settings (metrics/run/run_info.h).
#include "geoattn/report/settings.h"

#include "geoattn/metrics/core/exact.h"
#include "geoattn/report/frame_config_json.h"

namespace geoattn::report {

using nlohmann::ordered_json;

namespace {
ordered_json controls_json(const metrics::ControlSettings& s) {
  return {{"random_permutations", s.random_permutations}, {"seed", s.seed}};
}

ordered_json bootstrap_json(const metrics::BootstrapSettings& s) {
  ordered_json j = {{"replicates", s.replicates}, {"seed", s.seed}};
  if (s.level) j["level"] = metrics::boot_level_name(*s.level);
  if (s.unit) j["unit"] = name_of(metrics::kBootUnitNames, *s.unit);
  if (s.ci != metrics::kSpecCi) j["ci"] = s.ci;
  return j;
}
}  // namespace

void put_json(ordered_json& j, const metrics::CommandSettings& s) {
  j["ctx"] = s.ctx;
  std::visit([&](const auto& q) { j["queries"] = q; }, s.queries);
  if (s.dtype) j["dtype"] = name_of(arch::kForwardDtypeNames, *s.dtype);
}

void put_json(ordered_json& j, const metrics::MetricSettings& s) {
  j["n"] = s.n;
  j["decay_k"] = s.decay_k;
  j["distance"] = name_of(metrics::kDistanceNames, s.distance);
  j["ball"] = "closed (paper appendix A.1)";
  j["comparisons"] = metrics::kComparisons;
  j["metrics_precision"] = "float64";
  j["controls"] = controls_json(s.controls);
  j["bootstrap"] = bootstrap_json(s.bootstrap);
  if (s.envelope_kappa) j["envelopes"] = {{"kappa", *s.envelope_kappa}};
  if (!s.kappa_scan.empty()) j["kappa_scan"] = {{"kappas", s.kappa_scan}};
  j["window_tokens"] = name_of(metrics::kWindowTokensNames, s.window_tokens);
  j["layer_windows"] = s.layer_windows;
}

void put_json(ordered_json& j, const metrics::SinkSettings& s) {
  j["convention"] = name_of(metrics::kSinkConventionNames, s.convention);
  j["eps"] = s.eps;
  j["taus"] = s.taus;
  j["residual"] = s.residual;
  j["profile_positions"] = s.profile_positions;
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
  metrics::MetricSettings s;
  s.n = r.get_or<std::string>("n", "");
  s.decay_k = r.get_or<int64_t>("decay_k", s.decay_k);
  s.distance = read_enum(r, "distance", metrics::kDistanceNames).value_or(s.distance);
  if (auto c = r.object("controls")) {
    s.controls.random_permutations = c->get_or<int64_t>("random_permutations", 0);
    s.controls.seed = c->get_or<uint64_t>("seed", 0);
  }
  if (auto b = r.object("bootstrap")) {
    s.bootstrap.replicates = b->get_or<int64_t>("replicates", 0);
    s.bootstrap.seed = b->get_or<uint64_t>("seed", 0);
    s.bootstrap.level = read_enum(*b, "level", metrics::kBootLevelNames);
    s.bootstrap.unit = read_enum(*b, "unit", metrics::kBootUnitNames);
    s.bootstrap.ci = b->get_or<double>("ci", metrics::kSpecCi);  // absent: the SPEC's, as every earlier file
    if (!(s.bootstrap.ci > 0 && s.bootstrap.ci < 100)) fail("settings.bootstrap.ci is not a number from 0 to 100 (exclusive)");
  }
  if (auto e = r.object("envelopes")) {
    s.envelope_kappa = e->get<double>("kappa");
    if (!s.envelope_kappa || !(*s.envelope_kappa > 0)) fail("settings.envelopes.kappa is not a number > 0");
  }
  if (auto k = r.object("kappa_scan")) {
    s.kappa_scan = k->get<std::vector<double>>("kappas").value_or(std::vector<double>{});
    if (s.kappa_scan.empty()) fail("settings.kappa_scan.kappas is not a list of kappas");
  }
  // Results written before SPEC §1's window convention counted every key 0..q: causal.
  s.window_tokens = read_enum(r, "window_tokens", metrics::kWindowTokensNames).value_or(metrics::WindowTokens::Causal);
  s.layer_windows = r.get_or<std::vector<int64_t>>("layer_windows", {});
  return s;
}

metrics::SinkSettings read_sink_settings(io::ConfigReader& r, const ordered_json& ordered) {
  metrics::SinkSettings s;
  s.convention = read_enum(r, "convention", metrics::kSinkConventionNames).value_or(s.convention);
  s.eps = r.get_or<double>("eps", s.eps);
  s.taus = r.get_or<std::vector<double>>("taus", s.taus);
  s.residual = r.get_or<bool>("residual", s.residual);
  s.profile_positions = r.get_or<int64_t>("profile_positions", s.profile_positions);
  if (r.has("rule")) s.rule = sink_rule_from_json(ordered.at("rule"));
  s.rule_source = r.get_or<std::string>("config", s.rule_source);
  return s;
}

}  // namespace geoattn::report
