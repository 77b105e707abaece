"""The release view of the published site: every case (benchmark + parameters) across library
releases instead of across commits, which asv's own dashboard already plots.

Written by ``python -m dsib_tools site`` beside the dsib report: ``html/dsib/releases.html`` (headline
figures and the 2019 table per release, static), ``releases-data.js`` (the numbers) and
``releases.js`` (a small SVG plotter: asv's dashboard libraries are jQuery plugins we do not need).
A case opens directly at ``releases.html#case=<benchmark>/<param>/<param>…`` (``&view=pandas`` for
the pandas order)."""
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
from asv.util import human_value
from packaging.version import InvalidVersion, Version

from . import suite
from .report import markdown_table, param_names
from .site import WWW, markdown_table_to_html

PUBLISHED_PROFILE = "default"
# Each view orders the environments by these result params, most significant first.
VIEWS = {"pyarrow": ("pyarrow", "pandas", "python"), "pandas": ("pandas", "pyarrow", "python")}
FORMAT_LABELS = {"parquet": "Parquet", "csv": "CSV", "feather": "Feather"}
# (label, [case ids, the first one present wins]): the figures the page opens with. The post's
# cases are also found under their first suite's names, in history taken before the reorganisation.
HEADLINES = (
    [("%s %s, %s" % (FORMAT_LABELS[f], case.label.split()[1].lower(), case.given["variant"]),
      suite.post_case_ids(case, f))
     for case in suite.POST_2019 if "variant" in case.given for f in ("parquet", "csv")]
    + [("%s %s, nyc_taxi plain (every format)" % (FORMAT_LABELS[f], op),
        [suite.case_id(suite.name(cls, method), ["nyc_taxi", f, "plain"])])
       for op, cls, method in (("read", suite.reads.ReadFromPageCache, "time_read"),
                               ("write", suite.writes.WriteToBytes, "time_write"))
       for f in ("parquet", "feather", "csv")])


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
    """"text: Python objects → Arrow-backed str" where the text variants' frames differ in kind
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
                yield ("/".join([name] + given), name, dict(zip(bench["param_names"], given)), bench["unit"], cells,
                       [s.get(combo) if is_number(c) else None for s, c in zip(spreads, cells)])


def headline(cells, order):
    """First and last environment of ``order`` that have a number, and first / last (> 1: faster)."""
    have = [i for i in order if is_number(cells[i])]
    if len(have) < 2:
        return None
    first, last = have[0], have[-1]
    return {"first": first, "last": last, "ratio": cells[first] / cells[last] if cells[last] else None}


def build(results_dir, machine):
    """The page's data, as plain JSON-able structures."""
    from .load import Machine, describe_load

    benchmarks = load_benchmarks(results_dir)
    results = published_results(results_dir, machine, benchmarks)
    loads = Machine(results_dir, machine)
    envs = [dict([(k, res.params.get(k)) for k in ("python", "pyarrow", "pandas", "numpy")],
                 label=release_label(res.params), env_name=res.env_name, commit=res.commit_hash[:8],
                 load=describe_load(loads.run(res)), under_load=len(loads.busy_keys(res)),
                 text=text_kind(res.params))
            for res in results]
    orders = dict((view, sorted(range(len(results)), key=lambda i: [_version(envs[i][k]) for k in keys]))
                  for view, keys in VIEWS.items())
    cases = [{"id": ident, "benchmark": name, "params": params, "unit": unit, "values": cells, "spread": spread,
              "headline": dict((view, headline(cells, order)) for view, order in orders.items())}
             for ident, name, params, unit, cells, spread in case_rows(benchmarks, results)]
    for case in cases:
        for h in case["headline"].values():
            if h is not None:
                h["kinds"] = kind_change(case["params"], results[h["first"]].params, results[h["last"]].params)
    known = set(c["id"] for c in cases)
    names = param_names(results_dir)
    return {"machine": machine, "profile": PUBLISHED_PROFILE, "envs": envs, "views": VIEWS, "orders": orders,
            "cases": cases,
            "headlines": [(label, [i for i in idents if i in known][0]) for label, idents in HEADLINES
                          if any(i in known for i in idents)],
            "tables_2019": [markdown_table(res, names, with_2019=True, load=loads) for res in results]}


def change_text(unit, ratio):
    better = {"seconds": "faster", "bytes": "smaller"}.get(unit, "lower")
    worse = {"seconds": "slower", "bytes": "larger"}.get(unit, "higher")
    if ratio is None:
        return "n/a"
    return "%.2f× %s" % (ratio, better) if ratio >= 1 else "%.2f× %s" % (1 / ratio, worse)


def case_href(ident, view="pyarrow"):
    return "#case=%s" % quote(ident, safe="/") + ("" if view == "pyarrow" else "&view=" + view)


def with_spread(case, i):
    """A cell's median with its interquartile range and sample count, as the page's script shows it."""
    value, spread = case["values"][i], case["spread"][i]
    text = human_value(value, case["unit"])
    if not is_number(value):
        return text
    if not spread:
        return text + " (no spread recorded)"
    if spread[2] == 1:
        return text + " (one sample)"
    if not (is_number(spread[0]) and is_number(spread[1])):
        return text + " (n=%d)" % spread[2]
    return text + " (IQR %s–%s, n=%d)" % (human_value(spread[0], case["unit"]), human_value(spread[1], case["unit"]),
                                         spread[2])


