"""The release view (html/dsib/releases.html) and its steps page in a real headless Chromium, on
the published site; the machine selector on a site published for two machines."""

import functools
import glob
import http.server
import json
import os
import re
import shutil
import threading

import pytest

from dsib_tools import release_page, release_view
from dsib_tools.publish import REFERENCE_MACHINE

from .results_copy import MACHINE, RESULTS, STATS
from .web import (
    HTML,
    RELEASE_PLOTTED,
    Quiet,
    assert_no_severe,
    open_page,
    wait_for,
)

pytestmark = pytest.mark.browser
PLOTTED = RELEASE_PLOTTED


def _data(driver):
    return wait_for(driver, "return window.DSIB_RELEASES", "the release data")


def _case_of_unit(data, unit, avoid=()):
    return [
        c["id"]
        for c in data["cases"]
        if c["unit"] == unit and c["id"] not in avoid and sum(isinstance(v, (int, float)) for v in c["values"]) > 1
    ][0]


def _show(driver, site, cases):
    open_page(driver, site + "dsib/releases.html#" + "&".join("case=" + c for c in cases))
    assert wait_for(driver, PLOTTED + ".length === %d && true" % len(cases), "the cases' plot")


def test_legend_colours_are_the_table_header_colours(browser, site):
    open_page(browser, site + "dsib/releases.html")
    data = _data(browser)
    # Two timed cases and a memory one between them: two plots, one colour per case across both.
    timed = _case_of_unit(data, "seconds")
    cases = [timed, _case_of_unit(data, "bytes"), _case_of_unit(data, "seconds", avoid=[timed])]
    _show(browser, site, cases)
    # Each plot's legend lists its cases in order (Vega-Lite's colour domain); its lines are drawn in
    # their colours, a line broken where a release has no figure.
    plots = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('#plot .release-plot'), function (d) {"
        " var colours = function (selector, property) { return Array.prototype.map.call(d.querySelectorAll(selector),"
        "   function (p) { return getComputedStyle(p)[property]; }); };"
        " return [JSON.parse(d.getAttribute('data-cases')), colours('g.role-legend-symbol path', 'fill'),"
        "         colours('g.mark-line.role-mark path', 'stroke')]; })"
    )
    legend = [list(pair) for ids, fills, _ in plots for pair in zip(ids, fills)]
    assert all(len(ids) == len(fills) for ids, fills, _ in plots)
    lines = set(colour for _, _, strokes in plots for colour in strokes)
    headers = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('#case-values th[data-case]'), function (th) {"
        " return [th.getAttribute('data-case'), getComputedStyle(th).color]; })"
    )
    assert [c for c, _ in headers] == cases
    assert sorted(legend) == sorted(headers)
    assert lines == set(colour for _, colour in headers)
    assert len(set(colour for _, colour in headers)) == 3
    assert_no_severe(browser)


def test_tick_unit_is_the_axis_title_unit_and_bytes_are_mib(browser, site):
    open_page(browser, site + "dsib/releases.html")
    data = _data(browser)
    memory = _case_of_unit(data, "bytes")
    _show(browser, site, [_case_of_unit(data, "seconds"), memory])
    axes = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('#plot .release-plot'), function (d) {"
        " var y = d.querySelector('g.role-axis[aria-label^=\"Y-axis\"]');"
        " return [d.getAttribute('data-unit'), y.querySelector('.role-axis-title text').textContent,"
        " Array.prototype.map.call(y.querySelectorAll('.role-axis-label text'), function (t) {"
        "  return t.textContent; })]; })"
    )
    assert sorted(unit for unit, _, _ in axes) == ["bytes", "seconds"]
    for unit, title, ticks in axes:
        named = re.search(r"\((\w+)", title).group(1)
        assert ticks and all(re.fullmatch(r"[\d.]+" + named, t) for t in ticks), (title, ticks)
        if unit == "bytes":
            assert named == "MiB" or named.endswith("iB"), title
    cells = browser.execute_script(
        "return Array.prototype.map.call("
        "document.querySelectorAll('#case-values td:nth-child(3)'), "
        "function (td) { return td.textContent; })"
    )
    measured = [c for c in cells if re.match(r"\d", c)]
    assert measured and all(re.match(r"[\d.]+[KMGT]?iB ", c) for c in measured), cells
    page = browser.find_element("tag name", "body").text
    assert not re.search(r"\d[kMGT]\b(?!iB)", page), "a decimal byte unit left on the page"
    assert_no_severe(browser)


