"""The release view of the published site: every case (benchmark + parameters) across library
releases instead of across commits, which asv's own dashboard already plots.

Written by ``python -m dsib_tools site`` beside the dsib report: ``html/dsib/releases.html`` (headline
figures and the 2019 table per release, static), ``releases-data.js`` (the numbers) and
``releases.js`` (its plots are Vega-Lite's: the site's vendored chart library, dsib_tools/vendor_js.py).
A case opens directly at ``releases.html#case=<benchmark>/<param>/<param>…`` (``&view=pandas`` for
the pandas order). Another published machine has ``releases-<machine>.html`` and its data file; a
selector on each page goes between them. ``release-regressions.html`` lists the steps up that asv's
step detection finds along each case's releases, for every machine."""

import html
import itertools
import json
import math
import os
import shutil
from urllib.parse import quote

from asv.benchmarks import Benchmarks
from asv.config import Config
from asv.results import iter_results_for_machine
from asv.step_detect import solve_potts_approx
from asv.util import human_value
from packaging.version import InvalidVersion, Version

from . import suite
from .matrix import NEWEST_ONLY_NOTE, in_release
from .report import markdown_table, param_names
from . import vendor_js
from .site import WWW, markdown_table_to_html

PUBLISHED_PROFILE = "default"
# Each view orders the environments by these result params, most significant first.
VIEWS = {"pyarrow": ("pyarrow", "pandas", "python"), "pandas": ("pandas", "pyarrow", "python")}
FORMAT_LABELS = {"parquet": "Parquet", "csv": "CSV", "feather": "Feather"}
# (label, [case ids, the first one present wins]): the figures the page opens with. The post's
# cases are also found under their first suite's names, in history taken before the reorganisation.
HEADLINES = [
    (
        "%s %s, %s" % (FORMAT_LABELS[f], case.label.split()[1].lower(), case.given["variant"]),
        suite.post_case_ids(case, f),
    )
    for case in suite.POST_2019
    if "variant" in case.given
    for f in ("parquet", "csv")
] + [
    (
        "%s %s, nyc_taxi plain (every format)" % (FORMAT_LABELS[f], op),
        [suite.case_id(suite.name(cls, method), ["nyc_taxi", f, "plain"])],
    )
    for op, cls, method in (
        ("read", suite.reads.ReadFromPageCache, "time_read"),
        ("write", suite.writes.WriteToBytes, "time_write"),
    )
    for f in ("parquet", "feather", "csv")
]


def _version(text):
    try:
        return Version(text)
    except (InvalidVersion, TypeError):
        return Version("0")  # the library is absent from that environment: first in its order


def release_label(params):
    return "pyarrow %s / pandas %s / py%s" % tuple(params.get(k) or "-" for k in ("pyarrow", "pandas", "python"))


# The str and cat frames are built from Python str objects (data_prep.frames); pandas 3 stores
# such text as its Arrow-backed "str" dtype where pyarrow is installed, earlier pandas as objects.
# A str or cat figure across that line compares two different frames, and says so.
TEXT_VARIANTS = ("str", "cat")


def text_kind(params):
    """What the text of the str and cat frames is in an environment of these pins."""
    pandas = params.get("pandas")
    if not pandas or _version(pandas) < Version("3"):
        return "Python objects"
    return "Arrow-backed str" if params.get("pyarrow") else "Python-backed str"


def text_change(before, after):
    """ "text: Python objects → Arrow-backed str" where the text variants' frames differ in kind
    between two environments' pins; None where they are alike."""
    kinds = text_kind(before), text_kind(after)
    return None if kinds[0] == kinds[1] else "text: %s → %s" % kinds


def kind_change(case_params, before, after):
    """``text_change`` for a case of a text variant; None for any other case."""
    return text_change(before, after) if case_params.get("variant") in TEXT_VARIANTS else None


def asv_config(results_dir):
    """The little of asv's Config that its loaders read: where the results are."""
    conf = Config()
    conf.results_dir = results_dir
    return conf


def load_benchmarks(results_dir):
    return Benchmarks.load(asv_config(results_dir))


def drop_stale_results(res, benchmarks):
    """What asv publish does: a result whose benchmark version is not benchmarks.json's is ignored."""
    for key in set(res.get_all_result_keys()) - res.get_result_keys(benchmarks):
        res.remove_result(key)
    return res


def published_results(results_dir, machine, benchmarks):
    """One asv Results per release (python, pyarrow, pandas) at the published scale: the newest
    commit's. An environment rebuilt with other optional libraries but the same releases is the
    same point on the x-axis, so the newer of the two stands for it."""
    newest = {}
    for res in iter_results_for_machine(results_dir, machine):
        if (res.env_vars or {}).get("DSIB_PROFILE") != PUBLISHED_PROFILE:
            continue
        key = release_label(res.params)
        age = (res.date or 0, max(res.started_at.values() or [0]))
        if key not in newest or age > newest[key][0]:
            newest[key] = (age, res)
    results = [drop_stale_results(res, benchmarks) for _, res in newest.values()]
    return sorted(results, key=lambda r: [_version(r.params.get(k)) for k in VIEWS["pyarrow"]])


