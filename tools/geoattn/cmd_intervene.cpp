// geoattn intervene: flags -> heads and interventions -> pipeline::intervene_windows (the plain
// forward and one per intervention, window by window) -> readings with intervals -> JSON.
#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "cli.h"
#include "commands.h"
#include "forward_loop.h"
#include "intervene_budgets.h"
#include "geoattn/io/model_info.h"
#include "geoattn/metrics/intervene/loss_stats.h"
#include "geoattn/model/intervention.h"
#include "geoattn/pipeline/metric_run.h"
#include "geoattn/pipeline_torch/intervene.h"
#include "geoattn/pipeline_torch/measure.h"
#include "geoattn/report/intervene_json.h"
#include "geoattn/report/intervene_state.h"
#include "geoattn/report/run_identity.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/pipeline/results.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/input_files.h"
#include "geoattn/util/result_files.h"
#include "geoattn/util/json_parse.h"
#include "geoattn/util/numbers.h"
#include "geoattn/util/random.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::cli {

namespace {

using HeadList = std::vector<std::pair<int64_t, int64_t>>;

struct InterveneOptions {
  std::string model;
  InputOptions input;
  RunOptions run;
  std::string heads;                        // --heads L.H,...
  std::string taxonomy, label;              // --taxonomy T.json --label CLASS
  int64_t random_sets = 0;                  // --random-sets K: controls of the same size from the other heads
  bool each = false;                        // --each: every chosen head alone
  std::vector<std::string> interventions;   // --intervention SPEC (repeatable)
  std::string budget_from;                  // --budget-from M.json: the curves budget:RULE reads
  std::string means_from;                   // --means-from X.means.safetensors: mean ablation's means
  LoopFlags loop;                           // --shard i/n, --checkpoint-every K, --restart
  int64_t per_forward = 0;                  // --per-forward B: interventions of one layer per forward (0: auto)
  std::vector<std::string> policy;          // --policy LABEL=SPEC (repeatable): one intervention by class
  int64_t bootstrap = 2000;
  double ci = metrics::kSpecCi;
  std::string out;
  bool quiet = false;
};

// "3.1,5.0" -> (3, 1), (5, 0); "all": every head of the model; geoattn::Error naming --heads
// otherwise.
HeadList parse_heads(const std::string& text, const arch::ModelConfig& config) {
  HeadList out;
  if (text == "all") {
    for (int64_t l = 0; l < config.n_layers; ++l)
      for (int64_t h = 0; h < config.n_heads; ++h) out.emplace_back(l, h);
    return out;
  }
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t comma = text.find(',', begin);
    const std::string item = text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    const size_t dot = item.find('.');
    const auto layer = dot == std::string::npos ? std::nullopt : parse_integer<int64_t>(item.substr(0, dot));
    const auto head = dot == std::string::npos ? std::nullopt : parse_integer<int64_t>(item.substr(dot + 1));
    if (!layer || !head || *layer < 0 || *head < 0)
      fail("--heads: '{}' is not LAYER.HEAD (e.g. 3.1,5.0) or all", item);
    out.emplace_back(*layer, *head);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return out;
}

// The heads of `label` in the taxonomy file, which must be of this model (its layers and heads);
// `flag` names the label in an error.
HeadList heads_of_label(const std::string& path, const std::string& label, const arch::ModelConfig& config,
                        const std::string& flag = "--label") {
  const auto tax = read_json_file(path);
  if (!tax.is_object() || tax.value("schema", "") != "geoattn.taxonomy/1")
    fail("--taxonomy {}: not a geoattn taxonomy (schema geoattn.taxonomy/1)", path);
  const auto& model = tax.value("model", nlohmann::json::object());
  if (model.value("layers", int64_t{-1}) != config.n_layers || model.value("heads", int64_t{-1}) != config.n_heads)
    fail("--taxonomy {}: a taxonomy of a model of {} layers x {} heads, not this one's {} x {}", path,
         model.value("layers", int64_t{-1}), model.value("heads", int64_t{-1}), config.n_layers, config.n_heads);
  HeadList out;
  std::set<std::string> labels;
  for (const auto& h : tax.value("heads", nlohmann::json::array())) {
    labels.insert(h.value("label", ""));
    if (h.value("label", "") == label) out.emplace_back(h.at("layer").get<int64_t>(), h.at("head").get<int64_t>());
  }
  if (out.empty())
    fail("{} {}: no head of {} has it (its labels: {})", flag, label, path, listed(labels, ", "));
  return out;
}

// `count` heads drawn without replacement from those not in `avoid`, seeded (a control set).
HeadList random_heads(const HeadList& avoid, size_t count, int64_t layers, int64_t heads, uint64_t& state) {
  HeadList pool;
  for (int64_t l = 0; l < layers; ++l)
    for (int64_t h = 0; h < heads; ++h)
      if (std::find(avoid.begin(), avoid.end(), std::pair(l, h)) == avoid.end()) pool.emplace_back(l, h);
  if (pool.size() < count) fail("--random-sets: {} other heads, fewer than the {} of the set", pool.size(), count);
  for (size_t i = 0; i < count; ++i)  // a partial Fisher-Yates shuffle
    std::swap(pool[i], pool[i + uniform_below(state, pool.size() - i)]);
  pool.resize(count);
  std::sort(pool.begin(), pool.end());
  return pool;
}

// --policy's items: (label, what is done to its heads), each label once.
std::vector<std::pair<std::string, model::Intervention>> parse_policy(const std::vector<std::string>& items) {
  std::vector<std::pair<std::string, model::Intervention>> out;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) fail("--policy: '{}' is not LABEL=INTERVENTION (e.g. Reset=sink-recent:16)", item);
    const std::string label = item.substr(0, eq);
    for (const auto& [seen, _] : out)
      if (seen == label) fail("--policy: {} is given twice", label);
    try {
      out.emplace_back(label, model::Intervention::parse(item.substr(eq + 1)));
    } catch (const Error& e) {
      fail("--policy {}: {}", label, e.what());
    }
  }
  return out;
}

