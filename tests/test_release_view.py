"""The release view (html/dsib/releases.html) built from real result files."""

import itertools
import json
import math
import os

import pytest
from packaging.version import Version

from dsib_tools import release_data, release_page, release_view
from dsib_tools.publish import REFERENCE_MACHINE

from .conftest import ROOT, committed, table_rows
from .results_copy import (
    MACHINE,
    RESULTS,
    copy_results,
    current_benchmarks,
    current_keys,
    pose_as,
    raw_results,
    reference_file,
)


def _newest_per_release(raw):
    newest = {}
    for path, d in raw.items():
        key = tuple(d["params"].get(k) for k in ("python", "pyarrow", "pandas"))
        if key not in newest or d["date"] > newest[key][1]["date"]:
            newest[key] = (path, d)
    return dict(newest.values())


def _raw_cells(results_dir):
    """{case id: {release label: value}} from the newest raw file per release, numbers only."""
    benchmarks = current_benchmarks(results_dir)
    cells = {}
    for d in _newest_per_release(raw_results(results_dir)).values():
        label = release_data.release_label(d["params"])
        for key in current_keys(d, benchmarks):
            values, params = d["results"][key][0], d["results"][key][1]
            for combo, value in zip(itertools.product(*params), values):
                if value is not None and not math.isnan(value):
                    ident = "/".join([key] + [p.strip("'\"") for p in combo])
                    cells.setdefault(ident, {})[label] = value
    return cells


def _written_data(html_dir):
    with open(os.path.join(html_dir, "dsib", "releases-data.js")) as f:
        text = f.read()
    prefix = "window.DSIB_RELEASES = "
    assert text.startswith(prefix)
    return json.loads(text[len(prefix) :].rstrip().rstrip(";"))


def _assert_ordered(data):
    envs = data["envs"]
    for view, keys in (("pyarrow", ("pyarrow", "pandas")), ("pandas", ("pandas", "pyarrow"))):
        versions = [[Version(envs[i][k] or "0") for k in keys] for i in data["orders"][view]]
        assert versions == sorted(versions), view
        assert sorted(data["orders"][view]) == list(range(len(envs)))


def _assert_headlines_match(data, cells):
    """Every headline (per case, per view) is the best, previous and newest of the raw values, in the
    view's order, with best / newest and previous / newest."""
    labels = [e["label"] for e in data["envs"]]
    checked = 0
    for case in data["cases"]:
        raw = cells[case["id"]]
        for view, order in data["orders"].items():
            have = [labels[i] for i in order if labels[i] in raw]
            h = case["headline"][view]
            if len(have) < 2:
                assert h is None
                continue
            best = min(have, key=lambda label: raw[label])
            assert [labels[h[k]] for k in ("best", "previous", "newest")] == [best, have[-2], have[-1]]
            assert h["best_ratio"] == pytest.approx(raw[best] / raw[have[-1]], rel=1e-12)
            assert h["previous_ratio"] == pytest.approx(raw[have[-2]] / raw[have[-1]], rel=1e-12)
            checked += 1
    return checked


def test_committed_results_every_published_case_in_release_order(tmp_path):
    html_dir = str(tmp_path / "html")
    release_view.write(html_dir, RESULTS, MACHINE)
    data = _written_data(html_dir)
    cells = _raw_cells(RESULTS)
    assert cells, "results/ has no case at benchmarks.json's versions to publish"
    assert set(c["id"] for c in data["cases"]) == set(cells)
    labels = [e["label"] for e in data["envs"]]
    assert len(labels) == len(set(labels)) == len(_newest_per_release(raw_results(RESULTS)))
    for case in data["cases"]:  # the page's values are the raw ones to 4 significant digits
        for label, value in zip(labels, case["values"]):
            if label in cells[case["id"]]:
                assert value == pytest.approx(cells[case["id"]][label], rel=1e-3)
    _assert_ordered(data)
    _assert_headlines_match(data, cells)
    with open(os.path.join(html_dir, "dsib", "releases.html")) as f:
        page = f.read()
    assert page.count("class='table-2019'") == len(labels), "one 2019 table per release"


