#!/usr/bin/env python3
"""The commands the Markdown shows against the commands themselves. In README.md and the pages
under docs/ (but cli.md, which is --help itself, and the contract copies SPEC.md and DESIGN.md):

- every geoattn command line of a ```sh, ```bash or ```console block names only flags that its
  subcommand's --help has (nested ones too: `geoattn bench metrics`);
- every default a synopsis writes out as `[--flag value]` with a literal value ([--ctx 1024]) is
  the one --help gives, which is the one the settings structs define;
- every row `| `--flag` |` of a flag table under a heading that names `geoattn <cmd>` in
  backticks names a flag of that command.

A command line starts with `geoattn`, `build/bin/geoattn`, `$BIN/geoattn` or any other path
ending in /geoattn (after a console's `$ ` prompt and VAR=value assignments, or after && or ;);
it goes on over lines ending in `\\`, and in sh/bash blocks over the indented lines of a
wrapped synopsis (those that start with `[`, `(` or `-`). A `#` after a space starts a
comment; quoted strings are values; a `|`, `;`, `&&` or `>` outside brackets ends the geoattn
part. Lines that run other programs (scripts/..., python3 ..., pip ...) are not checked.

One line per problem, naming the file and line; exit 1 if any.

    check_doc_flags.py SOURCE_DIR BIN_DIR
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts", "docs"))
from cli_reference import help_text, subcommands  # noqa: E402  (the one reading of a --help's subcommands)

OPTION = re.compile(r"^\s+(?:-\w,)?(--[a-z0-9-]+)(.*)$")
SYNOPSIS_FLAG = re.compile(r"\[(--[a-z0-9-]+)(?: ([^\]\[]+))?\]|(?<![\[\w-])(--[a-z0-9-]+)")
TABLE_FLAGS = re.compile(r"`(--[a-z0-9-]+)")
TABLE_ROW = re.compile(r"^\|\s*`--")
HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
HEADING_COMMAND = re.compile(r"`geoattn ([a-z][a-z0-9 -]*)`")
FENCE = re.compile(r"^\s*```\s*([A-Za-z0-9_+-]*)")
SHELL_BLOCKS = {"sh", "bash", "console"}
INVOCATION = re.compile(r"^(?:\S*/)?geoattn(?=\s|$)")  # geoattn, build/bin/geoattn, $BIN/geoattn
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*\s+")
WORD = re.compile(r"^[a-z][a-z0-9-]*$")  # a subcommand's name, not a placeholder (<cmd>, CMD, ...)
EXCLUDED = {"cli.md", "SPEC.md", "DESIGN.md"}


class Helps:
    """Each command's --help, read once: {flag: default or None} and its subcommands."""

    def __init__(self, bin_dir):
        self.binary = os.path.join(bin_dir, "geoattn")
        self.cache = {}

    def get(self, command):
        if command not in self.cache:
            self.cache[command] = parse_help(help_text(self.binary, list(command)))
        return self.cache[command]

    def options(self, command):
        return self.get(command)[0]

    def subcommands(self, command):
        return self.get(command)[1]


def parse_help(text):
    """({flag: default or None}, [subcommand]) of a --help text."""
    options = {}
    for line in text.splitlines():
        m = OPTION.match(line)
        if m:
            # CLI11's first column: "--ctx INT:an integer of at least 1=1024", then the help text
            column = re.split(r"\s{2,}", m.group(2))[0]
            options[m.group(1)] = column.rsplit("=", 1)[1] if "=" in column else None
    return options, subcommands(text)


def literal(value):
    """A default written out in a synopsis (1024, 0.3, all), not a placeholder (K, FILE, i/n,
    a|b, ..., a file that stands for the built-in one)."""
    return value is not None and re.fullmatch(r"-?[0-9][0-9.,]*|[a-z]{2,}", value) is not None


def same_default(written, default):
    """The page's default is --help's, or the first of its words ("1024, or the model's ...")."""
    return default is not None and (written == default or default.startswith(written + ", "))


class Scanner:
    """Shell text of one command, line by line: quoted strings blanked, comments cut, and
    everything after a separator outside brackets dropped. The state carries over lines."""

    def __init__(self):
        self.open = []  # the brackets open here: ( [ and the < of a <placeholder>
        self.stopped = False

    def clean(self, line):
        out, i, quote = [], 0, None
        while i < len(line) and not self.stopped:
            c = line[i]
            prev = line[i - 1] if i else " "
            if quote:
                out.append(" ")
                if c == quote:
                    quote = None
            elif c in "\"'" and (prev.isspace() or prev in "=("):
                quote = c  # an opening quote starts a word; an apostrophe inside one does not
                out.append(" ")
            elif c == "#" and prev.isspace():
                break  # a comment
            elif c in "([" or (c == "<" and line[i + 1:i + 2].isalpha()):
                self.open.append(c)
                out.append(c)
            elif self.open and c == {"(": ")", "[": "]", "<": ">"}[self.open[-1]]:
                self.open.pop()
                out.append(c)
            elif not self.open and (c in "|;>" or line.startswith("&&", i)):
                self.stopped = True  # a pipe, a list or a redirection: not geoattn's any more
            else:
                out.append(c)
            i += 1
        return "".join(out)


