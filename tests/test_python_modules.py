#!/usr/bin/env python3
"""PythonModules (ctest): the pure-Python part of the package geoattn (python/geoattn).

geoattn.results, geoattn.schema, geoattn.summary and geoattn.figures import with nothing but
the standard library: no compiled module (geoattn._native), no torch (not even through the
package's __init__), and numpy/matplotlib only once a figure is drawn
(geoattn.figures.import_plotting). Checked with the system python3 (Debian's, with numpy +
matplotlib) and with the interpreter running this test; so do the console tools' packages
geoattn.tools.summary, .tables, .explain and .report. The scripts plot_figures.py and
summary.py (scripts/) are thin entry points: they re-export the package's names and keep their
command lines, as `python3 -m geoattn.schema` keeps the schema check's (the commands of
python/pyproject.toml run the same functions: PythonReference checks that each names one). Each
function and class of geoattn.figures is defined in one of its modules only. The package's
import graph (every import statement, deferred ones too) has no cycle, and it is in layers:
geoattn.io (the readers of files) is the lowest, importing only itself and the standard library;
then the numerics (the package's top-level modules), which import io and each other; then the
console tools (geoattn.tools.NAME, one package each, its command line in cli.py) and
geoattn.figures, which import those below and geoattn.figures but no other tool, save the
exceptions CROSS_TOOL names with their reasons; no library module imports a command line
(a tool's cli), geoattn.tools itself imports nothing, and nothing in the package imports the old
module paths kept as re-exports (SHIMS). Needs no geoattn binary.

    tests/test_python_modules.py [--source-dir DIR] [--bin-dir DIR] [--keep]
"""
import ast
import glob
import json
import os
import sys
import time

from script_test_util import check, finish, package_env, parse_args, run  # beside this file

# Run as `python3 -c PROBE <source dir>`: prints what the imports pulled in, as JSON.
PROBE = r"""
import json, os, sys
src = sys.argv[1]
sys.path.insert(0, os.path.join(src, "python"))
import geoattn
package = set(sys.modules)
import geoattn.results, geoattn.schema, geoattn.summary, geoattn.figures
import geoattn.tools.summary, geoattn.tools.tables, geoattn.tools.explain, geoattn.tools.report
before = sorted(m for m in ("torch", "geoattn._native") if m in sys.modules)
before += sorted(m for m in ("numpy", "matplotlib") if m in set(sys.modules) - package)
compiled = sorted(n for n, m in sys.modules.items() if n.split(".")[0] == "geoattn"
                  and not (getattr(m, "__file__", None) or "").endswith(".py"))
sys.path.insert(0, os.path.join(src, "scripts"))
import plot_figures, summary
f = geoattn.figures
same = {
    "plot_figures": all(getattr(plot_figures, k) is getattr(f, k) for k in f.__all__),
    "summary": summary.main is geoattn.summary.main,
}
out = {"package": os.path.dirname(geoattn.__file__), "before": before, "compiled": compiled,
       "after": sorted(m for m in ("torch", "geoattn._native") if m in sys.modules), "same": same,
       "drawers": [list(f.measure_drawers([], 8)), list(f.sink_drawers([]))],
       "figures": [list(f.FIGURES), list(f.SINK_FIGURES)]}
try:
    import numpy
    f.import_plotting()
    import matplotlib
    out["plotting"] = [matplotlib.get_backend().lower(), plot_figures.np.pi == numpy.pi]
except ImportError:
    out["plotting"] = None  # this interpreter has no numpy/matplotlib
print(json.dumps(out))
"""


def interpreters():
    """The system python3 and this test's interpreter (once each)."""
    seen, out = set(), []
    for exe in ("/usr/bin/python3", sys.executable):
        if exe and os.path.exists(exe) and os.path.realpath(exe) not in seen:
            seen.add(os.path.realpath(exe))
            out.append(exe)
    return out


