"""How the cells no pyarrow release touches moved along one chain, run by run.

The chain of pyarrow releases at pandas 0.23.4, Python 3.7: its environments differ in pyarrow
alone, so the cells of the formats that never call pyarrow (pickle, msgpack, CSV, JSON, HDF5)
should not move between them. Each environment's medians of those cells are divided by the
chain's first environment's, cell by cell; the table gives the median ratio, its 10th-90th
percentiles and the number of cells, for every results tree given, in chain order.

    PYTHONPATH=. .venv/bin/python records/machine-speed/control_drift.py records/matrix-runs/<run>/matrix ...

Each results tree is read for every machine it holds.
"""

import os
import statistics
import sys

from packaging.version import Version

from dsib_tools import asv_results

CONTROLS = ("pickle", "msgpack", "csv", "json", "hdf5")


def control_rows(results_dir, machine):
    """(pyarrow version, row of ``asv_results.table``) of each timed control cell with a value, in
    the chain's environments."""
    table = asv_results.table(results_dir, machine)
    table = table[table["benchmark"].str.contains(r"\.time_") & table["value"].notna()]
    for row in table.itertuples():
        in_chain = row.pins.get("python") == "3.7" and row.pins.get("pandas") == "0.23.4"
        if in_chain and len(row.params) > 1 and row.params[1].strip("'") in CONTROLS:
            yield row.pins["pyarrow"], row


def in_chain_order(envs):
    """The items of {pyarrow version: anything}, in the chain's order."""
    return sorted(envs.items(), key=lambda env: Version(env[0]))


def chain(results_dir, machine):
    """[(pyarrow version, {(benchmark, params): median})] of the chain's control cells, in order."""
    envs = {}
    for pyarrow, row in control_rows(results_dir, machine):
        envs.setdefault(pyarrow, {})[(row.benchmark, row.params)] = row.value
    return in_chain_order(envs)


def machines(results_dir):
    """The machines of a results tree: its directories with asv's machine.json."""
    return sorted(d for d in os.listdir(results_dir) if os.path.isfile(os.path.join(results_dir, d, "machine.json")))


def main(results_dirs):
    print("| run | pyarrow | control cells | median ratio to the chain's first | 10th-90th percentile |")
    print("|---|---|---|---|---|")
    for results_dir, machine in [(r, m) for r in results_dirs for m in machines(r)]:
        envs = chain(results_dir, machine)
        first = envs[0][1]
        for pyarrow, cells in envs:
            ratios = [cells[cell] / first[cell] for cell in cells if cell in first]
            deciles = statistics.quantiles(ratios, n=10)
            run = os.path.basename(os.path.dirname(results_dir.rstrip("/")))
            print(
                "| %s | %s | %d | %.2f | %.2f-%.2f |"
                % (run, pyarrow, len(ratios), statistics.median(ratios), deciles[0], deciles[-1])
            )


if __name__ == "__main__":
    main(sys.argv[1:])
