// A table of bad inputs, for every command: each case exits 1 with one line
// "geoattn: error: ..." naming the file or flag and the problem, writes no output file, and is
// never a signal.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "geoattn/io/features.h"
#include "geoattn/report/measure_json.h"
#include "geoattn/util/atomic_file.h"
#include "test_util.h"

using geoattn::testing::run_tool;
using geoattn::testing::source;
using geoattn::testing::TempDir;
using geoattn::testing::write_file;
namespace fs = std::filesystem;

TEST(BadInputs, EveryCommand) {
  TempDir tmp;
  const std::string model = " --model " + source("models/stories260K");
  const std::string story = " --data " + source("data/tinystories/tinystories-sample.txt");
  std::mt19937 rng(1);
  std::string binary(3000, '\0');
  for (char& c : binary) c = static_cast<char>(rng());
  write_file(tmp / "empty.txt", "");
  write_file(tmp / "binary.txt", binary);
  write_file(tmp / "bad-utf8.txt", "once upon a time \xff\xfe there was \xc3\x28 a cat\n");
  write_file(tmp / "short.jsonl", "{\"text\": \"short\"}\n");
  write_file(tmp / "odd.bin", "abc");
  write_file(tmp / "far.bin", std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8));  // id 65535 > vocab
  write_file(tmp / "broken.json", "{\"schema\": \"geoattn.measure/1\", \"heads\": [");
  write_file(tmp / "binary.json", binary);
  // Nested 100000 deep: copying, dumping or destroying such a value would overflow the stack.
  write_file(tmp / "deep.json", std::string(100000, '[') + std::string(100000, ']'));
  // A checkpoint whose tokenizer is a tokenizer.json (byte-level BPE), not sentencepiece.
  fs::create_directories(tmp / "bpe-model");
  for (const char* f : {"config.json", "model.safetensors"})
    fs::create_symlink(source("tests/fixtures/hf-tiny/llama/") + f, fs::path(tmp / "bpe-model") / f);
  write_file(tmp / "bpe-model/tokenizer.json", "{}");
  const std::string bpe_model = " --model " + (tmp / "bpe-model");
  const std::string no_tokenizer = " --model " + source("tests/fixtures/hf-tiny/llama");
  fs::create_directories(tmp / "deep-model");
  write_file(tmp / "deep-model/config.json", "{\"x\": " + std::string(100000, '[') + std::string(100000, ']') + "}");

  struct Case {
    std::string name, args, needle;
  };
  // The strict reading's files: a token shard of documents with an id past the vocabulary, a
  // JSONL row and a bounds parameters file with a key given twice.
  write_file(tmp / "far-doc.bin", std::string("\x01\x00\x02\x00\xff\xff\x03\x00", 8));
  write_file(tmp / "far-doc.bin.json", R"({"format": "geoattn-tokens-1", "dtype": "uint16", "documents": [["a", 0, 4]]})");
  write_file(tmp / "dup.jsonl", "{\"text\": \"once upon a time\", \"text\": \"there was\"}\n");
  write_file(tmp / "dup-params.json", R"({"T": 64, "T": 128})");
  const std::vector<Case> cases = {
      {"empty shard", "measure" + model + " --data " + (tmp / "empty.txt"), "empty.txt"},
      {"binary shard", "measure" + model + " --data " + (tmp / "binary.txt") + " --ctx 32", "not valid UTF-8"},
      {"invalid UTF-8", "measure" + model + " --data " + (tmp / "bad-utf8.txt") + " --ctx 8 --window stream", "bad-utf8.txt"},
      {"document shorter than the context", "measure" + model + " --data " + (tmp / "short.jsonl") + " --ctx 64", "T-1=63"},
      {"context longer than the model's positions", "measure" + model + story + " --ctx 4096", "max_position_embeddings"},
      {"N grid outside 1..T", "measure" + model + story + " --ctx 32 --n 0:40", "--n"},
      {"N grid above T", "metrics --capture " + (tmp / "c.safetensors") + " --n 1:99", "--n"},
      {"device that is not there", "measure" + model + story + " --ctx 32 --device cuda:99", "--device cuda:99"},
      {"odd-sized token shard", "measure" + model + " --data " + (tmp / "odd.bin") + " --ctx 8", "odd.bin"},
      {"token shard of another vocabulary", "measure" + model + " --data " + (tmp / "far.bin") + " --ctx 2 --window stream", "far.bin"},
      {"text for a model with tokenizer.json", "measure" + bpe_model + story + " --ctx 8", "scripts/tokenize_docs.py"},
      {"text for a model without a tokenizer", "capture" + no_tokenizer + " --text hello", "--data X.bin"},
      {"capture: empty shard", "capture" + model + " --data " + (tmp / "empty.txt"), "empty.txt"},
      {"metrics: not a capture", "metrics --capture " + (tmp / "binary.txt"), "binary.txt"},
      {"bounds: broken params", "bounds --params " + (tmp / "broken.json"), "broken.json"},
      {"bounds: binary params", "bounds --params " + (tmp / "binary.json"), "binary.json"},
      {"bounds: deeply nested params", "bounds --params " + (tmp / "deep.json"), "nested deeper than 128 levels"},
      {"bounds: device that is not there", "bounds" + model + story + " --ctx 32 --device cuda:99", "--device cuda:99"},
      {"taxonomy: broken JSON", "taxonomy --from " + (tmp / "broken.json"), "broken.json"},
      {"taxonomy: deeply nested JSON", "taxonomy --from " + (tmp / "deep.json"), "deep.json: nested deeper"},
      {"merge: broken JSON", "merge " + (tmp / "broken.json"), "broken.json: not valid JSON"},
      {"inspect: not a checkpoint", "inspect --model " + tmp.path().string(), "config.json"},
      {"inspect: deeply nested config", "inspect --model " + (tmp / "deep-model"), "config.json: nested deeper"},
      // ---- strict reading: the file named, and the document in it
      {"token shard of documents, an id past the vocabulary", "measure" + model + " --data " + (tmp / "far-doc.bin") + " --ctx 2 --window stream",
       "far-doc.bin: document a: token id 65535"},
      {"capture: token shard of documents, an id past the vocabulary", "capture" + model + " --data " + (tmp / "far-doc.bin") + " --ctx 2",
       "far-doc.bin: document a"},
      {"JSONL row with a key given twice", "measure" + model + " --data " + (tmp / "dup.jsonl") + " --ctx 4 --window stream",
       "dup.jsonl"},
      {"bounds: parameters with a key given twice", "bounds --params " + (tmp / "dup-params.json"), "dup-params.json: the key \"T\" is given twice"},
  };
  // A real capture for the grid case.
  ASSERT_EQ(run_tool("geoattn capture --quiet" + model + story + " --ctx 32 --window stream --max-windows 1 --out " +
                         (tmp / "c.safetensors"),
                     tmp)
                .code,
            0);
  for (const auto& c : cases) {
    const std::string out = tmp / "out.json";
    const bool writes = c.args.rfind("inspect", 0) != 0;
    const auto r = run_tool("geoattn " + c.args + (writes ? " --out " + out : ""), tmp);
    EXPECT_EQ(r.code, 1) << c.name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("geoattn: error: ", 0), 0u) << c.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.name;
    EXPECT_FALSE(fs::exists(tmp / "out.state.safetensors")) << c.name;
  }
  // --out in a folder that does not exist, for every command that writes: refused up front.
  for (const std::string cmd : {"measure" + model + story + " --ctx 32", "bounds --params " + source("configs/bounds-llama2-7b.json"),
                                "metrics --capture " + (tmp / "c.safetensors"), "taxonomy --from " + (tmp / "broken.json"),
                                "merge " + (tmp / "broken.json"), "capture" + model + story + " --ctx 32"}) {
    const auto r = run_tool("geoattn " + cmd + " --out " + (tmp / "no/such/dir/x.json"), tmp);
    EXPECT_EQ(r.code, 1) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << cmd << ": " << r.err;
  }
  for (const auto& entry : fs::directory_iterator(tmp.path()))
    EXPECT_FALSE(geoattn::is_temporary_name(entry.path().filename().string())) << entry.path();
}

