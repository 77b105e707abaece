"""TSBS "cpu" devops data, as the QuestDB ingestion study generates it.

10 low-cardinality symbol (tag) columns, 10 float64 usage columns and one
nanosecond UTC timestamp, with the Time Series Benchmark Suite's cardinalities
at scale 4000: one row per host every 10 seconds, hosts in turn. Usage values
follow TSBS' bounded random walks (0–100, steps of at most ±1), so they are
full-precision floats with long runs of zeros where a walk sits on its floor.
"""

import numpy as np

DATASET = "tsbs_cpu"
GENERATOR_VERSION = 1
SCALE = 4000
START = "2016-01-01T00:00:00"
INTERVAL_NS = 10 * 10**9
PARTITIONS = ("2016-01-01",)

REGIONS = {
    "us-east-1": ("us-east-1a", "us-east-1b", "us-east-1c", "us-east-1e"),
    "us-west-1": ("us-west-1a", "us-west-1b"),
    "us-west-2": ("us-west-2a", "us-west-2b", "us-west-2c"),
    "eu-west-1": ("eu-west-1a", "eu-west-1b", "eu-west-1c"),
    "eu-central-1": ("eu-central-1a", "eu-central-1b"),
    "ap-southeast-1": ("ap-southeast-1a", "ap-southeast-1b"),
    "ap-southeast-2": ("ap-southeast-2a", "ap-southeast-2b"),
    "ap-northeast-1": ("ap-northeast-1a", "ap-northeast-1c"),
    "sa-east-1": ("sa-east-1a", "sa-east-1b", "sa-east-1c"),
}
TAG_VALUES = {
    "os": ("Ubuntu16.10", "Ubuntu16.04LTS", "Ubuntu15.10"),
    "arch": ("x64", "x86"),
    "team": ("SF", "NYC", "LON", "CHI"),
    "service": tuple(str(i) for i in range(20)),
    "service_version": ("0", "1"),
    "service_environment": ("production", "staging", "test"),
}
TAGS = (
    "hostname",
    "region",
    "datacenter",
    "rack",
    "os",
    "arch",
    "team",
    "service",
    "service_version",
    "service_environment",
)
FIELDS = (
    "usage_user",
    "usage_system",
    "usage_idle",
    "usage_nice",
    "usage_iowait",
    "usage_irq",
    "usage_softirq",
    "usage_steal",
    "usage_guest",
    "usage_guest_nice",
)
TIMESTAMP = "timestamp"


def _hosts(rng):
    """Each host's tags, fixed for the whole run as in TSBS."""
    regions = sorted(REGIONS)
    region = rng.integers(0, len(regions), SCALE)
    hosts = {
        "hostname": np.array(["host_%d" % i for i in range(SCALE)], dtype="S"),
        "region": np.array([regions[r] for r in region], dtype="S"),
        "datacenter": np.array(
            [REGIONS[regions[r]][rng.integers(0, len(REGIONS[regions[r]]))] for r in region], dtype="S"
        ),
        "rack": np.array([str(v) for v in rng.integers(0, 100, SCALE)], dtype="S"),
    }
    for tag, values in TAG_VALUES.items():
        hosts[tag] = np.array(values, dtype="S")[rng.integers(0, len(values), SCALE)]
    return hosts


def generate(partition, rows, seed):
    """``{column: array}``: tags as fixed-width bytes, usage as float64, timestamp as datetime64[ns]."""
    rng = np.random.default_rng([seed, GENERATOR_VERSION, SCALE])
    hosts = _hosts(rng)
    host = np.arange(rows) % SCALE
    tick = np.arange(rows) // SCALE
    columns = {TIMESTAMP: (np.datetime64(START, "ns").astype(np.int64) + tick * INTERVAL_NS).view("M8[ns]")}
    for tag in TAGS:
        columns[tag] = hosts[tag][host]
    ticks = -(-rows // SCALE)
    for field in FIELDS:
        # One bounded random walk per host: steps in [-1, 1], clipped to [0, 100].
        steps = rng.uniform(-1.0, 1.0, (ticks, SCALE))
        walk = np.clip(rng.uniform(0, 10, SCALE) + np.cumsum(steps, axis=0), 0.0, 100.0)
        columns[field] = np.ascontiguousarray(walk.reshape(-1)[:rows])
    return columns
