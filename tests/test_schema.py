#!/usr/bin/env python3
"""SchemaFiles: docs/schema/*.schema.json against real geoattn output.

Runs `geoattn measure` (with and without the controls and the bootstrap, --queries all, a run
without the last query, two shards and their merge), `capture` + `metrics`, `bounds` (from the
model, a capture, --params of a measure result and of a parameter file) and `taxonomy` on the
embedded stories260K, and checks every result against its schema with geoattn.schema
(the measure results also with their arrays inline, as load_measure returns them). Broken
documents (a required key removed, a wrong type, an unknown key) must be rejected with the JSON
path named; the schema strings and the curve and scalar names must be those of the C++ headers
(parsed from include/, not written here). geoattn.sinks/1 is checked on synthetic documents
(tests/script_test_util.py synthetic_sinks) whether or not the binary is built; check_sinks(path)
checks a real `geoattn sinks` result the same way. Standard library only.

    tests/test_schema.py [--source-dir DIR] [--bin-dir DIR] [--keep]

Paths default to GEOATTN_SOURCE_DIR / GEOATTN_BIN_DIR, else this checkout and build/bin.
"""
import copy
import importlib.util
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

MEASURE, INLINE = "geoattn.measure-2.schema.json", "geoattn.measure-inline.schema.json"
BOUNDS, TAXONOMY = "geoattn.bounds-1.schema.json", "geoattn.taxonomy-1.schema.json"
SINKS, INTERVENE = "geoattn.sinks-1.schema.json", "geoattn.intervene-1.schema.json"
CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from script_test_util import (check, finish, must, package_env, parse_args, remove_scratch, run,
                              synthetic_sinks)  # beside this file


def header_constant(src, name):
    """The string of `constexpr const char* <name> = "...";` wherever it is under include/."""
    for path in glob.glob(os.path.join(src, "include", "**", "*.h"), recursive=True):
        with open(path, encoding="utf-8") as f:
            m = re.search(r"\b%s\s*=\s*\"([^\"]*)\"" % re.escape(name), f.read())
        if m:
            return m.group(1)
    return None


def header_names(src, name):
    """The strings of the array constant `<name> = {"a", "b", ...};` under include/."""
    for path in glob.glob(os.path.join(src, "include", "**", "*.h"), recursive=True):
        with open(path, encoding="utf-8") as f:
            m = re.search(r"\b%s\s*(?:\[\w*\])?\s*=\s*\{([^}]*)\}" % re.escape(name), f.read())
        if m:
            return re.findall(r"\"([^\"]*)\"", m.group(1))
    return []


def schema_nodes(node):
    """Every subschema of a schema file (dicts under keywords that hold schemas)."""
    if not isinstance(node, dict):
        return
    yield node
    for key, sub in node.items():
        if key in ("properties", "patternProperties", "$defs"):
            for s in sub.values():
                yield from schema_nodes(s)
        elif key in ("allOf", "prefixItems"):
            for s in sub:
                yield from schema_nodes(s)
        elif key in ("items", "additionalProperties", "if", "then", "else"):
            yield from schema_nodes(sub)


def scripts(src):
    """geoattn.schema (python/, beside docs/schema) and plot_figures (scripts/)."""
    for path in (os.path.join(src, "python"), os.path.join(src, "scripts")):
        if path not in sys.path:
            sys.path.insert(0, path)
    from geoattn import schema
    import plot_figures
    return schema, plot_figures


def check_broken(what, doc, name, edit, want, src=CHECKOUT):
    """A copy of doc, edited, is rejected by the schema `name` with the first problem `want...`
    (one line, its JSON path)."""
    schemas, _ = scripts(src)
    doc = copy.deepcopy(doc)
    edit(doc)
    got = schemas.problem(doc, name, os.path.join(src, "docs", "schema"))
    check(got is not None and got.startswith(want) and "\n" not in got,
          f"{what}: rejected as '{want}...' ({got})")


