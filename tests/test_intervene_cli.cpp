// geoattn intervene's shards end to end on the embedded default (stories260K): the shards of a
// run merge into the single run bit for bit (random keys and random head sets included), mean
// ablation's means go through a file so that every shard uses the same, merge refuses results
// that are not shards of one run, and a killed run resumes.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "test_util.h"

using geoattn::testing::read_file;
using geoattn::testing::source;
using geoattn::testing::TempDir;
using nlohmann::json;

namespace {

int run(const std::string& args, const TempDir& tmp, std::string* err = nullptr) {
  return geoattn::testing::run_geoattn(args, tmp, err);
}

json load(const std::string& path) { return json::parse(read_file(path)); }

// 12 windows of 12 documents: each shard of two holds some.
const std::string kRun = " --model " + source("models/stories260K") + " --data " +
                         source("data/openwebtext/openwebtext-60docs.jsonl") + " --ctx 64 --max-windows 12 --quiet";

// Everything but the data and the timing: the readings, their intervals and each document's sums.
void expect_same_readings(const json& a, const json& b) {
  for (const char* key : {"model", "settings", "intervals", "tokens_predicted", "loss_plain", "interventions"})
    EXPECT_EQ(a.at(key), b.at(key)) << key;
  std::map<std::string, json> sums_a, sums_b;
  for (size_t u = 0; u < a["per_document"]["documents"].size(); ++u)
    sums_a[a["per_document"]["documents"][u]] = a["per_document"]["sums"][u];
  for (size_t u = 0; u < b["per_document"]["documents"].size(); ++u)
    sums_b[b["per_document"]["documents"][u]] = b["per_document"]["sums"][u];
  EXPECT_EQ(sums_a, sums_b);
}

}  // namespace

TEST(InterveneShards, MergedShardsEqualOneRunBitForBit) {
  TempDir tmp;
  const std::string what = kRun + " --heads 2.1,3.0 --intervention zero --intervention top-n:4 --intervention random:3"
                                  " --random-sets 2 --seed 5";
  ASSERT_EQ(run("intervene" + what + " --out " + (tmp / "all.json"), tmp), 0);
  for (const char* shard : {"0/3", "1/3", "2/3"})
    ASSERT_EQ(run("intervene" + what + " --shard " + shard + " --out " + (tmp / ("s" + std::string(1, shard[0]) + ".json")), tmp), 0);
  ASSERT_EQ(run("merge " + (tmp / "s2.json") + " " + (tmp / "s0.json") + " " + (tmp / "s1.json") + " --out " + (tmp / "m.json"), tmp), 0);
  const json all = load(tmp / "all.json"), merged = load(tmp / "m.json");
  expect_same_readings(all, merged);
  EXPECT_EQ(all["interventions"].size(), 9u);  // 3 interventions x (the set and 2 random sets)
  EXPECT_EQ(merged["data"]["windows"], 12);
  EXPECT_EQ(merged["data"]["shards"].size(), 3u);
  EXPECT_EQ(merged["intervals"]["documents"], 12);
  // Each shard holds its own documents, and its readings are its own (not the run's).
  const json s0 = load(tmp / "s0.json");
  EXPECT_EQ(s0["data"]["shard"], "0/3");
  EXPECT_LT(s0["intervals"]["documents"].get<int>(), 12);
  EXPECT_NE(s0["interventions"][0]["loss"], all["interventions"][0]["loss"]);
  // A merge of merges is the run too, and so is a merge in another order.
  ASSERT_EQ(run("merge " + (tmp / "s0.json") + " " + (tmp / "s1.json") + " --partial --out " + (tmp / "p.json"), tmp), 0);
  ASSERT_EQ(run("merge " + (tmp / "p.json") + " " + (tmp / "s2.json") + " --out " + (tmp / "m2.json"), tmp), 0);
  expect_same_readings(all, load(tmp / "m2.json"));
  EXPECT_EQ(load(tmp / "p.json")["data"]["missing_shards"], json::array({"2/3"}));
}

