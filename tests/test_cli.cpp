// The geoattn binary end to end: capture and inspect on every family and on stories260K,
// tiny checkpoints of other shapes (sharded, bf16, MQA), and the bad-input matrix: every
// bad input exits non-zero with one line naming the file, and leaves no output file.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstring>
#include <map>

#include <nlohmann/json.hpp>

#include "geoattn/io/features.h"
#include "geoattn/io/safetensors.h"
#include "geoattn/util/atomic_file.h"
#include "command_names.h"
#include "test_util.h"

using geoattn::testing::fixture;
using geoattn::testing::read_file;
using geoattn::testing::source;
using geoattn::testing::TempDir;
using geoattn::testing::write_file;
namespace fs = std::filesystem;

namespace {

using Result = geoattn::testing::RunResult;
Result run(const std::string& args, const TempDir& tmp) { return geoattn::testing::run_tool(args, tmp); }

std::string tiny(const TempDir& tmp, const std::string& name, const std::string& flags) {
  const std::string dir = tmp / name;
  auto r = run("make-tiny-checkpoint " + flags + " --out " + dir, tmp);
  EXPECT_EQ(r.code, 0) << r.err;
  return dir;
}

// A copy of a fixture folder whose model.safetensors header has `from` replaced by `to`
// (same length, so every offset stays put).
std::string patched_fixture(const TempDir& tmp, const std::string& name, const std::string& from, const std::string& to) {
  const std::string dir = tmp / name;
  fs::create_directories(dir);
  fs::copy_file(fixture("hf-tiny/llama/config.json"), dir + "/config.json");
  std::string bytes = read_file(fixture("hf-tiny/llama/model.safetensors"));
  const size_t at = bytes.find(from);
  EXPECT_NE(at, std::string::npos);
  EXPECT_EQ(from.size(), to.size());
  bytes.replace(at, from.size(), to);
  write_file(dir + "/model.safetensors", bytes);
  return dir;
}

std::vector<int64_t> shape_of(const std::string& capture, const std::string& tensor) {
  geoattn::io::SafetensorsFile file(capture);
  return file.header().find(tensor)->shape;
}

}  // namespace

TEST(Cli, HelpListsTheCommands) {
  TempDir tmp;
  auto r = run("geoattn --help", tmp);
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("capture"), std::string::npos);
  EXPECT_NE(r.out.find("inspect"), std::string::npos);
}

TEST(Cli, VersionExitsCleanly) {
  TempDir tmp;
  auto r = run("geoattn --version", tmp);
  EXPECT_EQ(r.code, 0);
  // The build in one line: its LibTorch and its optional parts (io/features.h).
  EXPECT_EQ(r.out.rfind("geoattn 0.1.0 (LibTorch ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(geoattn::io::kHaveSentencepiece ? "; sentencepiece yes;" : "; sentencepiece no: text comes tokenised;"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find(geoattn::io::kHaveLibarchive ? "; libarchive yes)\n" : "; libarchive no: tar shards are refused)\n"),
            std::string::npos) << r.out;
}

// The two programs read one table of commands (tools/geoattn/commands.h): geoattn answers --help
// and --version itself, with geoattn-torch's words, and runs without it what needs no LibTorch.
TEST(Cli, HelpAndVersionNeedNoLibTorch) {
  TempDir tmp;
  const std::string alone = tmp / "alone";
  fs::create_directories(alone);
  fs::copy_file(std::string(GEOATTN_BIN_DIR) + "/geoattn", alone + "/geoattn");
  const auto in = [&](const std::string& dir, const std::string& args) {
    return geoattn::testing::run_tool_in(dir, args, tmp);
  };
  const std::string bin = GEOATTN_BIN_DIR;
  for (const char* args : {"--help", "--version", "metrics --help", "taxonomy --help"}) {
    const Result lone = in(alone, std::string("geoattn ") + args);
    const Result torch = in(bin, std::string("geoattn-torch ") + args);
    EXPECT_EQ(lone.code, 0) << args << ": " << lone.err;
    EXPECT_EQ(lone.out, torch.out) << args;
  }
  const Result help = in(alone, "geoattn --help");
  const auto commands = geoattn::testing::cpp_command_names();  // the table's, not a list of its own
  EXPECT_GE(commands.size(), 9u);
  for (const std::string& command : commands)
    EXPECT_NE(help.out.find(std::string("\n  ") + command + " "), std::string::npos) << command << " not in\n" << help.out;
  // A command of geoattn-torch without it: one line that says what runs here.
  const Result measure = in(alone, "geoattn measure --help");
  EXPECT_EQ(measure.code, 1);
  EXPECT_NE(measure.err.find("geoattn-torch cannot be started (No such file or directory): it runs every command but "
                             "metrics, merge and taxonomy\n"),
            std::string::npos)
      << measure.err;
  // A name the table lacks is a usage error from geoattn itself.
  const Result unknown = in(alone, "geoattn measurE");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("geoattn: error: "), std::string::npos) << unknown.err;
}

