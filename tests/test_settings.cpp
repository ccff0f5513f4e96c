// The typed settings from flags to files (metrics/run/run_info.h, arch/device.h): the run's
// description and the sink rule round-trip through their JSON byte for byte, files of older
// versions load, a bad entry is one error naming it, and the stats hand their arrays as views.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include <nlohmann/json.hpp>

#include "geoattn/arch/device.h"
#include "geoattn/metrics/stats/assumption_stats.h"
#include "geoattn/metrics/core/grid.h"
#include "geoattn/metrics/stats/kappa_stats.h"
#include "geoattn/pipeline/metric_run.h"
#include "geoattn/pipeline/queries.h"
#include "geoattn/pipeline/shard_set.h"
#include "geoattn/report/frame_config_json.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/report/sink_state_file.h"
#include "geoattn/report/state_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/numbers.h"
#include "test_util.h"

using namespace geoattn;
using geoattn::testing::error_of;
using nlohmann::ordered_json;

namespace {

metrics::MeasureInfo measure_info() {
  metrics::MeasureInfo info;
  info.model = {metrics::ModelInfo::Source::Checkpoint, "models/x", {{"architecture", "LlamaForCausalLM"}, {"layers", 2}}};
  info.data = {metrics::WindowData{{"a.txt", "b.jsonl"}, io::WindowMode::Stream, io::OffsetMode::Hashed, 7, 64, "1/2"},
               12, 12 * 256, std::nullopt, true};
  info.command = {256, std::string("last"), arch::ForwardDtype::Bf16};
  auto& p = info.method.params;
  p.n = metrics::NGrid::parse("1:16,32");
  p.decay_k = 8;
  p.distance = metrics::Distance::Cosine;
  p.controls = 4, p.seed = 7;
  p.bootstrap = 200, p.boot_level = metrics::BootLevel::Layer, p.boot_unit = metrics::BootUnit::Window;
  info.timing.device = arch::Device{arch::Device::Kind::Cuda, 1};
  info.timing.batch = 2;
  info.timing.seconds_total = 1.5;
  info.timing.peak_rss_bytes = 123456789;
  info.timing.stages = {{"load", 0.25}, {"gram", 0.5}};
  return info;
}

// What a file holds: the JSON text, parsed back in order.
ordered_json through_text(const ordered_json& j) { return ordered_json::parse(j.dump()); }

ordered_json builtin_rule_file() {
  return ordered_json::parse(geoattn::testing::read_file(geoattn::testing::source("configs/sinks.json")));
}

}  // namespace

TEST(RunInfo, MeasureRoundTripsByteForByte) {
  const metrics::MeasureInfo info = measure_info();
  const ordered_json j = report::to_json(info);
  EXPECT_EQ(j.dump(), report::to_json(report::measure_info_from_json(through_text(j))).dump());
  EXPECT_EQ(report::measure_info_from_json(through_text(j)), info);
  // The files' order and spelling: the command's settings, then the method's.
  const auto& s = j.at("settings");
  std::vector<std::string> keys;
  for (const auto& [key, value] : s.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"ctx", "queries", "dtype", "n", "decay_k", "distance", "ball", "comparisons",
                                            "metrics_precision", "controls", "bootstrap", "window_tokens", "layer_windows"}));
  EXPECT_EQ(s.at("dtype"), "bf16");
  EXPECT_EQ(s.at("distance"), "cosine");
  EXPECT_EQ(s.at("bootstrap").dump(), R"({"replicates":200,"seed":7,"level":"layer","unit":"window"})");
  EXPECT_EQ(j.at("data").dump(),
            R"({"files":["a.txt","b.jsonl"],"mode":"stream","offset":"hashed","seed":7,"max_windows":64,"shard":"1/2",)"
            R"("windows":12,"tokens":3072,"complete":true})");
  EXPECT_EQ(j.at("timing").at("device"), "cuda:1");
  EXPECT_EQ(j.at("model").dump(), R"({"path":"models/x","architecture":"LlamaForCausalLM","layers":2})");
}

