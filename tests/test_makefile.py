"""The Makefile is the front door's other half: `make help` is its default and lists every target, and
`make test-fast` is the tests of no tier (pytest markers)."""

import os
import re
import subprocess

from .conftest import ROOT


def _phony_targets():
    with open(ROOT + "/Makefile") as f:
        text = f.read()
    phony = re.search(r"^\.PHONY:((?:.*\\\n)*.*)$", text, re.M).group(1)
    return [t for t in phony.replace("\\\n", " ").split() if t != "FORCE"]


def test_make_with_no_target_prints_one_line_for_every_target():
    proc = subprocess.run(
        ["make", "--no-print-directory"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    assert proc.returncode == 0, proc.stderr
    listed = [line.split()[1] for line in proc.stdout.splitlines()]
    targets = _phony_targets()
    assert sorted(listed) == sorted(targets), "a target without its '## name: what' line, or a stale line"
    for line in proc.stdout.splitlines():
        assert len(line.split(None, 2)) == 3 and len(line) <= 120, line


# The tiers: `make test-fast` deselects the tests that carry one of pyproject.toml's markers. A test
# that needs a tier through one of these fixtures (itself or through another fixture) carries its
# marker, or test-fast would start what it promises not to.
TIER_FIXTURES = {
    "asv_tiny": "asv",  # a whole make bench at tiny
    "slowed": "asv",  # test_compare's make compare
    "sweep": "asv",  # test_shard_sweep's make run-matrix runs
    "resolutions": "asv",  # pip resolving every environment of the matrix
    "held_servers": "server",
    "browser": "browser",
}


def _declared_markers():
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        markers = tomllib.load(f)["tool"]["pytest"]["ini_options"]["markers"]
    return [m.split(":")[0] for m in markers]


def test_make_test_fast_deselects_every_tier_that_pyproject_declares():
    with open(os.path.join(ROOT, "Makefile")) as f:
        (fast,) = re.findall(r"^FAST_TIER := (.*)$", f.read(), re.M)
    assert sorted(_declared_markers()) == ["asv", "browser", "server", "slow"]
    assert fast == " and ".join("not " + marker for marker in _declared_markers())


def test_every_test_that_uses_a_tiers_fixture_carries_its_marker(request):
    """Over the tests of this session (all of them under `make test`, the fast tier under
    `make test-fast`, where such a test would be the one that should not be there)."""
    import ast
    import glob

    defined = set()
    for path in glob.glob(os.path.join(ROOT, "tests", "*.py")):
        with open(path) as f:
            for node in ast.walk(ast.parse(f.read())):
                if isinstance(node, ast.FunctionDef) and any("fixture" in ast.dump(d) for d in node.decorator_list):
                    defined.add(node.name)
    assert set(TIER_FIXTURES) <= defined, "a fixture renamed: %s" % sorted(set(TIER_FIXTURES) - defined)
    assert set(TIER_FIXTURES.values()) <= set(_declared_markers())
    unmarked = [
        "%s uses %s: mark it %s" % (item.nodeid, fixture, marker)
        for item in request.session.items
        for fixture, marker in sorted(TIER_FIXTURES.items())
        if fixture in getattr(item, "fixturenames", ()) and item.get_closest_marker(marker) is None
    ]
    assert not unmarked, "\n".join(unmarked)


def test_make_serve_serves_the_site_on_localhost_and_stops_with_its_process():
    """asv's pages fetch their data, which a page opened from disk cannot: `make serve` serves one."""
    import signal
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "serve", "SITE=html", "PORT=%d" % port],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline, page = time.monotonic() + 30, None
        while page is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/index.json" % port, timeout=2) as answer:
                    page = answer.read()
            except OSError:
                time.sleep(0.2)
        assert page is not None, "nothing served on port %d" % port
        with open(os.path.join(ROOT, "html", "index.json"), "rb") as f:
            assert page == f.read()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
