"""The repository's files, as the checks over its text read them: those git tracks when the
folder is the top of a work tree, otherwise every file below it but .git, build folders,
virtualenvs and caches. Paths relative to the folder, with '/'."""
import os
import subprocess


def is_build_dir(path, name):
    return (name == ".git" or name.startswith(("build", ".venv")) or name in ("__pycache__", "node_modules")
            or os.path.exists(os.path.join(path, "CMakeCache.txt")))


def tracked_files(root):
    """The files git tracks when root is the top of a work tree; None otherwise."""
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                             check=True).stdout.strip()
        if os.path.realpath(top) != os.path.realpath(root):
            return None
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return [f for f in out.decode("utf-8", "surrogateescape").split("\0") if f]


def walked_files(root):
    files = []
    for d, dirs, fs in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not is_build_dir(os.path.join(d, x), x))
        files += [os.path.relpath(os.path.join(d, f), root) for f in fs]
    return files


def repo_files(root):
    files = tracked_files(root)
    if files is None:
        files = walked_files(root)
    return sorted(f.replace(os.sep, "/") for f in files)
