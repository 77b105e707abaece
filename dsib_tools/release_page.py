"""The release view's page of one machine (``releases.html``): its headline table, the 2019 table
per release and the case picker the script fills; the figures' text (ratios, sizes, spreads) and
the pages' names, shared with the steps page."""

import decimal
import html
import math
from urllib.parse import quote

from . import vendor_js
from .matrix import NEWEST_ONLY_NOTE
from .release_data import NOT_IN_MATRIX, is_number, kind_change
from .site import table_to_html


def change_text(unit, ratio):
    better = {"seconds": "faster", "bytes": "smaller", "instructions": "fewer"}.get(unit, "lower")
    worse = {"seconds": "slower", "bytes": "larger", "instructions": "more"}.get(unit, "higher")
    if ratio is None:
        return "n/a"
    return "%.2f× %s" % (ratio, better) if ratio >= 1 else "%.2f× %s" % (1 / ratio, worse)


# The units' steps, as the page's script has them (www/releases.js: STEPS), so that a figure reads
# the same on the steps page, in a headline and in the script's table. Memory and sizes in MiB
# (1 MiB = 2**20 bytes), as the README and the report give them.
BYTE_STEPS = ((1, "B"), (2**10, "KiB"), (2**20, "MiB"), (2**30, "GiB"), (2**40, "TiB"))
STEPS = {
    "seconds": ((1e-9, "ns"), (1e-6, "μs"), (1e-3, "ms"), (1, "s"), (60, "m"), (3600, "h")),
    "bytes": BYTE_STEPS,
}


def human(value, unit):
    """A median as the page's script writes it (www/releases.js: human)."""
    if not is_number(value):
        return "—" if value is None else str(value)
    if value == 0:
        return "0"
    steps = STEPS.get(unit, ((1, ""),))
    factor, suffix = ([step for step in steps if abs(value) >= step[0]] or steps[:1])[-1]
    return _number(value / factor) + suffix


