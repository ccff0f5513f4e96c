"""geoattn-report's page (one self-contained HTML page per run): its sections from a measure
result and its companions (the answer first, the summary tables, the verdicts on the theory, the
realized envelopes, the taxonomy, the figures, the sinks, the run's settings), drawn with the
HTML pieces of geoattn.tools.report.html; the command line (the inputs checked and read, the
page written whole) is geoattn.tools.report.cli.
"""
from __future__ import annotations

import os

from ...figures import cli as figures_cli
from ...figures.common import import_plotting, taxonomy_classes
from ...figures.runs import Model, SinkModel
from ...staged import Staged
from .. import tables
from . import html as H

__all__ = ["SUMMARY_NOTE", "RUN_PARTS", "figure_captions", "draw", "run_section", "verdicts_of", "answer_section",
           "theory_section", "envelope_verdicts", "taxonomy_section", "sinks_section", "build_page", "write_whole"]

# The run's sections shown as key/value tables: (heading, key of the result JSON).
# Above the summary tables: what their columns are (geoattn.tables, docs/tables.md).
SUMMARY_NOTE = ('<p class="note">The tables of <code>geoattn-summary --per head</code> and <code>--per layer</code> '
                "(docs/tables.md): P, R and F at N with their bootstrap interval in brackets, rho0, the "
                "taxonomy's label and rule, where the mean leaves each envelope, and whether each fit's "
                "assumption was identified. A cell sorts by its value.</p>")
RUN_PARTS = (("Model", "model"), ("Data", "data"), ("Settings", "settings"),
             ("Bootstrap", "bootstrap"), ("Timing", "timing"))


def figure_captions() -> dict[str, str]:
    """{figure name: its description} as geoattn-figures' --help lists them."""
    caps, name = {}, None
    for line in (figures_cli.__doc__ or "").splitlines():
        parts = line.split(None, 1)
        if line.startswith("  ") and not line.startswith("   ") and len(parts) == 2:
            name = parts[0]
            caps[name] = parts[1].strip()
        elif name and line.startswith("    ") and line.strip():
            caps[name] += " " + line.strip()
        else:
            name = None
    return caps


def draw(drawers: dict, captions: dict) -> str:
    """Each drawer's figure as an inline PNG block (or the note saying why it is skipped)."""
    plt = import_plotting()["plt"]
    out = []
    for name, drawer in drawers.items():
        fig = drawer()
        if isinstance(fig, str):
            out.append(H.figure_html(name, "", fig))
            continue
        url = H.png_data_url(fig)
        plt.close(fig)
        out.append(H.figure_html(name, captions.get(name, ""), url))
    return "".join(out)


def run_section(model: Model, inputs: dict) -> str:
    """The inputs of the page, the N grid, and the result's model, data, settings, bootstrap
    and timing as key/value tables."""
    doc = model.doc
    given = [(flag, f"{p} ({os.path.getsize(p):,} bytes)") for flag, p in inputs.items() if p]
    parts = [("Inputs of this page", given),
             ("N grid", [("n_grid", doc["n_grid"]), ("values", len(doc["n_grid"]))])]
    parts += [(heading, H.flatten(doc[key])) for heading, key in RUN_PARTS if isinstance(doc.get(key), dict)]
    return '<div class="cards">' + "".join(
        f'<div><h3>{H.esc(heading)}</h3>{H.kv_table(pairs)}</div>' for heading, pairs in parts) + "</div>"


def verdicts_of(model: Model) -> dict | str:
    """SPEC §5's verdicts against the predicted envelopes (the record model.verdicts holds, or
    geoattn.verdicts of the result), kept in model.verdicts; or the sentence saying why the run
    has none."""
    if "predict_from" not in model.doc.get("settings", {}):
        return ("This run has no predicted envelopes, so no verdict on the theory (geoattn measure "
                "--predict-from RESULT.json: the fits of a run over the same windows).")
    if model.verdicts is None:
        from .. import verdicts as V
        try:
            model.verdicts = V.envelope_verdicts(model.path)
        except (OSError, ValueError, KeyError) as e:
            return f"No verdicts: {e}"
    return model.verdicts


