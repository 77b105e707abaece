"""The grid on a brought table: every class of benchmarks/ with a source parameter called as asv
calls it, `make bench DATASET=NAME`'s asv run on a table with nulls in every text format and on a
table of awkward types in every format (and `advise` on it), and HDF5's declared loss refused by
--strict."""

import json
import os
import re
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from data_prep.own_table import OWN_PROFILE, open_table
from data_prep.own_ingest import add_table

from .conftest import ROOT, table_rows
from .own_tables import awkward_table, every_kind, make_file, nullable_table, ready_in_a_case_process

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
    # A format that cannot give back a column says which: CSV writes an empty text as it writes a
    # null. Its nullable integers and its zone it holds: its reader is told them.
    csv_str = [o[2] for o in skips if o[1] == ["mine", "csv", "str"] and o[0].endswith("ReadFromPageCache.time_read")]
    assert csv_str and "CSV cannot hold this table: " in csv_str[0], csv_str
    assert "column 'name'" in csv_str[0] and "column 'small'" not in csv_str[0], csv_str
    assert "column 'when_tz'" not in csv_str[0], csv_str


TEXT_FAMILIES = ("csv", "json", "orc", "hdf5")
SKIPS_BY_RULE = """
import json, sys
from dsib import catalog
from dsib_tools import suite
versions, cells = json.loads(sys.argv[1]), json.loads(sys.argv[2])
out = []
for benchmark, pairs in cells:
    cls, given = suite.owner(benchmark), dict(pairs)
    out.append(catalog.catalog_of([given["source"]]).cell_skip_reason(cls.operation, given, "brought", versions,
                                      "cat" if cls.operation == "categorize_then_write" else "plain"))
print(json.dumps(out))
"""


