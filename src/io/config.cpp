#include "geoattn/io/config.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "geoattn/arch/tensors.h"
#include "geoattn/io/config_reader.h"
#include "geoattn/io/families.h"
#include "geoattn/util/enum_names.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"

namespace geoattn::io {

namespace fs = std::filesystem;
using arch::Activation;
using arch::ModelConfig;
using arch::RopeKind;
using arch::RopeSpec;
using nlohmann::json;

namespace {

// Keys that do not change the forward of a causal LM in float32 or the run dtype: metadata,
// training-only settings (dropout, initialisation, tensor-parallel slicing of the same
// product), generation and serving options.
constexpr std::string_view kNoEffect[] = {
    "_name_or_path", "transformers_version", "use_cache", "pad_token_id", "initializer_range",
    "attention_dropout", "hidden_dropout", "embd_pdrop", "resid_pdrop", "pretraining_tp", "cache_implementation",
    "auto_map", "output_attentions", "output_hidden_states", "return_dict", "tokenizer_class", "unk_token_id",
    "sep_token_id", "is_decoder", "id2label", "label2id", "problem_type", "task_specific_params", "_attn_implementation",
    "_attn_implementation_autoset", "chunk_size_feed_forward", "torchscript", "keys_to_ignore_at_inference",
    "unsloth_fixed", "unsloth_version", "dtype_policy", "use_return_dict", "tie_encoder_decoder", "finetuning_task",
    "classifier_dropout", "_commit_hash", "base_model_tp_plan", "base_model_pp_plan",
};
// Keys of released configs that upstream transformers does not read: accepted at the value
// that means no mechanism, refused by name otherwise (the config would say the model is
// other than what upstream, and geoattn, compute).
struct NeutralKey {
  std::string_view key;
  const char* neutral;  // JSON
};
constexpr NeutralKey kNeutral[] = {
    {"use_bidirectional_attention", "false"}, {"use_mrope", "false"},   // EmbeddingGemma; Qwen2-VL
    {"lm_head_bias", "false"}, {"full_attn_mod", "1"}, {"interpolate_factor", "1"},  // Phi-4-mini's file
};
// Gemma-3's multimodal wrapper: what belongs to the vision tower and the image tokens.
constexpr std::string_view kMultimodalNoEffect[] = {
    "vision_config", "mm_tokens_per_image", "boi_token_index", "eoi_token_index", "image_token_index",
    "image_token_id", "boi_token_id", "eoi_token_id", "initializer_range",
};

constexpr EnumName<Activation> kActivations[] = {
    {Activation::SiLU, "silu"},           {Activation::SiLU, "swish"}, {Activation::GeluTanh, "gelu_pytorch_tanh"},
    {Activation::GeluTanh, "gelu_new"},   {Activation::Gelu, "gelu"},
};
// rope_type (or the older `type`) names; "su" is Phi-3's first name for longrope.
constexpr EnumName<RopeKind> kRopeTypes[] = {
    {RopeKind::Default, "default"}, {RopeKind::Linear, "linear"},     {RopeKind::Dynamic, "dynamic"},
    {RopeKind::Llama3, "llama3"},   {RopeKind::Yarn, "yarn"},         {RopeKind::LongRope, "longrope"},
    {RopeKind::LongRope, "su"},
};

constexpr std::string_view kFull = "full_attention", kSliding = "sliding_attention";

// Limits on what a config.json may ask for (real models: ~100 layers, ~1e12 parameters).
constexpr int64_t kMaxLayers = 1 << 16;
constexpr long double kMaxParameters = 0x1p50L;

// A key the family's code does not implement may stand at its neutral value only.
void require_neutral(ConfigReader& r, std::string_view key, const json& neutral, std::string_view family) {
  if (const json* v = r.find(key); v && *v != neutral)
    fail("{} = {} is not supported for {} (its Hugging Face code has no such mechanism)", r.where(key), v->dump(),
         family);
}

std::string first_architecture(ConfigReader& r) {
  const json* archs = r.find("architectures");
  if (!archs) return {};
  if (!archs->is_array() || archs->size() != 1 || !(*archs)[0].is_string())
    fail("{} must list one architecture", r.where("architectures"));
  return (*archs)[0].get<std::string>();
}

Activation activation_of(ConfigReader& r, const FamilySpec& spec) {
  // Gemma 1 names its activation in `hidden_activation` and keeps `hidden_act` beside it.
  if (std::string_view(spec.activation_key) != "hidden_act") r.get<std::string>("hidden_act");
  const auto name = r.get<std::string>(spec.activation_key);
  if (!name) return spec.default_activation;
  if (auto act = value_of(kActivations, *name)) return *act;
  fail("{}: unsupported activation '{}'", r.where(spec.activation_key), *name);
}

// eos_token_id may be a list in newer configs; the first one is the EOS.
int64_t token_id(ConfigReader& r, std::string_view key) {
  const json* v = r.find(key);
  if (!v) return -1;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_array() && !v->empty() && (*v)[0].is_number_integer()) return (*v)[0].get<int64_t>();
  fail("{} must be an integer or a list of integers", r.where(key));
}

// One RoPE description: a `rope_scaling` object (Hub dialect: theta beside it, in `theta`) or
// a `rope_parameters` object (5.x dialect: theta inside). Unknown keys are errors.
// 5.x also writes partial_rotary_factor into it: returned in `fraction` when there.
RopeSpec read_rope(ConfigReader& r, double theta, int64_t original_max_top, std::optional<double>& fraction) {
  RopeSpec rope;
  if (auto f = r.get<double>("partial_rotary_factor")) {
    if (fraction && *fraction != *f) fail("{} = {} disagrees with {}", r.where("partial_rotary_factor"), *f, *fraction);
    fraction = f;
  }
  const auto type = r.get<std::string>("rope_type");
  const auto old_type = r.get<std::string>("type");
  if (type && old_type && *type != *old_type)
    fail("{} says '{}' but 'type' says '{}'", r.where("rope_type"), *type, *old_type);
  const std::string name = type ? *type : old_type.value_or("default");
  const auto kind = value_of(kRopeTypes, name);
  if (!kind)
    fail("{}: RoPE type '{}' is not supported (default, linear, dynamic, llama3, yarn, longrope)",
         r.where(type ? "rope_type" : "type"), name);
  rope.kind = *kind;
  rope.theta = r.get_or<double>("rope_theta", theta);
  rope.factor = r.get_or<double>("factor", 0.0);
  rope.original_max_positions = r.get_or<int64_t>("original_max_position_embeddings", 0);
  // Phi-3 keeps the pre-training length beside rope_scaling; transformers gives it priority.
  if (original_max_top > 0) rope.original_max_positions = original_max_top;
  rope.low_freq_factor = r.get_or<double>("low_freq_factor", 1.0);
  rope.high_freq_factor = r.get_or<double>("high_freq_factor", 4.0);
  rope.beta_fast = r.get_or<double>("beta_fast", 32.0);
  rope.beta_slow = r.get_or<double>("beta_slow", 1.0);
  rope.mscale = r.get_or<double>("mscale", 0.0);
  rope.mscale_all_dim = r.get_or<double>("mscale_all_dim", 0.0);
  rope.truncate = r.get_or<bool>("truncate", true);
  rope.attention_factor = r.get_or<double>("attention_factor", 0.0);
  rope.short_factor = r.get_or<std::vector<double>>("short_factor", {});
  rope.long_factor = r.get_or<std::vector<double>>("long_factor", {});
  if (!(rope.theta > 0)) fail("{} must be positive", r.where("rope_theta"));
  switch (rope.kind) {
    case RopeKind::Default: rope.factor = 1.0; break;
    case RopeKind::Linear:
    case RopeKind::Dynamic:
    case RopeKind::Llama3:
      if (!(rope.factor > 0)) fail("{} must be positive for RoPE type '{}'", r.where("factor"), name);
      break;
    case RopeKind::Yarn:
    case RopeKind::LongRope:
      if (rope.factor < 0) fail("{} must be positive", r.where("factor"));
      break;
  }
  if (rope.kind == RopeKind::LongRope && (rope.short_factor.empty() || rope.long_factor.empty()))
    fail("{}: longrope needs 'short_factor' and 'long_factor'", r.label());
  return rope;
}

// partial_rotary_factor, top level or (5.x) inside rope_parameters (`inner`).
double rotary_fraction(ConfigReader& top, std::optional<double> inner, const FamilySpec& spec) {
  double fraction = 1.0;
  const auto outer = top.get<double>("partial_rotary_factor");
  if (outer && inner && *outer != *inner)
    fail("{} = {} but rope_parameters says {}", top.where("partial_rotary_factor"), *outer, *inner);
  if (outer) fraction = *outer;
  if (inner) fraction = *inner;
  if (!spec.phi_rope_keys && fraction != 1.0)
    fail("{} = {} is not supported for {} (its Hugging Face code rotates whole heads)",
         top.where("partial_rotary_factor"), fraction, spec.architecture);
  if (!(fraction > 0 && fraction <= 1)) fail("{} must be in (0, 1]", top.where("partial_rotary_factor"));
  return fraction;
}

// The attention kind of every layer: `layer_types` when given (checked against the Hub
// dialect's keys where both are there), else the family's rule.
std::vector<bool> sliding_layers(ConfigReader& r, const FamilySpec& spec, int64_t n_layers, bool window_set) {
  std::vector<bool> derived(n_layers, false);
  bool rule_keys = false;  // the config itself says which layers slide (Hub dialect)
  switch (spec.windows) {
    case WindowRule::None: break;
    case WindowRule::AllLayers:
      for (int64_t l = 0; l < n_layers; ++l) derived[l] = window_set;
      break;
    case WindowRule::EvenLayers:
      for (int64_t l = 0; l < n_layers; ++l) derived[l] = l % 2 == 0;
      break;
    case WindowRule::Pattern: {
      // transformers reads `sliding_window_pattern`; the Hub's later files also carry
      // `_sliding_window_pattern` (what to_dict wrote), always beside `layer_types`.
      const auto pattern = r.get<int64_t>("sliding_window_pattern");
      const auto saved = r.get<int64_t>("_sliding_window_pattern");
      rule_keys = pattern.has_value();
      const int64_t p = pattern.value_or(6);
      if (p <= 0) fail("{} must be positive", r.where("sliding_window_pattern"));
      if (saved && !r.has("layer_types") && *saved != p)
        fail("{} = {} but transformers reads sliding_window_pattern ({}): give layer_types", r.where("_sliding_window_pattern"),
             *saved, p);
      for (int64_t l = 0; l < n_layers; ++l) derived[l] = (l + 1) % p != 0;
      break;
    }
    case WindowRule::FromLayer: {
      const int64_t from = r.get_or<int64_t>("max_window_layers", 28);
      rule_keys = true;
      for (int64_t l = 0; l < n_layers; ++l) derived[l] = window_set && l >= from;
      break;
    }
  }
  const json* types = r.find("layer_types");
  if (!types) return derived;
  if (!types->is_array() || static_cast<int64_t>(types->size()) != n_layers)
    fail("{} must list num_hidden_layers ({}) entries", r.where("layer_types"), n_layers);
  std::vector<bool> sliding(n_layers);
  for (int64_t l = 0; l < n_layers; ++l) {
    const json& t = (*types)[l];
    if (!t.is_string() || (t != kFull && t != kSliding))
      fail("{}[{}] = {}: geoattn knows 'full_attention' and 'sliding_attention'", r.where("layer_types"), l, t.dump());
    sliding[l] = t == kSliding;
  }
  if (spec.windows == WindowRule::None && std::find(sliding.begin(), sliding.end(), true) != sliding.end())
    fail("{} has sliding layers, which {} does not implement", r.where("layer_types"), spec.architecture);
  if (rule_keys && sliding != derived)
    fail("{} disagrees with the layers that {}'s other keys make sliding", r.where("layer_types"), spec.architecture);
  return sliding;
}

// The sizes, norms, activation, embeddings and token ids: the keys every family reads alike.
void read_shape(ConfigReader& r, const FamilySpec& spec, ModelConfig& c) {
  c.family = spec.family;
  c.hidden = r.required_positive("hidden_size");
  c.ffn = r.required_positive("intermediate_size");
  c.n_layers = r.required_positive("num_hidden_layers");
  c.n_heads = r.required_positive("num_attention_heads");
  c.vocab = r.required_positive("vocab_size");
  if (c.n_layers > kMaxLayers) fail("{} = {} is above {}", r.where("num_hidden_layers"), c.n_layers, kMaxLayers);
  c.n_kv_heads = r.get_or<int64_t>("num_key_value_heads", c.n_heads);
  c.head_dim = r.get_or<int64_t>("head_dim", spec.default_head_dim > 0 ? spec.default_head_dim : c.hidden / c.n_heads);
  c.max_positions = r.get_or<int64_t>("max_position_embeddings", spec.default_max_positions);
  c.rms_eps = r.get_or<double>("rms_norm_eps", spec.default_rms_eps);
  c.act = activation_of(r, spec);
  c.tie_embeddings = r.get_or<bool>("tie_word_embeddings", spec.default_tied);
  c.bos_id = token_id(r, "bos_token_id");
  c.eos_id = token_id(r, "eos_token_id");
  // 5.x writes `dtype`, the Hub's files `torch_dtype`.
  const auto dtype = r.get<std::string>("dtype");
  c.torch_dtype = dtype ? *dtype : r.get_or<std::string>("torch_dtype", "");
  r.get<std::string>("torch_dtype");
  c.norm_style = spec.norm_style;
  c.norm_layout = spec.norm_layout;
  c.qk_norm = spec.qk_norm;
  c.tensor_layout = spec.tensors;
  c.scale_embeddings = spec.scale_embeddings;
}

// The biases the family has, and the keys that must keep their neutral value (or the family
// would compute something else); quantized checkpoints refused.
void read_biases(ConfigReader& r, const FamilySpec& spec, ModelConfig& c) {
  const std::string_view family = spec.architecture;
  switch (spec.bias) {
    case BiasRule::None: require_neutral(r, "attention_bias", false, family); break;
    case BiasRule::AttentionBias: c.qkv_bias = c.o_bias = r.get_or<bool>("attention_bias", false); break;
    case BiasRule::QkvAlways:
      require_neutral(r, "attention_bias", true, family);
      c.qkv_bias = true;
      break;
  }
  if (spec.mlp_bias)
    c.mlp_bias = r.get_or<bool>("mlp_bias", false);
  else
    require_neutral(r, "mlp_bias", false, family);
  for (const auto& k : kNeutral) require_neutral(r, k.key, json::parse(k.neutral), family);
  if (r.has("quantization_config"))
    fail("{}: quantized checkpoints are not supported (geoattn reads float weights)", r.where("quantization_config"));
}

// Attention logits: the soft-caps (Gemma-2/3) and the scale; returns the scale's scalar
// (query_pre_attn_scalar, or head_dim).
double read_attention_scale(ConfigReader& r, const FamilySpec& spec, ModelConfig& c) {
  double scalar = static_cast<double>(c.head_dim);
  if (spec.gemma_attention != GemmaAttention::None) {
    scalar = r.get_or<double>("query_pre_attn_scalar", 256.0);
    // Absent: the family default; null: none (as transformers reads them).
    c.attn_softcap = r.contains("attn_logit_softcapping") ? r.get_or<double>("attn_logit_softcapping", 0.0)
                                                               : spec.default_attn_softcap;
    c.final_softcap = r.contains("final_logit_softcapping") ? r.get_or<double>("final_logit_softcapping", 0.0)
                                                                 : spec.default_final_softcap;
    if (spec.gemma_attention == GemmaAttention::FinalCapOnly && c.attn_softcap != 0)
      fail("{} = {}: transformers' {} never applies it, so geoattn cannot say what the model computes",
           r.where("attn_logit_softcapping"), c.attn_softcap, spec.architecture);
  }
  // SPEC §8: scores are q k^T / sqrt(query_pre_attn_scalar) (Gemma-2/3) or / sqrt(head_dim).
  c.attn_scale = 1.0 / std::sqrt(scalar);
  return scalar;
}

// The sliding window (0: none) and which layers slide.
struct SlidingWindows {
  int64_t window = 0;
  std::vector<bool> sliding;
};
// Absent sliding_window -> the family default; null -> no window (as transformers reads it).
SlidingWindows read_windows(ConfigReader& r, const FamilySpec& spec, int64_t n_layers) {
  int64_t window = 0;
  if (spec.windows != WindowRule::None)
    window = r.contains("sliding_window") ? r.get_or<int64_t>("sliding_window", 0) : spec.default_sliding_window;
  else
    require_neutral(r, "sliding_window", json(), spec.architecture);
  if (spec.windows == WindowRule::FromLayer && !r.get_or<bool>("use_sliding_window", false)) window = 0;
  // Gemma-2's files repeat the window as sliding_window_size, which transformers does not read.
  if (const auto size = r.get<int64_t>("sliding_window_size"); size && *size != window)
    fail("{} = {} but sliding_window is {}", r.where("sliding_window_size"), *size, window);
  if (window < 0) fail("{} must be >= 0", r.where("sliding_window"));
  return {window, sliding_layers(r, spec, n_layers, window > 0)};
}

// RoPE: the 5.x dialect's rope_parameters (flat, or per layer type), else the Hub dialect's
// rope_theta + rope_scaling (+ Gemma-3's rope_local_base_freq for sliding layers). Sets
// rotary_dim and ropes: the full layers' first, the sliding layers' second where it differs.
void read_ropes(ConfigReader& r, const FamilySpec& spec, ModelConfig& c) {
  const auto theta_top = r.get<double>("rope_theta");
  const int64_t original_top = spec.phi_rope_keys ? r.get_or<int64_t>("original_max_position_embeddings", 0) : 0;
  const auto local_top = spec.local_rope ? r.get<double>("rope_local_base_freq") : std::nullopt;
  auto params = r.object("rope_parameters");
  auto scaling = r.object("rope_scaling");
  if (params && scaling) fail("{}: both rope_parameters and rope_scaling: say it once", r.label());
  const double theta_default = theta_top.value_or(spec.default_rope_theta);
  RopeSpec full, local;
  std::optional<double> inner_fraction;
  if (params) {
    if (auto f = params->object(kFull)) {  // per layer type
      full = read_rope(*f, theta_default, original_top, inner_fraction);
      f->finish();
      if (auto s = params->object(kSliding)) {
        local = read_rope(*s, local_top.value_or(spec.default_local_rope_theta), original_top, inner_fraction);
        s->finish();
      } else {
        local = full;
      }
    } else {
      full = read_rope(*params, theta_default, original_top, inner_fraction);
      local = full;
    }
    params->finish();
    if (theta_top && *theta_top != full.theta)
      fail("{} = {} but rope_parameters says {}", r.where("rope_theta"), *theta_top, full.theta);
  } else {
    const json none = json::object();
    ConfigReader empty(none, r.label(), "rope_scaling");
    full = read_rope(scaling ? *scaling : empty, theta_default, original_top, inner_fraction);
    if (scaling) scaling->finish();
    local = spec.local_rope ? RopeSpec{.theta = local_top.value_or(spec.default_local_rope_theta)} : full;
  }
  const double fraction = rotary_fraction(r, inner_fraction, spec);
  if (spec.local_rope && local_top && params && local.theta != *local_top)
    fail("{} = {} but rope_parameters.sliding_attention says {}", r.where("rope_local_base_freq"), *local_top, local.theta);

  c.rotary_dim = static_cast<int64_t>(static_cast<double>(c.head_dim) * fraction);  // int(head_dim * factor), as upstream
  for (RopeSpec* rope : {&full, &local}) {
    if (rope->original_max_positions == 0) rope->original_max_positions = c.max_positions;
    // yarn and longrope without a factor take max / original positions (transformers).
    if ((rope->kind == RopeKind::Yarn || rope->kind == RopeKind::LongRope) && rope->factor == 0)
      rope->factor = static_cast<double>(c.max_positions) / static_cast<double>(rope->original_max_positions);
    if (rope->kind == RopeKind::LongRope &&
        (static_cast<int64_t>(rope->short_factor.size()) != c.rotary_dim / 2 ||
         static_cast<int64_t>(rope->long_factor.size()) != c.rotary_dim / 2))
      fail("{}: longrope short_factor and long_factor need rotary_dim / 2 = {} entries", r.label(), c.rotary_dim / 2);
  }
  c.ropes = {full};
  if (!(local == full)) c.ropes.push_back(local);
}

// Each layer's window and RoPE (a sliding layer takes the second RoPE where there is one).
void assign_layers(ConfigReader& r, const SlidingWindows& w, ModelConfig& c) {
  c.layers.resize(c.n_layers);
  for (int64_t l = 0; l < c.n_layers; ++l) {
    if (w.sliding[l] && w.window <= 0)
      fail("{}: layer {} is a sliding layer but sliding_window is not set", r.label(), l);
    c.layers[l].window = w.sliding[l] ? w.window : 0;
    c.layers[l].rope = w.sliding[l] && c.ropes.size() > 1 ? 1 : 0;
  }
}

// What the forward needs of the values read: divisible heads, even dimensions, positive constants.
void check_values(const ConfigReader& r, const ModelConfig& c, double scalar) {
  if (c.n_kv_heads <= 0 || c.n_heads % c.n_kv_heads != 0)
    fail("{}: num_attention_heads {} is not a multiple of num_key_value_heads {}", r.label(), c.n_heads, c.n_kv_heads);
  if (c.head_dim <= 0 || c.head_dim % 2 != 0)
    fail("{} = {} must be a positive even number (RoPE)", r.where("head_dim"), c.head_dim);
  if (c.rotary_dim <= 0 || c.rotary_dim % 2 != 0)
    fail("{}: rotary dimension {} (head_dim x partial_rotary_factor) must be a positive even number", r.label(), c.rotary_dim);
  if (!(c.rms_eps > 0)) fail("{} must be positive", r.where("rms_norm_eps"));
  if (c.max_positions <= 0) fail("{} must be positive", r.where("max_position_embeddings"));
  if (c.attn_softcap < 0 || c.final_softcap < 0) fail("{}: soft-caps must be positive or null", r.label());
  if (!(scalar > 0)) fail("{} must be positive", r.where("query_pre_attn_scalar"));
}

// The text model's config (the whole file, or Gemma-3 multimodal's text_config), read in the
// order its errors are said.
ModelConfig read_text_config(ConfigReader& r, const FamilySpec& spec) {
  ModelConfig c;
  read_shape(r, spec, c);
  read_biases(r, spec, c);
  const double scalar = read_attention_scale(r, spec, c);
  const SlidingWindows windows = read_windows(r, spec, c.n_layers);
  read_ropes(r, spec, c);
  assign_layers(r, windows, c);
  check_values(r, c, scalar);
  return c;
}

}  // namespace

