"""NYC yellow-taxi trips with the January–June 2016 schema, generated from a seed.

There is no internet here, so the data is synthesised with the real 2016
layout and realistic value distributions: compression ratios and parse costs
depend on the values, not just the types. ``ingest_csv`` loads real TLC files
into the same store instead.
"""

import calendar
import hashlib
import os
import re

import numpy as np

DATASET = "nyc_taxi"
GENERATOR_VERSION = 1

# (name, numpy dtype) in the order of the TLC 2016 CSV header.
SCHEMA = (
    ("VendorID", "int64"),
    ("tpep_pickup_datetime", "datetime64[ns]"),
    ("tpep_dropoff_datetime", "datetime64[ns]"),
    ("passenger_count", "int64"),
    ("trip_distance", "float64"),
    ("pickup_longitude", "float64"),
    ("pickup_latitude", "float64"),
    ("RatecodeID", "int64"),
    ("store_and_fwd_flag", "bool"),
    ("dropoff_longitude", "float64"),
    ("dropoff_latitude", "float64"),
    ("payment_type", "int64"),
    ("fare_amount", "float64"),
    ("extra", "float64"),
    ("mta_tax", "float64"),
    ("tip_amount", "float64"),
    ("tolls_amount", "float64"),
    ("improvement_surcharge", "float64"),
    ("total_amount", "float64"),
)
COLUMNS = tuple(name for name, _ in SCHEMA)
DATETIME_COLUMNS = ("tpep_pickup_datetime", "tpep_dropoff_datetime")
STRING_COLUMN = "str"
# Stored string columns: the sha256 hex of the row, and "a-b-c" from its first three hex digits.
HIGH_ENTROPY = "str_sha256"
LOW_ENTROPY = "str_abc"

# Trips per hour of day, from the shape of 2016 weekday demand (night trough, evening peak).
_HOURLY = np.array(
    [
        3.9,
        2.9,
        2.2,
        1.6,
        1.2,
        1.1,
        2.2,
        3.6,
        4.3,
        4.3,
        4.2,
        4.4,
        4.7,
        4.7,
        4.9,
        4.8,
        4.3,
        5.0,
        6.0,
        6.2,
        5.8,
        5.7,
        5.6,
        4.9,
    ]
)
_NS = 10**9


def month_bounds(month):
    """``"2016-01"`` -> (first second, number of days)."""
    year, mon = (int(x) for x in month.split("-"))
    days = calendar.monthrange(year, mon)[1]
    start = np.datetime64("%04d-%02d-01T00:00:00" % (year, mon), "s").astype("int64")
    return int(start), days


