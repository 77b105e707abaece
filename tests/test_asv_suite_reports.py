"""The reports and the site of the README's `make bench` at `tiny` (the session's ``asv_tiny`` run):
every format's, the reads in batches', the engines' and the studies' tables, and the report pages."""

import os
import re
import shutil
import sys

import pytest

from .conftest import ROOT, table_rows
from .tiny_bench import MACHINE, capture

# The session's `make bench` (asv_tiny) holds a PostgreSQL and a QuestDB for its run.
pytestmark = [pytest.mark.asv, pytest.mark.server]
# A reader the newest environment does not pin (Polars': tools' environment only) skips so.
NOT_INSTALLED = "is not installed in this environment"


def reasons_below(report, table):
    """{"skip N": its reason} of the lines under ``table`` in ``report``."""
    below = report.split(table, 1)[1].split("\n\n")[1]
    return dict(line.split(": ", 1) for line in below.splitlines() if line.startswith("skip "))


def test_every_format_report_has_a_value_in_every_case_that_makes_sense(asv_tiny):
    report = capture(
        [sys.executable, "-m", "dsib_tools", "report", "--results-dir", asv_tiny["results"], "--machine", MACHINE],
        ROOT,
        asv_tiny["env"],
    )
    assert report.returncode == 0, report.stdout
    tables = [t for t in report.stdout.split("\n\n") if t.startswith("| ") and "parquet" in table_rows(t)[0]]
    assert len(tables) == 9, "three sources x three variants"
    assert "failed" not in report.stdout
    header = table_rows(tables[0])[0]
    assert "parquet" in header and "npy" in header
    rows = dict((row[0], row[1:]) for row in table_rows(tables[0])[1:])
    warm = rows["read, page cache"]
    # pandas' to_msgpack is gone from this pandas, Rocklin's JSON layout runs on his frame only, and
    # a reader this environment does not install skips.
    said = reasons_below(report.stdout, tables[0])
    skipped = dict((fmt, said[c]) for fmt, c in zip(header[1:], warm) if c.startswith("skip "))
    assert {"pandas-msgpack", "json-split-noindex"} <= set(skipped), skipped
    assert all(
        fmt in ("pandas-msgpack", "json-split-noindex") or NOT_INSTALLED in reason for fmt, reason in skipped.items()
    ), skipped
    for cell in warm:
        # A figure taken while other work ran is marked so: the test does not need a quiet machine.
        assert cell.startswith("skip ") or re.match(r"^\S+ \((±\d+%, n=\d+|1 sample)\)( \(under load\))?$", cell), cell
    assert "·" not in report.stdout, "a skip says why, never a bare dot"
    reasons = report.stdout.split(tables[0], 1)[1].split("\n\n")[1]
    assert "pandas to_msgpack: pandas 3.1.1 has no to_msgpack" in reasons, reasons
    assert "is measured on rocklin only: it is that study's format" in reasons, reasons
    mmap = header.index("arrow-file-mmap") - 1
    assert rows["read, page cache MiB/s"][mmap] == "no frame", "a read that builds no frame shows no throughput"
    # The instruction counts: a figure where the CPU could count, else a skip saying so.
    from dsib import counters
    from dsib_tools.report_grid import NOT_COUNTED

    cells = rows["read, page cache instructions"]
    if counters.available() is None:
        assert [c for c in cells if re.match(r"^\d+\.\d M$", c)] and all(
            re.match(r"^\d+\.\d M$", c) or c.startswith("skip ") for c in cells
        ), cells
    else:
        assert all(c.startswith("skip ") for c in cells) and NOT_COUNTED in report.stdout, cells
    # Random access: only the formats with a reader of rows give a figure.
    from dsib.formats import FORMATS

    for fmt, cell in zip(header[1:], rows["1,000 rows at random"]):
        assert cell.startswith("skip ") or FORMATS[fmt].take is not None, (fmt, cell)