def _cell(value):
    """JSON for one value: a number, "skipped" (asv's NaN) or "failed" (asv's None)."""
    if value is None:
        return "failed"
    return "skipped" if math.isnan(value) else value


def is_number(cell):
    return isinstance(cell, (int, float)) and not isinstance(cell, bool)


def _stored(res, name):
    """{parameter combination: cell} of one benchmark in one Results; empty where it did not run."""
    if name not in res.get_all_result_keys():
        return {}
    params = res.get_result_params(name)
    return dict(zip(itertools.product(*params), map(_cell, res.get_result_value(name, params))))


def _spread(stats):
    """[q_25, q_75, samples] of one cell's asv statistics; None where the run kept none."""
    if not stats or stats.get("repeat") is None:
        return None
    return [stats.get("q_25"), stats.get("q_75"), stats["repeat"]]


def _stored_spread(res, name):
    """{parameter combination: spread} of one benchmark in one Results."""
    if name not in res.get_all_result_keys():
        return {}
    params = res.get_result_params(name)
    stats = res.get_result_stats(name, params) or []
    return dict(zip(itertools.product(*params), map(_spread, stats)))


def case_rows(benchmarks, results):
    """(id, benchmark, {param: value}, unit, [cell per environment], [spread per environment]) for
    every case with a number; a cell is None where the environment has no result for the case, a
    spread [q_25, q_75, samples] or None."""
    for name in sorted(benchmarks):
        bench = benchmarks[name]
        stored = [_stored(res, name) for res in results]
        spreads = [_stored_spread(res, name) for res in results]
        for combo in itertools.product(*bench["params"]):
            cells = [s.get(combo) for s in stored]
            if any(map(is_number, cells)):
                given = [p.strip("'\"") for p in combo]
                yield (
                    "/".join([name] + given),
                    name,
                    dict(zip(bench["param_names"], given)),
                    bench["unit"],
                    cells,
                    [s.get(combo) if is_number(c) else None for s, c in zip(spreads, cells)],
                )


def summary(cells, order):
    """Per case in one order of releases: the best release (lowest median: every unit here is
    seconds or bytes), the previous and the newest that have a number, and best / newest and
    previous / newest (> 1: the newest is faster or smaller); None where fewer than two have one."""
    have = [i for i in order if is_number(cells[i])]
    if len(have) < 2:
        return None
    newest, previous = have[-1], have[-2]
    best = min(have, key=lambda i: cells[i])

    def ratio(i):
        return cells[i] / cells[newest] if cells[newest] else None

    return {
        "best": best,
        "previous": previous,
        "newest": newest,
        "best_ratio": ratio(best),
        "previous_ratio": ratio(previous),
    }


# asv's step detection fits a piecewise-constant level to the log of the medians (so that a step is a
# ratio whatever the case's scale), paying log(STEP_PENALTY) per new level: with one point per release
# (asv's autogamma expects a long commit history and fits a single level to 14 points), a lasting
# shift or a one-release spike of about this ratio or more becomes a step.
STEP_PENALTY = 1.25


def _disjoint(a, b):
    """Whether two [q_25, q_75, n] spreads are known and do not overlap."""
    if not (a and b and a[2] > 1 and b[2] > 1 and all(is_number(q) for q in a[:2] + b[:2])):
        return False
    return a[0] > b[1] or b[0] > a[1]


def steps_up(cells, spread, order, penalty=STEP_PENALTY):
    """The upward steps (slower, larger) of one case along ``order``: (before, after, after / before)
    between neighbouring releases with numbers where asv's Potts solver starts a new level, the
    ratio is ``penalty`` or more, and the two interquartile ranges do not overlap (where either
    release has one sample, the ratio alone decides)."""
    have = [i for i in order if is_number(cells[i]) and cells[i] > 0]
    if len(have) < 2:
        return []
    right, _, _ = solve_potts_approx([math.log(cells[i]) for i in have], [1.0] * len(have), gamma=math.log(penalty))
    found = []
    for boundary in right[:-1]:
        before, after = have[boundary - 1], have[boundary]
        ratio = cells[after] / cells[before]
        sampled = all(spread[i] and spread[i][2] > 1 for i in (before, after))
        if ratio >= penalty and (_disjoint(spread[before], spread[after]) or not sampled):
            found.append((before, after, ratio))
    return found


# A cell of a case outside the release-tracking selection, in an environment other than the newest:
# not a gap (skipped, failed, missing), a case the release matrix does not run.
NOT_IN_MATRIX = "newest only"