def answer_section(model: Model) -> str:
    """What the page answers, first: the run in three lines, the label shares (SPEC §6), and the
    readings with their words: top-N against random at a few N (SPEC §2b, the global difference's
    interval) and the verdicts on the theory (SPEC §5)."""
    doc, m, d, b = model.doc, model.doc["model"], model.doc["data"], model.doc.get("bootstrap") or {}
    files = ", ".join(os.path.basename(f) for f in d.get("files") or []) or "-"
    units = f"{b.get('units')} {b.get('unit', 'document')}s"
    intervals = (b.get("why") or f"{b.get('replicates')} bootstrap replicates over {units}, intervals down to the "
                 f"{b.get('level')} level") if b else "no bootstrap"
    lines = [f"<b>{H.esc(m.get('path'))}</b>: {m.get('layers')} layers x {m.get('heads')} heads "
             f"({m.get('kv_heads')} KV heads, head_dim {m.get('head_dim')}), T = {doc['settings'].get('ctx')}",
             f"{d.get('windows')} windows ({d.get('tokens'):,} tokens) from {H.esc(files)}, {d.get('mode')} mode",
             H.esc(intervals)]
    out = "".join(f"<p>{x}</p>" for x in lines)
    tax = model.taxonomy
    if tax is not None:
        totals, n = tax.get("totals") or {}, (tax.get("totals") or {}).get("heads") or 1
        shares = ", ".join(f"{c} {totals.get(c, 0)} ({100 * totals.get(c, 0) / n:.1f}%)" for c in taxonomy_classes(tax))
        tests = tax.get("slope_tests") or {}
        out += (f"<p><b>Labels</b> (SPEC §6, of {n} heads): {H.esc(shares)}"
                + (f"; the Mixer's slope tests adjusted across {tests['tests']} slopes" if tests.get("tests") else "")
                + "</p>")
    g, grid = doc["global"], doc["n_grid"]
    reads = []
    for N in (x for x in (4, 16, 64) if x in grid):
        i = grid.index(N)
        for key, name in (("P_rmax", "P"), ("R_rmin", "R")):
            top, rnd, ci = g.get(key), g.get(f"{key}_random"), g.get(f"{key}_diff_ci")
            if not top or not rnd or top[i] is None or rnd[i] is None:
                continue
            word = ""
            if ci and ci[i] and None not in ci[i]:
                lo, hi = ci[i]
                word = " (above random)" if lo > 0 else " (below random)" if hi < 0 else " (cannot tell from random)"
                word = f", difference [{lo:+.3f}, {hi:+.3f}]{word}"
            reads.append(f"{name}@{N} {top[i]:.3f} against random {rnd[i]:.3f}{word}")
    if reads:
        out += ("<p><b>Top-N against random</b> (the whole model, SPEC §2b; per-cell intervals): "
                + H.esc("; ".join(reads)) + "</p>")
    v = verdicts_of(model)
    if isinstance(v, str):
        out += f"<p><b>Theory</b>: {H.esc(v)}</p>"
    else:
        words = "; ".join(f"{key}: " + ", ".join(f"{c[w]} {w}" for w in c) for key, c in v["counts"].items())
        out += (f"<p><b>Theory</b> (Theorems 1-2 predicted from the fits, SPEC §5; (head, N) cells, Benjamini-"
                f"Hochberg across {v['families']} families): {H.esc(words)}</p>")
    return f'<div class="answer">{out}</div>'


