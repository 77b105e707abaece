"""Six timed reads of one file after two untimed ones, in one process, with the full collection
where the variant puts it; each read's milliseconds and minor page faults, as one line.

    python collect-then-call.py VARIANT FORMAT PATH   (DSIB_DATA_DIR: the run's data)

VARIANT: A collects after the second untimed read (as ``untimed_call`` did), B never, C as A with
the untimed reads' collector off, D between the two untimed reads (as ``untimed_call`` does), E
before the first. Each timed read runs with the collector off, as asv's samples do.
"""

import gc
import resource
import sys
import time

from dsib import catalog

variant, name, path = sys.argv[1:4]
fmt = catalog.format_for("rocklin", name)
fmt.warm_up()


def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


if variant == "E":
    gc.collect()
for i in range(2):
    if variant == "C":
        gc.disable()
    result = fmt.read(path)
    del result
    gc.enable()
    if variant == "D" and i == 0:
        gc.collect()
if variant in "AC":
    gc.collect()
out = []
for _ in range(6):
    gc.disable()
    f0, t0 = faults(), time.perf_counter()
    fmt.read(path)
    t1, f1 = time.perf_counter(), faults()
    gc.enable()
    out.append("%.2fms/%d" % ((t1 - t0) * 1e3, f1 - f0))
print(variant, " ".join(out))
