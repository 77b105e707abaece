"""Scale profiles.

A profile fixes the number of rows per monthly partition and the seed, so a
profile name alone identifies the data a result was measured on. The profile
is passed to benchmarks through asv's matrix (``DSIB_PROFILE``), which puts it
in every environment name: results at different scales never share a series.
"""
from collections import namedtuple

Profile = namedtuple("Profile", ["name", "rows_per_month", "seed", "description"])

# The real January 2016 yellow-taxi CSV has this many rows.
TLC_JANUARY_2016_ROWS = 10906858
MONTHS_2016_H1 = ("2016-01", "2016-02", "2016-03", "2016-04", "2016-05", "2016-06")
SEED = 2016

PROFILES = {
    "tiny": Profile("tiny", 10000, SEED, "tests: seconds per run"),
    "default": Profile("default", 1000000, SEED, "the published results"),
    "full": Profile("full", TLC_JANUARY_2016_ROWS, SEED, "the size of the real January 2016 file"),
}
DEFAULT_PROFILE = "default"


class UnknownProfileError(KeyError):
    def __str__(self):
        return self.args[0]


def get_profile(name):
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownProfileError(
            "unknown profile %r; generated profiles are: %s" % (name, ", ".join(sorted(PROFILES)))
        )
