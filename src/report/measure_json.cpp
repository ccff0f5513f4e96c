#include "geoattn/report/measure_json.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "geoattn/report/fits_json.h"
#include "geoattn/util/error.h"
#include "geoattn/util/shape.h"
#include "json_number.h"

namespace geoattn::report {

using metrics::GroupStats;
using nlohmann::ordered_json;

bool is_measure_schema(const nlohmann::ordered_json& doc) {
  return doc.is_object() && doc.contains("schema") && (doc["schema"] == kMeasureSchema || doc["schema"] == kMeasureSchemaInline);
}

namespace {
// NaN (and, defensively, inf) print as null.
ordered_json interval(double lo, double hi) {
  return std::isfinite(lo) && std::isfinite(hi) ? ordered_json::array({lo, hi}) : ordered_json(nullptr);
}

bool has_control(const GroupStats& s) {
  return s.grid_size() > 0 && s.curve(metrics::kFirstOptionalCurve, 0).count() > 0;
}

// One group (global, a layer or a head; SPEC §2-3) in the order the JSON lists it: "samples",
// every curve's mean and std, every scalar's, the control's differences, the intervals, and
// with_corr corr(R(r_min, N), rho0). Numbers go into `out`; each per-N array goes to
// array(key, width, value): width 1 (a number per N) or 2 (an interval [lo, hi] per N), value(g, j).
template <typename Array>
void put_group(ordered_json& out, const GroupStats& s, const metrics::GroupIntervals* ci, bool with_corr, Array&& array) {
  using metrics::kCurveNames;
  using metrics::kScalarNames;
  const bool controlled = has_control(s);
  const auto present = [&](int m) { return m < metrics::kFirstOptionalCurve || controlled; };
  out["samples"] = s.samples();
  // SPEC §2: the samples that reach each N (a query's n tokens: q + 1, or a window's W, SPEC §1).
  array("samples_n", 1, [&](int64_t g, int) { return static_cast<double>(s.curve(metrics::kP_rmax, g).count()); });
  for (int m = 0; m < metrics::kCurveMetrics; ++m) {
    if (!present(m)) continue;  // an optional curve (the random control) when the run measured it
    const std::string name(kCurveNames[m]);
    array(name, 1, [&](int64_t g, int) { return s.curve(m, g).mean(); });
    array(name + "_std", 1, [&](int64_t g, int) { return s.curve(m, g).std(); });
  }
  for (int k = 0; k < metrics::kScalarMetrics; ++k) {
    out[std::string(kScalarNames[k])] = number(s.scalar(k).mean());
    out[std::string(kScalarNames[k]) + "_std"] = number(s.scalar(k).std());
  }
  // SPEC §2b: the difference of the means, top-N minus random.
  for (int k = 0; controlled && k < metrics::kControlled; ++k)
    array(std::string(kCurveNames[metrics::kP_rmax + k]) + "_diff", 1, [&](int64_t g, int) {
      return s.curve(metrics::kP_rmax + k, g).mean() - s.curve(metrics::kFirstOptionalCurve + k, g).mean();
    });
  if (ci) {
    for (int m = 0; m < metrics::kCurveMetrics; ++m)
      if (present(m)) array(std::string(kCurveNames[m]) + "_ci", 2, [&](int64_t g, int j) { return ci->curve[m][g][j]; });
    for (int k = 0; controlled && k < metrics::kControlled; ++k)
      array(std::string(kCurveNames[metrics::kP_rmax + k]) + "_diff_ci", 2,
            [&](int64_t g, int j) { return ci->diff[k][g][j]; });
    for (int k = 0; k < metrics::kScalarMetrics; ++k)
      out[std::string(kScalarNames[k]) + "_ci"] = interval(ci->scalar[k][0], ci->scalar[k][1]);
    // SPEC §6: the intervals of the slopes against ln N of cos(s, v_0) and cos(s, v_L), and
    // their two-sided bootstrap p-values (SPEC §2b: the taxonomy adjusts them across heads).
    for (int k = 0; k < 2; ++k) {
      const std::string name(kCurveNames[k == 0 ? metrics::kCos_s_v0 : metrics::kCos_s_vL]);
      out[name + "_slope_ci"] = interval(ci->slope[k][0], ci->slope[k][1]);
      out[name + "_slope_p"] = number(ci->slope_p[k]);
    }
  }
  if (!with_corr) return;
  // SPEC §3: corr(R(r_min, N), rho0) per N.
  array("sink_recall_corr", 1, [&](int64_t g, int) { return s.sink_recall_corr(g); });
  if (ci) array("sink_recall_corr_ci", 2, [&](int64_t g, int j) { return ci->corr[g][j]; });
}

// The realized envelopes' curves split by whether the sink is selected (SPEC §5), under
// "sink_in" and "sink_out": the upper ones, where a mean can exceed them.
constexpr std::array<int, 4> kSplitCurves = {1, 3, 8, 9};  // P_up, R_up, P_up0, R_up0 in kBoundsNames

// SPEC §5: the means of the bounds of the group's own samples (`mean`: e.mean(layer, head)),
// each array to array(name, value(g)) under "envelopes"; with `split`, the same split by whether
// the sink is selected under "sink_in.<name>" and "sink_out.<name>".
template <typename Array>
void put_envelopes(const metrics::EnvelopeStats& e, const analysis::BoundsCurves& mean, int64_t layer, int64_t head,
                   bool split, Array&& array) {
  const auto samples = e.samples(layer, head);
  const auto fields = analysis::curve_fields(mean);
  array("samples", [&](int64_t g) { return static_cast<double>(samples[g]); });
  for (int k = 0; k < analysis::kBoundCurves; ++k) array(analysis::kBoundsNames[k], [&](int64_t g) { return (*fields[k])[g]; });
  const auto share = e.nontrivial(layer, head);
  array("nontrivial", [&](int64_t g) { return share[g]; });
  if (!split) return;
  for (const bool in : {true, false}) {
    const std::string part = in ? "sink_in." : "sink_out.";
    const auto n = e.samples_split(layer, head, in);
    const auto m = e.mean_split(layer, head, in);
    const auto curves = analysis::curve_fields(m);
    array(part + "samples", [&](int64_t g) { return static_cast<double>(n[g]); });
    for (const int k : kSplitCurves) array(part + analysis::kBoundsNames[k], [&](int64_t g) { return (*curves[k])[g]; });
  }
}

// SPEC §5, "What the envelopes can say": the group's non-trivial share, and the N at which its
// means leave each envelope (metrics::envelope_leaves; `mean`: e.mean(layer, head)), into `out`.
void put_envelope_reading(ordered_json& out, const metrics::EnvelopeStats& e, const analysis::BoundsCurves& mean,
                          int64_t layer, int64_t head, const GroupStats& s, const std::vector<int64_t>& n_grid) {
  std::vector<double> P, R;
  for (int64_t g = 0; g < s.grid_size(); ++g)
    P.push_back(s.curve(metrics::kP_rmax, g).mean()), R.push_back(s.curve(metrics::kR_rmin, g).mean());
  out["nontrivial_share"] = number(e.nontrivial_share(layer, head));
  const auto leaves = metrics::envelope_leaves(n_grid, P, R, mean);
  ordered_json l = ordered_json::object();
  const auto fields = metrics::leaves_fields(leaves);
  for (size_t k = 0; k < fields.size(); ++k) l[metrics::kLeavesNames[k]] = *fields[k];
  out["leaves"] = std::move(l);
}

// A group's kappa range; `failure` for a head without one.
ordered_json kappa_range_object(const metrics::KappaRange& r, const metrics::KappaFailure* failure) {
  ordered_json j = {{"lo", number(r.lo)}, {"hi", number(r.hi)}};
  if (r.has_range()) {
    j["contiguous"] = r.contiguous, j["lo_at_edge"] = r.lo_at_edge, j["hi_at_edge"] = r.hi_at_edge;
  } else {
    j["closest"] = number(r.closest);
    j["violations"] = r.violations;
  }
  if (r.with_range == r.with_range) {
    j["lo_ci"] = interval(r.lo_ci[0], r.lo_ci[1]), j["hi_ci"] = interval(r.hi_ci[0], r.hi_ci[1]);
    j["with_range"] = r.with_range;
  }
  if (failure && !failure->assumption.empty()) {
    ordered_json stat = ordered_json::object(), z = ordered_json::object();
    for (int a = 0; a < metrics::kAssumptions; ++a) {
      stat[metrics::kAssumptionNames[a].name] = number(failure->statistic[a]);
      z[metrics::kAssumptionNames[a].name] = number(failure->z[a]);
    }
    j["fails"] = {{"assumption", failure->assumption}, {"why", failure->why}, {"statistic", stat}, {"z", z}};
  }
  return j;
}

// A group with every array inline, as JSON arrays over n_grid.
void put_group_inline(ordered_json& out, const GroupStats& s, const metrics::GroupIntervals* ci, bool with_corr) {
  put_group(out, s, ci, with_corr, [&](const std::string& key, int width, const auto& value) {
    ordered_json a = ordered_json::array();
    const bool counts = key == "samples_n";  // whole numbers, written as such
    for (int64_t g = 0; g < s.grid_size(); ++g)
      a.push_back(counts ? ordered_json(static_cast<int64_t>(value(g, 0)))
                         : width == 1 ? number(value(g, 0)) : interval(value(g, 0), value(g, 1)));
    out[key] = std::move(a);
  });
}

// One entry's arrays (a head's), built by a worker of its own and put into the table in entry
// order afterwards (ArrayTable::put_all): the table then lists its arrays in the order a build
// entry by entry would have made them. The same slot() as the table's; the entry index is the put's.
struct EntryArrays {
  struct Array {
    std::string key;
    std::vector<int64_t> inner;
    std::vector<double> values;
  };
  std::vector<Array> arrays;
  double* slot(const std::string& key, const std::vector<int64_t>& inner, int64_t) {
    arrays.push_back({key, inner, std::vector<double>(static_cast<size_t>(values_of(inner)), NAN)});
    return arrays.back().values.data();
  }
};

// The arrays of one kind of group ("layers" [L, ...] or "heads" [L, H, ...]) as they are filled
// entry by entry; an array an entry lacks stays NaN there.
class ArrayTable {
 public:
  ArrayTable(MeasureArrays& out, std::string group, std::vector<int64_t> outer)
      : out_(out), group_(std::move(group)), outer_(std::move(outer)), entries_(values_of(outer_)) {}
  // The values of entry `e` of array `key`, whose entry shape is `inner`.
  double* slot(const std::string& key, const std::vector<int64_t>& inner, int64_t e) {
    const size_t k = declare(key, inner);
    return values(k) + e * per_[k];
  }
  // Every entry's arrays, as put entry by entry in order would make them (the same arrays in the
  // same order); the values copied array by array on `pool`'s workers. `entries` is emptied.
  void put_all(std::vector<EntryArrays>& entries, WorkerPool* pool) {
    std::vector<std::vector<std::pair<int64_t, const std::vector<double>*>>> sources;  // per array: (entry, values)
    for (int64_t e = 0; e < std::ssize(entries); ++e)
      for (const auto& a : entries[static_cast<size_t>(e)].arrays) {
        const size_t k = declare(a.key, a.inner);
        sources.resize(std::max(sources.size(), k + 1));
        sources[k].emplace_back(e, &a.values);
      }
    const auto copy = [&](int64_t k, int) {
      for (const auto& [e, from] : sources[static_cast<size_t>(k)])
        std::copy(from->begin(), from->end(), values(static_cast<size_t>(k)) + e * per_[static_cast<size_t>(k)]);
    };
    if (pool) pool->for_each_item(std::ssize(sources), copy);
    else for (int64_t k = 0; k < std::ssize(sources); ++k) copy(k, 0);
    entries.clear();
  }

