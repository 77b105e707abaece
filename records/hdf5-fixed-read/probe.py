"""HDF5 "fixed" read across two pandas releases, each reading both releases' files.

    PYTHONPATH=<repo> <env>/bin/python probe.py write OUT      # OUT/<pandas>-<variant>.h5
    PYTHONPATH=<repo> <env>/bin/python probe.py read OUT/*.h5  # one line per file

Each environment writes the `default` month of nyc_taxi in every variant with dsib's own
``hdf-fixed`` writer, then each reads every file from its bytes as ``ReadFromBytes`` does: one
untimed read checked against the frame written (``dsib.fidelity``), then ``SAMPLES`` timed reads.
A reader that is slower on the other release's file too is slower itself; one that is slower only
on its own file was handed more work by its writer.
"""

import os
import statistics
import sys
import time

SAMPLES = 5


def variant_of(path):
    return os.path.basename(path).rsplit(".", 1)[0].split("-", 1)[1]


def write(out):
    import pandas as pd

    from data_prep import load_frame
    from dsib.formats import get_format
    from dsib.roundtrip import write_atomic

    fmt = get_format("hdf-fixed")
    os.makedirs(out, exist_ok=True)
    for variant in ("plain", "str", "cat"):
        frame = load_frame("default", variant)
        path = os.path.join(out, "%s-%s.h5" % (pd.__version__, variant))
        print("%s: %d bytes" % (path, write_atomic(path, fmt.write(frame))))


def read(paths):
    import numpy
    import pandas as pd

    from data_prep import load_frame, read_hints
    from dsib.fidelity import assert_same_frame
    from dsib.formats import get_format

    fmt = get_format("hdf-fixed")
    for path in paths:
        variant = variant_of(path)
        hints = read_hints(variant)
        with open(path, "rb") as f:
            payload = f.read()
        assert_same_frame(load_frame("default", variant), fmt.read(payload, **hints), fmt.losses(), context=path)
        seconds = []
        for _ in range(SAMPLES):
            started = time.perf_counter()
            fmt.read(payload, **hints)
            seconds.append(time.perf_counter() - started)
        q = numpy.percentile(seconds, [25, 75])
        print(
            "pandas %s reads %s: median %.3f s (IQR %.3f-%.3f, n=%d)"
            % (pd.__version__, os.path.basename(path), statistics.median(seconds), q[0], q[-1], SAMPLES)
        )


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    write(args[0]) if mode == "write" else read(args)