def check_imports(src, exe):
    p, _ = run([exe, "-c", PROBE, src], src)
    why = f" {p.stderr[-800:]}" if p.returncode else ""
    if not check(p.returncode == 0, f"{exe}: geoattn.results, .schema, .summary, .figures, the tools "
                                    f"summary, tables, explain, report and the scripts import{why}"):
        return
    got = json.loads(p.stdout.strip().splitlines()[-1])
    here = os.path.realpath(os.path.join(src, "python", "geoattn"))
    check(os.path.realpath(got["package"]) == here,
          f"{exe}: geoattn is this checkout's python/geoattn ({got['package']})")
    check(got["before"] == [], f"{exe}: importing them pulls in no torch or geoattn._native, "
                               f"and they import no numpy or matplotlib ({got['before']})")
    check(got["compiled"] == [], f"{exe}: no compiled geoattn module imported ({got['compiled']})")
    check(got["after"] == [], f"{exe}: no torch / geoattn._native after the scripts and drawing "
                              f"set-up ({got['after']})")
    for script, ok in got["same"].items():
        check(ok, f"{exe}: scripts/{script}.py re-exports the package's names")
    check(got["drawers"] == got["figures"], f"{exe}: a drawer for every figure name")
    if got["plotting"] is not None:
        check(got["plotting"] == ["agg", True],
              f"{exe}: import_plotting gives numpy and the Agg backend ({got['plotting']})")


def check_entry_points(src):
    """The thin scripts keep their command lines; the plotter in an interpreter without numpy and
    matplotlib (python3 -S: no site-packages) says how to install them, in one line, and tries no
    other interpreter."""
    scripts = os.path.join(src, "scripts")
    cases = [
        (["plot_figures.py", "--help"], 0, "stdout", "usage: plot_figures.py"),
        (["plot_figures.py", "--out", "figs"], 2, "stderr",
         "plot_figures: error: give --measure, --sinks or --intervene"),
        (["summary.py"], 1, "stderr", "scripts/summary.py out/measure.json [out/taxonomy.json]"),
        (["-m", "geoattn.schema"], 1, "stderr", "usage: geoattn-schema SCHEMA.json DOC.json"),
    ]
    # The installed command says its own name (the console script's argv[0] is its wrapper).
    for argv0, want in (("/venv/bin/geoattn-figures", "usage: geoattn-figures [-h]"),
                        ("/src/scripts/plot_figures.py", "usage: plot_figures.py [-h]")):
        code = (f"import sys; sys.argv = [{argv0!r}]; "
                "from geoattn.figures.cli import parse_args; parse_args(['--help'])")
        p, _ = run([sys.executable, "-c", code], src, env=package_env(src))
        check(p.returncode == 0 and p.stdout.startswith(want), f"geoattn.figures' --help as "
              f"{os.path.basename(argv0)}: '{want}' (exit {p.returncode}: {p.stdout[:80]!r})")
    p, _ = run([sys.executable, "-S", os.path.join(scripts, "plot_figures.py"), "--measure", "m.json", "--out", "figs"],
               src)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and "missing in" in lines[0] and "./python[figures]" in lines[0],
          f"scripts/plot_figures.py without numpy: exit 2, one line naming ./python[figures] "
          f"(exit {p.returncode}: {p.stderr.strip()[-300:]})")
    for argv, code, stream, want in cases:
        module = argv[0] == "-m"
        script = argv if module else [os.path.join(scripts, argv[0])] + argv[1:]
        p, _ = run([sys.executable] + script, src, env=package_env(src) if module else None)
        text = getattr(p, stream)
        ok = p.returncode == code and want in text
        check(ok, f"{'python3 ' if module else 'scripts/'}{' '.join(argv)}: exit {code}, '{want}' on {stream}"
                  + ("" if ok else f" (exit {p.returncode}: {text.strip()[-300:]})"))


def check_one_definition(src):
    """No function or class of geoattn.figures is defined in two of its modules."""
    where = {}
    for path in sorted(glob.glob(os.path.join(src, "python", "geoattn", "figures", "*.py"))):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                where.setdefault(node.name, []).append(os.path.basename(path))
    twice = {k: v for k, v in where.items() if len(v) > 1}
    check(where and not twice, f"geoattn.figures: each of {len(where)} functions and classes "
                               f"defined once ({twice})")


# The package's modules with no source file in python/geoattn (the compiled module, and the file
# the build writes): `from . import _native` imports that module, not the package's __init__.
NOT_SOURCE = ("geoattn._native", "geoattn._build_info")