def test_two_releases_order_and_headline(tmp_path):
    """The reference file posing as releases older than any real environment (pyarrow 0.10.0 /
    pandas 0.22.0), with every value a third: where that release is a case's best, the newest (the
    reference itself) is 3x slower than it."""
    results_dir = copy_results(tmp_path)
    reference = reference_file(results_dir)
    with open(reference) as f:
        keys = current_keys(json.load(f), current_benchmarks(results_dir))
    pose_as(
        reference, results_dir, scale=dict((k, 1 / 3.0) for k in keys), python="3.7", pyarrow="0.10.0", pandas="0.22.0"
    )
    html_dir = str(tmp_path / "html")
    release_view.write(html_dir, results_dir, MACHINE)
    data = _written_data(html_dir)
    envs = data["envs"]
    assert envs[data["orders"]["pyarrow"][0]]["label"] == "pyarrow 0.10.0 / pandas 0.22.0 / py3.7"
    assert envs[data["orders"]["pandas"][0]]["label"] == "pyarrow 0.10.0 / pandas 0.22.0 / py3.7"
    assert envs[data["orders"]["pyarrow"][-1]]["pyarrow"] == "26.0.1"
    _assert_ordered(data)
    assert _assert_headlines_match(data, _raw_cells(results_dir)) > 0
    checked = 0
    for case in data["cases"]:
        h = case["headline"]["pyarrow"]
        if h and envs[h["best"]]["pyarrow"] == "0.10.0" and envs[h["newest"]]["pyarrow"] == "26.0.1":
            assert h["best_ratio"] == pytest.approx(1 / 3.0)
            checked += 1
    assert checked > 100
    with open(os.path.join(html_dir, "dsib", "releases.html")) as f:
        page = f.read()
    for label, ident in data["headlines"]:  # the page's headline rows carry the same ratios
        h = [c for c in data["cases"] if c["id"] == ident][0]["headline"]["pyarrow"]
        row = page[page.index("data-case='%s'" % ident) :]
        row = row[: row.index("</tr>")]
        assert "data-ratio='%r'" % h["best_ratio"] in row and "data-ratio='%r'" % h["previous_ratio"] in row


def test_a_machine_s_view_and_steps_read_its_matrix_s_allocator_setting_alone(tmp_path):
    """A run of the release matrix with freed memory kept joins history taken with glibc's
    defaults: from then on that machine's release view and the step caller read the runs that
    kept it alone, never the two mixed; before it, the history with glibc's defaults as it was."""
    from dsib_tools import chains, matrix, steps

    results_dir = copy_results(tmp_path)
    benchmarks = current_benchmarks(results_dir)
    entries = matrix.entries(os.path.join(ROOT, matrix.CURATED_CONFIG))
    history = release_data.published_results(results_dir, MACHINE, benchmarks)
    assert len(history) > 2 and not any(chains.keeps_freed_memory(r.env_vars) for r in history)
    at = entries.index(matrix.newest(entries))
    reference = reference_file(results_dir)
    with open(reference) as f:
        keys = current_keys(json.load(f), current_benchmarks(results_dir))
    pose_as(reference, results_dir, **chains.pins(entries[at]))  # make bench's run of the newest entry
    samples, _ = steps.from_results(results_dir, MACHINE, entries)
    assert sum(any(per) for per in zip(*samples.values())) > 2, "the history's environments give samples"
    assert steps.from_results(results_dir, MACHINE, entries, profile="none-ran") == ({}, {})
    defaults = dict((cell, per[at]) for cell, per in samples.items() if per[at])

    scale = dict((k, 0.5) for k in keys)
    pose_as(reference, results_dir, scale=scale, env_vars=chains.FREED_MEMORY_KEPT, **chains.pins(entries[at]))
    (kept,) = release_data.published_results(results_dir, MACHINE, benchmarks)
    assert chains.keeps_freed_memory(kept.env_vars) and chains.ran_in(entries[at], kept.params, kept.env_vars)
    samples, _ = steps.from_results(results_dir, MACHINE, entries)
    assert [i for i, per in enumerate(zip(*samples.values())) if any(per)] == [at]
    ratios = [samples[cell][at][0] / first[0] for cell, first in defaults.items() if (samples.get(cell) or {at: 0})[at]]
    assert len(ratios) > 50 and ratios == pytest.approx([0.5] * len(ratios)), "the kept run's samples alone"


