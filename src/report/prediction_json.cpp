// The predicted envelopes' source, read and recorded (prediction_json.h).
#include "geoattn/report/prediction_json.h"

#include "geoattn/util/error.h"
#include "geoattn/util/input_files.h"
#include "geoattn/util/json_parse.h"

namespace geoattn::report {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {
std::optional<double> number_or_none(const json& x) {
  if (x.is_null()) return std::nullopt;
  if (!x.is_number()) fail("not a number or null");
  return x.get<double>();
}

json per_head(const std::vector<std::optional<double>>& v, int64_t L, int64_t H) {
  json out = json::array();
  for (int64_t l = 0; l < L; ++l) {
    json row = json::array();
    for (int64_t h = 0; h < H; ++h) {
      const auto& x = v[static_cast<size_t>(l * H + h)];
      row.push_back(x ? json(*x) : json(nullptr));
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<std::optional<double>> read_per_head(const json& j, const char* key, int64_t L, int64_t H) {
  const auto rows = j.find(key);
  if (rows == j.end() || !rows->is_array() || std::ssize(*rows) != L)
    fail("settings.predict_from.{}: not a list of {} layers", key, L);
  std::vector<std::optional<double>> out;
  for (const auto& row : *rows) {
    if (!row.is_array() || std::ssize(row) != H) fail("settings.predict_from.{}: a layer is not a list of {} heads", key, H);
    for (const auto& x : row) try {
        out.push_back(number_or_none(x));
      } catch (const Error& e) {
        fail("settings.predict_from.{}: {}", key, e.what());
      }
  }
  return out;
}
}  // namespace

metrics::Prediction read_prediction(const std::string& path, int64_t layers, int64_t heads, const std::string& flag) {
  json doc;
  try {
    doc = read_json_file(path);
  } catch (const Error& e) {
    fail("{}: {}", flag, e.what());  // "--predict-from: PATH: not valid JSON"
  }
  const auto model = doc.find("model");
  const auto all = doc.find("heads");
  if (!doc.is_object() || model == doc.end() || !model->is_object() || all == doc.end() || !all->is_array())
    fail("{}: {}: not a measure result (no model or heads)", flag, path);
  const int64_t L = model->value("layers", int64_t{-1}), H = model->value("heads", int64_t{-1});
  if (L != layers || H != heads)
    fail("{}: {}: its model has {} layers x {} heads, this run's {} x {}", flag, path, L, H, layers, heads);
  metrics::Prediction p{path, fingerprint(path).hash, L, H, std::vector<std::optional<double>>(static_cast<size_t>(L * H)),
                        std::vector<std::optional<double>>(static_cast<size_t>(L * H))};
  std::vector<char> seen(static_cast<size_t>(L * H));
  for (const auto& head : *all) {
    try {
      const int64_t l = head.at("layer").get<int64_t>(), h = head.at("head").get<int64_t>();
      if (l < 0 || l >= L || h < 0 || h >= H || seen[static_cast<size_t>(l * H + h)])
        fail("layer {} head {} is outside the model or given twice", l, h);
      const auto i = static_cast<size_t>(l * H + h);
      seen[i] = 1;
      // SPEC §3: the head's mean rho0; SPEC §4: beta only where the decay fit is identified (ok).
      if (head.contains("rho0")) p.rho0[i] = number_or_none(head.at("rho0"));
      const auto fits = head.find("fits");
      if (fits != head.end() && fits->is_object() && fits->contains("decay")) {
        const auto& decay = fits->at("decay");
        if (decay.value("ok", false)) p.beta[i] = number_or_none(decay.at("beta"));
      }
    } catch (const json::exception& e) {
      fail("{}: {}: a head entry is malformed ({})", flag, path, e.what());
    } catch (const Error& e) {
      fail("{}: {}: {}", flag, path, e.what());
    }
  }
  for (char s : seen)
    if (!s) fail("{}: {}: not every head of the model is listed", flag, path);
  return p;
}

ordered_json prediction_json(const metrics::Prediction& p) {
  return {{"file", p.file},
          {"fingerprint", p.fingerprint},
          {"beta", per_head(p.beta, p.layers, p.heads)},
          {"rho0", per_head(p.rho0, p.layers, p.heads)}};
}

metrics::Prediction prediction_from_json(const json& j) {
  if (!j.is_object() || !j.contains("file") || !j.at("file").is_string() || !j.contains("fingerprint") ||
      !j.at("fingerprint").is_string())
    fail("settings.predict_from: not an object with a file and a fingerprint");
  const auto rows = j.find("beta");
  const int64_t L = rows != j.end() && rows->is_array() ? std::ssize(*rows) : 0;
  const int64_t H = L > 0 && rows->at(0).is_array() ? std::ssize(rows->at(0)) : 0;
  if (L < 1 || H < 1) fail("settings.predict_from.beta: not a list of layers of heads");
  return {j.at("file").get<std::string>(), j.at("fingerprint").get<std::string>(), L, H, read_per_head(j, "beta", L, H),
          read_per_head(j, "rho0", L, H)};
}

}  // namespace geoattn::report