std::string heads_text(const HeadList& heads) {
  std::string out;
  for (const auto& [l, h] : heads) out += (out.empty() ? "" : ",") + std::to_string(l) + "." + std::to_string(h);
  return out;
}

// What the run does: the --intervention list on the heads' sets (none when only a --policy runs;
// "zero" when the list is empty) and the --policy parts, each parsed and its flags' combinations
// checked; geoattn::Error naming the flag otherwise.
std::pair<std::vector<model::Intervention>, std::vector<std::pair<std::string, model::Intervention>>> parse_interventions(
    const InterveneOptions& o) {
  const bool by_class = !o.policy.empty();
  const bool on_sets = !o.heads.empty() || !o.label.empty() || o.each;  // the --intervention list's heads
  if (!o.heads.empty() && !o.label.empty()) fail("--heads or --taxonomy with --label: one of them");
  if (o.label.empty() != o.taxonomy.empty() && !(by_class && !o.taxonomy.empty()))
    fail("--taxonomy and --label go together");
  if (!on_sets && !by_class) fail("--heads or --taxonomy with --label: one of them (or --each)");
  if (o.each && o.random_sets > 0) fail("--random-sets: not used with --each (every head alone is its own control)");
  if (by_class && o.taxonomy.empty()) fail("--policy: give --taxonomy T.json, whose classes it names");
  if (!on_sets && !o.interventions.empty())
    fail("--intervention: on which heads? give --heads, --label or --each (a --policy runs alone without them)");
  if (!(o.ci > 0 && o.ci < 100)) fail("--ci: {} is not a coverage in percent (above 0 and below 100)", o.ci);
  const auto check_rule = [](const model::Intervention& iv) {
    if (iv.edit == model::Edit::Budget) (void)analysis::BudgetRule::parse(iv.rule);
  };
  std::vector<model::Intervention> kinds;
  for (const auto& text : !on_sets ? std::vector<std::string>{}
                          : o.interventions.empty() ? std::vector<std::string>{"zero"} : o.interventions) {
    try {
      kinds.push_back(model::Intervention::parse(text));
      check_rule(kinds.back());
    } catch (const Error& e) {
      fail("--intervention: {}", e.what());
    }
  }
  auto policy = parse_policy(o.policy);
  for (const auto& [label, iv] : policy) try {
      check_rule(iv);
    } catch (const Error& e) {
      fail("--policy {}: {}", label, e.what());
    }
  return {std::move(kinds), std::move(policy)};
}

