// Every flag of every subcommand with a value it must refuse, as a table (and
// the inputs a mode must refuse: captures that are no attention, merges that would count a window
// twice, weights that are not finite). Each case exits 1 or 2 with one line "geoattn: error: ..."
// that holds the flag or file it names, and leaves every file of its folder as it was, nothing
// added. BadFlags.EveryFlagHasACase reads each subcommand's --help: a new flag without a case
// here fails it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <torch/torch.h>

#include "geoattn/model/capture_file.h"
#include "command_names.h"
#include "test_util.h"

using geoattn::testing::read_file;
using geoattn::testing::run_tool;
using geoattn::testing::source;
using geoattn::testing::TempDir;
using geoattn::testing::write_file;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string command;  // the subcommand, "bench metrics" for bench's
  std::string args;     // after it; --out OUT is added for commands that write unless given
  std::string needle;   // what the one line must hold: the flag or the file
};

const std::set<std::string> kWriting = {"capture",  "measure", "metrics", "merge",
                                         "bounds",   "taxonomy", "sinks",   "intervene"};

// The folder's files and their bytes (the run's own stdout.txt / stderr.txt aside).
// The folder less the command's logs.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  return geoattn::testing::folder_snapshot(dir, {"stdout.txt", "stderr.txt"});
}

// A capture as `geoattn capture` writes it with `alpha`/`values` changed by `edit`.
void edited_capture(const std::string& from, const std::string& to,
                    const std::function<void(geoattn::model::CaptureFile&)>& edit) {
  geoattn::model::CaptureFile c = geoattn::model::read_capture_file(from);
  edit(c);
  geoattn::model::write_capture_file(to, c);
}

// The fixtures every case reads, made once: a capture of every query (T = 16), its metrics, two
// sinks shards of three and a whole sinks run, captures that are no attention, a checkpoint with
// one NaN weight.
struct Fixtures {
  TempDir tmp;
  std::string model = source("models/stories260K"), data = source("data/tinystories/tinystories-sample.txt");
  std::string docs = source("data/openwebtext/openwebtext-60docs.jsonl");
  std::string capture = tmp / "c.safetensors";

  Fixtures() {
    const std::string m = " --model " + model;
    run_ok("capture" + m + " --data " + data + " --ctx 16 --window stream --max-windows 3 --queries all --out " + capture);
    run_ok("metrics --capture " + capture + " --bootstrap 0 --out " + (tmp / "m.json"));
    for (const char* shard : {"0", "1"})
      run_ok("sinks" + m + " --data " + docs + " --ctx 16 --max-windows 6 --shard " + shard + "/3 --out " +
             (tmp / ("s" + std::string(shard) + ".json")));
    run_ok("sinks" + m + " --data " + docs + " --ctx 16 --max-windows 6 --out " + (tmp / "s.json"));
    run_ok("measure" + m + " --data " + docs + " --ctx 16 --max-windows 4 --bootstrap 0 --controls 0 --shard 0/3 --out " +
           (tmp / "ms0.json"));
    // A whole run and one of its shards, with per-document sums (a document would meet itself).
    for (const std::string shard : {"", " --shard 0/3"})
      run_ok("measure" + m + " --data " + docs + " --ctx 16 --max-windows 4 --bootstrap 10 --controls 0" + shard +
             " --out " + (tmp / (shard.empty() ? "mbw.json" : "mb0.json")));
    run_ok("taxonomy --from " + (tmp / "mbw.json") + " --out " + (tmp / "tax.json"));
    fs::copy_file(source("configs/bounds-llama2-7b.json"), tmp / "p.json");
    fs::copy_file(tmp / "m.json", tmp / "alone.json");  // a result without its state sidecar
    write_file(tmp / "broken.json", "{\"schema\": \"geoattn.measure/2\", \"heads\": [");
    write_file(tmp / "empty.txt", "");
    using geoattn::model::CaptureFile;
    edited_capture(capture, tmp / "sum5.safetensors", [](CaptureFile& c) { c.alpha = c.alpha * 5; });
    edited_capture(capture, tmp / "zero.safetensors", [](CaptureFile& c) { c.alpha = torch::zeros_like(c.alpha); });
    edited_capture(capture, tmp / "negative.safetensors", [](CaptureFile& c) { c.alpha = -c.alpha; });
    edited_capture(capture, tmp / "acausal.safetensors", [](CaptureFile& c) { c.alpha = c.alpha.flip(-1); });
    edited_capture(capture, tmp / "nan.safetensors", [](CaptureFile& c) { c.values[0][1][0][3][2] = NAN; });
    edited_capture(capture, tmp / "d0.safetensors",
                   [](CaptureFile& c) { c.values = torch::zeros({c.values.size(0), c.values.size(1), c.values.size(2), c.values.size(3), 0}); });
    edited_capture(capture, tmp / "q0.safetensors", [](CaptureFile& c) {
      c.alpha = c.alpha.narrow(3, 0, 0).contiguous();
      c.queries = torch::zeros({0}, torch::kInt64);
    });
    fs::create_directories(tmp / "nan-model");
    for (const char* f : {"config.json", "tokenizer.model"}) fs::copy_file(source("models/stories260K/") + f, tmp / ("nan-model/" + std::string(f)));
    std::string weights = read_file(source("models/stories260K/model.safetensors"));
    const size_t header = 8 + *reinterpret_cast<const uint64_t*>(weights.data());
    weights.replace(header + 4 * 7, 4, std::string("\x00\x00\xc0\x7f", 4));  // the first tensor's 8th float: NaN
    write_file(tmp / "nan-model/model.safetensors", weights);
    strict_fixtures();
  }
  // The strict reading's inputs: values no metric can hold, rows with weight outside the windows
  // their metadata declares, a window of 8.5, parameters that make a NaN weight, a config with a
  // key given twice, a capture whose name is not UTF-8.
  void strict_fixtures() {
    using geoattn::model::CaptureFile;
    edited_capture(capture, tmp / "huge.safetensors", [](CaptureFile& c) { c.values = c.values * 1e30; });
    const auto windows = [](const std::string& first) {
      std::string list = "[{\"window\": " + first + "}";
      for (int l = 1; l < 5; ++l) list += ", {\"window\": 0}";
      return list + "]";
    };
    edited_capture(capture, tmp / "window4.safetensors", [&](CaptureFile& c) { c.metadata["layer_attention"] = windows("4"); });
    edited_capture(capture, tmp / "window85.safetensors", [&](CaptureFile& c) { c.metadata["layer_attention"] = windows("8.5"); });
    std::string p = read_file(source("configs/bounds-llama2-7b.json"));
    const std::string cv = "\"cv\": 0.025";  // noise of 1e308 times a weight: inf - inf samples
    p.replace(p.find(cv), cv.size(), "\"cv\": 1e308");
    write_file(tmp / "p_nan.json", p);
    write_file(tmp / "dup.json", "{\"reset_n_max\": 4, \"reset_n_max\": 8}");
    fs::copy_file(capture, tmp / "c\xff.safetensors");
  }
  void run_ok(const std::string& args) {
    const bool talks = args.rfind("metrics", 0) != 0;  // metrics prints nothing, and has no --quiet
    const auto r = run_tool("geoattn " + args + (talks ? " --quiet" : ""), tmp);
    ASSERT_EQ(r.code, 0) << args << ": " << r.err;
  }
};

