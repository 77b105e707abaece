"""What the tests of the README's `make bench` at `tiny` (the session's ``asv_tiny`` fixture, in
conftest.py) read from its run: its results, and the tools' output on them."""

import subprocess

MACHINE = "dsib-test"


def expected_benchmarks():
    from dsib_tools import suite

    return set(suite.name(cls, m) for cls in suite.classes() for m in suite.methods(cls))


def capture(args, cwd, env):
    """``args`` run to completion, stdout and stderr together in its ``stdout``."""
    proc = subprocess.run(
        args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True
    )
    return proc


def git_status(repo):
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo,
        check=True,
        stdout=subprocess.PIPE,
        universal_newlines=True,
    ).stdout


def tiny_results(asv_tiny):
    from asv.results import iter_results_for_machine

    return list(iter_results_for_machine(asv_tiny["results"], MACHINE))
