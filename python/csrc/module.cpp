// geoattn._native: the CLI's pipeline (metric run, bootstrap, fits, sinks, taxonomy) over tensors
// handed over from Python, built against the PyTorch of the importing interpreter
// (python/CMakeLists.txt). The checks that name a Python argument live in geoattn/_checks.py,
// those of the tensors' values in C++ (check_capture, the CLI's); this file converts and calls,
// nothing more: no metric is computed here.
#include <torch/extension.h>

#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "geoattn/metrics/core/grid.h"
#include "geoattn/metrics/finalize/taxonomy_inputs.h"
#include "geoattn/metrics/run/metric_params.h"
#include "geoattn/metrics/stats/unit_stats.h"
#include "geoattn/model/capture_tensor_checks.h"
#include "geoattn/model/capture_file.h"
#include "geoattn/pipeline/results.h"
#include "geoattn/pipeline_torch/library_threads.h"
#include "geoattn/pipeline_torch/measure.h"
#include "geoattn/pipeline_torch/sinks.h"
#include "geoattn/report/fits_json.h"
#include "geoattn/report/frame_config_json.h"
#include "geoattn/report/measure_json.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/report/taxonomy_config_json.h"
#include "geoattn/report/taxonomy_json.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"
#include "geoattn/util/worker_pool.h"

namespace py = pybind11;
using namespace geoattn;