std::vector<Case> cases(const Fixtures& f) {
  const TempDir& t = f.tmp;
  const std::string m = " --model " + f.model, d = " --data " + f.data, c = " --capture " + f.capture;
  const std::string run = m + d + " --ctx 16 --max-windows 1";  // a model over a shard
  const std::string params = " --params " + (t / "p.json");
  return {
      // capture
      {"capture", " --model " + (t / "none") + " --ids 1", "none"},
      {"capture", " --model ''" + d, "--model"},
      {"capture", run + " --queries 99", "--queries"},
      {"capture", m + " --data " + (t / "none.txt"), "none.txt"},
      {"capture", m + " --data " + (t / "empty.txt") + " --ctx 16", "empty.txt"},
      {"capture", m + " --text ''", "--text"},
      {"capture", m + " --ids 1,x", "--ids"},
      {"capture", m + " --ids 1,2,99999", "vocabulary"},
      {"capture", m + d + " --ctx 0", "--ctx"},
      {"capture", m + d + " --ctx 4096", "--ctx 4096"},
      {"capture", run + " --window lines", "--window"},
      {"capture", run + " --offset random", "--offset"},
      {"capture", run + " --seed -1", "--seed"},
      {"capture", run + " --max-windows 99999999999999999999", "--max-windows"},
      {"capture", m + d + " --ctx 16 --max-windows 0", "--max-windows"},
      {"capture", run + " --pattern-dtype bf16", "--pattern-dtype"},
      {"capture", run + " --device cuda:99", "--device"},
      {"capture", run + " --dtype fp64", "--dtype"},
      {"capture", run + " --threads -3", "--threads"},
      {"capture", run + " --out " + f.data, "is an input of this run"},
      {"capture", run + " --quiet=maybe", "--quiet"},
      {"capture", " --model " + (t / "nan-model") + " --ids 1,2", "holds a NaN or infinite value"},
      // inspect
      {"inspect", " --model " + (t / "none"), "none"},
      {"inspect", " --model " + (t / "nan-model"), "holds a NaN or infinite value"},
      {"inspect", m + " --ctx -5", "--ctx"},
      {"inspect", m + " --ctx 100000", "--ctx 100000"},
      {"inspect", m + " --json=maybe", "--json"},
      // measure
      {"measure", " --model " + f.data + d, "not a folder"},
      {"measure", run + d, "given twice"},
      {"measure", m + " --data ''", "--data"},
      {"measure", m + d + " --ctx ''", "--ctx"},
      {"measure", run + " --window x", "--window"},
      {"measure", run + " --offset x", "--offset"},
      {"measure", run + " --seed 18446744073709551616", "--seed"},
      {"measure", run + " --max-windows -2", "--max-windows"},
      {"measure", run + " --queries 99", "--queries"},
      {"measure", run + " --batch 0", "--batch"},
      {"measure", run + " --shard 2/2", "--shard"},
      {"measure", run + " --checkpoint-every -1", "--checkpoint-every"},
      {"measure", run + " --restart=maybe", "--restart"},
      {"measure", run + " --n 0:40", "--n"},
      {"measure", run + " --distance manhattan", "--distance"},
      {"measure", run + " --decay-k 1000000", "--decay-k"},
      {"measure", run + " --controls 1e18", "--controls"},
      {"measure", run + " --bootstrap 1000000000000000", "--bootstrap"},
      {"measure", run + " --bootstrap-level heads", "--bootstrap-level"},
      {"measure", run + " --bootstrap-unit doc", "--bootstrap-unit"},
      {"measure", run + " --ci 100", "--ci: 100 is not a coverage in percent"},
      {"measure", run + " --shard 2/2", "--shard: '2/2' is not i/n with 0 <= i < n"},
      {"measure", run + " --metrics-memory 0", "--metrics-memory"},
      {"measure", run + " --envelopes maybe", "--envelopes"},
      {"measure", run + " --kappa 0", "--kappa"},
      {"measure", run + " --window-tokens all", "--window-tokens"},
      {"measure", run + " --kappa-scan 1,0.5", "--kappa-scan"},
      {"measure", run + " --kappa-scan 1,2 --envelopes off", "--kappa-scan: 1,2 needs the envelopes"},
      {"measure", run + " --predict-from missing.json", "--predict-from: missing.json: cannot open"},
      {"measure", run + " --predict-from ''", "--predict-from"},
      {"measure", run + " --device cuda:99", "--device"},
      {"measure", run + " --dtype half", "--dtype"},
      {"measure", run + " --threads 100000", "--threads"},
      {"measure", run + " --out " + (t / "none/x.json"), "does not exist"},
      {"measure", run + " --quiet=x", "--quiet"},
      {"measure", m + " --text hello", "--data"},  // measure reads shards only
      // intervene: the heads, the interventions, the taxonomy, and every flag
      {"intervene", run, "--heads or --taxonomy with --label: one of them (or --each)"},
      {"intervene", run + " --heads 9.0", "--heads: 9.0 is not a head of the model's 5 layers x 8 heads"},
      {"intervene", run + " --heads 1.x", "--heads: '1.x' is not LAYER.HEAD"},
      {"intervene", run + " --heads 1.1 --intervention top-n:17", "--intervention top-n:17: 17 is above the window's 16 keys"},
      {"intervene", run + " --heads 1.1 --intervention keep:3", "--intervention: 'keep:3' is not zero, mean, top-n:N"},
      {"intervene", run + " --heads 1.1 --intervention top-n:0", "--intervention: 'top-n:0'"},
      {"intervene", run + " --heads 1.1 --taxonomy " + (t / "none.json") + " --label Reset", "one of them"},
      {"intervene", run + " --taxonomy " + (t / "none.json") + " --label Reset", "none.json: cannot open"},
      {"intervene", run + " --taxonomy " + (t / "m.json") + " --label Reset", "not a geoattn taxonomy"},
      {"intervene", run + " --taxonomy " + (t / "tax.json"), "--taxonomy and --label go together"},
      {"intervene", run + " --taxonomy " + source("docs/findings/stories15M/taxonomy.json") + " --label Mixer",
       "a taxonomy of a model of 6 layers x 6 heads, not this one's 5 x 8"},
      {"intervene", run + " --taxonomy " + (t / "tax.json") + " --label Nothing", "--label Nothing: no head of"},
      {"intervene", run + " --heads all --intervention budget:R_rmin:0.9", "budget:RULE: give --budget-from M.json"},
      {"intervene", run + " --heads 1.1 --budget-from " + (t / "mbw.json"), "--budget-from: not used without"},
      {"intervene", run + " --heads 1.1 --intervention budget:R:2 --budget-from " + (t / "mbw.json"),
       "--intervention: 'R:2' is not CURVE:X"},
      {"intervene", run + " --heads 1.1 --intervention budget: --budget-from " + (t / "mbw.json"), "'budget:' is not zero"},
      {"intervene", run + " --heads 1.1 --intervention budget:R_rmin:0.9 --budget-from " + (t / "tax.json"),
       "tax.json: not a measure result"},
      {"intervene", run + " --heads 1.1 --intervention budget:R_rmin:0.9 --budget-from " +
                        source("docs/findings/stories15M/measure.json"),
       "measure.json: a result of another model (layers 6, this model's 5)"},
      {"intervene", m + d + " --ctx 8 --max-windows 1 --heads all --intervention budget:P_rmax:0.01 --budget-from " +
                        (t / "mbw.json"),
       "budget under P_rmax:0.01 is 16 keys, above the window's 8 (--ctx)"},
      {"intervene", run + " --policy Reset=zero", "--policy: give --taxonomy T.json"},
      {"intervene", run + " --taxonomy " + (t / "tax.json") + " --policy Reset", "--policy: 'Reset' is not LABEL=INTERVENTION"},
      {"intervene", run + " --taxonomy " + (t / "tax.json") + " --policy Nothing=zero", "--policy Nothing: no head of"},
      {"intervene", run + " --taxonomy " + (t / "tax.json") + " --policy Reset=zero --policy Reset=mean",
       "--policy: Reset is given twice"},
      {"intervene", run + " --taxonomy " + (t / "tax.json") + " --policy Reset=top-n:0", "--policy Reset: 'top-n:0' is not"},
      {"intervene", run + " --taxonomy " + (t / "tax.json") + " --policy Reset=zero --intervention mean",
       "--intervention: on which heads?"},
      {"intervene", run + " --heads 1.1 --random-sets -1", "--random-sets"},
      {"intervene", run + " --each --random-sets 2", "--random-sets: not used with --each"},
      {"intervene", run + " --each=x", "--each"},
      {"intervene", run + " --heads 1.1 --bootstrap -1", "--bootstrap"},
      {"intervene", run + " --heads 1.1 --ci 100", "--ci: 100 is not a coverage in percent"},
      {"intervene", run + " --heads 1.1 --window x", "--window"},
      {"intervene", run + " --heads 1.1 --offset x", "--offset"},
      {"intervene", run + " --heads 1.1 --seed -1", "--seed"},
      {"intervene", run + " --heads 1.1 --max-windows -2", "--max-windows"},
      {"intervene", m + d + " --heads 1.1 --ctx 0", "--ctx"},
      {"intervene", " --model " + f.data + d + " --heads 1.1", "not a folder"},
      {"intervene", m + " --heads 1.1 --data ''", "--data"},
      {"intervene", run + " --heads 1.1 --device cuda:99", "--device"},
      {"intervene", run + " --heads 1.1 --dtype half", "--dtype"},
      {"intervene", run + " --heads 1.1 --threads 100000", "--threads"},
      {"intervene", run + " --heads 1.1 --quiet=x", "--quiet"},
      {"intervene", run + " --heads 1.1 --shard 2/2", "--shard: '2/2' is not i/n with 0 <= i < n"},
      {"intervene", run + " --heads 1.1 --checkpoint-every -1", "--checkpoint-every"},
      {"intervene", run + " --heads 1.1 --restart=maybe", "--restart"},
      {"intervene", run + " --heads 1.1 --per-forward 4097", "--per-forward"},
      {"intervene", run + " --heads 1.1 --intervention mean --shard 1/2", "--shard 1/2: mean ablation would average"},
      {"intervene", run + " --heads 1.1 --means-from " + (t / "sum5.safetensors"), "--means-from: not used without"},
      {"intervene", run + " --heads 1.1 --intervention mean --means-from " + (t / "sum5.safetensors"),
       "sum5.safetensors: no F32 tensor 'means'"},
      {"intervene", run + " --heads 1.1 --intervention mean --means-from " + (t / "tax.json"), "tax.json"},
      {"intervene", run + " --heads 1.1 --out " + f.data, "is an input of this run"},
      // metrics: captures that are no attention, and every flag
      {"metrics", " --capture " + (t / "sum5.safetensors"), "sum5.safetensors: alpha: window 0 layer 0 head 0 query 0: a row whose sum is 5"},
      {"metrics", " --capture " + (t / "zero.safetensors"), "zero.safetensors: alpha: window 0 layer 0 head 0 query 0: a row whose sum is 0"},
      {"metrics", " --capture " + (t / "negative.safetensors"), "negative weights"},
      {"metrics", " --capture " + (t / "acausal.safetensors"), "after the query's position"},
      {"metrics", " --capture " + (t / "nan.safetensors"), "nan.safetensors: values: window 0 layer 1 kv head 0: NaN"},
      {"metrics", " --capture " + (t / "d0.safetensors"), "head_dim 0"},
      {"metrics", " --capture " + (t / "q0.safetensors"), "no queries"},
      {"metrics", " --capture " + (t / "m.json"), "m.json"},
      {"metrics", c + " --n ''", "--n"},
      {"metrics", c + " --n 1:99", "--n"},
      {"metrics", c + " --distance l1", "--distance"},
      {"metrics", c + " --decay-k 0", "--decay-k"},
      {"metrics", c + " --controls -1", "--controls"},
      {"metrics", c + " --bootstrap -1", "--bootstrap"},
      {"metrics", c + " --bootstrap-level x", "--bootstrap-level"},
      {"metrics", c + " --bootstrap-unit x", "--bootstrap-unit"},
      {"metrics", c + " --ci 0", "--ci: 0 is not a coverage in percent"},
      {"metrics", c + " --ci 95%", "--ci"},
      {"metrics", c + " --metrics-memory 9223372036854775807", "--metrics-memory"},
      {"metrics", c + " --envelopes 1", "--envelopes"},
      {"metrics", c + " --kappa -1", "--kappa"},
      {"metrics", c + " --window-tokens windowed", "--window-tokens"},
      {"metrics", c + " --kappa-scan -1", "--kappa-scan"},
      {"metrics", c + " --predict-from missing.json", "--predict-from: missing.json: cannot open"},
      {"metrics", c + " --seed ''", "--seed"},
      {"metrics", c + " --threads ''", "--threads"},
      {"metrics", c + " --quiet=x", "--quiet"},
      {"metrics", c + " --out " + t.path().string(), "is a folder"},
      {"metrics", c + " --out " + f.capture, "is an input of this run"},
      // merge: each window once, the JSONs read first
      {"merge", " " + (t / "broken.json") + " " + (t / "m.json"), "broken.json: not valid JSON"},
      {"merge", " " + (t / "none.json") + " " + (t / "m.json"), "none.json: cannot open"},
      {"merge", " " + (t / "alone.json") + " " + (t / "m.json"), "alone.state.safetensors"},
      {"merge", " " + (t / "m.json") + " " + (t / "m.json"), "given twice"},
      {"merge", " " + (t / "s0.json") + " " + (t / "s.json"), "another split"},
      {"merge", " " + (t / "s0.json") + " " + (t / "s1.json"), "2/3 of"},
      {"merge", " " + (t / "s0.json") + " " + (t / "m.json"), "a measure result among sinks results"},
      {"merge", " " + (t / "ms0.json") + " " + (t / "ms0.json"), "given twice"},
      {"merge", " " + (t / "ms0.json"), "shard 1/3, 2/3 of"},
      {"merge", " " + (t / "mbw.json") + " " + (t / "mb0.json"),
       "mb0.json: shard 0/3 is of another split than " + (t / "mbw.json") + "'s shards of 1"},
      {"merge", " " + (t / "s0.json") + " " + (t / "s1.json") + " --partial=no-thanks", "--partial"},
      {"merge", " " + (t / "s0.json") + " " + (t / "s1.json") + " --out " + (t / "s0.json"), "is an input of this run"},
      // bounds: each source's own flags
      {"bounds", c + " --layer 3", "--layer: not used with --capture"},
      {"bounds", c + " --samples 5", "--samples: not used with --capture"},
      {"bounds", c + " --batch 2", "--batch: not used with --capture"},
      {"bounds", c + " --model " + f.model, "--capture excludes --model"},
      {"bounds", params + " --samples 0", "--samples"},
      {"bounds", params + " --samples 1000000", "--samples"},
      {"bounds", params + d, "--data: not used with --params"},
      {"bounds", params + " --layer 1", "--layer/--head pick a head of a measure JSON"},
      {"bounds", " --params " + (t / "m.json") + " --head 99", "head"},
      {"bounds", " --params " + (t / "m.json") + " --head x", "--head"},
      {"bounds", " --params " + (t / "m.json") + " --layer -1", "--layer"},
      {"bounds", params + " --n 0:99999", "--n"},
      {"bounds", params + " --kappa 0", "--kappa"},
      {"bounds", params + " --kappa nan", "--kappa"},
      {"bounds", params + " --window-tokens causal", "--window-tokens: not used with --params"},
      {"bounds", c + " --window-tokens some", "--window-tokens"},
      {"bounds", m + " --text hi --ids 1,2", "--text excludes --ids"},
      {"bounds", m + " --ids 1,2 --ctx 0", "--ctx"},
      {"bounds", run + " --window x", "--window"},
      {"bounds", run + " --offset x", "--offset"},
      {"bounds", run + " --seed x", "--seed"},
      {"bounds", run + " --max-windows -2", "--max-windows"},
      {"bounds", run + " --queries 99", "--queries"},
      {"bounds", run + " --batch -3", "--batch"},
      {"bounds", run + " --device cuda:99", "--device"},
      {"bounds", run + " --dtype x", "--dtype"},
      {"bounds", run + " --threads -1", "--threads"},
      {"bounds", run + " --layer 0", "--layer: not used with --model"},
      {"bounds", params + " --out ''", "--out"},
      {"bounds", params + " --quiet=x", "--quiet"},
      // taxonomy
      {"taxonomy", " --from " + t.path().string(), "a folder, expected a JSON file"},
      {"taxonomy", " --from " + (t / "broken.json"), "broken.json"},
      {"taxonomy", " --from " + (t / "m.json") + " --config " + (t / "broken.json"), "broken.json"},
      {"taxonomy", " --from " + (t / "m.json") + " --out " + (t / "m.json"), "is an input of this run"},
      {"taxonomy", " --from " + (t / "m.json") + " --quiet=x", "--quiet"},
      // sinks: a capture's windows are the file's
      {"sinks", c + " --shard 0/2", "--shard: not used with --capture"},
      {"sinks", c + " --ctx 16", "--ctx: not used with --capture"},
      {"sinks", c + " --max-windows 2", "--max-windows: not used with --capture"},
      {"sinks", c + " --window stream", "--window: not used with --capture"},
      {"sinks", c + " --offset hashed", "--offset: not used with --capture"},
      {"sinks", c + " --seed 3", "--seed: not used with --capture"},
      {"sinks", c + " --text hi", "--text: not used with --capture"},
      {"sinks", c + " --ids 1,2", "--ids: not used with --capture"},
      {"sinks", c + " --batch -5", "--batch"},
      {"sinks", c + " --batch 5", "--batch: not used with --capture"},
      {"sinks", c + " --device cuda", "--device: not used with --capture"},
      {"sinks", c + " --dtype bf16", "--dtype: not used with --capture"},
      {"sinks", c + " --threads 2", "--threads: not used with --capture"},
      {"sinks", c + " --residual", "--residual: not used with --capture"},
      {"sinks", c + " --model " + f.model, "--capture: give either"},
      {"sinks", " --capture " + (t / "sum5.safetensors"), "a row whose sum is 5"},
      {"sinks", run + " --queries last", "--queries"},
      {"sinks", run + " --checkpoint-every -1", "--checkpoint-every"},
      {"sinks", c + " --checkpoint-every 5", "--checkpoint-every: not used with --capture"},
      {"sinks", c + " --restart", "--restart: not used with --capture"},
      {"sinks", c + " --eps 1", "--eps"},
      {"sinks", c + " --eps x", "--eps"},
      {"sinks", c + " --convention paper", "--convention"},
      {"sinks", c + " --taus 2", "--taus"},
      {"sinks", c + " --profile 0", "--profile"},
      {"sinks", c + " --config " + (t / "broken.json"), "broken.json"},
      {"sinks", c + " --dormant-row-max nan", "--dormant-row-max"},
      {"sinks", c + " --dormant-col-min x", "--dormant-col-min"},
      {"sinks", " --model " + (t / "none") + d, "none"},
      {"sinks", run + " --shard 3/2", "--shard"},
      {"sinks", run + " --window x", "--window"},
      {"sinks", run + " --offset x", "--offset"},
      {"sinks", run + " --seed -1", "--seed"},
      {"sinks", run + " --max-windows 0", "--max-windows"},
      {"sinks", m + " --ids 1,99999", "vocabulary"},
      {"sinks", m + " --data ''", "--data"},
      {"sinks", m + d + " --ctx 99999", "--ctx 99999"},
      {"sinks", run + " --dtype x", "--dtype"},
      {"sinks", run + " --threads x", "--threads"},
      {"sinks", c + " --quiet=x", "--quiet"},
      {"sinks", c + " --out " + f.capture, "is an input of this run"},
      // bench metrics: sizes checked before anything is allocated
      {"bench metrics", " --T -1", "--T"},
      {"bench metrics", " --T 100000000", "--T: 100000000"},
      {"bench metrics", " --d 0", "--d"},
      {"bench metrics", " --heads x", "--heads"},
      {"bench metrics", " --layers ''", "--layers"},
      {"bench metrics", " --repeats 0", "--repeats"},
      {"bench metrics", " --threads -1", "--threads"},
      {"bench metrics", " --write-capture " + t.path().string(), "is a folder"},
      {"bench metrics", " --n x", "--n"},
      {"bench metrics", " --distance x", "--distance"},
      {"bench metrics", " --decay-k 0", "--decay-k"},
      {"bench metrics", " --decay-k 5000", "--decay-k"},
      {"bench metrics", " --controls -1", "--controls"},
      {"bench metrics", " --bootstrap -1", "--bootstrap"},
      {"bench metrics", " --bootstrap-level x", "--bootstrap-level"},
      {"bench metrics", " --bootstrap-unit x", "--bootstrap-unit"},
      {"bench metrics", " --ci 101", "--ci"},
      {"bench metrics", " --metrics-memory 0", "--metrics-memory"},
      {"bench metrics", " --envelopes yes", "--envelopes"},
      {"bench metrics", " --kappa nan", "--kappa"},
      {"bench metrics", " --window-tokens 8", "--window-tokens"},
      {"bench metrics", " --kappa-scan x", "--kappa-scan"},
      {"bench metrics", " --predict-from m.json", "--predict-from: bench metrics times a synthetic capture"},
      {"bench metrics", " --seed -1", "--seed"},
      {"bench envelopes", " --T -1", "--T"},
      {"bench envelopes", " --T 100000000", "--T: 100000000"},
      {"bench envelopes", " --d 0", "--d"},
      {"bench envelopes", " --heads x", "--heads"},
      {"bench envelopes", " --kv-heads -1", "--kv-heads"},
      {"bench envelopes", " --kv-heads 5", "--kv-heads: 5 does not divide --heads 32"},
      {"bench envelopes", " --layers 0", "--layers"},
      {"bench envelopes", " --n x", "--n"},
      {"bench envelopes", " --n 2000", "--n"},
      {"bench envelopes", " --kappa 0", "--kappa"},
      {"bench envelopes", " --metrics-memory 0", "--metrics-memory"},
      {"bench envelopes", " --device gpu", "--device"},
      {"bench envelopes", " --device cuda:99", "--device cuda:99"},
      {"bench envelopes", " --repeats 0", "--repeats"},
      {"bench envelopes", " --threads -1", "--threads"},

      // ---- strict reading: plain decimal numbers, no flag a mode ignores, values echoed short,
      // ---- paths that JSON can hold, errors that name the file or the flag
      {"capture", m + " --ids 1,2,3 --ctx 32", "--ctx: not used with --ids"},
      {"capture", m + " --text hello --max-windows 2", "--max-windows: not used with --ids or --text"},
      {"capture", m + " --text hello --window stream", "--window: not used with --ids or --text"},
      {"capture", run + " --window stream --offset hashed", "--offset: not used with --window stream"},
      {"capture", run + " --seed 3", "--seed: not used without --offset hashed"},
      {"sinks", run + " --seed 3", "--seed: not used without --offset hashed"},
      {"bounds", run + " --seed 3", "--seed: not used without --offset hashed"},
      {"capture", m + " --text 'once upon a time' --ctx 5000", "--ctx 5000: longer than the model's 2048 positions"},
      {"capture", m + " --ids '1, 2'", "--ids"},
      {"capture", m + " --ids 1,2,", "--ids"},
      {"capture", run + " --queries 0x1", "--queries"},
      {"capture", run + " --out \"$(printf 'o\\377\\376.json')\"", "--out: the value given is not valid UTF-8"},
      {"inspect", m + " --ctx 0x10", "--ctx"},
      {"measure", run + " --envelopes off --kappa 2", "--kappa: not used with --envelopes off (kappa is the envelopes' constant"},
      {"measure", run + " --bootstrap 0 --bootstrap-unit window", "--bootstrap-unit: not used with --bootstrap 0"},
      {"measure", run + " --bootstrap 0 --ci 90", "--ci: not used with --bootstrap 0"},
      {"measure", run + " --window stream --offset hashed", "--offset: not used with --window stream"},
      {"measure", run + " --shard '0/ 1'", "--shard"},
      {"measure", run + " --shard 0/1/", "--shard"},
      {"measure", run + " --kappa inf", "--kappa"},
      {"metrics", c + " --envelopes off --kappa 2", "--kappa: not used with --envelopes off (kappa is the envelopes' constant"},
      {"metrics", c + " --bootstrap 0 --bootstrap-level head", "--bootstrap-level: not used with --bootstrap 0"},
      {"metrics", c + " --controls 1000000", "--controls: 1000000 orderings per sample"},
      {"metrics", c + " --kappa 0x1p0", "--kappa"},
      {"metrics", c + " --kappa ' 1'", "--kappa"},
      {"metrics", c + " --kappa-scan 0x1p-2", "--kappa-scan"},
      {"metrics", c + " --kappa-scan 0.5,", "--kappa-scan"},
      {"metrics", c + " --kappa-scan ,0.5", "--kappa-scan"},
      {"metrics", c + " --kappa-scan nan", "--kappa-scan"},
      {"metrics", c + " --kappa-scan " + [] {
         std::string list = "1";
         for (int i = 0; i < 2500; ++i) list += ",1";
         return list;
       }(), ",...' is not auto"},
      {"metrics", c + " --n '1, 2'", "--n"},
      {"metrics", c + " --n 1,", "--n"},
      {"metrics", " --capture " + (t / "huge.safetensors"), "huge.safetensors: window 0: metric"},
      {"metrics", " --capture " + (t / "window4.safetensors"), "window4.safetensors: alpha: window 0 layer 0 head 0"},
      {"metrics", " --capture " + (t / "window4.safetensors"), "outside the layer's window of 4"},
      {"metrics", " --capture " + (t / "window85.safetensors"), "window85.safetensors: __metadata__ layer_attention"},
      {"metrics", " --capture \"$(printf '" + (t / "c") + "\\377.safetensors')\"", "--capture: the value given is not valid UTF-8"},
      {"metrics", c + " --out \"$(printf 'o\\377\\376.json')\"", "--out: the value given is not valid UTF-8"},
      {"merge", " " + (t / "ms0.json") + " --out \"$(printf 'o\\377.json')\"", "--out: the value given is not valid UTF-8"},
      {"bounds", " --capture " + (t / "window4.safetensors"), "outside the layer's window of 4"},
      {"bounds", " --capture " + (t / "window85.safetensors"), "window85.safetensors"},
      {"bounds", " --params " + (t / "p_nan.json"), "--params " + (t / "p_nan.json") + ": bounds: a["},
      {"bounds", params + " --kappa 0x1p0", "--kappa"},
      {"bounds", m + " --ids 1,2,3 --ctx 8", "--ctx: not used with --ids"},
      {"taxonomy", " --from " + (t / "m.json") + " --config " + (t / "dup.json"), "dup.json: the key \"reset_n_max\" is given twice"},
      {"taxonomy", " --from " + (t / "m.json") + " --out \"$(printf 'o\\377.json')\"", "--out: the value given is not valid UTF-8"},
      {"sinks", c + " --eps 0x0.1", "--eps"},
      {"sinks", c + " --taus 0.1,", "--taus"},
      {"sinks", c + " --taus ' 0.1'", "--taus"},
      {"sinks", c + " --taus 0x0.1", "--taus"},
      {"sinks", c + " --dormant-row-max inf", "--dormant-row-max"},
      {"sinks", run + " --shard '0/ 1'", "--shard"},
      {"sinks", m + " --ids 1,2,3 --ctx 8", "--ctx: not used with --ids"},
      {"sinks", m + d + " --ctx 16 --window stream --offset hashed", "--offset: not used with --window stream"},
      {"bench metrics", " --envelopes off --kappa 2", "--kappa: not used with --envelopes off (kappa is the envelopes' constant"},
      {"bench metrics", " --bootstrap 0 --bootstrap-unit window", "--bootstrap-unit: not used with --bootstrap 0"},
      {"bench metrics", " --kappa-scan 0x1p-2", "--kappa-scan"},
  };
}