def test_entries_of_the_same_releases_are_points_of_their_own_named_apart(tmp_path):
    """The chains' link to numpy 2 and their step of msgpack keep pyarrow, pandas and Python: each
    such entry's run is a point of its own, in the chain's order, its label naming what tells it
    from its neighbour; a run rebuilt with another optional library is still its entry's one point."""
    from dsib_tools import chains, matrix

    results_dir = copy_results(tmp_path)
    config = os.path.join(ROOT, matrix.CURATED_CONFIG)
    entries = matrix.entries(config)

    def releases(entry):
        return (entry["python"],) + tuple(chains.pins(entry).get(k) for k in ("pyarrow", "pandas"))

    twins = [i for i in range(1, len(entries)) if releases(entries[i]) == releases(entries[i - 1])]
    assert twins, "the chains change numpy or msgpack at the same releases somewhere"
    reference = reference_file(results_dir)
    for i in set(twins) | set(i - 1 for i in twins):
        pose_as(reference, results_dir, **chains.pins(entries[i]))
    rebuilt = dict(chains.pins(entries[twins[0]]), xlrd="2.0.1")
    pose_as(reference, results_dir, tag="rebuilt", **rebuilt)

    results = release_data.published_results(results_dir, MACHINE, current_benchmarks(results_dir), config)
    at = dict(
        (i, [k for k, res in enumerate(results) if chains.ran_in(entries[i], res.params)]) for i in range(len(entries))
    )
    labels = release_data.release_labels(results)
    for i in twins:
        (before,), (after,) = at[i - 1], at[i]
        assert before < after, "the chain's order"
        assert labels[before] != labels[after]
        told = [k for k in release_data.BESIDE if chains.pins(entries[i]).get(k) != chains.pins(entries[i - 1]).get(k)]
        assert told and all("%s %s" % (k, chains.pins(entries[i])[k]) in labels[after] for k in told)
    plain = [release_data.release_label(res.params) for res in results]
    alone = [label for label, bare in zip(labels, plain) if plain.count(bare) == 1]
    assert alone and not any(" / %s " % k in label for label in alone for k in release_data.BESIDE)


def test_published_site_has_the_release_view_linked():
    html_dir = committed("html")
    with open(os.path.join(html_dir, "asv.html")) as f:
        index = f.read()
    assert index.count('href="dsib/releases.html"') == 1 and index.count('href="dsib/release-regressions.html"') == 1
    with open(os.path.join(html_dir, "index.html")) as f:
        front = f.read()
    assert 'id="to-releases" href="dsib/releases.html"' in front and 'id="to-asv" href="asv.html"' in front
    data = _written_data(html_dir)
    assert data["cases"] and data["machine"] == REFERENCE_MACHINE


def test_a_release_run_under_load_is_marked_and_the_history_says_its_own_load(tmp_path):
    """A real load log, taken while two burners ran, covers the windows of a posed release's
    benchmarks: the page lists that release under load and marks its 2019 table; the committed
    runs say the load their own logs recorded, none of them under load."""
    import subprocess
    import sys

    from dsib_tools import machine_load as load

    results_dir = copy_results(tmp_path)
    posed = pose_as(reference_file(results_dir), results_dir, python="3.7", pyarrow="0.10.0", pandas="0.22.0")
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        path = load.log_path(results_dir, MACHINE)
        assert load.watch([sys.executable, "-c", "import time; time.sleep(3)"], path) == 0
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    log = load.Log(path)
    with open(posed) as f:
        d = json.load(f)
    columns = d["result_columns"]
    for row in d["results"].values():  # asv's row: result, params, version, started_at, duration, ...
        row[columns.index("started_at")], row[columns.index("duration")] = int((log.start + 1) * 1000), 1.0
    with open(posed, "w") as f:
        json.dump(d, f)
    html_dir = str(tmp_path / "html")
    release_view.write(html_dir, results_dir, MACHINE)
    data = _written_data(html_dir)
    (marked,) = [e for e in data["envs"] if e["under_load"]]
    assert marked["pyarrow"] == "0.10.0" and "(under load)" in marked["load"]
    others = [e for e in data["envs"] if e is not marked]
    assert others and all(e["load"] != "not recorded" and "under load" not in e["load"] for e in others), others
    with open(os.path.join(html_dir, "dsib", "releases.html")) as f:
        page = f.read()
    assert "pyarrow 0.10.0 / pandas 0.22.0 / py3.7 (under load)</option>" in page
    table = page[page.index("data-env='%d'" % data["envs"].index(marked)) :]
    assert "(under load)" in table[: table.index("</table>")], "the posed release's 2019 figures are marked"


