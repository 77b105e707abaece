"""The committed site in a real headless Chromium, served over local HTTP as `asv preview` would
(tests/web.py)."""

import glob
import json
import os
import re

import pytest

from .web import (
    FAILED_REQUESTS,
    HTML,
    RELEASE_PLOTTED,
    RELEASE_POINTS,
    assert_no_severe,
    graphed_benchmark,
    open_page,
    wait_for,
)

pytestmark = pytest.mark.browser


def test_asv_dashboard_lists_the_benchmarks(browser, site):
    open_page(browser, site + "asv.html#/summarylist")
    rows = wait_for(
        browser, "return document.querySelectorAll('#summarylist-body table tbody tr').length", "the benchmark list"
    )
    with open(os.path.join(HTML, "index.json")) as f:
        assert rows >= len(json.load(f)["benchmarks"]), "one row per benchmark, or per parameter set"
    assert "error.html" not in browser.current_url, "a script failed to load"
    assert_no_severe(browser)


def test_asv_graph_plots_a_series(browser, site):
    open_page(browser, site + "asv.html#" + graphed_benchmark())
    script = (
        "var p = window.jQuery && jQuery('#main-graph').data('plot');"
        "return p && p.getData().filter(function (s) { return s.data.length > 0; }).length;"
    )
    assert wait_for(browser, script, "asv's graph") >= 1
    assert_no_severe(browser)


def test_release_view_plots_the_default_case(browser, site):
    open_page(browser, site + "dsib/releases.html")
    assert wait_for(browser, RELEASE_POINTS, "a plotted point") >= 1
    assert browser.execute_script("return document.querySelectorAll('#case-list li').length") == browser.execute_script(
        "return window.DSIB_RELEASES.cases.length"
    )
    # Every median carries its spread: a bar through the point, and the range and count below the plot.
    assert browser.execute_script("return document.querySelectorAll('#plot g.mark-rule.role-mark line').length") >= 3
    cells = browser.execute_script(
        "return Array.prototype.map.call("
        "document.querySelectorAll('#case-values td:nth-child(2)'), "
        "function (td) { return td.textContent; })"
    )
    measured = [c for c in cells if re.match(r"\d", c)]  # the others: skipped, failed, not run
    assert measured and all(re.search(r"\((IQR \S+–\S+, n=\d+|one sample)\)$", c) for c in measured), cells
    assert_no_severe(browser)


def test_a_case_url_opens_that_case(browser, site):
    open_page(browser, site + "dsib/releases.html")
    case = wait_for(
        browser, "var c = window.DSIB_RELEASES.cases; return c.length && c[c.length - 1].id", "the release data"
    )
    open_page(browser, site + "dsib/releases.html#case=" + case + "&view=pandas")
    plotted = wait_for(browser, RELEASE_PLOTTED + ".length && " + RELEASE_PLOTTED[len("return ") :], "the case's plot")
    assert plotted == [case]
    assert browser.execute_script("return document.querySelector('#case-list li.selected').dataset.case") == case
    assert browser.execute_script("return document.getElementById('view-pandas').className") == "active"
    assert_no_severe(browser)


def test_dsib_report_page_loads_cleanly(browser, site):
    open_page(browser, site + "dsib/index.html")
    assert browser.find_element("tag name", "h1").text == "dsib report"
    assert_no_severe(browser)


# Every page type of the published site: asv's (the grid, the list, the regressions, a graph of a
# case every environment ran and one of a case only the newest ran) and dsib's (each machine's
# report and release view, a case opened by its address, the steps page).
NEWEST_ONLY = "engines.QueryFromEngine.time_query"
# Done loading: asv's pages once jQuery has no request open, dsib's once the document has loaded.
SETTLED = "return document.readyState === 'complete' && (!window.jQuery || jQuery.active === 0)"
# The text of every table cell on the page, and of the release view's data where it is loaded: a
# case of the current suite with nothing in an environment is a cell "not run".
CELLS = "return Array.prototype.map.call(document.querySelectorAll('td'), function (td) { return td.textContent; })"
RELEASE_GAPS = (
    "return window.DSIB_RELEASES ? window.DSIB_RELEASES.cases.filter(function (c) {"
    " return c.values.some(function (v) { return v === null; }); }).map(function (c) { return c.id; }) : []"
)


def _page_types():
    pages = ["index.html", "asv.html", "asv.html#/summarylist", "asv.html#/regressions"]
    pages += ["asv.html#" + graphed_benchmark(), "asv.html#" + NEWEST_ONLY]
    dsib = sorted(os.path.relpath(p, HTML) for p in glob.glob(os.path.join(HTML, "dsib", "*.html")))
    return pages + dsib + ["dsib/releases.html#case=" + NEWEST_ONLY + "/tsbs_cpu/duckdb/plain&view=pandas"]


def test_every_page_type_loads_cleanly_with_no_not_run_cell(browser, site):
    """No console error, no request the server could not answer, and no "not run" cell: every case
    of the current suite has a figure, a skip with its reason or a mark of why it is absent
    (newest only) on every published machine."""
    pages = _page_types()
    assert any(p.startswith("dsib/releases") for p in pages) and "dsib/release-regressions.html" in pages
    with open(os.path.join(HTML, "index.json")) as f:
        assert NEWEST_ONLY in json.load(f)["benchmarks"]
    for page in pages:
        del FAILED_REQUESTS[:]
        open_page(browser, site + page)
        wait_for(browser, SETTLED, "the page settling")
        if page.startswith("asv.html#") and "/" not in page[len("asv.html#") :]:
            wait_for(browser, "var p = window.jQuery && jQuery('#main-graph').data('plot'); return !!p", "asv's graph")
            wait_for(browser, SETTLED, "the graph's data")
        assert_no_severe(browser)
        assert FAILED_REQUESTS == [], (page, FAILED_REQUESTS)
        cells = browser.execute_script(CELLS)
        assert not [c for c in cells if "not run" in c], (page, [c for c in cells if "not run" in c][:5])
        assert browser.execute_script(RELEASE_GAPS) == [], page