namespace {

using Json = nlohmann::ordered_json;

// For the length of a call: a pool of `threads` workers (0: every core) and the CLI's thread
// policy (pipeline_torch/library_threads.h), the caller's torch settings back afterwards.
struct CallThreads {
  explicit CallThreads(int threads) : pool(threads) {}
  pipeline::LibraryThreads policy;
  WorkerPool pool;
};

// A name of an enum's table, parsed here (the package checks them first; a ValueError naming the
// argument all the same).
template <typename E, size_t N>
E named(const EnumName<E> (&table)[N], const std::string& name, const char* argument) {
  if (const auto value = value_of(table, name)) return *value;
  fail("{}: '{}' is not one of {}", argument, name, names_of(table));
}

// Settings from a Python function's keyword arguments, a dict by Python name, read by their table
// (metrics::MetricParams::visit_settings, metrics::SinkSettings::visit_settings): every setting
// there, none other. The package checks each first; what reaches here out of range is a
// ValueError naming it all the same.
struct FromKeywords {
  const py::dict& given;
  size_t read = 0;
  py::handle at(FieldName name) {
    const std::string key(name.python);
    if (!given.contains(key)) fail("{}: missing", key);
    ++read;
    return given[key.c_str()];
  }
  template <typename T>
  void parsed(FieldName name, T& field, const std::string&) {
    const std::string text = py::cast<std::string>(at(name));
    try {
      field = T::parse(text);
    } catch (const Error& e) {
      fail("{}: {}", name.python, e.what());
    }
  }
  template <typename E, size_t N>
  void choice(FieldName name, E& field, const EnumName<E> (&names)[N], const std::string&) {
    field = named(names, py::cast<std::string>(at(name)), std::string(name.python).c_str());
  }
  template <typename E, size_t N>
  void choice(FieldName name, std::optional<E>& field, const EnumName<E> (&names)[N], const std::string&) {
    const std::string text = py::cast<std::string>(at(name));
    field = text == kAutoName ? std::nullopt : std::optional<E>(named(names, text, std::string(name.python).c_str()));
  }
  template <typename T>
  void number(FieldName name, T& field, T low, T high, const std::string&, LowBound bound = LowBound::Closed) {
    const T value = py::cast<T>(at(name));
    if (bound == LowBound::Open && !(value > low && value <= high))
      fail("{}: {} is not a number > {}", name.python, value, low);
    if (!(value >= low && value <= high)) fail("{}: {} is not from {} to {}", name.python, value, low, high);
    field = value;
  }
  void list(FieldName name, std::vector<double>& field, const std::string&) { field = py::cast<std::vector<double>>(at(name)); }
};
// `function`'s settings (geoattn.metrics: MetricParams, geoattn.sinks: SinkSettings) from its
// keyword arguments.
template <typename Settings>
Settings settings_of(const py::dict& given, const char* function) {
  Settings settings;
  FromKeywords from{given};
  Settings::visit_settings(settings, from);
  if (from.read != given.size()) fail("{}: {} settings given, {} known", function, given.size(), from.read);
  return settings;
}

// The table of settings for Python: per Python name its default, its choices (a choice) or its
// range (a number), its help, where a result records it, and the setting and value that leave
// it unread (metrics::kMetricUnused: "unread_with").
struct Describe {
  py::dict& out;
  void put(FieldName name, py::dict entry, const std::string& help) {
    entry["help"] = help;
    entry["record_path"] = name.record_path();
    for (const metrics::MetricUnused& rule : metrics::kMetricUnused)
      if (rule.setting.python == name.python) {
        py::dict unread;
        unread["setting"] = std::string(rule.when.python);
        unread["value"] = std::string(rule.value);
        unread["why"] = std::string(rule.why);
        entry["unread_with"] = unread;
      }
    out[py::str(std::string(name.python))] = entry;
  }
  template <typename T>
  void parsed(FieldName name, const T& field, const std::string& help) {
    py::dict entry;
    entry["default"] = field.text();
    put(name, entry, help);
  }
  // A choice: its default's name, and every name it takes ("auto" first where it may be unset).
  template <typename E, size_t N>
  void put_choice(FieldName name, const std::string& default_name, bool takes_auto, const EnumName<E> (&names)[N],
                  const std::string& help) {
    py::dict entry;
    entry["default"] = default_name;
    py::list choices;
    if (takes_auto) choices.append(std::string(kAutoName));
    for (const auto& n : names) choices.append(std::string(n.name));
    entry["choices"] = choices;
    put(name, entry, help);
  }
  template <typename E, size_t N>
  void choice(FieldName name, const E& field, const EnumName<E> (&names)[N], const std::string& help) {
    put_choice(name, name_of(names, field), false, names, help);
  }
  template <typename E, size_t N>
  void choice(FieldName name, const std::optional<E>& field, const EnumName<E> (&names)[N], const std::string& help) {
    put_choice(name, field ? name_of(names, *field) : kAutoName, true, names, help);
  }
  template <typename T>
  void number(FieldName name, const T& field, T low, T high, const std::string& help,
              LowBound bound = LowBound::Closed) {
    py::dict entry;
    entry["default"] = field, entry["min"] = low, entry["max"] = high;
    if (bound == LowBound::Open) entry["min_exclusive"] = true;
    put(name, entry, help);
  }
  void list(FieldName name, const std::vector<double>& field, const std::string& help) {
    py::dict entry;
    entry["default"] = py::cast(field);
    put(name, entry, help);
  }
};
template <typename Settings>
py::dict settings_table() {
  py::dict out;
  const Settings defaults;
  Settings::visit_settings(defaults, Describe{out});
  return out;
}

// The capture layout of tensors from Python: alpha [W, L, H, Q, T], values [W, L, KV, T, d].
model::CaptureFile capture_of(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                              const torch::Tensor& tokens, const std::map<std::string, std::string>& metadata) {
  model::CaptureFile c;
  c.alpha = alpha, c.values = values, c.metadata = metadata;
  c.queries = torch::tensor(queries, torch::kInt64);
  c.tokens = tokens.defined() ? tokens.to(torch::kCPU, torch::kInt64).contiguous()
                              : torch::zeros({alpha.size(0), alpha.size(4)}, torch::kInt64);
  return c;
}

// A JSON value as the Python objects json.loads makes of its text (null: None), without the text.
py::object py_of(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return py::none();
    case Json::value_t::boolean: return py::bool_(j.get<bool>());
    case Json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case Json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case Json::value_t::number_float: return py::float_(j.get<double>());
    case Json::value_t::string: return py::str(j.get_ref<const std::string&>());
    case Json::value_t::array: {
      py::list out;
      for (const auto& x : j) out.append(py_of(x));
      return out;
    }
    case Json::value_t::object: {
      py::dict out;
      for (const auto& [key, value] : j.items()) out[py::str(key)] = py_of(value);
      return out;
    }
    default: fail("internal: a JSON value of type {} has no Python form", j.type_name());
  }
}

// The thresholds of a taxonomy: "" for the built-in ones.
analysis::TaxonomyConfig taxonomy_config(const std::string& config) {
  return config.empty() ? analysis::TaxonomyConfig()
                        : report::taxonomy_config_from_json(parse_json_or_fail<nlohmann::json>("config", config));
}

// A finalized metric run: the result JSON, its arrays, its files; its taxonomy and fits from
// the run's structs (no JSON text).
struct Measure {
  pipeline::CaptureMetrics run;

