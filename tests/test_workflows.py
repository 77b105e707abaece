"""The GitHub workflows: nothing here can run them, so actionlint (with shellcheck over the run
scripts) checks them, and their steps are the Makefile's commands."""

import glob
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from .conftest import ROOT

WORKFLOWS = os.path.join(ROOT, ".github", "workflows")
BIN = os.path.dirname(sys.executable)


def _actionlint(*args, cwd=ROOT):
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run(
        [os.path.join(BIN, "actionlint")] + list(args),
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
    )


def _workflows():
    paths = sorted(glob.glob(os.path.join(WORKFLOWS, "*.yml")))
    assert paths
    docs = {}
    for path in paths:
        with open(path) as f:
            # YAML 1.1 reads the key `on` as True.
            doc = yaml.safe_load(f)
        doc["on"] = doc.pop(True, doc.get("on"))
        docs[os.path.basename(path)] = doc
    return docs


def _run_steps(doc):
    return [step["run"] for job in doc["jobs"].values() for step in job.get("steps", []) if "run" in step]


@pytest.mark.slow
def test_actionlint_and_shellcheck_pass_on_the_workflows():
    assert shutil.which("shellcheck", path=BIN), "actionlint checks run: scripts only when shellcheck is found"
    with open(os.path.join(ROOT, "scripts", "provision")) as f:
        pinned = re.search(r"^ACTIONLINT_VERSION=(\S+)", f.read(), re.M).group(1)
    assert _actionlint("-version").stdout.split()[0] == pinned
    proc = _actionlint("-verbose")
    assert proc.returncode == 0, proc.stdout
    for name in _workflows():
        assert name in proc.stdout, "actionlint did not read %s:\n%s" % (name, proc.stdout)


@pytest.mark.slow
def test_actionlint_catches_a_broken_workflow(tmp_path):
    """The check can fail: an unknown event, a bad expression and an unquoted shell variable."""
    broken = str(tmp_path / "broken.yml")
    with open(broken, "w") as f:
        f.write(
            "on: pull_requests\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
            "      - run: echo ${{ github.nope }}\n      - run: cd $HOME/x && ls $1\n"
        )
    proc = _actionlint(broken)
    assert proc.returncode != 0
    assert "pull_requests" in proc.stdout and "nope" in proc.stdout and "shellcheck" in proc.stdout, proc.stdout


def test_pull_requests_with_the_label_run_make_compare_into_the_job_summary():
    doc = _workflows()["pr-benchmarks.yml"]
    assert "pull_request" in doc["on"] and "labeled" in doc["on"]["pull_request"]["types"]
    (job,) = doc["jobs"].values()
    assert "run-benchmarks" in job["if"] and "labels" in job["if"]
    (run,) = _run_steps(doc)
    assert run.startswith("make compare ") and 'SUMMARY="$GITHUB_STEP_SUMMARY"' in run
    checkout = [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout")][0]
    assert checkout["with"]["fetch-depth"] == 0, "asv builds the base commit: the history must be there"


def test_pushes_to_main_run_make_bench_and_deploy_its_site_to_pages():
    doc = _workflows()["publish.yml"]
    assert doc["on"]["push"]["branches"] == ["main"]
    assert _run_steps(doc) == ["make bench MACHINE=github-actions"]
    steps = [s.get("uses", "") for job in doc["jobs"].values() for s in job["steps"]]
    upload = [s for s in doc["jobs"]["bench"]["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact")]
    assert upload and upload[0]["with"]["path"] == "build/html", "the site make bench publishes"
    assert any(u.startswith("actions/deploy-pages") for u in steps)
    assert doc["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}


def test_the_sweep_runs_its_shards_on_one_hardware_class_then_merges_and_deploys_them():
    doc = _workflows()["sweep.yml"]
    assert "workflow_dispatch" in doc["on"]
    shard, merge = doc["jobs"]["shard"], doc["jobs"]["merge"]
    shards = shard["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, len(shards) + 1)) and len(shards) > 1
    with open(os.path.join(ROOT, ".github", "actionlint.yaml")) as f:
        declared = yaml.safe_load(f)["self-hosted-runner"]["labels"]
    (hardware,) = [label for label in shard["runs-on"] if label in declared]
    assert "self-hosted" in shard["runs-on"]
    (run,) = _run_steps({"jobs": {"shard": shard}})
    assert run.startswith("make data run-matrix MATRIX=sweeps ") and "MACHINE=%s" % hardware in run.split()
    assert " SHARD=${{ matrix.shard }}/${{ strategy.job-total }} " in run, "N is the matrix's own size"
    upload = [s for s in shard["steps"] if s.get("uses", "").startswith("actions/upload-artifact")][0]["with"]
    assert upload["path"].split() == ["build/results/benchmarks.json", "build/results/" + hardware]
    download = [s for s in merge["steps"] if s.get("uses", "").startswith("actions/download-artifact")][0]["with"]
    assert upload["name"].replace("${{ matrix.shard }}", "*") == download["pattern"]
    (run,) = _run_steps({"jobs": {"merge": merge}})
    assert run == 'make merge-results site MACHINE=%s SHARDS="%s/*"' % (hardware, download["path"])
    pages = [s for s in merge["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact")]
    assert pages and pages[0]["with"]["path"] == "build/html"
    deploy = doc["jobs"]["deploy"]
    assert deploy["needs"] == "merge" and merge["needs"] == "shard"
    assert any(s.get("uses", "").startswith("actions/deploy-pages") for s in deploy["steps"])
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    publish = _workflows()["publish.yml"]["concurrency"]["group"]
    assert deploy["concurrency"]["group"] == publish != doc["concurrency"]["group"], (
        "deployments take turns with publish.yml's; the hours of shards do not hold its runs"
    )


@pytest.mark.parametrize("name", ["pr-benchmarks.yml", "publish.yml", "sweep.yml"])
def test_workflow_steps_are_makefile_commands(name):
    """What CI runs is what a developer runs: every run step is a make target that exists."""
    for run in _run_steps(_workflows()[name]):
        words = run.replace("${{ matrix.shard }}/${{ strategy.job-total }}", "1/4").split()
        assert words[0] == "make"
        dry = subprocess.run(
            ["make", "-n"]
            + [
                w.replace("$GITHUB_STEP_SUMMARY", "/dev/null").replace('"', "").replace("$BASE_REF", "main")
                for w in words[1:]
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
        )
        assert dry.returncode == 0, dry.stdout