def test_headlines_across_pandas_3_say_the_text_frames_differ_in_kind(tmp_path):
    html_dir = str(tmp_path / "html")
    release_view.write(html_dir, RESULTS, MACHINE)
    data = _written_data(html_dir)
    envs = data["envs"]
    assert set(e["text"] for e in envs) == {"Python objects", "Arrow-backed str"}, "the matrix spans pandas 3"
    said = 0
    for case in data["cases"]:
        for h in case["headline"].values():
            if h is None:
                continue
            for which in ("best", "previous"):
                majors = set(int(envs[h[k]]["pandas"].split(".")[0]) >= 3 for k in (which, "newest"))
                expected = case["params"].get("variant") in ("str", "cat") and len(majors) == 2
                assert bool(h[which + "_kinds"]) == expected, (case["id"], h)
                said += expected
    assert said > 10
    with open(os.path.join(html_dir, "dsib", "releases.html")) as f:
        page = f.read()
    assert "(text: Python objects → Arrow-backed str)</td>" in page, "a str headline of the page says so"


def test_best_previous_and_newest_skip_the_releases_without_a_number():
    # Releases in order 0, 1, 4, 2, 3: the newest with a number is 2 (3 failed), the one before it 1
    # (4 was skipped), the lowest median 0's.
    cells = [1.0, 4.0, 2.0, "failed", "skipped"]
    h = release_data.summary(cells, [0, 1, 4, 2, 3])
    assert (h["best"], h["previous"], h["newest"]) == (0, 1, 2)
    assert h["best_ratio"] == pytest.approx(1.0 / 2.0) and h["previous_ratio"] == pytest.approx(4.0 / 2.0)
    assert release_page.change_text("seconds", h["best_ratio"]) == "2.00× slower"
    assert release_page.change_text("seconds", h["previous_ratio"]) == "2.00× faster"
    assert release_data.summary([3.0, "skipped", None], [0, 1, 2]) is None


def test_the_steps_page_lists_every_step_the_step_caller_calls_in_the_committed_history(tmp_path):
    """Every step called along the chains in the committed results (dsib_tools.steps) is a row of
    the steps page, linked to its case, its step (the library named) beside it; and nothing else is."""
    from dsib_tools import steps

    html_dir = str(tmp_path / "html")
    release_view.write(html_dir, RESULTS, MACHINE)
    data = _written_data(html_dir)
    judged, ran, params = steps.judge_results(RESULTS, MACHINE, os.path.join(ROOT, "asv.conf.json"))
    called = [(j, c) for j, c in steps.called(judged) if j.step.before in ran and j.step.after in ran]
    assert called, "the committed history has a called step (pyarrow 0.11.1 → 0.15.1's Parquet reads)"
    with open(os.path.join(html_dir, "dsib", release_page.REGRESSIONS_PAGE)) as f:
        page = f.read()
    machine_table = page.split("data-machine='%s'" % MACHINE, 1)[1].split("</table>", 1)[0]
    assert machine_table.count("<tr class='step'") == len(called)
    labels = dict((e["label"], i) for i, e in enumerate(data["envs"]))
    for j, call in called:
        ident = "/".join([call.cell.split("(")[0]] + list(params[call.cell].values()))
        row = [r for r in machine_table.split("<tr class='step'")[1:] if r.startswith(" data-case='%s'" % ident)]
        assert len(row) == 1 and "<td>%s</td>" % j.label in row[0], ident
        assert "releases.html#case=%s" % ident in row[0]
        assert any("<td>%s</td>" % label in row[0] for label in labels)