def theory_section(model: Model) -> str:
    """SPEC §5's verdicts against the predicted envelopes (verdicts_of): the (head, N) cells per
    word for P and R, and per head its counts; or why the run has none."""
    from .. import verdicts as V
    v = verdicts_of(model)
    if isinstance(v, str):
        return f'<p class="note">{H.esc(v)}</p>'
    totals = [{"curve": key, **{w: c[w] for w in V.WORDS}} for key, c in v["counts"].items()]
    heads = [{"head": f"L{h['layer']}H{h['head']}",
              **{f"{key} {w}": h[key]["verdicts"].count(w) for key in ("P", "R") for w in V.WORDS}} for h in v["heads"]]
    return (f'<p class="note">The measured means against Theorems 1-2 predicted from the fits of '
            f"{H.esc(v['predict_from']['file'])} (each sample's measured a_i, rho_jk = exp(-beta |j-k|), "
            f"rho_0j = rho0): {len(v['heads'])} heads with a prediction, {v['heads_without']} without. Per "
            "(head, N) with 1 &lt; N &lt; n: above, below, within, or cannot decide, from the measured mean's "
            "bootstrap band simultaneous over N with Benjamini-Hochberg across the run's "
            f"{v['families']} families at {v['alpha']:g} (SPEC §5, §2b).</p>"
            + H.data_table(totals, "theory-totals", sortable=False)
            + f"<h3>Per head ({len(heads)})</h3>"
            + H.collapsed(f"the {len(heads)} heads' counts", H.data_table(heads, "theory-heads", sticky=1), len(heads)))


def envelope_verdicts(model: Model) -> str:
    """Per group (global, each layer, the heads that leave one): the share of (sample, N) with
    non-trivial lower bounds and the N where the mean leaves each realized envelope (SPEC §5; a
    consistency check)."""
    doc = model.doc
    if not isinstance(doc["global"].get("envelopes"), dict):
        return '<p class="note">This run has no envelopes (geoattn measure --envelopes off).</p>'
    kappa = doc["settings"].get("envelopes", {}).get("kappa")

    def verdict(name, g):
        env = g.get("envelopes") or {}
        row = {"group": name, "nontrivial_share": env.get("nontrivial_share")}
        for k, ns in (env.get("leaves") or {}).items():
            row[f"leaves {k}"] = " ".join(H.cell_text(float(x)) for x in ns) or "-"
        return row

    groups = [verdict("global", doc["global"])] + [verdict(f"layer {g['layer']}", g) for g in model.layer_list]
    heads = [verdict(f"L{h['layer']}H{h['head']}", h) for h in model.head_list]
    leaving = [h for h in heads if any(v != "-" for k, v in h.items() if k.startswith("leaves "))]
    return (f'<p class="note">kappa = {H.esc(kappa)}. nontrivial_share: the share of (sample, N), '
            "1 &lt; N &lt; n, where the lower bounds say more than N/(q+1) and 0. leaves X: the N "
            "where the mean P or R lies above an upper (below a lower) envelope X; where the sink is "
            "not selected P_up0 (kappa-free) restates P. These are the realized "
            "envelopes (each sample's own cosines): a consistency check of the algebra, not a test "
            "of the theory (SPEC §5).</p>"
            + H.data_table(groups, "envelopes-groups", sortable=False)
            + f"<h3>Heads whose mean leaves an envelope: {len(leaving)} of {len(heads)}</h3>"
            + H.collapsed(f"the {len(leaving)} heads", H.data_table(leaving, "envelopes-heads", sticky=1), len(leaving)))