Fixtures& fixtures() {
  static Fixtures f;
  return f;
}

// The long flags a subcommand's --help lists (--help itself aside).
std::set<std::string> flags_of(const std::string& command, const TempDir& tmp) {
  const auto r = run_tool("geoattn " + command + " --help", tmp);
  std::set<std::string> flags;
  const std::regex flag(R"(^\s+(?:-\w,\s*)?(--[\w-]+))");
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, flag) && m[1] != "--help") flags.insert(m[1]);
  }
  return flags;
}

}  // namespace

TEST(BadFlags, EveryCaseIsOneLineAndLeavesNoFile) {
  Fixtures& f = fixtures();
  const auto all = cases(f);
  const auto before = snapshot(f.tmp.path());
  for (const Case& c : all) {
    const std::string out = f.tmp / "out.json";
    const bool add_out = kWriting.count(c.command) && c.args.find(" --out ") == std::string::npos;
    const auto r = run_tool("geoattn " + c.command + c.args + (add_out ? " --out " + out : ""), f.tmp);
    const std::string what = c.command + c.args;
    EXPECT_TRUE(r.code == 1 || r.code == 2) << what << ": exit " << r.code << ": " << r.err;
    EXPECT_EQ(r.err.rfind("geoattn: error: ", 0), 0u) << what << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
    EXPECT_LT(r.err.size(), 1000u) << what << ": a value echoed whole";
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << what << ": " << r.err;
    EXPECT_EQ(r.err.find("unexpected failure"), std::string::npos) << what << ": " << r.err;
    EXPECT_EQ(snapshot(f.tmp.path()), before) << what << ": a file was added or changed";
  }
  std::printf("%zu bad-input cases\n", all.size());
}

TEST(BadFlags, EveryFlagHasACase) {
  Fixtures& f = fixtures();
  const auto all = cases(f);
  // Every command of the table; bench by its subcommand (its own flags are the subcommand's).
  for (std::string command : geoattn::testing::cpp_command_names()) {
    if (command == "bench") command = "bench metrics";
    const auto flags = flags_of(command, f.tmp);
    EXPECT_GT(flags.size(), 1u) << command;
    for (const std::string& flag : flags) {
      const bool covered = std::any_of(all.begin(), all.end(), [&](const Case& c) {
        if (c.command != command) return false;
        const std::string args = c.args + " ";
        return args.find(" " + flag + " ") != std::string::npos || args.find(" " + flag + "=") != std::string::npos;
      });
      EXPECT_TRUE(covered) << command << " " << flag << ": no bad-input case in tests/test_bad_flags.cpp";
    }
  }
}
