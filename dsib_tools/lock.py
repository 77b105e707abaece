"""The series lock: a benchmark's series continues, or a new one starts, only by a decision.

asv shows a benchmark's results only at its current ``version``. Each class of the suite sets it
explicitly, ``version = series(N)``, and ``benchmarks/series.lock`` records, per class, that N
and a digest of the code the class measures, found rather than listed: the file of the class's
module and every project module (``benchmarks``, ``dsib``, ``data_prep``) it imports,
transitively, read from the import statements themselves (``ast``: those inside functions too,
none executed), each package's ``__init__.py`` along the way; and, as an addition, the modules
the class names in ``measures``, for what it depends on without importing it (the store it
reads was written by ``data_prep``'s generator). The external things a case depends on are
named in that code, so the digest holds them too: the pinned QuestDB jar (version and sha1),
the servers' flags and configuration (``dsib.postgres_server``, ``dsib.questdb_server``,
``dsib.engines``), and the majors of the servers the machine supplies
(``dsib.postgres_server.POSTGRES_MAJOR``, ``dsib.questdb_server.JAVA_MAJOR``), against
which an engine case checks the machine's and skips, saying so, where they differ. A benchmark
that is a series of its own (``version = series(N)`` set on its method, which asv takes before
the class's) is recorded under its class's ``methods``, and its N changes by a decision too.

Files are read as bytes, under their path in the checkout: a comment is a change too (its
decision is quick: the series continues), and the digest is the same on every clone.

When that code changes, ``check`` fails until someone decides:

- the change alters what is measured: bump the class's N (``series(N + 1)``), a new series, and
  record it;
- it does not (a refactor, a comment, a fix elsewhere in a module): record that the series
  continues.

Recording is ``python -m dsib_tools lock``; the lock's diff shows which of the two it was.
"""

import ast
import hashlib
import inspect
import json
import os

import benchmarks

from . import suite

LOCK = os.path.join(os.path.dirname(os.path.abspath(benchmarks.__file__)), "series.lock")
# The checkout whose modules a class measures, and the packages of it that asv installs and
# measures; everything else (dsib_tools, tests) is never imported by a case.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(benchmarks.__file__)))
PROJECT = ("benchmarks", "dsib", "data_prep")


def module_file(name, root=ROOT):
    """The file of the project module ``name`` in the checkout (a package's ``__init__.py``), or
    None: another package's module, or a name that is no module (``from dsib import catalog`` names
    a module, ``from data_prep import VARIANTS`` does not)."""
    if name.split(".")[0] not in PROJECT:
        return None
    base = os.path.join(root, *name.split("."))
    for path in (os.path.join(base, "__init__.py"), base + ".py"):
        if os.path.isfile(path):
            return path
    return None


def imported(name, path):
    """The absolute names that the module ``name`` (at ``path``) imports anywhere in it: for
    ``from X import Y``, X and X.Y (Y may be a module)."""
    with open(path, "rb") as f:
        tree = ast.parse(f.read(), path)
    package = name if os.path.basename(path) == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module
            found.append(base)
            found.extend(base + "." + alias.name for alias in node.names if alias.name != "*")
    return found


def package_modules(name, root=ROOT):
    """``name`` and, where it is a package, every module under it."""
    path = module_file(name, root)
    if path is None:
        raise ValueError("%s is not a module of this checkout (%s)" % (name, ", ".join(PROJECT)))
    if os.path.basename(path) != "__init__.py":
        return [name]
    found = []
    top = os.path.dirname(path)
    for directory, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
        for filename in sorted(f for f in files if f.endswith(".py")):
            relative = os.path.relpath(os.path.join(directory, filename), top)[: -len(".py")].split(os.sep)
            found.append(".".join([name] + [p for p in relative if p != "__init__"]))
    return found


def closure(names, root=ROOT):
    """{module name: file} of ``names`` and every project module they import, transitively, with
    the packages that hold each (importing ``dsib.cells`` runs ``dsib/__init__.py`` first)."""
    found = {}
    todo = list(names)
    while todo:
        parts = todo.pop().split(".")
        for end in range(1, len(parts) + 1):
            name = ".".join(parts[:end])
            if name in found:
                continue
            path = module_file(name, root)
            if path is None:
                break
            found[name] = path
            todo.extend(imported(name, path))
    return found


def series_of(cls):
    return int(str(cls.version).split(".")[0])


def method_series(cls):
    """{method: N} of ``cls``'s benchmarks that are a series of their own: a ``version`` set on the
    method (asv takes it before the class's)."""
    found = {}
    for method in suite.methods(cls):
        own = getattr(getattr(cls, method), "version", None)
        if own is not None and own != cls.version:
            found[method] = int(str(own).split(".")[0])
    return found


def measured_modules(cls, root=ROOT):
    """{module name: file} of everything whose change could change what ``cls`` measures: its
    module and its bases', what they import, and its ``measures`` (an addition: what it depends
    on without importing it)."""
    names = [k.__module__ for k in inspect.getmro(cls) if module_file(k.__module__, root)]
    names += [m for listed in getattr(cls, "measures", ()) for m in package_modules(listed, root)]
    return closure(names, root)


def measured_code(cls, root=ROOT):
    """[(path in the checkout, bytes)] of ``measured_modules(cls)``, in path order."""
    found = []
    for path in sorted(set(measured_modules(cls, root).values())):
        with open(path, "rb") as f:
            found.append((os.path.relpath(path, root).replace(os.sep, "/"), f.read()))
    return sorted(found)


def digest(cls):
    h = hashlib.sha256()
    for name, source in measured_code(cls):
        h.update(name.encode("utf-8") + b"\0" + source + b"\0")
    return h.hexdigest()


def current():
    """{class name: {"series": N, "code": digest}} of the suite as it is, and ``"methods"``: {method:
    N} where some of the class's benchmarks are a series of their own."""
    found = {}
    for cls in suite.classes():
        found[_key(cls)] = {"series": series_of(cls), "code": digest(cls)}
        own = method_series(cls)
        if own:
            found[_key(cls)]["methods"] = own
    return found


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
            found.append(
                "%s is now series %d (the lock has %d): record the new series"
                % (name, now[name]["series"], locked[name]["series"])
            )
        elif now[name].get("methods", {}) != locked[name].get("methods", {}):
            found.extend(
                "%s.%s is now series %s (the lock has %s): record the new series" % (name, method, n, was)
                for method, n, was in _method_changes(locked[name], now[name])
            )
        elif now[name]["code"] != locked[name]["code"]:
            found.append(
                "%s: the code it measures changed and its series is still %d. Decide: if what it "
                "measures changed, start a new series (version = series(%d)); if not, record that "
                "series %d continues" % (name, now[name]["series"], now[name]["series"] + 1, now[name]["series"])
            )
    return found


def _method_changes(before, after):
    """[(method, its series now, its series before)] of the methods whose own series differs
    between two entries of a class; a method without its own series is at the class's."""
    was, now = before.get("methods", {}), after.get("methods", {})
    return [
        (method, now.get(method, after["series"]), was.get(method, before["series"]))
        for method in sorted(set(was) | set(now))
        if now.get(method, after["series"]) != was.get(method, before["series"])
    ]


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
        elif before.get("methods", {}) != after.get("methods", {}):
            said.extend(
                "%s.%s: series %s -> %s, a new series" % (name, method, was, n)
                for method, n, was in _method_changes(before, after)
            )
        else:
            said.append("%s: code changed, series %d continues" % (name, after["series"]))
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(now, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)
    return said
