"""The HTML pieces of geoattn-report's page: escaping, key/value tables, the tables (sortable, with
sticky leading columns, a label filter and a column chooser: their inline script), long lists
collapsed, figures as inline PNG (data: URLs) and the page around the sections.
Standard library only; a figure is rendered by its matplotlib Figure's own savefig.

Everything the page needs is inside it: no external script, style sheet, font or image, so it
opens from disk without a network.
"""
from __future__ import annotations

import base64
import html
import io
import math
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FIGURE_DPI = 100  # small enough for a page of ~20 figures, its text legible at the page's width

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
.wide td.stick,.wide th.stick{position:sticky;z-index:1;background:#fff}.wide th.stick{z-index:2;background:#f2f2f2}
.wide td.stick.last,.wide th.stick.last{box-shadow:2px 0 0 #ccc}
.tools{margin:.4em 0;display:flex;flex-wrap:wrap;gap:.4em;align-items:center;font-size:12.5px}
.tools button{font:inherit;padding:1px 8px;border:1px solid #bbb;background:#f7f7f7;border-radius:3px;cursor:pointer}
.tools button.on{background:#2b6cb0;color:#fff;border-color:#2b6cb0}
details.cols label{display:inline-block;margin-right:.8em;white-space:nowrap}
.answer p{margin:.25em 0}.answer b{font-weight:600}
"""

# The page's script: sorts a table.sortable by the clicked column (numbers by value, a cell's
# data-v; text alphabetically; empty cells last; a second click reverses); keeps a table's
# leading td/th.stick columns in place while it scrolls sideways (each column's left offset the
# widths before it); a label filter (.tools[data-filter] buttons: the rows whose cell in that
# column is the button's value, or all); a column chooser (details.cols checkboxes hide a column).
PAGE_JS = """
(function(){
  var each=function(list,f){Array.prototype.forEach.call(list,f);};
  function val(td){var v=td.getAttribute('data-v');return v===null?td.textContent:v;}
  function sortBy(table,col,th){
    var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);
    var asc=!th.classList.contains('asc');
    each(table.tHead.rows[0].cells,function(c){c.classList.remove('asc','desc');});
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
  each(document.querySelectorAll('table.sortable'),function(table){
    each(table.tHead.rows[0].cells,function(th,col){
      th.addEventListener('click',function(){sortBy(table,col,th);});
    });
  });
  function stick(table){
    var left=0;
    each(table.tHead.rows[0].cells,function(th,col){
      if(!th.classList.contains('stick'))return;
      each(table.querySelectorAll('tr'),function(r){if(r.cells[col])r.cells[col].style.left=left+'px';});
      left+=th.getBoundingClientRect().width;
    });
  }
  each(document.querySelectorAll('table'),function(t){if(t.querySelector('th.stick'))stick(t);});
  each(document.querySelectorAll('.tools[data-filter]'),function(bar){
    var table=document.getElementById(bar.getAttribute('data-filter')),col=Number(bar.getAttribute('data-col'));
    each(bar.querySelectorAll('button'),function(b){
      b.addEventListener('click',function(){
        var want=b.getAttribute('data-v');
        each(bar.querySelectorAll('button'),function(o){o.classList.toggle('on',o===b);});
        each(table.tBodies[0].rows,function(r){r.style.display=(want===''||r.cells[col].textContent===want)?'':'none';});
      });
    });
  });
  each(document.querySelectorAll('details.cols'),function(d){
    var table=document.getElementById(d.getAttribute('data-table'));
    each(d.querySelectorAll('input'),function(box){
      box.addEventListener('change',function(){
        var col=Number(box.getAttribute('data-col'));
        each(table.querySelectorAll('tr'),function(r){if(r.cells[col])r.cells[col].style.display=box.checked?'':'none';});
        stick(table);
      });
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
    if isinstance(v, dict):  # "k v" pairs, not Python's repr
        return "; ".join(f"{k} {cell_text(x)}" for k, x in v.items()) if v else "-"
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
               columns: Sequence[str] | None = None, sticky: int = 0, filter_by: str | None = None,
               choosable: bool = False) -> str:
    """A table of dicts (columns: the first row's keys, or `columns`), each number cell carrying
    its exact value in data-v for sorting; sortable by clicking a header (PAGE_JS). A column X
    with columns X_lo and X_hi (geoattn.tables' intervals) shows them in its cells, "v [lo, hi]",
    and they get no column of their own. `sticky`: the leading columns that stay while the table
    scrolls sideways; `filter_by`: a column whose values get buttons that show only their rows
    (with their counts); `choosable`: a column chooser above the table."""
    if not rows:
        return '<p class="note">(none)</p>'
    columns = list(columns or rows[0].keys())
    bounded = {c for c in columns if f"{c}_lo" in columns and f"{c}_hi" in columns}
    columns = [c for c in columns if not (c.endswith(("_lo", "_hi")) and c[:-3] in bounded)]
    numeric = {c: all(r.get(c) is None or is_number(r.get(c)) for r in rows) for c in columns}

    def cls(i, c):  # a cell's classes: text (left), sticky, the last sticky one
        names = ([] if numeric[c] else ["s"]) + (["stick"] if i < sticky else []) + (["last"] if i == sticky - 1 else [])
        return f' class="{" ".join(names)}"' if names else ""

    head = "".join(f'<th{cls(i, c)} title="sort by {esc(c)}">{esc(c)}</th>' for i, c in enumerate(columns))
    body = []
    for r in rows:
        cells = []
        for i, c in enumerate(columns):
            v = r.get(c)
            if numeric[c]:
                raw = "" if v is None or (isinstance(v, float) and not math.isfinite(v)) else repr(v)
                text = cell_text(v)
                if c in bounded and r.get(f"{c}_lo") is not None:
                    text += f" [{cell_text(r[f'{c}_lo'])}, {cell_text(r[f'{c}_hi'])}]"
                cells.append(f'<td{cls(i, c)} data-v="{esc(raw)}">{esc(text)}</td>')
            else:
                cells.append(f'<td{cls(i, c)}>{esc(cell_text(v))}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    tools = ""
    if filter_by in columns:
        counts: dict = {}
        for r in rows:
            counts[cell_text(r.get(filter_by))] = counts.get(cell_text(r.get(filter_by)), 0) + 1
        buttons = [f'<button class="on" data-v="">all ({len(rows)})</button>'] + [
            f'<button data-v="{esc(v)}">{esc(v)} ({n})</button>' for v, n in counts.items()]
        tools += (f'<div class="tools" data-filter="{esc(table_id)}" data-col="{columns.index(filter_by)}">'
                  f'<span>{esc(filter_by)}:</span>{"".join(buttons)}</div>')
    if choosable:
        boxes = "".join(f'<label><input type="checkbox" checked data-col="{i}">{esc(c)}</label>'
                        for i, c in enumerate(columns) if i >= sticky)
        tools += f'<details class="cols" data-table="{esc(table_id)}"><summary>columns</summary>{boxes}</details>'
    sort = ' class="sortable"' if sortable else ""
    return (f'{tools}<div class="wide"><table id="{esc(table_id)}"{sort}><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def collapsed(summary: str, body: str, rows: int, limit: int = 20) -> str:
    """body as is, or inside a closed <details> with `summary` where it has more than `limit`
    rows (a long list out of the reader's way until asked for)."""
    return body if rows <= limit else f"<details><summary>{esc(summary)}</summary>{body}</details>"


def png_data_url(fig: Figure, dpi: int = FIGURE_DPI) -> str:
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
    and the page's script inline."""
    nav = "".join(f'<a href="#{esc(i)}">{esc(h)}</a>' for i, h, _ in sections)
    body = "".join(f'<section id="{esc(i)}"><h2>{esc(h)}</h2>{b}</section>' for i, h, b in sections)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title><link rel=\"icon\" href=\"data:,\">"
            f"<style>{CSS}</style></head><body><h1>{esc(title)}</h1><nav>{nav}</nav>{body}"
            f"<script>{PAGE_JS}</script></body></html>\n")