def _headline_rows(data):
    by_id = dict((c["id"], c) for c in data["cases"])
    envs = data["envs"]
    rows = []
    for label, ident in data["headlines"]:
        case = by_id[ident]
        h = case["headline"]["pyarrow"]
        link = "<a href='%s'>%s</a>" % (case_href(ident), html.escape(label))
        if h is None:
            only = [i for i, v in enumerate(case["values"]) if is_number(v)][0]
            rows.append("<tr><td>%s</td><td colspan='3'>only %s measured: %s</td><td>n/a</td></tr>"
                        % (link, html.escape(envs[only]["label"]), with_spread(case, only)))
            continue
        first, last = (envs[h[k]]["label"] for k in ("first", "last"))
        before, after = (with_spread(case, h[k]) for k in ("first", "last"))
        rows.append("<tr class='headline' data-case='%s'><td>%s</td><td>%s → %s</td><td>%s</td><td>%s</td>"
                    "<td class='ratio' data-ratio='%r'>%s</td></tr>" % (
                        html.escape(ident), link, html.escape(first), html.escape(last), before, after, h["ratio"],
                        change_text(case["unit"], h["ratio"]) + (" (%s)" % html.escape(h["kinds"]) if h["kinds"] else "")))
    return rows or ["<tr><td colspan='5'>none of the headline cases has a result at benchmarks.json's "
                    "versions</td></tr>"]


def render(data):
    envs = data["envs"]
    newest = data["orders"]["pyarrow"][-1] if envs else None
    options = "".join("<option value='%d'%s>%s</option>" % (i, " selected" if i == newest else "",
                                                            html.escape(envs[i]["label"]) +
                                                            (" (under load)" if envs[i]["under_load"] else ""))
                      for i in data["orders"]["pyarrow"])
    loads = "".join("<tr><td>%s</td><td><code>%s</code></td><td>%s</td><td>%s</td><td>%s</td></tr>" % (
        html.escape(envs[i]["label"]), envs[i]["commit"], html.escape(envs[i]["text"]), html.escape(envs[i]["load"]),
        envs[i]["under_load"] or "") for i in data["orders"]["pyarrow"])
    tables = "".join("<div class='table-2019' data-env='%d'%s>%s</div>" % (
        i, "" if i == newest else " hidden", markdown_table_to_html(t)) for i, t in enumerate(data["tables_2019"]))
    return """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>dsib: releases</title>
<link rel="icon" href="../swallow.ico">
<style>
body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}
#layout{display:flex;gap:1.5em;align-items:flex-start}
#case-panel{width:26em;flex:none}#case-list{height:32em;overflow-y:scroll;border:1px solid #ccc;
margin:0;padding:0;list-style:none;font-size:12px}#case-list li{padding:1px 4px}
#case-list li.selected{background:#dde8f8}#case-filter{width:100%%;box-sizing:border-box}
#plot svg{border:1px solid #ddd;background:#fff}.views a{margin-right:1em}.views a.active{font-weight:bold}
.axis{font-size:11px;fill:#444}.series polyline{fill:none;stroke-width:2}.series line.iqr{stroke-width:1.5}
</style></head><body>
<p><a href="../index.html">&larr; asv dashboard</a> · <a href="index.html">dsib report</a></p>
<h1>Across releases</h1>
<p>Machine <code>%(machine)s</code>, profile <code>%(profile)s</code>; %(n_envs)d release combinations, each at its
newest commit; %(n_cases)d cases (one per benchmark and parameters). Values are asv's medians; a bar through
a point is its interquartile range, and the table under a plot gives each median's range and number of samples;
a gap is a case skipped or failed in that environment.</p>
<h2 id="headlines">Headline figures</h2>
<p>Oldest against newest release, in pyarrow order, that both have the case, on this machine.</p>
<table><thead><tr><th>Case</th><th>Releases</th><th>Before</th><th>After</th><th>Change</th></tr></thead>
<tbody>%(headlines)s</tbody></table>
<h2 id="plot-section">Every case</h2>
<p class="views">Order by: <a id="view-pyarrow" href="#view=pyarrow">pyarrow release</a>
<a id="view-pandas" href="#view=pandas">pandas release</a></p>
<div id="layout">
<div id="case-panel"><input id="case-filter" type="search" placeholder="filter cases: e.g. grid read parquet plain">
<p id="case-count"></p><ul id="case-list"></ul></div>
<div id="plot-panel"><h3 id="case-title"></h3><p id="case-headline"></p><div id="plot"></div>
<table id="case-values"></table></div>
</div>
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
<script src="releases-data.js"></script>
<script src="releases.js"></script>
</body></html>
""" % {"machine": html.escape(data["machine"]), "profile": html.escape(data["profile"]), "n_envs": len(envs),
       "n_cases": len(data["cases"]), "headlines": "\n".join(_headline_rows(data)), "options": options,
       "tables": tables, "loads": loads}


def write(html_dir, results_dir, machine):
    """Write html/dsib/releases.html with its data and script; returns the page's path."""
    data = build(results_dir, machine)
    out = os.path.join(html_dir, "dsib")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "releases-data.js"), "w") as f:
        # allow_nan=False: JSON has no NaN; a skipped case is spelled "skipped" by _cell.
        numbers = dict((k, v) for k, v in data.items() if k != "tables_2019")  # the tables are in the page
        # 4 significant digits plot the same and halve the file; the ratios were taken before.
        numbers["cases"] = [dict(c, values=[float("%.4g" % v) if is_number(v) else v for v in c["values"]],
                                 spread=[[float("%.4g" % q) if is_number(q) else None for q in sp[:2]] + sp[2:]
                                         if sp else None for sp in c["spread"]])
                            for c in data["cases"]]
        f.write("window.DSIB_RELEASES = %s;\n" % json.dumps(numbers, allow_nan=False, separators=(",", ":")))
    shutil.copy(os.path.join(WWW, "releases.js"), os.path.join(out, "releases.js"))
    path = os.path.join(out, "releases.html")
    with open(path, "w") as f:
        f.write(render(data))
    return path
