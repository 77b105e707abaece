"""What the browser tests share: the committed site served over local HTTP as `asv preview` would,
a real headless Chromium (the ``site`` and ``browser`` fixtures of conftest.py), and their helpers.

Debian's chromium and chromium-driver come from `scripts/provision browser` (which `make test` runs);
selenium is given that driver, so it never downloads one."""

import functools
import glob
import http.server
import json
import os
import shutil
import threading

import pytest

from .conftest import committed

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


class Quiet(http.server.SimpleHTTPRequestHandler):
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
        "build",
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


def serve_site(tmp_path_factory):
    """The ``site`` fixture: the committed site, its dsib pages republished, on a free port of 127.0.0.1."""
    html_dir = publish_dsib_pages(str(tmp_path_factory.mktemp("site") / "html"))
    handler = type("Recording", (Quiet,), {"failed": FAILED_REQUESTS})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=html_dir))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d/" % server.server_port
    server.shutdown()
    server.server_close()


def chromium(tmp_path_factory):
    """The ``browser`` fixture: a headless Chromium driven by selenium, quit after the module."""
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


def wait_for(driver, script, what):
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, WAIT).until(lambda d: d.execute_script(script))
    except Exception:
        raise AssertionError(
            "%s did not happen at %s; console: %s" % (what, driver.current_url, driver.get_log("browser"))
        )


def open_page(driver, url):
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(url)


def assert_no_severe(driver):
    severe = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == [], severe


def graphed_benchmark():
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
