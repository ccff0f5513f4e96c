// The decoder against upstream transformers 5.x on every family of SPEC §8
// (tests/fixtures/hf5, made by scripts/hf_tiny_fixtures.py): each fixture's checkpoint under
// both config dialects (the one transformers 5.x writes and the Hub's older one) gives every
// alpha row, value state and logit of upstream's eager float32 forward within 1e-4; upstream's
// bf16 rows are reproduced on request (RowsDtype::Run); the real Gemma-3-270M against its
// committed upstream rows.
#include "geoattn/model/decoder.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "test_util.h"
#include "torch_test_util.h"

using namespace geoattn;
using geoattn::testing::fixture;
using geoattn::testing::max_abs_diff;
using geoattn::testing::read_tensor;
namespace fs = std::filesystem;

namespace {

std::vector<int64_t> reference_ids(const io::SafetensorsFile& ref) {
  return nlohmann::json::parse(ref.header().metadata.at("ids")).get<std::vector<int64_t>>();
}

// A checkpoint folder of one dialect: config.json is `config` of the fixture, the weights its
// model.safetensors (or, for the Hub dialect where the Hub names tensors differently,
// model.hub.safetensors).
std::string dialect_folder(const std::string& name, const std::string& dialect) {
  const fs::path src = fixture("hf5/" + name);
  const fs::path dir = fs::temp_directory_path() / ("geoattn-hf5-" + name + "-" + dialect + "-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(src / (dialect == "hub" ? "config.hub.json" : "config.json"), dir / "config.json",
                fs::copy_options::overwrite_existing);
  const fs::path hub_weights = src / "model.hub.safetensors";
  fs::copy_file(dialect == "hub" && fs::exists(hub_weights) ? hub_weights : src / "model.safetensors",
                dir / "model.safetensors", fs::copy_options::overwrite_existing);
  return dir.string();
}

struct Case {
  std::string name, dialect;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name << " (" << c.dialect << " dialect)"; }

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* name : {"llama3", "llama-linear-bias", "qwen2", "qwen3", "gemma2", "gemma3", "gemma3-multimodal",
                           "mistral-nemo", "phi3", "phi4-mini", "olmo2"})
    for (const char* dialect : {"5.x", "hub"}) out.push_back({name, dialect});
  return out;
}

class Upstream : public ::testing::TestWithParam<Case> {};

model::HookSpec all_points(int64_t layers, model::RowsDtype rows = model::RowsDtype::Float32) {
  return model::HookSpec({"blocks.*.attn.pattern", "blocks.*.attn.v"}, layers, {}, rows);
}

}  // namespace

TEST_P(Upstream, EveryRowValueAndLogitWithin1e4) {
  const auto& [name, dialect] = GetParam();
  const std::string dir = dialect_folder(name, dialect);
  const auto checkpoint = io::Checkpoint::open(dir);
  const auto decoder = model::Decoder::load(checkpoint, torch::kFloat32, torch::kCPU);
  io::SafetensorsFile ref(fixture("hf5/" + name + "/reference.safetensors"));
  const auto ids = torch::tensor(reference_ids(ref)).unsqueeze(0);
  const int64_t L = checkpoint.config.n_layers;
  model::HookCache cache;
  const auto logits = decoder.forward(ids, all_points(L), cache);
  for (int64_t l = 0; l < L; ++l) {
    const auto alpha = cache.get(l, model::HookPoint::AttnPattern)[0], v = cache.get(l, model::HookPoint::AttnV)[0];
    const auto ref_alpha = read_tensor(ref, "attn." + std::to_string(l)), ref_v = read_tensor(ref, "v." + std::to_string(l));
    ASSERT_EQ(alpha.sizes(), ref_alpha.sizes()) << "layer " << l;
    ASSERT_EQ(v.sizes(), ref_v.sizes()) << "layer " << l;
    EXPECT_LT(max_abs_diff(alpha, ref_alpha), 1e-4) << name << " " << dialect << " layer " << l;
    EXPECT_LT(max_abs_diff(v, ref_v), 1e-4) << name << " " << dialect << " layer " << l;
    // A sliding layer's rows are exactly zero outside the window, as upstream's.
    const int64_t W = checkpoint.config.layers[l].window;
    for (int64_t i = 0; W > 0 && i < alpha.size(1); ++i)
      if (i - W + 1 > 0) EXPECT_EQ(alpha.select(1, i).narrow(1, 0, i - W + 1).abs().max().item<float>(), 0.0f);
  }
  EXPECT_LT(max_abs_diff(logits[0], read_tensor(ref, "logits")), 1e-4) << name << " " << dialect;
  fs::remove_all(dir);
}