TEST(RunInfo, CaptureAndMergedDataRoundTrip) {
  metrics::MeasureInfo info = measure_info();
  info.model = {metrics::ModelInfo::Source::Capture, "c.safetensors", {{"layers", 2}, {"metadata", {{"dtype", "fp32"}}}}};
  info.command = {64, std::vector<int64_t>{31, 63}, std::nullopt};
  metrics::DataInfo capture{metrics::CaptureData{"c.safetensors"}, 3, 192, std::nullopt, std::nullopt};
  metrics::DataInfo inner{metrics::MergedData{{"a.json", "b.json"}, {capture, capture}}, 6, 384, std::nullopt, std::nullopt};
  info.data = {metrics::MergedData{{"m.json", "c.json"}, {inner, capture}}, 9, 576, std::nullopt, std::nullopt};
  info.timing = {};
  info.timing.merged = 2;
  const ordered_json j = report::to_json(info);
  EXPECT_EQ(report::measure_info_from_json(through_text(j)), info);
  EXPECT_EQ(j.at("settings").at("queries").dump(), "[31,63]");
  EXPECT_FALSE(j.at("settings").contains("dtype"));
  EXPECT_EQ(j.at("model").begin().key(), "capture");
  EXPECT_EQ(j.at("data").at("shards").at(0).at("shards").at(1).dump(), R"({"capture":"c.safetensors","windows":3,"tokens":192})");
  EXPECT_EQ(j.at("timing").dump(), R"({"merged":2})");
  // A partial state times nothing: no "timing" at all.
  info.timing = {};
  EXPECT_FALSE(report::to_json(info).contains("timing"));
}

TEST(RunInfo, OlderFilesLoadAndSaveAsThisVersionWrites) {
  // A run_info of an earlier version: a shorter model description, "tie_tolerance" where this
  // version writes "comparisons", a timing key it no longer knows, no "offset".
  const ordered_json old = ordered_json::parse(R"j({"model":{"path":"/tmp/tiny","layers":1,"heads":2},
    "data":{"files":["t.bin"],"mode":"doc","seed":0,"max_windows":1,"shard":"0/1","windows":1,"tokens":6,"complete":true},
    "settings":{"ctx":6,"queries":"all","dtype":"fp32","n":"1,2","decay_k":64,"distance":"euclidean",
                "ball":"closed (paper appendix A.1)","tie_tolerance":1e-11,"metrics_precision":"float64",
                "controls":{"random_permutations":0,"seed":0},"bootstrap":{"replicates":0,"seed":0}},
    "timing":{"device":"cpu","seconds":0.5,"seconds_total":0.02}})j");
  const metrics::MeasureInfo info = report::measure_info_from_json(old);
  EXPECT_EQ(info.model.path, "/tmp/tiny");
  EXPECT_EQ(info.command.queries, metrics::Queries(std::string("all")));
  EXPECT_EQ(std::get<metrics::WindowData>(info.data.source).offset, io::OffsetMode::Start);
  EXPECT_EQ(info.timing.seconds_total, 0.02);
  // Once saved as this version writes it, it loads and saves back to the same text.
  const std::string once = report::to_json(info).dump();
  EXPECT_EQ(report::to_json(report::measure_info_from_json(ordered_json::parse(once))).dump(), once);
  EXPECT_EQ(once.find("tie_tolerance"), std::string::npos);
}