def invocations(line):
    """The text from each geoattn invocation on a line on: at its start (after VAR=value
    assignments) or after && or ; ."""
    found = []
    for part in re.split(r"&&|;", line):
        stripped = part.lstrip()
        while ASSIGNMENT.match(stripped):
            stripped = ASSIGNMENT.sub("", stripped, count=1)
        if INVOCATION.match(stripped):
            found.append(stripped)
    return found


class Checker:
    def __init__(self, source_dir, helps):
        self.source_dir = source_dir
        self.helps = helps
        self.problems = []
        self.commands = 0

    def problem(self, path, lineno, text):
        self.problems.append(f"{path}:{lineno}: {text}")

    def resolve(self, path, lineno, words):
        """The subcommand path the words after `geoattn` name: ([words], rest), or None with a
        problem when the first unknown word is a name that is no subcommand."""
        command = ()
        for i, word in enumerate(words):
            subs = self.helps.subcommands(command)
            if word in subs:
                command += (word,)
                continue
            if subs and WORD.match(word):
                name = " ".join(("geoattn", *command))
                self.problem(path, lineno, f"`{name} {word}`: {name} has no subcommand {word}")
                return None
            break
        return command

    def check_command(self, path, pieces, block):
        """pieces: [(line number, text)] of one command, its first piece starting at geoattn."""
        first_line, first = pieces[0]
        words = Scanner().clean(first).split()[1:]
        command = self.resolve(path, first_line, words)
        if command is None:
            return
        self.commands += 1
        options = self.helps.options(command)
        name = " ".join(("geoattn", *command))
        scanner = Scanner()
        for lineno, text in pieces:
            code = scanner.clean(text)
            for m in SYNOPSIS_FLAG.finditer(code):
                flag, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), None)
                if flag not in options:
                    self.problem(path, lineno, f"`{name}` names {flag}, which its --help does not have")
                elif literal(value) and not same_default(value, options[flag]):
                    self.problem(path, lineno, f"`{name}`: [{flag} {value}] is written, --help's default is {options[flag]}")

    def check_table_row(self, path, lineno, line, commands):
        first_cell = line.split("|")[1]
        for flag in TABLE_FLAGS.findall(first_cell):
            if not any(flag in self.helps.options(c) for c in commands):
                names = " / ".join("geoattn " + " ".join(c) for c in commands)
                self.problem(path, lineno, f"the flag table of `{names}` names {flag}, which its --help does not have")

    def heading_commands(self, heading):
        """The commands a heading names in backticks (`geoattn bench metrics`), known ones only."""
        found = []
        for m in HEADING_COMMAND.finditer(heading):
            command = ()
            for word in m.group(1).split():
                if word not in self.helps.subcommands(command):
                    break
                command += (word,)
            if command:
                found.append(command)
        return found

    def check_file(self, path):
        lines = open(os.path.join(self.source_dir, path), encoding="utf-8").read().splitlines()
        block = None  # the language of the fenced block the line is in
        sections = []  # [(heading level, commands)] of the headings above
        pending = None  # the command being read: [(line number, text)]
        continues = False  # the last line ended in a backslash
        for lineno, line in enumerate(lines, 1):
            fence = FENCE.match(line)
            if fence:
                if pending:
                    self.check_command(path, pending, block)
                pending, continues = None, False
                block = (fence.group(1) or "text") if block is None else None
                continue
            if block is None:
                heading = HEADING.match(line)
                if heading:
                    level = len(heading.group(1))
                    sections = [s for s in sections if s[0] < level]
                    sections.append((level, self.heading_commands(heading.group(2))))
                    continue
                commands = [c for _, cs in sections for c in cs]
                if commands and TABLE_ROW.match(line):
                    self.check_table_row(path, lineno, line, commands)
                continue
            if block not in SHELL_BLOCKS:
                continue
            if pending and (continues or (block != "console" and re.match(r"^\s+[\[(-]", line))):
                pending.append((lineno, line))
                continues = line.rstrip().endswith("\\")
                continue
            if pending:
                self.check_command(path, pending, block)
                pending, continues = None, False
            text = line
            if text.startswith("$ "):
                text = text[2:]  # a prompt
            elif block == "console":
                continue  # output, not a command
            found = invocations(text)
            for i, invocation in enumerate(found):
                if i + 1 < len(found):
                    self.check_command(path, [(lineno, invocation)], block)
                else:
                    pending = [(lineno, invocation)]
                    continues = line.rstrip().endswith("\\")
        if pending:
            self.check_command(path, pending, block)


def markdown_files(source_dir):
    files = ["README.md"]
    for path in sorted(glob.glob(os.path.join(source_dir, "docs", "**", "*.md"), recursive=True)):
        rel = os.path.relpath(path, source_dir)
        if os.path.dirname(rel) == "docs" and os.path.basename(rel) in EXCLUDED:
            continue
        files.append(rel)
    return files


def main(source_dir, bin_dir):
    checker = Checker(source_dir, Helps(bin_dir))
    files = markdown_files(source_dir)
    for path in files:
        checker.check_file(path)
    for p in checker.problems:
        print(p)
    print(f"check_doc_flags: {len(files)} files, {checker.commands} geoattn command lines, {len(checker.problems)} problems")
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
