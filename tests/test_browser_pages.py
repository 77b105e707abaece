"""Every page type of the published site in a real headless Chromium: asv's grid, list, graph and
regressions pages, and the dsib report page. A console error or a failed request (a 404 is a
SEVERE entry of the browser log) fails the test that opened the page."""

import glob
import json
import os

import pytest
from packaging.version import InvalidVersion, Version

from .conftest import ROOT, committed
from .results_copy import current_benchmarks, current_keys
from .web import (
    HTML,
    RELEASE_POINTS,
    assert_no_severe,
    graphed_benchmark,
    open_page,
    wait_for,
)

RESULTS = committed("results")
# asv 0.6.6's plot toggles on a graph page (its index.html).
TOGGLES = ("show-legend", "log-scale", "even-spacing", "zoom-y-axis", "date-scale", "reference")


def _index():
    with open(os.path.join(HTML, "index.json")) as f:
        return json.load(f)


def _commit_url():
    """The repository's commit address: asv.conf.json's project_url."""
    with open(os.path.join(ROOT, "asv.conf.json")) as f:
        return json.load(f)["project_url"].rstrip("/") + "/commit/"


def _release(value):
    try:
        return Version(value)
    except (InvalidVersion, TypeError):
        return Version("0")


def _lacked_benchmark():
    """A published benchmark that some environment of results/ has no current result for (the
    graph page asks every published environment for its graph), else any published benchmark."""
    benchmarks = current_benchmarks(RESULTS)
    found = {}
    for path in glob.glob(os.path.join(RESULTS, "*", "*.json")):
        if os.path.basename(path) == "machine.json":
            continue
        with open(path) as f:
            result = json.load(f)
        key = (os.path.dirname(path), result["env_name"])
        found.setdefault(key, set()).update(current_keys(result, benchmarks))
    published = sorted(_index()["benchmarks"])
    lacked = sorted(set(published) - set.intersection(*found.values())) if found else []
    return (lacked or published)[0]


# Counts the graphs asv's page has received and plotted: its done-callbacks run before this
# wrapper's timeout does.
COUNT_LOADS = (
    "window.dsibLoaded = 0; var load = jQuery.asv.load_graph_data;"
    "jQuery.asv.load_graph_data = function (url) { var promise = load.apply(this, arguments);"
    "  promise.always(function () { setTimeout(function () { window.dsibLoaded += 1; }, 0); });"
    "  return promise; };"
)


def _loaded(browser, what):
    """Wait until the graph page has every environment's graph and has plotted them."""
    envs = len(_index()["graph_param_list"])
    wait_for(browser, "return window.dsibLoaded >= %d && jQuery.active === 0" % envs, what)


def _open_graph(browser, site, benchmark):
    """A graph page in a newly loaded dashboard (a hash change alone keeps the toggles' state of the
    page before), counting the graphs it loads."""
    browser.get("about:blank")
    open_page(browser, site + "asv.html#/summarylist")
    wait_for(browser, "return window.jQuery && jQuery.asv && jQuery.asv.main_json", "asv's index")
    browser.execute_script(COUNT_LOADS + "location.hash = arguments[0];", "#" + benchmark)
    _loaded(browser, "asv's graph")


def _plotted_series(browser):
    return browser.execute_script(
        "var p = window.jQuery && jQuery('#main-graph').data('plot');"
        "return p && p.getData().filter(function (s) {"
        "  return s.data.some(function (d) { return d[1] !== null; }); }).length;"
    )


@pytest.mark.browser
def test_summary_grid_plots_or_links_every_thumbnail(browser, site):
    """A thumbnail of one commit (one point: nothing to draw) links to the release view."""
    open_page(browser, site + "asv.html")
    count = wait_for(browser, "return document.querySelectorAll('.benchmark-container').length", "the grid")
    assert count == len(_index()["benchmarks"])
    single = set()
    for path in glob.glob(os.path.join(HTML, "graphs", "summary", "*.json")):
        with open(path) as f:
            if len([point for point in json.load(f) if point[1] is not None]) < 2:
                single.add(os.path.basename(path)[: -len(".json")])
    # asv draws a thumbnail once it scrolls into view.
    done = (
        "window.scrollBy(0, 300);"
        "return Array.prototype.every.call(document.querySelectorAll('.benchmark-container'), function (a) {"
        "  return a.querySelector('canvas') || a.classList.contains('dsib-to-releases'); });"
    )
    wait_for(browser, done, "every thumbnail drawn or linked")
    linked = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('a.dsib-to-releases'), function (a) {"
        "  return [a.querySelector('.benchmark-plot').id.replace('summarygrid-', ''), a.getAttribute('href')]; });"
    )
    assert sorted(name for name, _ in linked) == sorted(single)
    assert set(href for _, href in linked) <= {"dsib/releases.html"}
    assert_no_severe(browser)
    if linked:
        browser.execute_script("document.querySelector('a.dsib-to-releases').click()")
        wait_for(browser, RELEASE_POINTS, "the release view, from a thumbnail")
        assert_no_severe(browser)


