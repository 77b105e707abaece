"""Tables the tests of your own data (data_prep.own) bring: a frame of every column kind dsib stores
and one of nullable columns as real tables have, written as the files a user brings."""

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv
import pyarrow.feather
import pyarrow.parquet as pq

ROWS = 2500


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


# ``benchmarks.ready`` of one cell of the brought table 'mine', in a process of its own as asv's
# case would run it: "ran", or the exception's type and message. It ends as asv's case processes
# end, with os._exit: pyarrow's CPU pool, torn down by an interpreter's exit, can abort the process
# under load (apache/arrow#34314) once its answer is out.
READY = (
    "import os, sys, benchmarks\ntry:\n    benchmarks.ready('read_from_page_cache', 'mine', *sys.argv[1:])\n"
    "except Exception as exc:\n    print(type(exc).__name__, exc)\nelse:\n    print('ran')\n"
    "sys.stdout.flush()\nos._exit(0)"
)


def ready_in_a_case_process(root, data_dir, cache_dir, table=None, *cell):
    """What ``benchmarks.ready`` of the brought table's ``cell`` (format, and variant) says in a fresh
    process at the brought profile: "ran", or "<exception> <message>". ``table``: the digest the run
    was configured for (DSIB_TABLE), None for none."""
    from data_prep.own_table import OWN_PROFILE

    env = dict(
        os.environ,
        DSIB_PROFILE=OWN_PROFILE,
        DSIB_DATASET="mine",
        DSIB_DATA_DIR=data_dir,
        DSIB_CACHE_DIR=cache_dir,
        PYTHONPATH=root,
    )
    env.pop("DSIB_TABLE", None)
    if table is not None:
        env["DSIB_TABLE"] = table
    return subprocess.run(
        [sys.executable, "-c", READY] + list(cell),
        cwd=cache_dir,
        env=env,
        check=True,
        stdout=subprocess.PIPE,
        universal_newlines=True,
    ).stdout.strip()


def awkward_table(path, rows=3000):
    """A Parquet file of the types real tables bring and text formats do not record: uint64 beyond
    int64, int8, decimal128 with nulls, date32 with nulls, nullable booleans, a dictionary with
    nulls, a timestamp in Europe/Berlin across its change to summer time, and long text."""
    import datetime
    import decimal

    k = list(range(rows))
    words = ["plain", "café", "日本語", "emoji 🚕", 'comma, "quoted"', "007"]
    start = np.datetime64("2016-03-27T00:00", "ns")
    columns = {
        "id": pa.array(np.arange(rows, dtype="int64")),
        "big": pa.array(np.uint64(2**63) + np.arange(rows, dtype="uint64") * np.uint64(977), pa.uint64()),
        "tiny": pa.array((np.arange(rows) % 200 - 100).astype("int8"), pa.int8()),
        "price": pa.array(
            [None if j % 17 == 0 else decimal.Decimal(j * 37 % 100000) / 100 for j in k], pa.decimal128(12, 2)
        ),
        "day": pa.array(
            [None if j % 19 == 0 else datetime.date(2016, 1, 1) + datetime.timedelta(days=j % 900) for j in k],
            pa.date32(),
        ),
        "paid": pa.array([None if j % 3 == 0 else j % 2 == 0 for j in k], pa.bool_()),
        "kind": pa.array([None if j % 9 == 0 else ("cash", "card", "dispute")[j % 3] for j in k]).dictionary_encode(),
        "at": pa.array(start + np.arange(rows) * np.timedelta64(97, "s"), pa.timestamp("ns", "Europe/Berlin")),
        "note": pa.array([None if j % 5 == 0 else (words[j % 6] + " ") * (j % 40) for j in k]),
    }
    pq.write_table(pa.table(columns), path)
    return path