def test_the_batches_report_puts_three_columns_and_batches_beside_the_whole_read(asv_tiny):
    from benchmarks.batches import MEMORY_BUDGET
    from dsib.formats import FORMATS

    report = capture(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "report",
            "--batches",
            "--results-dir",
            asv_tiny["results"],
            "--machine",
            MACHINE,
        ],
        ROOT,
        asv_tiny["env"],
    )
    assert report.returncode == 0, report.stdout
    cells = [c for row in table_rows(report.stdout) for c in row]
    assert "failed" not in cells and "not run" not in cells, report.stdout
    tables = [t for t in report.stdout.split("\n\n") if t.startswith("| nyc_taxi /")]
    assert len(tables) == 3, "the first taxi grid's three variants"
    header = table_rows(tables[0])[0]
    readers = [f.name for f in FORMATS.values() if f.columns or f.batches or f.take]
    assert header[1:] == readers, "formats with a reader only"
    assert "pickle-2" not in header and "arrow-file" in header and "orc" in header
    rows = dict((row[0], row[1:]) for row in table_rows(tables[0])[1:])
    figure = r"^\S+ \((±\d+%, n=\d+|1 sample)\)( \(under load\))?$"
    for label in ("read, page cache", "read 3 columns", "in batches", "in batches + sum", "in batches + copy"):
        assert re.match(figure, rows[label][0]), (label, rows[label])
    said = reasons_below(report.stdout, tables[0])
    for label, reader in (("read 3 columns", "columns"), ("1,000 rows at random", "take")):
        for fmt, cell in zip(header[1:], rows[label]):
            if getattr(FORMATS[fmt], reader) and not (cell.startswith("skip ") and NOT_INSTALLED in said[cell]):
                assert re.match(figure, cell), (label, fmt, cell)
            else:
                assert cell.startswith("skip "), (label, fmt, cell)
    assert rows["in batches"][header.index("fastparquet") - 1].startswith("skip ")
    assert "Parquet (fastparquet) has no reader of batches of a size asked" in report.stdout
    assert re.match(r"^\d+$", rows["in batches, peak MiB"][0])
    continuous = [row for row in table_rows(report.stdout) if row[0] == "nyc_taxi_month"]
    assert [c[1] for c in continuous] == ["parquet", "csv"]
    for cells in continuous:
        assert re.match(figure, cells[2]) and cells[6] == "%d" % (MEMORY_BUDGET >> 20), cells
        assert all(re.match(r"^-?\d+", c) for c in cells[3:6] + cells[7:]), cells


