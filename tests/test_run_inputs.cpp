// Every file a run reads is an input no output may replace (util/input_files.h), and a resume
// starts again only over the bytes it began on (pipeline/resume.h). The list of what each
// command reads comes from the command itself (GEOATTN_TEST_INPUTS_LOG: the inputs it recorded
// where it opened them), so that a reader added later is covered without a line here.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "geoattn/report/measure_json.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/result_files.h"
#include "test_util.h"

using geoattn::testing::read_file;
using geoattn::testing::run_tool;
using geoattn::testing::source;
using geoattn::testing::TempDir;
using geoattn::testing::write_file;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Every file under `dir` and its bytes (the runs' own stdout.txt / stderr.txt and the inputs log aside).
// The folder less the command's logs.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  return geoattn::testing::folder_snapshot(dir, {"stdout.txt", "stderr.txt", "inputs.log"});
}

void run_ok(const std::string& args, const TempDir& tmp) {
  const auto r = run_tool("geoattn " + args, tmp);
  ASSERT_EQ(r.code, 0) << args << ": " << r.err;
}

// stories260K's tokenizer ids as a nanoGPT-style .bin with its token index: 8 documents of 20.
void write_token_shard(const TempDir& tmp) {
  std::string bytes;
  json docs = json::array();
  for (int d = 0; d < 8; ++d) docs.push_back({"doc" + std::to_string(d), d * 20, 20});
  for (int i = 0; i < 160; ++i) {
    const uint16_t id = static_cast<uint16_t>(3 + (i * 37) % 500);
    bytes.append(reinterpret_cast<const char*>(&id), 2);
  }
  write_file(tmp / "ok.bin", bytes);
  write_file(tmp / "ok.bin.json", json{{"format", "geoattn-tokens-1"}, {"dtype", "uint16"}, {"documents", docs}}.dump());
}

// The model folder, data and results the commands below read, all copies in `tmp`.
void make_inputs(const TempDir& tmp) {
  fs::create_directories(tmp / "model");
  for (const char* f : {"config.json", "model.safetensors", "tokenizer.model"})
    fs::copy_file(source("models/stories260K/") + f, fs::path(tmp / "model") / f);
  fs::copy_file(source("data/tinystories/tinystories-sample.txt"), tmp / "d.txt");
  fs::copy_file(source("configs/bounds-llama2-7b.json"), tmp / "p.json");
  fs::copy_file(source("configs/sinks.json"), tmp / "sinks-config.json");
  fs::copy_file(source("configs/sinks.json"), tmp / "cfg.state.safetensors");  // a config by any name
  write_token_shard(tmp);
  const std::string m = " --quiet --model " + (tmp / "model");
  run_ok("capture" + m + " --data " + (tmp / "d.txt") + " --ctx 32 --window stream --max-windows 4 --queries all --out " +
             (tmp / "c.safetensors"), tmp);
  run_ok("metrics --capture " + (tmp / "c.safetensors") + " --bootstrap 0 --out " + (tmp / "m.json"), tmp);
  for (const char* shard : {"0", "1"})
    run_ok("measure" + m + " --data " + (tmp / "ok.bin") + " --ctx 16 --bootstrap 0 --controls 0 --shard " + shard +
               "/2 --out " + (tmp / ("ms" + std::string(shard) + ".json")), tmp);
}

struct Command {
  std::string name, args;  // the run, less --out (quiet)
};

// A head of m.json whose every fit is identified (bounds --params takes only those).
std::string identified_head(const TempDir& tmp) {
  const json m = json::parse(read_file(tmp / "m.json"));
  for (const json& h : m.at("heads")) {
    const json& f = h.at("fits");
    if (f.at("decay").at("ok").get<bool>() && f.at("norms").at("ok").get<bool>() && f.at("profile").at("ok").get<bool>())
      return " --layer " + h.at("layer").dump() + " --head " + h.at("head").dump();
  }
  ADD_FAILURE() << "no head of m.json has every fit identified";
  return "";
}

