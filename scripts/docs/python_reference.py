#!/usr/bin/env python3
"""docs/python.md and docs/python-tools.md from the docstrings of the Python package (python/geoattn), read with `ast`
alone: nothing is imported, so it runs on a bare python3 without torch, numpy or the compiled
module. The page is never edited by hand, so it cannot drift from the code; the ctest
PythonReference runs --check to fail when it has.

    python_reference.py [SOURCE_DIR]            print the page
    python_reference.py [SOURCE_DIR] --write    write SOURCE_DIR/docs/python.md and python-tools.md
    python_reference.py [SOURCE_DIR] --check    exit 1 with a diff when docs/python.md differs

SOURCE_DIR: the repository (default: the one this script is in). The page: the commands of
python/pyproject.toml's [project.scripts] (each with its function and the first paragraph of
its module's docstring), the package docstring, then each name of geoattn.__all__ in its order (functions with their signatures as
written, the classes Measure and Sinks with their public methods and properties), then the
module geoattn.hf whole and the examples of python/examples (each file whole); then the readers and figures (geoattn.results, geoattn.schema,
geoattn.summary, geoattn.figures): each one's docstring and a table of what it exports (its
__all__ where it has one, else every name without a leading underscore; geoattn.figures: the
names its __init__ exports, from its modules), the signature and the docstring's first
paragraph. A public function, class, method or property without a docstring, in these modules
or in geoattn.figures' modules, is an error (exit 1, one line naming each); so is a function or
method the page shows (a class: its constructor too) without a type annotation on each
parameter (self and cls aside) and on its return (a constructor's aside).
"""
import argparse
import ast
import os
import re
import sys

from generated import anchor, check, write_whole

PAGE = os.path.join("docs", "python.md")
TOOLS_PAGE = os.path.join("docs", "python-tools.md")  # the readers, tools and figures (tables of exports)
PACKAGE = os.path.join("python", "geoattn")
PYPROJECT = os.path.join("python", "pyproject.toml")
REGENERATE = "python3 scripts/docs/python_reference.py --write"
# The modules after the package's own names, in this order: the first in full, the others as
# tables of their exports.
MODULES = ("geoattn.hf", "geoattn.results", "geoattn.schema", "geoattn.summary", "geoattn.tables", "geoattn.compare", "geoattn.verdicts",
           "geoattn.report",
           "geoattn.figures")
FULL = ("geoattn.hf",)
EXAMPLES = os.path.join("python", "examples")  # each file shown whole after geoattn.hf (its tests run it)
WIDTH = 96  # a signature longer than this is wrapped after a comma


class Missing(Exception):
    """What stops the page: one line each, a dotted name alone for one without a docstring."""


def ref(heading):
    """A link target to the heading, resolved by link_anchors once the page is whole."""
    return f"\0{heading}\0"


def link_anchors(text):
    """Replaces each ref() by the anchor GitHub gives its heading: anchor(), with -1, -2, ...
    after a repeated one (geoattn.sinks and geoattn.Sinks), in the page's order."""
    slugs, seen, fence = {}, {}, None
    for line in text.split("\n"):
        if line.startswith("```"):
            marks = re.match(r"`+", line).group()
            fence = None if fence == marks and line == marks else fence or marks
        elif fence is None and line.startswith("#"):
            heading = line.lstrip("#").strip()
            slug = anchor(heading)
            slugs[heading] = slug + (f"-{seen[slug]}" if seen.get(slug) else "")
            seen[slug] = seen.get(slug, 0) + 1
    return re.sub("\0([^\0]*)\0", lambda m: slugs[m.group(1)], text)


