"""The series lock: a benchmark's series continues, or a new one starts, only by a decision.

asv shows a benchmark's results only at its current ``version``. Each class of the suite sets it
explicitly, ``version = series(N)``, and ``benchmarks/series.lock`` records, per class, that N
and a digest of the code the class measures: its own source and its bases', the suite's shared
helpers (``benchmarks/__init__.py``), and the modules it names in ``measures`` (the adapters it
calls, the generator of its data, the page-cache control it times).

When that code changes, ``check`` fails until someone decides:

- the change alters what is measured: bump the class's N (``series(N + 1)``), a new series, and
  record it;
- it does not (a refactor, a comment, a fix elsewhere in a module): record that the series
  continues.

Recording is ``python -m dsib_tools lock``; the lock's diff shows which of the two it was.
"""
import hashlib
import importlib
import inspect
import json
import os

import benchmarks

from . import suite

LOCK = os.path.join(os.path.dirname(os.path.abspath(benchmarks.__file__)), "series.lock")


def _sources(module_name):
    """(relative path, bytes) of a module, or of every module of a package."""
    module = importlib.import_module(module_name)
    path = os.path.abspath(module.__file__)
    if os.path.basename(path) != "__init__.py":
        with open(path, "rb") as f:
            return [(module_name, f.read())]
    found = []
    root = os.path.dirname(path)
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
        for filename in sorted(f for f in files if f.endswith(".py")):
            with open(os.path.join(directory, filename), "rb") as f:
                found.append((module_name + "/" + os.path.relpath(os.path.join(directory, filename), root), f.read()))
    return sorted(found)


def series_of(cls):
    return int(str(cls.version).split(".")[0])


def measured_code(cls):
    """[(name, bytes)] of everything whose change could change what ``cls`` measures."""
    own = [(k.__module__ + "." + k.__name__, inspect.getsource(k).encode("utf-8"))
           for k in cls.__mro__ if k.__module__.startswith(benchmarks.__name__)]
    shared = [("benchmarks/__init__.py", _read(benchmarks.__file__))]
    modules = [item for name in sorted(set(cls.measures)) for item in _sources(name)]
    return own + shared + modules


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def digest(cls):
    h = hashlib.sha256()
    for name, source in measured_code(cls):
        h.update(name.encode("utf-8") + b"\0" + source + b"\0")
    return h.hexdigest()


def current():
    """{class name: {"series": N, "code": digest}} of the suite as it is."""
    return dict((_key(cls), {"series": series_of(cls), "code": digest(cls)}) for cls in suite.classes())


def _key(cls):
    return suite.name(cls, suite.methods(cls)[0]).rsplit(".", 1)[0]


def load(path=LOCK):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def problems(locked=None, now=None):
    """What the lock does not record, one sentence each; empty when it is up to date."""
    locked = load() if locked is None else locked
    now = current() if now is None else now
    found = []
    for name in sorted(set(locked) | set(now)):
        if name not in now:
            found.append("%s is in the lock but not in the suite: record its removal" % name)
        elif name not in locked:
            found.append("%s is not in the lock: record its series %d" % (name, now[name]["series"]))
        elif now[name]["series"] != locked[name]["series"]:
            found.append("%s is now series %d (the lock has %d): record the new series"
                         % (name, now[name]["series"], locked[name]["series"]))
        elif now[name]["code"] != locked[name]["code"]:
            found.append("%s: the code it measures changed and its series is still %d. Decide: if what it "
                         "measures changed, start a new series (version = series(%d)); if not, record that "
                         "series %d continues" % (name, now[name]["series"], now[name]["series"] + 1,
                                                  now[name]["series"]))
    return found


def write(path=LOCK):
    """Record the suite as it is; returns the lines that say what changed."""
    locked, now = load(path), current()
    said = []
    for name in sorted(set(locked) | set(now)):
        before, after = locked.get(name), now.get(name)
        if before == after:
            continue
        if after is None:
            said.append("%s: removed" % name)
        elif before is None:
            said.append("%s: series %d, new" % (name, after["series"]))
        elif before["series"] != after["series"]:
            said.append("%s: series %d -> %d, a new series" % (name, before["series"], after["series"]))
        else:
            said.append("%s: code changed, series %d continues" % (name, after["series"]))
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(now, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)
    return said