def _number(x):
    """Three significant digits without trailing zeros, halves rounded up as JavaScript's
    toPrecision rounds them; a whole number from 1000 on (www/releases.js: number)."""
    if abs(x) >= 999.5:
        return "%d" % math.floor(x + 0.5)
    exact = decimal.Decimal(x)
    rounded = exact.quantize(decimal.Decimal(1).scaleb(exact.adjusted() - 2), rounding=decimal.ROUND_HALF_UP)
    text = format(rounded, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def page_name(machine, reference):
    """The reference machine's release view is releases.html; another machine's has its own page."""
    return "releases.html" if reference else "releases-%s.html" % quote(machine, safe="")


def data_name(machine, reference):
    return "releases-data.js" if reference else "releases-data-%s.js" % quote(machine, safe="")


REGRESSIONS_PAGE = "release-regressions.html"


def case_href(ident, view="pyarrow", page=""):
    return page + "#case=%s" % quote(ident, safe="/") + ("" if view == "pyarrow" else "&view=" + view)


def case_label(case):
    """The case's name as the page's script writes it: benchmark (param=value, …)."""
    given = ", ".join("%s=%s" % kv for kv in case["params"].items())
    return case["benchmark"] + (" (%s)" % given if given else "")


def with_spread(case, i):
    """A cell's median with its interquartile range and sample count, as the page's script shows it."""
    value, spread = case["values"][i], case["spread"][i]
    text = human(value, case["unit"])
    if not is_number(value):
        return text
    if not spread:
        return text + " (no spread recorded)"
    if spread[2] == 1:
        return text + " (one sample)"
    if not (is_number(spread[0]) and is_number(spread[1])):
        return text + " (n=%d)" % spread[2]
    return text + " (IQR %s–%s, n=%d)" % (human(spread[0], case["unit"]), human(spread[1], case["unit"]), spread[2])


def _against_newest(case, h, which):
    if h[which] == h["newest"]:
        text = "the newest is the best"
    else:
        text = change_text(case["unit"], h[which + "_ratio"])
        if h[which + "_kinds"]:
            text += " (%s)" % h[which + "_kinds"]
    return "<td class='ratio %s' data-ratio='%r'>%s</td>" % (which, h[which + "_ratio"], html.escape(text))


def _step_text(case, envs, before, after, ratio):
    """One step of a headline: its releases, its change, and what differs besides the libraries'
    speed (a kind of frame, a default that changed the file)."""
    kinds = kind_change(case, envs[before], envs[after])
    return "%s → %s: %s" % (
        html.escape(envs[before]["label"]),
        html.escape(envs[after]["label"]),
        html.escape(change_text(case["unit"], 1 / ratio) + (" (%s)" % kinds if kinds else "")),
    )


def _headline_rows(data):
    by_id = dict((c["id"], c) for c in data["cases"])
    envs = data["envs"]
    rows = []
    for label, ident in data["headlines"]:
        case = by_id[ident]
        h = case["headline"]["pyarrow"]
        link = "<a class='case-link' href='%s'>%s</a>" % (case_href(ident), html.escape(label))
        if h is None:
            only = [i for i, v in enumerate(case["values"]) if is_number(v)][0]
            rows.append(
                "<tr><td>%s</td><td colspan='6'>only %s measured: %s</td></tr>"
                % (link, html.escape(envs[only]["label"]), html.escape(with_spread(case, only)))
            )
            continue
        cells = [
            "<td class='%s' data-release='%d'>%s<br>%s</td>"
            % (which, h[which], html.escape(envs[h[which]]["label"]), html.escape(with_spread(case, h[which])))
            for which in ("best", "previous", "newest")
        ]
        steps = "<br>".join(_step_text(case, envs, a, b, ratio) for a, b, ratio in case["steps"]["pyarrow"]) or "none"
        rows.append(
            "<tr class='headline' data-case='%s'><td>%s</td>%s%s%s<td class='steps'>%s</td></tr>"
            % (
                html.escape(ident),
                link,
                "".join(cells),
                _against_newest(case, h, "best"),
                _against_newest(case, h, "previous"),
                steps,
            )
        )
    return rows or [
        "<tr><td colspan='7'>none of the headline cases has a result at benchmarks.json's versions</td></tr>"
    ]


STYLE = """body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}"""


def _machine_options(machines, current):
    return "".join(
        "<option value='%s'%s>%s</option>"
        % (html.escape(page_name(m, i == 0), quote=True), " selected" if m == current else "", html.escape(m))
        for i, m in enumerate(machines)
    )


def _newest_only_text(data):
    """Which benchmarks the page has from the newest environment only, and why."""
    names = sorted(set(c["benchmark"] for c in data["cases"] if c["newest_only"]))
    if not names:
        return "Every case of this page is in the release matrix's selection."
    return (
        "%d of its cases are %s: their cells in the other releases say &ldquo;%s&rdquo;. Their benchmarks "
        "(all of their cases, or those the selection leaves out): %s."
        % (
            sum(1 for c in data["cases"] if c["newest_only"]),
            html.escape(NEWEST_ONLY_NOTE),
            NOT_IN_MATRIX,
            ", ".join("<code>%s</code>" % html.escape(n) for n in names),
        )
    )


def render(data, machines):
    """The release view of ``data["machine"]``; ``machines``: every published one, the reference first."""
    envs = data["envs"]
    newest = data["orders"]["pyarrow"][-1] if envs else None
    options = "".join(
        "<option value='%d'%s>%s</option>"
        % (
            i,
            " selected" if i == newest else "",
            html.escape(envs[i]["label"]) + (" (under load)" if envs[i]["under_load"] else ""),
        )
        for i in data["orders"]["pyarrow"]
    )
    loads = "".join(
        "<tr><td>%s</td><td><code>%s</code></td><td>%s</td><td>%s</td><td>%s</td></tr>"
        % (
            html.escape(envs[i]["label"]),
            envs[i]["commit"],
            html.escape(envs[i]["text"]),
            html.escape(envs[i]["load"]),
            envs[i]["under_load"] or "",
        )
        for i in data["orders"]["pyarrow"]
    )
    tables = "".join(
        "<div class='table-2019' data-env='%d'%s>%s</div>"
        % (i, "" if i == newest else " hidden", table_to_html(t, "table-2019-%d" % i))
        for i, t in enumerate(data["tables_2019"])
    )
    return """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>dsib: releases</title>
<link rel="icon" href="../swallow.ico">
<style>
%(style)s
#layout{display:flex;gap:1.5em;align-items:flex-start}
#case-panel{width:26em;flex:none}#case-list{height:32em;overflow-y:scroll;border:1px solid #ccc;
margin:0;padding:0;list-style:none;font-size:12px}#case-list li{padding:1px 4px}
#case-list li.selected{background:#dde8f8}#case-filter{width:100%%;box-sizing:border-box}
#plot svg{border:1px solid #ddd;background:#fff}.views a{margin-right:1em}.views a.active{font-weight:bold}
.axis{font-size:11px;fill:#444}.series polyline{fill:none;stroke-width:2}.series line.iqr{stroke-width:1.5}
.legend{font-size:11px}#case-unknown{color:#b00;font-weight:bold}
#compare-table td.slower{color:#b00}#compare-table td.faster{color:#070}
</style></head><body>
<p><a href="../index.html">&larr; asv dashboard</a> · <a href="index.html">dsib report</a> ·
<a href="%(regressions)s">steps between releases</a></p>
<h1>Across releases</h1>
<p><label>Machine <select id="machine-select">%(machines)s</select></label></p>
<p>Machine <code>%(machine)s</code>, profile <code>%(profile)s</code>; %(n_envs)d release combinations, each at its
newest commit; %(n_cases)d cases (one per benchmark and parameters). Values are asv's medians; a bar through
a point is its interquartile range, and the table under a plot gives each median's range and number of samples;
a gap is a case skipped or failed in that environment. Memory and sizes are in MiB (2<sup>20</sup> bytes).</p>
<p id="newest-only">%(newest_only)s</p>
<h2 id="headlines">Headline figures</h2>
<p>Per case, in pyarrow order, on this machine: the best release (lowest median), the one before the newest and
the newest, and how the newest compares with the other two. Steps up: where asv's step detection, run along the
releases, finds the case slower or larger (every case's steps: <a href="%(regressions)s">steps between
releases</a>).</p>
<table id="headline-table"><thead><tr><th>Case</th><th>Best</th><th>Previous</th><th>Newest</th>
<th>Newest against best</th><th>Newest against previous</th><th>Steps up</th></tr></thead>
<tbody>%(headlines)s</tbody></table>
<h2 id="plot-section">Every case</h2>
<p class="views">Order by: <a id="view-pyarrow" href="#view=pyarrow">pyarrow release</a>
<a id="view-pandas" href="#view=pandas">pandas release</a></p>
<p id="case-unknown" hidden></p>
<div id="layout">
<div id="case-panel"><input id="case-filter" type="search" placeholder="filter cases: e.g. grid read parquet plain">
<p id="case-count"></p><ul id="case-list"></ul></div>
<div id="plot-panel"><h3 id="case-title"></h3><p id="case-headline"></p><div id="plot"></div>
<table id="case-values"></table></div>
</div>
<h2 id="compare">Compare two releases</h2>
<p>What <code>python -m dsib_tools compare-versions</code> prints, for two releases of this page: each case's
medians with their spread and after / before. + slower (or larger) by 10 %% or more, - faster (or smaller) by
10 %% or more, ~ such a change whose interquartile ranges overlap (compare-versions applies asv's test to the
samples, which this page does not carry); a figure without a range (one sample) is judged by its ratio alone.</p>
<p><label>Before <select id="compare-a"></select></label> <label>After <select id="compare-b"></select></label>
<label><input type="checkbox" id="compare-changed" checked> only changes of 10 %% or more</label></p>
<p id="compare-note"></p>
<table id="compare-table"></table>
<h2 id="table-2019">The 2019 post's table, for one release</h2>
<p><select id="table-2019-env">%(options)s</select></p>
%(tables)s
<h2 id="machine-load">Releases: their text, their machine load</h2>
<p>The str and cat frames hold Python str objects before pandas 3 and pandas' Arrow-backed <code>str</code>
from pandas 3 on: a str or cat figure across that line compares two different frames, and its headline says
so. Load: what else the machine was doing while each release's run went (<code>make bench</code> logs it beside
the results). A figure of a benchmark that ran while other processes used a quarter of a core or more, or while
the hypervisor took 5 %% or more, is marked "(under load)" in the tables.</p>
<table><thead><tr><th>Release</th><th>Commit</th><th>Text in the str and cat frames</th><th>Load over the run</th>
<th>Benchmarks under load</th></tr></thead><tbody>%(loads)s</tbody></table>
<noscript><p>The plots need JavaScript; the figures above do not.</p></noscript>
<script src="%(data)s"></script>
%(library)s<script src="releases.js"></script>
</body></html>
""" % {
        "style": STYLE,
        "machine": html.escape(data["machine"]),
        "profile": html.escape(data["profile"]),
        "n_envs": len(envs),
        "n_cases": len(data["cases"]),
        "headlines": "\n".join(_headline_rows(data)),
        "newest_only": _newest_only_text(data),
        "options": options,
        "tables": tables,
        "loads": loads,
        "regressions": REGRESSIONS_PAGE,
        "machines": _machine_options(machines, data["machine"]),
        "data": html.escape(data_name(data["machine"], data["machine"] == machines[0]), quote=True),
        "library": "".join("<script src='../vendor/%s'></script>\n" % path for path in vendor_js.scripts()),
    }
