"""What a reading of docs/findings.md quotes from a committed run, computed once for every model:
each function returns {key: text}, the text as the page writes it (tests/check_findings.py).
A run is {"measure": the measure JSON with its arrays inline, "taxonomy": the taxonomy JSON}."""
import statistics


def two(x):
    """0.67: two decimals."""
    return f"{x:.2f}"


def pct(x):
    """12%, or 0.3% below 10%: a share in percent."""
    return f"{100 * x:.1f}%" if x < 0.1 else f"{100 * x:.0f}%"


def count(n):
    """1,831: an integer with thousands separators."""
    return f"{n:,}"


def _at(m, N):
    return m["n_grid"].index(N)


def setup(run):
    """The run: windows of T tokens from how many documents (the bootstrap's units), and which
    corpus gave how many windows (SPEC §7, data.per_file), named by the file's stem."""
    m = run["measure"]
    out = {"windows": count(m["data"]["windows"]), "T": count(m["settings"]["ctx"]),
           "documents": count(m["bootstrap"]["units"])}
    for f in m["data"].get("per_file", []):
        stem = f["file"].rsplit("/", 1)[-1].split(".")[0]
        corpus = "openwebtext" if stem.startswith("openwebtext") else "wikitext2" if stem.startswith("wikitext2") else stem
        out[f"windows_{corpus}"] = count(f["windows"])
    return out


def top_n_vs_random(run, Ns=(2, 8, 16)):
    """P(r_max) and R(r_min) of the top N against N random tokens, globally, and the N (other
    than 1 and the last) whose difference's interval excludes 0 for both."""
    m = run["measure"]
    g = m["global"]
    out = {f"N_{k}": count(N) for k, N in enumerate(Ns)}
    for N in Ns:
        i = _at(m, N)
        out[f"P_{N}"], out[f"P_random_{N}"] = two(g["P_rmax"][i]), two(g["P_rmax_random"][i])
        out[f"R_{N}"], out[f"R_random_{N}"] = two(g["R_rmin"][i]), two(g["R_rmin_random"][i])
    inner = [i for i, N in enumerate(m["n_grid"]) if 1 < N < m["n_grid"][-1]]
    excl = [i for i in inner if all(ci is not None and (ci[0] > 0 or ci[1] < 0)
                                    for ci in (g["P_rmax_diff_ci"][i], g["R_rmin_diff_ci"][i]))]
    out["N_significant"] = count(len(excl))
    out["N_inner"] = count(len(inner))
    # The verdict on "top-N selection sharpens separability": agrees where at every inner N both
    # differences' intervals lie above zero; else the data cannot decide.
    above = [i for i in inner if all(ci is not None and ci[0] > 0 for ci in (g["P_rmax_diff_ci"][i], g["R_rmin_diff_ci"][i]))]
    out["verdict_top_n"] = "agrees" if inner and len(above) == len(inner) else "cannot decide"
    return out


def envelopes(run):
    """SPEC §5's reading: the non-trivial share (globally, and the range over heads), the N where
    the global means leave an envelope, and per head the (head, N, P or R) means above the upper
    envelope at kappa, above the kappa-free one (from samples that select the sink), below the lower, out of
    the (head, N) pairs with 1 < N < n twice (P and R)."""
    m = run["measure"]
    e = m["global"]["envelopes"]
    heads = m["heads"]
    shares = [h["envelopes"]["nontrivial_share"] for h in heads if h["envelopes"]["nontrivial_share"] is not None]
    pairs = 2 * sum(sum(x is not None for x in h["envelopes"]["nontrivial"]) for h in heads)
    leaves = lambda *keys: sum(len(h["envelopes"]["leaves"][k]) for h in heads for k in keys)
    above_up0 = [h for h in heads if h["envelopes"]["leaves"]["P_up0"] or h["envelopes"]["leaves"]["R_up0"]]
    heads_up0 = len(above_up0)
    N_up0 = [N for h in above_up0 for k in ("P_up0", "R_up0") for N in h["envelopes"]["leaves"][k]]
    out = {"kappa": f"{m['settings']['envelopes']['kappa']:g}",
           "nontrivial_share": pct(e["nontrivial_share"]),
           "head_share_min": pct(min(shares)), "head_share_max": pct(max(shares)),
           "global_leaves_up": count(len(e["leaves"]["P_up"]) + len(e["leaves"]["R_up"])),
           "global_leaves_up0": count(len(e["leaves"]["P_up0"]) + len(e["leaves"]["R_up0"])),
           "global_leaves_N": ", ".join(str(N) for N in sorted(set(e["leaves"]["P_up"] + e["leaves"]["R_up"]))) or "none",
           "head_pairs": count(pairs), "head_above_up": count(leaves("P_up", "R_up")),
           "head_above_up0": count(leaves("P_up0", "R_up0")), "head_below_lo": count(leaves("P_lo", "R_lo")),
           "heads_above_up0": count(heads_up0), "heads": count(len(heads)),
           "layers_above_up0": ", ".join(str(l) for l in sorted({h["layer"] for h in above_up0})) or "none",
           "N_above_up0": f"{min(N_up0)} to {max(N_up0)}" if N_up0 else "none"}
    return out