def check_sinks(path, src=CHECKOUT, what=None):
    """A geoattn sinks result (the file at `path`): valid against geoattn.sinks-1.schema.json,
    the layout a schema cannot say as scripts/plot_figures.py checks it (every profile P =
    min(T, profile_positions) long, a graph entry per tau, a sweep type per layer, layers
    ascending, heads inside the model), and broken copies of it rejected with their JSON path.
    ok/FAIL lines; returns the document (None when it cannot be read)."""
    schemas, plot_figures = scripts(src)
    what = what or os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        check(False, f"{what}: a JSON file ({e})")
        return None
    why = schemas.problem(doc, SINKS, os.path.join(src, "docs", "schema"))
    if not check(why is None, f"{what}: valid {SINKS} ({why})"):
        return doc
    try:
        plot_figures.validate_sinks(path)
        check(True, f"{what}: profiles, graphs, sweep types, layers and heads fit together")
    except plot_figures.InputError as e:
        check(False, f"{what}: profiles, graphs, sweep types, layers and heads fit together ({e})")
    cases = [
        ("a head's mass removed", lambda d: d["layers"][0]["heads"][0].pop("mass0"),
         "layers[0].heads[0].mass0: required key missing"),
        ("a string in a profile", lambda d: d["summary"]["sink_rate"].__setitem__(0, "1"),
         "summary.sink_rate[0]: expected a number or null, got string"),
        ("an unknown frame type", lambda d: d["layers"][0]["frame"].update(type="star"),
         "layers[0].frame.type: expected one of"),
        ("an unknown key in a graph entry", lambda d: d["layers"][0]["graph"][0].update(edges=3),
         "layers[0].graph[0].edges: unknown key"),
        ("a layer's reference of the wrong type", lambda d: d["layers"][0].update(reference="R"),
         "layers[0].reference: expected an object, got string"),
        ("eleven anchor tokens", lambda d: d["layers"][0]["heads"][0].update(
            anchor_tokens=[{"token": 1, "text": None, "windows": 1}] * 11),
         "layers[0].heads[0].anchor_tokens: expected at most 10 item(s)"),
        ("a sweep entry without its types", lambda d: d["summary"].update(
            sweep=[{"key": "eps", "value": 0.1, "frame_profile": d["summary"]["frame_profile"]}]),
         "summary.sweep[0].types: required key missing"),
        ("the dormant threshold removed", lambda d: d["rule"]["config"].pop("dormant_col_min"),
         "rule.config.dormant_col_min: required key missing"),
        ("an unknown top-level key", lambda d: d.update(heads=[]), "heads: unknown key"),
        ("another schema string", lambda d: d.update(schema="geoattn.sinks/2"),
         "schema: expected \"geoattn.sinks/1\""),
    ]
    for case, edit, want in cases:
        check_broken(f"{what}, {case}", doc, SINKS, edit, want, src)
    return doc


def check_sinks_synthetic(src, tmp):
    """check_sinks on synthetic documents: with token texts and without (a capture run), with
    --residual and without; and what the schema says is what the C++ headers name."""
    schemas, plot_figures = scripts(src)
    from geoattn.results import FRAME_TYPES, SINK_NAMES
    for name, kw in (("synthetic-sinks.json", {}),
                     ("synthetic-sinks-authors.json", dict(convention="authors", residual=True)),
                     ("synthetic-sinks-capture.json", dict(layers=5, heads=6, P=12, taus=(0.01, 0.05, 0.1),
                                                           residual=True, text=False))):
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(synthetic_sinks(**kw), f)
        check_sinks(path, src)
    no_reference = synthetic_sinks()
    for layer in no_reference["layers"]:
        layer["reference"] = None
    why = schemas.problem(no_reference, SINKS, os.path.join(src, "docs", "schema"))
    check(why is None, f"{SINKS}: a layer's reference may be null ({why})")
    mixed = synthetic_sinks()
    mixed["layers"][0]["graph"][0]["degree_centralization"] = 0.4  # an authors' name in a geoattn entry
    check(schemas.problem(mixed, SINKS, os.path.join(src, "docs", "schema")) is not None,
          f"{SINKS}: a graph entry mixing the conventions' names is refused")
    with open(os.path.join(src, "docs", "schema", SINKS), encoding="utf-8") as f:
        defs = json.load(f)["$defs"]
    names = {"kFrameTypes": (defs["frame_type"]["enum"], FRAME_TYPES)}
    for conv in ("geoattn", "authors"):
        suffix = conv.capitalize()
        names[f"kGraphStats{suffix}"] = ([k for k in defs[f"graph_entry_{conv}"]["required"] if k not in ("tau", "windows", "effective")],
                                         SINK_NAMES[conv]["graph"])
        names[f"kReferenceStats{suffix}"] = (defs[f"head_reference_{conv}"]["required"], SINK_NAMES[conv]["reference"])
        names[f"kRowScore{suffix}"] = (defs[f"dormant_{conv}"]["required"][:1], (SINK_NAMES[conv]["row_score"],))
    for const, (in_schema, in_results) in names.items():
        cpp = header_names(src, const)
        check(cpp and list(in_schema) == cpp and (not in_results or list(in_results) == cpp),
              f"{SINKS}: {const} of the C++ headers {cpp} (schema {in_schema})")
    check(plot_figures.FRAME_COLORS.keys() == set(FRAME_TYPES),
          "plot_figures colours every frame type")