def generate_month(month, rows, seed):
    """One month of trips as ``{column: array}`` in SCHEMA order, deterministic in (month, seed)."""
    year, mon = (int(x) for x in month.split("-"))
    rng = np.random.default_rng([seed, year, mon, GENERATOR_VERSION])
    n = rows
    start, days = month_bounds(month)

    day = rng.integers(0, days, n)
    hour = rng.choice(24, n, p=_HOURLY / _HOURLY.sum())
    pickup_s = np.sort(start + day * 86400 + hour * 3600 + rng.integers(0, 3600, n))  # TLC files are near time order
    hour = (pickup_s - start) // 3600 % 24

    duration_s = np.clip(rng.lognormal(np.log(660.0), 0.65, n), 1, 4 * 3600).astype(np.int64)
    rush = (hour >= 7) & (hour <= 19)
    mph = rng.lognormal(np.log(np.where(rush, 10.0, 14.5)), 0.3, n)
    trip_distance = np.round(mph * duration_s / 3600.0, 2)
    trip_distance[rng.random(n) < 0.006] = 0.0

    vendor = np.where(rng.random(n) < 0.47, 1, 2).astype(np.int64)
    passengers = rng.choice(
        np.array([1, 2, 3, 4, 5, 6, 0], dtype=np.int64), n, p=[0.705, 0.142, 0.041, 0.020, 0.055, 0.036, 0.001]
    )
    ratecode = rng.choice(
        np.array([1, 2, 3, 4, 5, 6, 99], dtype=np.int64), n, p=[0.9725, 0.021, 0.002, 0.0005, 0.0035, 0.0001, 0.0004]
    )
    store_fwd = rng.random(n) < 0.006
    payment = rng.choice(np.array([1, 2, 3, 4], dtype=np.int64), n, p=[0.66, 0.33, 0.008, 0.002])

    # Pick-ups mostly in Manhattan, some at the airports and in Brooklyn.
    hubs = np.array(
        [
            (-73.982, 40.754, 0.018, 0.024),
            (-73.785, 40.645, 0.004, 0.004),
            (-73.872, 40.774, 0.003, 0.003),
            (-73.955, 40.690, 0.020, 0.020),
        ]
    )
    hub = hubs[rng.choice(4, n, p=[0.89, 0.03, 0.04, 0.04])]
    p_lon = hub[:, 0] + rng.normal(0, 1, n) * hub[:, 2]
    p_lat = hub[:, 1] + rng.normal(0, 1, n) * hub[:, 3]
    # Straight-line displacement is shorter than the road distance; 1° lat ≈ 69 mi, 1° lon ≈ 52.4 mi here.
    heading = rng.uniform(0, 2 * np.pi, n)
    crow = trip_distance / rng.uniform(1.2, 1.5, n)
    d_lon = p_lon + crow * np.sin(heading) / 52.4
    d_lat = p_lat + crow * np.cos(heading) / 69.0
    # GPS positions in the TLC files are single precision widened to double, and ~1.5 % are 0.
    coords = []
    for values in (p_lon, p_lat, d_lon, d_lat):
        coords.append(values.astype(np.float32).astype(np.float64))
    for pair in ((0, 1), (2, 3)):
        missing = rng.random(n) < 0.015
        for i in pair:
            coords[i][missing] = 0.0

    # Money in integer cents, so the total is exactly the sum of its parts.
    slow_minutes = np.maximum(0.0, duration_s / 60.0 - trip_distance / 12.0 * 60.0) * 0.5
    fare = 250 + 50 * (np.floor(trip_distance * 5) + np.floor(slow_minutes)).astype(np.int64)
    fare[ratecode == 2] = 5200
    negotiated = ratecode == 5
    fare[negotiated] = 100 * rng.integers(20, 120, int(negotiated.sum()))
    weekday = (np.asarray(pickup_s // 86400) + 3) % 7  # 0 = Monday; 1970-01-01 was a Thursday
    extra = np.where((hour >= 20) | (hour < 6), 50, 0)
    extra = np.where((hour >= 16) & (hour < 20) & (weekday < 5), 100, extra).astype(np.int64)
    mta_tax = np.where(negotiated | (rng.random(n) < 0.005), 0, 50).astype(np.int64)
    surcharge = np.where(rng.random(n) < 0.001, 0, 30).astype(np.int64)
    tolls = np.where(rng.random(n) < 0.05, 554, 0).astype(np.int64)
    tip_share = np.where(rng.random(n) < 0.2, 0.0, rng.uniform(0.12, 0.30, n))
    tip = np.where(payment == 1, np.round((fare + extra) * tip_share), 0).astype(np.int64)
    total = fare + extra + mta_tax + tip + tolls + surcharge

    pickup_ns = pickup_s.astype(np.int64) * _NS
    columns = {
        "VendorID": vendor,
        "tpep_pickup_datetime": pickup_ns.view("datetime64[ns]"),
        "tpep_dropoff_datetime": (pickup_ns + duration_s * _NS).view("datetime64[ns]"),
        "passenger_count": passengers,
        "trip_distance": trip_distance,
        "pickup_longitude": coords[0],
        "pickup_latitude": coords[1],
        "RatecodeID": ratecode,
        "store_and_fwd_flag": store_fwd,
        "dropoff_longitude": coords[2],
        "dropoff_latitude": coords[3],
        "payment_type": payment,
        "fare_amount": fare / 100.0,
        "extra": extra / 100.0,
        "mta_tax": mta_tax / 100.0,
        "tip_amount": tip / 100.0,
        "tolls_amount": tolls / 100.0,
        "improvement_surcharge": surcharge / 100.0,
        "total_amount": total / 100.0,
    }
    return dict((name, np.ascontiguousarray(columns[name], dtype=dtype)) for name, dtype in SCHEMA)


_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


def string_columns(columns):
    """The two string columns of the post, from a hash of each row's values.

    ``str_sha256``: the sha256 hex digest of the row (64 characters, unique).
    ``str_abc``: "a-b-c" from the digest's first three hex digits (at most 4096 values).
    The digest covers the row's little-endian bytes, so it does not depend on
    how a library formats numbers.
    """
    n = len(columns[COLUMNS[0]])
    parts = [
        np.ascontiguousarray(columns[name]).astype(columns[name].dtype.newbyteorder("<")).view(np.uint8).reshape(n, -1)
        for name in COLUMNS
    ]
    packed = np.ascontiguousarray(np.concatenate(parts, axis=1))
    width = packed.shape[1]
    buf = memoryview(packed.reshape(-1))
    sha256 = hashlib.sha256
    raw = b"".join([sha256(buf[i * width : (i + 1) * width]).digest() for i in range(n)])
    digest = np.frombuffer(raw, dtype=np.uint8).reshape(n, 32)
    hexed = np.empty((n, 64), dtype=np.uint8)
    hexed[:, 0::2] = _HEX[digest >> 4]
    hexed[:, 1::2] = _HEX[digest & 15]
    abc = np.empty((n, 5), dtype=np.uint8)
    abc[:, 0::2] = hexed[:, :3]
    abc[:, 1::2] = ord("-")
    return {HIGH_ENTROPY: hexed.view("S64").reshape(n), LOW_ENTROPY: abc.view("S5").reshape(n)}


# --- real TLC CSV files -----------------------------------------------------------

_MONTH_IN_NAME = re.compile(r"(\d{4})-(\d{2})")


def read_tlc_csv(path, chunksize=1000000):
    """Read one TLC yellow-taxi CSV in the 2016 layout into ``{column: array}``."""
    import pandas as pd

    header = pd.read_csv(path, nrows=0)
    header.columns = [c.strip() for c in header.columns]
    missing = [c for c in COLUMNS if c not in header.columns]
    if missing:
        raise ValueError(
            "%s is not in the TLC 2016 yellow-taxi layout: it lacks columns %s" % (path, ", ".join(missing))
        )
    dtypes = dict((name, dtype) for name, dtype in SCHEMA if dtype in ("int64", "float64"))
    chunks = pd.read_csv(
        path,
        usecols=list(COLUMNS),
        dtype=dtypes,
        true_values=["Y"],
        false_values=["N"],
        parse_dates=list(DATETIME_COLUMNS),
        chunksize=chunksize,
    )
    frames = list(chunks)
    frame = pd.concat(frames, ignore_index=True) if frames else header
    out = {}
    for name, dtype in SCHEMA:
        column = frame[name]
        if column.isnull().any():
            raise ValueError(
                "%s: column %s has %d empty values; the store holds complete rows only"
                % (path, name, int(column.isnull().sum()))
            )
        if dtype == "bool" and column.dtype != bool:
            raise ValueError("%s: store_and_fwd_flag holds values other than Y and N" % path)
        out[name] = np.asarray(column.values).astype(dtype)
    return out


def month_of(path, columns):
    """The partition name: the YYYY-MM in the file name, else the most common pick-up month."""
    match = _MONTH_IN_NAME.search(os.path.basename(path))
    if match:
        return "%s-%s" % match.groups()
    months = columns["tpep_pickup_datetime"].astype("datetime64[M]")
    values, counts = np.unique(months, return_counts=True)
    return str(values[np.argmax(counts)])


def to_tlc_csv(frame, path_or_buf=None):
    """Write a frame in the TLC file's own layout: Y/N flags, second-resolution datetimes."""
    out = frame[list(COLUMNS)].copy()
    out["store_and_fwd_flag"] = np.where(out["store_and_fwd_flag"].values, "Y", "N")
    return out.to_csv(path_or_buf, index=False, date_format="%Y-%m-%d %H:%M:%S")
