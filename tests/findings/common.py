"""The claims of docs/findings.md, as records computed from a committed run, once for every model.

A run is {"measure": the measure JSON with its arrays inline, "taxonomy": the taxonomy JSON,
"verdicts": geoattn.verdicts' record of the same result (docs/findings/MODEL/verdicts.json)}.
Each part returns one claim record (`claim`): its id, its statement (a template filled with its
numbers, as the page writes them), the numbers, and, where it judges the paper, the verdict word
its rule derives from the files and the rule in words. tests/check_findings.py renders a
reading from the records (`render`) and fails where the page or docs/findings/MODEL/claims.json
differs. Standard library only.
"""
import math
import statistics
import textwrap

# SPEC §5's verdict words on the theory (geoattn.verdicts.WORDS), and the claims' verdict words.
CELL_WORDS = ("above", "below", "within", "cannot decide")
VERDICTS = ("agrees", "disagrees", "cannot decide")


def two(x):
    """0.67: two decimals."""
    return f"{x:.2f}"


def pct(x):
    """12%, or 0.3% below 10%: a share in percent."""
    return f"{100 * x:.1f}%" if x < 0.1 else f"{100 * x:.0f}%"


def count(n):
    """1,831: an integer with thousands separators."""
    return f"{n:,}"


def listed(xs):
    """"2, 3, 5", or "none"."""
    return ", ".join(str(x) for x in xs) if xs else "none"


def claim(id, template, numbers, verdict=None, rule=None):
    """A claim record: the statement is `template` filled with `numbers` (and the verdict in bold
    at {verdict}); a verdict is one of VERDICTS, derived by `rule`."""
    if verdict is not None and verdict not in VERDICTS:
        raise ValueError(f"{id}: verdict {verdict!r} is not one of {VERDICTS}")
    statement = template.format(**numbers, verdict=f"**{verdict}**" if verdict else "")
    return {"id": id, "statement": statement, "numbers": numbers, "verdict": verdict, "rule": rule}


def _at(m, N):
    return m["n_grid"].index(N)


def setup(run, title):
    """The run: windows of T tokens from how many documents (the bootstrap's units), and which
    corpus gave how many windows (SPEC §7, data.per_file)."""
    m = run["measure"]
    corpora = {"openwebtext": 0, "wikitext2": 0}
    for f in m["data"].get("per_file", []):
        stem = f["file"].rsplit("/", 1)[-1].split(".")[0]
        corpora["openwebtext" if stem.startswith("openwebtext") else "wikitext2" if stem.startswith("wikitext2") else stem] = f["windows"]
    numbers = {"title": title, "windows": count(m["data"]["windows"]), "T": count(m["settings"]["ctx"]),
               "documents": count(m["bootstrap"]["units"]), "windows_openwebtext": count(corpora["openwebtext"]),
               "windows_wikitext2": count(corpora["wikitext2"]), "kappa": f"{m['settings']['envelopes']['kappa']:g}",
               "folder": run["name"]}
    return claim("setup", "**What {title} shows** ({windows} doc windows of T = {T} from {documents} documents: "
                 "{windows_openwebtext} from OpenWebText, {windows_wikitext2} from WikiText-2; the default flags with "
                 "intervals per head, the envelopes at kappa = {kappa} predicted from the fits of a first run over the "
                 "same windows; "
                 "`docs/findings/{folder}/` holds the run's result files):", numbers)


def top_n_vs_random(run, Ns=(2, 8, 16)):
    """P(r_max) and R(r_min) of the top N against N random tokens, globally, and the N (other
    than 1 and the last) whose difference's interval excludes 0 for both."""
    m = run["measure"]
    g = m["global"]
    n = {f"N_{k}": count(N) for k, N in enumerate(Ns)}
    for N in Ns:
        i = _at(m, N)
        n[f"P_{N}"], n[f"P_random_{N}"] = two(g["P_rmax"][i]), two(g["P_rmax_random"][i])
        n[f"R_{N}"], n[f"R_random_{N}"] = two(g["R_rmin"][i]), two(g["R_rmin_random"][i])
    inner = [i for i, N in enumerate(m["n_grid"]) if 1 < N < m["n_grid"][-1]]
    excl = [i for i in inner if all(ci is not None and (ci[0] > 0 or ci[1] < 0)
                                    for ci in (g["P_rmax_diff_ci"][i], g["R_rmin_diff_ci"][i]))]
    above = [i for i in inner if all(ci is not None and ci[0] > 0 for ci in (g["P_rmax_diff_ci"][i], g["R_rmin_diff_ci"][i]))]
    n["N_significant"], n["N_inner"] = count(len(excl)), count(len(inner))
    rule = "agrees where at every N between the first and the last both differences' intervals lie above 0; else cannot decide"
    verdict = "agrees" if inner and len(above) == len(inner) else "cannot decide"
    return claim("top_n", "**Top-N selection sharpens separability.** P(r_max) {P_2} against {P_random_2} for N random "
                 "tokens at N = {N_0}, {P_8} against {P_random_8} at N = {N_1}, {P_16} against {P_random_16} at N = {N_2}; "
                 "R(r_min) {R_2} against {R_random_2}, {R_8} against {R_random_8}, {R_16} against {R_random_16}. Both "
                 "differences' intervals exclude zero at {N_significant} of the {N_inner} N between the first and the "
                 "last: {verdict}.", n, verdict, rule)


