"""The tree's two roles: what asv installs and measures (dsib, data_prep, and the suite in
benchmarks/), and the tools that read results (dsib_tools). Imports go from tools to measured
code, never back, and no module imports itself round a cycle."""

import ast
import os

from .conftest import ROOT

MEASURED = ("dsib", "data_prep", "benchmarks")
TOOLS = ("dsib_tools",)


def _modules():
    """{module name: path} of every Python module of the tree's packages."""
    found = {}
    for top in MEASURED + TOOLS:
        for directory, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for filename in files:
                if filename.endswith(".py"):
                    path = os.path.join(directory, filename)
                    parts = os.path.relpath(path, ROOT)[:-3].split(os.sep)
                    if parts[-1] == "__init__":
                        parts = parts[:-1]
                    found[".".join(parts)] = path
    return found


def _imports(name, path, modules):
    """The tree's modules that ``name`` imports, anywhere in it (functions included)."""
    package = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    targets = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                # `from . import x` imports the submodule x where there is one.
                targets.add(base + "." + alias.name if base + "." + alias.name in modules else base)
    found = set()
    for target in targets:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)
    return found


def _graph():
    modules = _modules()
    return dict((name, _imports(name, path, modules)) for name, path in modules.items())


def test_measured_code_never_imports_the_tools():
    graph = _graph()
    leaks = sorted(
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if a.split(".")[0] in MEASURED and b.split(".")[0] in TOOLS
    )
    assert not leaks, leaks
    assert any(b.split(".")[0] == "benchmarks" for b in graph["dsib_tools.suite"]), "tools read the suite"


def test_the_installed_packages_do_not_import_the_suite():
    graph = _graph()
    assert not [
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if a.split(".")[0] in ("dsib", "data_prep") and b.split(".")[0] == "benchmarks"
    ]


def test_no_import_cycle():
    graph = _graph()
    state, stack, cycles = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    # A package's __init__ that imports its own submodules is not a cycle: they do not import it back.
    assert not cycles, cycles


def test_the_cycle_check_can_fail(tmp_path, monkeypatch):
    import tests.test_layout as layout

    monkeypatch.setattr(layout, "_graph", lambda: {"a": {"b"}, "b": {"c"}, "c": {"a"}})
    try:
        layout.test_no_import_cycle()
    except AssertionError as exc:
        assert "'a', 'b', 'c', 'a'" in str(exc)
    else:
        raise AssertionError("a cycle went unnoticed")


def test_one_format_family_per_adapter_module():
    from dsib import formats

    for module in formats.FAMILIES:
        families = set(f.family for f in module.FORMATS)
        assert len(families) == 1, (module.__name__, families)
    assert len(set(f.family for m in formats.FAMILIES for f in m.FORMATS)) == len(formats.FAMILIES)


def test_the_wheel_asv_installs_holds_the_measured_packages_only():
    import re

    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        listed = re.search(r"^packages = \[(.*)\]", f.read(), re.M).group(1)
    packages = set(p.strip().strip('"') for p in listed.split(","))
    on_disk = set(
        n
        for n in _modules()
        if n.split(".")[0] in ("dsib", "data_prep") and os.path.basename(_modules()[n]) == "__init__.py"
    )
    assert packages == on_disk


def test_code_and_docs_speak_of_the_domain_not_of_issue_numbers():
    """The project's history goes to CHANGELOG.md and records/: no issue number elsewhere."""
    import subprocess

    found = subprocess.run(
        ["git", "grep", "-nE", "[Ii]ssue [0-9]+", "--", ".", ":!CHANGELOG.md", ":!records/"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        universal_newlines=True,
    ).stdout
    assert found == "", found


# Where the tools touch asv's result files other than through ``dsib_tools.asv_results``: publishing
# rewrites the files it stages (a stale benchmark's rows dropped) and the durations tables read the
# per-benchmark columns of one file.
RESULT_FILES_AS_JSON = {"dsib_tools.publish", "dsib_tools.durations"}


def test_the_tools_read_asvs_results_in_one_module():
    """Only ``dsib_tools.asv_results`` imports asv's results API; the rest read through it."""
    readers = []
    for name, path in sorted(_modules().items()):
        if not name.startswith("dsib_tools") or name == "dsib_tools.asv_results":
            continue
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("asv.results"):
                readers.append(name)
            elif isinstance(node, ast.Import) and any(a.name.startswith("asv.results") for a in node.names):
                readers.append(name)
            elif (
                isinstance(node, ast.ImportFrom)
                and node.module == "asv"
                and any(a.name == "results" for a in node.names)
            ):
                readers.append(name)
            elif isinstance(node, ast.Constant) and node.value == "result_columns" and name not in RESULT_FILES_AS_JSON:
                readers.append(name)
    assert not readers, sorted(set(readers))
