"""dsib's asv benchmarks.

Where the data is and at which scale: ``DSIB_PROFILE`` comes from the asv
matrix (``env_nobuild``), so it is part of every environment name and results
at different scales never share a series. ``DSIB_DATA_DIR`` defaults to
``data/`` beside this directory, where ``python -m data_prep prepare`` writes.
"""
import functools
import hashlib
import inspect
import os
import pickle
import shutil
import sys
import sysconfig

from data_prep import PROFILES, get_profile, open_dataset
from data_prep.store import MANIFEST, dataset_path
from dsib.formats import get_format


def _let_finders_be_called_without_target():
    """pyarrow 0.11 calls ``find_spec(name, path)`` on every ``sys.meta_path`` finder, and
    asv_runner's SpecificImporter, which imported this package, requires ``target``."""
    for finder in sys.meta_path:
        cls = type(finder)
        if cls.__name__ == "SpecificImporter" and not getattr(cls, "_dsib_target_default", False):
            original = cls.find_spec

            def find_spec(self, fullname, path=None, target=None, _original=original):
                return _original(self, fullname, path, target)

            cls.find_spec, cls._dsib_target_default = find_spec, True


_let_finders_be_called_without_target()

# asv's forkserver imports this package once and forks a process per benchmark: libraries
# imported here are not re-imported by every case. Missing ones are the formats' business.
for _module in ("pandas", "pyarrow", "pyarrow.parquet", "pyarrow.csv", "pyarrow.compute"):
    try:
        __import__(_module)
    except ImportError:
        pass

PROFILE = os.environ.get("DSIB_PROFILE", "default")
DATA_DIR = os.environ.get("DSIB_DATA_DIR") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")

# Long enough for the `full` profile (10.9 M rows a month) on 2 cores.
FULL_SCALE_TIMEOUT = 3600


def open_store(dataset="nyc_taxi", verify=True):
    """The store of ``dataset`` at this run's profile; a clear DatasetError if it is unusable.
    ``verify="sizes"`` in setup of classes whose setup_cache verified every checksum this run."""
    return open_dataset(dataset, PROFILE, DATA_DIR, verify=verify)


def verify_stores(*datasets):
    """A setup_cache body: hash every file of ``datasets`` once per run, before any case runs.
    Returns the verified names: asv passes a setup_cache's value on only when it is not None."""
    for dataset in datasets:
        open_store(dataset)
    return list(datasets)


def grid_rows(dataset):
    """The grid's rows of ``dataset`` at this run's profile; None when the profile's grid leaves
    it out (``pr`` compares the taxi frame only, to fit its 10 minutes)."""
    return get_profile(PROFILE).grid_rows.get(dataset)


def outside_grid(dataset):
    """Why ``dataset`` has no grid cases at this run's profile, or None when it has."""
    left_out = get_profile(PROFILE).grid_left_out
    if left_out:
        return "the %s profile runs no grid: %s" % (PROFILE, left_out)
    if grid_rows(dataset) is None:
        return "the %s profile's grid leaves %s out" % (PROFILE, dataset)
    return None


def cache_path(*parts):
    """A file in the setup_cache directory (asv's working directory for the benchmark run)."""
    return os.path.abspath("_".join(str(p) for p in parts))


# Set by ``make compare`` only. asv runs every setup_cache again in each interleaved round, and
# at ``pr`` the grid's alone took 25 s of a 119 s commit-round: with this set, a setup_cache's
# files and value are built once per commit and reused by its later rounds.
ROUND_CACHE = os.environ.get("DSIB_ROUND_CACHE")