TEST(RunInfo, BadEntryIsOneErrorNamingIt) {
  struct Case {
    const char* edit;
    const char* needle;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"settings":{"distance":"manhattan"}})", "key 'settings.distance' is 'manhattan', not euclidean or cosine"},
           {R"({"settings":{"ctx":"long"}})", "key 'settings.ctx' must be an integer"},
           {R"({"settings":{"dtype":"fp64"}})", "key 'settings.dtype' is 'fp64', not fp32, bf16 or fp16"},
           {R"({"settings":{"queries":{"a":1}}})", "key 'settings.queries' must be a list of integers"},
           {R"({"settings":{"bootstrap":{"level":"heads"}}})", "key 'settings.bootstrap.level' is 'heads'"},
           {R"({"settings":{"bootstrap":{"seed":-1}}})", "key 'settings.bootstrap.seed' must be an integer >= 0"},
           {R"({"data":{"mode":"chunks"}})", "key 'data.mode' is 'chunks', not doc or stream"},
           {R"({"data":{"merged_from":["a"],"shards":[{"windows":"x"}]}})", "key 'data.shards[0].windows' must be an integer"},
           {R"({"timing":{"device":"tpu"}})", "key 'timing.device' is 'tpu', not cpu, cuda or cuda:N"},
           {R"({"model":{"path":5}})", "key 'model.path' must be a string"},
           {R"([1])", "run_info is not a JSON object"},
       }) {
    const std::string what = error_of([&] { report::measure_info_from_json(ordered_json::parse(c.edit)); });
    EXPECT_NE(what.find(c.needle), std::string::npos) << c.edit << ": " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(RunInfo, SameRunNamesTheDifference) {
  metrics::MeasureInfo a = measure_info(), b = measure_info();
  b.data.windows = 99, b.timing.seconds_total = 7;  // neither counts
  std::string why;
  EXPECT_TRUE(report::same_run(a, b, &why));
  b.command.ctx = 512;
  EXPECT_FALSE(report::same_run(a, b, &why));
  EXPECT_EQ(why, "settings.ctx differs: 256 vs 512");
  b = measure_info();
  b.method.params.distance = metrics::Distance::Euclidean;
  EXPECT_FALSE(report::same_run(a, b, &why));
  EXPECT_EQ(why, R"(settings.distance differs: "cosine" vs "euclidean")");
}

TEST(SinkRule, BuiltInConfigRoundTripsByteForByte) {
  const ordered_json file = builtin_rule_file();
  const metrics::SinkRule rule = report::sink_rule_from_json(file);
  EXPECT_EQ(report::to_json(rule).dump(), file.dump());  // _comment first, sweep last, integers as integers
  EXPECT_EQ(rule.config, analysis::FrameConfig{});
  ASSERT_EQ(rule.notes.size(), 1u);
  EXPECT_EQ(rule.notes[0].first, "_comment");
  ASSERT_EQ(rule.sweep.size(), 4u);
  EXPECT_EQ(rule.sweep[1].key, "comparable_ratio");  // the file's order, not sorted
  EXPECT_EQ(rule.sweep[0].configs.size(), 3u);
  EXPECT_EQ(rule.sweep[0].configs[1].anchor_alpha_min, 0.4);
  EXPECT_EQ(rule.sweep[0].configs[1].comparable_ratio, 0.5);  // the others at the config's

  // In a sinks run's description, and through the sidecar's text.
  metrics::SinkInfo info;
  info.model = {metrics::ModelInfo::Source::Capture, "c.st", ordered_json::object()};
  info.data = {metrics::CaptureData{"c.st"}, 2, 128, std::nullopt, std::nullopt};
  info.command = {64, std::string("all"), std::nullopt};
  info.method.rule = rule;
  info.method.taus = {0.05, 0.2};
  info.method.rule_source = "built-in (configs/sinks.json)";
  const ordered_json j = report::to_json(info);
  EXPECT_EQ(j.at("settings").at("rule").dump(), file.dump());
  EXPECT_EQ(report::sink_info_from_json(through_text(j)), info);
  EXPECT_EQ(report::to_json(report::sink_info_from_json(through_text(j))).dump(), j.dump());
}

TEST(SinkRule, CommentKeysAreNotesBeforeTheThresholds) {
  // A user's config: comments anywhere, some thresholds, an integer sweep.
  const ordered_json user = ordered_json::parse(R"({"distributed_min_S": 2, "_why": "lower S", "density_min": 0.1,
    "_source": "a sweep note", "sweep": {"distributed_min_R": [1, 3]}})");
  const metrics::SinkRule rule = report::sink_rule_from_json(user);
  ASSERT_EQ(rule.notes.size(), 2u);
  EXPECT_EQ(rule.notes[0], (std::pair<std::string, std::string>{"_why", "lower S"}));
  EXPECT_EQ(rule.notes[1], (std::pair<std::string, std::string>{"_source", "a sweep note"}));
  const ordered_json j = report::to_json(rule);
  auto it = j.begin();
  EXPECT_EQ((it++).key(), "_why");
  EXPECT_EQ((it++).key(), "_source");
  EXPECT_EQ(it.key(), "anchor_alpha_min");  // then every threshold, in configs/sinks.json's order
  EXPECT_EQ(j.at("distributed_min_S"), 2);
  EXPECT_EQ(j.at("sweep").dump(), R"({"distributed_min_R":[1,3]})");
  EXPECT_EQ(report::sink_rule_from_json(through_text(j)), rule);
  EXPECT_EQ(report::sweep_value(rule.sweep[0], rule.sweep[0].configs[1]).dump(), "3");

  const std::string what = error_of([] { report::sink_rule_from_json(ordered_json::parse(R"({"_note": 5})")); });
  EXPECT_NE(what.find("'_note' is a comment"), std::string::npos) << what;
  EXPECT_NE(error_of([] { report::sink_rule_from_json(ordered_json::parse(R"({"sweep": {"eps": [1]}})")); })
                .find("unknown key 'eps'"),
            std::string::npos);
  EXPECT_NE(error_of([] { report::frame_config_from_json(ordered_json::parse(R"({"comparable_ratio": 2})")); })
                .find("'comparable_ratio'"),
            std::string::npos);
}

