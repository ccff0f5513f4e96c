#pragma once
// SPEC §5, "Which envelope tests the theory": the predicted envelopes take each sample's measured
// a_i with rho from the head's fitted assumptions, rho_jk = exp(-beta |j-k|) (Assumption 2's fit,
// SPEC §4) and rho_0j = rho0 (the head's mean sink similarity, SPEC §3), from a result the user
// names (--predict-from). What they take from it, per head, and where it came from. Pure C++.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace geoattn::metrics {

// The --predict-from setting as given: "none" (the default: no predicted envelopes) or the path
// of a measure result (its JSON) whose fits the prediction takes.
class PredictFrom {
 public:
  static PredictFrom parse(const std::string& text);  // geoattn::Error on an empty text
  bool off() const { return text_ == "none"; }
  const std::string& text() const { return text_; }

 private:
  std::string text_ = "none";
};

// Per head [layer * heads + head]: beta of the head's decay fit where the fit is `ok` (none: no
// identified decay, so no predicted envelope), and its mean rho0 (none: the source had no sample).
// `file` and `fingerprint` (util/input_files.h) name the source; two predictions are the same
// when their fingerprints and values are (a merge needs it; the path may differ between machines).
struct Prediction {
  std::string file, fingerprint;
  int64_t layers = 0, heads = 0;
  std::vector<std::optional<double>> beta, rho0;

  bool empty() const { return layers == 0; }
  // Whether head (layer, head) has a predicted envelope: both numbers there.
  bool predicts(int64_t layer, int64_t head) const {
    const auto i = static_cast<size_t>(layer * heads + head);
    return beta[i].has_value() && rho0[i].has_value();
  }
  int64_t heads_predicted() const;
  bool operator==(const Prediction& o) const {
    return fingerprint == o.fingerprint && layers == o.layers && heads == o.heads && beta == o.beta && rho0 == o.rho0;
  }
};

}  // namespace geoattn::metrics
