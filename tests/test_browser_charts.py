"""The report page's charts (dsib_tools/charts.py, drawn by the vendored Vega-Lite) in a real headless
Chromium, on a site published into a temporary directory from suite v2's committed run (records/suite-v2-results/:
the published history's results/ were taken under the earlier series' names, which the grid has not)."""

import functools
import http.server
import math
import re
import shutil
import subprocess
import sys
import threading

import pytest

from dsib_tools.asv_results import param_names
from dsib_tools.report_cells import _case, find_results
from dsib_tools.suite import GRID, name

from .conftest import ROOT, committed
from .web import HTML, Quiet, assert_no_severe, open_page, wait_for

pytestmark = pytest.mark.browser
RESULTS = committed("records/suite-v2-results")
MACHINE = "epyc-zen5-2c-24g"


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    html_dir = str(tmp_path_factory.mktemp("charts") / "html")
    shutil.copytree(HTML, html_dir)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "site",
            "build",
            "--results-dir",
            RESULTS,
            "--html-dir",
            html_dir,
            "--machine",
            MACHINE,
        ],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=html_dir))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d/" % server.server_port, html_dir
    server.shutdown()
    server.server_close()


def _measured(value):
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _expected():
    """{(source, variant): (formats with a read and a size, formats with a read and a write)}, read
    from the results without the chart's code."""
    from data_prep import VARIANTS
    from dsib.formats import FORMATS

    _, res = find_results(RESULTS, MACHINE)
    names = param_names(RESULTS)
    rows = dict((row.label, name(row.cls, row.method)) for row in GRID)
    out = {}
    for source in ("nyc_taxi", "tsbs_cpu", "rocklin"):
        for variant in VARIANTS:
            given = {"source": source, "variant": variant}

            def has(label, fmt):
                return _measured(_case(res, names, rows[label], fmt, given)[0])

            sized = sorted(f for f in FORMATS if has("read, page cache", f) and has("file MiB", f))
            written = sorted(f for f in FORMATS if has("read, page cache", f) and has("write, memory", f))
            if sized:
                out[(source, variant)] = (sized, written)
    return out


PANEL_FORMATS = (
    "var f = document.getElementById(arguments[0]);"
    "return [0, 1].map(function (i) { return Array.prototype.map.call("
    " f.querySelectorAll('g.concat_' + i + '_group g.mark-symbol.role-mark path'),"
    " function (p) { return /format: ([^;]+)/.exec(p.getAttribute('aria-label'))[1]; }).sort(); });"
)


def test_every_dataset_and_variant_has_a_chart_with_a_mark_per_measured_format(browser, published):
    site, html_dir = published
    expected = _expected()
    assert len(expected) >= 6, "the committed run measures the grid on its sources"
    open_page(browser, site + "dsib/index.html")
    wait_for(
        browser,
        "var d = document.querySelectorAll('figure.dsib-chart-figure .dsib-chart');"
        "return d.length && Array.prototype.every.call(d, function (e) {"
        " return e.getAttribute('data-rendered'); })",
        "every chart drawn",
    )
    drawn = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll("
        "'figure.dsib-chart-figure'), function (f) { return [f.id,"
        " f.querySelector('.dsib-chart').getAttribute('data-rendered')]; })"
    )
    assert sorted(ident for ident, _ in drawn) == sorted("chart-%s-%s" % key for key in expected)
    assert set(state for _, state in drawn) == {"true"}
    for (source, variant), (sized, written) in expected.items():
        left, right = browser.execute_script(PANEL_FORMATS, "chart-%s-%s" % (source, variant))
        assert left == sized, (source, variant)
        assert right == written, (source, variant)
        # A format measured on neither panel is named under its chart, with a reason.
        listed = browser.execute_script(
            "return Array.prototype.map.call(document.querySelectorAll('#' + arguments[0] + ' ul.chart-skipped li'),"
            " function (li) { return li.getAttribute('data-format'); })",
            "chart-%s-%s" % (source, variant),
        )
        from dsib.formats import FORMATS

        assert set(FORMATS) - set(sized) <= set(listed)
    assert_no_severe(browser)


def test_hovering_a_mark_shows_its_figure_with_its_spread(browser, published):
    from selenium.webdriver.common.action_chains import ActionChains

    site, _ = published
    open_page(browser, site + "dsib/index.html")
    ident = "chart-nyc_taxi-plain"
    wait_for(
        browser,
        "var e = document.querySelector('#%s .dsib-chart');return e && e.getAttribute('data-rendered')" % ident,
        "the chart drawn",
    )
    point = browser.find_element("css selector", "#%s g.concat_0_group g.mark-symbol.role-mark path" % ident)
    fmt = re.search(r"format: ([^;]+)", point.get_attribute("aria-label")).group(1)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", point)
    ActionChains(browser).move_to_element(point).perform()
    tooltip = wait_for(
        browser,
        "var t = document.getElementById('vg-tooltip-element');"
        "return t && t.classList.contains('visible') && t.textContent",
        "the tooltip",
    )
    assert fmt in tooltip
    assert re.search(r"read\s*\d[\d.]*(µs|ms|s) \((IQR \S+–\S+, n=\d+|one sample)\)", tooltip), tooltip
    assert_no_severe(browser)
