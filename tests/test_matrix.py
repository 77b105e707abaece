"""The release matrix: every environment resolves from PyPI, and asv's plugin checks what it installed."""

import glob
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from dsib_tools import chains, matrix
from dsib_tools.config import derive_config

from .conftest import ROOT, documentation

CONFIGS = (matrix.CURATED_CONFIG, matrix.SWEEPS_CONFIG)


def _entries(name):
    return matrix.entries(os.path.join(ROOT, name))


def _with_pyenv_on_path(monkeypatch):
    """pyenv's Pythons first on PATH, until the test (or fixture) ends: a later test in this process
    must not find them first (Spark starts its Python workers as the `python3` on PATH)."""
    pyenv = os.path.expanduser("~/.pyenv/versions")
    bins = [os.path.join(pyenv, v, "bin") for v in sorted(os.listdir(pyenv))] if os.path.isdir(pyenv) else []
    monkeypatch.setenv("PATH", os.pathsep.join(bins + [os.environ["PATH"]]))


@pytest.fixture(scope="module")
def resolutions(tmp_path_factory):
    """pip's answer for every entry of both configs, in the pip asv's environments get."""
    work = str(tmp_path_factory.mktemp("resolve"))
    entries = dict((matrix.label(e), e) for name in CONFIGS for e in _entries(name))
    pythons = sorted(set(e["python"] for e in entries.values()))
    with pytest.MonkeyPatch.context() as monkeypatch, ThreadPoolExecutor(4) as pool:
        _with_pyenv_on_path(monkeypatch)
        resolvers = dict(zip(pythons, pool.map(lambda py: matrix.resolver(py, work), pythons)))
        labels = sorted(entries)
        answers = pool.map(lambda label: matrix.resolve(entries[label], resolvers[entries[label]["python"]]), labels)
        return dict(zip(labels, answers))


@pytest.mark.asv
@pytest.mark.parametrize("config", CONFIGS)
def test_every_matrix_environment_resolves_to_its_pins(config, resolutions):
    problems = dict((matrix.label(e), resolutions[matrix.label(e)]) for e in _entries(config))
    assert not any(problems.values()), dict((k, v) for k, v in problems.items() if v)


@pytest.mark.asv
def test_resolve_reports_a_pin_pip_cannot_meet(tmp_path, monkeypatch):
    _with_pyenv_on_path(monkeypatch)
    exe = matrix.resolver("3.7", str(tmp_path))
    problems = matrix.resolve({"python": "3.7", "req": {"pandas": "0.23.4", "numpy": "2.4.6"}}, exe)
    assert problems and "pip cannot resolve" in problems[0]


def test_the_curated_set_spans_2018_to_today():
    curated = _entries(matrix.CURATED_CONFIG)
    assert len(curated) >= 14
    assert len(set(matrix.label(e) for e in curated)) == len(curated)
    oldest = curated[0]
    assert oldest["python"] == "3.7" and oldest["req"]["pyarrow"] == "0.11.1" and oldest["req"]["pandas"] == "0.23.4"
    assert matrix.newest(curated)["req"]["pyarrow"] == "26.0.1" and matrix.newest(curated)["req"]["pandas"] == "3.1.1"
    for entry in curated:
        assert set(entry) == {"python", "req", "env_nobuild"}
        assert entry["env_nobuild"] == dict(chains.FREED_MEMORY_KEPT, DSIB_PROFILE="default")
        assert {"numpy", "pandas", "pyarrow", "tables", "msgpack"} <= set(entry["req"]), matrix.label(entry)
    sweeps = [matrix.label(e) for e in _entries(matrix.SWEEPS_CONFIG)]
    assert all(matrix.label(e) in sweeps for e in curated), "the curated set is a subset of the sweeps"


def test_a_run_is_an_entry_s_only_with_the_entry_s_allocator_setting():
    """`make bench`'s run of the newest releases (glibc's defaults) has the newest entry's pins, but
    it is not that entry's run: the matrix's keeps freed memory."""
    entry = matrix.newest(_entries(matrix.CURATED_CONFIG))
    params = dict(chains.pins(entry), machine="m", cpu="c")
    assert chains.ran_in(entry, params, dict(chains.FREED_MEMORY_KEPT, DSIB_PROFILE="default"))
    assert not chains.ran_in(entry, params, {"DSIB_PROFILE": "default"})
    assert not chains.ran_in(entry, dict(params, pandas="3.0.6"), dict(chains.FREED_MEMORY_KEPT))
    bench = derive_config({"include": _entries(matrix.CURATED_CONFIG)}, profile="default", envs="newest")
    assert bench["include"][0]["env_nobuild"] == {"DSIB_PROFILE": "default"}


