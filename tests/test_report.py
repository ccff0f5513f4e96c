#!/usr/bin/env python3
"""Report (ctest): geoattn-report (python/geoattn/tools/report/) on real runs, checked in a browser.

Runs docs/report.md's CLI block (stories260K: measure, taxonomy, sinks, the page), then opens
the page in chromium --headless over the DevTools protocol (tests/cdp_client.py): no console
error, failed load or network request; every image decoded; the per-head table sorted by real
mouse clicks on its headers, rows kept whole; the page's numbers against a second route (the
arrays file read here, the JSON, the taxonomy). Also: the HTML names nothing external, bad input
(exit 2, one line naming the file, nothing written), and the committed example
docs/findings/smollm2/report.html (size, the same browser checks). Fails, naming the package,
where chromium is missing.

    tests/test_report.py [--source-dir DIR] [--bin-dir DIR] [--keep]
"""
import json
import os
import re
import struct
import sys
import time

from cdp_client import CHROMIUM_PACKAGE, Browser, find_chromium  # beside this file
from script_test_util import (check, finish, package_env, parse_args, preamble, remove_scratch, run,
                              run_doc_block)

EXAMPLE = os.path.join("docs", "findings", "smollm2", "report.html")
EXAMPLE_MAX_BYTES = 1_800_000
# Every figure a stories260K run with taxonomy and sinks gives (kappa_ranges needs --kappa-scan).
DRAWN = ("fig2_norms", "fig3_decay_mae", "fig4_profile", "fig5_pr_vs_n", "fig6_sink_recall_corr",
         "fig7_s_diagnostics", "fig8_labels_by_layer", "fig11_regimes", "heatmap_P_R_labels",
         "sinks_heatmaps", "sinks_mass_lambda", "sinks_dormant", "sinks_graph", "sinks_frames",
         "sinks_anchor_tokens", "sinks_profile")
NOT_DRAWN = ("kappa_ranges",)


def read_safetensors(path):
    """{name: (shape, flat list of float64)} of a safetensors file, read with struct alone."""
    raw = open(path, "rb").read()
    n = struct.unpack_from("<Q", raw)[0]
    out = {}
    for name, t in json.loads(raw[8:8 + n]).items():
        if name == "__metadata__" or t["dtype"] != "F64":
            continue
        a, b = t["data_offsets"]
        out[name] = (t["shape"], struct.unpack_from(f"<{(b - a) // 8}d", raw, 8 + n + a))
    return out


def static_checks(html_text, what):
    """The HTML names nothing external: no http(s):// or // in src/href, images as data URLs."""
    external = re.findall(r"""(?:src|href)\s*=\s*["']?\s*((?:https?:)?//[^"'\s>]*)""", html_text, re.I)
    check(not external, f"{what}: no external src/href ({external[:3]})")
    srcs = re.findall(r"<img[^>]*\ssrc=\"([^\"]{0,30})", html_text)
    check(srcs and all(s.startswith("data:image/png;base64,") for s in srcs),
          f"{what}: every <img> ({len(srcs)}) is a data:image/png;base64 URL")
    check("<script src" not in html_text and "<link rel=\"stylesheet\"" not in html_text,
          f"{what}: no external script or style sheet")