  // The result JSON with every array inline (report::read_measure's layout).
  std::string json() const { return pipeline::results_json(run.state, run.done).dump(1); }
  // {"heads.P_rmax": float64 [L, H, G], "layers.R_rmin": [L, G], ...}: the arrays file's tensors.
  std::map<std::string, torch::Tensor> arrays() const {
    report::MeasureArrays arrays;
    pipeline::results_json(run.state, run.done, &arrays, "");
    std::map<std::string, torch::Tensor> out;
    for (const auto& a : arrays)
      out[a.name] = torch::tensor(a.values, torch::kFloat64).reshape(a.shape);
    return out;
  }
  void save(const std::string& path) const { pipeline::write_results(path, run.state, run.done); }
  // The run's "timing" (its stages in seconds), without the rest of the JSON.
  std::string timing() const { return report::to_json(run.state.run_info.timing).dump(); }
  // `geoattn taxonomy` of this result (SPEC §6), from its aggregated means.
  py::object taxonomy(const std::string& config) const {
    const auto cfg = taxonomy_config(config);  // before the GIL goes: a bad config is a ValueError
    Json doc;
    {
      py::gil_scoped_release released;
      auto inputs = metrics::taxonomy_inputs(run.state.metrics, run.done.bootstrap ? &*run.done.bootstrap : nullptr, &run.done.fits);
      doc = report::to_json(analysis::taxonomy(std::move(inputs), cfg), report::to_json(run.state.run_info.model));
      if (run.done.kappa) {  // the companion table, as geoattn taxonomy writes it
        std::vector<Json> ranges;
        for (size_t i = 0; i < run.done.kappa->heads.size(); ++i)
          ranges.push_back(report::kappa_range_json(run.done.kappa->heads[i], &run.done.kappa->failures[i]));
        report::add_kappa_tables(doc, ranges);
      }
    }
    return py_of(doc);
  }
  // SPEC §4's fits: [{"layer", "head", <the head's "fits" of the result JSON, if it has them>}].
  py::list fits() const {
    py::list out;
    const int64_t L = run.state.metrics.layers(), H = run.state.metrics.heads();
    for (int64_t i = 0; i < L * H; ++i) {
      Json head = {{"layer", i / H}, {"head", i % H}};
      if (!run.done.fits.empty()) head.update(report::to_json(run.done.fits[i]));
      out.append(py_of(head));
    }
    return out;
  }
};

Measure run_metrics(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                    const std::vector<std::string>& docs, const py::dict& settings,
                    const std::vector<int64_t>& layer_windows, const std::string& source,
                    const std::map<std::string, std::string>& metadata, int threads) {
  const model::CaptureFile capture = capture_of(alpha, values, queries, torch::Tensor(), metadata);
  const auto params = settings_of<metrics::MetricParams>(settings, "metrics");
  const auto spec_for = [&](int64_t T, const std::vector<int64_t>& q) {
    pipeline::MetricSpec spec = pipeline::metric_spec(params, T, q, ArgumentStyle::Python);
    spec.layer_windows = layer_windows;  // empty: the metadata's (layer_attention), if any
    return spec;
  };
  py::gil_scoped_release released;
  CallThreads call(threads);
  const auto documents = docs.empty() ? pipeline::capture_documents(capture.metadata, capture.alpha.size(0), source) : docs;
  return Measure{pipeline::metrics_of_capture(call.pool, capture, documents, source, spec_for)};
}

// A sinks run (SPEC §9): its result JSON and its files.
struct Sinks {
  metrics::SinkRun run;
  std::string json() const { return report::sinks_report(run).dump(1); }
  void save(const std::string& path) const { pipeline::write_sinks(path, run); }
};

Sinks run_sinks(const torch::Tensor& alpha, const torch::Tensor& values, const std::optional<torch::Tensor>& residual,
                const std::optional<torch::Tensor>& tokens, const py::dict& given, const std::string& rule,
                const std::string& rule_source, const std::string& source, const std::map<std::string, std::string>& metadata,
                int threads) {
  const int64_t T = alpha.size(4);
  std::vector<int64_t> all(T);
  for (int64_t t = 0; t < T; ++t) all[t] = t;
  const model::CaptureFile capture = capture_of(alpha, values, all, tokens ? *tokens : torch::Tensor(), metadata);
  auto settings = settings_of<pipeline::SinkSettings>(given, "sinks");
  settings.residual = residual.has_value();
  settings.validate(ArgumentStyle::Python);
  if (rule.empty()) {
    settings.rule = pipeline::builtin_sink_rule();
  } else {
    try {
      settings.rule = report::sink_rule_from_json(parse_json_or_fail<Json>(rule_source, rule));
    } catch (const Error& e) {
      fail("{}: {}", rule_source, e.what());
    }
  }
  settings.rule_source = rule.empty() ? pipeline::kBuiltinSinkRuleSource : rule_source;
  py::gil_scoped_release released;
  CallThreads call(threads);
  return Sinks{pipeline::sinks_of_capture(capture, residual ? *residual : torch::Tensor(), source, settings)};
}