def asv_on_a_brought_table(tmp_path, table, families, benchmarks=""):
    """`make bench DATASET=mine`'s steps on the file ``table`` (the environment of the newest
    releases, one sample a case), the cells of the formats of ``families`` only (of the benchmarks
    whose names match ``benchmarks`` too): (the snapshot's directory, the store's, asv's output,
    the environment, the formats, [(benchmark, sorted parameters)], their values: None where
    failed, NaN where skipped, the environment's versions)."""
    import itertools

    from asv.results import iter_results_for_machine

    from dsib.formats import FORMATS

    from .conftest import ENV_DIR, snapshot_working_tree

    repo, machine = str(tmp_path / "repo"), "dsib-test"
    snapshot_working_tree(repo)
    data_dir = os.path.join(repo, "data")
    add_table("mine", table, data_dir, partition_rows=1000, progress=False)
    formats = [f.name for f in FORMATS.values() if f.family in families]
    regex = benchmarks + r"\('mine', '(%s)'[,)]" % "|".join(formats)
    env = dict(os.environ, DSIB_DATASET="mine", DSIB_SELECT=regex)
    for var in ("DSIB_DATA_DIR", "DSIB_CACHE_DIR", "DSIB_PROFILE", "MAKEFLAGS"):
        env.pop(var, None)
    tools = [sys.executable, "-m", "dsib_tools"]
    for step in (
        tools
        + ["setup", "config", "--profile", OWN_PROFILE, "--envs", "newest", "--results-dir", "build/results"]
        + ["--html-dir", "build/html", "--env-dir", ENV_DIR, "--dataset", "mine", "-o", ".asv-brought.conf.json"],
        tools + ["setup", "machine", machine, "--results-dir", "build/results"],
        [sys.executable, "-m", "asv", "run", "--config", ".asv-brought.conf.json", "--machine", machine]
        + ["--quick", "--show-stderr", "-b", regex, "HEAD^!"],
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
    return repo, data_dir, proc.stdout, env, formats, cells, values, versions


def measured_as_the_registries_say(cells, values, versions, env, data_dir, output):
    """{(format, variant, benchmark)} of the cells measured, each cell skipped exactly where the
    registries skip it in every environment; and the formats they rule out of the page-cache read."""
    import math

    from dsib import counters

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
        if key.startswith("instructions.") and counters.available() is not None:
            assert skipped, "%s%s: counted on a machine without counters" % (key, dict(given))
            continue
        assert skipped == (rule is not None), "%s%s: skipped=%s, the registries say %s\n%s" % (
            key,
            dict(given),
            skipped,
            rule,
            output[-4000:],
        )
        if not skipped:
            measured.add((dict(given)["format"], dict(given).get("variant"), key))
    return measured, ruled_out


def cell_outcomes(data_dir, fmt, variant):
    """The outcomes of the checks of a format's files of the brought table 'mine' (the cell cache)."""
    outcomes = []
    for directory, _, files in os.walk(os.path.join(data_dir, ".cache", OWN_PROFILE, "mine", fmt, variant)):
        if "outcome.json" in files:
            with open(os.path.join(directory, "outcome.json")) as f:
                outcomes.append(json.load(f))
    return outcomes


@pytest.mark.asv
def test_asv_measures_a_table_with_nulls_in_every_text_format(tmp_path):
    """`make bench DATASET=NAME`'s asv run (the environment of the newest releases, one sample a
    case) on a table with nullable integers and booleans, text with nulls and a zoned timestamp,
    CSV, JSON, ORC and HDF5 cells only: each reader told the table's types as its user would
    tell them, every cell measured but those the registries skip everywhere; HDF5, which cannot
    hold nullable integers, with its declared loss; none failed."""
    import math

    table = str(tmp_path / "nulls.parquet")
    pq.write_table(pa.Table.from_pandas(nullable_table(), preserve_index=False), table)
    run = asv_on_a_brought_table(tmp_path, table, TEXT_FAMILIES)
    data_dir, output, env, formats, cells, values, versions = run[1:]
    measured, ruled_out = measured_as_the_registries_say(cells, values, versions, env, data_dir, output)
    # Every CSV, JSON, ORC and HDF5 format measured in every variant, but Rocklin's own JSON layout,
    # which the suite measures on his frame alone, and a reader this environment does not install.
    from dsib.formats import FORMATS

    not_installed = set(f for f in formats if FORMATS[f].unavailable(versions))
    assert not_installed <= {"csv-polars"}, not_installed
    assert ruled_out <= {"json-split-noindex"} | not_installed, ruled_out
    for fmt in set(formats) - ruled_out:
        for variant in ("plain", "str", "cat"):
            assert (fmt, variant, "reads.ReadFromPageCache.time_read") in measured, (fmt, variant)
    # HDF5 ran with its declared loss: the check of its cell's file (in the cell cache) saw it.
    outcomes = cell_outcomes(data_dir, "hdf-table", "str")
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
        [sys.executable, "-m", "dsib_tools"]
        + [
            "report",
            "--results-dir",
            "build/results",
            "--machine",
            "dsib-test",
            "--env",
            "DSIB_PROFILEbrought",
            "--dataset",
            "mine",
        ],
        cwd=run[0],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )
    assert report.returncode == 0, report.stdout[-3000:]
    # the grid's block (the engines' block of the table follows, its columns the operations)
    (block,) = [t for t in report.stdout.split("\n\n") if t.startswith("| mine / str ") and "csv" in table_rows(t)[0]]
    header = table_rows(block)[0]
    (row,) = [row for row in table_rows(block) if row[0] == "read, page cache MiB/s"]
    assert re.match(r"^\d+(\.\d+)?$", row[header.index("csv")]), row


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


# What a format cannot hold of the awkward table, column by column: its declared losses.
AWKWARD_LOSSES = {
    "hdf-table": ("paid: boolean read as float64", "price: decimal read as float64"),
    "hdf-fixed": ("paid: boolean read as float64",),
    "fastparquet": ("price: decimal read as float64",),
    "parquet-duckdb": ("price: decimal read as float64",),
    "csv-duckdb": ("price: decimal read as float64", "big: integers rounded to float64 (integer_float)"),
    "csv-pandas-pyarrow": ("big: integers rounded to float64 (integer_float)",),
}
NPY_LOSSES = (
    "at: datetime64[ns, Europe/Berlin] read as datetime64[ns]",  # a structured array holds no zone
    "paid: boolean read as float64",
    "price: decimal read as float64",
)


def _named(losses):
    """Losses as ``AWKWARD_LOSSES`` names them: how many integers were rounded left out."""
    return set(re.sub(r": \d+ integers", ": integers", loss) for loss in losses)