def test_bytes_are_written_in_binary_units():
    assert release_page.human(517 * 2**20, "bytes") == "517MiB"
    assert release_page.human(1000 * 2**10, "bytes") == "1000KiB"
    assert release_page.human(1.5 * 2**30, "bytes") == "1.5GiB"
    case = {"values": [542e6], "spread": [[540e6, 545e6, 3]], "unit": "bytes"}
    assert release_page.with_spread(case, 0) == "517MiB (IQR 515MiB–520MiB, n=3)"


def test_times_are_written_as_the_page_s_script_writes_them():
    """Three significant digits without trailing zeros, halves up (JavaScript's toPrecision), a whole
    number from 999.5 on; the browser test compares the two pages' texts on the published history."""
    assert release_page.human(0.016, "seconds") == "16ms"
    assert release_page.human(10.25, "seconds") == "10.3s"
    assert release_page.human(0.9996, "seconds") == "1000ms"
    assert release_page.human(65, "seconds") == "1.08m"
    assert release_page.human(None, "seconds") == "—"


def test_cases_outside_the_release_selection_say_they_are_newest_only_instead_of_gaps(tmp_path):
    """Suite v2's committed run (records/suite-v2-results/) as the newest release, and beside it the same file posed
    as an older release that ran what the release matrix runs: the benchmarks the selection leaves
    out are absent from it, and the cells of a selected benchmark that it leaves out are asv's
    skipped (what a run's -b writes). The durable write stays in the posed release: a case with a
    number in another release is shown as it is."""
    import glob
    import shutil

    from dsib_tools import matrix

    results_dir = str(tmp_path / "results")
    shutil.copytree(committed("records/suite-v2-results"), results_dir)
    (newest,) = glob.glob(os.path.join(results_dir, "*", "*-env-*.json"))
    machine = os.path.basename(os.path.dirname(newest))
    posed = pose_as(newest, results_dir, pyarrow="25.0.1", pandas="2.3.3")
    with open(posed) as f:
        d = json.load(f)
    kept = "writes.WriteDurable.time_write"
    for key in list(d["results"]):
        row = d["results"][key]
        chosen = [matrix.in_release(key, [p.strip("'") for p in combo]) for combo in itertools.product(*row[1])]
        if key != kept and not any(chosen):
            del d["results"][key]
        elif key != kept:
            row[0] = [v if keep else float("nan") for v, keep in zip(row[0], chosen)]
    with open(posed, "w") as f:
        json.dump(d, f)
    html_dir = str(tmp_path / "html")
    release_view.write(html_dir, results_dir, machine)
    data = _written_data(html_dir)
    order = data["orders"]["pyarrow"]
    assert data["envs"][order[-1]]["pyarrow"] == "26.0.1" and data["envs"][order[0]]["pyarrow"] == "25.0.1"
    old, new = order[0], order[-1]
    by_id = dict((c["id"], c) for c in data["cases"])
    marked = [c for c in data["cases"] if c["newest_only"]]
    for ident in (
        "reads.ReadCold.time_read/nyc_taxi/parquet/plain",
        "engines.QueryFromEngine.time_query/nyc_taxi/duckdb/plain",
        "reads.ReadFromPageCache.time_read/tsbs_cpu/parquet/plain",
        "writes.CategorizeThenWrite.time_write/tsbs_cpu/parquet",
    ):
        case = by_id[ident]
        assert case["newest_only"] == matrix.NEWEST_ONLY_NOTE, ident
        assert case["values"][old] == release_data.NOT_IN_MATRIX and release_data.is_number(case["values"][new])
    for ident in (
        "reads.ReadFromBytes.time_read/nyc_taxi_month/csv/plain",
        "reads.ReadFromPageCache.time_read/nyc_taxi/orc/str",
        "writes.CategorizeThenWrite.time_write/rocklin/pickle-2",
        "writes.WriteDurable.time_write/nyc_taxi/parquet/plain",
    ):
        case = by_id[ident]
        assert case["newest_only"] is None and all(release_data.is_number(case["values"][i]) for i in (old, new))
    for case in data["cases"]:
        assert bool(case["newest_only"]) == (release_data.NOT_IN_MATRIX in case["values"]), case["id"]
        if not case["newest_only"]:
            assert matrix.in_release(case["benchmark"], list(case["params"].values())) or release_data.is_number(
                case["values"][old]
            ), case["id"]
    with open(os.path.join(html_dir, "dsib", "releases.html")) as f:
        page = f.read()
    said = page[page.index('<p id="newest-only">') :]
    said = said[: said.index("</p>")]
    assert "%d of its cases are measured on the newest environment only" % len(marked) in said
    assert "<code>reads.ReadCold.time_read</code>" in said and "<code>reads.ReadFromBytes.time_read</code>" not in said