@pytest.mark.browser
def test_list_view_opens_on_the_newest_release(browser, site):
    index = _index()
    newest = max(
        index["graph_param_list"], key=lambda p: tuple(_release(p.get(k)) for k in ("pyarrow", "pandas", "python"))
    )
    open_page(browser, site + "asv.html#/summarylist")
    wait_for(
        browser, "return document.querySelectorAll('#summarylist-body table tbody tr').length", "the benchmark list"
    )
    active = browser.execute_script(
        "var out = {}; document.querySelectorAll('#summarylist-navigation .panel').forEach(function (p) {"
        "  var a = p.querySelector('a.active'); if (a) out[p.querySelector('.panel-heading').textContent] ="
        "  a.textContent; }); return out;"
    )
    for key in ("pyarrow", "pandas", "python"):
        assert active[key] == newest[key], (key, active)
    assert_no_severe(browser)


@pytest.mark.browser
def test_graph_page_of_a_benchmark_some_environment_lacks_survives_every_toggle(browser, site):
    _open_graph(browser, site, _lacked_benchmark())
    assert_no_severe(browser)
    plotted = _plotted_series(browser)
    assert plotted >= 1
    for toggle in TOGGLES:
        for _ in range(2):  # on, then off
            browser.execute_script("window.dsibLoaded = 0;")
            browser.find_element("id", toggle).click()
            if toggle != "reference":  # the others reload the page's graphs through its URL
                _loaded(browser, "the graph after %s" % toggle)
            assert_no_severe(browser)
            assert _plotted_series(browser) == plotted, "%s dropped a series" % toggle


@pytest.mark.browser
def test_a_point_links_to_its_commit_in_the_repository(browser, site):
    from selenium.webdriver.common.action_chains import ActionChains

    _open_graph(browser, site, graphed_benchmark())
    browser.execute_script("window.dsibLoaded = 0;")
    browser.find_element("id", "show-legend").click()  # the legend covers the points of one commit
    _loaded(browser, "the graph without its legend")
    # The place in the window of a point that nothing covers; asv opens the commit in
    # a new tab, caught here.
    x, y = browser.execute_script(
        "window.open = function (url) { window.dsibOpened = url; };"
        "var p = jQuery('#main-graph').data('plot'), g = p.getPlaceholder()[0], r = g.getBoundingClientRect();"
        "var found = null; p.getData().forEach(function (s) { s.data.forEach(function (d) {"
        "  if (found || d[1] === null) return;"
        "  var o = p.pointOffset({x: d[0], y: d[1], xaxis: s.xaxis.n, yaxis: s.yaxis.n});"
        "  var x = Math.round(r.left + o.left), y = Math.round(r.top + o.top), e = document.elementFromPoint(x, y);"
        "  if (e && e.tagName === 'CANVAS' && g.contains(e)) found = [x, y]; }); });"
        "return found || [null, null];"
    )
    assert x is not None, "no point of the graph is uncovered"
    actions = ActionChains(browser)
    actions.w3c_actions.pointer_action.move_to_location(x, y)
    actions.w3c_actions.pointer_action.click()
    actions.perform()
    opened = wait_for(browser, "return window.dsibOpened", "a commit opened from a point")
    assert opened.startswith(_commit_url()), opened
    commit = opened[len(_commit_url()) :]  # asv's short hash, which GitHub resolves
    assert len(commit) >= 7 and any(h.startswith(commit) for h in _index()["revision_to_hash"].values()), opened
    assert_no_severe(browser)


