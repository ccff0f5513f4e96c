// config.json -> ModelConfig through the family tables, and checkpoint validation (pure C++).
#include "geoattn/io/checkpoint.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "geoattn/io/safetensors_writer.h"
#include "geoattn/util/error.h"
#include "test_util.h"

using namespace geoattn;
using geoattn::testing::fixture;
using nlohmann::json;

namespace {
std::string error_of(const json& config) {
  try {
    io::parse_config(config, "config.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Config, LlamaFixture) {
  auto c = io::load_config(fixture("hf-tiny/llama"));
  EXPECT_EQ(c.family, arch::Family::Llama);
  EXPECT_EQ(c.n_layers, 2);
  EXPECT_EQ(c.n_heads, 4);
  EXPECT_EQ(c.n_kv_heads, 4);
  EXPECT_EQ(c.head_dim, 16);
  EXPECT_EQ(c.act, arch::Activation::SiLU);
  EXPECT_FALSE(c.tie_embeddings);
  EXPECT_FALSE(c.norm_plus_one);
  EXPECT_EQ(c.sliding_window, 0);
  EXPECT_DOUBLE_EQ(c.rms_eps, 1e-5);
}

TEST(Config, MistralFixtureHasItsWindowAndGroups) {
  auto c = io::load_config(fixture("hf-tiny/mistral"));
  EXPECT_EQ(c.family, arch::Family::Mistral);
  EXPECT_EQ(c.sliding_window, 8);
  EXPECT_EQ(c.n_kv_heads, 2);
  EXPECT_EQ(c.group(), 2);
  EXPECT_EQ(c.kv_head_of(0), 0);
  EXPECT_EQ(c.kv_head_of(1), 0);
  EXPECT_EQ(c.kv_head_of(2), 1);
  EXPECT_EQ(c.kv_head_of(3), 1);
}

TEST(Config, GemmaFixtureTakesItsRow) {
  auto c = io::load_config(fixture("hf-tiny/gemma"));
  EXPECT_EQ(c.family, arch::Family::Gemma);
  EXPECT_EQ(c.head_dim, 32);  // independent of hidden / heads = 16
  EXPECT_EQ(c.n_kv_heads, 1);
  EXPECT_EQ(c.act, arch::Activation::GeluTanh);
  EXPECT_TRUE(c.tie_embeddings);
  EXPECT_TRUE(c.norm_plus_one);
  EXPECT_TRUE(c.scale_embeddings);
  EXPECT_EQ(c.bos_id, 2);
}

TEST(Config, GemmaUsesTanhGeluWhateverHiddenActSays) {
  json j = {{"architectures", {"GemmaForCausalLM"}}, {"hidden_size", 8}, {"intermediate_size", 16},
            {"num_hidden_layers", 1}, {"num_attention_heads", 2}, {"vocab_size", 10}, {"hidden_act", "gelu"}};
  EXPECT_EQ(io::parse_config(j, "c").act, arch::Activation::GeluTanh);
}

TEST(Config, MistralWithNullWindowHasNone) {
  auto j = json::parse(geoattn::testing::read_file(fixture("hf-tiny/mistral/config.json")));
  j["sliding_window"] = nullptr;
  EXPECT_EQ(io::parse_config(j, "c").sliding_window, 0);
}

TEST(Config, Stories260KHasGqa) {
  auto c = io::load_config(geoattn::testing::source("models/stories260K"));
  EXPECT_EQ(c.n_heads, 8);
  EXPECT_EQ(c.n_kv_heads, 4);
  EXPECT_EQ(c.head_dim, 8);
  EXPECT_EQ(c.parameter_count(), 5 * (64 * 64 * 2 + 2 * 64 * 32 + 3 * 64 * 172 + 2 * 64) + 2 * 512 * 64 + 64);
}

TEST(Config, MissingFieldIsNamed) {
  auto j = json::parse(geoattn::testing::read_file(fixture("hf-tiny/llama/config.json")));
  j.erase("num_attention_heads");
  EXPECT_EQ(error_of(j), "config.json: missing field 'num_attention_heads'");
}

TEST(Config, UnknownArchitectureIsNamed) {
  auto j = json::parse(geoattn::testing::read_file(fixture("hf-tiny/llama/config.json")));
  j["architectures"] = {"GPT2LMHeadModel"};
  EXPECT_NE(error_of(j).find("unknown architecture 'GPT2LMHeadModel'"), std::string::npos);
}

TEST(Config, InconsistentHeadsAreRefused) {
  auto j = json::parse(geoattn::testing::read_file(fixture("hf-tiny/llama/config.json")));
  j["num_key_value_heads"] = 3;
  EXPECT_NE(error_of(j).find("not a multiple"), std::string::npos);
  j["num_key_value_heads"] = 4;
  j["rope_scaling"] = {{"type", "linear"}, {"factor", 2.0}};
  EXPECT_NE(error_of(j).find("rope_scaling"), std::string::npos);
  j.erase("rope_scaling");
  j["hidden_size"] = "64";
  EXPECT_NE(error_of(j).find("'hidden_size' must be a positive integer"), std::string::npos);
}

TEST(Checkpoint, ExpectedTensorsOfGqaModel) {
  auto c = io::load_config(fixture("hf-tiny/mistral"));
  auto tensors = io::expected_tensors(c);
  // embed + 9 per layer + final norm + lm_head
  EXPECT_EQ(tensors.size(), 1u + 9u * 2u + 2u);
  EXPECT_EQ(tensors[3].name, "model.layers.0.self_attn.k_proj.weight");
  EXPECT_EQ(tensors[3].shape, (std::vector<int64_t>{32, 64}));
}

TEST(Checkpoint, OpensAndValidatesEveryFixture) {
  for (const char* name : {"llama", "mistral", "gemma"}) {
    auto ck = io::Checkpoint::open(fixture(std::string("hf-tiny/") + name));
    EXPECT_EQ(ck.tokenizer_path, "");
  }
  auto stories = io::Checkpoint::open(geoattn::testing::source("models/stories260K"));
  EXPECT_NE(stories.tokenizer_path, "");
}

// The tensor table (arch/tensors.h) against real checkpoints: the tensors it expects are exactly
// the checkpoint's (every one, none more), and the parameter count it gives is their numel sum.
TEST(Checkpoint, TensorTableIsEveryTensorOfRealCheckpoints) {
  for (const std::string& dir : {fixture("hf-tiny/llama"), fixture("hf-tiny/mistral"), fixture("hf-tiny/gemma"),
                                 geoattn::testing::source("models/stories260K"),
                                 geoattn::testing::source("models/stories15M")}) {
    const auto ck = io::Checkpoint::open(dir);
    std::vector<std::string> expected;
    int64_t numel = 0;
    for (const auto& t : io::expected_tensors(ck.config)) expected.push_back(t.name);
    for (const auto& name : ck.tensors.names()) numel += ck.tensors.at(name).info->numel();
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(expected, ck.tensors.names()) << dir;
    EXPECT_EQ(ck.config.parameter_count(), numel) << dir;
  }
}

TEST(Checkpoint, WrongShapeIsNamed) {
  geoattn::testing::TempDir dir;
  auto c = io::load_config(fixture("hf-tiny/llama"));
  auto tensors = io::expected_tensors(c);
  std::vector<std::vector<float>> data;
  std::vector<io::TensorBlob> blobs;
  for (auto& t : tensors) {
    if (t.name == "model.norm.weight") t.shape = {63};
    int64_t n = 1;
    for (auto d : t.shape) n *= d;
    data.emplace_back(n, 0.0f);
  }
  for (size_t i = 0; i < tensors.size(); ++i) blobs.push_back({tensors[i].name, io::Dtype::F32, tensors[i].shape, data[i].data()});
  io::write_safetensors(dir / "model.safetensors", blobs);
  geoattn::testing::write_file(dir / "config.json", geoattn::testing::read_file(fixture("hf-tiny/llama/config.json")));
  try {
    io::Checkpoint::open(dir.path().string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'model.norm.weight' has shape [63] but config.json implies [64]"), std::string::npos)
        << e.what();
  }
}