// The Python package's commands (commands.h, Needs::Python) from either program: geoattn report
// ... is geoattn-report ... found on PATH, its arguments as given and its exit code kept; listed
// in --help under their own heading; without it on PATH, one line naming it and the install.
TEST(Cli, PythonCommandsRunTheirPackageScripts) {
  TempDir tmp;
  const std::string scripts = tmp / "scripts";
  fs::create_directories(scripts);
  for (const char* name : {"summary", "explain", "compare", "report"}) {
    const std::string path = scripts + "/geoattn-" + name;
    write_file(path, std::string("#!/bin/sh\nprintf '%s|' \"$0\" \"$@\"\nexit 7\n"));
    fs::permissions(path, fs::perms::owner_all);
  }
  const std::string bin = GEOATTN_BIN_DIR, path = "PATH=" + scripts + ":\"$PATH\" ";
  for (const char* program : {"geoattn", "geoattn-torch"})
    for (const char* name : {"summary", "explain", "compare", "report"}) {
      const Result r = geoattn::testing::run_tool_in(bin, std::string(program) + " " + name + " a.json --out 'b c.html'",
                                                     tmp, path);
      EXPECT_EQ(r.code, 7) << program << " " << name << ": " << r.err;
      EXPECT_EQ(r.out, scripts + "/geoattn-" + name + "|a.json|--out|b c.html|") << program << " " << name;
    }
  const Result help = run("geoattn --help", tmp);
  const size_t heading = help.out.find("\nSubcommands of the Python package (geoattn-NAME, docs/python-tools.md):\n");
  ASSERT_NE(heading, std::string::npos) << help.out;
  for (const char* name : {"summary", "explain", "compare", "report"})
    EXPECT_GT(help.out.find(std::string("\n  ") + name + " "), heading) << name;
  const Result missing = geoattn::testing::run_tool_in(bin, "geoattn report a.json", tmp, "PATH=/nonexistent ");
  EXPECT_EQ(missing.code, 1);
  EXPECT_EQ(missing.err,
            "geoattn: error: geoattn report runs geoattn-report, of the Python package, and it cannot be started (No such "
            "file or directory): pip install './python[figures]' puts it on PATH, or from geoattn's checkout run "
            "PYTHONPATH=python python3 -m geoattn.report (numpy needed)\n");
  // That route runs (what the message names), from the checkout.
  const std::string route = "cd " + std::string(GEOATTN_SOURCE_DIR) +
                            " && PYTHONPATH=python python3 -m geoattn.report --help >/dev/null";
  EXPECT_EQ(std::system(route.c_str()), 0) << route;
}