def _t(a, b, se):
    """(a - b) / se, or None where undefined."""
    if a is None or b is None or se is None or not se > 0:
        return None
    return (a - b) / se


def cell_words(run):
    """SPEC §5's verdict words per (head, curve, N), re-derived from the verdicts record and the
    result: the record's mean (equal to the result's within 1e-9) and standard error, the result's
    predicted envelopes, Benjamini-Hochberg over the record's family p-values at its alpha, and
    each passing family's critical value (geoattn.verdicts' rule). Fails (AssertionError) where
    the record's own words differ."""
    m, v = run["measure"], run["verdicts"]
    by_lh = {(h["layer"], h["head"]): h for h in m["heads"]}
    fams = [(i, key, word, f["p"]) for i, h in enumerate(v["heads"]) for key in ("P", "R")
            for word, f in h[key]["families"].items()]
    tested = sorted(p for *_, p in fams if p is not None)
    k = max([j + 1 for j, p in enumerate(tested) if p <= v["alpha"] * (j + 1) / len(tested)], default=0)
    threshold = v["alpha"] * k / len(tested) if k else 0.0
    words = {}
    for i, h in enumerate(v["heads"]):
        measured = by_lh[(h["layer"], h["head"])]
        pe = measured["predicted_envelopes"]
        for key, name, lo_key, up_key in (("P", "P_rmax", "P_lo", "P_up"), ("R", "R_rmin", "R_lo", "R_up")):
            c = h[key]
            out = []
            for g, judged in enumerate(c["judged"]):
                if not judged:
                    out.append(None)
                    continue
                mean, se = c["mean"][g], c["se"][g]
                assert abs(mean - measured[name][g]) <= 1e-9, (h["layer"], h["head"], key, g)
                lo, up = pe[lo_key][g], pe[up_key][g]
                ts = {"above": _t(mean, up, se), "below": _t(lo, mean, se),
                      "within": None if _t(mean, lo, se) is None else min(_t(mean, lo, se), _t(up, mean, se))}
                word = "cannot decide"
                for w, t in ts.items():
                    f = c["families"][w]
                    if (c["live"][g] and f["p"] is not None and f["p"] <= threshold and t is not None
                            and t > f["critical"]):
                        word = w
                out.append(word)
            assert out == c["verdicts"], (h["layer"], h["head"], key)
            words[(h["layer"], h["head"], key)] = out
    return words