def import_graph(src):
    """{module: the package modules it imports}, from every import statement of python/geoattn
    (inside functions too: a cycle hidden by a deferred import is still one)."""
    root = os.path.join(src, "python")
    names = {}
    for path in glob.glob(os.path.join(root, "geoattn", "**", "*.py"), recursive=True):
        rel = os.path.relpath(path, root)[:-3].split(os.sep)
        names[".".join(rel[:-1] if rel[-1] == "__init__" else rel)] = (path, rel[-1] == "__init__")
    graph = {}
    for module, (path, is_package) in names.items():
        package = module if is_package else module.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            if isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = (base + ("." + node.module if node.module else "")) if node.level else node.module
                for alias in node.names:  # `from . import tables`: the submodule, where it is one
                    full = f"{target}.{alias.name}"
                    edges.add(full if full in names or full in NOT_SOURCE else target)
            elif isinstance(node, ast.Import):
                edges.update(a.name for a in node.names)
        graph[module] = {e for e in edges if e in names and e != module}
    return graph


def cycles(graph):
    """Every module of the graph that lies on a cycle, with one cycle through it."""
    found = {}
    for start in sorted(graph):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph[node]):
                if nxt == start:
                    found.setdefault(start, path + [start])
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    return found


def check_no_import_cycle(src):
    """No module of the package imports, through any chain (a package's __init__ aside, which
    only gathers the public names), one that imports it back."""
    graph = {m: {e for e in edges if e not in ("geoattn", "geoattn.figures")} for m, edges in import_graph(src).items()}
    found = cycles(graph)
    check(len(graph) > 30 and not found, f"the package's import graph ({len(graph)} modules, "
          f"{sum(map(len, graph.values()))} imports) has no cycle: {list(found.values())[:3] or 'none'}")
    planted = dict(graph, **{"geoattn.results": graph["geoattn.results"] | {"geoattn.tools.tables.lib"}})
    check("geoattn.results" in cycles(planted), "the check finds a planted cycle (results -> tools.tables.lib -> results)")


def io_outside(graph, files):
    """{module of geoattn.io: what it imports beyond geoattn.io and the standard library}."""
    def inside(e):
        return e == "geoattn.io" or e.startswith("geoattn.io.")
    stdlib = set(getattr(sys, "stdlib_module_names", ())) | {"__future__"}  # Python 3.10+: the names
    out = {m: sorted(e for e in graph[m] if not inside(e)) for m in graph if inside(m)}
    for m, path in files.items():
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            out[m] += [n for n in names if len(stdlib) > 1 and n.split(".")[0] not in stdlib and not inside(n)]
    return {m: e for m, e in out.items() if e}


def check_io_is_lowest(src):
    """geoattn.io, the package's readers of files, is its lowest layer: its modules import each
    other and the standard library only (no module above them, no numpy)."""
    graph = import_graph(src)
    folder = os.path.join(src, "python", "geoattn", "io")
    files = {"geoattn.io" + ("" if f == "__init__.py" else "." + f[:-3]): os.path.join(folder, f)
             for f in os.listdir(folder) if f.endswith(".py")}
    found = io_outside(graph, files)
    check(len(files) >= 3 and set(files) <= set(graph) and not found,
          f"geoattn.io ({len(files)} modules) imports only itself and the standard library"
          + (f" ({found})" if found else ""))
    planted = dict(graph, **{"geoattn.io.errors": graph["geoattn.io.errors"] | {"geoattn.results"}})
    check("geoattn.io.errors" in io_outside(planted, files), "the check finds a planted import (io.errors -> results)")


# The old module paths of the console tools, kept as thin re-exports of geoattn.tools.NAME for
# `python3 -m geoattn.NAME` and `from geoattn.NAME import ...`: nothing in the package imports them.
SHIMS = ("geoattn.compare", "geoattn.summary", "geoattn.tables", "geoattn.explain", "geoattn.report",
         "geoattn.verdicts")
# The imports from one console tool (or geoattn.figures) into another tool that the layers allow:
# (importing module or package, imported tool) -> why. Any other is a breach.
CROSS_TOOL = {
    ("geoattn.tools.summary.cli", "geoattn.tools.tables"):
        "geoattn-summary's command line hosts the per-head table's flags (--per, --sort, ...) and runs it",
    ("geoattn.tools.summary.lib", "geoattn.tools.verdicts"): "the summary's theory lines count the verdicts",
    ("geoattn.tools.report.lib", "geoattn.tools.tables"): "the page's summary tables are the table's rows",
    ("geoattn.tools.report.lib", "geoattn.tools.verdicts"): "the page's theory section shows the verdicts",
    ("geoattn.figures.curves", "geoattn.tools.verdicts"): "Fig. 5's legend counts the verdicts on the theory",
}


