// libFuzzer target: the assumption parameters of `geoattn bounds --params`
// (report/bounds_params_json.h, params_from_json): every accepted file round-trips through
// params_to_json, and small ones (T <= 48) run through the synthetic bounds.
#include <algorithm>
#include <vector>

#include "fuzz_util.h"
#include "geoattn/analysis/bounds.h"
#include "geoattn/report/bounds_params_json.h"

using namespace geoattn;
using namespace geoattn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json j = cli_json(data, size);
  if (j.is_discarded()) return 0;
  expect_ok_or_error([&] {
    analysis::AssumptionParams p = report::params_from_json(j);
    const auto out = report::params_to_json(p);
    const auto again = report::params_to_json(report::params_from_json(nlohmann::json::parse(out.dump())));
    require(again == out, "parameters round-trip through params_to_json");
    if (p.T > 48) return;  // the synthetic samples are T x T: keep an execution fast
    p.samples = std::min<int64_t>(p.samples, 2);
    std::vector<int64_t> grid;
    for (int64_t n = 1; n <= p.T; n += 1 + n / 4) grid.push_back(n);
    const analysis::BoundsCurves curves = analysis::synthetic_bounds(p, grid);
    (void)curves;
  });
  return 0;
}