void run_intervene(const InterveneOptions& o) {
  const auto start = Clock::now();
  std::vector<std::string> inputs = o.input.data;
  inputs.push_back(o.model);
  if (!o.taxonomy.empty()) inputs.push_back(o.taxonomy);
  if (!o.budget_from.empty()) inputs.push_back(o.budget_from);
  if (!o.means_from.empty()) inputs.push_back(o.means_from);
  check_outputs_of(o.out, inputs);
  const auto [kinds, policy] = parse_interventions(o);
  const bool by_class = !policy.empty();
  const bool on_sets = !kinds.empty();
  std::vector<model::Intervention> every = kinds;  // the sets' and the policy's
  for (const auto& part : policy) every.push_back(part.second);
  const auto uses = [&](model::Edit edit) {
    return std::any_of(every.begin(), every.end(), [&](const auto& iv) { return iv.edit == edit; });
  };
  const bool budgeted = uses(model::Edit::Budget);
  if (budgeted && o.budget_from.empty())
    fail("--intervention budget:RULE: give --budget-from M.json (the measure result whose curves choose each head's N)");
  if (!budgeted && !o.budget_from.empty()) fail("--budget-from: not used without an --intervention budget:RULE");
  const bool meaned = uses(model::Edit::Mean);
  const pipeline::Shard& shard = o.loop.shard;
  if (!meaned && !o.means_from.empty()) fail("--means-from: not used without an --intervention mean");
  if (meaned && o.means_from.empty() && shard.n > 1)
    fail("--shard {}: mean ablation would average each shard's own windows; give every shard the same means "
         "(--means-from X.means.safetensors, written beside a mean run's X.json)", shard.text());
  const ModelRun r = open_model_run(o.model, o.input, o.run, pipeline::Queries::parse("last"));
  const auto& c = r.checkpoint.config;
  const std::vector<io::Window> windows = pipeline::shard_windows(r.windows, shard.i, shard.n);
  if (windows.empty()) fail("--shard {}: no window falls in this shard (of {} windows)", shard.text(), r.windows.size());
  for (const auto& iv : every)
    if (iv.n > r.T) fail("--intervention {}: {} is above the window's {} keys (--ctx)", iv.text(), iv.n, r.T);
  const BudgetSource budget_source = budgeted ? BudgetSource::read(o.budget_from, c) : BudgetSource{};
  HeadList chosen = !o.heads.empty() ? parse_heads(o.heads, c) : !o.label.empty() ? heads_of_label(o.taxonomy, o.label, c)
                                                                               : HeadList{};
  if (chosen.empty() && on_sets)  // --each alone: every head of the model
    for (int64_t l = 0; l < c.n_layers; ++l)
      for (int64_t h = 0; h < c.n_heads; ++h) chosen.emplace_back(l, h);
  for (const auto& [l, h] : chosen)
    if (l >= c.n_layers || h >= c.n_heads)
      fail("--heads: {}.{} is not a head of the model's {} layers x {} heads", l, h, c.n_layers, c.n_heads);
  // The sets: the chosen heads (with --each, each alone), then --random-sets sets of as many
  // other heads (seeded).
  std::vector<std::pair<std::string, HeadList>> sets;
  if (!on_sets) {
  } else if (o.each)
    for (const auto& head : chosen) sets.emplace_back(heads_text({head}), HeadList{head});
  else
    sets.emplace_back(!o.label.empty() ? o.label + " (" + std::to_string(chosen.size()) + " heads)"
                      : o.heads == "all" ? "all " + std::to_string(chosen.size()) + " heads"
                                         : heads_text(chosen),
                      chosen);
  uint64_t draws = o.input.seed ^ 0x3C6EF372FE94F82BULL;
  for (int64_t s = 0; s < o.random_sets; ++s)
    sets.emplace_back(fmt::format("random set {} ({} heads)", s + 1, chosen.size()),
                      random_heads(chosen, chosen.size(), c.n_layers, c.n_heads, draws));

  // Mean ablation's means: a file's, or a first pass over the run's own windows (each head's
  // mean output), written beside the result for other runs (--means-from).
  const torch::Tensor means = !meaned ? torch::Tensor()
                              : !o.means_from.empty() ? pipeline::read_head_means(o.means_from, c.n_layers, c.n_heads, c.head_dim)
                                                      : pipeline::head_means(r.decoder, windows, o.quiet);
  const int64_t mean_positions = static_cast<int64_t>(windows.size()) * r.T;
  // What `iv` does to `heads`, with a budget's N per head.
  const auto edits_of = [&](const model::Intervention& iv, const HeadList& heads) -> std::pair<model::HeadEdits, std::vector<int64_t>> {
    if (iv.edit == model::Edit::Budget) {
      auto budgets = budget_source.budgets(analysis::BudgetRule::parse(iv.rule), heads, r.T);
      return {model::HeadEdits(c.n_layers, c.n_heads, heads, iv, budgets), budgets};
    }
    if (iv.edit == model::Edit::Mean) return {model::HeadEdits(c.n_layers, c.n_heads, heads, iv, means), {}};
    return {model::HeadEdits(c.n_layers, c.n_heads, heads, iv, o.input.seed), {}};
  };
  std::vector<pipeline::NamedEdits> runs;
  std::vector<report::InterventionInfo> infos;
  for (const auto& iv : kinds)
    for (const auto& [name, heads] : sets) {
      const std::string full = iv.text() + " on " + name;
      auto [edits, budgets] = edits_of(iv, heads);
      runs.push_back({full, std::move(edits)});
      infos.push_back({full, iv.text(), heads, budgets});
    }
  // --policy: one intervention, each listed class of the taxonomy under its own (the others whole).
  if (by_class) {
    model::HeadEdits whole;
    HeadList all;
    std::string text;
    for (const auto& [label, iv] : policy) {
      const HeadList heads = heads_of_label(o.taxonomy, label, c, "--policy");
      auto part = edits_of(iv, heads).first;
      if (all.empty()) whole = std::move(part);
      else whole.add_part(std::move(part));
      all.insert(all.end(), heads.begin(), heads.end());
      text += (text.empty() ? "" : ",") + label + "=" + iv.text();
    }
    std::sort(all.begin(), all.end());
    runs.push_back({"policy " + text + " (" + std::to_string(all.size()) + " heads)", std::move(whole)});
    infos.push_back({runs.back().name, "policy:" + text, all, {}});
  }
  const auto model = report::to_json(pipeline::model_info(r.checkpoint));
  metrics::DataInfo data_info = window_data(o.input, windows, r.T, shard.text());
  nlohmann::ordered_json settings = {{"ctx", r.T},
                                     {"dtype", name_of(arch::kForwardDtypeNames, o.run.forward_dtype())},
                                     {"heads", heads_text(chosen)},
                                     {"random_sets", o.random_sets},
                                     {"each", o.each},
                                     {"interventions", nlohmann::ordered_json::array()},
                                     {"bootstrap", {{"replicates", o.bootstrap}, {"seed", o.input.seed}, {"ci", o.ci}}}};
  if (!o.taxonomy.empty()) settings["taxonomy"] = {{"file", o.taxonomy}, {"label", o.label}};
  if (by_class) {
    settings["policy"] = nlohmann::ordered_json::object();
    for (const auto& [label, iv] : policy) settings["policy"][label] = iv.text();
  }
  if (meaned && o.means_from.empty())
    settings["means"] = {{"over", "every position of the run's windows"}, {"positions", mean_positions}};
  else if (meaned)  // the file and its bytes' digest: shards merge only where they used the same means
    settings["means"] = {{"file", o.means_from}, {"hash", fingerprint(o.means_from).hash}};
  if (budgeted)
    settings["budget_from"] = {{"file", o.budget_from},
                               {"run_id", report::run_id_of(budget_source.doc).value_or("")},
                               {"rule", "the largest N of its grid up to which the head's mean curve stays at least the target"}};
  for (const auto& iv : kinds) settings["interventions"].push_back(iv.text());
  // A partial state of the same run beside --out is resumed (pipeline/resume.h): the sums of its
  // windows, and the rest from there; one is saved every --checkpoint-every windows.
  nlohmann::ordered_json done_to = nlohmann::ordered_json::array();  // what is done to which heads
  for (const auto& info : infos) {
    nlohmann::ordered_json heads = nlohmann::ordered_json::array();
    for (const auto& [l, h] : info.heads) heads.push_back({l, h});
    done_to.push_back({{"name", info.name}, {"heads", heads}, {"budgets", info.budgets}});
  }
  const auto W = static_cast<int64_t>(windows.size());
  report::InterveneState state{{model, settings, done_to, data_info}, metrics::LossStats(static_cast<int64_t>(runs.size()))};
  const std::string state_file = state_path(o.out);
  const int64_t done = pipeline::resume(state_file, o.out, W, o.loop.checkpoint, o.quiet, state, report::load_intervene_state);
  pipeline::InputFingerprints fingerprints;
  const auto after = [&](int64_t windows_done, const metrics::LossStats& so_far) {
    if (pipeline::checkpoint_due(o.loop.checkpoint.every, windows_done, W)) {
      auto& d = state.run_info.data;
      d.windows_done = windows_done, d.complete = false, d.inputs = fingerprints.now();
      report::save_intervene_state(state_file, {state.run_info, so_far});
    }
    pipeline::killed_for_tests(windows_done);
  };
  WorkerPool pool(o.run.threads);
  pipeline::ForwardSeconds forward_s;
  // By default no wider than leaves every worker a batch: ceil(K / workers) at most.
  const auto K = static_cast<int64_t>(runs.size());
  const int64_t per_forward =
      o.per_forward > 0 ? o.per_forward
                        : std::min(pipeline::interventions_per_forward(r.T, c.vocab), (K + pool.size() - 1) / pool.size());
  const metrics::LossStats stats =
      pipeline::intervene_windows(pool, r.decoder, windows, runs, o.quiet, &forward_s, per_forward, std::move(state.stats),
                                  done, after);
  const auto readings_start = Clock::now();
  const metrics::LossReadings readings = metrics::loss_readings(stats, o.bootstrap, o.input.seed, o.ci);
  const double readings_s = seconds_since(readings_start);

  data_info.complete = true;  // every window of the shard is in
  const auto data = report::to_json(data_info);
  auto j = report::intervene_json(model, data, settings, infos, stats, readings);
  // The intervened forwards against the plain ones (with --threads 1 both on one thread: the
  // overhead of an intervention; an intervention from layer l runs only the layers from l on).
  nlohmann::ordered_json per = nlohmann::ordered_json::array();
  for (const double s : forward_s.intervened) per.push_back(s);
  j["timing"] = {{"seconds_total", seconds_since(start)},
                 {"resumed_after_windows", done},
                 {"device", arch::device_name(o.run.device)},
                 {"threads", pool.size()},  // the workers the run had (--threads 0: every core)
                 {"interventions_per_forward", forward_s.per_forward},  // the widest batch a forward ran
                 {"seconds_plain_forwards", forward_s.plain},
                 {"seconds_intervened_forwards", per},
                 {"seconds_readings", readings_s}};  // the readings and their bootstrap
  if (meaned && o.means_from.empty()) pipeline::write_head_means(means_path(o.out), means, mean_positions);
  write_file_atomic(o.out, [&](std::ostream& f) { f << j.dump(1) << "\n"; });
  std::filesystem::remove(state_file);  // the partial state, if any: the result holds all of it
  if (!o.quiet) {
    for (size_t k = 0; k < infos.size(); ++k) {
      const auto& x = readings.interventions[k];
      fmt::print(stderr, "{}: loss {:+.4f} nats/token [{:.4f}, {:.4f}], KL {:.4f}, top-1 {:.3f}\n", infos[k].name,
                 x.loss_diff, x.loss_diff_ci[0], x.loss_diff_ci[1], x.kl, x.top1);
    }
    fmt::print(stderr, "wrote {}: {} interventions over {} windows of {} documents\n", o.out, infos.size(),
               windows.size(), stats.units());
  }
}