def _with_file_layout(results_dir, path, numbers, benchmark="sizes.FileLayout", format="parquet"):
    """The result file ``path`` with ``benchmark``'s tracks of the post's ``format`` (plain), as a
    run records them ({method: number}); benchmarks.json gets the benchmarks."""
    benchmarks_json = os.path.join(results_dir, "benchmarks.json")
    with open(benchmarks_json) as f:
        benchmarks = json.load(f)
    with open(path) as f:
        d = json.load(f)
    params = [["'nyc_taxi_month'"], ["'%s'" % format], ["'plain'", "'str'", "'cat'"]]
    for method, value in numbers.items():
        name = benchmark + ".track_" + method
        benchmarks[name] = dict(
            name=name, params=params, param_names=["source", "format", "variant"], unit="n", type="track", version="1"
        )
        row = dict((column, None) for column in d["result_columns"])
        row.update(
            result=[value, float("nan"), float("nan")], params=params, version="1", started_at=d["date"], duration=1.0
        )
        d["results"][name] = [row[column] for column in d["result_columns"]]
    for target, data in ((path, d), (benchmarks_json, benchmarks)):
        with open(target, "w") as f:
            json.dump(data, f)


def test_a_step_of_the_posts_case_says_which_default_changed_the_file(tmp_path):
    """The post's Parquet as pyarrow 0.11 / pandas 0.23 and as today's releases write it by default
    (tests/test_same_work.py reads both files): the steps and headlines between them say what
    changed, from the FileLayout figures each environment recorded."""
    results_dir = copy_results(tmp_path)
    oldest = [p for p, d in raw_results(results_dir).items() if d["params"].get("pyarrow") == "0.11.1"]
    assert len(oldest) == 1
    layouts = {
        oldest[0]: dict(timestamp_digits=3, index_columns=1, format_version=1.0, codec=2, read_by_system_calls=0.0),
        reference_file(results_dir): dict(
            timestamp_digits=9, index_columns=0, format_version=2.6, codec=2, read_by_system_calls=1.0
        ),
    }
    for path, numbers in layouts.items():
        _with_file_layout(results_dir, path, numbers)
    data = release_data.build(results_dir, MACHINE)
    envs = data["envs"]
    said = (
        "defaults: timestamp unit ms → ns, index columns stored 1 → 0, format version 1.0 → 2.6, "
        "reader maps the file → reads the file"
    )
    old = [i for i, e in enumerate(envs) if e["pyarrow"] == "0.11.1"][0]
    new = [i for i, e in enumerate(envs) if e["pyarrow"] == "26.0.1"][0]
    case = [c for c in data["cases"] if c["id"] == "reads.ReadFromBytes.time_read/nyc_taxi_month/parquet/plain"][0]
    assert release_data.kind_change(case, envs[old], envs[new]) == said
    csv = [c for c in data["cases"] if c["id"] == "reads.ReadFromBytes.time_read/nyc_taxi_month/csv/plain"][0]
    assert release_data.kind_change(csv, envs[old], envs[new]) is None, "nothing recorded for CSV"
    grid = [c for c in data["cases"] if c["id"] == "reads.ReadFromPageCache.time_read/nyc_taxi/parquet/plain"][0]
    assert release_data.kind_change(grid, envs[old], envs[new]) is None, "the grid states its options"
    h = case["headline"]["pyarrow"]
    if h["best"] == old:
        assert h["best_kinds"] == said