// An output path that is one of the run's inputs, a file of its model folder, or not a regular
// file (a FIFO, /dev/null) is refused before anything is written, in one line naming it; the
// input's bytes are unchanged.
TEST(BadInputs, OutputsNeverReplaceInputs) {
  TempDir tmp;
  const std::string model = " --model " + (tmp / "model");
  fs::create_directories(tmp / "model");
  for (const char* f : {"config.json", "model.safetensors", "tokenizer.model"})
    fs::copy_file(source("models/stories260K/") + f, fs::path(tmp / "model") / f);
  fs::copy_file(source("data/tinystories/tinystories-sample.txt"), tmp / "d.txt");
  fs::copy_file(source("configs/bounds-llama2-7b.json"), tmp / "p.json");
  const std::string data = " --data " + (tmp / "d.txt");
  ASSERT_EQ(run_tool("geoattn capture --quiet" + model + data + " --ctx 32 --window stream --max-windows 2 --out " +
                         (tmp / "c.safetensors"), tmp).code, 0);
  for (const char* shard : {"0/2", "1/2"})
    ASSERT_EQ(run_tool("geoattn measure --quiet" + model + " --data " + source("data/openwebtext/openwebtext-60docs.jsonl") +
                       " --ctx 32 --max-windows 4 --bootstrap 0 "
                       "--controls 0 --shard " + std::string(shard) + " --out " + (tmp / ("s" + std::string(1, shard[0]) + ".json")),
                       tmp).code, 0);
  ASSERT_EQ(run_tool("geoattn metrics --capture " + (tmp / "c.safetensors") + " --bootstrap 0 --out " + (tmp / "m.json"),
                     tmp).code, 0);
  ASSERT_EQ(::mkfifo((tmp / "fifo").c_str(), 0600), 0);
  struct Case {
    std::string name, args, out, needle;
  };
  const std::vector<Case> cases = {
      {"capture over its shard", "capture" + model + data + " --ctx 32", tmp / "d.txt", "is an input of this run"},
      {"capture over its checkpoint", "capture" + model + data + " --ctx 32", tmp / "model/model.safetensors",
       "is a file of the input folder"},
      {"measure over its config", "measure" + model + data + " --ctx 32", tmp / "model/config.json", "is a file of the input folder"},
      {"metrics over its capture", "metrics --capture " + (tmp / "c.safetensors"), tmp / "c.safetensors", "is an input of this run"},
      {"sinks over its capture", "sinks --capture " + (tmp / "c.safetensors"), tmp / "c.safetensors", "is an input of this run"},
      {"taxonomy over its result", "taxonomy --from " + (tmp / "m.json"), tmp / "m.json", "is an input of this run"},
      {"bounds over its parameters", "bounds --params " + (tmp / "p.json"), tmp / "p.json", "is an input of this run"},
      {"merge over a shard", "merge " + (tmp / "s0.json") + " " + (tmp / "s1.json"), tmp / "s0.json", "is an input of this run"},
      {"merge over a shard's sidecar", "merge " + (tmp / "s0.json") + " " + (tmp / "s1.json"), tmp / "s1.state.safetensors",
       "is an input of this run"},
      {"a FIFO", "taxonomy --from " + (tmp / "m.json"), tmp / "fifo", "is not a regular file"},
  };
  for (const auto& c : cases) {
    // Every file of the folder, byte for byte, before and after.
    std::map<std::string, std::string> before;
    for (const auto& e : fs::recursive_directory_iterator(tmp.path()))
      if (e.is_regular_file() && e.path().filename() != "stderr.txt" && e.path().filename() != "stdout.txt")
        before[e.path()] = geoattn::testing::read_file(e.path());
    const auto r = run_tool("geoattn " + c.args + " --out " + c.out, tmp);
    EXPECT_EQ(r.code, 1) << c.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(fs::path(c.out).filename().string()), std::string::npos) << c.name << ": " << r.err;
    for (const auto& [path, bytes] : before) EXPECT_EQ(geoattn::testing::read_file(path), bytes) << c.name << ": " << path;
    EXPECT_TRUE(fs::is_fifo(tmp / "fifo")) << c.name;
  }
  if (::geteuid() == 0) {  // only root could replace /dev/null
    const auto r = run_tool("geoattn taxonomy --quiet --from " + (tmp / "m.json") + " --out /dev/null", tmp);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("/dev/null: output path exists and is not a regular file"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    EXPECT_FALSE(fs::exists("/dev/null.curves.safetensors"));
  }
}

