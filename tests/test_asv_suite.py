"""The README's `make bench` at `tiny`, for real: asv runs the whole suite, publishes the site,
prints the table, and leaves every committed file as it was.

The working tree is snapshotted into a throwaway git repository, because asv
builds and installs the package from a commit: this tests the code as it is
now, not as last committed.
"""

import glob
import itertools
import json
import math
import os
import re
import shutil
import subprocess
import sys

import pytest


from .conftest import ENV_DIR, ROOT, committed, run_with_progress, snapshot_working_tree

MACHINE = "dsib-test"


def expected_benchmarks():
    from dsib_tools import suite

    return set(suite.name(cls, m) for cls in suite.classes() for m in suite.methods(cls))


def expected_skip(benchmark, given, versions):
    """Why a cell must skip in this environment, from the registries alone; None if it must run."""
    from dsib import cases
    from dsib.formats import FORMATS
    from dsib_tools import suite

    cls, given = suite.owner(benchmark), dict(given)
    operation = getattr(cls, "operation", None)
    if operation is None:  # the process baseline and the generator
        return FORMATS[given["format"]].unavailable(versions) if "format" in given else None
    return cases.cell_skip_reason(
        operation, given, "tiny", versions, "cat" if operation == "categorize_then_write" else "plain"
    )


def _run(args, cwd, env):
    proc = subprocess.run(
        args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True
    )
    return proc


def _git_status(repo):
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo,
        check=True,
        stdout=subprocess.PIPE,
        universal_newlines=True,
    ).stdout


@pytest.fixture(scope="module")
def asv_tiny(tiny_data_dir, tmp_path_factory, request):
    """The README's `make bench`, at `tiny`, in a fresh repository holding this working tree: its
    own .venv, asv's environment shared with the other tests, the tiny data of the session."""
    work = str(tmp_path_factory.mktemp("bench"))
    repo = os.path.join(work, "repo")
    snapshot_working_tree(repo)
    env = dict(os.environ, DSIB_DATA_DIR=tiny_data_dir)
    env.pop("MAKEFLAGS", None)  # `make test`'s own flags are not the user's
    run = run_with_progress(
        ["make", "bench", "PROFILE=tiny", "MACHINE=" + MACHINE, "ASV_ENV_DIR=" + ENV_DIR],
        repo,
        env,
        request,
        "make bench PROFILE=tiny",
    )
    return {
        "work": work,
        "repo": repo,
        "env": env,
        "run": run,
        "results": os.path.join(repo, "build", "results"),
        "html": os.path.join(repo, "build", "html"),
        "asv": [sys.executable, "-m", "asv"],
    }


def _results(asv_tiny):
    from asv.results import iter_results_for_machine

    return list(iter_results_for_machine(asv_tiny["results"], MACHINE))


def test_asv_runs_every_benchmark_without_failure(asv_tiny):
    from dsib import pagecache

    run = asv_tiny["run"]
    assert run.returncode == 0, run.stdout[-6000:]
    (res,) = _results(asv_tiny)
    assert "DSIB_PROFILEtiny" in res.env_name, "the profile is part of the series"
    assert expected_benchmarks() == set(res.get_all_result_keys())
    assert pagecache.eviction_supported(asv_tiny["work"])[0], "cold reads would skip here"
    with open(os.path.join(asv_tiny["results"], "benchmarks.json")) as f:
        names = dict((k, v["param_names"]) for k, v in json.load(f).items() if isinstance(v, dict))
    ran = skipped = 0
    for key in res.get_all_result_keys():
        params = res.get_result_params(key)
        values = res.get_result_value(key, params)
        combos = list(itertools.product(*params)) if params else [()]
        values = values if isinstance(values, list) else [values]
        for combo, value in zip(combos, values):
            given = list(zip(names[key], [c.strip("'") for c in combo]))
            assert value is not None, "%s%s failed: %s" % (key, combo, run.stdout[-4000:])
            is_skip = isinstance(value, float) and math.isnan(value)
            reason = expected_skip(key, given, dict((k, v) for k, v in res.params.items() if v))
            assert is_skip == (reason is not None), "%s %s: skipped=%s, expected %s" % (key, combo, is_skip, reason)
            ran, skipped = ran + (not is_skip), skipped + is_skip
    assert ran > 1500, "every cell the rules say must run did: %d ran, %d skipped" % (ran, skipped)