def load_page(b, path, what):
    """The page opened in a new tab; checks no error and no network request; its tab."""
    page = b.new_page()
    for domain in ("Runtime", "Log", "Network", "Page"):
        b.call(f"{domain}.enable", {}, page)
    url = "file://" + os.path.abspath(path)
    b.call("Page.navigate", {"url": url}, page)
    b.wait_event("Page.loadEventFired", page, timeout=60)
    b.evaluate("1", page)  # let the events of the load arrive
    mine = [(m, p) for s, m, p in b.events if s == page]
    errors = [p.get("exceptionDetails", {}).get("text", "") for m, p in mine if m == "Runtime.exceptionThrown"]
    errors += [str(p.get("args"))[:200] for m, p in mine
               if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert")]
    errors += [p["entry"].get("text", "")[:200] for m, p in mine
               if m == "Log.entryAdded" and p["entry"].get("level") == "error"]
    errors += [p.get("errorText", "") for m, p in mine if m == "Network.loadingFailed"]
    check(not errors, f"{what}: no console error, script error or failed load ({errors[:3]})")
    requests = [p["request"]["url"] for m, p in mine if m == "Network.requestWillBeSent"]
    other = [u[:80] for u in requests if u != url and not u.startswith("data:")]
    check(url in requests and not other,
          f"{what}: no network request besides the page itself ({len(requests)} requests; others {other[:3]})")
    images = b.evaluate("Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth, "
                        "i.naturalHeight])", page)
    bad = [i for i in images if not (i[1] and i[2] > 0 and i[3] > 0)]
    check(images and not bad, f"{what}: every <img> decoded ({len(images)}; not: {bad[:3]})")
    return page, images


def header_click(b, page, table, col):
    """A real click on header `col` of `table` (scrolled into view; the element at its centre
    checked to be that header)."""
    x, y, hit = b.evaluate(
        f"(() => {{ const th = document.querySelector('#{table} thead th:nth-child({col + 1})');"
        "th.scrollIntoView({block: 'center'}); const r = th.getBoundingClientRect();"
        "const x = r.left + r.width / 2, y = r.top + r.height / 2;"
        "return [x, y, document.elementFromPoint(x, y) === th]; })()", page)
    check(hit, f"the header {col} of #{table} is the element at its centre ({x:.0f}, {y:.0f})")
    b.click(x, y, page)


def table_values(b, page, table):
    """(headers, rows of the data-v / text of each cell) of a table, in displayed order."""
    return b.evaluate(
        f"[Array.from(document.querySelectorAll('#{table} thead th')).map(th => th.textContent),"
        f"Array.from(document.querySelectorAll('#{table} tbody tr')).map(r => Array.from(r.cells)"
        ".map(c => c.hasAttribute('data-v') ? c.getAttribute('data-v') : c.textContent))]", page)


def num(v):
    return float(v) if v not in ("", None) else None


def check_run_page(b, out, src):
    """The stories260K page: loads clean, images, sorting by clicks, the numbers."""
    html_path = os.path.join(out, "report.html")
    static_checks(open(html_path, encoding="utf-8").read(), "stories260K page")
    page, images = load_page(b, html_path, "stories260K page")
    alts = [i[0] for i in images]
    check(sorted(alts) == sorted(DRAWN), f"one image per figure the run gives ({len(alts)}: {alts})")
    text = b.evaluate("document.body.innerText", page)
    check(all(f"{n} not drawn" in text for n in NOT_DRAWN), f"a line saying why {NOT_DRAWN} are not drawn")

    m = json.load(open(os.path.join(out, "measure.json")))
    tax = json.load(open(os.path.join(out, "taxonomy.json")))
    arrays = read_safetensors(os.path.join(out, m["arrays"]["file"]))
    grid = m["n_grid"]
    (L, Hn, nN), P = arrays["heads.P_rmax"]
    R = arrays["heads.R_rmin"][1]
    heads, initial = table_values(b, page, "heads")
    check(heads[:2] == ["layer", "head"] and len(initial) == L * Hn,
          f"per-head table: layer, head first, one row per head ({len(initial)} of {L * Hn})")

    def head_values(rows):
        """{(layer, head): {column: value}} of the table's rows."""
        return {(int(r[0]), int(r[1])): dict(zip(heads, r)) for r in rows}

    before = head_values(initial)
    bad = []
    for (layer, head), row in before.items():
        for col, v in row.items():
            mt = re.fullmatch(r"([PR])@(\d+)", col)
            if mt:
                a = P if mt.group(1) == "P" else R
                want = a[(layer * Hn + head) * nN + grid.index(int(mt.group(2)))]
                if num(v) != want:
                    bad.append(f"L{layer}H{head} {col}: page {v}, arrays {want!r}")
    cols = [c for c in heads if re.fullmatch(r"[PR]@\d+", c)]
    check(len(cols) >= 6 and not bad, f"P@N, R@N of {len(before)} heads x {len(cols)} columns equal the "
                                      f"arrays file read directly ({bad[:3]})")
    by_lh = {(h["layer"], h["head"]): h for h in m["heads"]}
    labels = {(h["layer"], h["head"]): h["label"] for h in tax["heads"]}
    check(all(num(r["rho0"]) == by_lh[k]["rho0"] for k, r in before.items()), "rho0 of every head equals the JSON's")
    check(all((r["envelopes"] == "inside") == (not any(by_lh[k]["envelopes"]["leaves"].values()))
              for k, r in before.items()), "a head's envelopes cell is 'inside' where the JSON's leaves are empty")
    cells = b.evaluate("Array.from(document.querySelectorAll('#heads tbody tr:first-child td')).map(td => td.textContent)", page)
    per_head_ci = m["bootstrap"].get("intervals") and m["bootstrap"].get("level") == "head"
    top_row = (int(initial[0][0]), int(initial[0][1]))
    flat = arrays["heads.P_rmax_ci"][1] if per_head_ci else [0, 0]  # [L, H, N, 2]
    at = ((top_row[0] * Hn + top_row[1]) * nN + grid.index(4)) * 2 if per_head_ci else 0
    lo, hi = flat[at], flat[at + 1]
    check(per_head_ci and cells[heads.index("P@4")].endswith(f" [{lo:.4g}, {hi:.4g}]"),
          f"a P@N cell shows the head's bootstrap interval in brackets ({cells[heads.index('P@4')]!r}, {lo}, {hi})")
    check(all(r["label"] == labels[k] for k, r in before.items()), "every head's label is the taxonomy's")

    header_click(b, page, "heads", 0)
    header_click(b, page, "heads", 0)
    rows = table_values(b, page, "heads")[1]
    first = [num(r[0]) for r in rows]
    check(first == sorted(first, reverse=True) and rows != initial,
          f"two clicks on 'layer': the first column descending ({first[:3]} .. {first[-3:]})")
    rho_col = heads.index("rho0")
    header_click(b, page, "heads", rho_col)
    rows = table_values(b, page, "heads")[1]
    rho = [num(r[rho_col]) for r in rows]
    check(rho == sorted(rho) and rows != initial, f"one click on 'rho0': ascending ({rho[0]:.4g} .. {rho[-1]:.4g})")
    check(head_values(rows) == before, "sorted rows are whole: each row the same head's values")
    cls = b.evaluate(f"document.querySelector('#heads thead th:nth-child({rho_col + 1})').className", page)
    check(cls == "asc", f"the clicked header is marked ascending ({cls!r})")

    # The page opens on its answer and ends on the run's settings.
    order = b.evaluate("Array.from(document.querySelectorAll('section')).map(s => s.id)", page)
    glance = b.evaluate("document.querySelector('#answer').innerText", page)
    check(order[0] == "answer" and order[-1] == "run" and "Labels" in glance and "Top-N against random" in glance,
          f"the page opens on its answer (sections {order[:2]} .. {order[-1:]})")
    # A real click on a label filter button shows that label's rows only; "all" shows every row again.
    label_col = heads.index("label")
    counts = {}
    for k, v in labels.items():
        counts[v] = counts.get(v, 0) + 1
    want = max(counts, key=counts.get) if len(counts) == 1 else sorted(counts, key=counts.get)[0]

    def click_button(text):
        x, y, hit = b.evaluate(
            "(() => { const bt = Array.from(document.querySelectorAll('.tools[data-filter=heads] button'))"
            f".find(e => e.getAttribute('data-v') === {json.dumps(text)}); bt.scrollIntoView({{block: 'center'}});"
            "const r = bt.getBoundingClientRect(); const x = r.left + r.width / 2, y = r.top + r.height / 2;"
            "return [x, y, document.elementFromPoint(x, y) === bt]; })()", page)
        check(hit, f"the filter button {text!r} is the element at its centre")
        b.click(x, y, page)

    def visible_labels():
        return b.evaluate("Array.from(document.querySelectorAll('#heads tbody tr')).filter(r => "
                          f"getComputedStyle(r).display !== 'none').map(r => r.cells[{label_col}].textContent)", page)

    click_button(want)
    seen = visible_labels()
    check(seen and all(x == want for x in seen) and len(seen) == counts[want],
          f"a click on the label filter '{want}': its {counts[want]} rows shown, the others hidden ({len(seen)} shown)")
    click_button("")
    check(len(visible_labels()) == len(labels), "a click on 'all': every row shown again")
    # The layer, head, label and closest columns stay while the table scrolls sideways.
    b.evaluate("document.querySelector('#heads').parentElement.scrollLeft = 0", page)
    before_x = b.evaluate("[...document.querySelectorAll('#heads thead th')].map(th => th.getBoundingClientRect().left)", page)
    b.evaluate("document.querySelector('#heads').parentElement.scrollLeft = 800", page)
    after_x = b.evaluate("[...document.querySelectorAll('#heads thead th')].map(th => th.getBoundingClientRect().left)", page)
    stuck = [abs(after_x[i] - before_x[i]) < 1 for i in range(4)]
    moved = before_x[10] - after_x[10]
    check(all(stuck) and moved > 400, f"scrolled 800 px sideways: layer, head, label, closest stay ({stuck}); the "
                                      f"other columns move ({moved:.0f} px)")
    b.evaluate("document.querySelector('#heads').parentElement.scrollLeft = 0", page)
    # The column chooser hides a column's cells.
    b.evaluate(f"(() => {{ const box = document.querySelector('details.cols[data-table=heads] input[data-col=\"{heads.index('rho0')}\"]');"
               "box.checked = false; box.dispatchEvent(new Event('change')); })()", page)
    hidden = b.evaluate(f"[...document.querySelectorAll('#heads tr')].every(r => getComputedStyle(r.cells[{heads.index('rho0')}]).display === 'none')", page)
    check(hidden, "the column chooser: unticking rho0 hides its header and every cell")

    totals = {k: v for k, v in tax["totals"].items() if k != "heads"}
    shown = b.evaluate("document.querySelector('#taxonomy').innerText", page)
    check(all(re.search(rf"{k}\s+{v}\b", shown) for k, v in totals.items()),
          f"the taxonomy's totals on the page ({totals})")
    env_rows = table_values(b, page, "envelopes-groups")[1]
    check(num(env_rows[0][1]) == m["global"]["envelopes"]["nontrivial_share"],
          "the global nontrivial_share equals the JSON's")


def check_bad_input(src, env, out, tmp):
    """Exit 2, one stderr line naming the file, no page, no temporary file."""
    broken = os.path.join(tmp, "broken.json")
    open(broken, "w").write("{ not json")
    other_tax = os.path.join(tmp, "other-taxonomy.json")
    t = json.load(open(os.path.join(out, "taxonomy.json")))
    t["heads"][0]["features"]["c_sink"] += 0.5
    json.dump(t, open(other_tax, "w"))
    m = os.path.join(out, "measure.json")
    cases = {
        "a missing result": ([os.path.join(tmp, "nope.json")], "nope.json"),
        "invalid JSON": ([broken], broken),
        "another schema": ([os.path.join(out, "sinks.json")], "sinks.json"),
        "a taxonomy of another run": ([m, "--taxonomy", other_tax], other_tax),
        "a sinks file that is a measure": ([m, "--sinks", m], m),
        "--out in a missing folder": ([m, "--out", os.path.join(tmp, "no", "r.html")], "--out"),
    }
    for k, (what, (argv, name)) in enumerate(cases.items()):
        folder = os.path.join(tmp, f"bad{k}")
        os.makedirs(folder)
        target = os.path.join(folder, "r.html")
        if "--out" not in argv:
            argv = argv + ["--out", target]
        p, _ = run([sys.executable, "-m", "geoattn.report"] + argv, src, env=env)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("geoattn-report: error: ")
              and name in lines[0] and not os.listdir(folder),
              f"{what}: exit 2 (got {p.returncode}), one line naming {os.path.basename(name)}, nothing written: {lines}")