def _advise(table, tmp_path, *options):
    """`advise`'s outcomes ({format: outcome}), its printed table and its progress lines."""
    out = str(tmp_path / ("advise%s.json" % len(options)))
    proc = subprocess.run(
        [sys.executable, "-m", "dsib_tools", "advise", table, "--samples", "1", "--json", out]
        + ["--html", str(tmp_path / "advise.html")]
        + list(options),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(out) as f:
        return dict((o["format"], o) for o in json.load(f)["outcomes"]), proc.stdout, proc.stderr


@pytest.mark.slow
def test_advise_keeps_every_column_and_format_of_a_table_of_awkward_types(tmp_path):
    """`advise` on uint64, int8, decimal128, date32, nullable booleans, a dictionary with nulls, a
    Europe/Berlin timestamp and long text: no column left out; every format measured, but those the
    registries rule out (a release without the API, a variant the format cannot hold); each reader
    told the table's types gives it back, or its declared losses name the columns; CSV and JSON
    ranked."""
    from dsib.formats import FORMATS
    from dsib.registry import installed_versions

    table = awkward_table(str(tmp_path / "awkward.parquet"))
    outcomes, text, progress = _advise(table, tmp_path)
    assert "left out" not in progress, progress
    versions = installed_versions(FORMATS.packages())
    for name, fmt in FORMATS.items():
        o = outcomes[name]
        ruled_out = fmt.unavailable(versions) or ("str" not in fmt.variants and "str")
        if ruled_out:
            assert o["skip"], (name, o)
            continue
        assert not o["skip"] and not o["error"] and o["read"], (name, o)
        declared = set(AWKWARD_LOSSES.get(name, ()))
        # Those losses, and a resolution (datetime_unit) where the format declares it: nothing else.
        others = [loss for loss in _named(o["losses"]) if loss not in declared and "read as datetime64[" not in loss]
        assert declared <= _named(o["losses"]) and not others, (name, o["losses"])
    ranked = [(row[0], row[1]) for row in table_rows(text) if row[0].isdigit()]
    for name in FORMATS:
        if FORMATS[name].family in ("csv", "json") and not FORMATS[name].unavailable(versions):
            assert name in [n for _, n in ranked], (name, text)
    # .npy holds the plain variant: its zone, nullable booleans and decimals lost, as declared.
    outcomes, _, _ = _advise(table, tmp_path, "--variant", "plain", "--only", "npy,msgpack")
    assert sorted(outcomes["npy"]["losses"]) == sorted(NPY_LOSSES), outcomes["npy"]
    assert not outcomes["msgpack"]["error"] and not outcomes["msgpack"]["losses"], outcomes["msgpack"]


@pytest.mark.asv
def test_asv_measures_a_table_of_awkward_types_in_every_format(tmp_path):
    """`make bench DATASET=NAME`'s asv run on the awkward table, its page-cache reads and writes into
    memory in every format: none failed, every cell measured but those the registries skip
    everywhere, and the checks of the cells' files saw each format's declared losses, column by
    column."""
    from dsib.formats import FORMATS

    table = awkward_table(str(tmp_path / "awkward.parquet"))
    classes = r"(reads\.ReadFromPageCache\.time_read|writes\.WriteToBytes\.time_write)"
    run = asv_on_a_brought_table(tmp_path, table, set(f.family for f in FORMATS.values()), classes)
    data_dir, output, env, formats, cells, values, versions = run[1:]
    measured, ruled_out = measured_as_the_registries_say(cells, values, versions, env, data_dir, output)
    spec, _ = open_table("mine", data_dir)
    assert spec.left_out == [] and len(spec.table_columns) == 9
    for name in set(formats) - ruled_out:
        for variant in set(FORMATS[name].variants) & set(spec.variants):
            assert (name, variant, "reads.ReadFromPageCache.time_read") in measured, (name, variant)
    for name, losses in sorted(AWKWARD_LOSSES.items()) + [("npy", NPY_LOSSES)]:
        if name in ruled_out:
            continue
        outcomes = cell_outcomes(data_dir, name, "plain")
        assert outcomes and all(set(losses) <= _named(o["losses"]) for o in outcomes), (name, outcomes)