// `geoattn taxonomy` of a measure result given inline (its JSON text); config: "" for the
// built-in thresholds.
std::string taxonomy(const std::string& measure, const std::string& config) {
  return report::taxonomy_report(parse_json_or_fail<Json>("result", measure), taxonomy_config(config)).dump(1);
}

py::dict read_capture(const std::string& path) {
  const model::CaptureFile c = model::read_capture_file(path);
  py::dict out;
  out["alpha"] = c.alpha, out["values"] = c.values, out["tokens"] = c.tokens;
  out["queries"] = c.query_positions(), out["docs"] = pipeline::capture_documents(c.metadata, c.alpha.size(0), path);
  out["metadata"] = c.metadata;
  return out;
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "geoattn's C++ pipeline over tensors (use the functions of the geoattn package)";
  // geoattn::Error is bad input (a shape, a value, a file): ValueError, its one line kept.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  py::class_<Measure>(m, "Measure")
      .def("json", &Measure::json)
      .def("arrays", &Measure::arrays)
      .def("timing", &Measure::timing)
      .def("taxonomy", &Measure::taxonomy, py::arg("config"))
      .def("fits", &Measure::fits)
      .def("save", &Measure::save, py::arg("path"), py::call_guard<py::gil_scoped_release>());
  py::class_<Sinks>(m, "Sinks").def("json", &Sinks::json).def("save", &Sinks::save, py::arg("path"));
  // settings: geoattn.metrics' keyword arguments by name, as settings() describes them.
  m.def("metrics", &run_metrics, py::arg("alpha"), py::arg("values"), py::arg("queries"), py::arg("docs"),
        py::arg("settings"), py::arg("layer_windows"), py::arg("source"), py::arg("metadata"), py::arg("threads"));
  // settings: geoattn.sinks' keyword arguments by name, as settings()["sinks"] describes them.
  m.def("sinks", &run_sinks, py::arg("alpha"), py::arg("values"), py::arg("residual"), py::arg("tokens"),
        py::arg("settings"), py::arg("rule"), py::arg("rule_source"), py::arg("source"), py::arg("metadata"),
        py::arg("threads"));
  // A capture's checks, as geoattn metrics / sinks make them of a capture file.
  m.def("check_capture", &model::check_capture, py::arg("alpha"), py::arg("values"), py::arg("queries"),
        py::arg("alpha_name"), py::arg("values_name"), py::call_guard<py::gil_scoped_release>());
  m.def("check_layer_windows", &model::check_layer_windows, py::arg("alpha"), py::arg("queries"),
        py::arg("layer_windows"), py::arg("alpha_name"), py::arg("windows_name"),
        py::call_guard<py::gil_scoped_release>());
  m.def("check_finite", &model::check_finite, py::arg("x"), py::arg("name"), py::arg("head_word"),
        py::call_guard<py::gil_scoped_release>());
  m.attr("MAX_THREADS") = kMaxWorkerThreads;  // the CLI's --threads limit, Python's too
  // The tables of settings (metrics::MetricParams::visit_settings,
  // metrics::SinkSettings::visit_settings): per Python name its default, choices or range, and
  // help, as the CLI's flags have them.
  m.def("settings", [] {
    py::dict out;
    out["metrics"] = settings_table<metrics::MetricParams>();
    out["sinks"] = settings_table<metrics::SinkSettings>();
    return out;
  });
  // Their defaults, against which Python's signatures are checked (python/tests/test_defaults.py).
  m.def("defaults", [] {
    const auto defaults_of = [](const py::dict& table) {
      py::dict defaults;
      for (const auto& [name, entry] : table) defaults[name] = entry.cast<py::dict>()["default"];
      return defaults;
    };
    py::dict out;
    out["metrics"] = defaults_of(settings_table<metrics::MetricParams>());
    out["sinks"] = defaults_of(settings_table<metrics::SinkSettings>());
    return out;
  });
  m.def("taxonomy", &taxonomy, py::arg("measure"), py::arg("config"));
  m.def("read_capture", &read_capture, py::arg("path"));
  m.def("default_grid", [](int64_t T) { return metrics::parse_n_grid("default", T); }, py::arg("T"));
}