// The bench's figures go to docs/performance.md, not into tests; this runs it on a tiny shape so that the
// command itself (its child processes, the stage table) keeps working.
TEST(Cli, BenchMetricsRunsOnATinyShape) {
  TempDir tmp;
  auto r = run("geoattn bench metrics --T 64 --d 8 --heads 2 --layers 1 --controls 2 --bootstrap 20 --repeats 1", tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* line : {"the float32 Gram floor", "transparent huge pages: ", "advised into 2 MiB pages",
                           "the whole process", "the floor in 2 MiB pages)", "its CPU time", "an idle process",
                           "control orderings", "outside the stages"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << " not in\n" << r.out;
  // The run its child process makes has the bench's settings and no more: the bare core, whose
  // --kappa and --bootstrap-level would be refused there (unread), runs.
  r = run("geoattn bench metrics --T 64 --d 8 --heads 2 --layers 1 --controls 0 --bootstrap 0 --envelopes off --repeats 1",
          tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("the whole process, geoattn metrics --capture"), std::string::npos) << r.out;
}

// The envelopes' bench on a tiny GQA shape, one sample per chunk and every layer in one: it runs,
// and the tensor path's envelopes equal the plain formulas' (the difference it reports, < 1e-9).
TEST(Cli, BenchEnvelopesRunsOnATinyShape) {
  TempDir tmp;
  for (const char* memory : {"1", "256"}) {
    auto r = run(std::string("geoattn bench envelopes --T 64 --d 8 --heads 4 --kv-heads 2 --layers 2 --repeats 1 "
                             "--metrics-memory ") + memory, tmp);
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* line : {"4 heads (2 KV) x 2 layers", "the tensor path on cpu", "the plain formulas on"})
      EXPECT_NE(r.out.find(line), std::string::npos) << line << " not in\n" << r.out;
    const std::string key = "largest difference ";
    const auto at = r.out.find(key);
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_LT(std::stod(r.out.substr(at + key.size())), 1e-9) << r.out;
  }
}

TEST(Cli, CaptureEveryFamilyFromIds) {
  TempDir tmp;
  const std::string ids = "--ids 3,10,17,24,31,38,45,52,59,66,73,80,87,94,101,108,115,122,129,136";
  for (auto [family, kv, d] : {std::tuple{"llama", 4, 16}, {"mistral", 2, 16}, {"gemma", 1, 32}}) {
    const std::string out = tmp / (std::string(family) + ".safetensors");
    auto r = run("geoattn capture --quiet --model " + fixture(std::string("hf-tiny/") + family) + " " + ids +
                     " --queries all --out " + out, tmp);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(shape_of(out, "alpha"), (std::vector<int64_t>{1, 2, 4, 20, 20}));
    EXPECT_EQ(shape_of(out, "values"), (std::vector<int64_t>{1, 2, kv, 20, d}));
    EXPECT_EQ(shape_of(out, "tokens"), (std::vector<int64_t>{1, 20}));
    geoattn::io::SafetensorsFile file(out);
    EXPECT_EQ(file.header().metadata.at("family"), family);
  }
}

// make-tiny-checkpoint writes every family of io/families.h; each loads, inspect shows its
// per-layer attention, and capture records the rows (zero outside each layer's window) with the
// model's description in the metadata.
TEST(Cli, TinyCheckpointOfEveryFamily) {
  TempDir tmp;
  const std::string ids = " --ids 3,10,17,24,31,38,45,52,59,66,73,80,87,94,101,108,115,122,129,136";
  for (const char* family : {"llama", "mistral", "gemma", "gemma2", "gemma3", "qwen2", "qwen3", "phi3", "olmo2"}) {
    const std::string dir = tiny(tmp, family, std::string("--family ") + family + " --layers 6 --heads 4 --kv-heads 2 --window 5");
    auto r = run("geoattn inspect --json --model " + dir, tmp);
    ASSERT_EQ(r.code, 0) << family << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("family"), family);
    ASSERT_EQ(j.at("layer_attention").size(), 6u) << family;
    const std::string out = tmp / (std::string(family) + ".st");
    r = run("geoattn capture --quiet --model " + dir + ids + " --queries all --out " + out, tmp);
    ASSERT_EQ(r.code, 0) << family << ": " << r.err;
    geoattn::io::SafetensorsFile file(out);
    const auto& meta = file.header().metadata;
    EXPECT_EQ(meta.at("family"), family);
    EXPECT_EQ(nlohmann::json::parse(meta.at("layer_attention")), j.at("layer_attention")) << family;
    // Which layers slide is the family's rule (SPEC §8); each windowed layer sees 5 keys.
    int windowed = 0;
    for (const auto& layer : j.at("layer_attention")) windowed += layer.at("window").get<int>() == 5;
    const std::map<std::string, int> expected = {{"llama", 0}, {"mistral", 6}, {"gemma", 0}, {"gemma2", 3}, {"gemma3", 5},
                                                 {"qwen2", 6}, {"qwen3", 6}, {"phi3", 6}, {"olmo2", 0}};
    EXPECT_EQ(windowed, expected.at(family)) << family;
  }
  // inspect's text names the per-layer attention.
  auto r = run("geoattn inspect --model " + (tmp / "gemma3"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("layers 0-4: window 5 rope 1, 5: full rope 0"), std::string::npos) << r.out;
}

// make-tiny-checkpoint draws each tensor from a stream of its own (seed, tensor index), on every
// core: the same seed writes the same bytes run after run, sharded or not; another seed differs.
TEST(Cli, TinyCheckpointIsTheSameForASeed) {
  TempDir tmp;
  const std::string shape = "--layers 3 --hidden 64 --heads 4 --kv-heads 2 --ffn 96 --vocab 300 --dtype BF16";
  const std::string a = tiny(tmp, "a", shape + " --seed 7"), b = tiny(tmp, "b", shape + " --seed 7");
  const std::string c = tiny(tmp, "c", shape + " --seed 8");
  const std::string sharded = tiny(tmp, "s", shape + " --seed 7 --shards 3");
  using geoattn::testing::read_file;
  const std::string weights = read_file(a + "/model.safetensors");
  EXPECT_EQ(weights, read_file(b + "/model.safetensors"));
  EXPECT_NE(weights, read_file(c + "/model.safetensors"));
  // The sharded checkpoint's tensors are the unsharded one's, value for value.
  const geoattn::io::SafetensorsFile one(a + "/model.safetensors");
  int64_t compared = 0, shards = 0;
  for (const auto& entry : fs::directory_iterator(sharded)) {
    if (entry.path().extension() != ".safetensors") continue;
    ++shards;
    const geoattn::io::SafetensorsFile part(entry.path().string());
    for (const auto& info : part.header().tensors) {
      const auto* same = one.header().find(info.name);
      ASSERT_NE(same, nullptr) << info.name;
      ASSERT_EQ(info.end - info.begin, same->end - same->begin) << info.name;
      EXPECT_EQ(std::memcmp(part.data(info), one.data(*same), info.end - info.begin), 0) << info.name;
      ++compared;
    }
  }
  EXPECT_EQ(shards, 3);
  EXPECT_EQ(compared, static_cast<int64_t>(one.header().tensors.size()));
}

TEST(Cli, CaptureStories260KFromTextAndFromData) {
  TempDir tmp;
  const std::string model = source("models/stories260K");
  auto r = run("geoattn capture --quiet --model " + model + " --text 'Once upon a time' --out " + (tmp / "t.safetensors"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  auto shape = shape_of(tmp / "t.safetensors", "alpha");
  EXPECT_EQ(shape[1], 5);
  EXPECT_EQ(shape[2], 8);
  EXPECT_EQ(shape[3], 1);  // last query only

  r = run("geoattn capture --quiet --model " + model + " --data " + source("data/tinystories/tinystories-sample.txt") +
              " --window stream --ctx 64 --max-windows 3 --queries -1,0 --out " + (tmp / "d.safetensors"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(shape_of(tmp / "d.safetensors", "alpha"), (std::vector<int64_t>{3, 5, 8, 2, 64}));
  EXPECT_EQ(shape_of(tmp / "d.safetensors", "values"), (std::vector<int64_t>{3, 5, 4, 64, 8}));
  EXPECT_EQ(shape_of(tmp / "d.safetensors", "queries"), (std::vector<int64_t>{2}));

  if (!geoattn::io::kHaveLibarchive) return;  // OpenWebText's tar needs libarchive (Shards.*)
  r = run("geoattn capture --quiet --model " + model + " --data " + source("data/openwebtext/urlsf_subset00.tar") +
              " --ctx 256 --max-windows 2 --out " + (tmp / "owt.safetensors"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(shape_of(tmp / "owt.safetensors", "alpha"), (std::vector<int64_t>{2, 5, 8, 1, 256}));
}

TEST(Cli, InspectReportsAndValidates) {
  TempDir tmp;
  auto r = run("geoattn inspect --json --model " + source("models/stories260K"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["architecture"], "LlamaForCausalLM");
  EXPECT_EQ(j["kv_heads"], 4);
  EXPECT_EQ(j["tokenizer"]["pieces"], 512);
  EXPECT_EQ(j["memory"]["fp32"]["weights_bytes"], j["parameters"].get<int64_t>() * 4);
  EXPECT_EQ(j["validation"], "ok");
  r = run("geoattn inspect --model " + fixture("hf-tiny/gemma"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("GemmaForCausalLM"), std::string::npos);
  EXPECT_NE(r.out.find("validation: ok"), std::string::npos);
}

// The same random weights, written whole and in three shards, capture the same bytes; bf16
// weights and MQA load too.
TEST(Cli, TinyCheckpointsOfOtherShapes) {
  TempDir tmp;
  const std::string shape = "--family llama --layers 3 --hidden 48 --heads 6 --kv-heads 2 --ffn 96 --vocab 300 --seed 7";
  const std::string whole = tiny(tmp, "whole", shape);
  const std::string sharded = tiny(tmp, "sharded", shape + " --shards 3");
  EXPECT_TRUE(fs::exists(sharded + "/model.safetensors.index.json"));
  EXPECT_TRUE(fs::exists(sharded + "/model-00003-of-00003.safetensors"));
  const std::string ids = " --ids 1,5,9,200,7,3,299,12 --queries all";
  ASSERT_EQ(run("geoattn capture --quiet --model " + whole + ids + " --out " + (tmp / "w.st"), tmp).code, 0);
  ASSERT_EQ(run("geoattn capture --quiet --model " + sharded + ids + " --out " + (tmp / "s.st"), tmp).code, 0);
  geoattn::io::SafetensorsFile w(tmp / "w.st"), s(tmp / "s.st");
  const auto* aw = w.header().find("alpha");
  const auto* as = s.header().find("alpha");
  EXPECT_EQ(aw->shape, (std::vector<int64_t>{1, 3, 6, 8, 8}));
  EXPECT_EQ(std::memcmp(w.data(*aw), s.data(*as), aw->end - aw->begin), 0);

  for (const std::string& flags : {std::string("--family gemma --heads 4 --kv-heads 1 --head-dim 32 --vocab 300 --dtype BF16"),
                                   std::string("--family mistral --heads 4 --kv-heads 1 --window 4 --vocab 300 --dtype F16 --bias")}) {
    const std::string dir = tiny(tmp, "m", flags);
    auto r = run("geoattn capture --quiet --model " + dir + ids + " --dtype bf16 --out " + (tmp / "x.st"), tmp);
    EXPECT_EQ(r.code, 0) << flags << ": " << r.err;
    fs::remove_all(dir);
  }
}

// Each bad input: non-zero exit, no signal, one line on stderr naming the file, no output.
TEST(Cli, BadInputMatrix) {
  TempDir tmp;
  const std::string ids = " --ids 1,2,3";
  const std::string llama = fixture("hf-tiny/llama");

  const std::string truncated = tmp / "truncated";
  fs::create_directories(truncated);
  fs::copy_file(llama + "/config.json", truncated + "/config.json");
  std::string weights = read_file(llama + "/model.safetensors");
  write_file(truncated + "/model.safetensors", weights.substr(0, weights.size() - 100));

  const std::string header_past = tmp / "header_past";
  fs::create_directories(header_past);
  fs::copy_file(llama + "/config.json", header_past + "/config.json");
  std::string past = weights;
  past[3] = 0x7f;  // header length ~2^31
  write_file(header_past + "/model.safetensors", past);

  const std::string no_field = tmp / "no_field";
  fs::create_directories(no_field);
  auto cfg = nlohmann::json::parse(read_file(llama + "/config.json"));
  cfg.erase("num_hidden_layers");
  write_file(no_field + "/config.json", cfg.dump());
  fs::copy_file(llama + "/model.safetensors", no_field + "/model.safetensors");

  const std::string unknown = tmp / "unknown";
  fs::create_directories(unknown);
  cfg = nlohmann::json::parse(read_file(llama + "/config.json"));
  cfg["architectures"] = {"FalconForCausalLM"};
  write_file(unknown + "/config.json", cfg.dump());
  fs::copy_file(llama + "/model.safetensors", unknown + "/model.safetensors");

  const std::string mismatch = tmp / "tokenizer_mismatch";
  fs::create_directories(mismatch);
  for (const char* f : {"config.json", "model.safetensors"}) fs::copy_file(source("models/stories260K/") + f, mismatch + "/" + f);
  fs::copy_file(fixture("tokenizers/llama2.tokenizer.model"), mismatch + "/tokenizer.model");

  // Header patches of the llama fixture (same length, so offsets stay valid).
  const std::string wrong_dtype = patched_fixture(tmp, "wrong_dtype", R"("dtype":"F32")", R"("dtype":"I32")");
  const std::string wrong_shape = patched_fixture(tmp, "wrong_shape", R"("shape":[64])", R"("shape":[32])");
  const std::string missing = patched_fixture(tmp, "missing", "model.norm.weight", "model.norm.weighx");
  const std::string overlap = patched_fixture(tmp, "overlap", R"("data_offsets":[0,)", R"("data_offsets":[4,)");

  struct Case {
    std::string name, args, needle;
  };
  const std::vector<Case> cases = {
      {"truncated file", "--model " + truncated + ids, "model.safetensors"},
      {"header length past the end", "--model " + header_past + ids, "header length"},
      {"wrong dtype", "--model " + wrong_dtype + ids, "model.safetensors"},
      {"shape/byte mismatch", "--model " + wrong_shape + ids, "model.safetensors"},
      {"missing tensor", "--model " + missing + ids, "model.norm.weight"},
      {"overlapping offsets", "--model " + overlap + ids, "model.safetensors"},
      {"missing config field", "--model " + no_field + ids, "missing field 'num_hidden_layers'"},
      {"unknown architecture", "--model " + unknown + ids, "unknown architecture 'FalconForCausalLM'"},
      {"tokenizer/vocab mismatch", "--model " + mismatch + " --text hi", "tokenizer.model"},
      {"not a checkpoint", "--model " + tmp.path().string() + "/nothing" + ids, "nothing"},
      {"id outside vocab", "--model " + llama + " --ids 1,999", "vocabulary"},
      {"query outside window", "--model " + llama + ids + " --queries 7", "--queries"},
      {"no such device", "--model " + llama + ids + " --device cuda:99", "--device cuda:99"},  // no machine has 100 GPUs
      {"empty shard", "--model " + source("models/stories260K") + " --data " + (tmp / "empty.txt"), "empty.txt"},
  };
  write_file(tmp / "empty.txt", "");
  for (const auto& c : cases) {
    const std::string out = tmp / "out.safetensors";
    auto r = run("geoattn capture --quiet " + c.args + " --out " + out, tmp);
    EXPECT_EQ(r.code, 1) << c.name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("geoattn: error: ", 0), 0u) << c.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.name;
  }
  // --out in a folder that does not exist: refused before any work.
  auto r = run("geoattn capture --quiet --model " + llama + ids + " --out " + (tmp / "no/such/dir/x.st"), tmp);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  // Nothing half-written anywhere.
  for (const auto& entry : fs::directory_iterator(tmp.path()))
    EXPECT_FALSE(geoattn::is_temporary_name(entry.path().filename().string())) << entry.path();
}

// Every enum flag is parsed into its enum at the flag: a name outside its table is a usage
// error (exit 2), one line naming the flag, the text and the names it takes.
TEST(Cli, EnumFlagsNameTheFlag) {
  TempDir tmp;
  const std::string capture = "geoattn capture --model " + source("models/stories260K") + " --ids 1,2 --out " + (tmp / "x.st");
  const std::string metrics = "geoattn metrics --capture " + (tmp / "x.st") + " --out " + (tmp / "m.json");
  struct Case {
    std::string command, flag, text, takes;
  };
  for (const Case& c : std::vector<Case>{
           {capture, "--dtype", "fp64", "auto, fp32, bf16 or fp16"},
           {capture, "--device", "gpu", "cpu, cuda or cuda:N"},
           {capture, "--device", "cuda:x", "cpu, cuda or cuda:N"},
           {capture, "--window", "lines", "doc or stream"},
           {capture, "--offset", "random", "start or hashed"},
           {capture, "--pattern-dtype", "bf16", "float32 or run"},
           {metrics, "--distance", "manhattan", "euclidean or cosine"},
           {metrics, "--bootstrap-level", "heads", "auto, global, layer or head"},
           {metrics, "--bootstrap-unit", "doc", "document or window"},
       }) {
    const auto r = run(c.command + " " + c.flag + " " + c.text, tmp);
    EXPECT_EQ(r.code, 2) << c.flag << ": " << r.err;
    EXPECT_EQ(r.err, "geoattn: error: " + c.flag + ": '" + c.text + "' is not one of " + c.takes + " (see --help)\n");
  }
  // The names themselves run, auto included: a capture in bf16 records its dtype by name.
  ASSERT_EQ(run(capture + " --quiet --dtype bf16 --device cpu --pattern-dtype run", tmp).code, 0);
  geoattn::io::SafetensorsFile file(tmp / "x.st");
  EXPECT_EQ(file.header().metadata.at("dtype"), "bf16");
  EXPECT_EQ(file.header().metadata.at("pattern_dtype"), "run");
  EXPECT_EQ(file.header().metadata.at("device"), "cpu");
  ASSERT_EQ(run(metrics + " --bootstrap 20 --bootstrap-level auto --bootstrap-unit window --distance cosine", tmp).code, 0);
  const auto settings = nlohmann::json::parse(read_file(tmp / "m.json")).at("settings");
  EXPECT_EQ(settings.at("distance"), "cosine");
  EXPECT_EQ(settings.at("bootstrap").at("unit"), "window");
  EXPECT_EQ(settings.at("bootstrap").at("level"), "head");
}