def theory(run):
    """SPEC §5: the measured means against the predicted envelopes, per head and N, in the four
    words of geoattn.verdicts, counted; the verdict on "the measurements lie within the theory's
    envelopes": disagrees where any cell is above or below, agrees where none is and at least half
    of the cells are within, else cannot decide."""
    m, v = run["measure"], run["verdicts"]
    words = cell_words(run)
    n = {"heads_predicted": count(len(v["heads"])), "heads": count(len(m["heads"])),
         "heads_without": count(v["heads_without"]), "families": count(v["families"]),
         "alpha": f"{v['alpha']:g}"}
    cells = {}
    for key in ("P", "R"):
        all_ = [w for (l, h, k), ws in words.items() if k == key for w in ws if w is not None]
        for w in CELL_WORDS:
            n[f"{key}_{w.replace(' ', '_')}"] = count(all_.count(w))
        cells[key] = all_
    n["cells"] = count(len(cells["P"]))
    # In-sample: the prediction took this run's own fits (the same windows).
    source = m["settings"]["predict_from"]
    same = all(source["beta"][h["layer"]][h["head"]] == (h["fits"]["decay"]["beta"] if h["fits"]["decay"]["ok"] else None)
               and source["rho0"][h["layer"]][h["head"]] == h["rho0"] for h in m["heads"])
    assert same, "settings.predict_from is not this run's own fits"
    both = cells["P"] + cells["R"]
    off = sum(both.count(w) for w in ("above", "below"))
    rule = ("disagrees where some (head, N) mean lies above or below a predicted envelope beyond its band; agrees "
            "where none does and at least half of the cells are within; else cannot decide")
    verdict = "disagrees" if off else "agrees" if 2 * both.count("within") >= len(both) and both else "cannot decide"
    return claim("theory", "**Against the theory's envelopes** (SPEC §5: Theorems 1-2 with each sample's measured a_i, "
                 "rho_jk = exp(-beta |j-k|) and rho_0j = rho0 from its head's own fits; {heads_predicted} of {heads} "
                 "heads have them, {heads_without} have no identified decay). Per head and N (the {cells} (head, N) "
                 "with 1 < N < n), the measured mean's bootstrap band is simultaneous over N and Benjamini-Hochberg "
                 "runs across the {families} families at {alpha}: P(r_max) lies above the upper envelope in {P_above} "
                 "cells, below the lower in {P_below}, within both in {P_within}, and the data cannot decide in "
                 "{P_cannot_decide}; R(r_min) in {R_above}, {R_below}, {R_within} and {R_cannot_decide}. That the "
                 "measurements lie within the envelopes: {verdict}.", n, verdict, rule)


def realized(run):
    """SPEC §5's realized envelopes, a consistency check: the non-trivial share (globally, and the
    range over heads), the share of (sample, N), 1 < N < n, with the sink selected, and per head
    the (head, N, P or R) means above the kappa-free upper envelope."""
    m = run["measure"]
    e = m["global"]["envelopes"]
    heads = m["heads"]
    shares = [h["envelopes"]["nontrivial_share"] for h in heads if h["envelopes"]["nontrivial_share"] is not None]
    pairs = 2 * sum(sum(x is not None for x in h["envelopes"]["nontrivial"]) for h in heads)
    above_up0 = [h for h in heads if h["envelopes"]["leaves"]["P_up0"] or h["envelopes"]["leaves"]["R_up0"]]
    open_ = [g for g, x in enumerate(e["nontrivial"]) if x is not None]
    sink_in = sum(e["sink_in"]["samples"][g] for g in open_)
    total = sum(e["samples"][g] for g in open_)
    n = {"nontrivial_share": pct(e["nontrivial_share"]), "head_share_min": pct(min(shares)),
         "head_share_max": pct(max(shares)), "sink_in_share": pct(sink_in / total) if total else "none",
         "head_pairs": count(pairs),
         "head_above_up0": count(sum(len(h["envelopes"]["leaves"][k]) for h in heads for k in ("P_up0", "R_up0"))),
         "heads_above_up0": count(len(above_up0)), "heads": count(len(heads))}
    return claim("realized", "**The realized envelopes** (each sample's own cosines: a consistency check of the algebra, "
                 "no verdict on the theory). Their lower bounds are non-trivial (`Delta > 0`) in {nontrivial_share} of "
                 "the (sample, N) pairs (per head {head_share_min} to {head_share_max}); the sink is selected in "
                 "{sink_in_share} of the (sample, N) with 1 < N < n, and where it is not, the kappa-free upper envelope "
                 "restates the measured P. Per head, {head_above_up0} of {head_pairs} (head, N, P or R) means lie above "
                 "that envelope, in {heads_above_up0} of {heads} heads.", n)


def sink_corr(run, N=2):
    """corr(R(r_min, N), rho0) at N with its interval, and what the interval says of its sign."""
    m = run["measure"]
    i = _at(m, N)
    g = m["global"]
    lo, hi = g["sink_recall_corr_ci"][i]
    sign = ("positive, its interval above zero" if lo > 0 else "negative, its interval below zero" if hi < 0
            else "its interval holds zero")
    n = {"N": count(N), "corr": two(g["sink_recall_corr"][i]), "lo": two(lo), "hi": two(hi), "sign": sign}
    return claim("sink_corr", "**corr(R(r_min, N), rho0)** at N = {N}: {corr} (interval {lo} to {hi}): {sign}.", n)