// A run that fails while it writes (here: a file-size limit, as a full disk) leaves the result
// of the run before it as it was, all three files, and no temporary file: the JSON, its arrays
// and its state sidecar are committed together or not at all.
TEST(BadInputs, AFailedWriteLeavesTheResultBefore) {
  TempDir tmp;
  ASSERT_EQ(run_tool("geoattn capture --quiet --model " + source("models/stories260K") + " --data " +
                         source("data/tinystories/tinystories-sample.txt") + " --ctx 32 --max-windows 2 --out " +
                         (tmp / "c.safetensors"), tmp).code, 0);
  const std::string metrics = "geoattn metrics --capture " + (tmp / "c.safetensors") + " --bootstrap 0 --out " + (tmp / "o.json");
  ASSERT_EQ(run_tool(metrics + " --n 1:4", tmp).code, 0);
  std::map<std::string, std::string> before;
  for (const char* f : {"o.json", "o.curves.safetensors", "o.state.safetensors"}) before[f] = geoattn::testing::read_file(tmp / f);
  // Writes past 64 KiB fail (EFBIG: geoattn ignores SIGXFSZ): the state sidecar is larger.
  const auto r = run_tool(metrics + " --n all", tmp, "ulimit -f 64; ");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("write failed"), std::string::npos) << r.err;
  for (const auto& [f, bytes] : before) EXPECT_EQ(geoattn::testing::read_file(tmp / f), bytes) << f;
  for (const auto& entry : fs::directory_iterator(tmp.path())) {
    EXPECT_FALSE(geoattn::is_temporary_name(entry.path().filename().string())) << entry.path();
  }
}