TEST(Device, NamesParseAndAutoDtype) {
  for (const char* name : {"cpu", "cuda", "cuda:0", "cuda:12"}) {
    const auto d = arch::parse_device(name);
    ASSERT_TRUE(d) << name;
    EXPECT_EQ(arch::device_name(*d), name);
  }
  for (const char* bad : {"", "gpu", "cuda:", "cuda:-1", "cuda:1x", "cuda0", "CPU"}) EXPECT_FALSE(arch::parse_device(bad)) << bad;
  const arch::Device cpu, cuda{arch::Device::Kind::Cuda, 0};
  EXPECT_EQ(arch::forward_dtype(std::nullopt, cpu), arch::ForwardDtype::Fp32);
  EXPECT_EQ(arch::forward_dtype(std::nullopt, cuda), arch::ForwardDtype::Bf16);
  EXPECT_EQ(arch::forward_dtype(arch::ForwardDtype::Fp16, cuda), arch::ForwardDtype::Fp16);
  EXPECT_EQ(names_of(arch::kForwardDtypeNames), "fp32, bf16 or fp16");
}

TEST(ArrayViews, StatsOwnTheBytesTheSidecarWrites) {
  metrics::AssumptionStats stats(1, 2, 4, 2);
  const double norm[4] = {1, 2, 3, 4}, row[4] = {0.25, 0.25, 0.25, 0.25}, decay[2] = {0.5, -0.125};
  const int64_t pairs[2] = {2, 1};
  stats.add(0, 1, {norm, 0.3, row, decay, pairs});
  const auto arrays = stats.arrays();
  ASSERT_EQ(arrays.size(), 3u);
  EXPECT_EQ(arrays[0].name, "assume_sums");
  EXPECT_EQ(arrays[2].name, "assume_tokens");
  EXPECT_EQ(arrays[0].shape, (std::vector<int64_t>{1, 2, 11, 2}));
  ASSERT_EQ(arrays[0].bytes.size(), size_t(1 * 2 * 11 * 2 * 8));
  // The ExactSum halves [lo, hi] as from_tensors reads them back.
  std::vector<int64_t> sums(arrays[0].bytes.size() / 8), counts(arrays[1].bytes.size() / 8);
  std::memcpy(sums.data(), arrays[0].bytes.data(), arrays[0].bytes.size());
  std::memcpy(counts.data(), arrays[1].bytes.data(), arrays[1].bytes.size());
  const auto back = metrics::AssumptionStats::from_tensors(1, 2, 4, 2, sums, counts, {4});
  EXPECT_EQ(back.mean_norm(0, 1), stats.mean_norm(0, 1));
  EXPECT_EQ(back.decay(0, 1), stats.decay(0, 1));
  EXPECT_EQ(back.mean_cv(0, 1), stats.mean_cv(0, 1));
  const auto blobs = report::tensor_blobs(arrays);
  EXPECT_EQ(blobs[1].name, "assume_counts");
  EXPECT_EQ(blobs[1].data, static_cast<const void*>(arrays[1].bytes.data()));
}

