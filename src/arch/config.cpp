#include "geoattn/arch/config.h"

namespace geoattn::arch {

const char* family_name(Family family) {
  switch (family) {
    case Family::Llama: return "llama";
    case Family::Mistral: return "mistral";
    case Family::Gemma: return "gemma";
  }
  return "?";
}

const char* activation_name(Activation act) {
  switch (act) {
    case Activation::SiLU: return "silu";
    case Activation::GeluTanh: return "gelu_pytorch_tanh";
    case Activation::Gelu: return "gelu";
  }
  return "?";
}

}  // namespace geoattn::arch