@pytest.mark.browser
def test_regressions_page_links_commits_to_the_repository(browser, site):
    open_page(browser, site + "asv.html#/regressions")
    wait_for(
        browser, "return document.querySelector('#regressions-body table, #regressions-body p')", "the regressions page"
    )
    rows, links = browser.execute_script(
        "var links = Array.prototype.filter.call(document.querySelectorAll('#regressions-body td a'),"
        "  function (a) { return /^[0-9a-f]{7,}(\\.\\.\\.?[0-9a-f]{7,})?$/.test(a.textContent); });"
        "return [document.querySelectorAll('#regressions-body tbody tr').length,"
        "        links.map(function (a) { return a.getAttribute('href'); })];"
    )
    assert len(links) >= rows > 0 or rows == 0, (rows, links)
    repository = _commit_url()[: -len("commit/")]
    assert [h for h in links if not h.startswith(repository)] == []
    assert_no_severe(browser)


@pytest.mark.browser
def test_report_page_renders_code_and_a_working_contents(browser, site):
    open_page(browser, site + "dsib/index.html")
    assert "`" not in browser.execute_script("return document.body.innerText"), "raw Markdown code spans"
    assert browser.execute_script("return document.querySelectorAll('p code').length") >= 1
    targets = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('nav.toc a'),"
        " function (a) { return a.getAttribute('href'); })"
    )
    assert len(targets) >= len(browser.find_elements("tag name", "h2")) - 1, "a link to every section"
    assert all(t.startswith("#") for t in targets), targets
    missing = [t for t in targets if not browser.execute_script("return document.getElementById(arguments[0])", t[1:])]
    assert missing == []
    # A table is listed itself, or (the one table of its section) under its section.
    unlisted = browser.execute_script(
        "var targets = arguments[0]; return Array.prototype.filter.call(document.querySelectorAll('table'),"
        "  function (t) { var h = t; while (h && h.tagName !== 'H2') { h = h.previousElementSibling; }"
        "    return targets.indexOf('#' + t.id) < 0 && !(h && targets.indexOf('#' + h.id) >= 0); })"
        "  .map(function (t) { return t.id; });",
        targets,
    )
    assert unlisted == []
    last = targets[-1]
    browser.find_element("css selector", "nav.toc a[href='%s']" % last).click()
    assert wait_for(browser, "return location.hash", "the contents' link followed") == last
    assert browser.execute_script(
        "return Math.abs(document.getElementById(arguments[0]).getBoundingClientRect().top) < 5", last[1:]
    ), "the page scrolled to it"
    assert_no_severe(browser)


@pytest.mark.browser
def test_report_page_shows_every_fidelity_cell_whole(browser, site):
    open_page(browser, site + "dsib/index.html")
    cells = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('table[id^=\"fidelity-\"] td'), function (td) {"
        "  return [td.innerText, td.scrollWidth <= td.clientWidth + 1]; });"
    )
    assert cells, "the fidelity table"
    assert [text for text, _ in cells if text.endswith("…")] == [], "a cut cell"
    assert [text for text, visible in cells if not visible] == [], "a cell wider than its column"
    assert_no_severe(browser)


@pytest.mark.browser
def test_report_page_and_release_view_link_each_other(browser, site):
    open_page(browser, site + "dsib/index.html")
    browser.find_element("id", "to-releases").click()
    wait_for(browser, RELEASE_POINTS, "the release view, from the report")
    assert browser.current_url == site + "dsib/releases.html"
    assert_no_severe(browser)
    browser.find_element("link text", "dsib report").click()
    wait_for(browser, "return document.getElementById('to-releases')", "the report, from the release view")
    assert browser.current_url == site + "dsib/index.html"
    assert_no_severe(browser)


def test_every_skip_cell_links_to_its_reason():
    """The report's "skip N" cells (a grid block with skips) link to their reason below the table."""
    from dsib_tools.site import render

    block = "| nyc_taxi / plain | parquet | msgpack |\n|---|---|---|\n| read | 1.0s | skip 1 |"
    page = render([("Every format", ["times in `s`"], [block, "skip 1: pandas 3 has no `to_msgpack`"])])
    assert "<p>times in <code>s</code></p>" in page and "`" not in page
    assert (
        '<td><a href="#every-format-nyc-taxi-plain-skip-1" title="pandas 3 has no to_msgpack">skip 1</a></td>' in page
    )
    assert "<li id='every-format-nyc-taxi-plain-skip-1'>skip 1: pandas 3 has no <code>to_msgpack</code></li>" in page