def _within(module, prefix):
    return module == prefix or module.startswith(prefix + ".")


def layer(module):
    """The layer of a module of the package: "package" (geoattn's __init__, which gathers the public
    names), "io", "numerics" (a top-level module), "shim" (SHIMS), "tools" (geoattn.tools' __init__),
    "geoattn.figures", or the tool's package ("geoattn.tools.compare", ...)."""
    if module == "geoattn":
        return "package"
    if _within(module, "geoattn.io"):
        return "io"
    if module in SHIMS:
        return "shim"
    if module == "geoattn.tools":
        return "tools"
    if module.startswith("geoattn.tools."):
        return ".".join(module.split(".")[:3])
    if _within(module, "geoattn.figures"):
        return "geoattn.figures"
    return "numerics"


def layer_breaches(graph):
    """[(module, import, why not)] of each import of the graph that the layers forbid."""
    out = []
    for m in sorted(graph):
        lm = layer(m)
        for e in sorted(graph[m]):
            le = layer(e)
            cli = e.startswith("geoattn.tools.") and e.endswith(".cli")
            if lm == "package":
                continue
            if lm == "tools":
                out.append((m, e, "geoattn.tools imports nothing"))
            elif le == "shim":
                out.append((m, e, "an old module path (a re-export): import geoattn.tools.NAME"))
            elif lm == "shim":
                if le != "geoattn.tools" + m[len("geoattn"):]:
                    out.append((m, e, "a re-export imports its own tool only"))
            elif cli and not m.endswith(".cli"):
                out.append((m, e, "a library imports no command line"))
            elif lm == "io":
                if le != "io":
                    out.append((m, e, "geoattn.io imports only itself"))
            elif lm == "numerics":
                if le not in ("io", "numerics"):
                    out.append((m, e, "a numerics module imports only io and the numerics"))
            elif le not in ("io", "numerics", "geoattn.figures", lm) and not any(
                    _within(m, a) and _within(e, b) for a, b in CROSS_TOOL):
                out.append((m, e, f"{lm} imports no other tool (CROSS_TOOL names the exceptions)"))
    return out


def check_layers(src):
    """The layers: io < numerics < the tools and geoattn.figures (module docstring), each tool one
    package with its command line in cli.py, geoattn.tools' __init__ importing nothing."""
    graph = import_graph(src)
    tools = sorted({layer(m) for m in graph if m.startswith("geoattn.tools.")})
    found = layer_breaches(graph)
    check(len(tools) >= 6 and not found, f"the layers hold: io < {sum(layer(m) == 'numerics' for m in graph)} "
          f"numerics modules < {len(tools)} tools and geoattn.figures, {len(CROSS_TOOL)} named exceptions"
          + (f" (breaches: {found[:5]})" if found else ""))
    folder = os.path.join(src, "python", "geoattn", "tools")
    no_cli = [t for t in tools if not os.path.exists(os.path.join(folder, t.split(".")[-1], "cli.py"))]
    check(not no_cli, f"each tool's command line is its cli.py ({no_cli or 'all have one'})")
    with open(os.path.join(folder, "__init__.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    check(ast.get_docstring(tree) and not imports, "geoattn.tools' __init__: a docstring, no import")
    unused = [k for k in CROSS_TOOL if not any(_within(m, k[0]) and _within(e, k[1]) for m in graph for e in graph[m])]
    check(not unused, f"each exception of CROSS_TOOL is used ({unused or 'all'})")
    planted = {
        "geoattn.results": "geoattn.tools.tables.lib",             # numerics -> a tool
        "geoattn.tools.compare.lib": "geoattn.tools.compare.cli",  # a library -> its command line
        "geoattn.tools.report.lib": "geoattn.tools.compare",       # a tool -> another, not named
        "geoattn.figures.runs": "geoattn.summary",                 # -> an old module path
    }
    for m, e in planted.items():
        check(any(b[:2] == (m, e) for b in layer_breaches(dict(graph, **{m: graph[m] | {e}}))),
              f"the check finds a planted breach ({m} -> {e})")


def main():
    _, src, _, _ = parse_args(__file__)
    t0 = time.time()
    for exe in interpreters():
        check_imports(src, exe)
    check_entry_points(src)
    check_one_definition(src)
    check_no_import_cycle(src)
    check_io_is_lowest(src)
    check_layers(src)
    return finish(t0)


if __name__ == "__main__":
    sys.exit(main())