def taxonomy(run):
    """geoattn's labels (four classes, SPEC §6), Mixers by interval and by sign apart, which Reset
    branch fired, the labels the leave-one-out diagnostic flags, where the Unlabelled came
    closest, and the most labels one criterion moves at +-10% and +-25% (and with the Mixer's
    slopes read by their signs)."""
    t = run["taxonomy"]
    out = {f"n_{k}": count(t["totals"][k]) for k in ("Retriever", "Mixer", "Reset", "Unlabelled")}
    out["mixers_by_interval"] = count(t["mixers"]["by_interval"])
    out["mixers_by_sign"] = count(t["mixers"]["by_sign"])
    branches = [h.get("reset_branch") for h in t["heads"] if h["label"] == "Reset"]
    out["reset_sink"] = count(branches.count("sink"))
    out["reset_spread"] = count(branches.count("spread"))
    out["flagged"] = count(t["flagged"])
    closest = {}
    for h in t["heads"]:
        if h["label"] == "Unlabelled":
            closest[h["closest"]] = closest.get(h["closest"], 0) + 1
    for k in ("Retriever", "Mixer", "Reset"):
        out[f"closest_{k}"] = count(closest.get(k, 0))
    for k in ("Retriever", "Mixer", "Reset"):
        layers = [str(r["layer"]) for r in t["layers"] if r[k] > 0]
        out[f"layers_{k}"] = ", ".join(layers) if layers else "none"
    # The layers where the Mixers are the majority, and the first layer from which every layer is
    # such a layer; the verdict on the paper's "Mixers dominate from the lower-middle layers on":
    # agrees where such a run of layers starts at or before the middle layer, else disagrees.
    rows = t["layers"]
    majority = [r["layer"] for r in rows if 2 * r["Mixer"] > sum(r[k] for k in ("Retriever", "Mixer", "Reset", "Unlabelled"))]
    out["mixer_majority_layers"] = count(len(majority))
    last = rows[-1]["layer"]
    start = last + 1
    while start - 1 in majority:
        start -= 1
    out["mixer_majority_from"] = f"layer {start}" if start <= last else "no layer"
    out["verdict_mixers_dominate"] = "agrees" if start <= (last + 1) // 2 else "disagrees"
    # The table's moves, +-10% and +-25% (SPEC §6), as the run's rows have them; every criterion's.
    factored = [r for r in t["sensitivity"] if r["factor"] is not None]
    for band in sorted({round(abs(r["factor"] - 1) * 100) for r in factored}):
        out[f"band_{band}"] = f"{band}%"
        out[f"sensitivity_{band}"] = count(max(r["changed"] for r in factored if round(abs(r["factor"] - 1) * 100) == band))
    # The criteria new to the rule (SPEC §6 revised): the Mixer's "between" and Reset's spread, at +-25%.
    for key, name in (("mixer", "mixer_between_slack"), ("spread", "reset_spread_entropy_min")):
        out[f"sensitivity_{key}_25"] = count(max(r["changed"] for r in factored if r["threshold"] == name
                                                 and round(abs(r["factor"] - 1) * 100) == 25))
    out["sensitivity_by_sign"] = count(sum(r["changed"] for r in t["sensitivity"] if r["threshold"] == "mixer_slopes_by_sign"))
    return out


def fits(run):
    """SPEC §4: the heads whose fits are identified, the median beta of those, and the fits'
    quality beside the paper's figures (sect. 3.1-3.2: norm cv mostly 0.02-0.03, decay MAE mostly
    0.05-0.10, Assumption 1's compressed sink lambda < 1): the medians over the identified heads
    of cv, MAE and lambda, and how many identified norm fits have lambda < 1."""
    heads = run["measure"]["heads"]
    ok = lambda part: [h for h in heads if h["fits"][part]["ok"]]
    betas = [h["fits"]["decay"]["beta"] for h in ok("decay")]
    med = lambda xs: two(statistics.median(xs)) if xs else "none"
    norms = ok("norms")
    return {"norms_ok": count(len(norms)), "decay_ok": count(len(ok("decay"))),
            "profile_ok": count(len(ok("profile"))),
            "beta_median": med(betas),
            "cv_median": med([h["fits"]["norms"]["cv"] for h in norms]),
            "mae_median": med([h["fits"]["decay"]["mae"] for h in ok("decay")]),
            "lambda_median": med([h["fits"]["norms"]["lambda"] for h in norms]),
            "lambda_below_1": count(sum(1 for h in norms if h["fits"]["norms"]["lambda"] < 1)),
            # The paper's own figures, as quoted beside them (sect. 3.1, Fig. 2; sect. 3.2, Fig. 3).
            "paper_cv": "0.02 to 0.03", "paper_mae": "0.05 to 0.10"}


def sink_corr(run, N=2):
    """corr(R(r_min, N), rho0) at N with its interval."""
    m = run["measure"]
    i = _at(m, N)
    g = m["global"]
    lo, hi = g["sink_recall_corr_ci"][i]
    return {f"corr_{N}": two(g["sink_recall_corr"][i]), f"corr_{N}_lo": two(lo), f"corr_{N}_hi": two(hi)}


PARTS = (setup, top_n_vs_random, envelopes, taxonomy, fits, sink_corr)
# Where the heads with the Mixer signature are the majority: quoted where a model has such layers.
MIXER_MAJORITY = ("mixer_majority_layers", "mixer_majority_from")


def facts(run, without=()):
    """Every part's facts of one run, less the keys its reading does not quote."""
    out = {}
    for part in PARTS:
        out.update(part(run))
    for key in without:
        del out[key]
    return out