TEST(RunInfo, CommittedSidecarsOfEarlierVersionsLoad) {
  // The fuzz corpus's seeds were written by earlier versions (older model descriptions and
  // settings): each loads, and saves back as this version writes it, stably.
  geoattn::testing::TempDir tmp;
  const std::string corpus = geoattn::testing::source("tests/fuzz/corpus/");
  for (const char* name : {"plain", "bootstrap"}) {
    const auto state = report::load_run_state(corpus + "run_state/" + name + ".state.safetensors");
    report::save_run_state(tmp / "once", state);
    EXPECT_EQ(report::load_run_state(tmp / "once").run_info, state.run_info) << name;
  }
  for (const char* name : {"plain", "merged", "one-head", "one-tau", "residual", "sweep", "windows-limit"}) {
    const auto run = report::load_sink_state(corpus + "sink_state/" + name + ".state.safetensors");
    report::save_sink_state(tmp / "once", run);
    EXPECT_EQ(report::load_sink_state(tmp / "once").run_info, run.run_info) << name;
  }
  const auto merged = report::load_sink_state(corpus + "sink_state/merged.state.safetensors");
  EXPECT_EQ(std::get<metrics::MergedData>(merged.run_info.data.source).shards.size(), 2u);
}

// The typed values a setting is read into once, where it is given (a flag, a Python argument):
// the text's shape is checked there, what depends on the window length T when T is known, and
// the text a run records is the one given.
TEST(TypedSettings, GridReadOnceValuesAtT) {
  const auto grid = metrics::NGrid::parse("1:4,9,2");
  EXPECT_EQ(grid.text(), "1:4,9,2");
  EXPECT_EQ(grid.at(9), (std::vector<int64_t>{1, 2, 3, 4, 9}));
  EXPECT_NE(error_of([&] { (void)grid.at(8); }).find("9 is outside 1..8"), std::string::npos);
  EXPECT_EQ(metrics::NGrid::parse("default").at(20), metrics::parse_n_grid("default", 20));
  EXPECT_EQ(metrics::NGrid().text(), "default");  // MetricParams' default
  // A range far beyond any T is read, not expanded, until T says what it holds.
  EXPECT_NE(error_of([] { (void)metrics::NGrid::parse("1:9000000000000").at(4); }).find("outside 1..4"),
            std::string::npos);
  for (const char* bad : {"", "x", "1,", "3:1", " 2"})
    EXPECT_EQ(error_of([&] { (void)metrics::NGrid::parse(bad); }).rfind("N grid: ", 0), 0u) << bad;
}

TEST(TypedSettings, KappaScanReadOnce) {
  EXPECT_TRUE(metrics::KappaScan().off());
  EXPECT_TRUE(metrics::KappaScan::parse("auto").automatic());
  const auto scan = metrics::KappaScan::parse("0.25,0.5,2");
  EXPECT_EQ(scan.list(), (std::vector<double>{0.25, 0.5, 2}));
  EXPECT_EQ(scan.text(), "0.25,0.5,2");
  for (const char* bad : {"1,0.5", "1,1", "-1", "0", "nan", "0.5,", ",0.5", "0x1p-2", "on"})
    EXPECT_NE(error_of([&] { (void)metrics::KappaScan::parse(bad); }).find("ascending kappas > 0"), std::string::npos)
        << bad;
}