ModelConfig parse_config(const json& config, const std::string& label) {
  if (!config.is_object()) fail("{}: not a JSON object", label);
  ConfigReader top(config, label);
  const std::string arch = first_architecture(top);
  const std::string type = top.get_or<std::string>("model_type", "");
  // Gemma-3 of 4B and up: a multimodal wrapper whose text model is under text_config.
  const bool multimodal = arch == "Gemma3ForConditionalGeneration" || (arch.empty() && type == "gemma3");
  const FamilySpec* spec = multimodal ? &family_spec(arch::Family::Gemma3) : find_family(arch, type);
  if (!spec) {
    if (arch.empty() && type.empty()) fail("{}: missing field 'architectures'", label);
    fail("{}: unknown architecture '{}' (geoattn runs {})", label, arch.empty() ? type : arch, known_architectures());
  }
  ModelConfig c;
  if (multimodal) {
    auto text = top.object("text_config");
    if (!text) fail("{}: Gemma3ForConditionalGeneration without 'text_config'", label);
    const auto text_type = text->get<std::string>("model_type");
    if (text_type && *text_type != spec->model_type)
      fail("{} is '{}', expected '{}'", text->where("model_type"), *text_type, spec->model_type);
    text->find("architectures");  // the text model's own class, if listed: the wrapper's decides
    c = read_text_config(*text, *spec);
    // The wrapper may repeat the tying (transformers 5.x writes it there): it must agree.
    if (const auto tied = top.get<bool>("tie_word_embeddings"); tied && *tied != c.tie_embeddings)
      fail("{} = {} but text_config ties {}", top.where("tie_word_embeddings"), *tied, c.tie_embeddings);
    // The wrapper's head applies no final soft-cap (transformers' Gemma3ForConditionalGeneration).
    if (c.final_softcap != 0)
      fail("{}: final_logit_softcapping is set but Gemma3ForConditionalGeneration does not apply it", label);
    // The wrapper's own copies of the token ids and dtype; the text model's are the ones used.
    for (const char* key : {"bos_token_id", "eos_token_id", "pad_token_id", "dtype", "torch_dtype"}) top.find(key);
    top.ignore(kMultimodalNoEffect);
    text->ignore(kNoEffect);
    text->finish();
  } else {
    c = read_text_config(top, *spec);
  }
  c.architecture = arch.empty() ? std::string(spec->architecture) : arch;
  top.ignore(kNoEffect);
  top.finish();
  // Sizes far past any real checkpoint are refused before anything is sized from them.
  const long double parameters = arch::parameter_count_exact(c);
  if (!(parameters <= kMaxParameters))
    fail("{}: the sizes imply {:.3g} parameters, above the limit of {:.3g}", label, static_cast<double>(parameters),
         static_cast<double>(kMaxParameters));
  return c;
}

ModelConfig load_config(const std::string& model_dir) {
  const std::string path = (fs::path(model_dir) / "config.json").string();
  if (!fs::is_regular_file(path)) fail("{}: cannot open (is --model a Hugging Face checkpoint folder?)", path);
  return parse_config(read_json_file(path), path);
}

}  // namespace geoattn::io