def test_a_headline_click_scrolls_its_plot_into_view(browser, site):
    open_page(browser, site + "dsib/releases.html")
    _data(browser)
    links = browser.find_elements("css selector", "#headline-table a.case-link")
    assert links, "the page has headline figures"
    link = links[-1]
    case = link.find_element("xpath", "./ancestor::tr").get_attribute("data-case")
    browser.execute_script("window.scrollTo(0, 0)")
    link.click()
    assert wait_for(browser, PLOTTED + "[0] === %s" % json.dumps(case), "the headline's case plotted")
    top = browser.execute_script("return document.getElementById('plot').getBoundingClientRect().top")
    assert 0 <= top < browser.execute_script("return window.innerHeight"), "the plot is in view"
    assert_no_severe(browser)


def test_an_unknown_case_says_so_and_plots_nothing(browser, site):
    open_page(browser, site + "dsib/releases.html#case=does.not.exist")
    message = wait_for(
        browser,
        "var p = document.getElementById('case-unknown');return !p.hidden && p.textContent",
        "the unknown case's message",
    )
    assert "does.not.exist" in message
    assert browser.execute_script(PLOTTED) == []
    assert_no_severe(browser)


def test_two_releases_compared_give_each_case_its_ratio(browser, site):
    open_page(browser, site + "dsib/releases.html")
    data = _data(browser)
    order = data["orders"]["pyarrow"]
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "compare-a")).select_by_value(str(order[0]))
    Select(browser.find_element("id", "compare-b")).select_by_value(str(order[-1]))
    checkbox = browser.find_element("id", "compare-changed")
    if checkbox.is_selected():
        checkbox.click()  # every case measured in both, not only the changed ones
    rows = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('#compare-table tr.compared'), function (tr) {"
        " return [tr.getAttribute('data-case'), +tr.querySelector('td.ratio').getAttribute('data-ratio'),"
        " tr.querySelector('td.mark').textContent]; })"
    )
    by_id = dict((c["id"], c) for c in data["cases"])
    both = [
        c["id"]
        for c in data["cases"]
        if all(isinstance(c["values"][i], (int, float)) for i in (order[0], order[-1])) and c["values"][order[0]] > 0
    ]  # a figure that fell to 0 (Parquet's index columns stored: 1 → 0) is a ratio of 0
    assert sorted(r[0] for r in rows) == sorted(both) and both
    for ident, ratio, mark in rows:
        values, spreads = by_id[ident]["values"], [by_id[ident]["spread"][i] for i in (order[0], order[-1])]
        assert ratio == pytest.approx(values[order[-1]] / values[order[0]])
        ranged = all(sp and sp[2] > 1 and None not in sp[:2] for sp in spreads)
        overlap = ranged and not (spreads[0][0] > spreads[1][1] or spreads[1][0] > spreads[0][1])
        expected = "" if 1 / 1.1 < ratio < 1.1 else "~" if overlap else "+" if ratio > 1 else "-"
        assert mark == expected, (ident, ratio, spreads)
    assert set(r[2] for r in rows) >= {"", "+", "-", "~"}
    assert [r[1] for r in rows] == sorted((r[1] for r in rows), reverse=True)
    checkbox.click()
    changed = browser.execute_script("return document.querySelectorAll('#compare-table tr.compared').length")
    assert changed == sum(1 for r in rows if not 1 / 1.1 < r[1] < 1.1)
    assert_no_severe(browser)


def test_a_step_of_the_regressions_page_opens_its_case(browser, site):
    open_page(browser, site + "dsib/" + release_page.REGRESSIONS_PAGE)
    steps = browser.find_elements("css selector", "table.steps tr.step")
    assert steps, "the published history has a called step (pyarrow 0.11.1 → 0.15.1's Parquet reads)"
    step = steps[0]
    case = step.get_attribute("data-case")
    step.find_element("css selector", "a").click()
    assert wait_for(browser, PLOTTED + "[0] === %s" % json.dumps(case), "the step's case plotted")
    assert browser.execute_script("return document.getElementById('view-pyarrow').className") == "active"
    assert_no_severe(browser)