def fits(run):
    """SPEC §4: the heads whose fits are identified, the median beta of those, and the fits'
    quality beside the paper's figures (sect. 3.1-3.2: norm cv mostly 0.02-0.03, decay MAE mostly
    0.05-0.10, Assumption 1's compressed sink lambda < 1): the medians over the identified heads
    of cv, MAE and lambda, and how many identified norm fits have lambda < 1."""
    heads = run["measure"]["heads"]
    ok = lambda part: [h for h in heads if h["fits"][part]["ok"]]
    med = lambda xs: two(statistics.median(xs)) if xs else "none"
    norms = ok("norms")
    profile_why = [h["fits"]["profile"].get("why", "") for h in heads if not h["fits"]["profile"]["ok"]]
    why = ("every profile that is not identified has an oscillation phase too short to fix omega and eta"
           if profile_why and all("oscillation phase" in w for w in profile_why)
           else "the others are not identified, each head's `why` saying which test failed")
    n = {"norms_ok": count(len(norms)), "decay_ok": count(len(ok("decay"))), "profile_ok": count(len(ok("profile"))),
         "beta_median": med([h["fits"]["decay"]["beta"] for h in ok("decay")]), "why": why,
         "cv_median": med([h["fits"]["norms"]["cv"] for h in norms]),
         "mae_median": med([h["fits"]["decay"]["mae"] for h in ok("decay")]),
         "lambda_median": med([h["fits"]["norms"]["lambda"] for h in norms]),
         "lambda_below_1": count(sum(1 for h in norms if h["fits"]["norms"]["lambda"] < 1)),
         # The paper's own figures (sect. 3.1, Fig. 2; sect. 3.2, Fig. 3).
         "paper_cv": "0.02 to 0.03", "paper_mae": "0.05 to 0.10"}
    return claim("fits", "**The assumptions, where the data identifies them** (SPEC §4): the norm fit in {norms_ok} "
                 "heads, the decay in {decay_ok} (median beta {beta_median}), the four-phase profile in {profile_ok}; "
                 "{why}. Their quality beside the paper's (sect. 3.1, sect. 3.2): the median norm cv {cv_median}, where "
                 "the paper's heads sit mostly at {paper_cv}; the median decay MAE {mae_median}, where the paper's sit "
                 "mostly at {paper_mae}; the median lambda {lambda_median}, below 1 (Assumption 1's compressed sink) in "
                 "{lambda_below_1} of the {norms_ok} norm fits.", n)