 private:
  // The index of array `key` in out_, added (its values not yet made) where it is new.
  size_t declare(const std::string& key, const std::vector<int64_t>& inner) {
    auto [it, fresh] = index_.try_emplace(key, out_.size());
    if (fresh) {
      std::vector<int64_t> shape = outer_;
      shape.insert(shape.end(), inner.begin(), inner.end());
      out_.push_back({group_ + "." + key, std::move(shape), {}});
      per_.resize(out_.size(), values_of(inner));
    }
    if (per_[it->second] != values_of(inner)) fail("internal: {} changes its shape between entries", out_[it->second].name);
    return it->second;
  }
  // Array k's values, all NaN when first asked for.
  double* values(size_t k) {
    auto& v = out_[k].values;
    if (v.empty()) v.assign(static_cast<size_t>(entries_ * per_[k]), NAN);
    return v.data();
  }
  MeasureArrays& out_;
  std::string group_;
  std::vector<int64_t> outer_;
  int64_t entries_;
  std::map<std::string, size_t> index_;
  std::vector<int64_t> per_;  // each array's values per entry (its inner shape's size)
};

// A group with its numbers in `out` and its arrays in entry e of `table` (an ArrayTable or an
// EntryArrays).
template <typename Table>
void put_group_split(ordered_json& out, Table& table, int64_t e, const GroupStats& s,
                     const metrics::GroupIntervals* ci, bool with_corr) {
  const int64_t G = s.grid_size();
  put_group(out, s, ci, with_corr, [&](const std::string& key, int width, const auto& value) {
    double* dst = table.slot(key, width == 1 ? std::vector<int64_t>{G} : std::vector<int64_t>{G, 2}, e);
    for (int64_t g = 0; g < G; ++g)
      for (int j = 0; j < width; ++j) dst[g * width + j] = value(g, j);
  });
}

void check_run_info(const ordered_json& run_info) {
  if (!run_info.is_object()) fail("internal: run_info is not a JSON object");
  for (const char* key : {"schema", "bootstrap", "n_grid", "arrays", "global", "layers", "heads"})
    if (run_info.contains(key)) fail("internal: run_info uses the reserved key '{}'", key);
}
}  // namespace

ordered_json kappa_range_json(const metrics::KappaRange& range, const metrics::KappaFailure* failure) {
  return kappa_range_object(range, failure);
}

ordered_json measure_json(const metrics::Aggregator& agg, const ordered_json& run_info,
                          const std::vector<metrics::HeadFits>* fits, const metrics::BootstrapResult* boot,
                          MeasureArrays* arrays, const std::string& arrays_file, const metrics::EnvelopeStats* envelopes,
                          const metrics::KappaRanges* kappa, WorkerPool* pool, const metrics::EnvelopeStats* predicted) {
  check_run_info(run_info);
  ordered_json out = {{"schema", arrays ? kMeasureSchema : kMeasureSchemaInline}};
  for (const auto& [key, value] : run_info.items()) out[key] = value;
  if (boot) {
    out["bootstrap"] = {{"replicates", boot->replicates}, {"seed", boot->seed}, {"level", metrics::boot_level_name(boot->level)},
                        {"unit", run_info.contains("settings") ? run_info["settings"].value("/bootstrap/unit"_json_pointer, "document")
                                                               : "document"},
                        {"units", boot->units}, {"percentiles", {boot->percentiles.lo, boot->percentiles.hi}},
                        // SPEC §2b: intervals only where the data has them.
                        {"intervals", boot->status.intervals}, {"few_units", boot->status.few_units}};
    if (!boot->status.why.empty()) out["bootstrap"]["why"] = boot->status.why;
    if (!boot->status.intervals) boot = nullptr;  // no group has an interval
  }
  out["n_grid"] = agg.n_grid();
  if (fits && !fits->empty()) out["fit_tests"] = fit_tests_json();
  const bool with_fits = fits && !fits->empty();
  if (with_fits && static_cast<int64_t>(fits->size()) != agg.layers() * agg.heads())
    fail("internal: {} fits for {} x {} heads", fits->size(), agg.layers(), agg.heads());

  const metrics::Aggregator::Groups groups = agg.groups(pool);  // each merged once
  ordered_json global = ordered_json::object();
  put_group_inline(global, groups.global, boot ? &boot->global : nullptr, true);
  const int64_t G = std::ssize(agg.n_grid());
  for (const auto* e : {envelopes, predicted})
    if (e && (e->layers() != agg.layers() || e->heads() != agg.heads() || e->grid_size() != G))
      fail("internal: envelopes of {}x{} (grid {}) for {}x{} (grid {})", e->layers(), e->heads(), e->grid_size(),
           agg.layers(), agg.heads(), G);
  // The envelopes `e` of group (layer, head) under out[key] ("envelopes", or "predicted_envelopes"
  // with e = predicted): each array to put_array(e, name, value) (into e itself, or into the
  // arrays file), then the reading (the realized envelopes' leaves; the predicted ones' verdicts
  // read intervals, outside).
  const auto put_group_envelopes = [&](const metrics::EnvelopeStats& stats, const char* key, ordered_json& out,
                                       int64_t layer, int64_t head, const GroupStats& s, auto&& put_array) {
    ordered_json e = ordered_json::object();
    const auto mean = stats.mean(layer, head);
    put_envelopes(stats, mean, layer, head, &stats != predicted,
                  [&](const std::string& name, const auto& value) { put_array(e, name, value); });
    if (&stats == predicted) e["nontrivial_share"] = number(stats.nontrivial_share(layer, head));
    else put_envelope_reading(e, stats, mean, layer, head, s, agg.n_grid());
    out[key] = std::move(e);
  };
  // The arrays inline in `out`.
  const auto envelopes_inline = [&](ordered_json& out, int64_t layer, int64_t head, const GroupStats& s) {
    for (const auto& [stats, key] : {std::pair{envelopes, "envelopes"}, std::pair{predicted, "predicted_envelopes"}})
      if (stats)
        put_group_envelopes(*stats, key, out, layer, head, s, [&](ordered_json& e, const std::string& name, const auto& value) {
          // "sink_in.P_up" nests: e["sink_in"]["P_up"].
          const auto dot = name.find('.');
          const std::string leaf = dot == std::string::npos ? name : name.substr(dot + 1);
          ordered_json a = ordered_json::array();
          for (int64_t g = 0; g < G; ++g) a.push_back(leaf == "samples" ? ordered_json(static_cast<int64_t>(value(g))) : number(value(g)));
          (dot == std::string::npos ? e : e[name.substr(0, dot)])[leaf] = std::move(a);
        });
  };
  // The arrays to entry `entry` of `table`, the reading into `out` (where the reader puts them back).
  const auto envelopes_split = [&](ordered_json& out, auto& table, int64_t entry, int64_t layer, int64_t head,
                                   const GroupStats& s) {
    for (const auto& [stats, key] : {std::pair{envelopes, "envelopes"}, std::pair{predicted, "predicted_envelopes"}})
      if (stats)
        put_group_envelopes(*stats, key, out, layer, head, s, [&](ordered_json&, const std::string& name, const auto& value) {
          double* dst = table.slot(std::string(key) + "." + name, {G}, entry);
          for (int64_t g = 0; g < G; ++g) dst[g] = value(g);
        });
  };
  if (envelopes || predicted) envelopes_inline(global, -1, -1, groups.global);
  if (kappa) global["kappa_range"] = kappa_range_object(kappa->global, nullptr);

  const int64_t L = agg.layers(), H = agg.heads();
  MeasureArrays layer_arrays, head_arrays;
  ArrayTable layer_table(layer_arrays, "layers", {L}), head_table(head_arrays, "heads", {L, H});
  ordered_json layers = ordered_json::array(), heads = ordered_json::array();
  for (int64_t l = 0; l < L; ++l) {
    const auto* ci = boot && !boot->layers.empty() ? &boot->layers[l] : nullptr;
    ordered_json layer = {{"layer", l}};
    const GroupStats& layer_stats = groups.layers[static_cast<size_t>(l)];
    if (arrays) put_group_split(layer, layer_table, l, layer_stats, ci, true);
    else put_group_inline(layer, layer_stats, ci, true);
    if (arrays) envelopes_split(layer, layer_table, l, l, -1, layer_stats);
    else envelopes_inline(layer, l, -1, layer_stats);
    if (kappa) layer["kappa_range"] = kappa_range_object(kappa->layers[l], nullptr);
    layers.push_back(std::move(layer));
  }
  // The heads, each on a worker of `pool` (reading the statistics only), then in order into the
  // JSON and the arrays.
  std::vector<ordered_json> head_json(static_cast<size_t>(L * H));
  std::vector<EntryArrays> head_entries(static_cast<size_t>(arrays ? L * H : 0));
  const auto build_head = [&](int64_t i, int) {
    const int64_t l = i / H, h = i % H;
    const auto* hci = boot && !boot->heads.empty() ? &boot->heads[i] : nullptr;
    ordered_json head = {{"layer", l}, {"head", h}};
    if (arrays) put_group_split(head, head_entries[i], i, agg.head_stats(l, h), hci, false);
    else put_group_inline(head, agg.head_stats(l, h), hci, false);
    if (arrays) envelopes_split(head, head_entries[i], i, l, h, agg.head_stats(l, h));
    else envelopes_inline(head, l, h, agg.head_stats(l, h));
    if (kappa) head["kappa_range"] = kappa_range_object(kappa->heads[i], &kappa->failures[i]);
    if (with_fits) {
      // The fit arrays (mean_norm, c, mean_row) to the table as "fits.<part>.<key>", where the
      // JSON would have written them: NaN for its null (a value neither finite nor a number).
      const auto to_table = [&](ordered_json&, const char* part, const char* key, const std::vector<double>& values) {
        double* out = head_entries[i].slot(std::string("fits.") + part + "." + key, {std::ssize(values)}, i);
        for (const double x : values) *out++ = std::isfinite(x) ? x : NAN;
      };
      head["fits"] = arrays ? to_json((*fits)[i], to_table) : to_json((*fits)[i]);
    }
    head_json[i] = std::move(head);
  };
  if (pool) pool->for_each_item(L * H, build_head);
  else for (int64_t i = 0; i < L * H; ++i) build_head(i, 0);
  if (arrays) head_table.put_all(head_entries, pool);
  for (int64_t i = 0; i < L * H; ++i) heads.push_back(std::move(head_json[i]));
  if (arrays) {
    arrays->clear();
    for (auto* part : {&layer_arrays, &head_arrays})
      for (auto& a : *part) arrays->push_back(std::move(a));
    ordered_json shapes = ordered_json::object();
    for (const auto& a : *arrays) shapes[a.name] = a.shape;
    out["arrays"] = {{"file", arrays_file}, {"dtype", "F64"}, {"tensors", std::move(shapes)}};
  }
  out["global"] = std::move(global);
  out["layers"] = std::move(layers);
  out["heads"] = std::move(heads);
  return out;
}

}  // namespace geoattn::report