std::vector<Command> commands(const TempDir& tmp) {
  const std::string m = " --quiet --model " + (tmp / "model"), bin = " --data " + (tmp / "ok.bin");
  return {
      {"capture of a text shard", "capture" + m + " --data " + (tmp / "d.txt") + " --ctx 16 --window stream --max-windows 1"},
      {"capture of a token shard", "capture" + m + bin + " --ctx 16"},
      {"measure of a token shard", "measure" + m + bin + " --ctx 16 --bootstrap 0 --controls 0"},
      {"metrics", "metrics --capture " + (tmp / "c.safetensors") + " --bootstrap 0"},
      {"merge", "merge " + (tmp / "ms0.json") + " " + (tmp / "ms1.json")},
      {"bounds of parameters", "bounds --quiet --params " + (tmp / "p.json") + " --n 1:4 --samples 20"},
      {"bounds of a measure result", "bounds --quiet --params " + (tmp / "m.json") + identified_head(tmp) + " --n 1:4 --samples 20"},
      {"bounds of a capture", "bounds --quiet --capture " + (tmp / "c.safetensors")},
      {"bounds of a model", "bounds" + m + bin + " --ctx 16"},
      {"taxonomy", "taxonomy --quiet --from " + (tmp / "m.json")},
      {"sinks of a capture with a config", "sinks --quiet --capture " + (tmp / "c.safetensors") + " --config " + (tmp / "sinks-config.json")},
      {"sinks with a config named as a sidecar", "sinks --quiet --capture " + (tmp / "c.safetensors") + " --config " +
                                                      (tmp / "cfg.state.safetensors")},
      {"sinks of a model", "sinks" + m + bin + " --ctx 16"},
  };
}