def taxonomy(run):
    """geoattn's labels (four classes, SPEC §6), Mixers by interval and by sign apart, which Reset
    branch fired, the labels the leave-one-out diagnostic flags, where the Unlabelled came
    closest, the most labels one criterion moves at +-10% and +-25% (and with the Mixer's slopes
    read by their signs), and the verdict on the paper's Fig. 8 claim that Mixers dominate from
    the lower-middle layers on."""
    t = run["taxonomy"]
    n = {f"n_{k}": count(t["totals"][k]) for k in ("Retriever", "Mixer", "Reset", "Unlabelled")}
    n["mixers_by_interval"], n["mixers_by_sign"] = count(t["mixers"]["by_interval"]), count(t["mixers"]["by_sign"])
    n["slope_tests"], n["slope_fdr"] = count(t["slope_tests"]["tests"]), f'{t["slope_tests"]["fdr"]:g}'
    branches = [h.get("reset_branch") for h in t["heads"] if h["label"] == "Reset"]
    n["reset_sink"], n["reset_spread"] = count(branches.count("sink")), count(branches.count("spread"))
    n["flagged"] = count(t["flagged"])
    closest = {}
    for h in t["heads"]:
        if h["label"] == "Unlabelled":
            closest[h["closest"]] = closest.get(h["closest"], 0) + 1
    for k in ("Retriever", "Mixer", "Reset"):
        n[f"closest_{k}"] = count(closest.get(k, 0))
        n[f"layers_{k}"] = listed([r["layer"] for r in t["layers"] if r[k] > 0])
    rows = t["layers"]
    majority = [r["layer"] for r in rows if 2 * r["Mixer"] > sum(r[k] for k in ("Retriever", "Mixer", "Reset", "Unlabelled"))]
    n["mixer_majority_layers"] = count(len(majority))
    last = rows[-1]["layer"]
    start = last + 1
    while start - 1 in majority:
        start -= 1
    n["mixer_majority_from"] = f"layer {start}" if start <= last else "no layer"
    factored = [r for r in t["sensitivity"] if r["factor"] is not None]
    band = lambda b, name=None: count(max(r["changed"] for r in factored if round(abs(r["factor"] - 1) * 100) == b
                                          and (name is None or r["threshold"] == name)))
    n["sensitivity_10"], n["sensitivity_25"] = band(10), band(25)
    n["sensitivity_mixer_25"], n["sensitivity_spread_25"] = band(25, "mixer_between_slack"), band(25, "reset_spread_entropy_min")
    n["sensitivity_by_sign"] = count(sum(r["changed"] for r in t["sensitivity"] if r["threshold"] == "mixer_slopes_by_sign"))
    rule = ("agrees where the Mixers are the majority of every layer from one at or before the middle layer on; "
            "else disagrees")
    verdict = "agrees" if start <= (last + 1) // 2 else "disagrees"
    return claim("taxonomy", "**Head classes** (geoattn's rules, SPEC §6; beside the paper's Fig. 8 only class by "
                 "class): {n_Retriever} Retriever (layers {layers_Retriever}); {n_Mixer} Mixer (layers {layers_Mixer}), "
                 "{mixers_by_interval} by their slopes' intervals (each slope's test adjusted by Benjamini-Hochberg across "
                 "all {slope_tests} slopes of the heads, at {slope_fdr}) and {mixers_by_sign} by their signs; {n_Reset} Reset "
                 "(layers {layers_Reset}), {reset_sink} by the sink dominating and {reset_spread} by the mass broadly "
                 "spread; {n_Unlabelled} Unlabelled (closest to Retriever {closest_Retriever}, to Mixer {closest_Mixer}, "
                 "to Reset {closest_Reset}). The leave-one-out diagnostic flags {flagged} labels. Moving one criterion "
                 "by 10% changes at most {sensitivity_10} labels, by 25% at most {sensitivity_25} (the Mixer's "
                 "\"between\" band {sensitivity_mixer_25}, Reset's spread threshold {sensitivity_spread_25}); reading "
                 "the Mixers' slopes by their signs changes {sensitivity_by_sign}. Mixers are the majority in "
                 "{mixer_majority_layers} layers, and the first layer from which they are the majority in every layer "
                 "is {mixer_majority_from}: against the paper's Mixers dominating from the lower-middle layers on, "
                 "{verdict}.", n, verdict, rule)


PARTS = (top_n_vs_random, theory, realized, sink_corr, fits, taxonomy)


def claims(run, title):
    """Every claim of one run's reading, in the page's order (the setup first)."""
    return [setup(run, title)] + [part(run) for part in PARTS]


def render(records):
    """A reading's text from its claim records: the setup line, then a bullet per claim, wrapped
    at 100 columns."""
    head = textwrap.fill(records[0]["statement"], 100, break_on_hyphens=False)
    bullets = [textwrap.fill(r["statement"], 100, initial_indent="- ", subsequent_indent="  ", break_on_hyphens=False)
               for r in records[1:]]
    return "\n" + head + "\n\n" + "\n".join(bullets) + "\n"


def across(runs):
    """The claim set beside the paper's Fig. 8 over every run: on how many models Mixers dominate
    from the middle layers on (their taxonomy verdicts), how many show most heads Unlabelled, and
    the threshold that moves the most labels on which model."""
    verdicts = [claim_["verdict"] for name, run in runs for claim_ in [taxonomy(run)]]
    unlabelled = sum(1 for _, run in runs if 2 * run["taxonomy"]["totals"]["Unlabelled"] > len(run["taxonomy"]["heads"]))
    moves = []
    for name, run in runs:
        for r in run["taxonomy"]["sensitivity"]:
            if r["factor"] is not None:
                moves.append((r["changed"], r["threshold"], name))
    most = max(moves)
    n = {"models": count(len(runs)), "dominate": count(verdicts.count("agrees")), "unlabelled": count(unlabelled),
         "most_threshold": most[1], "most_model": most[2], "most_changed": count(most[0])}
    return claim("across", "On {dominate} of the {models} models do Mixers dominate from the middle layers on (each "
                 "reading's verdict), and on {unlabelled} of them most heads show none of the paper's signatures "
                 "(Unlabelled). The criterion whose moves change the most labels is `{most_threshold}`, on "
                 "{most_model}: {most_changed} labels at most.", n)
