"""Scale profiles.

A profile fixes the rows of every dataset partition and the seed, so a profile
name alone identifies the data a result was measured on. The profile reaches
benchmarks through asv's matrix (``DSIB_PROFILE``), which puts it in every
environment name, and every profile's scale is part of each benchmark's asv
version (``benchmarks.series``): results at different scales
never share a series, even if a profile's rows change.
"""

from collections import namedtuple

# The real January 2016 yellow-taxi CSV has this many rows.
TLC_JANUARY_2016_ROWS = 10906858
MONTHS_2016_H1 = ("2016-01", "2016-02", "2016-03", "2016-04", "2016-05", "2016-06")
SEED = 2016


class Profile(
    namedtuple(
        "Profile",
        ["name", "rows", "seed", "description", "grid_rows", "versioned", "grid_left_out", "grid_kept"],
        defaults=(None, ()),
    )
):
    """``rows`` maps a dataset name to its rows per partition; ``grid_rows`` to the rows (a
    prefix of the first partition) that the every-format grid uses, so that the whole grid
    fits the time budget of one run while the 2019 post's cases keep their scale.
    ``versioned``: the scale is part of every benchmark's asv version. ``pr`` is not: its
    results live only as long as one ``asv continuous`` (both commits at the same scale),
    and retuning it must not start new series for the committed history.
    ``grid_left_out``: why a profile runs no grid (None: it runs one), but for the datasets of
    ``grid_kept``. Its grid_rows stay declared: they are part of every benchmark's version, and
    so of the committed series'."""

    def rows_for(self, dataset):
        return self.rows[dataset]

    @property
    def rows_per_month(self):
        return self.rows["nyc_taxi"]


PROFILES = {
    "tiny": Profile(
        "tiny",
        {"nyc_taxi": 10000, "tsbs_cpu": 10000, "rocklin": 10000},
        SEED,
        "tests: seconds per run",
        {"nyc_taxi": 10000, "tsbs_cpu": 10000, "rocklin": 10000},
        True,
    ),
    # `make compare` (asv continuous on pull requests): both commits within 10 minutes on 2 cores.
    # Its taxi grid is at default's 100,000 rows: at 50,000 a 5 ms write moved 30-40 % from one
    # process to the next (A/A false alarms), and 200,000 took 26 minutes. TSBS and Rocklin are
    # compared whole, through fewer formats (dsib_tools.compare.BENCHMARKS).
    "pr": Profile(
        "pr",
        {"nyc_taxi": 100000, "tsbs_cpu": 50000, "rocklin": 100000},
        SEED,
        "pull-request comparisons",
        {"nyc_taxi": 100000, "tsbs_cpu": 50000, "rocklin": 100000},
        False,
    ),
    # nyc_taxi: the 2019 post's cases. Rocklin's frame at a tenth of his study's 1,000,000 rows
    # (the run's time budget; his size is full's).
    "default": Profile(
        "default",
        {"nyc_taxi": 1000000, "tsbs_cpu": 1000000, "rocklin": 100000},
        SEED,
        "the published results",
        {"nyc_taxi": 100000, "tsbs_cpu": 100000, "rocklin": 100000},
        True,
    ),
    # The 2019 post's cases at the real file's size, and Rocklin's frame at his study's size. The
    # taxi and TSBS grids would write every format of every variant at 10-11 M rows: 440 GB for
    # the read cases' files alone (default's measured file sizes times the scale), and building
    # them would outlast asv's hour-long setup_cache timeout on 2 cores.
    "full": Profile(
        "full",
        {"nyc_taxi": TLC_JANUARY_2016_ROWS, "tsbs_cpu": 10000000, "rocklin": 1000000},
        SEED,
        "the size of the real January 2016 file",
        {"nyc_taxi": TLC_JANUARY_2016_ROWS, "tsbs_cpu": 10000000, "rocklin": 1000000},
        True,
        "its files would take over 440 GB; the grid runs at default (but Rocklin's frame, at his 1,000,000 rows)",
        ("rocklin",),
    ),
}
DEFAULT_PROFILE = "default"


class UnknownProfileError(KeyError):
    def __str__(self):
        return self.args[0]


def get_profile(name, data_dir=None):
    """A generated profile, or one of real TLC files that ``prepare --from-csv`` ingested into
    ``data_dir`` under that name."""
    if name in PROFILES:
        return PROFILES[name]
    found = ingested_profile(name, data_dir)
    if found is None:
        raise UnknownProfileError(
            "unknown profile %r; generated profiles are: %s; a profile of real TLC files exists once "
            "`python -m data_prep prepare --profile %s --from-csv FILE...` has ingested them"
            % (name, ", ".join(sorted(PROFILES)), name)
        )
    return found


def ingested_profile(name, data_dir=None):
    """The profile of the TLC files ingested as ``name`` (None where there are none): each month
    whole for the 2019 post's cases, the default profile's grid rows of it for the grid, and no
    other dataset. Its scale is the files', so it is not versioned: its own results directory or
    environment name keeps it apart."""
    import json
    import os

    from .store import MANIFEST, dataset_path, default_data_dir

    path = os.path.join(dataset_path(data_dir or default_data_dir(), "nyc_taxi", name), MANIFEST)
    try:
        with open(path) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return None
    if manifest.get("source", {}).get("kind") != "csv":
        return None
    rows = [p["rows"] for p in manifest["partitions"]]
    grid = min(min(rows), PROFILES[DEFAULT_PROFILE].grid_rows["nyc_taxi"])
    return Profile(
        name,
        {"nyc_taxi": max(rows)},
        None,
        "real TLC files: %d month(s), %d-%d rows" % (len(rows), min(rows), max(rows)),
        {"nyc_taxi": grid},
        False,
    )
