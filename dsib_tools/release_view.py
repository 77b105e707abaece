"""The release view of the published site: every case (benchmark + parameters) across library
releases instead of across commits, which asv's own dashboard already plots.

Written by ``python -m dsib_tools site build`` beside the dsib report: ``html/dsib/releases.html`` (headline
figures and the 2019 table per release, static), ``releases-data.js`` (the numbers) and
``releases.js`` (its plots are Vega-Lite's: the site's vendored chart library, dsib_tools/vendor_js.py).
A case opens directly at ``releases.html#case=<benchmark>/<param>/<param>…`` (``&view=pandas`` for
the pandas order). Another published machine has ``releases-<machine>.html`` and its data file; a
selector on each page goes between them. ``release-regressions.html`` lists the steps up that asv's
step detection finds along each case's releases, for every machine.

This module writes the pages; release_data builds their numbers, release_page renders a machine's
page, release_regressions the steps page (their names are importable from here too)."""

import json
import os
import shutil

from . import vendor_js
from . import landing
from .release_data import build, is_number
from .release_page import REGRESSIONS_PAGE, data_name, page_name, render
from .release_regressions import render_regressions
from .site import WWW


def write(html_dir, results_dir, machine, *others):
    """The release view of ``machine`` (html/dsib/releases.html) and of each of ``others`` (their own
    pages, one machine selector across them), their data and script, and the steps page; returns
    the pages' paths."""
    machines = [machine] + list(others)
    datas = [_published(build(results_dir, m)) for m in machines]
    out = os.path.join(html_dir, "dsib")
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.join(WWW, "releases.js"), os.path.join(out, "releases.js"))
    vendor_js.copy_into(html_dir)
    paths = []
    for k, data in enumerate(datas):
        with open(os.path.join(out, data_name(data["machine"], k == 0)), "w") as f:
            # allow_nan=False: JSON has no NaN; a skipped case is spelled "skipped" by _cell.
            numbers = dict((key, v) for key, v in data.items() if key != "tables_2019")  # the tables are in the page
            # The steps are on their own page.
            numbers["cases"] = [dict((key, v) for key, v in c.items() if key != "steps") for c in data["cases"]]
            f.write("window.DSIB_RELEASES = %s;\n" % json.dumps(numbers, allow_nan=False, separators=(",", ":")))
        paths.append(os.path.join(out, page_name(data["machine"], k == 0)))
        with open(paths[-1], "w") as f:
            f.write(render(data, machines))
    paths.append(os.path.join(out, REGRESSIONS_PAGE))
    with open(paths[-1], "w") as f:
        f.write(render_regressions(datas))
    paths.append(os.path.join(html_dir, landing.PAGE))
    with open(paths[-1], "w") as f:
        f.write(landing.render(datas[0]))
    shutil.copy(os.path.join(WWW, "charts.js"), os.path.join(out, "charts.js"))
    return paths


def _published(data):
    """``data`` with its medians and quartiles at 4 significant digits: they plot the same and halve
    the script's data file, and every page writes its figures from these same numbers (rounding
    once, not twice, so a text agrees across pages). The ratios and steps were taken before."""

    def rounded(v):
        return float("%.4g" % v) if is_number(v) else v

    data = dict(data)
    data["cases"] = [
        dict(
            c,
            values=[rounded(v) for v in c["values"]],
            spread=[
                [rounded(q) if is_number(q) else None for q in sp[:2]] + sp[2:] if sp else None for sp in c["spread"]
            ],
        )
        for c in data["cases"]
    ]
    return data