def test_every_pair_of_neighbours_changes_one_library_or_is_a_named_link():
    """A chain's step changes one library's version; numpy and Python change only on a link that
    ``chains.LINKS`` names, which says why they change together."""
    for config in CONFIGS:
        entries = _entries(config)
        found = chains.steps(entries)  # raises ChainError on any other pair
        assert [(s.before, s.after) for s in found] == [(i - 1, i) for i in range(1, len(entries))]
        for s in found:
            changed = chains.changes(entries[s.before], entries[s.after])
            if s.library:
                assert list(changed) == [s.library] and s.library not in chains.ONLY_ON_LINKS, (config, s)
            else:
                assert [link.changes for link in chains.LINKS if link.name == s.link] == [changed], (config, s)
        links = [s for s in found if s.link]
        assert len(links) <= len(chains.LINKS), "a link joins two chains once"


def test_the_chains_keep_every_release_and_isolate_pandas_3():
    curated = _entries(matrix.CURATED_CONFIG)
    have = dict((lib, set(e["req"][lib] for e in curated)) for lib in ("pyarrow", "pandas"))
    # the pyarrow and pandas releases of the curated matrix before it became chains
    assert {"0.11.1", "0.15.1", "0.17.1", "2.0.0", "5.0.0", "8.0.0", "10.0.1", "14.0.2", "17.0.0"} <= have["pyarrow"]
    assert {"20.0.0", "25.0.1", "26.0.1"} <= have["pyarrow"]
    assert {"0.23.4", "0.25.3", "1.1.5", "1.3.5", "1.4.4", "1.5.3", "2.1.4", "2.2.3", "2.3.3"} <= have["pandas"]
    assert "3.1.1" in have["pandas"]
    found = [chains.describe(s, curated) for s in chains.steps(curated)]
    assert any(d.startswith("pandas 2.3.3 → 3.0.") for d in found), found
    # each library's releases climb within a chain: an old and a new chain of pyarrow, two of pandas
    for lib, runs in (("pyarrow", 2), ("pandas", 2)):
        assert len([s for s in chains.steps(curated) if s.library == lib and s.before + 1 == s.after]) >= runs


def test_neighbours_that_change_two_libraries_or_numpy_alone_are_refused_unless_a_link_names_them():
    def env(python="3.11", **req):
        return {"python": python, "req": dict({"numpy": "1.26.4", "pandas": "2.2.3", "pyarrow": "14.0.2"}, **req)}

    with pytest.raises(chains.ChainError, match="pandas 2.2.3 → 2.3.3, pyarrow 14.0.2 → 17.0.0"):
        chains.steps([env(), env(pandas="2.3.3", pyarrow="17.0.0")])
    with pytest.raises(chains.ChainError, match="numpy 1.26.4 → 2.4.6"):
        chains.steps([env(), env(numpy="2.4.6")])
    with pytest.raises(chains.ChainError, match="polars absent → 2.1.0"):
        chains.steps([env(), env(polars="2.1.0")])
    link = chains.Link("numpy 2", {"numpy": ("1.26.4", "2.4.6")})
    (found,) = chains.steps([env(), env(numpy="2.4.6")], links=(link,))
    assert found.link == "numpy 2" and found.library is None
    (found,) = chains.steps([env(), env(pyarrow="17.0.0")])
    assert found.library == "pyarrow" and found.link is None
    described = chains.describe(found, [env(), env(pyarrow="17.0.0")])
    assert described == "pyarrow 14.0.2 → 17.0.0 at pandas 2.2.3, Python 3.11"


def test_the_two_configs_differ_only_in_their_environments():
    with open(os.path.join(ROOT, matrix.CURATED_CONFIG)) as f:
        curated = json.load(f)
    with open(os.path.join(ROOT, matrix.SWEEPS_CONFIG)) as f:
        sweeps = json.load(f)
    curated.pop("include"), sweeps.pop("include")
    assert curated == sweeps


