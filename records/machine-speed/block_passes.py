"""How a block's two passes saw the cells no pyarrow release touches, environment by environment.

A block (`make run-matrix BLOCK=i/N`) measures its environments forward, one process a cell,
then backward, one more process of each timed cell, its samples appended to the first's. Where a
cell keeps exactly twice the samples of one pass (``PER_PASS``: the classes sampled ``SAMPLES``
times a process), the first half is the forward pass's and the second the backward's. For the
chain of pyarrow releases at pandas 0.23.4, Python 3.7, whose environments differ in pyarrow
alone, the control cells (pickle, msgpack, CSV, JSON, HDF5) are divided cell by cell by the
block's first environment's, pass by pass and for both passes together (asv's median of all the
samples, what the release view reads). The table gives each ratio's median over the cells and
the backward pass's median over the forward's within each environment.

    PYTHONPATH=. .venv/bin/python records/machine-speed/block_passes.py records/matrix-runs/<run>/matrix

Each results tree is read for every machine it holds.
"""

import os
import statistics
import sys

from benchmarks import SAMPLES
from control_drift import control_rows, in_chain_order, machines

PER_PASS = SAMPLES


def passes(results_dir, machine):
    """[(pyarrow version, {(benchmark, params): (forward samples, backward samples)})] of the
    chain's environments in the results, in chain order."""
    envs = {}
    for pyarrow, row in control_rows(results_dir, machine):
        if row.samples and len(row.samples) == 2 * PER_PASS:
            envs.setdefault(pyarrow, {})[(row.benchmark, row.params)] = (row.samples[:PER_PASS], row.samples[PER_PASS:])
    return in_chain_order(envs)


def _ratio(cells, first, pick):
    ratios = [statistics.median(pick(cells[c])) / statistics.median(pick(first[c])) for c in cells if c in first]
    return statistics.median(ratios), len(ratios)


def main(results_dirs):
    print("| run | pyarrow | control cells | forward pass | backward pass | both | backward over forward |")
    print("|---|---|---|---|---|---|---|")
    for results_dir, machine in [(r, m) for r in results_dirs for m in machines(r)]:
        envs = passes(results_dir, machine)
        if not envs:
            continue
        first = envs[0][1]
        run = os.path.basename(os.path.dirname(results_dir.rstrip("/")))
        for pyarrow, cells in envs:
            forward, count = _ratio(cells, first, lambda s: s[0])
            backward, _ = _ratio(cells, first, lambda s: s[1])
            both, _ = _ratio(cells, first, lambda s: s[0] + s[1])
            within = statistics.median(statistics.median(b) / statistics.median(f) for f, b in cells.values())
            print(
                "| %s | %s | %d | %.2f | %.2f | %.2f | %.2f |" % (run, pyarrow, count, forward, backward, both, within)
            )


if __name__ == "__main__":
    main(sys.argv[1:])
