"""CSV read of the taxi month's ``cat`` cell file in one environment: checked, timed, profiled.

    PYTHONPATH=<repo> <env>/bin/python probe.py <cell file.csv>

The file is the cell file both environments' asv runs read (``data/.cache/default/nyc_taxi_month/
csv/cat/...``). It is read from its bytes as ``ReadFromBytes`` does, with dsib's ``csv`` format
and the variant's read hints: one untimed read checked against the frame written
(``dsib.fidelity``), ``SAMPLES`` timed reads, then one read under cProfile.
"""

import cProfile
import pstats
import statistics
import sys
import time

SAMPLES = 5


def main(path):
    import numpy
    import pandas as pd

    from data_prep import load_frame, read_hints
    from dsib.fidelity import assert_same_frame
    from dsib.formats import get_format

    fmt = get_format("csv")
    hints = read_hints("cat")
    with open(path, "rb") as f:
        payload = f.read()
    assert_same_frame(load_frame("default", "cat"), fmt.read(payload, **hints), fmt.losses(), context=path)
    seconds = []
    for _ in range(SAMPLES):
        started = time.perf_counter()
        fmt.read(payload, **hints)
        seconds.append(time.perf_counter() - started)
    q = numpy.percentile(seconds, [25, 75])
    print(
        "pandas %s reads the cat month, checked: median %.3f s (IQR %.3f-%.3f, n=%d)"
        % (pd.__version__, statistics.median(seconds), q[0], q[-1], SAMPLES)
    )
    profile = cProfile.Profile()
    profile.enable()
    fmt.read(payload, **hints)
    profile.disable()
    pstats.Stats(profile, stream=sys.stdout).sort_stats("cumulative").print_stats(14)


if __name__ == "__main__":
    main(sys.argv[1])