// What `c` reads, as it says itself.
std::vector<std::string> inputs_of(const Command& c, const TempDir& tmp) {
  const auto r = run_tool("geoattn " + c.args + " --out " + (tmp / "fresh.json"), tmp,
                          "GEOATTN_TEST_INPUTS_LOG=" + (tmp / "inputs.log") + " ");
  EXPECT_EQ(r.code, 0) << c.name << ": " << r.err;
  std::vector<std::string> out;
  std::istringstream lines(read_file(tmp / "inputs.log"));
  for (std::string line; std::getline(lines, line);) out.push_back(line);
  for (const std::string& f : {"fresh.json", "fresh.curves.safetensors", "fresh.state.safetensors", "inputs.log"})
    fs::remove(tmp / f);
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

// For every command that writes: --out on each file the run reads, or on a companion of one
// (X.curves.safetensors, X.state.safetensors beside an input X.json, read or not), or naming a
// result whose sidecar would be one, is refused in one line naming it (or, for that result, the
// file its sidecar would replace); every file is unchanged.
TEST(RunInputs, NoOutputReplacesAFileTheRunReads) {
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(make_inputs(tmp));
  const auto before = snapshot(tmp.path());
  int refused = 0;
  for (const Command& c : commands(tmp)) {
    const std::vector<std::string> inputs = inputs_of(c, tmp);
    ASSERT_FALSE(inputs.empty()) << c.name;
    std::vector<std::pair<std::string, std::string>> targets;  // {--out, the file it would replace}
    for (const std::string& in : inputs) {
      targets.emplace_back(in, in);
      if (in.ends_with(".json"))
        for (const std::string& companion : {geoattn::arrays_path(in), geoattn::state_path(in)})
          if (fs::exists(companion)) targets.emplace_back(companion, companion);
    }
    // A result named so that its own sidecar or arrays file would be the target.
    for (const auto& [t, replaced] : std::vector<std::pair<std::string, std::string>>(targets))
      for (const std::string& suffix : {".state.safetensors", ".curves.safetensors"})
        if (t.ends_with(suffix)) targets.emplace_back(t.substr(0, t.size() - suffix.size()) + ".json", t);
    for (const auto& [target, replaced] : targets) {
      const auto r = run_tool("geoattn " + c.args + " --out " + target, tmp);
      EXPECT_EQ(r.code, 1) << c.name << " --out " << target << ": " << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << " --out " << target << ": " << r.err;
      EXPECT_TRUE(r.err.find(fs::path(target).filename().string()) != std::string::npos ||
                  r.err.find(fs::path(replaced).filename().string()) != std::string::npos)
          << c.name << ": " << r.err;
      ++refused;
    }
    EXPECT_EQ(snapshot(tmp.path()), before) << c.name << ": a file was added or changed";
  }
  // What the runs said they read: the companions and configs of the cases above among them.
  for (const auto& [name, file] : std::vector<std::pair<std::string, std::string>>{
           {"capture of a token shard", "ok.bin.json"},
           {"taxonomy", "m.curves.safetensors"},
           {"merge", "ms1.state.safetensors"},
           {"sinks of a capture with a config", "sinks-config.json"},
           {"capture of a text shard", "model/tokenizer.model"}}) {
    const auto all = commands(tmp);
    const auto c = std::find_if(all.begin(), all.end(), [&](const Command& x) { return x.name == name; });
    ASSERT_NE(c, all.end());
    EXPECT_TRUE(contains(inputs_of(*c, tmp), tmp / file)) << name << " does not list " << file;
  }
  EXPECT_GT(refused, 40);
}

namespace {

// `args` killed by SIGKILL after window 2 of --checkpoint-every 1, its state left beside `out`.
void killed_after_two_windows(const std::string& args, const std::string& out, const TempDir& tmp) {
  const int status = std::system(("GEOATTN_TEST_KILL_AFTER_WINDOWS=2 " + std::string(GEOATTN_BIN_DIR) + "/geoattn " + args +
                                  " --checkpoint-every 1 --out " + out + " 2>/dev/null")
                                     .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 128 + SIGKILL);
  ASSERT_TRUE(fs::exists(geoattn::state_path(out)));
}

// A result's numbers (a measure result's arrays read back inline): everything but its timing and
// the names of its files.
json numbers(const std::string& path) {
  const auto doc = nlohmann::ordered_json::parse(read_file(path));
  json j = geoattn::report::is_measure_schema(doc) ? json(geoattn::report::read_measure(path)) : json(doc);
  j.erase("timing");
  j.erase("data");
  j.erase("arrays");
  return j;
}

// Overwrites `path` in place with other bytes of the same size (a byte in the middle flipped).
void change_in_place(const std::string& path) {
  std::string bytes = read_file(path);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x40);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace

// Killed after a checkpoint, an input changed in place (the data, the model's weights, or its
// config.json, which changes the model's description too and so once started over without a
// word), the same command again: refused in one line naming the changed file and --restart, the
// state kept; with --restart, the numbers of a fresh run over the changed input.
TEST(RunInputs, ResumeOverAChangedInputIsRefused) {
  for (const std::string command : {"measure", "sinks"}) {
    for (const std::string changed : {"d.jsonl", "model/model.safetensors", "model/config.json"}) {
      SCOPED_TRACE(command + ", " + changed + " changed");
      TempDir tmp;
      fs::create_directories(tmp / "model");
      for (const char* f : {"config.json", "model.safetensors", "tokenizer.model"})
        fs::copy_file(source("models/stories260K/") + f, fs::path(tmp / "model") / f);
      fs::copy_file(source("data/openwebtext/openwebtext-60docs.jsonl"), tmp / "d.jsonl");
      const std::string extra = command == "measure" ? " --bootstrap 0 --controls 0" : "";
      const std::string args = command + " --quiet --model " + (tmp / "model") + " --data " + (tmp / "d.jsonl") +
                               " --ctx 16 --max-windows 5" + extra;
      ASSERT_NO_FATAL_FAILURE(killed_after_two_windows(args, tmp / "r.json", tmp));
      if (changed == "d.jsonl") {
        // Other documents, as many bytes or not: the first two lines dropped.
        std::string text = read_file(tmp / "d.jsonl");
        for (int i = 0; i < 2; ++i) text.erase(0, text.find('\n') + 1);
        write_file(tmp / "d.jsonl", text);
      } else if (changed == "model/config.json") {
        // Another rms_norm_eps: the model's numbers move.
        std::string text = read_file(tmp / changed);
        const std::string eps = "9.999999747378752e-06";
        ASSERT_NE(text.find(eps), std::string::npos);
        text.replace(text.find(eps), eps.size(), "2e-05");
        write_file(tmp / changed, text);
      } else {
        change_in_place(tmp / changed);
      }
      const std::string state = read_file(tmp / "r.state.safetensors");
      const auto refused = run_tool("geoattn " + args + " --checkpoint-every 1 --out " + (tmp / "r.json"), tmp);
      EXPECT_EQ(refused.code, 1) << refused.err;
      EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
      EXPECT_EQ(refused.err.rfind("geoattn: error: " + (tmp / changed) + ": ", 0), 0u) << refused.err;
      EXPECT_NE(refused.err.find("--restart"), std::string::npos) << refused.err;
      EXPECT_FALSE(fs::exists(tmp / "r.json"));
      EXPECT_EQ(read_file(tmp / "r.state.safetensors"), state);
      // --restart: a fresh run's numbers.
      run_ok(args + " --checkpoint-every 1 --restart --out " + (tmp / "r.json"), tmp);
      run_ok(args + " --out " + (tmp / "fresh.json"), tmp);
      EXPECT_EQ(numbers(tmp / "r.json"), numbers(tmp / "fresh.json"));
      EXPECT_EQ(json::parse(read_file(tmp / "r.json")).at("timing").value("resumed_after_windows", 0), 0);
    }
  }
}

// An input touched but not changed (same bytes, a new mtime) resumes: the bytes decide.
TEST(RunInputs, ResumeOverATouchedInputGoesOn) {
  TempDir tmp;
  fs::copy_file(source("data/openwebtext/openwebtext-60docs.jsonl"), tmp / "d.jsonl");
  const std::string args = "measure --quiet --model " + source("models/stories260K") + " --data " + (tmp / "d.jsonl") +
                           " --ctx 16 --max-windows 5 --bootstrap 0 --controls 0";
  ASSERT_NO_FATAL_FAILURE(killed_after_two_windows(args, tmp / "r.json", tmp));
  fs::last_write_time(tmp / "d.jsonl", fs::last_write_time(tmp / "d.jsonl") + std::chrono::hours(1));
  run_ok(args + " --checkpoint-every 1 --out " + (tmp / "r.json"), tmp);
  EXPECT_EQ(json::parse(read_file(tmp / "r.json")).at("timing").at("resumed_after_windows"), 2);
}

// A write stopped by the file-size limit (SIGXFSZ, not trapped by the caller) or by SIGTERM
// leaves no temporary file; an output name as long as the folder takes is written.
TEST(RunInputs, TemporaryFilesAlwaysGo) {
  TempDir tmp;
  run_ok("capture --quiet --model " + source("models/stories260K") + " --data " +
             source("data/tinystories/tinystories-sample.txt") + " --ctx 32 --max-windows 2 --out " + (tmp / "c.safetensors"),
         tmp);
  const std::string metrics = "geoattn metrics --capture " + (tmp / "c.safetensors") + " --bootstrap 0 --out ";
  const auto limited = run_tool(metrics + (tmp / "o.json"), tmp, "ulimit -f 64; ");
  EXPECT_EQ(limited.code, 1) << limited.err;
  EXPECT_EQ(std::count(limited.err.begin(), limited.err.end(), '\n'), 1) << limited.err;
  EXPECT_NE(limited.err.find("/o."), std::string::npos) << limited.err;
  EXPECT_NE(limited.err.find("File too large"), std::string::npos) << limited.err;
  // The longest --out whose arrays file's name has 255 bytes, the most a name may have.
  const std::string base(255 - std::string(".curves.safetensors").size(), 'n');
  const auto longest = run_tool(metrics + (tmp / (base + ".json")), tmp);
  EXPECT_EQ(longest.code, 0) << longest.err;
  EXPECT_TRUE(fs::exists(tmp / (base + ".curves.safetensors")));
  EXPECT_TRUE(fs::exists(tmp / (base + ".state.safetensors")));
  // A folder that takes no new file names the output and the reason, not a temporary name.
  const auto proc = run_tool(metrics + "/proc/o.json", tmp);
  EXPECT_EQ(proc.code, 1) << proc.err;
  EXPECT_EQ(std::count(proc.err.begin(), proc.err.end(), '\n'), 1) << proc.err;
  EXPECT_EQ(proc.err.rfind("geoattn: error: /proc/o.", 0), 0u) << proc.err;
  EXPECT_EQ(proc.err.find(".tmp"), std::string::npos) << proc.err;
  EXPECT_NE(proc.err.find("cannot write in /proc ("), std::string::npos) << proc.err;
  // SIGTERM once a temporary file is there (the bootstrap runs while the state sidecar is
  // staged): the run's files go with it.
  run_ok("capture --quiet --model " + source("models/stories260K") + " --data " +
             source("data/openwebtext/openwebtext-60docs.jsonl") + " --ctx 64 --max-windows 40 --out " + (tmp / "c40.safetensors"),
         tmp);
  const std::string glob = (tmp / ".geoattn-*.tmp");
  const auto terminated = run_tool(
      "geoattn metrics --capture " + (tmp / "c40.safetensors") + " --bootstrap 20000 --out " + (tmp / "t.json") +
          // "seen" from the check that saw the file: a second look may come after the run renamed it.
          " & pid=$!; i=0; while [ $i -lt 6000 ]; do if ls " + glob + " >/dev/null 2>&1; then echo seen; break; fi; "
          "sleep 0.01; i=$((i+1)); done; kill -TERM $pid; wait $pid; echo rc=$? )",
      tmp, "( ");
  EXPECT_NE(terminated.out.find("seen"), std::string::npos) << terminated.out << terminated.err;
  EXPECT_NE(terminated.out.find("rc=143"), std::string::npos) << terminated.out << terminated.err;
  EXPECT_FALSE(fs::exists(tmp / "t.json"));
  for (const auto& e : fs::directory_iterator(tmp.path()))
    EXPECT_FALSE(geoattn::is_temporary_name(e.path().filename().string())) << e.path();
}

// A staged file (OutputFiles::staged: already a temporary name) is written in place, not through
// a second temporary renamed over it; a plain output through one temporary. Neither is truncated
// on opening (atomic_file.cpp: write_into), so the bytes are all that was written, nothing more.
TEST(RunInputs, StagedFilesAreWrittenInPlaceOnce) {
  const TempDir tmp;
  const std::string out = tmp / "r.json", plain = tmp / "p.txt";
  {
    geoattn::OutputFiles files;
    const std::string staged = files.staged(out);
    struct stat before {};
    ASSERT_EQ(::stat(staged.c_str(), &before), 0);
    geoattn::write_file_atomic(staged, [](std::ostream& s) { s << "whole"; });
    struct stat after {};
    ASSERT_EQ(::stat(staged.c_str(), &after), 0);
    EXPECT_EQ(before.st_ino, after.st_ino);  // the same file: no rename over it
    size_t temporaries = 0;
    for (const auto& e : fs::directory_iterator(tmp.path())) temporaries += geoattn::is_temporary_name(e.path().filename().string());
    EXPECT_EQ(temporaries, 1u);  // the staged name only
    // Written twice, a staged file would keep the first write's tail: refused.
    try {
      geoattn::write_file_atomic(staged, [](std::ostream& s) { s << "w"; });
      ADD_FAILURE() << "a second write of a staged file went through";
    } catch (const geoattn::Error& e) {
      EXPECT_NE(std::string(e.what()).find("written twice"), std::string::npos) << e.what();
    }
    files.commit();
  }
  EXPECT_EQ(read_file(out), "whole");
  geoattn::write_file_atomic(plain, [](std::ostream& s) { s << "a longer text"; });
  geoattn::write_file_atomic(plain, [](std::ostream& s) { s << "short"; });
  EXPECT_EQ(read_file(plain), "short");
  for (const auto& e : fs::directory_iterator(tmp.path()))
    EXPECT_FALSE(geoattn::is_temporary_name(e.path().filename().string())) << e.path();
}

// Two runs onto one output: the second fails at once in one line saying that another run holds
// it (util/atomic_file.h: hold_output), where the two raced on its files; once the holder is
// done, the lock is gone and the output is free. Held here by this process, as a first run would.
TEST(RunInputs, ASecondRunOntoAHeldOutputSaysAnotherRunHoldsIt) {
  TempDir tmp;
  make_inputs(tmp);
  const std::string out = tmp / "held.json";
  geoattn::hold_output(out);
  const std::string run = "measure --quiet --model " + (tmp / "model") + " --data " + (tmp / "ok.bin") +
                          " --ctx 16 --bootstrap 0 --controls 0 --out " + (tmp / "./held.json");  // another spelling
  const auto before = snapshot(tmp.path());
  const auto second = run_tool("geoattn " + run, tmp);
  EXPECT_NE(second.code, 0);
  EXPECT_NE(second.err.find("held.json: another geoattn run is writing this output now"), std::string::npos) << second.err;
  EXPECT_EQ(std::count(second.err.begin(), second.err.end(), '\n'), 1) << second.err;
  EXPECT_EQ(snapshot(tmp.path()), before);  // nothing written, the lock file aside unchanged
  geoattn::release_held_outputs();
  for (const auto& e : fs::directory_iterator(tmp.path()))
    EXPECT_FALSE(geoattn::is_temporary_name(e.path().filename().string())) << e.path();
  run_ok(run, tmp);
  for (const auto& e : fs::directory_iterator(tmp.path()))  // the run's own lock went with it
    EXPECT_FALSE(geoattn::is_temporary_name(e.path().filename().string())) << e.path();
}

// A result and its companions are one unit (report/run_identity.h): merge refuses a shard whose
// state sidecar is another run's, naming both files, for measure and sinks alike.
TEST(RunInputs, MergeRefusesAStateOfAnotherRun) {
  TempDir tmp;
  make_inputs(tmp);
  // `from`'s state copied over `to`'s: merging the two names `to`'s JSON and its state.
  const auto refused = [&](const std::string& from, const std::string& to, const std::string& first,
                           const std::string& second) {
    fs::copy_file(tmp / (from + ".state.safetensors"), tmp / (to + ".state.safetensors"),
                  fs::copy_options::overwrite_existing);
    const auto r = run_tool("geoattn merge " + (tmp / (first + ".json")) + " " + (tmp / (second + ".json")) + " --out " +
                                (tmp / "merged.json"), tmp);
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find(to + ".json: " + (tmp / (to + ".state.safetensors")) + " is not of this run"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(tmp / "merged.json"));
  };
  refused("ms1", "ms0", "ms0", "ms1");
  for (const char* shard : {"0", "1"})
    run_ok("sinks --quiet --model " + (tmp / "model") + " --data " + (tmp / "ok.bin") + " --ctx 16 --shard " + shard +
               "/2 --out " + (tmp / ("s" + std::string(shard) + ".json")), tmp);
  refused("s0", "s1", "s0", "s1");
}
