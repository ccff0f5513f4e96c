// libFuzzer target: the taxonomy's JSON readers: the thresholds config
// (report/taxonomy_config_json.h, which must round-trip through to_json) and a measure JSON
// (taxonomy_report). A measure input may carry its thresholds under "taxonomy_config" (a
// convention of this target only), so one input reaches both.
#include <cmath>

#include "fuzz_util.h"
#include "geoattn/report/taxonomy_config_json.h"
#include "geoattn/report/taxonomy_json.h"

using namespace geoattn;
using namespace geoattn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json j = cli_json(data, size);
  if (j.is_discarded()) return 0;
  expect_ok_or_error([&] {
    const analysis::TaxonomyConfig cfg = report::taxonomy_config_from_json(j);
    const auto out = report::to_json(cfg);
    require(report::to_json(report::taxonomy_config_from_json(nlohmann::json::parse(out.dump()))) == out,
            "the taxonomy config round-trips through to_json");
  });
  expect_ok_or_error([&] {
    analysis::TaxonomyConfig cfg;
    if (j.is_object() && j.contains("taxonomy_config"))
      cfg = report::taxonomy_config_from_json(j.at("taxonomy_config"));
    const auto report = report::taxonomy_report(j, cfg);
    const auto text = report.dump(1);  // what `geoattn taxonomy` writes
    int64_t labelled = 0;
    for (const char* label : geoattn::analysis::kHeadLabels) labelled += report.at("totals").at(label).get<int64_t>();
    require(labelled == report.at("totals").at("heads").get<int64_t>(), "every head has one label");
    require(report.at("heads").size() == j.at("heads").size(), "one result per head");
    (void)text;
  });
  return 0;
}