// The kappa scan's per-document sums are sized before the first window: a run whose documents'
// sums would not fit in memory is refused in one line that names the scan's setting.
TEST(TypedSettings, KappaScanSumsSizedBeforeTheRun) {
  metrics::MetricParams params;
  params.n = metrics::NGrid::parse("all");
  params.kappa_scan = metrics::KappaScan::parse("auto");
  params.bootstrap = 10;
  params.boot_level = metrics::BootLevel::Head;
  const int64_t L = 4, H = 8, T = 8192;  // per document: 32 heads x 17 kappas x 4 curves x 8192 N x 8 bytes = 143 MB
  WorkerPool pool(1);
  for (const auto style : {ArgumentStyle::Flag, ArgumentStyle::Python}) {
    pipeline::MetricRun run(pool, pipeline::metric_spec(params, T, {T - 1}, style), L, H, T);
    const double per_doc = run.state().kappa_scan.unit_bytes(1);
    EXPECT_EQ(per_doc, 32.0 * 17 * 4 * 8192 * 8);
    std::vector<uint64_t> keys;
    std::vector<std::string> docs;
    const auto docs_past_memory = static_cast<int64_t>(static_cast<double>(available_memory_bytes()) / per_doc) + 2;
    for (int64_t d = 0; d < docs_past_memory; ++d) keys.push_back(static_cast<uint64_t>(d)), docs.push_back("doc " + std::to_string(d));
    const std::string e = error_of([&] { run.expect_windows(keys, docs); });
    const std::string name = style == ArgumentStyle::Flag ? "--kappa-scan" : "kappa_scan";
    EXPECT_EQ(e.rfind(name + ": auto (17 kappas), whose sums per document at the bootstrap's level for " +
                          std::to_string(docs_past_memory) + " of them, need ",
                      0),
              0u)
        << e;
    EXPECT_EQ(e.find('\n'), std::string::npos);
    keys.resize(2), docs.resize(2);
    run.expect_windows(keys, docs);  // two documents fit
  }
}

