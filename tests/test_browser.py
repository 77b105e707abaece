"""The committed site in a real headless Chromium, served over local HTTP as `asv preview` would.

Debian's chromium and chromium-driver come from `scripts/provision browser` (which `make test` runs);
selenium is given that driver, so it never downloads one."""

import functools
import glob
import http.server
import json
import os
import re
import shutil
import threading

import pytest

from .conftest import committed

pytestmark = pytest.mark.browser
HTML = committed("html")
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
# Without the background-networking switches Chromium's own connections are refused on a closed
# network, and those refusals reach the console.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
]
WAIT = 60  # seconds; the machine may be busy with a benchmark run


class _Quiet(http.server.SimpleHTTPRequestHandler):
    """Serves the site silently, keeping each request it could not answer (``failed``: [(status, path)])."""

    failed = None

    def log_message(self, *args):
        pass

    def log_request(self, code="-", size="-"):
        if self.failed is not None and str(code).isdigit() and int(code) >= 400:
            self.failed.append((int(code), self.path))


# The release view's plotted points, in charts drawn to the end (dsib_tools/www/releases.js, Vega-Lite's SVG).
RELEASE_POINTS = (
    "return document.querySelectorAll('#plot .release-plot[data-cases] g.mark-symbol.role-mark path').length"
)
# The cases plotted, in the order of their plots.
RELEASE_PLOTTED = (
    "return Array.prototype.concat.apply([], Array.prototype.map.call("
    "document.querySelectorAll('#plot .release-plot[data-cases]'),"
    " function (d) { return JSON.parse(d.getAttribute('data-cases')); }))"
)


def publish_dsib_pages(html_dir):
    """The committed site copied to ``html_dir`` with its dsib pages republished from the committed
    results by this checkout's tools, as `make publish` does: the pages under test are those the code
    of this commit writes, not those last committed."""
    import subprocess
    import sys

    from .conftest import ROOT

    results = committed("results")
    shutil.copytree(HTML, html_dir)
    command = [
        sys.executable,
        "-m",
        "dsib_tools",
        "site",
        "--results-dir",
        results,
        "--html-dir",
        html_dir,
        "--env",
        "DSIB_PROFILEdefault",
        "--published",
    ]
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return html_dir


FAILED_REQUESTS = []  # (status, path) of every request the site's server could not answer


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    html_dir = publish_dsib_pages(str(tmp_path_factory.mktemp("site") / "html"))
    handler = type("Recording", (_Quiet,), {"failed": FAILED_REQUESTS})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=html_dir))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d/" % server.server_port
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    if missing:
        pytest.fail(
            "%s missing: run `scripts/provision browser` (it installs Debian's chromium and chromium-driver)"
            % " and ".join(missing)
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + ["--user-data-dir=%s" % tmp_path_factory.mktemp("chromium-profile")]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def _wait_for(driver, script, what):
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, WAIT).until(lambda d: d.execute_script(script))
    except Exception:
        raise AssertionError(
            "%s did not happen at %s; console: %s" % (what, driver.current_url, driver.get_log("browser"))
        )


def _open(driver, url):
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(url)


def _assert_no_severe(driver):
    severe = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == [], severe


def _graphed_benchmark():
    """A benchmark with an asv graph file, holding a point, in every environment's graph folder.

    asv's graph page fetches the benchmark's file for every environment, and a missing one (a
    benchmark an older environment never ran) is a 404 in the console."""
    folders = {}
    for path in glob.glob(os.path.join(HTML, "graphs", "**", "*.json"), recursive=True):
        if "summary" not in (os.path.basename(os.path.dirname(path)), os.path.basename(path)[: -len(".json")]):
            folders.setdefault(os.path.dirname(path), set()).add(os.path.basename(path)[: -len(".json")])
    everywhere = set.intersection(*folders.values()) if folders else set()
    for name in sorted(everywhere, key=lambda n: (n != "reads.ReadFromPageCache.time_read", n)):
        points = []
        for folder in folders:
            with open(os.path.join(folder, name + ".json")) as f:
                points.extend(point for point in json.load(f) if point[1] is not None)
        if points:
            return name
    pytest.fail("html/graphs has no benchmark graphed in every environment: publish the site (make publish)")


def test_asv_dashboard_lists_the_benchmarks(browser, site):
    _open(browser, site + "index.html#/summarylist")
    rows = _wait_for(
        browser, "return document.querySelectorAll('#summarylist-body table tbody tr').length", "the benchmark list"
    )
    with open(os.path.join(HTML, "index.json")) as f:
        assert rows >= len(json.load(f)["benchmarks"]), "one row per benchmark, or per parameter set"
    assert "error.html" not in browser.current_url, "a script failed to load"
    _assert_no_severe(browser)


def test_asv_graph_plots_a_series(browser, site):
    _open(browser, site + "index.html#" + _graphed_benchmark())
    script = (
        "var p = window.jQuery && jQuery('#main-graph').data('plot');"
        "return p && p.getData().filter(function (s) { return s.data.length > 0; }).length;"
    )
    assert _wait_for(browser, script, "asv's graph") >= 1
    _assert_no_severe(browser)


def test_release_view_plots_the_default_case(browser, site):
    _open(browser, site + "dsib/releases.html")
    assert _wait_for(browser, RELEASE_POINTS, "a plotted point") >= 1
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
    _assert_no_severe(browser)


def test_a_case_url_opens_that_case(browser, site):
    _open(browser, site + "dsib/releases.html")
    case = _wait_for(
        browser, "var c = window.DSIB_RELEASES.cases; return c.length && c[c.length - 1].id", "the release data"
    )
    _open(browser, site + "dsib/releases.html#case=" + case + "&view=pandas")
    plotted = _wait_for(browser, RELEASE_PLOTTED + ".length && " + RELEASE_PLOTTED[len("return ") :], "the case's plot")
    assert plotted == [case]
    assert browser.execute_script("return document.querySelector('#case-list li.selected').dataset.case") == case
    assert browser.execute_script("return document.getElementById('view-pandas').className") == "active"
    _assert_no_severe(browser)


def test_dsib_report_page_loads_cleanly(browser, site):
    _open(browser, site + "dsib/index.html")
    assert browser.find_element("tag name", "h1").text == "dsib report"
    _assert_no_severe(browser)


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
    pages = ["index.html", "index.html#/summarylist", "index.html#/regressions"]
    pages += ["index.html#" + _graphed_benchmark(), "index.html#" + NEWEST_ONLY]
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
        _open(browser, site + page)
        _wait_for(browser, SETTLED, "the page settling")
        if page.startswith("index.html#") and "/" not in page[len("index.html#") :]:
            _wait_for(browser, "var p = window.jQuery && jQuery('#main-graph').data('plot'); return !!p", "asv's graph")
            _wait_for(browser, SETTLED, "the graph's data")
        _assert_no_severe(browser)
        assert FAILED_REQUESTS == [], (page, FAILED_REQUESTS)
        cells = browser.execute_script(CELLS)
        assert not [c for c in cells if "not run" in c], (page, [c for c in cells if "not run" in c][:5])
        assert browser.execute_script(RELEASE_GAPS) == [], page