def main():
    args, src, _, geoattn = parse_args(__file__)
    schema_dir = os.path.join(src, "docs", "schema")
    schemas, _ = scripts(src)
    from geoattn.results import load_measure

    def problem(doc, name):
        return schemas.problem(doc, name, schema_dir)

    def load(name):
        with open(os.path.join(schema_dir, name), encoding="utf-8") as f:
            return json.load(f)

    t0 = time.time()

    # The schema files: JSON, only keywords the validator implements, every $ref resolves.
    for name in (MEASURE, INLINE, BOUNDS, TAXONOMY, SINKS, INTERVENE):
        s = load(name)
        nodes = list(schema_nodes(s))
        unknown = sorted({k for n in nodes for k in n} - schemas.KEYWORDS)
        check(not unknown, f"{name}: only supported keywords ({unknown})")
        bad_refs = []
        for n in nodes:
            if "$ref" in n:
                try:
                    schemas._Checker(s, schema_dir).resolve(n["$ref"])
                except (KeyError, OSError) as e:
                    bad_refs.append(f"{n['$ref']} ({e})")
        check(not bad_refs, f"{name}: every $ref resolves {bad_refs}")

    # The schema strings are the C++ constants.
    consts = {k: header_constant(src, k) for k in ("kMeasureSchema", "kMeasureSchemaInline",
                                                   "kBoundsSchema", "kTaxonomySchema", "kSinksSchema")}
    check(None not in consts.values(), f"schema constants found in include/: {consts}")
    check(load(MEASURE)["properties"]["schema"].get("const") == consts["kMeasureSchema"],
          f"{MEASURE}: schema const is kMeasureSchema ({consts['kMeasureSchema']})")
    check(sorted(load(INLINE)["properties"]["schema"].get("enum", [])) ==
          sorted([consts["kMeasureSchema"], consts["kMeasureSchemaInline"]]),
          f"{INLINE}: schema enum is kMeasureSchema, kMeasureSchemaInline")
    check(load(BOUNDS)["properties"]["schema"].get("const") == consts["kBoundsSchema"],
          f"{BOUNDS}: schema const is kBoundsSchema ({consts['kBoundsSchema']})")
    check(load(TAXONOMY)["properties"]["schema"].get("const") == consts["kTaxonomySchema"],
          f"{TAXONOMY}: schema const is kTaxonomySchema ({consts['kTaxonomySchema']})")
    check(load(SINKS)["properties"]["schema"].get("const") == consts["kSinksSchema"],
          f"{SINKS}: schema const is kSinksSchema ({consts['kSinksSchema']})")

    tmp = tempfile.mkdtemp(prefix="geoattn-schema-test-")
    try:
        check_sinks_synthetic(src, tmp)
        if not check(os.access(geoattn, os.X_OK), f"geoattn is built ({geoattn})"):
            return 1
        out = {k: os.path.join(tmp, k + ".json") for k in (
            "m", "m0", "all", "mid", "s0", "s1", "merged", "metrics", "b_model", "b_capture",
            "b_params", "b_file", "tax", "tax_metrics")}
        stream = ["--model", "models/stories260K", "--data",
                  "data/tinystories/tinystories-sample.txt", "--window", "stream", "--ctx", "64",
                  "--max-windows", "6", "--quiet"]
        docs = ["--model", "models/stories260K", "--data", "data/openwebtext/openwebtext-60docs.jsonl",
                "--window", "doc", "--ctx", "32", "--max-windows", "8", "--quiet"]
        capture = os.path.join(tmp, "capture.safetensors")
        # The stream is one document: the bootstrap resamples its windows (one unit has no intervals).
        must([geoattn, "measure"] + stream + ["--bootstrap-unit", "window", "--out", out["m"]], src,
             "measure (controls, bootstrap at head level)")
        must([geoattn, "measure"] + stream + ["--controls", "0", "--bootstrap", "0", "--out", out["m0"]],
             src, "measure --controls 0 --bootstrap 0")
        must([geoattn, "measure"] + stream + ["--queries", "all", "--bootstrap", "100", "--bootstrap-unit", "window",
                                              "--out", out["all"]], src, "measure --queries all")
        must([geoattn, "measure"] + stream + ["--queries", "20,40", "--bootstrap", "50", "--bootstrap-unit", "window",
                                              "--bootstrap-level", "layer", "--distance", "cosine",
                                              "--out", out["mid"]],
             src, "measure --queries 20,40 (no fits), bootstrap at layer level, cosine")
        for i in (0, 1):
            must([geoattn, "measure"] + docs + ["--bootstrap", "50", "--shard", f"{i}/2",
                                                "--out", out[f"s{i}"]], src, f"measure --shard {i}/2")
        must([geoattn, "merge", out["s0"], out["s1"], "--out", out["merged"]], src, "merge of the shards")
        must([geoattn, "capture"] + docs + ["--out", capture], src, "capture")
        must([geoattn, "metrics", "--capture", capture, "--bootstrap", "50", "--bootstrap-unit",
              "window", "--out", out["metrics"]], src, "metrics --capture")
        must([geoattn, "bounds"] + stream + ["--out", out["b_model"]], src, "bounds --model")
        must([geoattn, "bounds", "--quiet", "--capture", capture, "--out", out["b_capture"]], src,
             "bounds --capture")
        # bounds --params reads a head's fits, so a head whose three fits are ok (SPEC section 4).
        with open(out["m"], encoding="utf-8") as f:
            fitted = [h for h in json.load(f)["heads"]
                      if all(h["fits"][part]["ok"] for part in ("norms", "decay", "profile"))]
        check(bool(fitted), "measure: no head with all three fits ok for bounds --params")
        layer, head = (str(fitted[0]["layer"]), str(fitted[0]["head"])) if fitted else ("1", "2")
        must([geoattn, "bounds", "--quiet", "--params", out["m"], "--layer", layer, "--head", head,
              "--out", out["b_params"]], src, "bounds --params (a measure result)")
        must([geoattn, "bounds", "--quiet", "--params", "configs/bounds-llama2-7b.json",
              "--out", out["b_file"]], src, "bounds --params (a parameter file)")
        must([geoattn, "taxonomy", "--quiet", "--from", out["m"], "--out", out["tax"]], src,
             "taxonomy --from (measure)")
        must([geoattn, "taxonomy", "--quiet", "--from", out["metrics"], "--out", out["tax_metrics"]],
             src, "taxonomy --from (metrics)")
        # geoattn sinks: from the model with the residual stream, from a capture with every
        # query (no token texts), and the merge of two shards.
        sinks = {k: os.path.join(tmp, k + ".json") for k in ("sinks", "sinks_capture", "sinks_s0", "sinks_s1",
                                                             "sinks_merged")}
        capture_all = os.path.join(tmp, "capture-all.safetensors")
        must([geoattn, "sinks"] + docs + ["--residual", "--out", sinks["sinks"]], src, "sinks --residual")
        must([geoattn, "capture"] + docs + ["--queries", "all", "--out", capture_all], src, "capture --queries all")
        must([geoattn, "sinks", "--quiet", "--capture", capture_all, "--out", sinks["sinks_capture"]], src,
             "sinks --capture")
        for i in (0, 1):
            must([geoattn, "sinks"] + docs + ["--shard", f"{i}/2", "--out", sinks[f"sinks_s{i}"]], src,
                 f"sinks --shard {i}/2")
        must([geoattn, "merge", sinks["sinks_s0"], sinks["sinks_s1"], "--out", sinks["sinks_merged"]], src,
             "merge of sinks shards")
        for k, path in sinks.items():
            check_sinks(path, src, k)
        # geoattn intervene: a class of the taxonomy beside random sets, two interventions (the
        # rarest label of the run, so that as many other heads are left to draw from).
        with open(out["tax"], encoding="utf-8") as f:
            totals = {k: v for k, v in json.load(f)["totals"].items() if k != "heads" and v > 0}
        LABEL = min(totals, key=totals.get)
        intervened = os.path.join(tmp, "intervene.json")
        must([geoattn, "intervene"] + docs + ["--taxonomy", out["tax"], "--label", LABEL, "--random-sets", "1",
                                               "--intervention", "zero", "--intervention", "top-n:4",
                                               "--bootstrap", "50", "--out", intervened], src, "intervene")
        with open(intervened, encoding="utf-8") as f:
            doc = json.load(f)
        why = schemas.problem(doc, INTERVENE, os.path.join(src, "docs", "schema"))
        check(why is None, f"intervene: valid {INTERVENE} ({why})")
        check_broken("intervene, an unknown reading", doc, INTERVENE,
                     lambda d: d["interventions"][0].__setitem__("loss_ratio", 1.0),
                     "interventions[0].loss_ratio: unknown key (not in the schema)", src)
        # Mean ablation on a first pass (its means written beside it), shards reading those means,
        # and their merge.
        first = os.path.join(tmp, "mean.json")
        must([geoattn, "intervene"] + docs + ["--heads", "1.0,2.1", "--intervention", "mean", "--bootstrap", "20",
                                               "--out", first], src, "intervene mean")
        shards = [os.path.join(tmp, f"mean_s{i}.json") for i in range(2)]
        for i, path in enumerate(shards):
            must([geoattn, "intervene"] + docs + ["--heads", "1.0,2.1", "--intervention", "mean", "--bootstrap", "20",
                                                   "--means-from", os.path.join(tmp, "mean.means.safetensors"),
                                                   "--shard", f"{i}/2", "--out", path], src, f"intervene --shard {i}/2")
        merged = os.path.join(tmp, "mean_merged.json")
        must([geoattn, "merge"] + shards + ["--out", merged], src, "merge of intervene shards")
        for path in [first] + shards + [merged]:
            with open(path, encoding="utf-8") as f:
                why = schemas.problem(json.load(f), INTERVENE, os.path.join(src, "docs", "schema"))
            check(why is None, f"{os.path.basename(path)}: valid {INTERVENE} ({why})")

        raw = {}
        for k, path in out.items():
            with open(path, encoding="utf-8") as f:
                raw[k] = json.load(f)
        measures = ("m", "m0", "all", "mid", "s0", "s1", "merged", "metrics")
        for k in measures:
            check(problem(raw[k], MEASURE) is None,
                  f"{k}: valid {MEASURE} ({problem(raw[k], MEASURE)})")
            inline = load_measure(out[k])
            check(problem(inline, INLINE) is None,
                  f"{k}: load_measure valid {INLINE} ({problem(inline, INLINE)})")
        for k in ("b_model", "b_capture", "b_params", "b_file"):
            check(problem(raw[k], BOUNDS) is None, f"{k}: valid {BOUNDS} ({problem(raw[k], BOUNDS)})")
        for k in ("tax", "tax_metrics"):
            check(problem(raw[k], TAXONOMY) is None,
                  f"{k}: valid {TAXONOMY} ({problem(raw[k], TAXONOMY)})")

        # The group keys are those the C++ names give (metric_names.h, put_group): nothing
        # left out of the schema's patterns, nothing the patterns admit beyond them.
        curves, scalars = header_names(src, "kCurveNames"), header_names(src, "kScalarNames")
        controlled = [c for c in curves if c + "_random" in curves]
        expected = ({"samples", "samples_n", "sink_recall_corr", "sink_recall_corr_ci"}
                    | {c + s for c in curves for s in ("", "_std", "_ci")}
                    | {c + s for c in controlled for s in ("_diff", "_diff_ci")}
                    | {y + s for y in scalars for s in ("", "_std", "_ci")}
                    | {"cos_s_v0_slope_ci", "cos_s_vL_slope_ci", "cos_s_v0_slope_p", "cos_s_vL_slope_p"}  # SPEC §6's slopes' intervals and p-values
                    | {"envelopes"})  # SPEC §5's bounds of the same samples (the kappa scan is opt-in)
        check(curves and scalars and set(raw["m"]["global"]) == expected,
              f"the full run's global keys are those of kCurveNames/kScalarNames "
              f"(extra {sorted(set(raw['m']['global']) - expected)}, "
              f"missing {sorted(expected - set(raw['m']['global']))})")
        near = ["s_norm_random", "s_norm_diff", "rho0_diff", "P_rmax_random_diff", "c_sink_random",
                "P_rmax_std_ci", "sink_recall_corr_std"]
        for key in near:
            g = dict(raw["m"]["global"], **{key: []})
            check(problem(dict(raw["m"], **{"global": g}), MEASURE) == f"global.{key}: unknown key "
                  "(not in the schema)", f"global.{key} (no such key in C++) is rejected")
        bounds_names = header_names(src, "kBoundsNames")
        check(bounds_names and set(raw["b_file"]["bounds"]) == set(bounds_names),
              f"bounds keys are kBoundsNames {bounds_names}")

        # Broken documents: the first problem, with its JSON path.
        def broken(what, doc, name, edit, want):
            check_broken(what, doc, name, edit, want, src)

        m, inline = raw["m"], load_measure(out["m"])
        broken("measure, a required key removed", m, MEASURE,
               lambda d: d["global"].pop("P_rmax"), "global.P_rmax: required key missing")
        broken("measure, a head's required number removed", m, MEASURE,
               lambda d: d["heads"][5].pop("c_last_std"), "heads[5].c_last_std: required key missing")
        broken("measure, a wrong type", m, MEASURE,
               lambda d: d["heads"][3].update(samples="6"), "heads[3].samples: expected an integer, got string")
        broken("measure, a null in a curve is fine, a string is not", m, MEASURE,
               lambda d: d["global"]["R_rmin"].__setitem__(2, "0.5"),
               "global.R_rmin[2]: expected a number or null, got string")
        broken("measure, an interval of three", m, MEASURE,
               lambda d: d["global"]["P_rmax_ci"].__setitem__(4, [0, 1, 2]),
               "global.P_rmax_ci[4]: expected at most 2 item(s)")
        broken("measure, an unknown key", m, MEASURE,
               lambda d: d["settings"].update(new_flag=1), "settings.new_flag: unknown key")
        broken("measure, an unknown key in the fits", m, MEASURE,
               lambda d: d["heads"][2]["fits"]["decay"].update(r2=0.9),
               "heads[2].fits.decay.r2: unknown key")
        broken("measure, an unknown top-level key", m, MEASURE,
               lambda d: d.update(controls={}), "controls: unknown key")
        broken("measure, an array inline in the /2 layout", m, MEASURE,
               lambda d: d["layers"][1].update(P_rmax=[1.0]), "layers[1].P_rmax: unknown key")
        broken("measure, a fit that failed without why", m, MEASURE,
               lambda d: d["heads"][0]["fits"]["norms"].update(ok=False),
               "heads[0].fits.norms.why: required key missing")
        broken("measure, another schema string", m, MEASURE,
               lambda d: d.update(schema="geoattn.measure/3"), "schema: expected \"geoattn.measure/2\"")
        broken("measure, a tensor name of another group", m, MEASURE,
               lambda d: d["arrays"]["tensors"].update({"global.P_rmax": [20]}),
               "arrays.tensors[\"global.P_rmax\"]: unknown key")
        broken("inline, a curve of the wrong type", inline, INLINE,
               lambda d: d["heads"][3].update(R_rmin="x"), "heads[3].R_rmin: expected an array, got string")
        broken("inline, a head without its curve", inline, INLINE,
               lambda d: d["heads"][7].pop("cos_s_vL"), "heads[7].cos_s_vL: required key missing")
        broken("inline, sink_recall_corr on a head", inline, INLINE,
               lambda d: d["heads"][0].update(sink_recall_corr=[]), "heads[0].sink_recall_corr: unknown key")
        broken("inline, the arrays key left in", inline, INLINE,
               lambda d: d.update(arrays=m["arrays"]), "arrays: unknown key")
        broken("merge, a shard's data mistyped", raw["merged"], MEASURE,
               lambda d: d["data"]["shards"][1].update(windows=2.5),
               "data.shards[1].windows: expected an integer, got number")
        broken("metrics, a capture model with a checkpoint key", raw["metrics"], MEASURE,
               lambda d: d["model"].update(path="x"), "model.path: unknown key")
        broken("bounds, a required curve removed", raw["b_model"], BOUNDS,
               lambda d: d["heads"][1].pop("P_lo"), "heads[1].P_lo: required key missing")
        broken("bounds, an unknown key", raw["b_model"], BOUNDS,
               lambda d: d["global"].update(P_mid=[]), "global.P_mid: unknown key")
        broken("bounds, params with measured groups", raw["b_file"], BOUNDS,
               lambda d: d.update({"global": raw["b_model"]["global"]}), "global: not allowed here")
        broken("bounds, params with a model", raw["b_file"], BOUNDS,
               lambda d: d.update(model=raw["b_model"]["model"]), "model: not allowed here")
        broken("bounds, another source", raw["b_model"], BOUNDS,
               lambda d: d.update(source="file"), "source: expected one of")
        broken("taxonomy, an unknown label", raw["tax"], TAXONOMY,
               lambda d: d["heads"][4].update(label="Copier"), "heads[4].label: expected one of")
        broken("taxonomy, a count of the wrong type", raw["tax"], TAXONOMY,
               lambda d: d["layers"][0].update(Mixer="7"), "layers[0].Mixer: expected an integer")
        broken("taxonomy, a feature removed", raw["tax"], TAXONOMY,
               lambda d: d["heads"][0]["features"].pop("slope_cos_vL"),
               "heads[0].features.slope_cos_vL: required key missing")
        broken("taxonomy, not an object", [], TAXONOMY, lambda d: None,
               "top level: expected an object, got array")

        # The command line of the validator, and the plotter's use of the schemas.
        bad = copy.deepcopy(m)
        bad["timing"]["new_seconds"] = 1.0
        bad_path = os.path.join(tmp, "bad.json")
        with open(bad_path, "w") as f:
            json.dump(bad, f)
        validator = [sys.executable, "-m", "geoattn.schema", os.path.join(schema_dir, MEASURE)]
        p, _ = run(validator + [out["m"]], src, env=package_env(src))
        check(p.returncode == 0 and p.stdout.strip() == "ok", f"geoattn-schema on a result: ok ({p.stdout.strip()})")
        p, _ = run(validator + [bad_path], src, env=package_env(src))
        lines = (p.stdout + p.stderr).strip().splitlines()
        check(p.returncode == 1 and len(lines) == 1 and "timing.new_seconds: unknown key" in lines[0],
              f"geoattn-schema on a broken result: exit 1, one line ({lines})")
        # plot_figures needs matplotlib: this Python's, else Debian's (python3-matplotlib).
        has_matplotlib = importlib.util.find_spec("matplotlib") is not None
        p, _ = run([sys.executable if has_matplotlib or not os.path.exists("/usr/bin/python3") else "/usr/bin/python3",
                    os.path.join(src, "scripts", "plot_figures.py"), "--measure", bad_path,
                    "--out", os.path.join(tmp, "figs")], src)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("plot_figures: error: ")
              and "bad.json: timing.new_seconds: unknown key" in lines[0],
              f"plot_figures rejects an unknown key by the schema ({lines})")
        try:
            s = schemas._Checker({"anyOf": [True]}, schema_dir)
            s.check({}, s.root, ())
            check(False, "an unsupported keyword in a schema is an error")
        except ValueError:
            check(True, "an unsupported keyword in a schema is an error")
    finally:
        remove_scratch(tmp, args.keep)
    return finish(t0)


if __name__ == "__main__":
    sys.exit(main())
