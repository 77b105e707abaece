"""Time dsib's CSV read of the taxi month's ``cat`` cell file in one environment, and profile one call.

    <env>/bin/python records/csv-category-read/probe.py <cell file.csv>

The file is the cell file both environments' asv runs read (``data/.cache/default/nyc_taxi_month/
csv/cat/...``); the reader is the measured adapter, ``dsib.formats.csv._read``, told what the
benchmark tells it. One untimed call, three timed calls, then one call under cProfile.
"""

import cProfile
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import pandas as pd  # noqa: E402

from benchmarks import hints  # noqa: E402
from dsib.formats import csv  # noqa: E402


def main(path):
    told = hints("nyc_taxi_month", "cat")
    with open(path, "rb") as f:
        data = f.read()
    frame = csv._read(data, **told)
    print("pandas", pd.__version__, "told", told, "read", frame.shape, "str dtype", frame["str"].dtype)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        csv._read(data, **told)
        times.append(time.perf_counter() - start)
    print("three calls:", ", ".join("%.2f s" % t for t in times))
    profile = cProfile.Profile()
    profile.enable()
    csv._read(data, **told)
    profile.disable()
    pstats.Stats(profile, stream=sys.stdout).sort_stats("cumulative").print_stats(14)


if __name__ == "__main__":
    main(sys.argv[1])