def test_asv_lists_one_environment_per_entry_and_make_bench_runs_the_newest():
    from asv import environment
    from asv.config import Config

    with open(os.path.join(ROOT, "asv.conf.json")) as f:
        base = json.load(f)
    names, dirs = [], []
    for envs in ("all", "newest"):
        path = os.path.join(ROOT, ".asv-test-matrix-%s.conf.json" % envs)
        with open(path, "w") as f:
            json.dump(derive_config(base, profile="tiny", envs=envs), f)
        try:
            found = list(environment.get_environments(Config.load(path), None))
            names.append([e.name for e in found])
            dirs.append([e.dir_name for e in found])
        finally:
            os.remove(path)
    every, newest = names
    # The matrix keeps freed memory (its names say so: a series of their own); make bench's newest
    # environment runs with glibc's defaults, in the same built environment (env_nobuild).
    kept = "".join("-%s%s" % kv for kv in sorted(chains.FREED_MEMORY_KEPT.items()))
    assert len(every) == len(base["include"]) and all(n.endswith("-DSIB_PROFILEtiny" + kept) for n in every)
    assert dirs[1][0] in dirs[0] and every[dirs[0].index(dirs[1][0])] == newest[0] + kept
    assert newest == [
        "virtualenv-py3.11-adbc_driver_manager1.13.0-adbc_driver_postgresql1.13.0-"
        "adbc_driver_sqlite1.13.0-duckdb2.0.0-fastparquet2026.9.0-msgpack1.2.4-numpy2.4.6-pandas3.1.1-"
        "polars2.1.0-psycopg3.3.9-psycopg-binary3.3.9-pyarrow26.0.1-pylance14.0.2-pyspark4.3.0-questdb6.0.0-"
        "s3fs2026.9.0-sqlalchemy2.1.9-tables3.11.1-DSIB_PROFILEtiny"
    ]