// On CUDA the attention takes the fused kernel where it computes the same (no soft-cap) and the
// eager path elsewhere (Gemma-2); rows are recomputed for the capture either way: the CPU's
// numbers on every family. Skips where there is no GPU.
TEST_P(Upstream, CudaMatchesCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const auto& [name, dialect] = GetParam();
  const std::string dir = dialect_folder(name, dialect);
  const auto checkpoint = io::Checkpoint::open(dir);
  io::SafetensorsFile ref(fixture("hf5/" + name + "/reference.safetensors"));
  const auto ids = torch::tensor(reference_ids(ref)).unsqueeze(0);
  const int64_t L = checkpoint.config.n_layers;
  model::HookCache on_cpu, on_gpu;
  const auto logits_cpu = model::Decoder::load(checkpoint, torch::kFloat32, torch::kCPU).forward(ids, all_points(L), on_cpu);
  const auto logits_gpu =
      model::Decoder::load(checkpoint, torch::kFloat32, torch::Device(torch::kCUDA)).forward(ids, all_points(L), on_gpu);
  for (int64_t l = 0; l < L; ++l)
    for (auto point : {model::HookPoint::AttnPattern, model::HookPoint::AttnV})
      EXPECT_LT(max_abs_diff(on_gpu.get(l, point).cpu(), on_cpu.get(l, point)), 1e-4) << model::HookSpec::name_of(l, point);
  EXPECT_LT(max_abs_diff(logits_gpu.cpu(), logits_cpu), 1e-3);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Families, Upstream, ::testing::ValuesIn(cases()), [](const auto& info) {
  std::string n = info.param.name + "_" + info.param.dialect;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
});

// SPEC §8, bf16 convention: upstream's eager bf16 rows are softmax(scores, float32).to(bf16).
// geoattn keeps float32 rows by default; RowsDtype::Run (capture --pattern-dtype run) rounds
// them as upstream does. At layer 0 (same embeddings, same bf16 products) the values are
// upstream's bit for bit and >= 95% of the run-rounded rows too (the float32 rows: about half,
// measured 48% and 78%); deeper, the bf16 residual streams of LibTorch and torch drift by
// rounding: rows within 2^-6 (measured 0.0098), values within 1% of their largest entry
// (measured 0.75%).
TEST(Bf16Convention, RunRowsReproduceUpstreamsBf16Rows) {
  for (const std::string name : {"llama3", "gemma2"}) {
    const auto checkpoint = io::Checkpoint::open(fixture("hf5/" + name));
    const auto decoder = model::Decoder::load(checkpoint, torch::kBFloat16, torch::kCPU);
    io::SafetensorsFile ref(fixture("hf5/" + name + "/reference-bf16.safetensors"));
    const auto ids = torch::tensor(reference_ids(ref)).unsqueeze(0);
    const int64_t L = checkpoint.config.n_layers;
    model::HookCache run, f32;
    decoder.forward(ids, all_points(L, model::RowsDtype::Run), run, false);
    decoder.forward(ids, all_points(L, model::RowsDtype::Float32), f32, false);
    auto same = [](const torch::Tensor& a, const torch::Tensor& b) { return (a == b).to(torch::kFloat64).mean().item<double>(); };
    for (int64_t l = 0; l < L; ++l) {
      const auto rows = run.get(l, model::HookPoint::AttnPattern)[0], exact = f32.get(l, model::HookPoint::AttnPattern)[0];
      const auto v = run.get(l, model::HookPoint::AttnV)[0];
      const auto ref_rows = read_tensor(ref, "attn." + std::to_string(l)), ref_v = read_tensor(ref, "v." + std::to_string(l));
      // Run rows are bf16 values, as upstream's; float32 rows sum to 1 in float32.
      EXPECT_EQ(max_abs_diff(rows, rows.to(torch::kBFloat16).to(torch::kFloat32)), 0.0) << name << " layer " << l;
      EXPECT_LT((exact.sum(-1) - 1).abs().max().item<double>(), 1e-5) << name << " layer " << l;
      if (l == 0) {
        EXPECT_EQ(max_abs_diff(v, ref_v), 0.0) << name;
        EXPECT_GE(same(rows, ref_rows), 0.95) << name;
        EXPECT_LT(same(exact, ref_rows), 0.9) << name;
      }
      EXPECT_LT(max_abs_diff(rows, ref_rows), 1.0 / 64) << name << " layer " << l;
      EXPECT_LT(max_abs_diff(v, ref_v) / ref_v.abs().max().item<double>(), 1e-2) << name << " layer " << l;
    }
  }
}