def taxonomy_section(model: Model) -> str:
    """The taxonomy's thresholds, totals per label, labels per layer and its sensitivity to
    each threshold (SPEC §6)."""
    tax = model.taxonomy
    if tax is None:
        return '<p class="note">No --taxonomy given.</p>'
    classes = taxonomy_classes(tax)
    totals = tax.get("totals") or {}
    body = (f'<p class="note">from {H.esc(model.tax_path)}</p><h3>Totals</h3>'
            + H.kv_table([(c, totals.get(c, 0)) for c in classes] + [("heads", totals.get("heads"))]
                         # SPEC §6: Mixers by their slopes' intervals and by their signs, never pooled
                         + [(f"Mixer by {k[3:]}", v) for k, v in (tax.get("mixers") or {}).items()]
                         + [("flagged by leave-one-out", tax.get("flagged", 0))])
            + "<h3>Thresholds</h3>" + H.kv_table(H.flatten(tax.get("config") or {}))
            + "<h3>Labels per layer</h3>"
            + H.data_table([{"layer": r["layer"], **{c: r.get(c, 0) for c in classes}}
                            for r in tax.get("layers") or []], "taxonomy-layers"))
    sens = [{"threshold": r.get("threshold"), "factor": r.get("factor"), "value": r.get("value"),
             "changed": r.get("changed"),
             "heads": ", ".join(f"L{c['layer']}H{c['head']} {c['from']}->{c['to']}"
                                for c in r.get("heads") or []) or "-"}
            for r in tax.get("sensitivity") or []]
    body += ("<h3>Sensitivity</h3><p class=\"note\">how many heads change label when one threshold "
             "is moved (factor x its value)</p>"
             + H.collapsed(f"the {len(sens)} rows", H.data_table(sens, "taxonomy-sensitivity", sticky=2), len(sens), 40))
    return body


def sinks_section(sinks: SinkModel, captions: dict) -> str:
    """The sinks result's data and settings, and its figures (SPEC §9)."""
    doc = sinks.doc
    facts = [("file", sinks.path), ("model", doc["model"].get("path")), ("T", doc["T"]),
             ("windows", doc["windows"])] + H.flatten({"settings": doc["settings"]})
    facts = [(k, v) for k, v in facts if not k.startswith("settings.rule")]
    return (H.kv_table(facts) + f'<p class="note">{H.esc(doc.get("convention_note", ""))}</p>'
            + draw(figures_cli.sink_drawers([sinks]), captions))


def build_page(model: Model, sinks: SinkModel | None, inputs: dict) -> str:
    """The whole page of one run."""
    captions = figure_captions()
    per_layer = tables.rows(model.doc, model.taxonomy, per="layer")
    per_head = tables.rows(model.doc, model.taxonomy, per="head")
    note = tables.intervals_note(model.doc, "head")
    first = ["layer", "head", "label", "closest"] if model.taxonomy is not None else ["layer", "head"]
    head_columns = first + [c for c in (per_head[0] if per_head else {}) if c not in first]
    sections = [
        ("answer", "At a glance", answer_section(model)),
        ("summary", "Summary", SUMMARY_NOTE + (f'<p class="note">{H.esc(note)}</p>' if note else "")
         + "<h3>Per layer</h3>" + H.data_table(per_layer, "layers", sticky=1)
         + f"<h3>Per head ({len(per_head)}; click a column header to sort)</h3>"
         + H.data_table(per_head, "heads", columns=head_columns, sticky=len(first),
                        filter_by="label" if model.taxonomy is not None else None, choosable=True)),
        ("theory", "Theory", theory_section(model)),
        ("envelopes", "Realized envelopes", envelope_verdicts(model)),
        ("taxonomy", "Taxonomy", taxonomy_section(model)),
        ("figures", "Figures",
         draw(figures_cli.measure_drawers([model], figures_cli.DEFAULT_HEATMAP_N), captions)),
    ]
    if sinks is not None:
        sections.append(("sinks", "Sinks", sinks_section(sinks, captions)))
    sections.append(("run", "Run: settings, data, timing", run_section(model, inputs)))
    return H.page(f"geoattn report: {model.model_path}", sections)


def write_whole(path: str, text: str) -> None:
    """text into path, whole or not at all (geoattn.staged)."""
    with Staged(".report.") as staged:
        with open(staged.path(path, ".html.tmp"), "w", encoding="utf-8") as f:
            f.write(text)
    staged.commit()