def _fingerprint_of_installed_code(name):
    """What a setup_cache's value depends on besides its own source: the installed dsib and
    data_prep (asv installs each commit's), every installed distribution, the interpreter, the
    profile and the data."""
    import data_prep
    import dsib

    digest = hashlib.sha256(repr((name, sys.version, PROFILE, os.path.abspath(DATA_DIR))).encode("utf-8"))
    for package in (dsib, data_prep):
        root = os.path.dirname(os.path.abspath(package.__file__))
        for directory, _, files in sorted(os.walk(root)):
            for filename in sorted(f for f in files if f.endswith(".py")):
                with open(os.path.join(directory, filename), "rb") as f:
                    digest.update(filename.encode("utf-8") + f.read())
    for libdir in sorted(set(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))):
        if os.path.isdir(libdir):
            digest.update(repr(sorted(n for n in os.listdir(libdir) if n.endswith(".dist-info"))).encode("utf-8"))
    for dataset in sorted(PROFILES[PROFILE].rows):
        manifest = os.path.join(dataset_path(DATA_DIR, dataset, PROFILE), MANIFEST)
        if os.path.exists(manifest):
            with open(manifest, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()[:16]


def kept_across_rounds(name, build):
    """``build()``, which writes its files with ``cache_path``; under ``DSIB_ROUND_CACHE``, built
    once per installed code (see ``_fingerprint_of_installed_code``) and reused after that.
    The value is saved last, atomically: a directory without it was interrupted and is rebuilt."""
    if not ROUND_CACHE:
        return build()
    directory = os.path.join(ROUND_CACHE, "%s-%s" % (name, _fingerprint_of_installed_code(name)))
    saved = os.path.join(directory, "value.pickle")
    if os.path.exists(saved):
        with open(saved, "rb") as f:
            return pickle.load(f)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    here = os.getcwd()
    os.chdir(directory)
    try:
        value = build()
    finally:
        os.chdir(here)
    with open(saved + ".partial", "wb") as f:
        pickle.dump(value, f, pickle.HIGHEST_PROTOCOL)
    os.rename(saved + ".partial", saved)
    return value


def keep_across_rounds(*classes):
    """Call at the end of a benchmark module, for the classes that define a ``setup_cache``:
    wrapped after the fact, so its source, and so the committed series' versions, stay as
    they were; asv finds the original's line (its cache key) through ``__wrapped__``."""
    for cls in classes:
        build = vars(cls)["setup_cache"]

        @functools.wraps(build)
        def setup_cache(self, _build=build, _name="%s.%s" % (cls.__module__, cls.__name__)):
            return kept_across_rounds(_name, lambda: _build(self))

        cls.setup_cache = setup_cache


def only_inside_grid(dataset, *classes):
    """For classes whose setup_cache reads ``dataset`` at grid scale without asking
    ``outside_grid`` (written when every profile ran the taxi grid): outside the grid,
    setup_cache builds nothing and setup skips. Wrapped after the fact, like
    ``keep_across_rounds``, so that the committed series keep their versions."""
    for cls in classes:
        build, prepare = vars(cls)["setup_cache"], vars(cls)["setup"]

        @functools.wraps(build)
        def setup_cache(self, _build=build):
            return {} if outside_grid(dataset) else _build(self)

        @functools.wraps(prepare)
        def setup(self, *params, _prepare=prepare):
            reason = outside_grid(dataset)
            if reason:
                raise NotImplementedError(reason)
            return _prepare(self, *params)

        cls.setup_cache, cls.setup = setup_cache, setup


def ready(name):
    """The format, warmed up in setup (see ``Format.warm_up``): no import lands in a timing."""
    fmt = get_format(name)
    fmt.warm_up()
    return fmt


BENCHMARK_PREFIXES = ("time_", "timeraw_", "peakmem_", "mem_", "track_")


def _scale_of_versioned_profiles():
    return repr(sorted((p.name, sorted(p.rows.items()), p.seed, sorted(p.grid_rows.items()))
                       for p in PROFILES.values() if p.versioned))


def version_by_code_and_scale(namespace):
    """Call at the end of a benchmark module.

    asv versions a benchmark by the source of its method, setups and setup_cache, and shows
    only results of the current version. The scale lives in data_prep's profiles, outside
    that source, so a change of rows alone would continue old series with new numbers. Each
    benchmark method gets a version of that same source plus every versioned profile's scale
    (all of them, so that runs at different profiles agree on one benchmarks.json). ``pr``'s
    results are never kept, so its scale stays out: retuning it keeps the committed series.
    """
    scale = _scale_of_versioned_profiles()
    module = namespace["__name__"]
    for cls in list(namespace.values()):
        if not inspect.isclass(cls) or cls.__module__ != module or cls.__name__.startswith("_"):
            continue
        setups = [vars(k)[name] for k in cls.__mro__ for name in ("setup", "setup_cache") if name in vars(k)]
        for name in dir(cls):
            if name.startswith(BENCHMARK_PREFIXES):
                method = getattr(cls, name)
                code = "".join(inspect.getsource(f) for f in [method] + setups)
                method.version = hashlib.sha256((code + scale).encode("utf-8")).hexdigest()
