"""Your own data (data_prep.own): a table of every column kind, with nulls, brought in from real
CSV, Parquet, Feather and JSON Lines files made here, in batches, and every way it can go wrong."""

import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv
import pyarrow.feather
import pyarrow.parquet as pq
import pytest

from data_prep import DatasetError, load_frame, read_hints
from data_prep import own_ingest
from data_prep.own import OWN_PROFILE, TableError, add_table, open_table
from dsib.fidelity import assert_same_frame
from dsib_tools.config import derive_config, table_digest

from .conftest import ROOT

ROWS = 2500
PARTITION_ROWS = 1000  # three partitions, and batches that straddle them


def every_kind(rows=ROWS):
    """A frame of every kind dsib stores, nulls in each that can have them, text beyond ASCII."""
    i = np.arange(rows)
    small = pd.array(np.where(i % 7 == 0, None, i % 300), dtype="Int32")
    maybe = pd.array(np.where(i % 3 == 0, None, i % 2 == 0), dtype="boolean")
    when = pd.Series(pd.Timestamp("2016-01-01") + pd.to_timedelta(i * 61, unit="s"))
    when[i % 11 == 0] = pd.NaT
    when_tz = pd.Series(
        (pd.Timestamp("2016-03-13 06:00", tz="UTC") + pd.to_timedelta(i * 97, unit="s")).tz_convert("America/New_York")
    ).astype("datetime64[ns, America/New_York]")
    when_tz[i % 13 == 0] = pd.NaT
    words = np.array(["plain", "café", "日本語", "emoji 🚕", "", 'comma, "quoted"'], dtype=object)
    name = words[i % len(words)]
    name[i % 4 == 0] = None  # an object array: the frame types it as pandas types read text
    kind = pd.Categorical(np.where(i % 9 == 0, None, np.array(["cash", "card", "dispute"], dtype=object)[i % 3]))
    return pd.DataFrame(
        {
            "id": i.astype("int64"),
            "small": small,
            "x": np.where(i % 5 == 0, np.nan, i / 8.0),
            "flag": i % 2 == 0,
            "maybe": maybe,
            "when": when.astype("datetime64[ns]"),
            "when_tz": when_tz,
            "name": name,
            "kind": kind,
        }
    )


