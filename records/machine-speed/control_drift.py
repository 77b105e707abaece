"""How the cells no pyarrow release touches moved along one chain, sitting by sitting.

The chain of pyarrow releases at pandas 0.23.4, Python 3.7: its environments differ in pyarrow
alone, so the cells of the formats that never call pyarrow (pickle, msgpack, CSV, JSON, HDF5)
should not move between them. Each environment's medians of those cells are divided by the
chain's first environment's, cell by cell; the table gives the median ratio, its 10th-90th
percentiles and the number of cells, for every run directory given, in chain order.

    .venv/bin/python records/machine-speed/control_drift.py records/matrix-runs/<run>/matrix/<machine> ...
"""

import glob
import itertools
import json
import os
import statistics
import sys

CONTROLS = ("pickle", "msgpack", "csv", "json", "hdf5")


def medians(path):
    """{(benchmark, params): median seconds} of a results file's timed cells that ran."""
    data = json.load(open(path))
    found = {}
    for name, row in data["results"].items():
        if ".time_" not in name:
            continue
        row = dict(zip(data["result_columns"], row))
        if row["result"] is None:
            continue
        params = list(itertools.product(*row["params"])) if row.get("params") else [()]
        for combination, value in zip(params, row["result"]):
            if isinstance(value, float) and value == value:
                found[(name, combination)] = value
    return data["env_name"], found


def pyarrow_of(env_name):
    return tuple(int(part) for part in env_name.split("-pyarrow")[1].split("-")[0].split("."))


def main(directories):
    print("| run | pyarrow | control cells | median ratio to the chain's first | 10th-90th percentile |")
    print("|---|---|---|---|---|")
    for directory in directories:
        chain = [medians(path) for path in glob.glob(os.path.join(directory, "*-*.json")) if "machine.json" not in path]
        chain = sorted(
            (env for env in chain if "-py3.7-" in env[0] and "-pandas0.23.4-" in env[0]),
            key=lambda env: pyarrow_of(env[0]),
        )
        first = chain[0][1]
        for env_name, cells in chain:
            ratios = [
                cells[cell] / first[cell]
                for cell in cells
                if cell in first and cell[1] and cell[1][1].strip("'") in CONTROLS
            ]
            deciles = statistics.quantiles(ratios, n=10)
            print(
                "| %s | %s | %d | %.2f | %.2f-%.2f |"
                % (
                    os.path.basename(os.path.dirname(os.path.dirname(directory.rstrip("/")))),
                    ".".join(map(str, pyarrow_of(env_name))),
                    len(ratios),
                    statistics.median(ratios),
                    deciles[0],
                    deciles[-1],
                )
            )


if __name__ == "__main__":
    main(sys.argv[1:])