def _shown_figures(driver, site, cases):
    """{(release label, case): text} of the release view's table of figures, the cases plotted."""
    _show(driver, site, cases)
    return dict(
        ((label, case), text)
        for label, case, text in driver.execute_script(
            "var cases = Array.prototype.map.call(document.querySelectorAll('#case-values th[data-case]'),"
            "  function (th) { return th.getAttribute('data-case'); }), out = [];"
            "Array.prototype.forEach.call(document.querySelectorAll('#case-values tr'), function (tr) {"
            "  var tds = tr.querySelectorAll('td');"
            "  for (var k = 1; k < tds.length; k++)"
            "    out.push([tds[0].textContent, cases[k - 1], tds[k].textContent]); });"
            "return out;"
        )
    )


def _differing(written, shown):
    """(release label and case, text written by Python, text the script shows) where they differ."""
    return [(key, text, shown.get(key)) for key, text in written.items() if shown.get(key) != text]


def test_a_figure_reads_the_same_on_the_steps_page_in_a_headline_and_in_the_script_s_table(browser, site):
    """The steps page and the headlines are written by Python, the table of figures by the page's
    script: one median and spread, one text ("16ms", not "16.0ms" on one page and "16ms" on the other)."""
    open_page(browser, site + "dsib/" + release_page.REGRESSIONS_PAGE)
    # releases.html is the reference machine's; another machine's steps are other figures of the same cases.
    written = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll("
        "\"table.steps[data-machine='%s'] tr.step\"),"
        " function (tr) { var td = tr.querySelectorAll('td'); return [tr.getAttribute('data-case'),"
        "  td[1].textContent, td[2].textContent, td[3].textContent, td[4].textContent]; })" % REFERENCE_MACHINE
    )
    cases = list(dict.fromkeys(case for case, *_ in written))[:8]
    assert cases, "the published history has called steps"
    on_steps_page = {}
    for case, before, after, before_text, after_text in written:
        if case in cases:
            on_steps_page[(before, case)] = before_text
            on_steps_page[(after, case)] = after_text

    open_page(browser, site + "dsib/releases.html")
    headlines = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('tr.headline'), function (tr) {"
        " return [tr.getAttribute('data-case')].concat(Array.prototype.map.call("
        "  tr.querySelectorAll('td[data-release]'), function (td) {"
        "   return [td.firstChild.textContent, td.lastChild.textContent]; })); })"
    )
    assert headlines, "the release view has its headlines"
    in_headlines = {}
    for case, *cells in headlines:
        for label, text in cells:
            in_headlines[(label, case)] = text

    assert on_steps_page and not _differing(on_steps_page, _shown_figures(browser, site, cases))
    headline_cases = list(dict.fromkeys(case for case, *_ in headlines))
    checked = dict((key, text) for key, text in in_headlines.items() if key[1] in headline_cases[:8])
    assert checked and not _differing(checked, _shown_figures(browser, site, headline_cases[:8]))
    assert_no_severe(browser)


OTHER = "posed-2c"
OTHER_COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="module")
def two_machine_site(tmp_path_factory):
    """The published site, with the release views republished for the reference machine and a second
    one whose results are the reference's, every value doubled, at another commit (a second machine
    runs the matrix in a later session, at that session's commit)."""
    root = tmp_path_factory.mktemp("two-machines")
    html_dir, results_dir = str(root / "html"), str(root / "results")
    shutil.copytree(HTML, html_dir)
    shutil.copytree(RESULTS, results_dir)
    os.makedirs(os.path.join(results_dir, OTHER))
    for path in glob.glob(os.path.join(results_dir, MACHINE, "*.json")):
        name = os.path.basename(path)
        with open(path) as f:
            d = json.load(f)
        if name == "machine.json":
            d["machine"] = OTHER
        else:
            assert d["commit_hash"] != OTHER_COMMIT
            d["commit_hash"] = OTHER_COMMIT
            name = OTHER_COMMIT[:8] + name[name.index("-") :]
            d["params"]["machine"] = OTHER
            columns = d["result_columns"]
            for row in d["results"].values():
                for column in ("result",) + STATS:
                    if columns.index(column) < len(row) and row[columns.index(column)] is not None:
                        row[columns.index(column)] = [None if v is None else v * 2 for v in row[columns.index(column)]]
        with open(os.path.join(results_dir, OTHER, name), "w") as f:
            json.dump(d, f)
    release_view.write(html_dir, results_dir, MACHINE, OTHER)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=html_dir))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d/" % server.server_port
    server.shutdown()
    server.server_close()