@pytest.mark.asv
def test_the_plugin_refuses_an_environment_that_did_not_get_its_pins(tmp_path, monkeypatch):
    """A real virtualenv with six 1.16.0 installed, checked against pins the way the plugin checks."""
    _with_pyenv_on_path(monkeypatch)
    venv = str(tmp_path / "venv")
    subprocess.run([sys.executable, "-m", "virtualenv", "-q", "-p", "python3.11", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q", "six==1.16.0"], check=True)
    listing = json.loads(
        subprocess.run(
            [os.path.join(venv, "bin", "python"), "-m", "pip", "list", "--format=json"],
            check=True,
            stdout=subprocess.PIPE,
        ).stdout
    )
    installed = dict((p["name"], p["version"]) for p in listing)
    assert matrix.wrong_versions({"six": "1.16.0"}, installed) == []
    assert matrix.wrong_versions({"six": "1.17.0", "Typing_Extensions": "4.0.0"}, installed) == [
        "Typing_Extensions: pinned 4.0.0, installed None",
        "six: pinned 1.17.0, installed 1.16.0",
    ]
    import dsib_tools.asv_plugin  # installs itself into asv
    from asv.plugins.virtualenv import Virtualenv

    assert Virtualenv._install_requirements is dsib_tools.asv_plugin._install_requirements


def test_the_plugin_pins_asv_runner_to_the_tools_release_in_every_environment(tmp_path, monkeypatch):
    """asv asks for asv_runner unpinned ("" in its base requirements); the plugin installs the
    release requirements.txt pins, beside the entry's own pins, in the one pip call."""
    import dsib_tools.asv_plugin as plugin
    from asv import environment
    from asv.config import Config

    with open(os.path.join(ROOT, "asv.conf.json")) as f:
        base = json.load(f)
    path = str(tmp_path / "conf.json")
    with open(path, "w") as f:
        json.dump(derive_config(base, profile="tiny", envs="all", env_dir=str(tmp_path / "env")), f)
    with open(os.path.join(ROOT, "requirements.txt")) as f:
        (runner,) = [line.split("==")[1].strip() for line in f if line.startswith("asv_runner==")]
    _with_pyenv_on_path(monkeypatch)
    envs = list(environment.get_environments(Config.load(path), None))
    assert len(envs) == len(base["include"])
    for env, entry in zip(envs, base["include"]):
        assert env._base_requirements["pip+asv_runner"] == "", "asv itself leaves it unpinned"
        pins = plugin._pins(env)
        assert pins["asv_runner"] == runner, env.name
        assert dict((k, pins[k]) for k in entry["req"]) == entry["req"], env.name
        assert "asv_runner==" + runner in matrix.install_args(pins)


def test_every_curated_environment_ran_the_suite_at_tiny_with_no_failed_cell():
    """The committed check of `make bench-matrix PROFILE=tiny` (python -m dsib_tools results check):
    every environment of asv.conf.json as it was at the check's commit ran, at that commit of this
    history, and no cell failed. Since then only the newest environment changed (the engines'
    libraries), and `make test` runs that one at tiny (test_asv_suite)."""
    checks = sorted(glob.glob(os.path.join(ROOT, "records", "matrix-checks", "matrix-tiny-*.json")))
    assert checks, (
        "make bench-matrix PROFILE=tiny, then python -m dsib_tools results check -o records/matrix-checks/..."
    )
    readme = documentation()
    for path in checks:
        with open(path) as f:
            record = json.load(f)
        then = json.loads(
            subprocess.run(
                ["git", "show", record["commit"] + ":asv.conf.json"],
                cwd=ROOT,
                check=True,
                stdout=subprocess.PIPE,
                universal_newlines=True,
            ).stdout
        )["include"]
        now = matrix.entries(os.path.join(ROOT, "asv.conf.json"))
        assert [e["environment"] for e in record["environments"]] == [matrix.label(e) for e in then]
        # What an environment installs (its pins); env_nobuild's settings (the allocator's) install nothing.
        built = [chains.pins(e) for e in then]
        changed = [e for e in now if chains.pins(e) not in built]
        assert changed in ([], [matrix.newest(now)]), "only the newest changed since"
        for env in record["environments"]:
            # > 400: the release-tracking selection measured 517 cells at tiny in the oldest environment
            # (2026-11-25, this selection as first committed); the whole suite, before it, 1,277
            assert env["found"] == 1 and env["failed"] == [] and env["ran"] > 400, env
        assert (
            subprocess.run(["git", "merge-base", "--is-ancestor", record["commit"], "HEAD"], cwd=ROOT).returncode == 0
        )
        marker = "<!-- generated: table matrix %s -->" % os.path.relpath(path, ROOT)
        assert marker in readme, marker  # test_readme checks that the block is the record's table


# --- the release-tracking selection: one declaration, matrix.RELEASE ---


def _every_cell():
    """(class, method, {param: value}, asv's name of the cell) of every cell of the suite."""
    import itertools

    from dsib_tools import suite

    for cls in suite.classes():
        for method in suite.methods(cls):
            for params in itertools.product(*cls.params):
                given = dict(zip(cls.param_names, params))
                yield cls, method, given, "%s(%s)" % (suite.name(cls, method), ", ".join(repr(p) for p in params))


def _declared(cls, method, given):
    """What the declaration says of a cell, read field by field (not through its regex)."""
    from dsib_tools import suite

    return any(
        p.cls is cls
        and method in (p.methods or suite.methods(cls))
        and all(given[k] in values for k, values in p.given.items())
        for p in matrix.RELEASE
    )


def test_the_release_regex_picks_exactly_the_declared_cells_for_asv_and_for_the_suites_setup_cache(monkeypatch):
    import re

    import benchmarks

    regex = re.compile(matrix.release_regex())
    picked = {}
    for cls, method, given, label in _every_cell():
        want = _declared(cls, method, given)
        assert bool(regex.search(label)) == want, label
        assert matrix.in_release(label.split("(")[0], [str(v) for v in given.values()]) == want, label
        picked.setdefault((cls, tuple(given.values())), set()).add(want)
    # benchmarks.selected (DSIB_SELECT) reads the same regex: setup_cache builds the picked cells only
    monkeypatch.setattr(benchmarks, "SELECTED", matrix.release_regex())
    for (cls, params), wants in picked.items():
        assert benchmarks.selected(cls, params) == (True in wants), (cls, params)
    assert sum(True in w for w in picked.values()) > 100


def test_the_release_matrix_holds_the_posts_cases_and_every_format_and_variant_of_the_taxi_frame():
    from data_prep import VARIANTS
    from dsib.formats import FORMATS, POST_2019_FORMATS
    from dsib_tools import suite

    for case in suite.POST_2019:
        for fmt in ("parquet", "csv"):
            name, params = suite.post_case_ids(case, fmt)[0].split("/", 1)
            assert matrix.in_release(name, params.split("/")), (name, params)
    r, w, s = suite.reads, suite.writes, suite.sizes
    for fmt in FORMATS.names():
        for variant in VARIANTS:
            for cls, method in (
                (r.ReadFromPageCache, "time_read"),
                (r.ReadFromPageCache, "peakmem_read"),
                (w.WriteToBytes, "time_write"),
                (w.WriteToBytes, "peakmem_write"),
                (s.Sizes, "track_file_size"),
            ):
                assert matrix.in_release(suite.name(cls, method), ["nyc_taxi", fmt, variant]), (cls, method, fmt)
        for method in suite.methods(r.ContinuousRead):  # in the post's formats only: the budget
            want = fmt in POST_2019_FORMATS
            assert matrix.in_release(suite.name(r.ContinuousRead, method), ["nyc_taxi", fmt]) == want, fmt
        for method in suite.methods(s.Sizes):  # the month's sizes in the post's formats only: the budget
            for variant in VARIANTS:
                given = ["nyc_taxi_month", fmt, variant]
                assert matrix.in_release(suite.name(s.Sizes, method), given) == (fmt in POST_2019_FORMATS), given


def test_engines_cold_durable_batches_projections_questdb_and_prepare_are_newest_only():
    from dsib_tools import suite

    newest_only = (
        suite.reads.ReadCold,
        suite.writes.WriteDurable,
        suite.batches.ReadColumns,
        suite.batches.IterateBatches,
        suite.batches.ContinuousReadInBatches,
        suite.prepare.Prepare,
    )
    names = [cls.__name__ for cls in suite.classes()]
    for name in ("IngestIntoEngine", "QueryFromEngine", "SerializeForQuestDB"):
        assert name in names
    for cls, method, given, label in _every_cell():
        if cls in newest_only or cls.__name__ in ("IngestIntoEngine", "QueryFromEngine", "SerializeForQuestDB"):
            assert not _declared(cls, method, given), label
        if given.get("source") == "tsbs_cpu":  # its study compared ways into QuestDB, not file formats
            assert not _declared(cls, method, given), label


def test_rocklin_runs_in_the_matrix_in_his_studys_formats_at_default():
    from dsib import catalog
    from dsib.formats import FORMATS

    ran = set()
    for cls, method, given, label in _every_cell():
        if _declared(cls, method, given) and given.get("source") == "rocklin":
            assert given["format"] in matrix.ROCKLIN_FORMATS, label
            if catalog.BUILT_IN.cell_skip_reason(cls.operation, given, "default", catalog.ANY_VERSIONS) is None:
                ran.add(given["format"])
    assert ran == set(matrix.ROCKLIN_FORMATS) and all(f in FORMATS for f in ran)


def test_rocklins_frame_is_100000_rows_at_default_and_his_1000000_at_full():
    from data_prep import PROFILES
    from dsib import catalog

    assert PROFILES["default"].rows_for("rocklin") == PROFILES["default"].grid_rows["rocklin"] == 100000
    assert PROFILES["full"].rows_for("rocklin") == PROFILES["full"].grid_rows["rocklin"] == 1000000
    assert (
        catalog.BUILT_IN.sources["rocklin"].rows("default") == 100000
        and catalog.BUILT_IN.sources["rocklin"].rows("full") == 1000000
    )
    assert (
        catalog.BUILT_IN.sources["nyc_taxi"].rows("full") is None
        and catalog.BUILT_IN.sources["tsbs_cpu"].rows("full") is None
    )


def test_the_budgets_rules_hold():
    """The rules for any cut: the post's seven cases are never cut or re-scaled at default; no
    format or variant leaves make bench (every one has a cell that runs at default); and no median of
    a call under a second rests on fewer than three samples: per round, asv takes at least its
    minimum, and while its time limit lasts, a sample a second at least (the most it can, its
    maximum), over every round."""
    from data_prep import PROFILES, VARIANTS
    from dsib import catalog
    from dsib.formats import FORMATS
    from dsib_tools import suite

    assert PROFILES["default"].rows_for("nyc_taxi") == 1000000
    for case in suite.POST_2019:
        for fmt in ("parquet", "csv"):
            given = dict(case.given, format=fmt)
            assert (
                catalog.BUILT_IN.cell_skip_reason(case.cls.operation, given, "default", catalog.ANY_VERSIONS) is None
            ), given
    runs = set()
    for cls, method, given, label in _every_cell():
        if (
            "format" in given
            and hasattr(cls, "operation")
            and catalog.BUILT_IN.cell_skip_reason(cls.operation, given, "default", catalog.ANY_VERSIONS) is None
        ):
            runs.add((given["format"], given.get("variant", "plain")))
    assert set(f for f, _ in runs) == set(FORMATS.names())
    assert set(v for _, v in runs) == set(VARIANTS)
    for cls in suite.classes():
        if any(m.startswith("time_") for m in suite.methods(cls)):
            low, high, limit = cls.repeat if isinstance(cls.repeat, tuple) else (cls.repeat, cls.repeat, 0)
            per_round = max(low, min(high, int(limit)))
            assert getattr(cls, "rounds", 2) * per_round >= 3, cls