def arrow_table(frame, nested=True):
    """``frame`` as Arrow, with the columns dsib cannot store: a list, a struct and binary."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if nested:
        n = len(frame)
        table = table.append_column("tags", pa.array([[k, k + 1] for k in range(n)], pa.list_(pa.int64())))
        table = table.append_column("point", pa.array([{"a": k, "b": "p"} for k in range(n)]))
        table = table.append_column("blob", pa.array([b"\x00\x01"] * n, pa.binary()))
    return table


def write_jsonl(frame, path):
    with open(path, "w", encoding="utf-8") as f:
        for k, row in enumerate(frame.itertuples(index=False)):
            record = {}
            for column, value in zip(frame.columns, row):
                if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and np.isnan(value)):
                    record[column] = None
                elif isinstance(value, pd.Timestamp):
                    record[column] = (
                        value.tz_convert("UTC").strftime("%Y-%m-%dT%H:%M:%SZ")
                        if value.tz
                        else value.strftime("%Y-%m-%d %H:%M:%S")
                    )
                elif isinstance(value, (np.integer, np.bool_)):
                    record[column] = value.item()
                else:
                    record[column] = value
            record["tags"] = [k, k + 1]
            record["point"] = {"a": k, "b": "p"}
            f.write(json.dumps(record, ensure_ascii=False) + "\n")


def expected(frame, fmt):
    """What the store gives back of ``frame`` brought from ``fmt``: text formats have no
    categoricals, no column width and no zone but UTC."""
    columns = dict((name, frame[name]) for name in frame.columns)
    if fmt in ("csv", "jsonl"):
        columns["small"] = frame["small"].astype("Int64")
        columns["when_tz"] = frame["when_tz"].dt.tz_convert("UTC")
        if fmt == "jsonl":  # pyarrow's JSON reader takes "...Z" as a naive time
            columns["when_tz"] = columns["when_tz"].dt.tz_localize(None)
    # str holds every text column as text, categoricals too.
    columns["kind"] = np.array([None if v is np.nan else v for v in frame["kind"].astype(object)], dtype=object)
    columns["name"] = np.array(frame["name"].astype(object).where(frame["name"].notna(), None), dtype=object)
    return pd.DataFrame(columns)


def make_file(tmp_path, fmt, frame):
    path = str(tmp_path / ("table." + {"feather": "arrow"}.get(fmt, fmt)))
    if fmt == "parquet":
        pq.write_table(arrow_table(frame), path, row_group_size=700)
    elif fmt == "feather":
        pyarrow.feather.write_feather(arrow_table(frame), path, chunksize=700)
    elif fmt == "csv":
        pyarrow.csv.write_csv(arrow_table(frame, nested=False), path)
    else:
        write_jsonl(frame, path)
    return path


def values(column):
    return [None if pd.isna(v) else v for v in column.astype(object)]


LEFT_OUT = {
    "parquet": ["tags", "point", "blob"],
    "feather": ["tags", "point", "blob"],
    "csv": [],
    "jsonl": ["tags", "point"],
}


@pytest.mark.parametrize("fmt", ["csv", "parquet", "feather", "jsonl"])
def test_a_table_of_every_kind_comes_back_as_it_was(tmp_path, fmt):
    source = every_kind()
    path = make_file(tmp_path, fmt, source)
    data_dir = str(tmp_path / "data")
    summary = add_table("mine", path, data_dir, partition_rows=PARTITION_ROWS, progress=False)

    assert summary["rows"] == ROWS and summary["partitions"] == 3
    assert [name for name, _ in summary["left_out"]] == LEFT_OUT[fmt]
    assert summary["variants"] == ("plain", "str", "cat")
    table, store = open_table("mine", data_dir)
    kinds = dict((c.name, c.kind) for c in table.table_columns)
    assert kinds == {
        "id": "integer",
        "small": "integer",
        "x": "float",
        "flag": "boolean",
        "maybe": "boolean",
        "when": "datetime",
        "when_tz": "datetime",
        "name": "text",
        "kind": "text" if fmt in ("csv", "jsonl") else "categorical",
    }

    want = expected(source, fmt)
    got = pd.concat(
        [load_frame(OWN_PROFILE, "str", partition=p, data_dir=data_dir, dataset="mine") for p in store.partitions],
        ignore_index=True,
    )
    assert_same_frame(want, got)
    plain = load_frame(OWN_PROFILE, "plain", data_dir=data_dir, dataset="mine")
    assert list(plain.columns) == ["id", "small", "x", "flag", "maybe", "when", "when_tz"]
    assert_same_frame(want.iloc[:PARTITION_ROWS].drop(columns=["name", "kind"]), plain)
    cat = load_frame(OWN_PROFILE, "cat", data_dir=data_dir, dataset="mine", rows=10)
    assert str(cat["name"].dtype) == "category" and str(cat["kind"].dtype) == "category"
    assert values(cat["name"]) == values(want["name"].iloc[:10])
    # Readers that take dtypes are told the nullable columns' and the text's, as a user would tell them.
    assert read_hints("cat", "mine", data_dir) == {
        "datetimes": ("when", "when_tz"),
        "categoricals": ("name", "kind"),
        "texts": (),
        "dtypes": (
            ("small", "Int64" if fmt in ("csv", "jsonl") else "Int32"),
            ("maybe", "boolean"),
            ("name", "text"),
            ("kind", "text"),
        ),
    }


def test_the_cli_names_what_it_left_out_and_a_table_without_text_runs_plain_only(tmp_path):
    path = str(tmp_path / "numbers.parquet")
    frame = every_kind(50)[["id", "x", "when"]]
    pq.write_table(arrow_table(frame), path)
    proc = run_cli("add", "numbers", "--from-file", path, "--data-dir", str(tmp_path / "data"), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "left out: column 'tags' of type list<element: int64>" in proc.stdout
    assert "left out: column 'blob' of type binary" in proc.stdout
    assert "variants: plain only (the table has no text column)" in proc.stdout
    with pytest.raises(ValueError, match="has no variant 'str' \\(it has no text column\\)"):
        load_frame(OWN_PROFILE, "str", data_dir=str(tmp_path / "data"), dataset="numbers")


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "data_prep"] + list(args),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )


def test_strict_refuses_the_table_naming_its_columns_and_stores_nothing(tmp_path):
    path = make_file(tmp_path, "parquet", every_kind(20))
    data_dir = str(tmp_path / "data")
    with pytest.raises(TableError, match="column 'tags' of type list<element: int64>; column 'point' of type struct"):
        add_table("mine", path, data_dir, strict=True, progress=False)
    assert not os.path.exists(os.path.join(data_dir, OWN_PROFILE)), "nothing was written"


def test_a_failed_ingest_leaves_the_table_before_it_as_it_was(tmp_path, monkeypatch):
    # Types from the first 64 KiB, blocks of 16 KiB: the reader fails after partitions were written.
    monkeypatch.setattr(own_ingest, "SAMPLE_BYTES", 1 << 16)
    monkeypatch.setattr(own_ingest, "BLOCK_BYTES", 1 << 14)
    data_dir = str(tmp_path / "data")
    good = make_file(tmp_path, "csv", every_kind(30))
    add_table("mine", good, data_dir, progress=False)
    before = open_table("mine", data_dir, verify=True)[1].digest
    bad = str(tmp_path / "bad.csv")
    with open(good) as f:
        text = f.read()
    # 3,000 good rows, then one whose "id" is not a number: the reader fails well after the first partition.
    lines = text.splitlines()
    with open(bad, "w") as f:
        f.write("\n".join([lines[0]] + lines[1:] * 100 + ['"seven",' + lines[1].split(",", 1)[1]]) + "\n")
    with pytest.raises(TableError, match="pyarrow cannot read .*bad.csv as csv"):
        add_table("mine", bad, data_dir, partition_rows=1000, progress=False)
    assert open_table("mine", data_dir, verify=True)[1].digest == before
    # What was written of the failed table stays out of the way, as an interrupted preparation's.
    assert [n for n in os.listdir(os.path.join(data_dir, OWN_PROFILE)) if n != "mine"][0].startswith(".tmp-mine-")


def test_bad_names_formats_and_files_are_refused_clearly(tmp_path):
    path = make_file(tmp_path, "csv", every_kind(5))
    with pytest.raises(TableError, match="built-in dataset's name"):
        add_table("nyc_taxi", path, str(tmp_path), reserved=("nyc_taxi",), progress=False)
    with pytest.raises(TableError, match="lower-case letters"):
        add_table("My Table", path, str(tmp_path), progress=False)
    with pytest.raises(TableError, match="no such file"):
        add_table("mine", str(tmp_path / "absent.csv"), str(tmp_path), progress=False)
    odd = str(tmp_path / "table.xlsx")
    open(odd, "w").close()
    with pytest.raises(TableError, match="cannot tell the format .* say it with --format"):
        add_table("mine", odd, str(tmp_path), progress=False)
    proc = run_cli("add", "mine", "--from-file", odd, "--data-dir", str(tmp_path))
    assert proc.returncode == 1 and "error: cannot tell the format" in proc.stderr


def test_a_corrupt_or_missing_table_says_how_to_rebuild_it(tmp_path):
    data_dir = str(tmp_path / "data")
    path = make_file(tmp_path, "parquet", every_kind(40))
    add_table("mine", path, data_dir, progress=False)
    table, store = open_table("mine", data_dir)
    column = os.path.join(store.path, "part-00000", "c7.text.npy")
    with open(column, "r+b") as f:
        f.seek(-1, os.SEEK_END)
        last = f.read(1)
        f.seek(-1, os.SEEK_END)
        f.write(bytes([last[0] ^ 1]))
    with pytest.raises(
        DatasetError,
        match="c7.text.npy does not match its sha256 checksum. Rebuild it with: "
        "python -m data_prep add mine --from-file .*table.parquet",
    ):
        load_frame(OWN_PROFILE, "str", data_dir=data_dir, dataset="mine")
    with pytest.raises(DatasetError, match="python -m data_prep add absent --from-file PATH"):
        open_table("absent", data_dir)


# A file larger than the memory its process may use: the limit is a memory cgroup's (v1 or v2),
# which counts what the process holds, as a machine's memory does.
LIMIT_BYTES = 300 << 20
BIG_ROWS = 6000000


def memory_cgroup(name, limit):
    """A new memory cgroup below this process's own, limited to ``limit`` bytes: its directory."""
    with open("/proc/self/cgroup") as f:
        lines = [line.rstrip("\n").split(":", 2) for line in f]
    for _, controllers, path in lines:
        if "memory" in controllers.split(","):  # v1
            directory, limit_file = "/sys/fs/cgroup/memory" + path, "memory.limit_in_bytes"
            break
    else:
        path = [p for _, c, p in lines if c == ""][0]
        directory, limit_file = "/sys/fs/cgroup" + path, "memory.max"
    group = os.path.join(directory, name)
    try:
        os.mkdir(group)
        with open(os.path.join(group, limit_file), "w") as f:
            f.write(str(limit))
    except OSError as exc:
        pytest.fail("cannot make a memory cgroup at %s to limit a process's memory: %s" % (group, exc))
    return group


