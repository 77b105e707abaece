"""The grid on a brought table: every class of benchmarks/ with a source parameter called as asv
calls it, `make bench DATASET=NAME`'s asv run on a table with nulls in every text format, and
HDF5's declared loss refused by --strict."""

import json
import os
import re
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from data_prep.own import OWN_PROFILE, add_table, open_table

from .conftest import ROOT
from .own_tables import every_kind, make_file, nullable_table, ready_in_a_case_process

# The grid on a brought table: every class of benchmarks/ with a source parameter, each of its
# cells on the table set up and called as asv does (setup, the timed call, teardown), in a process
# whose environment names the table as make bench DATASET=NAME gives it.
GRID_RUN = """
import inspect, itertools, json, sys
import benchmarks
from benchmarks import batches, reads, sizes, writes
name, outcomes = sys.argv[1], []
for module in (reads, writes, sizes, batches):
    for cls_name, cls in inspect.getmembers(module, inspect.isclass):
        if cls.__module__ != module.__name__ or "source" not in getattr(cls, "param_names", ()):
            continue
        for params in itertools.product(*cls.params):
            if params[0] != name:
                continue
            for method in sorted(m for m in dir(cls) if m.startswith(("time_", "peakmem_", "track_"))):
                case = cls()
                try:
                    case.setup(*params)
                    getattr(case, method)(*params)
                    outcome = "ok"
                except NotImplementedError as exc:
                    outcome = "skipped: %s" % exc
                except Exception as exc:
                    outcome = "failed: %s: %s" % (type(exc).__name__, exc)
                finally:
                    if hasattr(case, "teardown"):
                        case.teardown(*params)
                outcomes.append(["%s.%s.%s" % (module.__name__, cls_name, method), list(params), outcome])
print(json.dumps(outcomes))
"""


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["csv", "parquet", "feather", "jsonl"])
def test_the_grid_runs_on_a_brought_table_with_no_failed_cell(tmp_path, fmt):
    data_dir = str(tmp_path / "data")
    add_table("mine", make_file(tmp_path, fmt, every_kind(3000)), data_dir, partition_rows=1000, progress=False)
    env = dict(
        os.environ,
        DSIB_PROFILE=OWN_PROFILE,
        DSIB_DATASET="mine",
        DSIB_DATA_DIR=data_dir,
        DSIB_CACHE_DIR=str(tmp_path / "cache"),
        PYTHONPATH=ROOT,
    )
    proc = subprocess.run(
        [sys.executable, "-c", GRID_RUN, "mine"],
        cwd=str(tmp_path),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    outcomes = json.loads(proc.stdout.strip().splitlines()[-1])
    failed = [o for o in outcomes if o[2].startswith("failed")]
    assert not failed, "\n".join("%s%s: %s" % (n, tuple(p), o) for n, p, o in failed[:20])
    ran = [o for o in outcomes if o[2] == "ok"]
    ran_names = set(n for n, _, _ in ran)
    for name in (
        "benchmarks.reads.ReadFromPageCache.time_read",
        "benchmarks.writes.WriteToBytes.time_write",
        "benchmarks.reads.ContinuousRead.time_read",
        "benchmarks.sizes.Sizes.track_file_size",
    ):
        assert name in ran_names, name
    for name in (
        "benchmarks.batches.ReadColumns.time_read",
        "benchmarks.batches.IterateBatches.time_sum",
        "benchmarks.batches.ContinuousReadInBatches.peakmem_read",
    ):
        assert name in ran_names, name
    parquet = [o for o in ran if o[1][:2] == ["mine", "parquet"] and o[0].endswith("ReadFromPageCache.time_read")]
    assert sorted(p[2] for _, p, _ in parquet) == ["cat", "plain", "str"]
    skips = [o for o in outcomes if o[2].startswith("skipped")]
    # A format that cannot give back a column says which: CSV keeps no zone but UTC, and writes an
    # empty text as it writes a null. Its nullable integers it holds: its reader is told them.
    csv_str = [o[2] for o in skips if o[1] == ["mine", "csv", "str"] and o[0].endswith("ReadFromPageCache.time_read")]
    assert csv_str and "CSV cannot hold this table: " in csv_str[0], csv_str
    assert "column 'name'" in csv_str[0] and "column 'small'" not in csv_str[0], csv_str
    if fmt not in ("csv", "jsonl"):  # those came in as UTC already
        assert "column 'when_tz' (datetime64[ns, America/New_York])" in csv_str[0], csv_str


TEXT_FAMILIES = ("csv", "json", "orc", "hdf5")
SKIPS_BY_RULE = """
import json, sys
from dsib import catalog
from dsib_tools import suite
versions, cells = json.loads(sys.argv[1]), json.loads(sys.argv[2])
out = []
for benchmark, given in cells:
    cls = suite.owner(benchmark)
    out.append(catalog.cell_skip_reason(cls.operation, dict(given), "brought", versions,
                                      "cat" if cls.operation == "categorize_then_write" else "plain"))
print(json.dumps(out))
"""


@pytest.mark.asv
def test_asv_measures_a_table_with_nulls_in_every_text_format(tmp_path):
    """`make bench DATASET=NAME`'s asv run (the environment of the newest releases, one sample a
    case) on a table with nullable integers and booleans, text with nulls and a zoned timestamp,
    CSV, JSON, ORC and HDF5 cells only: each reader told the table's types as its user would
    tell them, every cell measured but those the registries skip everywhere; HDF5, which cannot
    hold nullable integers, with its declared loss; none failed."""
    import itertools
    import math

    from asv.results import iter_results_for_machine

    from dsib.formats import FORMATS

    from .conftest import ENV_DIR, snapshot_working_tree

    repo, machine = str(tmp_path / "repo"), "dsib-test"
    snapshot_working_tree(repo)
    data_dir = os.path.join(repo, "data")
    table = str(tmp_path / "nulls.parquet")
    pq.write_table(pa.Table.from_pandas(nullable_table(), preserve_index=False), table)
    add_table("mine", table, data_dir, partition_rows=1000, progress=False)
    formats = [f.name for f in FORMATS.values() if f.family in TEXT_FAMILIES]
    regex = r"\('mine', '(%s)'[,)]" % "|".join(formats)
    env = dict(os.environ, DSIB_DATASET="mine", DSIB_SELECT=regex)
    for var in ("DSIB_DATA_DIR", "DSIB_CACHE_DIR", "DSIB_PROFILE", "MAKEFLAGS"):
        env.pop(var, None)
    tools = [sys.executable, "-m", "dsib_tools"]
    for step in (
        tools
        + [
            "config",
            "--profile",
            OWN_PROFILE,
            "--envs",
            "newest",
            "--results-dir",
            "build/results",
            "--html-dir",
            "build/html",
            "--env-dir",
            ENV_DIR,
            "--dataset",
            "mine",
            "-o",
            ".asv-brought.conf.json",
        ],
        tools + ["machine", machine, "--results-dir", "build/results"],
        [
            sys.executable,
            "-m",
            "asv",
            "run",
            "--config",
            ".asv-brought.conf.json",
            "--machine",
            machine,
            "--quick",
            "--show-stderr",
            "-b",
            regex,
            "HEAD^!",
        ],
    ):
        proc = subprocess.run(
            step, cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True
        )
        assert proc.returncode == 0, proc.stdout[-6000:]

    (res,) = list(iter_results_for_machine(os.path.join(repo, "build", "results"), machine))
    with open(os.path.join(repo, "build", "results", "benchmarks.json")) as f:
        names = dict((k, v["param_names"]) for k, v in json.load(f).items() if isinstance(v, dict))
    cells, values = [], []
    for key in res.get_all_result_keys():
        params = res.get_result_params(key)
        got = res.get_result_value(key, params)
        for combo, value in zip(
            itertools.product(*params) if params else [()], got if isinstance(got, list) else [got]
        ):
            given = dict(zip(names[key], [c.strip("'") for c in combo]))
            if given.get("source") == "mine" and given.get("format") in formats:
                cells.append([key, sorted(given.items())])
                values.append(value)
    failed = [c for c, v in zip(cells, values) if v is None]
    assert not failed, "failed: %s\n%s" % (failed[:10], proc.stdout[-4000:])
    versions = dict((k, v) for k, v in res.params.items() if v)
    rules = subprocess.run(
        [sys.executable, "-c", SKIPS_BY_RULE, json.dumps(versions), json.dumps(cells)],
        cwd=ROOT,
        env=dict(env, DSIB_DATA_DIR=data_dir),
        stdout=subprocess.PIPE,
        check=True,
        universal_newlines=True,
    )
    measured, ruled_out = set(), set()
    for (key, given), value, rule in zip(cells, values, json.loads(rules.stdout.strip().splitlines()[-1])):
        if rule is not None and key == "reads.ReadFromPageCache.time_read":
            ruled_out.add(dict(given)["format"])
        skipped = isinstance(value, float) and math.isnan(value)
        assert skipped == (rule is not None), "%s%s: skipped=%s, the registries say %s\n%s" % (
            key,
            dict(given),
            skipped,
            rule,
            proc.stdout[-4000:],
        )
        if not skipped:
            measured.add((dict(given)["format"], dict(given).get("variant"), key))
    # Every CSV, JSON, ORC and HDF5 format measured in every variant, but Rocklin's own JSON layout,
    # which the suite measures on his frame alone (issue 32).
    assert ruled_out <= {"json-split-noindex"}, ruled_out
    for fmt in set(formats) - ruled_out:
        for variant in ("plain", "str", "cat"):
            assert (fmt, variant, "reads.ReadFromPageCache.time_read") in measured, (fmt, variant)
    # HDF5 ran with its declared loss: the check of its cell's file (in the cell cache) saw it.
    outcomes = []
    for directory, _, files in os.walk(os.path.join(data_dir, ".cache", OWN_PROFILE, "mine", "hdf-table", "str")):
        if "outcome.json" in files:
            with open(os.path.join(directory, "outcome.json")) as f:
                outcomes.append(json.load(f))
    assert outcomes and all(
        "count: Int64 read as float64" in o["losses"] and "paid: boolean read as float64" in o["losses"]
        for o in outcomes
    ), outcomes
    # The throughput's numerator: the data's logical bytes from the store, one value per variant
    # whatever the format, and the report's MiB/s divides it.
    from data_prep.store import data_bytes

    spec, store = open_table("mine", data_dir)
    recorded = {}
    for (key, given), value in zip(cells, values):
        skipped = isinstance(value, float) and math.isnan(value)  # a rule's skip, checked above
        if key == "sizes.Sizes.track_data_bytes" and not skipped:
            recorded.setdefault(dict(given)["variant"], set()).add(value)
    assert recorded == dict((v, {data_bytes(store, spec, store.partitions[0], v)}) for v in spec.variants), recorded
    report = subprocess.run(
        tools
        + [
            "report",
            "--results-dir",
            "build/results",
            "--machine",
            machine,
            "--env",
            "DSIB_PROFILEbrought",
            "--dataset",
            "mine",
        ],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert report.returncode == 0, report.stdout[-3000:]
    block = report.stdout.split("| mine / str |")[1].split("\n\n")[0]
    header = ("| mine / str |" + block.splitlines()[0]).split(" | ")
    row = [line for line in block.splitlines() if line.startswith("| read, page cache MiB/s |")][0].split(" | ")
    assert re.match(r"^\d+(\.\d+)?$", row[header.index("csv")].strip()), row


def test_strict_refuses_hdf5s_declared_loss_and_says_which_columns(tmp_path):
    """HDF5 holds nullable integers and booleans only as floats (a declared loss): a table brought
    with --strict refuses that loss, and HDF5's cells skip naming the columns; without it they run."""
    table = str(tmp_path / "nulls.parquet")
    pq.write_table(pa.Table.from_pandas(nullable_table(300), preserve_index=False), table)
    cache = str(tmp_path / "cache")
    os.makedirs(cache)
    outputs = []
    for strict in ([], ["--strict"]):
        data_dir = str(tmp_path / ("data" + "".join(strict)))
        subprocess.run(
            [sys.executable, "-m", "data_prep", "add", "mine", "--from-file", table, "--quiet", "--data-dir", data_dir]
            + strict,
            cwd=ROOT,
            check=True,
            stdout=subprocess.PIPE,
        )
        outputs.append(ready_in_a_case_process(ROOT, data_dir, cache, None, "hdf-table", "plain"))
    assert outputs[0] == "ran", outputs
    assert outputs[1].startswith("NotImplementedError HDF5 table cannot hold this table: column 'count' (Int64)"), (
        outputs
    )
    assert "column 'paid' (boolean)" in outputs[1] and "column 'small' (Int32)" in outputs[1], outputs
    assert "column 'name'" not in outputs[1] and "column 'when'" not in outputs[1], outputs
