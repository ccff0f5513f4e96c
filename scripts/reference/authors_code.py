"""The papers' authors' released functions, read at run time from fetched mirrors and never
copied into this project (scripts/reference/*.py): each named function is taken out of the file
or notebook with `ast`, compiled and returned with a provenance record."""
import ast
import json
import os
import subprocess


def load_authors(mirrors, repo, path, cls, names, namespace):
    """The named functions from HEAD:path of the mirror (<mirrors>/<owner>+<name>/repo), compiled
    in `namespace` (the modules they use: np, torch, ...), plus the provenance record. `cls`: the
    class of a notebook or file whose methods they are (None: top-level functions)."""
    git = os.path.join(mirrors, repo.replace("/", "+"), "repo")
    run = lambda *a: subprocess.check_output(["git", "-C", git, *a], text=True)
    commit, text = run("rev-parse", "HEAD").strip(), run("show", "HEAD:" + path)
    ns = dict(namespace)
    where = f"{repo}@{commit[:12]}:{path}"
    if path.endswith("entropy.py"):           # a plain module that imports what it needs
        exec(compile(text, where, "exec"), ns)
    else:
        if path.endswith(".ipynb"):
            trees = []
            for cell in json.loads(text)["cells"]:
                if cell["cell_type"] == "code":
                    try:
                        trees.append(ast.parse("".join(cell["source"])))
                    except SyntaxError:       # cells with notebook magics hold nothing we need
                        pass
            body = [n for t in trees for n in t.body if isinstance(n, ast.ClassDef) and n.name == cls][0].body
        else:
            body = ast.parse(text).body
        for node in body:
            if isinstance(node, ast.FunctionDef) and node.name in names:
                exec(compile(ast.Module(body=[node], type_ignores=[]), where, "exec"), ns)
    prov = {"repository": f"https://github.com/{repo}", "commit": commit, "file": path,
            "blob": run("rev-parse", f"HEAD:{path}").strip(), "class": cls, "functions": names}
    return {n: ns[n] for n in names}, prov