def test_the_benchmark_environment_samples_with_the_pinned_asv_runner(asv_tiny):
    """asv would install the newest asv_runner; the plugin installs the tools' pin instead."""
    from importlib import metadata

    with open(os.path.join(ROOT, "requirements.txt")) as f:
        pinned = [line.split("==")[1].strip() for line in f if line.startswith("asv_runner==")]
    assert pinned == [metadata.version("asv_runner")], "the tools run the pinned asv_runner"
    installed = glob.glob(os.path.join(ENV_DIR, "*", "lib", "python*", "site-packages", "asv_runner-*.dist-info"))
    assert installed, "the run built its environment in %s" % ENV_DIR
    assert set(os.path.basename(d) for d in installed) == {"asv_runner-%s.dist-info" % pinned[0]}


def test_make_bench_publishes_the_site_of_its_run_beside_the_committed_history(asv_tiny):
    html = asv_tiny["html"]
    assert os.path.exists(os.path.join(html, "index.html")), asv_tiny["run"].stdout[-3000:]
    with open(os.path.join(html, "index.json")) as f:
        index = json.load(f)
    assert expected_benchmarks() <= set(index["benchmarks"])
    graphs = glob.glob(os.path.join(html, "graphs", "**", "reads.ReadFromBytes.time_read.json"), recursive=True)
    assert any("DSIB_PROFILE-tiny" in g for g in graphs), graphs
    committed_machines = set(os.listdir(committed("results"))) - {"benchmarks.json"}
    assert committed_machines and committed_machines | {MACHINE} <= set(index["machines"]), index["machines"]


def test_make_bench_leaves_every_committed_file_alone(asv_tiny):
    """Its results and site go to build/ (ignored): no committed file is deleted or changed, and
    nothing new appears outside the ignored directories."""
    assert asv_tiny["run"].returncode == 0, asv_tiny["run"].stdout[-3000:]
    assert _git_status(asv_tiny["repo"]) == ""


def test_comparison_table_from_the_run(asv_tiny):
    table = _run(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "table",
            "--results-dir",
            asv_tiny["results"],
            "--machine",
            MACHINE,
            "--with-2019",
        ],
        ROOT,
        asv_tiny["env"],
    )
    assert table.returncode == 0, table.stdout
    rows = [line for line in table.stdout.splitlines() if line.startswith("| ") and "Benchmark" not in line]
    assert [r.split("|")[1].strip() for r in rows] == [
        "1a READ",
        "1b READ with str",
        "1c READ with cat",
        "2 cont. READ",
        "3a WRITE",
        "3b WRITE with str",
        "3c WRITE with cat",
    ]
    for row in rows:
        assert "failed" not in row and "skipped" not in row and "n/a" not in row, row
        assert row in asv_tiny["run"].stdout, "make bench printed the same table"
    assert "profile `tiny` (10,000 rows per month)" in table.stdout


def test_the_run_keeps_every_sample_so_its_statistics_can_be_recomputed(asv_tiny):
    from asv_runner.statistics import compute_stats

    from dsib_tools import compare, suite

    (res,) = _results(asv_tiny)
    name = suite.name(suite.reads.ReadFromPageCache, "time_read") + "('nyc_taxi', 'parquet', 'plain')"
    value, (stats, samples), _ = compare.load_cells(asv_tiny["results"], MACHINE, res.commit_hash)[name]
    assert samples and len(samples) == stats["repeat"], (samples, stats)
    assert compute_stats(samples, stats["number"])[0] == value


