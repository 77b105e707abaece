"""asv configs derived from asv.conf.json: another profile, results location or environments."""

import json


def table_digest(name, data_dir=None):
    """What a brought table holds, in short: its store's digest (every file's checksum)."""
    from data_prep.own_table import open_table

    return open_table(name, data_dir, verify="sizes")[1].digest[:12]


def derive_config(
    base,
    profile=None,
    results_dir=None,
    html_dir=None,
    env_dir=None,
    repo=None,
    benchmark_dir=None,
    envs="all",
    dataset=None,
    data_dir=None,
    shard=None,
    block=None,
):
    """``base`` with the profile recorded in every environment (its name, hence its series) and,
    with ``envs="newest"``, only the matrix entry of the newest pyarrow and pandas, run with glibc's
    allocator defaults. With a
    ``dataset`` (a table you brought), its name and what it holds are recorded too: two tables,
    or one table brought again with other rows, never share a series. ``shard=(i, N)`` keeps the
    environments of shard i of N (``matrix.shard``), ``block=(i, N)`` those of block i of N
    (``matrix.block``): asv then builds and runs only those."""
    from .chains import without_allocator
    from .matrix import block as block_of, newest, shard as shard_of

    conf = json.loads(json.dumps(base))
    if envs == "newest":
        # A user's process: glibc's defaults, not the matrix's kept freed memory (chains.FREED_MEMORY_KEPT).
        entry = newest(conf["include"])
        entry["env_nobuild"] = without_allocator(entry.get("env_nobuild"))
        conf["include"] = [entry]
    if shard or block:
        if conf.get("matrix"):
            raise ValueError("a shard or block takes include entries; this config also has a matrix of combinations")
        conf["include"] = shard_of(conf["include"], *shard) if shard else block_of(conf["include"], *block)
    recorded = {}
    if profile:
        recorded["DSIB_PROFILE"] = profile
    if dataset:
        recorded.update(DSIB_DATASET=dataset, DSIB_TABLE=table_digest(dataset, data_dir))
    for name, value in sorted(recorded.items()):
        for entry in conf.get("include", []):
            entry.setdefault("env_nobuild", {})[name] = value
        if conf.get("matrix"):
            conf["matrix"].setdefault("env_nobuild", {})[name] = [value]
    for key, value in (
        ("results_dir", results_dir),
        ("html_dir", html_dir),
        ("env_dir", env_dir),
        ("repo", repo),
        ("benchmark_dir", benchmark_dir),
    ):
        if value:
            conf[key] = value
    return conf