TEST(TypedSettings, QueriesReadOncePositionsAtT) {
  EXPECT_EQ(pipeline::Queries().at(5), (std::vector<int64_t>{4}));
  EXPECT_EQ(pipeline::Queries::parse("all").at(3), (std::vector<int64_t>{0, 1, 2}));
  const auto q = pipeline::Queries::parse("-1,0,2,-1");
  EXPECT_EQ(q.at(5), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(q.text(), "-1,0,2,-1");
  EXPECT_NE(error_of([&] { (void)q.at(2); }).find("position 2 is outside the window 0..1"), std::string::npos);
  for (const char* bad : {"", "first", "0x1", "1,", "1, 2"})
    EXPECT_NE(error_of([&] { (void)pipeline::Queries::parse(bad); }).find("is not last, all or a list"), std::string::npos)
        << bad;
}

TEST(TypedSettings, ShardReadOnce) {
  const auto shard = pipeline::Shard::parse("2/5");
  EXPECT_EQ(shard.i, 2);
  EXPECT_EQ(shard.n, 5);
  EXPECT_EQ(shard.text(), "2/5");
  EXPECT_EQ(pipeline::Shard().text(), "0/1");
  for (const char* bad : {"5/5", "-1/2", "1/0", "1", "1/2/3", " 1/2"})
    EXPECT_NE(error_of([&] { (void)pipeline::Shard::parse(bad); }).find("is not i/n with 0 <= i < n"), std::string::npos)
        << bad;
}

namespace {
// Every entry of a settings table (visit_settings), whatever it takes.
struct CollectNames {
  std::vector<geoattn::FieldName> names;
  template <typename T>
  void parsed(geoattn::FieldName n, const T&, const std::string&) { names.push_back(n); }
  template <typename E, size_t N>
  void choice(geoattn::FieldName n, const E&, const geoattn::EnumName<E> (&)[N], const std::string&) { names.push_back(n); }
  template <typename E, size_t N>
  void choice(geoattn::FieldName n, const std::optional<E>&, const geoattn::EnumName<E> (&)[N], const std::string&) {
    names.push_back(n);
  }
  template <typename T>
  void number(geoattn::FieldName n, const T&, T, T, const std::string&, geoattn::LowBound = geoattn::LowBound::Closed) {
    names.push_back(n);
  }
  void list(geoattn::FieldName n, const std::vector<double>&, const std::string&) { names.push_back(n); }
};

// The subschema at a dotted path of a schema's "settings" ($refs within the file followed), or null.
const nlohmann::json* schema_at(const nlohmann::json& schema, const std::string& path) {
  const nlohmann::json* node = &schema.at("$defs").at("settings");
  size_t begin = 0;
  while (true) {
    while (node->contains("$ref")) {
      const std::string ref = node->at("$ref").get<std::string>();  // "#/$defs/name"
      node = &schema.at("$defs").at(ref.substr(ref.rfind('/') + 1));
    }
    const size_t dot = path.find('.', begin);
    const std::string key = path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (!node->contains("properties") || !node->at("properties").contains(key)) return nullptr;
    node = &node->at("properties").at(key);
    if (dot == std::string::npos) return node;
    begin = dot + 1;
  }
}

template <typename Settings>
void walk_table(const std::string& schema_file, const std::string& python_function, const std::string& command,
                bool compared = false) {
  using geoattn::testing::read_file;
  using geoattn::testing::source;
  CollectNames c;
  const Settings defaults;
  Settings::visit_settings(defaults, c);
  ASSERT_GE(c.names.size(), 4u);
  const auto schema = nlohmann::json::parse(read_file(source("docs/schema/" + schema_file)));
  const std::string cli = read_file(source("docs/cli.md"));
  const size_t section = cli.find("## geoattn " + command);
  ASSERT_NE(section, std::string::npos) << command;
  const std::string help = cli.substr(section, cli.find("\n## ", section + 1) - section);
  const std::string api = read_file(source("python/geoattn/api.py"));
  const size_t def = api.find("def " + python_function + "(");
  ASSERT_NE(def, std::string::npos) << python_function;
  const std::string signature = api.substr(def, api.find(") ->", def) - def);
  for (const geoattn::FieldName& n : c.names) {
    SCOPED_TRACE(std::string(n.python));
    // A flag with its help line in `geoattn COMMAND --help` (docs/cli.md is that text).
    EXPECT_NE(help.find("\n  " + std::string(n.flag) + " "), std::string::npos) << n.flag << " not in docs/cli.md";
    // A Python keyword of the function on the same core.
    EXPECT_NE(signature.find(" " + std::string(n.python) + ": "), std::string::npos) << "geoattn." << python_function;
    // A recorded key in the result's schema, unless it changes no number.
    if (n.recorded_in == geoattn::kNotRecorded) continue;
    const nlohmann::json* node = schema_at(schema, n.record_path());
    EXPECT_NE(node, nullptr) << n.record_path() << " not in " << schema_file;
    // How two runs compared may differ in it (geoattn.tools.compare.settings reads it): its own rule,
    // or its object's.
    if (!compared || node == nullptr) continue;
    const std::string path = n.record_path();
    const nlohmann::json* object = schema_at(schema, path.substr(0, path.find('.')));
    EXPECT_TRUE(node->contains("x-compare") || (object != nullptr && object->contains("x-compare")))
        << path << " has no x-compare (must_match or may_differ) in " << schema_file;
  }
}
}  // namespace

// A setting is one entry (metric_params.h, sink_settings.h): walking the tables, every entry has a
// flag with its help line in docs/cli.md, a keyword of geoattn.metrics / geoattn.sinks, and a
// recorded key in the result's JSON Schema (its record_path), or says that it is not recorded; a
// recorded metric setting says there whether two runs compared must share it (x-compare).
TEST(TypedSettings, EveryEntryHasAFlagAKeywordAndARecordedKey) {
  walk_table<geoattn::metrics::MetricParams>("geoattn.measure-2.schema.json", "metrics", "measure", true);
  walk_table<geoattn::metrics::SinkSettings>("geoattn.sinks-1.schema.json", "sinks", "sinks");
}

// The record is one walk of the table (report/settings.cpp): a run's settings, every recorded
// entry off its default, are written and read back to the same record and the same text; a
// change to any one recorded entry is a different record; and an entry the run left unread
// (metrics::kMetricUnused) is not in the file.
TEST(TypedSettings, TheRecordRoundTripsThroughTheTableWalk) {
  metrics::MeasureInfo info = measure_info();
  auto& p = info.method.params;
  p.ci = 90, p.envelopes = true, p.kappa = 0.5, p.kappa_scan = metrics::KappaScan::of({0.5, 1, 2});
  p.window_tokens = metrics::WindowTokens::Causal;
  info.method.layer_windows = {0, 4};
  const auto written = [](const metrics::MeasureInfo& i) { return report::to_json(i); };
  const ordered_json j = written(info);
  const metrics::MeasureInfo back = report::measure_info_from_json(through_text(j));
  EXPECT_EQ(back, info);
  EXPECT_EQ(written(back).dump(), j.dump());
  const auto& s = j.at("settings");
  EXPECT_EQ(s.at("controls").dump(), R"({"random_permutations":4,"seed":7})");
  EXPECT_EQ(s.at("bootstrap").dump(), R"({"replicates":200,"seed":7,"level":"layer","unit":"window","ci":90.0})");
  EXPECT_EQ(s.at("envelopes").dump(), R"({"kappa":0.5})");
  EXPECT_EQ(s.at("kappa_scan").dump(), R"({"kappas":[0.5,1.0,2.0]})");
  EXPECT_EQ(s.at("window_tokens"), "causal");
  EXPECT_FALSE(s.contains("metrics_memory_mb"));

  // Each recorded entry changed alone: another record (and the same after its round trip).
  const std::vector<std::function<void(metrics::MetricParams&)>> changes = {
      [](auto& q) { q.n = metrics::NGrid::parse("1:8"); },
      [](auto& q) { q.decay_k = 9; },
      [](auto& q) { q.distance = metrics::Distance::Euclidean; },
      [](auto& q) { q.controls = 5; },
      [](auto& q) { q.bootstrap = 201; },
      [](auto& q) { q.seed = 8; },
      [](auto& q) { q.boot_level = metrics::BootLevel::Head; },
      [](auto& q) { q.boot_unit = metrics::BootUnit::Document; },
      [](auto& q) { q.ci = 80; },
      [](auto& q) { q.envelopes = false; },
      [](auto& q) { q.kappa = 2; },
      [](auto& q) { q.kappa_scan = metrics::KappaScan::of({0.5, 1}); },
      [](auto& q) { q.window_tokens = metrics::WindowTokens::Visible; },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    metrics::MeasureInfo other = info;
    changes[i](other.method.params);
    EXPECT_FALSE(other == info) << i;
    EXPECT_EQ(report::measure_info_from_json(through_text(written(other))), other) << i;
  }
  // The working memory changes no number: not recorded, not compared.
  metrics::MeasureInfo memory = info;
  memory.method.params.metrics_memory_mb = 1;
  EXPECT_EQ(memory, info);

  // Unread entries are left out: no bootstrap, no level, unit or ci; no envelopes, no kappa.
  p.bootstrap = 0, p.envelopes = false;
  const ordered_json none = written(info).at("settings");
  EXPECT_EQ(none.at("bootstrap").dump(), R"({"replicates":0,"seed":7})");
  EXPECT_FALSE(none.contains("envelopes"));
  EXPECT_EQ(report::measure_info_from_json(through_text(written(info))), info);
}