TEST(InterveneShards, MeanAblationReadsItsMeansFromAFile) {
  TempDir tmp;
  const std::string what = kRun + " --heads 1.0,2.1,4.3 --intervention mean";
  // The first pass writes its means beside the result; a run reading them gives the same numbers.
  ASSERT_EQ(run("intervene" + what + " --out " + (tmp / "first.json"), tmp), 0);
  const std::string means = tmp / "first.means.safetensors";
  ASSERT_TRUE(std::filesystem::exists(means));
  ASSERT_EQ(run("intervene" + what + " --means-from " + means + " --out " + (tmp / "read.json"), tmp), 0);
  const json first = load(tmp / "first.json"), read = load(tmp / "read.json");
  EXPECT_EQ(first["interventions"], read["interventions"]);
  EXPECT_EQ(first["settings"]["means"]["positions"], 12 * 64);
  EXPECT_EQ(read["settings"]["means"]["file"], means);
  EXPECT_EQ(read["settings"]["means"]["hash"].get<std::string>().size(), 16u);
  EXPECT_FALSE(std::filesystem::exists(tmp / "read.means.safetensors"));  // nothing computed, nothing written
  // Shards on the same means merge into the run that read them.
  std::string err;
  EXPECT_EQ(run("intervene" + what + " --shard 0/2 --out " + (tmp / "x.json"), tmp, &err), 1);
  EXPECT_NE(err.find("--shard 0/2: mean ablation would average each shard's own windows"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(tmp / "x.json"));
  for (const char* shard : {"0/2", "1/2"})
    ASSERT_EQ(run("intervene" + what + " --means-from " + means + " --shard " + shard + " --out " +
                      (tmp / ("s" + std::string(1, shard[0]) + ".json")), tmp), 0);
  ASSERT_EQ(run("merge " + (tmp / "s0.json") + " " + (tmp / "s1.json") + " --out " + (tmp / "m.json"), tmp), 0);
  expect_same_readings(read, load(tmp / "m.json"));
  // The means file of a run is its input: no output may replace it, nor be written beside it.
  EXPECT_EQ(run("intervene" + what + " --means-from " + means + " --out " + (tmp / "first.json"), tmp, &err), 1);
  EXPECT_NE(err.find("first.means.safetensors: output path is an input of this run"), std::string::npos) << err;
}

TEST(InterveneShards, MergeRefusesWhatIsNotOneRun) {
  TempDir tmp;
  const std::string what = kRun + " --heads 2.1 --intervention zero";
  ASSERT_EQ(run("intervene" + what + " --shard 0/2 --out " + (tmp / "s0.json"), tmp), 0);
  ASSERT_EQ(run("intervene" + what + " --shard 1/2 --out " + (tmp / "s1.json"), tmp), 0);
  ASSERT_EQ(run("intervene" + what + " --shard 1/2 --bootstrap 10 --out " + (tmp / "b1.json"), tmp), 0);
  ASSERT_EQ(run("intervene" + kRun + " --heads 2.2 --shard 1/2 --out " + (tmp / "h1.json"), tmp), 0);
  ASSERT_EQ(run("measure" + kRun + " --out " + (tmp / "m.json"), tmp), 0);
  const auto refused = [&](const std::string& inputs, const std::string& says) {
    std::string err;
    EXPECT_EQ(run("merge " + inputs + " --out " + (tmp / "out.json"), tmp, &err), 1) << inputs;
    EXPECT_NE(err.find(says), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(std::filesystem::exists(tmp / "out.json"));
  };
  refused((tmp / "s0.json") + " " + (tmp / "b1.json"), "cannot merge with " + (tmp / "s0.json") + ": settings.bootstrap.replicates differs");
  refused((tmp / "s0.json") + " " + (tmp / "h1.json"), "settings.heads differs");
  refused((tmp / "s0.json") + " " + (tmp / "m.json"), "a measure result among intervene results");
  refused((tmp / "s0.json"), "shard 1/2 of " + (tmp / "s0.json") + "'s split missing");
  // A result without its per-document sums (an older geoattn's) says so.
  nlohmann::ordered_json old = nlohmann::ordered_json::parse(read_file(tmp / "s1.json"));
  old.erase("per_document");
  geoattn::testing::write_file(tmp / "old.json", old.dump());
  refused((tmp / "s0.json") + " " + (tmp / "old.json"), "old.json: no per_document sums");
}

// Killed after window 7 with a checkpoint every 3 windows, a rerun with the same arguments
// resumes after window 6 and gives the uninterrupted run's numbers bit for bit (random keys,
// batches and a mean's first pass included); the partial state is gone once the result is in.
TEST(InterveneShards, ResumesAfterSigkill) {
  TempDir tmp;
  const std::string args = "intervene" + kRun + " --heads 2.1,3.0,3.4 --each --intervention random:3 --intervention mean"
                                                " --checkpoint-every 3";
  std::string err;
  ASSERT_EQ(run(args + " --out " + (tmp / "whole.json"), tmp, &err), 0) << err;
  const int status = std::system(("GEOATTN_TEST_KILL_AFTER_WINDOWS=7 " + std::string(GEOATTN_BIN_DIR) + "/geoattn " +
                                  args + " --out " + (tmp / "r.json") + " 2>/dev/null")
                                     .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGKILL);
  ASSERT_FALSE(std::filesystem::exists(tmp / "r.json"));
  ASSERT_TRUE(std::filesystem::exists(tmp / "r.state.safetensors"));  // the checkpoint after window 6
  ASSERT_EQ(run(args + " --out " + (tmp / "r.json"), tmp, &err), 0) << err;
  const json whole = load(tmp / "whole.json"), resumed = load(tmp / "r.json");
  EXPECT_EQ(resumed["timing"]["resumed_after_windows"], 6);
  EXPECT_EQ(whole["timing"]["resumed_after_windows"], 0);
  expect_same_readings(whole, resumed);
  EXPECT_EQ(whole["per_document"], resumed["per_document"]);
  EXPECT_FALSE(std::filesystem::exists(tmp / "r.state.safetensors"));
  // Killed again, then rerun with other arguments: it starts over (the state is not its run's).
  ASSERT_NE(std::system(("GEOATTN_TEST_KILL_AFTER_WINDOWS=4 " + std::string(GEOATTN_BIN_DIR) + "/geoattn " + args +
                         " --out " + (tmp / "r2.json") + " 2>/dev/null")
                            .c_str()),
            0);
  ASSERT_EQ(run(args + " --bootstrap 50 --out " + (tmp / "r2.json"), tmp, &err), 0) << err;
  EXPECT_EQ(load(tmp / "r2.json")["timing"]["resumed_after_windows"], 0);
  // --restart starts over too.
  ASSERT_NE(std::system(("GEOATTN_TEST_KILL_AFTER_WINDOWS=4 " + std::string(GEOATTN_BIN_DIR) + "/geoattn " + args +
                         " --out " + (tmp / "r3.json") + " 2>/dev/null")
                            .c_str()),
            0);
  ASSERT_EQ(run(args + " --restart --out " + (tmp / "r3.json"), tmp, &err), 0) << err;
  EXPECT_EQ(load(tmp / "r3.json")["timing"]["resumed_after_windows"], 0);
  expect_same_readings(whole, load(tmp / "r3.json"));
}