def _current_names():
    return set(suite.name(cls, m) for cls in suite.classes() for m in suite.methods(cls))


def mark_newest_only(case, newest, current=None):
    """A case of the suite outside the release matrix's selection (``matrix.RELEASE``) is measured
    on the newest environment only (``newest``: its index): where no other environment has a
    number for it, it says so, and those environments' cells that hold nothing say why instead of
    being gaps (asv's skipped, which is what a run's -b writes for a cell it leaves out, or
    nothing). The first suite's names (history taken in every environment) are left as they are."""
    current = _current_names() if current is None else current
    elsewhere = any(is_number(v) for i, v in enumerate(case["values"]) if i != newest)
    if case["benchmark"] not in current or elsewhere or in_release(case["benchmark"], list(case["params"].values())):
        case["newest_only"] = None
        return case
    case["newest_only"] = NEWEST_ONLY_NOTE
    # asv writes a cell that a run's -b leaves out as skipped (NaN): here, the selection left it out.
    case["values"] = [
        NOT_IN_MATRIX if v in (None, "skipped") and i != newest else v for i, v in enumerate(case["values"])
    ]
    return case


def build(results_dir, machine):
    """The page's data, as plain JSON-able structures."""
    from .machine_load import Machine, describe_load

    benchmarks = load_benchmarks(results_dir)
    results = published_results(results_dir, machine, benchmarks)
    loads = Machine(results_dir, machine)
    envs = [
        dict(
            [(k, res.params.get(k)) for k in ("python", "pyarrow", "pandas", "numpy")],
            label=release_label(res.params),
            env_name=res.env_name,
            commit=res.commit_hash[:8],
            load=describe_load(loads.run(res)),
            under_load=len(loads.busy_keys(res)),
            text=text_kind(res.params),
        )
        for res in results
    ]
    orders = dict(
        (view, sorted(range(len(results)), key=lambda i: [_version(envs[i][k]) for k in keys]))
        for view, keys in VIEWS.items()
    )
    cases = [
        {
            "id": ident,
            "benchmark": name,
            "params": params,
            "unit": unit,
            "values": cells,
            "spread": spread,
            "headline": dict((view, summary(cells, order)) for view, order in orders.items()),
            "steps": dict((view, steps_up(cells, spread, order)) for view, order in orders.items()),
        }
        for ident, name, params, unit, cells, spread in case_rows(benchmarks, results)
    ]
    current = _current_names()
    for case in cases:
        mark_newest_only(case, orders["pyarrow"][-1] if results else None, current)
        for h in case["headline"].values():
            if h is not None:
                for which in ("best", "previous"):
                    h[which + "_kinds"] = kind_change(
                        case["params"], results[h[which]].params, results[h["newest"]].params
                    )
    known = set(c["id"] for c in cases)
    names = param_names(results_dir)
    return {
        "machine": machine,
        "profile": PUBLISHED_PROFILE,
        "envs": envs,
        "views": VIEWS,
        "orders": orders,
        "cases": cases,
        "headlines": [
            (label, [i for i in idents if i in known][0])
            for label, idents in HEADLINES
            if any(i in known for i in idents)
        ],
        "tables_2019": [markdown_table(res, names, with_2019=True, load=loads) for res in results],
    }


def change_text(unit, ratio):
    better = {"seconds": "faster", "bytes": "smaller"}.get(unit, "lower")
    worse = {"seconds": "slower", "bytes": "larger"}.get(unit, "higher")
    if ratio is None:
        return "n/a"
    return "%.2f× %s" % (ratio, better) if ratio >= 1 else "%.2f× %s" % (1 / ratio, worse)


# Memory and sizes in MiB (1 MiB = 2**20 bytes), as the README and the report give them.
BYTE_STEPS = ((1, "B"), (2**10, "KiB"), (2**20, "MiB"), (2**30, "GiB"), (2**40, "TiB"))


def human(value, unit):
    """A median as the page's script writes it: asv's human_value for times, binary units for bytes."""
    if unit != "bytes" or not is_number(value):
        return human_value(value, unit)
    factor, suffix = [step for step in BYTE_STEPS if abs(value) >= step[0]][-1] if abs(value) >= 1 else BYTE_STEPS[0]
    scaled = value / factor
    return ("%d" % round(scaled) if abs(scaled) >= 1000 else "%.3g" % scaled) + suffix


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
        steps = (
            "<br>".join(
                "%s → %s: %s"
                % (html.escape(envs[a]["label"]), html.escape(envs[b]["label"]), change_text(case["unit"], 1 / ratio))
                for a, b, ratio in case["steps"]["pyarrow"]
            )
            or "none"
        )
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
        % (i, "" if i == newest else " hidden", markdown_table_to_html(t))
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