def test_the_engines_report_has_every_engines_ingest_and_query_and_the_studies_comparisons(asv_tiny):
    from dsib.engines import ENGINES
    from dsib_tools.report_engines import ENGINE_COMPARISONS, STUDY_COMPARISONS

    report = capture(
        [sys.executable, "-m", "dsib_tools", "report", "--results-dir", asv_tiny["results"], "--machine", MACHINE],
        ROOT,
        asv_tiny["env"],
    )
    assert report.returncode == 0, report.stdout
    blocks = report.stdout.split("\n\n")
    tables = [t for t in blocks if t.startswith("| ") and "ingest" in table_rows(t)[0]]
    assert len(tables) == 6, "the taxi frame and TSBS, three variants each"
    for table in tables:
        source = table_rows(table)[0][0].split(" / ")[0]
        rows = table_rows(table)[1:]
        assert [row[0] for row in rows] == [
            e.label for e in ENGINES.values() if e.sources is None or source in e.sources
        ]
        for row in rows:
            times, memory = row[1:3], row[3:]
            # A query timed as another engine's (QuestDB's paths share one) skips, and says so below.
            assert all(
                re.match(r"^\S+ \((±\d+%, n=\d+|1 sample)\)( \(under load\))?$", cell) or cell.startswith("skip ")
                for cell in times
            ), row
            # What a call added to the client, + to the other process where the engine works in one (a
            # held server, Spark's JVM) = both; the client's whole peak in brackets.
            server = row[0].startswith(("PostgreSQL", "QuestDB", "Spark"))
            added = r"^-?\d+ \+ -?\d+ = -?\d+" if server else r"^-?\d+"
            assert all(re.match(added + r" \(peak \d+\)$", cell) or cell.startswith("skip ") for cell in memory), row
        skipped = [row[0] for row in rows if any(cell.startswith("skip ") for cell in row[1:])]
        # A skip is a query timed as another engine's, or a figure the engine says it does not measure.
        assert all(
            ENGINES[e].queried_as or ENGINES[e].unmeasured for e in ENGINES.names() if ENGINES[e].label in skipped
        )
    (serialisation,) = [t for t in blocks if t.startswith("| QuestDB's serialisation alone")]
    last = table_rows(serialisation)[-1]
    assert last[0] == "dataframe() against the row loop" and all(re.match(r"^[\d.]+x$", c) for c in last[1:]), last
    assert len(last) == 4, serialisation
    (comparisons,) = [t for t in blocks if t.startswith("| paths compared ")]
    measured = [
        (path, source)
        for _, path, baseline in ENGINE_COMPARISONS
        for source in ("nyc_taxi", "tsbs_cpu")
        if all(ENGINES[e].sources is None or source in ENGINES[e].sources for e in (path, baseline))
    ]
    assert len(table_rows(comparisons)) == 1 + 3 * len(measured)
    assert all(
        re.match(r"^[\d.]+x$", cell) or (row[0].startswith("QuestDB") and cell == "n/a")
        for row in table_rows(comparisons)[1:]
        for cell in row[2:]
    ), comparisons
    (studies,) = [t for t in blocks if t.startswith("| beside the studies ")]
    assert len(table_rows(studies)) == 1 + len(STUDY_COMPARISONS)
    assert all(re.match(r"^(plain|str|cat): [\d.]+x$", row[-1]) for row in table_rows(studies)[1:]), studies


def test_site_page_is_linked_from_the_asv_dashboard(asv_tiny):
    html = asv_tiny["html"]
    # make bench built the page once; the link is added once, however often the page is rebuilt
    site = capture(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "site",
            "build",
            "--results-dir",
            asv_tiny["results"],
            "--machine",
            MACHINE,
            "--html-dir",
            html,
        ],
        ROOT,
        asv_tiny["env"],
    )
    assert site.returncode == 0, site.stdout
    with open(os.path.join(html, "asv.html")) as f:
        assert f.read().count('href="dsib/index.html"') == 1
    with open(os.path.join(html, "index.html")) as f:
        assert 'href="asv.html"' in f.read(), "the front page links asv's dashboard"
    with open(os.path.join(html, "dsib", "index.html")) as f:
        page = f.read()
    for heading in (
        "The 2019 baseline",
        "Every format",
        "Reads from an object store",
        "Databases and engines",
        "Fidelity",
    ):
        assert "<h2" in page and heading in page
    # the post; the grid; the object store; the engines: six, QuestDB's serialisation, the
    # comparisons, beside the studies; fidelity
    assert page.count("<table id=") == 1 + 9 + 1 + (6 + 1 + 1 + 1) + 1
    assert re.search(
        r"<li id='[a-z0-9-]+-skip-\d+'>skip \d+: pandas to_msgpack: pandas 3\.1\.1 has no to_msgpack "
        r"\(removed in 1\.0\)</li>",
        page,
    ), "a skip's reason, under the id its cells link to"
    # The charts' scripts are the site's own vendored files: nothing is fetched when the page is viewed.
    scripts = re.findall(r"<script[^>]*\bsrc=['\"]([^'\"]+)", page)
    assert scripts and all("//" not in src for src in scripts), scripts
    # The one address left is the charts' Vega-Lite schema, an identifier that vega-embed never fetches.
    schema = "https://vega.github.io/schema/vega-lite/v6.json"
    assert "http" not in page.replace("http-equiv", "").replace(schema, "")


