"""The HTML pieces of geoattn-report's page: escaping, key/value tables, the sortable tables
(their inline script), figures as inline PNG (data: URLs) and the page around the sections.
Standard library only; a figure is rendered by its matplotlib Figure's own savefig.

Everything the page needs is inside it: no external script, style sheet, font or image, so it
opens from disk without a network.
"""
from __future__ import annotations

import base64
import html
import io
import math
from typing import Any, Sequence

FIGURE_DPI = 90  # small enough for a page of ~20 figures, sharp enough to read

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:2em}h3{font-size:1.05em}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:12.5px}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:right;white-space:nowrap}
td.s,th.s{text-align:left}th{background:#f2f2f2}
table.kv td:first-child{text-align:left;color:#555}table.kv td{text-align:left;white-space:normal}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th.asc::after{content:" \\25B2"}table.sortable th.desc::after{content:" \\25BC"}
.wide{overflow-x:auto;max-height:70vh;overflow-y:auto}
.wide th{position:sticky;top:0}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption,.note{color:#555;font-size:12.5px}
nav a{margin-right:1em}
.cards{display:flex;flex-wrap:wrap;gap:0 1.5em;align-items:flex-start}.cards>div{max-width:100%}
table.kv td{max-width:560px}
"""

# Sorts a table.sortable by the clicked column: numbers by value (a cell's data-v), text
# alphabetically, empty cells last; a second click reverses the order.
SORT_JS = """
(function(){
  function val(td){var v=td.getAttribute('data-v');return v===null?td.textContent:v;}
  function sortBy(table,col,th){
    var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);
    var asc=!th.classList.contains('asc');
    Array.prototype.forEach.call(table.tHead.rows[0].cells,function(c){c.classList.remove('asc','desc');});
    th.classList.add(asc?'asc':'desc');
    var vals=rows.map(function(r){return val(r.cells[col]);});
    var numeric=vals.every(function(v){return v===''||isFinite(Number(v));});
    var keyed=rows.map(function(r,i){return {r:r,v:vals[i],i:i};});
    keyed.sort(function(a,b){
      if(a.v===''||b.v===''){return a.v===b.v?a.i-b.i:(a.v===''?1:-1);}
      var d=numeric?Number(a.v)-Number(b.v):String(a.v).localeCompare(String(b.v));
      return d===0?a.i-b.i:(asc?d:-d);
    });
    keyed.forEach(function(k){body.appendChild(k.r);});
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),function(table){
    Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,col){
      th.addEventListener('click',function(){sortBy(table,col,th);});
    });
  });
})();
"""


def esc(x: Any) -> str:
    """x as HTML text (quotes escaped too)."""
    return html.escape(str(x), quote=True)


def is_number(v: Any) -> bool:
    """Whether v is an int or a float (a bool is not)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def cell_text(v: Any) -> str:
    """A value as a table shows it: floats to 4 significant digits, None/NaN as "-", booleans
    yes/no, lists joined by commas."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(cell_text(x) for x in v) if v else "-"
    return str(v)


def flatten(d: dict, prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted key, value) of every leaf of a nested dict, in its order."""
    out = []
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out += flatten(v, key + ".")
        else:
            out.append((key, v))
    return out


def kv_table(pairs: Sequence[tuple[str, Any]]) -> str:
    """A two-column table of (key, value)."""
    rows = "".join(f"<tr><td>{esc(k)}</td><td>{esc(cell_text(v))}</td></tr>" for k, v in pairs)
    return f'<table class="kv"><tbody>{rows}</tbody></table>'


def data_table(rows: Sequence[dict], table_id: str, sortable: bool = True,
               columns: Sequence[str] | None = None) -> str:
    """A table of dicts (columns: the first row's keys, or `columns`), each number cell carrying
    its exact value in data-v for sorting; sortable by clicking a header (SORT_JS). A column X
    with columns X_lo and X_hi (geoattn.tables' intervals) shows them in its cells, "v [lo, hi]",
    and they get no column of their own."""
    if not rows:
        return '<p class="note">(none)</p>'
    columns = list(columns or rows[0].keys())
    bounded = {c for c in columns if f"{c}_lo" in columns and f"{c}_hi" in columns}
    columns = [c for c in columns if not (c.endswith(("_lo", "_hi")) and c[:-3] in bounded)]
    numeric = {c: all(r.get(c) is None or is_number(r.get(c)) for r in rows) for c in columns}
    head = "".join(f'<th{"" if numeric[c] else " class=s"} title="sort by {esc(c)}">{esc(c)}</th>'
                   for c in columns)
    body = []
    for r in rows:
        cells = []
        for c in columns:
            v = r.get(c)
            if numeric[c]:
                raw = "" if v is None or (isinstance(v, float) and not math.isfinite(v)) else repr(v)
                text = cell_text(v)
                if c in bounded and r.get(f"{c}_lo") is not None:
                    text += f" [{cell_text(r[f'{c}_lo'])}, {cell_text(r[f'{c}_hi'])}]"
                cells.append(f'<td data-v="{esc(raw)}">{esc(text)}</td>')
            else:
                cells.append(f'<td class="s">{esc(cell_text(v))}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    cls = ' class="sortable"' if sortable else ""
    return (f'<div class="wide"><table id="{esc(table_id)}"{cls}><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def png_data_url(fig, dpi: int = FIGURE_DPI) -> str:
    """A matplotlib Figure as a data:image/png;base64 URL (rendered in memory)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def figure_html(name: str, caption: str, drawn: Any) -> str:
    """A figure block: the image inline (drawn: a data URL) or, for a figure its drawer
    skipped (drawn: the reason), a note saying why."""
    if drawn.startswith("data:image/png;base64,"):
        return (f'<figure id="{esc(name)}"><img alt="{esc(name)}" src="{drawn}">'
                f"<figcaption><b>{esc(name)}</b>: {esc(caption)}</figcaption></figure>")
    return f'<p class="note"><b>{esc(name)}</b> not drawn: {esc(drawn)}</p>'


def page(title: str, sections: Sequence[tuple[str, str, str]]) -> str:
    """The whole page: sections [(id, heading, body HTML)] with a table of contents, the style
    and the sorting script inline."""
    nav = "".join(f'<a href="#{esc(i)}">{esc(h)}</a>' for i, h, _ in sections)
    body = "".join(f'<section id="{esc(i)}"><h2>{esc(h)}</h2>{b}</section>' for i, h, b in sections)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title><link rel=\"icon\" href=\"data:,\">"
            f"<style>{CSS}</style></head><body><h1>{esc(title)}</h1><nav>{nav}</nav>{body}"
            f"<script>{SORT_JS}</script></body></html>\n")
