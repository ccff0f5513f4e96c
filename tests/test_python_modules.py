#!/usr/bin/env python3
"""PythonModules (ctest): the pure-Python part of the package geoattn (python/geoattn).

geoattn.results, geoattn.schema, geoattn.summary and geoattn.figures import with nothing but
the standard library: no compiled module (geoattn._native), no torch (not even through the
package's __init__), and numpy/matplotlib only once a figure is drawn
(geoattn.figures.import_plotting). Checked with the system python3 (Debian's, with numpy +
matplotlib) and with the interpreter running this test. The scripts plot_figures.py and
summary.py (scripts/) are thin entry points: they re-export the package's names and keep their
command lines, as `python3 -m geoattn.schema` keeps the schema check's (the commands of
python/pyproject.toml run the same functions: PythonReference checks that each names one). Each
function and class of geoattn.figures is defined in one of its modules only. The package's
import graph (every import statement, deferred ones too) has no cycle, and geoattn.io (the
readers of files) is its lowest layer: it imports only itself and the standard library. Needs no
geoattn binary.

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
    if not check(p.returncode == 0, f"{exe}: geoattn.results, .schema, .summary, .figures and "
                                    f"the scripts import{why}"):
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
         "plot_figures: error: give --measure or --sinks"),
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
                    edges.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in names else target)
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
    planted = dict(graph, **{"geoattn.results": graph["geoattn.results"] | {"geoattn.tables"}})
    check("geoattn.results" in cycles(planted), "the check finds a planted cycle (results -> tables -> results)")


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


def main():
    _, src, _, _ = parse_args(__file__)
    t0 = time.time()
    for exe in interpreters():
        check_imports(src, exe)
    check_entry_points(src)
    check_one_definition(src)
    check_no_import_cycle(src)
    check_io_is_lowest(src)
    return finish(t0)


if __name__ == "__main__":
    sys.exit(main())
