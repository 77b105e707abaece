"""One results tree from the shards of a sweep (``make bench-matrix SHARD=i/N`` on N runners).

Each shard's tree holds its environments' results of one machine name; the merged tree holds
them all, as one unsharded run on that machine would have written them, so ``asv publish``
shows one machine with every environment. The shards must be one hardware class (their
``machine.json`` agree), one suite (their ``benchmarks.json`` agree: asv publishes every result
against that one file) and disjoint (no results file two shards hold with different contents).
"""

import filecmp
import json
import os

from .workspace import BENCHMARKS_JSON, MACHINE_JSON, _copy_atomic, other_hardware


class MergeError(ValueError):
    pass


def _read(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (IOError, OSError, ValueError) as exc:
        raise MergeError("%s cannot be read as JSON: %s" % (path, exc))


def _hardware(info):
    return "%s cpus of %s (%s)" % (info.get("num_cpu"), info.get("cpu"), info.get("arch"))


def _machine_files(tree, machine):
    """``{path relative to the tree: path}`` of the machine's files in ``tree``: its results,
    ``machine.json`` and load logs."""
    machine_dir = os.path.join(tree, machine)
    if not os.path.isfile(os.path.join(machine_dir, MACHINE_JSON)):
        raise MergeError(
            "%s holds no results of machine %r (no %s)" % (tree, machine, os.path.join(machine, MACHINE_JSON))
        )
    found = {}
    for directory, _, names in os.walk(machine_dir):
        for name in names:
            path = os.path.join(directory, name)
            found[os.path.relpath(path, tree)] = path
    return found


def plan(trees, into, machine):
    """``[(source, target)]``: what merging ``trees`` into ``into`` copies. Raises MergeError,
    before anything is copied, when the trees cannot be one machine's run."""
    if not trees:
        raise MergeError("no shard results trees to merge")
    machine_json = os.path.join(machine, MACHINE_JSON)
    hardware, suite, sources = None, None, {}
    for tree in trees:
        files = _machine_files(tree, machine)
        info = _read(files.pop(machine_json))
        if hardware is None:
            hardware = (os.path.join(tree, machine_json), info)
        elif other_hardware(hardware[1], info):
            raise MergeError(
                "%s records %s; %s records %s: the shards of one sweep must run on one hardware "
                "class, or their timings would share a series"
                % (hardware[0], _hardware(hardware[1]), os.path.join(tree, machine_json), _hardware(info))
            )
        benchmarks = os.path.join(tree, BENCHMARKS_JSON)
        if not os.path.isfile(benchmarks):
            raise MergeError("%s has no %s: it is not an asv results tree" % (tree, BENCHMARKS_JSON))
        if suite is None:
            suite = (benchmarks, _read(benchmarks))
        elif _read(benchmarks) != suite[1]:
            raise MergeError(
                "%s and %s differ: the shards ran different benchmarks (other commits of the suite?); "
                "asv publishes every result against one benchmarks.json" % (suite[0], benchmarks)
            )
        for relative, path in sorted(files.items()):
            if relative in sources and not filecmp.cmp(sources[relative], path, shallow=False):
                raise MergeError(
                    "%s and %s hold different contents under one name: two shards ran the same "
                    "environment at the same commit" % (sources[relative], path)
                )
            sources.setdefault(relative, path)
    known = os.path.join(into, machine_json)
    if os.path.isfile(known) and other_hardware(_read(known), hardware[1]):
        raise MergeError(
            "%s records %s; the shards (%s) record %s: merge them under another machine name"
            % (known, _hardware(_read(known)), hardware[0], _hardware(hardware[1]))
        )
    pairs = []
    for relative, source in sorted(sources.items()):
        target = os.path.join(into, relative)
        if not os.path.exists(target):
            pairs.append((source, target))
        elif not filecmp.cmp(source, target, shallow=False):
            raise MergeError(
                "%s already holds %s with other contents than %s: merge into a fresh tree "
                "(or one seeded from the committed results)" % (into, relative, source)
            )
    # The shards' suite replaces the tree's (the committed history's, when seeded), as a run would.
    return pairs + [(hardware[0], known), (suite[0], os.path.join(into, BENCHMARKS_JSON))]


def merge(trees, into, machine):
    """Copy ``plan``'s pairs; returns them."""
    pairs = plan(trees, into, machine)
    for source, target in pairs:
        _copy_atomic(source, target)
    return pairs