class Module:
    """One source file of the package: its tree, its __all__ (None without one) and what it
    imports from the package's other modules ({name: (module, name there)})."""

    def __init__(self, root, name):
        parts = name.split(".")
        base = os.path.join(root, "python", *parts)
        self.is_package = os.path.isdir(base)
        self.path = os.path.join(base, "__init__.py") if self.is_package else base + ".py"
        self.name = name
        with open(self.path, encoding="utf-8") as f:
            self.source = f.read()
        self.tree = ast.parse(self.source, self.path)
        self.defs = {n.name: n for n in self.tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        self.all = None
        self.imports = {}
        package = name if self.is_package else name.rpartition(".")[0]
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                self.all = list(ast.literal_eval(node.value))
            elif isinstance(node, ast.ImportFrom) and node.level:
                origin = package.split(".")[:len(package.split(".")) - node.level + 1]
                origin = ".".join(origin + ([node.module] if node.module else []))
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (origin, alias.name)

    def public(self):
        """The functions and classes this module defines and exports, in __all__'s order where it
        has one, else in the source's."""
        names = self.all if self.all is not None else [n for n in self.defs if not n.startswith("_")]
        return [self.defs[n] for n in names if n in self.defs]

    def segment(self, node):
        """The source text of node, exactly as written (quotes, spacing)."""
        return ast.get_source_segment(self.source, node)


def docstring(node, dotted, missing):
    """The node's docstring, dedented, in a text block (verbatim: its own layout kept); none
    adds dotted to missing."""
    text = ast.get_docstring(node)  # inspect.cleandoc'ed
    if not text:
        missing.append(dotted)
        return []
    fence = "```" if "```" not in text else "````"
    return ["", fence + "text", text, fence]


def annotations(fn, dotted, missing):
    """Adds 'dotted: no annotation on ...' to missing, naming each parameter of fn (a method's
    self or cls aside) and its return (a constructor's aside) that the source leaves unannotated."""
    a = fn.args
    args = a.posonlyargs + a.args + ([a.vararg] if a.vararg else []) + a.kwonlyargs + ([a.kwarg] if a.kwarg else [])
    bare = [arg.arg for i, arg in enumerate(args) if arg.annotation is None and not (i == 0 and arg.arg in ("self", "cls"))]
    if fn.returns is None and fn.name != "__init__":
        bare.append("return")
    if bare:
        missing.append(f"{dotted}: no annotation on {', '.join(bare)}")


def wrap(prefix, params, suffix=""):
    """prefix(params...)suffix on one line, or wrapped after commas under the open parenthesis."""
    one = f"{prefix}({', '.join(params)}){suffix}"
    if len(one) <= WIDTH or not params:
        return one
    lines, line, indent = [], prefix + "(", " " * (len(prefix) + 1)
    for i, p in enumerate(params):
        piece = p + (", " if i + 1 < len(params) else f"){suffix}")
        if len(line) + len(piece.rstrip()) > WIDTH and line.strip() not in ("", prefix + "("):
            lines.append(line.rstrip())
            line = indent
        line += piece
    lines.append(line.rstrip())
    return "\n".join(lines)


def parameters(module, fn, drop_self=False):
    """The parameters of fn as the source writes them: annotations and defaults verbatim."""
    a = fn.args

    def one(arg, default=None, star=""):
        text = star + arg.arg
        if arg.annotation is not None:
            text += ": " + module.segment(arg.annotation)
        if default is not None:
            text += (" = " if arg.annotation is not None else "=") + module.segment(default)
        return text

    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out = [one(arg, d) for arg, d in zip(positional, defaults)]
    if a.posonlyargs:
        out.insert(len(a.posonlyargs), "/")
    if a.vararg:
        out.append(one(a.vararg, star="*"))
    elif a.kwonlyargs:
        out.append("*")
    out += [one(arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg:
        out.append(one(a.kwarg, star="**"))
    if drop_self and out and out[0] in ("self", "cls"):
        out = out[1:]
    return out


def signature(module, fn, shown, drop_self=False):
    """shown(parameters) -> return annotation, wrapped when long."""
    suffix = f" -> {module.segment(fn.returns)}" if fn.returns is not None else ""
    return wrap(shown, parameters(module, fn, drop_self), suffix)


def decorators(fn):
    return {ast.unparse(d) for d in fn.decorator_list}


def function_section(module, fn, dotted, shown, level, missing):
    """A heading, the signature, the docstring; and the heading for the contents."""
    heading = f"{'#' * level} {dotted}"
    lines = ["", heading, "", "```python", signature(module, fn, shown), "```"]
    annotations(fn, dotted, missing)
    return lines + docstring(fn, dotted, missing), [dotted]


def class_section(module, cls, dotted, shown, level, missing):
    """The class (its constructor's parameters), its docstring, then a table of its public
    methods and properties with the first paragraph of each one's docstring."""
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    bases = [module.segment(b) for b in cls.bases]
    head = wrap(f"class {shown}", parameters(module, init, drop_self=True)) if init else f"class {shown}"
    if init:
        annotations(init, f"{dotted}.__init__", missing)
    if bases:
        head += f"  # subclass of {', '.join(bases)}"
    lines = ["", f"{'#' * level} {dotted}", "", "```python", head, "```"] + docstring(cls, dotted, missing)
    rows = []
    for node in cls.body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
            continue
        docstring(node, f"{dotted}.{node.name}", missing)  # only to name a missing one
        annotations(node, f"{dotted}.{node.name}", missing)
        if "property" in decorators(node):
            code = f"{cls.name}.{node.name}"
        else:
            static = "staticmethod" in decorators(node)
            code = f"{cls.name}.{node.name}({', '.join(parameters(module, node, drop_self=not static))})"
        rows.append(f"| `{code}` | {'property' if 'property' in decorators(node) else 'method'} | {first_paragraph(node)} |")
    if rows:
        lines += ["", "| member | kind | what |", "| --- | --- | --- |"] + rows
    return lines, [dotted]


def member_section(module, node, dotted, level, missing):
    render = class_section if isinstance(node, ast.ClassDef) else function_section
    return render(module, node, dotted, dotted, level, missing)


def module_section(module, missing, documented):
    """## module: its docstring, its exported constants, what it re-exports, then its functions
    and classes."""
    lines = ["", f"## {module.name}"]
    toc = []
    lines += docstring(module.tree, module.name, missing)
    constants = [n for n in (module.all or []) if n not in module.defs and n not in module.imports]
    if constants:
        lines += ["", "Constants: " + ", ".join(f"`{n}`" for n in constants) + "."]
    reexported = [n for n in (module.all or []) if n in module.imports]
    if reexported:
        links = []
        for n in reexported:
            origin, there = module.imports[n]
            target = f"{origin}.{there}" if f"{origin}.{there}" in documented else origin
            links.append(f"[`{n}`](#{ref(target)})")
        lines += ["", "Exports, from its modules: " + ", ".join(links) + "."]
    for node in module.public():
        section, entries = member_section(module, node, f"{module.name}.{node.name}", 3, missing)
        lines += section
        toc += entries
    return lines, toc


def first_paragraph(node):
    """The docstring's first paragraph on one line ('' without a docstring: checked elsewhere)."""
    text = ast.get_docstring(node) or ""
    return " ".join(text.split("\n\n", 1)[0].split()).replace("|", "\\|")


def table_section(module, exports, missing):
    """## module: its docstring, then one table row per export: the signature (a class: its
    name) and the first paragraph of its docstring."""
    lines = ["", f"## {module.name}"] + docstring(module.tree, module.name, missing)
    constants = [n for n in (module.all or []) if n not in module.defs and n not in module.imports]
    if constants:
        lines += ["", "Constants: " + ", ".join(f"`{n}`" for n in constants) + "."]
    if exports:
        lines += ["", "| name | what |", "| --- | --- |"]
    for dotted, source, node in exports:
        docstring(node, dotted, missing)  # only to name a missing one
        if isinstance(node, ast.ClassDef):
            shown = f"class {node.name}"
            init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
            if init:
                annotations(init, f"{dotted}.__init__", missing)
        else:
            annotations(node, dotted, missing)
            shown = f"{node.name}({', '.join(parameters(source, node))})"
        lines.append(f"| `{shown}` | {first_paragraph(node)} |")
    return lines


def exports_of(root, module):
    """(dotted name, defining module, node) of each function and class module exports; a name
    it imports from one of the package's modules is found there."""
    out = []
    names = module.all if module.all is not None else [n for n in module.defs if not n.startswith("_")]
    for name in names:
        if name in module.defs:
            out.append((f"{module.name}.{name}", module, module.defs[name]))
        elif name in module.imports:
            origin, there = module.imports[name]
            source = Module(root, origin)
            if there in source.defs:
                out.append((f"{origin}.{there}", source, source.defs[there]))
    return out


def commands_section(root, missing):
    """## Commands: a row per command of PYPROJECT's [project.scripts] ("module:function"): the
    function it runs and the first paragraph of the docstring of the module that defines it."""
    with open(os.path.join(root, PYPROJECT), encoding="utf-8") as f:
        section = f.read().split("[project.scripts]", 1)[-1].split("\n[", 1)[0]
    lines = ["", "## Commands", "",
             "`pip install ./python` puts them on `PATH`; in a checkout: `scripts/plot_figures.py`, "
             "`scripts/summary.py`, `PYTHONPATH=python python3 -m geoattn.schema`.",
             "", "| command | runs | what |", "| --- | --- | --- |"]
    for command, target in re.findall(r'^([\w-]+)\s*=\s*"([\w.]+:\w+)"', section, re.M):
        name, function = target.split(":")
        source, there = defining_module(root, Module(root, name), function)
        if there not in source.defs:
            missing.append(f"{PYPROJECT}: {command} = {target}: not a function of the package")
            continue
        lines.append(f"| `{command}` | `{source.name}.{there}` | {first_paragraph(source.tree)} |")
    return lines


def defining_module(root, module, name):
    """(the module that defines `name` as `module` has it, its name there): `module` itself, or the
    module it imports the name from."""
    if name not in module.defs and name in module.imports:
        origin, there = module.imports[name]
        return Module(root, origin), there
    return module, name


def figure_modules(root):
    """geoattn.figures' modules, by file name."""
    folder = os.path.join(root, PACKAGE, "figures")
    return [f"geoattn.figures.{f[:-3]}" for f in sorted(os.listdir(folder))
            if f.endswith(".py") and not f.startswith("_")]


def examples_section(root):
    """Each python/examples/*.py whole, under a heading from its file name, after geoattn.hf: the
    page shows what python/tests run."""
    folder = os.path.join(root, EXAMPLES)
    names = sorted(n for n in os.listdir(folder) if n.endswith(".py")) if os.path.isdir(folder) else []
    lines = []
    for name in names:
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            code = f.read().rstrip("\n")
        lines += ["", f"### Example: {EXAMPLES}/{name}", "", "```python", code, "```"]
    return lines


def page(root):
    """The page's text; raises Missing naming every public name without a docstring."""
    missing = []
    package = Module(root, "geoattn")
    names = package.all if package.all is not None else []
    modules = {name: Module(root, name) for name in MODULES}
    documented = {f"{m.name}.{node.name}" for m in modules.values() for node in m.public()}
    for name in figure_modules(root):  # every public function of the figures has a docstring
        for node in Module(root, name).public():
            docstring(node, f"{name}.{node.name}", missing)

    body = ["", "## geoattn"] + docstring(package.tree, "geoattn", missing)
    contents = [("geoattn", [])]
    for name in names:
        if f"geoattn.{name}" in modules:  # a module of the package: its own section below
            contents[0][1].append(f"geoattn.{name}")
            continue
        source, there = defining_module(root, package, name)
        if there not in source.defs:
            missing.append(f"geoattn.{name}: in __all__ but not a function or class of the package")
            continue
        section, entries = member_section(source, source.defs[there], f"geoattn.{name}", 3, missing)
        body += section
        contents[0][1].extend(entries)
    tools, example_links = [], []
    for name in modules:
        if name in FULL:
            section, entries = module_section(modules[name], missing, documented)
            examples = examples_section(root)
            body += section + examples
            contents.append((name, entries))
            example_links = [line[4:] for line in examples if line.startswith("### ")]
        else:
            tools += table_section(modules[name], exports_of(root, modules[name]), missing)
    commands = commands_section(root, missing)
    if missing:
        raise Missing(missing)
    tool_names = [name for name in modules if name not in FULL]

    lines = [
        "# Python API reference",
        "",
        "<!-- Generated by scripts/docs/python_reference.py from the docstrings of python/geoattn; do not edit. -->",
        "",
        "The docstrings of python/geoattn: `geoattn` and `geoattn.hf` verbatim under the signatures as",
        "written, the readers and figures as tables of their exports (each docstring's first paragraph).",
        f"Generated from the source read with `ast` only (no torch, numpy or build): `{REGENERATE}`",
        "rewrites it; the ctest `PythonReference` (`--check`) fails while it and the docstrings differ,",
        "and for a public name without a docstring or a function shown here without a type annotation",
        "on each parameter and its return (numpy, torch and matplotlib types under `TYPE_CHECKING`).",
        "",
        "## Contents",
        "",
    ]
    for name, entries in contents:
        links = ", ".join(f"[{d[len(name) + 1:]}](#{ref(d)})" for d in entries if "." not in d[len(name) + 1:])
        lines.append(f"- [{name}](#{ref(name)})" + (f": {links}" if links else ""))
    if example_links:
        lines.append("- examples: " + ", ".join(f"[{h.split('/')[-1]}](#{ref(h)})" for h in example_links))
    lines.append("- the readers, tools and figures, each module's exports: [python-tools.md](python-tools.md): " +
                 ", ".join(f"[{n}](python-tools.md#{anchor(n)})" for n in tool_names))
    tools_page = [
        "# Python readers, tools and figures",
        "",
        "<!-- Generated by scripts/docs/python_reference.py from the docstrings of python/geoattn; do not edit. -->",
        "",
        "The modules of python/geoattn that read results, compare and report them and draw the figures:",
        "each one's docstring and a table of what it exports (the first paragraph of each docstring).",
        "They import without the compiled module: Python, numpy and, for figures, matplotlib.",
        "Their commands come with `pip install ./python` (`geoattn-summary`, `geoattn-explain`,",
        "`geoattn-compare`, `geoattn-report`, `geoattn-figures`, `geoattn-schema`); `geoattn summary`,",
        "`geoattn explain`, `geoattn compare` and `geoattn report` run the first four from PATH.",
        f"Generated as [python.md](python.md) is: `{REGENERATE}`.",
    ]
    return {PAGE: link_anchors("\n".join(lines + commands + body) + "\n"),
            TOOLS_PAGE: link_anchors("\n".join(tools_page + tools) + "\n")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0],
                                     epilog=f"Regenerate the page: {REGENERATE}")
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("source_dir", nargs="?", default=here, metavar="SOURCE_DIR",
                        help="the repository (default: the one this script is in)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help=f"compare with SOURCE_DIR/{PAGE} instead of printing")
    mode.add_argument("--write", action="store_true", help=f"write SOURCE_DIR/{PAGE} instead of printing")
    args = parser.parse_args()
    try:
        pages = page(args.source_dir)
    except Missing as e:
        for name in e.args[0]:
            print(f"python_reference: {name}" + ("" if ":" in name else " has no docstring"))
        return 1
    if args.check:
        return max(check("python_reference", text, os.path.join(args.source_dir, rel), "the docstrings of python/geoattn",
                         REGENERATE) for rel, text in pages.items())
    for rel, text in pages.items():
        if args.write:
            write_whole(os.path.join(args.source_dir, rel), text)
        else:
            sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