// More threads than the machine can start (a memory limit, as on a cluster node) are a one-line
// error naming --threads, not an abort, and leave no file.
TEST(BadInputs, ThreadsTheMachineCannotStart) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit allows";
#endif
  TempDir tmp;
  ASSERT_EQ(run_tool("geoattn capture --quiet --model " + source("models/stories260K") + " --data " +
                         source("data/tinystories/tinystories-sample.txt") + " --ctx 32 --max-windows 1 --out " +
                         (tmp / "c.safetensors"), tmp).code, 0);
  const auto r = run_tool("geoattn metrics --capture " + (tmp / "c.safetensors") + " --threads 2000 --out " + (tmp / "b.json"),
                          tmp, "ulimit -v 8000000; ");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("geoattn: error: --threads 2000: the machine could start only "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "b.json"));
}

// Determinism: the same arguments give byte-identical JSON apart from timing; the seed changes
// the hashed window offsets, the controls and the bootstrap, and is recorded.
TEST(Determinism, SeedIsRecordedAndMatters) {
  if (!geoattn::io::kHaveLibarchive) GTEST_SKIP() << "built without libarchive (its shard is OpenWebText's tar)";
  TempDir tmp;
  const std::string args = "geoattn measure --quiet --model " + source("models/stories260K") + " --data " +
                           source("data/openwebtext/urlsf_subset00.tar") + " --ctx 64 --offset hashed --bootstrap 200";
  for (const auto& [seed, name] : std::vector<std::pair<std::string, std::string>>{{"1", "a"}, {"1", "b"}, {"2", "c"}}) {
    const auto r = run_tool(args + " --seed " + seed + " --out " + (tmp / (name + ".json")), tmp);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  auto strip = [](nlohmann::json j) {
    j.erase("timing");
    return j.dump();
  };
  const nlohmann::json a = geoattn::report::read_measure(tmp / "a.json");  // the arrays inline
  const nlohmann::json b = geoattn::report::read_measure(tmp / "b.json");  // the arrays inline
  const nlohmann::json c = geoattn::report::read_measure(tmp / "c.json");  // the arrays inline
  EXPECT_EQ(strip(a), strip(b));
  EXPECT_EQ(a["data"]["seed"], 1);
  EXPECT_EQ(c["data"]["seed"], 2);
  EXPECT_EQ(c["settings"]["bootstrap"]["seed"], 2);
  EXPECT_NE(a["global"]["P_rmax"], c["global"]["P_rmax"]);  // other offsets, other windows
  // Byte for byte, the arrays files too.
  EXPECT_EQ(geoattn::testing::read_file(tmp / "a.curves.safetensors"), geoattn::testing::read_file(tmp / "b.curves.safetensors"));
}
