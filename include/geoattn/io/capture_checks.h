#pragma once
// The checks every capture passes before any metric sees it, one definition for each way in: a
// capture file (geoattn metrics, sinks, bounds; geoattn.read_capture) and tensors from Python
// (geoattn.metrics, geoattn.sinks; model/capture_tensor_checks.h hands them over). Errors name the
// tensor as the caller knows it ("alpha", or "cap.safetensors: alpha") and the first window,
// layer and head at fault. Pure C++ over the arrays where they lie.
#include <string>
#include <vector>

#include "geoattn/io/float_view.h"

namespace geoattn {
class WorkerPool;
}

namespace geoattn::io {

// How far a row's mass may be from 1, and the mass after its query from 0: rows rounded to bf16
// (a bf16 model's, widened or not) are off by up to 2^-9 of their mass; a row that is no
// distribution (scores, logits, a transposed tensor) is off by far more.
inline constexpr double kRowTolerance = 2e-2;
// How much weight a row may put where the mask leaves none (after its query; before a windowed
// layer's window). A masked score's softmax is exactly 0 in every dtype (the exp of -inf, or of
// the dtype's lowest finite value, underflows), and rounding the row to bf16 keeps a 0 a 0, so
// any weight there is a row no such mask made. kRowTolerance, the rounding of a row's whole
// mass, would let a non-causal weight of 0.01 through; 1e-6 is a float32 rounding of 1.
inline constexpr double kMaskedTolerance = 1e-6;

// No NaN or infinity in x [windows, layers, heads, ...]; else geoattn::Error "<name>: window w
// layer l <head_word> h: NaN or infinite values" (the first such head; with `pool`, the heads read
// on its workers, the same error).
void check_finite(const FloatView& x, const std::string& name, const std::string& head_word = "head",
                  WorkerPool* pool = nullptr);

// alpha [W, L, H, Q, T] and values [W, L, KV, T, d] of `queries` (Q positions): every size at
// least 1, KV dividing H, the positions increasing within 0..T-1, both finite, and each row
// alpha[w, l, h, i, :] a distribution over keys 0..queries[i] (non-negative, sum 1 within
// kRowTolerance, nothing after the query beyond kMaskedTolerance). With `pool`, the finite checks
// on its workers.
void check_capture(const FloatView& alpha, const FloatView& values, const std::vector<int64_t>& queries,
                   const std::string& alpha_name, const std::string& values_name, WorkerPool* pool = nullptr);

// SPEC §1: a layer of window W > 0 (layer_windows[l]; empty: none) lets query q see keys
// q-W+1..q only: a row of alpha [W, L, H, Q, T] at `queries` with more than kMaskedTolerance of
// weight before them was not made with that window; geoattn::Error "<alpha_name>: window w layer
// l head h query q: weight x on keys before k, outside the layer's window of W (<windows_name>)".
void check_layer_windows(const FloatView& alpha, const std::vector<int64_t>& queries,
                         const std::vector<int64_t>& layer_windows, const std::string& alpha_name,
                         const std::string& windows_name);

}  // namespace geoattn::io