def test_a_read_step_of_the_posts_csv_says_its_reader_moved_to_a_thread_pool(tmp_path):
    """pandas 3.1's read_csv parses a large file on a thread pool by default: the post's CSV read
    steps say so (from sizes.ReaderThreads' figures), and its writes' steps do not."""
    results_dir = copy_results(tmp_path)
    oldest = [p for p, d in raw_results(results_dir).items() if d["params"].get("pyarrow") == "0.11.1"]
    for path, fraction in ((oldest[0], 0.01), (reference_file(results_dir), 0.93)):
        _with_file_layout(results_dir, path, dict(off_thread=fraction), "sizes.ReaderThreads", "csv")
    data = release_data.build(results_dir, MACHINE)
    envs = data["envs"]
    old = [i for i, e in enumerate(envs) if e["pyarrow"] == "0.11.1"][0]
    new = [i for i, e in enumerate(envs) if e["pyarrow"] == "26.0.1"][0]
    read = [c for c in data["cases"] if c["id"] == "reads.ReadFromBytes.time_read/nyc_taxi_month/csv/plain"][0]
    said = "defaults: reader threads the calling thread → a thread pool"
    assert release_data.kind_change(read, envs[old], envs[new]) == said
    write = dict(read, benchmark="writes.WriteToBytes.time_write")
    assert release_data.kind_change(write, envs[old], envs[new]) is None, "a reader's default is no write's"
    parquet = [c for c in data["cases"] if c["id"] == "reads.ReadFromBytes.time_read/nyc_taxi_month/parquet/plain"][0]
    assert release_data.kind_change(parquet, envs[old], envs[new]) is None


def test_a_grid_case_a_run_never_measured_is_a_line_below_the_table_not_cells_of_not_run():
    """A machine's run from before a case joined the suite (or a run of some cases only) has no
    cell of it: the every-format table says so once, with the run's commit, instead of a row of
    "not run"."""
    from benchmarks import reads

    from dsib_tools import asv_results, report_cells, report_grid, suite

    results_dir = committed("results")
    _, res = report_cells.find_results(results_dir)
    names = asv_results.param_names(results_dir)
    res.remove_result(suite.name(reads.ReadFromPageCache, "peakmem_read"))
    table = report_grid.grid_table(res, names, "nyc_taxi", "plain", ["parquet", "csv"])
    assert "not run" not in table
    labels = [row[0] for row in table_rows(table)]
    assert "read, peak MiB" not in labels and "read, page cache" in labels
    (said,) = [line for line in table.splitlines() if line.startswith("Not in this run (at %s; " % res.commit_hash[:8])]
    assert "read, peak MiB" in said.split("): ", 1)[1].rstrip(".").split("; ")


def test_a_step_in_time_says_whether_the_instructions_moved_with_it(tmp_path):
    """Where both environments counted a timed case's instructions (benchmarks.instructions), its
    steps say so: unchanged within the gate's 2 %, so that a step in time alone shows as such, or
    by how much they moved."""
    results_dir = copy_results(tmp_path)
    oldest = [p for p, d in raw_results(results_dir).items() if d["params"].get("pyarrow") == "0.11.1"][0]
    newest = reference_file(results_dir)
    case_id = "reads.ReadFromBytes.time_read/nyc_taxi_month/parquet/plain"
    for counts, said in (
        ((100e6, 100.4e6), "instructions unchanged (x1.004)"),
        ((100e6, 150e6), "instructions x1.50"),
    ):
        for path, count in zip((oldest, newest), counts):
            _with_file_layout(results_dir, path, dict(read=count), "instructions.ReadFromBytes")
        data = release_data.build(results_dir, MACHINE)
        envs = data["envs"]
        old = [i for i, e in enumerate(envs) if e["pyarrow"] == "0.11.1"][0]
        new = [i for i, e in enumerate(envs) if e["pyarrow"] == "26.0.1"][0]
        case = [c for c in data["cases"] if c["id"] == case_id][0]
        assert said in release_data.kind_change(case, envs[old], envs[new]).split("; ")
        uncounted = [c for c in data["cases"] if c["id"] == case_id.replace("/plain", "/str")][0]
        assert "instructions" not in (release_data.kind_change(uncounted, envs[old], envs[new]) or "")
