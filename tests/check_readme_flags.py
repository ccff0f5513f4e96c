#!/usr/bin/env python3
"""The README's command reference against the commands themselves: every flag its synopses
(the ```sh blocks of "## Commands") and flag tables name exists in that command's --help, and
every default a synopsis writes out ([--ctx 1024]) is the one --help gives, which is the one the
settings structs define (pipeline::MetricParams, metrics::SinkSettings, ...). A flag renamed or
a default changed in the code fails here until the README says so too.

    check_readme_flags.py SOURCE_DIR BIN_DIR
"""
import os
import re
import subprocess
import sys

OPTION = re.compile(r"^\s+(?:-\w,)?(--[a-z0-9-]+)(.*)$")
SYNOPSIS_FLAG = re.compile(r"\[(--[a-z0-9-]+)(?: ([^\]\[]+))?\]|(?<![\[\w-])(--[a-z0-9-]+)")
TABLE_FLAG = re.compile(r"^\| `(--[a-z0-9-]+)")


def help_options(bin_dir, command):
    """{flag: default or None} of `geoattn <command> --help`."""
    out = subprocess.run([os.path.join(bin_dir, "geoattn"), *command.split(), "--help"], capture_output=True, text=True,
                         check=True).stdout
    options = {}
    for line in out.splitlines():
        m = OPTION.match(line)
        if m:
            # CLI11's first column: "--ctx INT:an integer of at least 1=1024", then the help text
            column = re.split(r"\s{2,}", m.group(2))[0]
            options[m.group(1)] = column.rsplit("=", 1)[1] if "=" in column else None
    return options


def literal(value):
    """A default written out in a synopsis (1024, 0.3, all), not a placeholder (K, FILE, i/n,
    a|b, ..., a file that stands for the built-in one)."""
    return value is not None and re.fullmatch(r"-?[0-9][0-9.,]*|[a-z]{2,}", value) is not None


def same_default(written, default):
    """The README's default is --help's, or the first of its words ("1024, or the model's ...")."""
    return default is not None and (written == default or default.startswith(written + ", "))


def main(source_dir, bin_dir):
    text = open(os.path.join(source_dir, "README.md"), encoding="utf-8").read()
    section = text.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    problems, helps = [], {}
    command = None  # the command whose ### heading the lines below belong to
    in_block = False
    for line in section.splitlines():
        heading = re.match(r"^### `geoattn ([a-z ]+)`", line)
        if heading:
            command = heading.group(1).strip()
            continue
        if line.startswith("```"):
            in_block = not in_block
            continue
        if command is None:
            continue
        if command not in helps:
            helps[command] = help_options(bin_dir, command)
        options = helps[command]
        if in_block:
            if not (line.startswith("geoattn ") or line.startswith(" ")):
                continue
            code = line.split("#", 1)[0]
            for m in SYNOPSIS_FLAG.finditer(code):
                flag, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), None)
                if flag not in options:
                    problems.append(f"`geoattn {command}`: the README's synopsis names {flag}, which --help does not have")
                elif literal(value) and not same_default(value, options[flag]):
                    problems.append(f"`geoattn {command}`: the README writes [{flag} {value}], --help's default is {options[flag]}")
        else:
            m = TABLE_FLAG.match(line)
            if m and m.group(1) not in options:
                problems.append(f"`geoattn {command}`: the README's flag table names {m.group(1)}, which --help does not have")
    for p in problems:
        print(p)
    print(f"check_readme_flags: {len(helps)} commands, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