def run_limited(group, code, *args):
    def join():
        with open(os.path.join(group, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run(
        [sys.executable, "-c", code] + list(args),
        cwd=ROOT,
        env=env,
        preexec_fn=join,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )


def write_big_csv(path, rows):
    words = pa.array(["%064x" % (k * 2654435761) for k in range(1000)])
    writer = None
    for start in range(0, rows, 500000):
        i = np.arange(start, min(rows, start + 500000))
        chunk = pa.table(
            {
                "id": i,
                "x": i / 7.0,
                "when": pa.array((1451606400 + i).astype("datetime64[s]")),
                "flag": i % 2 == 0,
                "hex": words.take(pa.array(i % 1000)),
            }
        )
        writer = writer or pyarrow.csv.CSVWriter(path, chunk.schema)
        writer.write_table(chunk)
    writer.close()


INGEST = """
import json, sys
from data_prep.own import add_table
summary = add_table("big", sys.argv[1], sys.argv[2], partition_rows=100000, progress=False)
print(json.dumps({"rows": summary["rows"], "partitions": summary["partitions"]}))
"""
READ_WHOLE = """
import sys, pyarrow.csv
print(pyarrow.csv.read_csv(sys.argv[1]).num_rows)
"""


def test_a_file_larger_than_the_memory_its_process_may_use_comes_in(tmp_path):
    path, data_dir = str(tmp_path / "big.csv"), str(tmp_path / "data")
    write_big_csv(path, BIG_ROWS)
    group = memory_cgroup("dsib-test-%d" % os.getpid(), LIMIT_BYTES)
    try:
        assert os.path.getsize(path) > 2 * LIMIT_BYTES
        whole = run_limited(group, READ_WHOLE, path)
        assert whole.returncode != 0, "the limit does not bind: the whole file was read in one go"
        ingest = run_limited(group, INGEST, path, data_dir)
        assert ingest.returncode == 0, ingest.stderr[-2000:]
    finally:
        os.rmdir(group)
    assert json.loads(ingest.stdout) == {"rows": BIG_ROWS, "partitions": BIG_ROWS // 100000}
    table, store = open_table("big", data_dir, verify=True)
    last = load_frame(OWN_PROFILE, "str", partition=store.partitions[-1], data_dir=data_dir, dataset="big")
    i = np.arange(BIG_ROWS - 100000, BIG_ROWS)
    assert last["id"].tolist() == i.tolist() and last["x"].tolist() == (i / 7.0).tolist()
    assert (last["when"] == pd.to_datetime(1451606400 + i, unit="s")).all()
    assert last["hex"].tolist()[:2] == ["%064x" % (k * 2654435761) for k in i[:2] % 1000]
    os.remove(path)  # 1.3 GB that pytest would keep for three sessions
    shutil.rmtree(data_dir)


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


def test_a_table_brought_again_with_other_rows_starts_another_series(tmp_path):
    """make bench DATASET=NAME records the table's name and what it holds in the environment's
    name (asv's series): other rows under the same name are another series, the same rows the same."""
    data_dir = str(tmp_path / "data")
    base = {"include": [{"python": "3.11", "req": {"pandas": "3.1.1"}}]}
    recorded = []
    for rows in (100, 200, 200):
        add_table("mine", make_file(tmp_path, "parquet", every_kind(rows)), data_dir, progress=False)
        recorded.append(
            derive_config(base, OWN_PROFILE, dataset="mine", data_dir=data_dir)["include"][0]["env_nobuild"]
        )
    assert all(r["DSIB_DATASET"] == "mine" and r["DSIB_PROFILE"] == OWN_PROFILE for r in recorded)
    assert recorded[0]["DSIB_TABLE"] != recorded[1]["DSIB_TABLE"] == recorded[2]["DSIB_TABLE"]


def test_a_run_configured_for_other_rows_refuses_the_table(tmp_path):
    """The environment's name records what the table held when the run was configured
    (DSIB_TABLE); a table brought again since then fails its cells, saying so, rather than
    adding other rows' figures to that series."""
    data_dir = str(tmp_path / "data")
    add_table("mine", make_file(tmp_path, "parquet", every_kind(300)), data_dir, progress=False)
    code = (
        "import benchmarks\ntry:\n    benchmarks.ready('read_from_page_cache', 'mine', 'parquet')\n"
        "except Exception as exc:\n    print(type(exc).__name__, exc)\nelse:\n    print('ran')"
    )
    outputs = []
    for digest in (table_digest("mine", data_dir), "000000000000"):
        env = dict(
            os.environ,
            DSIB_PROFILE=OWN_PROFILE,
            DSIB_DATASET="mine",
            DSIB_DATA_DIR=data_dir,
            DSIB_CACHE_DIR=str(tmp_path / "cache"),
            PYTHONPATH=ROOT,
            DSIB_TABLE=digest,
        )
        outputs.append(
            subprocess.run(
                [sys.executable, "-c", code],
                cwd=str(tmp_path),
                env=env,
                check=True,
                stdout=subprocess.PIPE,
                universal_newlines=True,
            ).stdout.strip()
        )
    assert outputs[0] == "ran", outputs
    assert outputs[1].startswith("DatasetError") and "brought again" in outputs[1], outputs


def nullable_table(rows=3000):
    """A table as real ones are: integers and booleans with nulls (pandas' nullable types), text
    with nulls (some of it looking like numbers) and a UTC timestamp with nulls."""
    i = np.arange(rows)
    words = np.array(["85", "café", "日本語", "emoji 🚕", 'comma, "quoted"', "007"], dtype=object)
    name = words[i % len(words)]
    name[i % 4 == 0] = None
    when = pd.Series(pd.Timestamp("2016-03-13 06:00", tz="UTC") + pd.to_timedelta(i * 97, unit="s"))
    when[i % 13 == 0] = pd.NaT
    return pd.DataFrame(
        {
            "id": i.astype("int64"),
            "count": pd.array(np.where(i % 7 == 0, None, i * 3), dtype="Int64"),
            "small": pd.array(np.where(i % 5 == 0, None, i % 300), dtype="Int32"),
            "paid": pd.array(np.where(i % 3 == 0, None, i % 2 == 0), dtype="boolean"),
            "fare": np.where(i % 11 == 0, np.nan, i / 8.0),
            "when": when.astype("datetime64[ns, UTC]"),
            "name": name,
        }
    )


TEXT_FAMILIES = ("csv", "json", "orc", "hdf5")
SKIPS_BY_RULE = """
import json, sys
from dsib import cases
from dsib_tools import suite
versions, cells = json.loads(sys.argv[1]), json.loads(sys.argv[2])
out = []
for benchmark, given in cells:
    cls = suite.owner(benchmark)
    out.append(cases.cell_skip_reason(cls.operation, dict(given), "own", versions,
                                      "cat" if cls.operation == "categorize_then_write" else "plain"))
print(json.dumps(out))
"""


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
            ".asv-own.conf.json",
        ],
        tools + ["machine", machine, "--results-dir", "build/results"],
        [
            sys.executable,
            "-m",
            "asv",
            "run",
            "--config",
            ".asv-own.conf.json",
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
    measured = set()
    for (key, given), value, rule in zip(cells, values, json.loads(rules.stdout.strip().splitlines()[-1])):
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
    for fmt in formats:
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
        if key == "sizes.Sizes.track_data_bytes":
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
            "DSIB_PROFILEown",
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
    code = (
        "import benchmarks\ntry:\n    benchmarks.ready('read_from_page_cache', 'mine', 'hdf-table', 'plain')\n"
        "except NotImplementedError as exc:\n    print('skipped:', exc)\nelse:\n    print('ran')"
    )
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
        env = dict(
            os.environ,
            DSIB_PROFILE=OWN_PROFILE,
            DSIB_DATASET="mine",
            DSIB_DATA_DIR=data_dir,
            DSIB_CACHE_DIR=str(tmp_path / "cache"),
            PYTHONPATH=ROOT,
        )
        env.pop("DSIB_TABLE", None)
        outputs.append(
            subprocess.run(
                [sys.executable, "-c", code],
                cwd=str(tmp_path),
                env=env,
                check=True,
                stdout=subprocess.PIPE,
                universal_newlines=True,
            ).stdout.strip()
        )
    assert outputs[0] == "ran", outputs
    assert outputs[1].startswith("skipped: HDF5 table cannot hold this table: column 'count' (Int64)"), outputs
    assert "column 'paid' (boolean)" in outputs[1] and "column 'small' (Int32)" in outputs[1], outputs
    assert "column 'name'" not in outputs[1] and "column 'when'" not in outputs[1], outputs
