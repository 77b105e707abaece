"""How fast the machine itself was when a run started and ended: three reference figures.

A VM's host can slow it without any sign in its load. On the 2-core Xeon of model 167, with
other processes at 0.02 cores and no steal either time, the msgpack write of the taxi rows that
faults 10,590 pages a call took 15.6-17.0 ms at 20:30 UTC and 29-34 ms three hours later (without
page faults, 3.4-3.6 and 5.0-6.1 ms), and the same tests took 60 minutes instead of 32
(records/machine-speed/). A run that spans sittings compares environments measured in different
sittings, so each sitting says how fast the machine was: ``reference`` times, each ``REPEATS`` times,

- ``fault_us``: a page fault, per 4 KiB page, writing one byte to each page of a fresh anonymous
  mapping of ``FAULT_BYTES`` (what the kernel and the hypervisor charge for memory a call gets);
- ``copy_gbs``: memory bandwidth, copying ``COPY_BYTES`` between two buffers already faulted in;
- ``loop_ms``: the interpreter, a loop of ``LOOP`` integer multiply-adds.

``machine_load.watch`` writes one before the command starts and one after it ends. Sittings are
compared by ``differs``: a figure whose median is more than ``SAME_MACHINE`` times the first
sitting's (or less than its inverse) says the two sittings ran on a machine of another speed,
whatever their load says.
"""

import mmap
import statistics
import time

PAGE = 4096
FAULT_BYTES = 64 * 2**20
COPY_BYTES = 32 * 2**20
LOOP = 200000
REPEATS = 5
# Provisional: the first references were taken on the slowed Xeon above, where the page-fault
# medians of references a minute apart ranged 1.3-1.9x, copies and the loop under 1.1x. The probe's
# faults cost about 2x in the slowed state, but no reference of the machine before it slowed
# exists, and a sitting whose cells drifted by a third kept its references within 1.1x
# (records/machine-speed/): to be set again from quiet sittings' references.
SAME_MACHINE = 1.5
FIGURES = ("fault_us", "copy_gbs", "loop_ms")


def _timed(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _fault():
    import numpy

    pages = FAULT_BYTES // PAGE
    region = mmap.mmap(-1, FAULT_BYTES)
    try:
        view = numpy.frombuffer(region, dtype=numpy.uint8)
        start = time.perf_counter()
        view[::PAGE] = 1
        seconds = time.perf_counter() - start
        del view
    finally:
        region.close()
    return seconds / pages * 1e6


def _loop():
    total = 0
    for i in range(LOOP):
        total += i * i
    return total


def reference(repeats=REPEATS):
    """{figure: [its REPEATS values]}, each figure's repeats interleaved with the others'."""
    import numpy

    source = numpy.ones(COPY_BYTES, dtype=numpy.uint8)
    target = numpy.empty_like(source)
    target.fill(0)  # written once, so that no copy pays for faulting its pages in
    found = dict((name, []) for name in FIGURES)
    for _ in range(repeats):
        found["fault_us"].append(round(_fault(), 4))
        found["copy_gbs"].append(round(COPY_BYTES / _timed(lambda: numpy.copyto(target, source)) / 1e9, 3))
        found["loop_ms"].append(round(_timed(_loop) * 1e3, 3))
    return found


def medians(ref):
    return dict((name, statistics.median(ref[name])) for name in FIGURES)


def describe(ref):
    """ "page fault 1.12 µs (1.05-1.30), copy 9.8 GB/s (9.6-9.9), loop 8.1 ms (8.0-8.3), 5 each"."""
    parts, median = [], medians(ref)
    for name, label, unit, digits in (
        ("fault_us", "page fault", " µs", 2),
        ("copy_gbs", "copy", " GB/s", 1),
        ("loop_ms", "loop", " ms", 1),
    ):
        values = ref[name]
        parts.append(
            "%s %.*f%s (%.*f-%.*f)" % (label, digits, median[name], unit, digits, min(values), digits, max(values))
        )
    return "%s, %d each" % (", ".join(parts), len(ref[FIGURES[0]]))


def differs(first, later, factor=SAME_MACHINE):
    """The figures of reference ``later`` whose median is beyond ``factor`` either way of ``first``'s:
    {figure: later's median / first's}; empty where the machine ran at one speed."""
    a, b = medians(first), medians(later)
    ratios = dict((name, b[name] / a[name]) for name in FIGURES if a[name] > 0)
    return dict((name, round(r, 2)) for name, r in ratios.items() if r > factor or r < 1 / factor)
