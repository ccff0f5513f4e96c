// geoattn taxonomy: a measure JSON -> Retriever / Mixer / Reset for every head (SPEC §6), the
// thresholds from a config file, the rule that fired and its features.
#include <fmt/format.h>

#include "cli.h"
#include "commands.h"
#include "geoattn/report/taxonomy_config_json.h"
#include "geoattn/report/taxonomy_json.h"
#include "geoattn/report/measure_json.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

namespace {

struct TaxonomyOptions {
  std::string from;
  std::string config;
  std::string out;
  bool quiet = false;
};

void run_taxonomy(const TaxonomyOptions& o) {
  check_outputs_of(o.out, {o.from, o.config});
  analysis::TaxonomyConfig config;
  if (!o.config.empty()) {
    try {
      config = report::taxonomy_config_from_json(read_json(o.config));
    } catch (const Error& e) {
      const std::string what = e.what();
      throw Error(what.rfind(o.config, 0) == 0 ? what : o.config + ": " + what);
    }
  }
  nlohmann::ordered_json result;
  try {
    result = report::taxonomy_report(report::read_measure(o.from), config);
  } catch (const Error& e) {
    const std::string what = e.what();
    throw Error(what.rfind(o.from, 0) == 0 ? what : o.from + ": " + what);
  }
  result["from"] = o.from;
  write_file_atomic(o.out, [&](std::ostream& stream) { stream << result.dump(1) << "\n"; });
  if (!o.quiet) {
    const auto& t = result["totals"];
    std::string counts;
    for (const char* label : analysis::kHeadLabels) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", t.value(label, 0), label);
    // SPEC §6: Mixers by their slopes' intervals and by their signs alone are counted apart.
    const int64_t by_sign = result["mixers"]["by_sign"].get<int64_t>();
    std::string note = by_sign > 0 ? fmt::format(" ({} of the Mixers by their slopes' signs alone, {} by intervals: the result "
                                                 "has no head-level intervals for them; measure with --bootstrap-level head)",
                                                 by_sign, result["mixers"]["by_interval"].get<int64_t>())
                                   : "";
    if (result["flagged"].get<int64_t>() > 0)
      note += fmt::format("; {} labels flagged by their leave-one-out diagnostic", result["flagged"].get<int64_t>());
    fmt::print(stderr, "wrote {}: {}{}\n", o.out, counts, note);
  }
}

void taxonomy_flags(CLI::App& cmd, TaxonomyOptions& o) {
  cmd.add_option("--from", o.from, "result JSON of geoattn measure / metrics / merge")->required();
  cmd.add_option("--config", o.config, "thresholds (default: the built-in ones, as in configs/taxonomy.json)");
  cmd.add_option("--out", o.out, "result JSON")->required();
  cmd.add_flag("--quiet", o.quiet, "no summary line");
}

}  // namespace

void add_taxonomy(CLI::App& cmd, Action& action) { bind_command(cmd, action, taxonomy_flags, run_taxonomy); }

}  // namespace geoattn::cli