def test_the_machine_selector_shows_the_other_machine_s_data(browser, two_machine_site):
    from selenium.webdriver.support.ui import Select

    open_page(browser, two_machine_site + "dsib/releases.html")
    data = _data(browser)
    assert data["machine"] == MACHINE, "the reference machine is the default"
    case = data["headlines"][0][1]
    open_page(browser, two_machine_site + "dsib/releases.html#case=" + case)
    before = wait_for(
        browser,
        "return document.querySelector('#case-values td:nth-child(2)') &&"
        " Array.prototype.map.call(document.querySelectorAll('#case-values td:nth-child(2)'),"
        " function (td) { return td.textContent; })",
        "the case's values",
    )
    Select(browser.find_element("id", "machine-select")).select_by_visible_text(OTHER)
    wait_for(
        browser,
        "return window.DSIB_RELEASES && window.DSIB_RELEASES.machine === %s" % json.dumps(OTHER),
        "the other machine's data",
    )
    assert browser.execute_script(PLOTTED) == [case], "the same case, on the other machine"
    after = browser.execute_script(
        "return Array.prototype.map.call("
        "document.querySelectorAll('#case-values td:nth-child(2)'), "
        "function (td) { return td.textContent; })"
    )
    ours = dict((c["id"], c) for c in data["cases"])[case]
    theirs = dict((c["id"], c) for c in browser.execute_script("return window.DSIB_RELEASES.cases"))[case]
    assert [v * 2 if isinstance(v, (int, float)) else v for v in ours["values"]] == pytest.approx(
        theirs["values"], rel=1e-3
    )
    assert after != before
    assert browser.find_element("id", "machine-select").get_attribute("value") == "releases-%s.html" % OTHER
    commits = (
        "return Array.prototype.map.call(document.querySelectorAll('td:nth-child(2) > code'),"
        " function (c) { return c.textContent; })"
    )
    assert set(browser.execute_script(commits)) == {OTHER_COMMIT[:8]}, "each release at the other machine's commit"
    assert_no_severe(browser)
    open_page(browser, two_machine_site + "dsib/releases.html")
    assert OTHER_COMMIT[:8] not in browser.execute_script(commits)


def test_the_front_page_opens_on_the_headline_cases_charts_with_their_steps_marked(browser, site):
    """index.html is the release view's answer: a chart a headline case, each drawn, its called
    steps marked with their library; asv's dashboard is one click away (asv.html)."""
    open_page(browser, site + "index.html")
    figures = browser.find_elements("css selector", "figure.dsib-chart-figure")
    assert figures, "the front page has its charts"
    assert wait_for(
        browser,
        "return Array.prototype.every.call(document.querySelectorAll('figure.dsib-chart-figure .dsib-chart'),"
        " function (d) { return d.getAttribute('data-rendered') === 'true'; }) || null",
        "every chart drawn",
    )
    marked = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('figure.dsib-chart-figure'), function (f) {"
        " return [f.getAttribute('data-case'), Array.prototype.map.call(f.querySelectorAll('svg text'),"
        "  function (t) { return t.textContent; })"
        "  .filter(function (t) { return /^[a-z]+: /.test(t); })]; })"
    )
    stepped = [(case, texts) for case, texts in marked if texts]
    assert stepped, "the published history's called steps are marked"
    said = [t for _, texts in stepped for t in texts]
    assert all(re.fullmatch(r"[a-z]+: \d+\.\d\d× (faster|slower)", t) for t in said), said
    assert set(t.split(":")[0] for t in said) >= {"pyarrow", "pandas"}, "each step marked with its library"
    browser.find_element("id", "to-asv").click()
    assert wait_for(browser, "return document.querySelector('#nav-li-regressions') && true", "asv's dashboard")
    assert browser.current_url.endswith("asv.html")
    assert_no_severe(browser)
