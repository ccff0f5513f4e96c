"""The package's console tools, one folder each: geoattn.tools.NAME for compare, summary, tables,
explain, report and verdicts. A tool's library is the folder's modules, exported by its
__init__; its command line is cli.py (its argparse parser and main, which `python3 -m
geoattn.NAME` and the console scripts of python/pyproject.toml run; tables has no command of its
own: its cli.py holds the flags geoattn-summary takes for it). A library never imports a cli.

The modules are named by one rule: lib.py holds the library of the tool's old module
geoattn.NAME (its command line taken out to cli.py); an old geoattn.NAME_PART module is PART.py
(compare/figure.py, compare/settings.py, explain/sample.py, explain/text.py, explain/figure.py,
report/html.py; tables_cli is tables/cli.py); explain/explanation.py keeps its name.

The layers, lowest first (tests/test_python_modules.py holds them): geoattn.io (the readers of
files); the numerics, the package's top-level modules (geoattn.results, unit_sums,
compare_bootstrap, ...); then the tools and geoattn.figures, which import those below them and
geoattn.figures, but no other tool, except where the test names the exception and why
(summary's command line hosts the table's flags; summary and report show tables and verdicts; a
figure counts the verdicts). The old modules geoattn.compare, summary, tables, explain, report
and verdicts stay as thin re-exports that nothing in the package imports. This module imports
nothing.
"""