def test_the_site_has_a_report_page_for_each_machine_linked_both_ways(asv_tiny, tmp_path):
    """Two machines' results: the first's page is the dsib page, the second's its own, each linking
    the other; a machine with no results for the filters gets no page and is named."""
    results, html = str(tmp_path / "results"), str(tmp_path / "html")
    shutil.copytree(asv_tiny["results"], results)
    shutil.copytree(os.path.join(asv_tiny["results"], MACHINE), os.path.join(results, "dsib-other"))
    shutil.copytree(asv_tiny["html"], html)
    site = capture(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "site",
            "build",
            "--results-dir",
            results,
            "--html-dir",
            html,
            "--machine",
            MACHINE,
            "--machine",
            "dsib-other",
            "--machine",
            "dsib-none",
            "--env",
            "DSIB_PROFILEtiny",
        ],
        ROOT,
        asv_tiny["env"],
    )
    assert site.returncode == 0, site.stdout + site.stderr
    assert "no page for machine dsib-none: " in site.stdout, site.stdout
    pages = {}
    for name, page in ((MACHINE, "index.html"), ("dsib-other", "machine-dsib-other.html")):
        with open(os.path.join(html, "dsib", page)) as f:
            pages[name] = f.read()
        assert "machine <code>%s</code>" % name in pages[name], name
        assert (
            "Databases and engines" in pages[name]
            and pages[name].count("<table id=") == 1 + 9 + 1 + (6 + 1 + 1 + 1) + 1
        )
    assert "Other machines' reports: <a href='machine-dsib-other.html'>dsib-other</a>" in pages[MACHINE]
    assert "Other machines' reports: <a href='index.html'>%s</a>" % MACHINE in pages["dsib-other"]
    assert "<title>dsib report: machine dsib-other</title>" in pages["dsib-other"]


def test_the_object_store_block_has_every_read_that_ran_with_its_spread_and_counts(asv_tiny):
    """Every file and reader of the object store's case has its time at each delay, with its spread
    and samples, and one read's requests and MiB; the cells that skip are named with their reason."""
    from dsib_tools.asv_results import param_names
    from dsib_tools.report_cells import find_results
    from dsib_tools.report_store import store_rows

    _, res = find_results(asv_tiny["results"], MACHINE)
    rows, skipped, delays = store_rows(res, param_names(asv_tiny["results"]))
    assert delays == ["0", "20"]
    # Each client; Parquet: whole and three columns, pre_buffer off and on; Feather and CSV: no pre_buffer.
    assert len(rows) == 2 * 3 * (4 + 2 + 2), rows
    assert sorted(set(row[3] for row in rows)) == ["pyarrow", "s3fs"]
    for row in rows:
        times, requests, mib = row[6:8], row[8], row[9]
        assert all(re.match(r"^[0-9.]+(µs|ms|s) \(IQR .*, n=3\)$", t) for t in times), row
        assert int(requests) >= 2 and float(mib) > 0, row
    assert sorted(len(cells) for cells in skipped.values()) == [12, 12], skipped
    assert all("has no reader that fetches ahead" in reason for reason in skipped), skipped
    # `report --store` prints the same block alone, under its legend.
    report = capture(
        [sys.executable, "-m", "dsib_tools", "report", "--store", "--results-dir", asv_tiny["results"]]
        + ["--machine", MACHINE],
        ROOT,
        asv_tiny["env"],
    )
    assert report.returncode == 0, report.stdout
    assert "pyarrow's S3 client, or s3fs" in report.stdout and "| ingest" not in report.stdout
    (header, *printed) = table_rows(report.stdout)
    assert header[6:8] == ["time, 0 ms a request", "time, 20 ms a request"] and len(printed) == len(rows)