void intervene_flags(CLI::App& cmd, InterveneOptions& o) {
  cmd.add_option("--model", o.model, "Hugging Face checkpoint folder")->required();
  add_input_options(cmd, o.input, /*data_only=*/true);
  o.input.seed_draws_more = true;  // the random sets, the random keys and the bootstrap too
  cmd.add_option("--heads", o.heads, "the heads intervened on together: LAYER.HEAD,... (e.g. 3.1,5.0), or all");
  cmd.add_option("--taxonomy", o.taxonomy, "a geoattn taxonomy of this model whose --label class is intervened on");
  cmd.add_option("--label", o.label, "the class of --taxonomy: Retriever, Mixer, Reset or Unlabelled");
  cmd.add_flag("--each", o.each,
               "every head alone (of --heads or the --label class; without them every head of the model): per-head "
               "importance, each run from its layer on (the layers below it are the plain run's)");
  cmd.add_option("--random-sets", o.random_sets,
                 "controls: as many sets of as many heads drawn at random from the other heads (seeded by --seed)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--intervention", o.interventions,
                 "what is done to the heads, inside the attention before the output projection (repeatable; default "
                 "zero): zero (the head's output removed), mean (the head's output its mean over every position of "
                 "the run's windows: a first pass), top-n:N (each row keeps its N largest weights, "
                 "renormalised), sink-recent:K (the first key and the last K keys: StreamingLLM), random:N (the first "
                 "key and N random others, seeded), budget:CURVE:X (each head keeps its own N largest weights: the "
                 "largest N up to which its mean CURVE in --budget-from stays at least X; CURVE P_rmax, R_rmin, F_rmax "
                 "or F_rmin)");
  cmd.add_option("--policy", o.policy,
                 "LABEL=INTERVENTION (repeatable, with --taxonomy): one more intervention, each listed class of the "
                 "taxonomy under its own (e.g. --policy Reset=sink-recent:16 --policy Retriever=top-n:8; the classes "
                 "not listed whole)");
  cmd.add_option("--budget-from", o.budget_from,
                 "a geoattn measure result of this model whose curves choose each head's N for budget:RULE");
  cmd.add_option("--means-from", o.means_from,
                 "mean ablation's means from a file (X.means.safetensors, written beside a mean run's X.json; any "
                 "safetensors with an F32 'means' [layers, heads, head_dim]) instead of a first pass: the same means "
                 "for every --shard");
  add_loop_flags(cmd, o.loop, {LoopFlag::Shard, LoopFlag::Checkpoint});
  add_number_option(cmd, "--per-forward", o.per_forward, int64_t{0}, int64_t{4096},
                    "interventions that start at one layer run side by side in one forward, B at a time (with --each: "
                    "the heads of one layer; 0: as many as keep the batch's logits within 256 MiB, at most 16, and no "
                    "more than leaves each worker a batch)");
  cmd.add_option("--bootstrap", o.bootstrap, "bootstrap replicates over documents (SPEC §2b; 0: none)")
      ->check(CLI::NonNegativeNumber)
      ->default_str("2000");
  cmd.add_option("--ci", o.ci,
                 "the intervals' joint coverage in percent over all interventions (each at 100 - (100 - ci) / m: "
                 "Bonferroni over the m interventions)")
      ->default_str("95");
  add_run_options(cmd, o.run);
  add_output_options(cmd, o.out, o.quiet, "output JSON");
}

}  // namespace

void add_intervene(CLI::App& cmd, Action& action) { bind_command(cmd, action, intervene_flags, run_intervene); }

}  // namespace geoattn::cli