def test_the_run_logged_the_machines_load_over_every_benchmark(asv_tiny):
    """make bench ran asv under dsib_tools.machine_load's watch: each benchmark's window is covered, and
    the table and report say what else the machine was doing (a figure under load is marked)."""
    from benchmarks.engines import IngestIntoEngine, QueryFromEngine, SerializeForQuestDB
    from dsib_tools import machine_load as load, suite

    (res,) = _results(asv_tiny)
    logs = load.Machine(asv_tiny["results"], MACHINE)
    assert len(logs.logs) == 1, "one log per asv run"
    windows = dict((key, logs.of(res, key)) for key in res.get_all_result_keys())
    assert all(w is not None and w.seconds > 0 for w in windows.values()), windows
    assert "dsib: machine load during this run: " in asv_tiny["run"].stdout
    busy = set(logs.busy_keys(res))
    shown = {
        "table": set(suite.name(c.cls, c.method) for c in suite.POST_2019),
        "report": set(suite.name(r.cls, r.method) for r in suite.GRID if r.kind == "time")
        | set(
            suite.name(cls, method)
            for cls in (IngestIntoEngine, QueryFromEngine, SerializeForQuestDB)
            for method in suite.methods(cls)
            if method.startswith("time_")
        ),
    }
    for command, keys in sorted(shown.items()):
        out = _run(
            [sys.executable, "-m", "dsib_tools", command, "--results-dir", asv_tiny["results"], "--machine", MACHINE],
            ROOT,
            asv_tiny["env"],
        ).stdout
        assert "machine load during the run: other processes " in out, out[:2000]
        assert ("%d benchmarks ran under load" % len(busy) in out) == bool(busy), out[:2000]
        # The line on the whole run says "(under load)" of the run itself; the tables mark figures.
        figures = "\n".join(line for line in out.splitlines() if "machine load during the run" not in line)
        assert ("(under load)" in figures) == bool(busy & keys), (command, sorted(busy), figures[:2000])


def test_every_format_report_has_a_value_in_every_case_that_makes_sense(asv_tiny):
    report = _run(
        [sys.executable, "-m", "dsib_tools", "report", "--results-dir", asv_tiny["results"], "--machine", MACHINE],
        ROOT,
        asv_tiny["env"],
    )
    assert report.returncode == 0, report.stdout
    tables = [t for t in report.stdout.split("\n\n") if t.startswith("| ") and "| parquet |" in t.splitlines()[0]]
    assert len(tables) == 9, "three sources x three variants"
    assert "failed" not in report.stdout
    header = tables[0].splitlines()[0]
    assert "| parquet |" in header and "| npy |" in header
    warm = [line for line in tables[0].splitlines() if line.startswith("| read, page cache |")][0]
    assert warm.count("skip ") == 1, "only pandas-msgpack cannot run in this pandas: %s" % warm
    for cell in warm.strip("| ").split(" | ")[1:]:
        # A figure taken while other work ran is marked so: the test does not need a quiet machine.
        assert cell.startswith("skip ") or re.match(r"^\S+ \((±\d+%, n=\d+|1 sample)\)( \(under load\))?$", cell), cell
    assert "·" not in report.stdout, "a skip says why, never a bare dot"
    reasons = report.stdout.split(tables[0], 1)[1].split("\n\n")[1]
    assert reasons.startswith("skip 1: pandas to_msgpack: pandas 3.1.1 has no to_msgpack"), reasons
    mmap = header.split(" | ").index("arrow-file-mmap")
    throughput = [line for line in tables[0].splitlines() if line.startswith("| read, page cache MiB/s |")][0]
    assert throughput.split(" | ")[mmap] == "no frame", "a read that builds no frame shows no throughput"