def main():
    args, src, bin_dir, geoattn = parse_args(__file__)
    t0 = time.time()
    code = preamble(t0, geoattn)  # numpy and matplotlib (rerun under an interpreter that has them), geoattn built
    if code is not None:
        return code
    chromium = find_chromium()
    check(chromium is not None, f"chromium is installed (apt-get install {CHROMIUM_PACKAGE})")
    t = time.time()
    tmp, p = run_doc_block(src, bin_dir, "report.md", "test: report-cli", timeout=300)
    try:
        out = os.path.join(tmp, "out", "report")
        if not check(p.returncode == 0 and os.path.exists(os.path.join(out, "report.html")),
                     f"docs/report.md's CLI block runs as written ({time.time() - t:.1f}s)"):
            print("  stdout:", p.stdout[-2000:], "\n  stderr:", p.stderr[-2000:])
            return finish(t0)
        left = [f for f in os.listdir(out) if f.startswith(".report.")]
        check(not left, f"no temporary file left beside the page ({left})")
        check_bad_input(src, package_env(src), out, tmp)
        example = os.path.join(src, EXAMPLE)
        size = os.path.getsize(example) if os.path.exists(example) else 0
        check(0 < size < EXAMPLE_MAX_BYTES, f"{EXAMPLE} committed, under 1.8 MB ({size:,} bytes)")
        if chromium:
            with Browser(chromium, tmp) as b:
                check_run_page(b, out, src)
                if size:
                    static_checks(open(example, encoding="utf-8").read(), "committed example")
                    load_page(b, example, "committed example")
    finally:
        remove_scratch(tmp, args.keep)
    return finish(t0)


if __name__ == "__main__":
    sys.exit(main())