def _step_rows(data, view, page):
    envs = data["envs"]
    steps = sorted(
        ((ratio, case, before, after) for case in data["cases"] for before, after, ratio in case["steps"][view]),
        key=lambda s: (-s[0], s[1]["id"]),
    )
    rows = []
    for ratio, case, before, after in steps:
        kinds = kind_change(case["params"], envs[before], envs[after])
        rows.append(
            "<tr class='step' data-case='%s'><td><a href='%s'>%s</a></td><td>%s</td><td>%s</td><td>%s</td>"
            "<td>%s</td><td class='ratio' data-ratio='%r'>%s</td></tr>"
            % (
                html.escape(case["id"], quote=True),
                html.escape(case_href(case["id"], view, page), quote=True),
                html.escape(case_label(case)),
                html.escape(envs[before]["label"]),
                html.escape(envs[after]["label"]),
                html.escape(with_spread(case, before)),
                html.escape(with_spread(case, after)),
                ratio,
                html.escape(change_text(case["unit"], 1 / ratio) + (" (%s)" % kinds if kinds else "")),
            )
        )
    return rows


def render_regressions(datas):
    """Every upward step of every case, per published machine (the reference first) and order."""
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>dsib: steps between releases</title>",
        "<link rel='icon' href='../swallow.ico'><style>%s</style></head><body>" % STYLE,
        "<p><a href='../index.html'>&larr; asv dashboard</a> · <a href='index.html'>dsib report</a> · "
        "<a href='releases.html'>releases</a></p>",
        "<h1>Steps between releases</h1>",
        "<p>asv's step detection (<code>asv.step_detect</code>: its Potts solver, as asv runs it along the "
        "commits) run along the releases of each case, in each order of the release view, on the log of the "
        "medians, so that a step is a ratio. Listed: the steps up (slower, or more memory or bytes) of "
        "%.2f× or more between neighbouring releases whose interquartile ranges do not overlap, or where "
        "either release has one sample. A step that a later release undoes is listed too: a spike is a "
        "regression of that release. Largest first.</p>" % STEP_PENALTY,
    ]
    for k, data in enumerate(datas):
        page = page_name(data["machine"], k == 0)
        for view in VIEWS:
            rows = _step_rows(data, view, page)
            parts.append(
                "<h2 id='%s-%s'>Machine %s, in %s order: %d steps</h2>"
                % (html.escape(data["machine"], quote=True), view, html.escape(data["machine"]), view, len(rows))
            )
            parts.append(
                "<table class='steps' data-machine='%s' data-view='%s'><thead><tr><th>Case</th>"
                "<th>From</th><th>To</th><th>Before</th><th>After</th><th>Change</th></tr></thead>"
                "<tbody>%s</tbody></table>"
                % (
                    html.escape(data["machine"], quote=True),
                    view,
                    "\n".join(rows) or "<tr><td colspan='6'>none</td></tr>",
                )
            )
    parts.append("</body></html>")
    return "\n".join(parts)


def write(html_dir, results_dir, machine, *others):
    """The release view of ``machine`` (html/dsib/releases.html) and of each of ``others`` (their own
    pages, one machine selector across them), their data and script, and the steps page; returns
    the pages' paths."""
    machines = [machine] + list(others)
    datas = [build(results_dir, m) for m in machines]
    out = os.path.join(html_dir, "dsib")
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.join(WWW, "releases.js"), os.path.join(out, "releases.js"))
    vendor_js.copy_into(html_dir)
    paths = []
    for k, data in enumerate(datas):
        with open(os.path.join(out, data_name(data["machine"], k == 0)), "w") as f:
            # allow_nan=False: JSON has no NaN; a skipped case is spelled "skipped" by _cell.
            numbers = dict((key, v) for key, v in data.items() if key != "tables_2019")  # the tables are in the page
            # 4 significant digits plot the same and halve the file; the ratios were taken before. The
            # steps are on their own page.
            numbers["cases"] = [
                dict(
                    [(key, v) for key, v in c.items() if key != "steps"],
                    values=[float("%.4g" % v) if is_number(v) else v for v in c["values"]],
                    spread=[
                        [float("%.4g" % q) if is_number(q) else None for q in sp[:2]] + sp[2:] if sp else None
                        for sp in c["spread"]
                    ],
                )
                for c in data["cases"]
            ]
            f.write("window.DSIB_RELEASES = %s;\n" % json.dumps(numbers, allow_nan=False, separators=(",", ":")))
        paths.append(os.path.join(out, page_name(data["machine"], k == 0)))
        with open(paths[-1], "w") as f:
            f.write(render(data, machines))
    paths.append(os.path.join(out, REGRESSIONS_PAGE))
    with open(paths[-1], "w") as f:
        f.write(render_regressions(datas))
    return paths