// Gemma-3-270M (scripts/get-model.sh gemma3: the PyPI GGUF, dequantised by the gguf package)
// against upstream transformers 5.24 on a real OpenWebText document (BOS + 255 tokens; and
// BOS + 639, past the 512-key window, where the sliding layers 0-4 and the global layer 17
// differ): alpha rows, value states and the residual stream entering each layer, committed in
// tests/fixtures/gemma3 (scripts/hf_reference.py). Skipped when the converted model is absent; in CI, failed.
TEST(RealModel, Gemma3MatchesTransformers) {
  const std::string dir = geoattn::testing::source("models/gemma3-270m");
  GEOATTN_REQUIRE_REAL_MODEL(dir, "scripts/get-model.sh gemma3");
  const auto checkpoint = io::Checkpoint::open(dir);
  ASSERT_EQ(checkpoint.config.n_layers, 18);
  ASSERT_EQ(checkpoint.config.layers[0].window, 512);
  ASSERT_EQ(checkpoint.config.layers[5].window, 0);
  const auto decoder = model::Decoder::load(checkpoint, torch::kFloat32, torch::kCPU);
  const model::HookSpec hooks({"blocks.*.attn.pattern", "blocks.*.attn.v", "blocks.*.hook_resid_pre"}, 18);
  for (const std::string file : {"reference.safetensors", "reference-t640.safetensors"}) {
    io::SafetensorsFile ref(fixture("gemma3/" + file));
    const auto& meta = ref.header().metadata;
    const auto layers = nlohmann::json::parse(meta.at("layers")).get<std::vector<int64_t>>();
    const auto rows = torch::tensor(nlohmann::json::parse(meta.at("rows")).get<std::vector<int64_t>>());
    model::HookCache cache;
    decoder.forward(torch::tensor(reference_ids(ref)).unsqueeze(0), hooks, cache, false);
    for (int64_t l : layers) {
      const auto alpha = cache.get(l, model::HookPoint::AttnPattern)[0].index_select(1, rows);
      const auto ref_alpha = read_tensor(ref, "attn." + std::to_string(l));
      ASSERT_EQ(alpha.sizes(), ref_alpha.sizes()) << file << " layer " << l;
      EXPECT_LT(max_abs_diff(alpha, ref_alpha), 1e-4) << file << " layer " << l;
      // Values reach ~1e2, the residual stream ~1e5 (the BOS row): within 1e-4 of each
      // row's largest entry.
      const auto v = cache.get(l, model::HookPoint::AttnV)[0], ref_v = read_tensor(ref, "v." + std::to_string(l));
      EXPECT_LT(max_abs_diff(v, ref_v) / std::max(1.0, ref_v.abs().max().item<double>()), 1e-4) << file << " layer " << l;
      const auto resid = cache.get(l, model::HookPoint::ResidPre)[0].index_select(0, rows);
      const auto ref_resid = read_tensor(ref, "resid." + std::to_string(l));
      const auto scale = ref_resid.abs().amax(1, true).clamp_min(1.0);
      EXPECT_LT(((resid - ref_resid).abs() / scale).max().item<double>(), 1e-4) << file << " layer " << l;
    }
  }
}