def test_the_batches_report_puts_three_columns_and_batches_beside_the_whole_read(asv_tiny):
    from benchmarks.batches import MEMORY_BUDGET
    from dsib.formats import FORMATS

    report = _run(
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
    cells = [c.strip() for line in report.stdout.splitlines() if line.startswith("| ") for c in line.split("|")]
    assert "failed" not in cells and "not run" not in cells, report.stdout
    tables = [t for t in report.stdout.split("\n\n") if t.startswith("| nyc_taxi /")]
    assert len(tables) == 3, "the first taxi grid's three variants"
    header = tables[0].splitlines()[0].strip("| ").split(" | ")
    assert header[1:] == [f.name for f in FORMATS.values() if f.columns or f.batches], "formats with a reader only"
    assert "pickle-2" not in header and "arrow-file" in header and "orc" in header
    rows = dict(
        (line.strip("| ").split(" | ")[0], line.strip("| ").split(" | ")[1:])
        for line in tables[0].splitlines()[2:]
        if line.startswith("| ")
    )
    figure = r"^\S+ \((±\d+%, n=\d+|1 sample)\)( \(under load\))?$"
    for label in ("read, page cache", "read 3 columns", "in batches", "in batches + sum", "in batches + copy"):
        assert re.match(figure, rows[label][0]), (label, rows[label])
    for fmt, cell in zip(header[1:], rows["read 3 columns"]):
        assert re.match(figure, cell) if FORMATS[fmt].columns else cell.startswith("skip "), (fmt, cell)
    assert rows["in batches"][header.index("fastparquet") - 1].startswith("skip ")
    assert "Parquet (fastparquet) has no reader of batches of a size asked" in report.stdout
    assert re.match(r"^\d+$", rows["in batches, peak MiB"][0])
    continuous = [
        line.strip("| ").split(" | ") for line in report.stdout.splitlines() if line.startswith("| nyc_taxi_month |")
    ]
    assert [c[1] for c in continuous] == ["parquet", "csv"]
    for cells in continuous:
        assert re.match(figure, cells[2]) and cells[6] == "%d" % (MEMORY_BUDGET >> 20), cells
        assert all(re.match(r"^-?\d+", c) for c in cells[3:6] + cells[7:]), cells


def test_the_engines_report_has_every_engines_ingest_and_query_and_the_studies_comparisons(asv_tiny):
    from dsib.engines import ENGINES
    from dsib_tools.report import ENGINE_COMPARISONS, STUDY_COMPARISONS

    report = _run(
        [sys.executable, "-m", "dsib_tools", "report", "--results-dir", asv_tiny["results"], "--machine", MACHINE],
        ROOT,
        asv_tiny["env"],
    )
    assert report.returncode == 0, report.stdout
    blocks = report.stdout.split("\n\n")
    tables = [t for t in blocks if t.startswith("| ") and "| ingest |" in t.splitlines()[0]]
    assert len(tables) == 6, "the taxi frame and TSBS, three variants each"
    for table in tables:
        source = table.split(" / ")[0].lstrip("| ")
        rows = table.splitlines()[2:]
        assert [row.split(" | ")[0].lstrip("| ") for row in rows] == [
            e.label for e in ENGINES.values() if e.sources is None or source in e.sources
        ]
        for row in rows:
            times, memory = row.strip("| ").split(" | ")[1:3], row.strip("| ").split(" | ")[3:]
            # A query timed as another engine's (QuestDB's paths share one) skips, and says so below.
            assert all(
                re.match(r"^\S+ \((±\d+%, n=\d+|1 sample)\)( \(under load\))?$", cell) or cell.startswith("skip ")
                for cell in times
            ), row
            # An engine that works in a held server: the client's peak + the server's = both.
            server = row.startswith(("| PostgreSQL", "| QuestDB"))
            assert all(
                re.match(r"^\d+ \+ \d+ = \d+$" if server else r"^\d+$", cell) or cell.startswith("skip ")
                for cell in memory
            ), row
        skipped = [row for row in rows if "skip" in row]
        assert all(ENGINES[e].queried_as for e in ENGINES.names() if any(ENGINES[e].label + " |" in r for r in skipped))
    (serialisation,) = [t for t in blocks if t.startswith("| QuestDB's serialisation alone")]
    assert re.match(
        r"^\| dataframe\(\) against the row loop \| [\d.]+x \| [\d.]+x \| [\d.]+x \|$", serialisation.splitlines()[-1]
    ), serialisation
    (comparisons,) = [t for t in blocks if t.startswith("| paths compared |")]
    measured = [
        (path, source)
        for _, path, baseline in ENGINE_COMPARISONS
        for source in ("nyc_taxi", "tsbs_cpu")
        if all(ENGINES[e].sources is None or source in ENGINES[e].sources for e in (path, baseline))
    ]
    assert len(comparisons.splitlines()) == 2 + 3 * len(measured)
    assert all(
        re.match(r"^[\d.]+x$", cell) or (line.startswith("| QuestDB") and cell == "n/a")
        for line in comparisons.splitlines()[2:]
        for cell in line.strip("| ").split(" | ")[2:]
    ), comparisons
    (studies,) = [t for t in blocks if t.startswith("| beside the studies |")]
    assert len(studies.splitlines()) == 2 + len(STUDY_COMPARISONS)
    assert all(
        re.match(r"^(plain|str|cat): [\d.]+x$", line.strip("| ").split(" | ")[-1]) for line in studies.splitlines()[2:]
    ), studies


def test_site_page_is_linked_from_the_asv_dashboard(asv_tiny):
    html = asv_tiny["html"]
    # make bench built the page once; the link is added once, however often the page is rebuilt
    site = _run(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "site",
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
    with open(os.path.join(html, "index.html")) as f:
        assert f.read().count('href="dsib/index.html"') == 1
    with open(os.path.join(html, "dsib", "index.html")) as f:
        page = f.read()
    for heading in ("The 2019 baseline", "Every format", "Databases and engines", "Fidelity"):
        assert "<h2" in page and heading in page
    # the post; the grid; the engines: six, QuestDB's serialisation, the comparisons, beside the studies; fidelity
    assert page.count("<table id=") == 1 + 9 + (6 + 1 + 1 + 1) + 1
    assert re.search(
        r"<li id='[a-z0-9-]+-skip-1'>skip 1: pandas to_msgpack: pandas 3\.1\.1 has no to_msgpack "
        r"\(removed in 1\.0\)</li>",
        page,
    ), "a skip's reason, under the id its cells link to"
    assert "<script" not in page and "http" not in page.replace("http-equiv", "")


def test_the_site_has_a_report_page_for_each_machine_linked_both_ways(asv_tiny, tmp_path):
    """Two machines' results: the first's page is the dsib page, the second's its own, each linking
    the other; a machine with no results for the filters gets no page and is named."""
    results, html = str(tmp_path / "results"), str(tmp_path / "html")
    shutil.copytree(asv_tiny["results"], results)
    shutil.copytree(os.path.join(asv_tiny["results"], MACHINE), os.path.join(results, "dsib-other"))
    shutil.copytree(asv_tiny["html"], html)
    site = _run(
        [
            sys.executable,
            "-m",
            "dsib_tools",
            "site",
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
        assert "Databases and engines" in pages[name] and pages[name].count("<table id=") == 1 + 9 + (6 + 1 + 1 + 1) + 1
    assert "Other machines' reports: <a href='machine-dsib-other.html'>dsib-other</a>" in pages[MACHINE]
    assert "Other machines' reports: <a href='index.html'>%s</a>" % MACHINE in pages["dsib-other"]
    assert "<title>dsib report: machine dsib-other</title>" in pages["dsib-other"]


def _servers_of(data_dir):
    """{pid: port} of the PostgreSQL servers whose cluster is under ``data_dir``."""
    import psutil

    found = {}
    for process in psutil.process_iter(["name", "cmdline"]):
        cmdline = process.info["cmdline"] or []
        if process.info["name"] == "postgres" and "-p" in cmdline and any(data_dir in part for part in cmdline):
            found[process.pid] = int(cmdline[cmdline.index("-p") + 1])
    return found


def test_a_run_interrupted_during_the_engine_cases_leaves_no_server_and_no_port(asv_tiny):
    """Ctrl-C as a terminal sends it (SIGINT to the run's whole process group) while a PostgreSQL
    case of a real `make run` has its server up. Its own build directory: the run is cut short."""
    import signal
    import time

    import psutil

    from dsib import servers

    if servers.postgres_unavailable():
        pytest.skip(servers.postgres_unavailable())
    data_dir = asv_tiny["env"]["DSIB_DATA_DIR"]
    assert not _servers_of(data_dir), "no server of this data directory runs before"
    log = os.path.join(asv_tiny["work"], "interrupted.log")
    with open(log, "w") as out:
        run = subprocess.Popen(
            [
                "make",
                "run",
                "PROFILE=tiny",
                "ENGINE=postgres-sqlalchemy",
                "MACHINE=" + MACHINE,
                "ASV_ENV_DIR=" + ENV_DIR,
                "BUILD=" + os.path.join(asv_tiny["work"], "interrupted"),
            ],
            cwd=asv_tiny["repo"],
            env=asv_tiny["env"],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline, seen = time.monotonic() + 600, {}
        while not seen and run.poll() is None and time.monotonic() < deadline:
            seen = dict((pid, port) for pid, port in _servers_of(data_dir).items() if servers.port_open(port))
            time.sleep(0.05)
        assert seen, "no server came up: %s" % open(log).read()[-3000:]
        os.killpg(run.pid, signal.SIGINT)
        run.wait(300)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (_servers_of(data_dir) or any(servers.port_open(p) for p in seen.values())):
        time.sleep(0.2)
    left = _servers_of(data_dir)
    assert not left, "servers left by the interrupted run: %s" % left
    assert not [port for port in seen.values() if servers.port_open(port)], "a port is still bound"
    assert not [
        p
        for p in psutil.process_iter(["cmdline"])
        if "asv" in " ".join(p.info["cmdline"] or []) and asv_tiny["repo"] in " ".join(p.info["cmdline"] or [])
    ], "the run itself ended"


def test_make_record_is_the_deliberate_way_into_the_committed_history(asv_tiny):
    """Runs last: it changes the repository on purpose. The run's results join results/, under
    its machine, and html/ is republished from results/; nothing committed is deleted from results/."""
    from dsib_tools import machine_load as load

    (res,) = _results(asv_tiny)
    logs = os.path.join(asv_tiny["results"], MACHINE, load.DIRECTORY)
    aside = os.path.join(asv_tiny["work"], "load-aside")
    shutil.move(logs, aside)
    try:
        unknown = _run(["make", "record", "MACHINE=" + MACHINE, "PROFILE=tiny"], asv_tiny["repo"], asv_tiny["env"])
        assert unknown.returncode != 0 and "its machine load was not recorded" in unknown.stdout, unknown.stdout[-3000:]
        assert _git_status(asv_tiny["repo"]) == "", "a refused record changes nothing"
    finally:
        shutil.move(aside, logs)
    # A reference is taken on a quiet machine: a run under load is refused, and recorded only when asked.
    busy = load.Machine(asv_tiny["results"], MACHINE).busy_keys(res)
    record = _run(["make", "record", "MACHINE=" + MACHINE, "PROFILE=tiny"], asv_tiny["repo"], asv_tiny["env"])
    if busy:
        assert record.returncode != 0 and "ran under load" in record.stdout, record.stdout[-3000:]
        assert _git_status(asv_tiny["repo"]) == ""
        record = _run(
            ["make", "record", "MACHINE=" + MACHINE, "PROFILE=tiny", "ALLOW_LOAD=1"], asv_tiny["repo"], asv_tiny["env"]
        )
    assert record.returncode == 0, record.stdout[-3000:]
    changes = [(line[:2], line[3:]) for line in _git_status(asv_tiny["repo"]).splitlines()]
    (log,) = os.listdir(logs)
    assert ("??", "results/%s/%s/%s" % (MACHINE, load.DIRECTORY, log)) in changes, "the load log goes with them"
    from asv.results import get_filename

    # asv names the file after the environment, or its hash where the name is 128 characters or more
    added = "results/" + get_filename(MACHINE, res.commit_hash, res.env_name)
    assert ("??", added) in changes and ("??", "results/%s/machine.json" % MACHINE) in changes, changes
    assert (" M", "results/benchmarks.json") in changes, changes
    assert not [path for status, path in changes if path.startswith("results/") and "D" in status], changes
    assert any(path.startswith("html/") for _, path in changes), "html/ was republished from results/"
    with open(os.path.join(asv_tiny["repo"], "html", "index.json")) as f:
        assert MACHINE in json.load(f)["params"]["machine"]
    again = _run(["make", "record", "MACHINE=" + MACHINE, "PROFILE=tiny"], asv_tiny["repo"], asv_tiny["env"])
    assert again.returncode == 0 and "nothing to record" in again.stdout, again.stdout[-2000:]


def test_the_audit_times_the_posts_cases_by_asv_and_outside_it_in_turn(asv_tiny, tmp_path):
    """`make audit`: each of the post's cells run by asv alone and in fresh processes of asv's
    environment (collector on, then off), in turn, each column sampled as asv samples."""
    from dsib_tools import audit, compare

    record_path = str(tmp_path / "audit.json")
    cells_before = compare.load_cells(asv_tiny["results"], MACHINE, compare.resolve(asv_tiny["repo"], "HEAD"))
    run = _run(
        [
            "make",
            "audit",
            "PROFILE=tiny",
            "MACHINE=" + MACHINE,
            "ASV_ENV_DIR=" + ENV_DIR,
            "AUDIT_ROUNDS=1",
            "AUDIT_ONLY=parquet",
            "AUDIT_RECORD=" + record_path,
        ],
        asv_tiny["repo"],
        asv_tiny["env"],
    )
    assert run.returncode == 0, run.stdout[-3000:]
    record = audit.load_record(record_path)
    head = compare.resolve(asv_tiny["repo"], "HEAD")
    assert record["commit"] == head and record["env_name"].endswith("DSIB_PROFILEtiny")
    assert [case["format"] for case in record["cases"]] == ["parquet"] * 7, "the post's seven cases, as asked"
    for case in record["cases"]:
        low, high, _ = case["repeat"]
        processes = case["processes"]
        assert case["order"] == [["asv", "forked", "gc_off", "gc_on"]] and case["number"] == 1
        (asv_run,) = case["asv"]
        assert processes * max(low, 2) <= len(asv_run) <= processes * high, (case["cell"], asv_run)
        for column in ("forked", "gc_off", "gc_on"):
            (step,) = case[column]
            assert len(step) == processes and all(max(low, 2) <= len(p) <= high for p in step), (column, step)
            assert all(0 < t < 60 for p in step for t in p)
    # The audit's own asv runs keep to their directory (each run replaces the one before): the
    # run's results are not touched.
    audit_results = compare.load_cells(os.path.join(asv_tiny["repo"], "build", "audit-results"), MACHINE, head)
    assert record["cases"][-1]["cell"] in audit_results
    assert compare.load_cells(asv_tiny["results"], MACHINE, head) == cells_before
    rows = [line for line in audit.markdown(record).splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 8 and all(row.count("| yes |") + row.count("| no |") == 3 for row in rows[1:]), rows
    assert (
        subprocess.run(
            ["git", "status", "--porcelain", "--", "records"],
            cwd=asv_tiny["repo"],
            check=True,
            stdout=subprocess.PIPE,
            universal_newlines=True,
        ).stdout
        == ""
    ), "AUDIT_RECORD, not the committed record"


def test_the_audit_refuses_code_other_than_the_runs(asv_tiny, tmp_path):
    with open(os.path.join(asv_tiny["repo"], "dsib", "__init__.py"), "a") as f:
        f.write("\n# changed after the run\n")
    try:
        run = _run(
            [
                sys.executable,
                "-m",
                "dsib_tools",
                "audit",
                "--config",
                ".asv-tiny.conf.json",
                "--results-dir",
                asv_tiny["results"],
                "--machine",
                MACHINE,
                "--profile",
                "tiny",
                "-o",
                str(tmp_path / "a.json"),
            ],
            asv_tiny["repo"],
            asv_tiny["env"],
        )
    finally:
        subprocess.run(["git", "checkout", "--", "dsib/__init__.py"], cwd=asv_tiny["repo"], check=True)
    assert run.returncode == 2 and "differ from" in run.stdout, run.stdout[-2000:]
    assert not os.path.exists(str(tmp_path / "a.json"))


def test_make_bench_runs_real_tlc_files_and_a_table_you_brought(asv_tiny, tmp_path):
    """Your own data through the README's make bench, Parquet's cells only (to keep it short):
    TLC-layout CSV files ingested with --from-csv and run at PROFILE=tlc, and a table brought with
    `data_prep add` run with DATASET=. Each in its own build directory; the data where a user's
    is, in the checkout's data/ (no DSIB_DATA_DIR: asv installs dsib elsewhere, and a fresh
    clone's make bench once looked for the data there)."""
    import pyarrow.parquet as pq
    from asv.results import iter_results_for_machine

    from data_prep import load_frame, nyc_taxi

    from .test_own_table import arrow_table, every_kind

    repo, python = asv_tiny["repo"], os.path.join(asv_tiny["repo"], ".venv", "bin", "python")
    env = dict(asv_tiny["env"])
    env.pop("DSIB_DATA_DIR")
    paths = []
    for month in ("2016-01", "2016-02"):
        paths.append(str(tmp_path / ("yellow_tripdata_%s.csv" % month)))
        nyc_taxi.to_tlc_csv(load_frame("tiny", "plain", month, asv_tiny["env"]["DSIB_DATA_DIR"]), paths[-1])
    ingest = _run(
        [python, "-m", "data_prep", "prepare", "--profile", "tlc", "--quiet", "--from-csv"] + paths, repo, env
    )
    assert ingest.returncode == 0, ingest.stdout
    table = str(tmp_path / "mine.parquet")
    pq.write_table(arrow_table(every_kind(5000)), table)
    add = _run(
        [python, "-m", "data_prep", "add", "mine", "--from-file", table, "--partition-rows", "2000", "--quiet"],
        repo,
        env,
    )
    assert add.returncode == 0 and "left out: column 'tags'" in add.stdout, add.stdout

    for how, profile, source in ((["PROFILE=tlc"], "tlc", "nyc_taxi"), (["DATASET=mine"], "own", "mine")):
        build = str(tmp_path / ("build-" + profile))
        run = _run(
            ["make", "bench", "FORMAT=parquet", "MACHINE=" + MACHINE, "ASV_ENV_DIR=" + ENV_DIR, "BUILD=" + build] + how,
            repo,
            env,
        )
        assert run.returncode == 0, run.stdout[-6000:]
        (res,) = [
            r
            for r in iter_results_for_machine(os.path.join(build, "results"), MACHINE)
            if "DSIB_PROFILE" + profile in r.env_name.split("-")
        ]
        if profile == "own":  # the table's name and what it holds: a series of its own
            from dsib_tools.config import table_digest

            assert "DSIB_DATASETmine" in res.env_name.split("-"), res.env_name
            assert "DSIB_TABLE" + table_digest("mine", os.path.join(repo, "data")) in res.env_name.split("-")
            assert "| mine / str |" in run.stdout, "make bench DATASET= prints the table's block"
            with open(os.path.join(build, "html", "dsib", "index.html")) as f:
                assert "mine / str" in f.read(), "and its site shows it"
        measured, failed = [], []
        for key in res.get_all_result_keys():
            params = res.get_result_params(key)
            values = res.get_result_value(key, params)
            for combo, value in zip(
                itertools.product(*params) if params else [()], values if isinstance(values, list) else [values]
            ):
                cell = (key,) + tuple(c.strip("'") for c in combo)
                if value is None:
                    failed.append(cell)
                elif not (isinstance(value, float) and math.isnan(value)) and source in cell and "parquet" in cell:
                    measured.append(cell)
        assert not failed, "%s: %s" % (how, failed)
        names = set(cell[0] for cell in measured)
        for name in (
            "reads.ReadFromPageCache.time_read",
            "writes.WriteToBytes.time_write",
            "reads.ContinuousRead.time_read",
        ):
            assert name in names, (how, name, sorted(names))
    report = _run(
        [
            python,
            "-m",
            "dsib_tools",
            "report",
            "--results-dir",
            os.path.join(str(tmp_path), "build-own", "results"),
            "--machine",
            MACHINE,
            "--env",
            "DSIB_PROFILEown",
            "--dataset",
            "mine",
        ],
        repo,
        env,
    )
    assert report.returncode == 0, report.stdout
    block = report.stdout.split("| mine / str |")[1].split("\n\n")[0]
    read = [line for line in block.splitlines() if line.startswith("| read, page cache |")][0]
    assert re.match(r"\s*\d[\d.]*\s?(µs|ms|s) \(", read.split("|")[2]), read  # Parquet's column: a time
