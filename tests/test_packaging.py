"""Packaging and configuration stay consistent with each other."""

import glob
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from dsib_tools.matrix import newest

from .conftest import ROOT


def _pins(path):
    pins = {}
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if line:
                name, version = line.split("==")
                pins[name.lower()] = version
    return pins


# conda-forge names that differ from PyPI's.
CONDA_TO_PIP = {
    "pytables": "tables",
    "msgpack-python": "msgpack",
    "python-duckdb": "duckdb",
    "adbc-driver-manager": "adbc_driver_manager",
    "adbc-driver-sqlite": "adbc_driver_sqlite",
    "adbc-driver-postgresql": "adbc_driver_postgresql",
}


def test_environment_yml_matches_the_pip_requirements():
    with open(os.path.join(ROOT, "environment.yml")) as f:
        env = yaml.safe_load(f)
    conda = {}
    for dep in env["dependencies"]:
        if isinstance(dep, str) and "=" in dep:
            name, version = dep.split("=", 1)
            conda[CONDA_TO_PIP.get(name.lower(), name.lower())] = version
    pip_section = [d for d in env["dependencies"] if isinstance(d, dict)][0]["pip"]
    conda.update(dict(line.lower().split("==") for line in pip_section))
    pip = _pins(os.path.join(ROOT, "requirements.txt"))
    python = conda.pop("python")
    assert conda == pip
    with open(os.path.join(ROOT, "asv.conf.json")) as f:
        conf = json.load(f)
    assert newest(conf["include"])["python"] == python, "conda users get the environment `make bench` runs"
    assert newest(conf["include"])["req"] == dict((k, v) for k, v in pip.items() if k in newest(conf["include"])["req"])


def test_asv_config_records_the_profile_and_installs_per_commit():
    with open(os.path.join(ROOT, "asv.conf.json")) as f:
        conf = json.load(f)
    assert all(e["env_nobuild"]["DSIB_PROFILE"] == "default" for e in conf["include"])
    assert conf["environment_type"] == "virtualenv"
    assert conf["results_dir"] == "results" and conf["html_dir"] == "html"
    assert all("--no-deps" in c for c in conf["build_command"] + conf["install_command"])
    assert conf["plugins"] == [".dsib_tools.asv_plugin"]


def _readme_commands():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    first_block = re.search(r"```(?:sh|bash|console)?\n(.*?)```", text, re.S).group(1)
    return [line.split("#")[0].strip() for line in first_block.splitlines() if line.strip()]


def test_readme_opens_with_the_two_commands_and_ci_runs_the_test_one():
    assert _readme_commands() == ["make bench", "make test"]
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        script = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    assert script[-1] == "make test"


def _python37():
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.7*/bin/python3.7")))
    return found[-1] if found else None


@pytest.mark.skipif(_python37() is None, reason="no Python 3.7 interpreter under pyenv")
def test_installed_code_is_python37_syntax():
    # The measured code: every environment of the matrix imports it. The tools (dsib_tools) run in
    # the tool environment only.
    files = [
        f
        for d in ("dsib", "data_prep", "benchmarks")
        for f in glob.glob(os.path.join(ROOT, d, "**", "*.py"), recursive=True)
    ]
    assert any(f.endswith(os.path.join("formats", "parquet.py")) for f in files)
    script = "import sys, ast\nfor p in sys.argv[1:]:\n    ast.parse(open(p).read(), p)\n"
    subprocess.run([_python37(), "-c", script] + files, check=True)


def test_every_package_directory_of_the_installed_code_is_packaged():
    """asv installs dsib and data_prep from a wheel of each commit: a package left out of
    pyproject.toml is missing from every benchmark environment (dsib.engines once was)."""
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        listed = re.search(r"^packages = (\[.*\])$", f.read(), re.M)
    on_disk = sorted(
        os.path.relpath(os.path.dirname(init), ROOT).replace(os.sep, ".")
        for top in ("dsib", "data_prep")
        for init in glob.glob(os.path.join(ROOT, top, "**", "__init__.py"), recursive=True)
    )
    assert sorted(json.loads(listed.group(1))) == on_disk


def _canonical(name):
    """PyPI's one spelling of a project's name (PEP 503): pip freeze says adbc-driver-manager where
    requirements.txt says adbc_driver_manager."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _canonical_pins(path):
    return dict((_canonical(name), version) for name, version in _pins(path).items())


def test_every_pin_of_requirements_txt_is_the_same_in_constraints_txt():
    pins, constraints = (
        _canonical_pins(os.path.join(ROOT, "requirements.txt")),
        _canonical_pins(os.path.join(ROOT, "constraints.txt")),
    )
    differ = dict(
        (name, (version, constraints.get(name))) for name, version in pins.items() if constraints.get(name) != version
    )
    assert not differ, "requirements.txt against constraints.txt (scripts/constraints): %s" % differ


def test_the_tools_environment_is_constraints_txt_exactly():
    """What pip freeze says of the environment the tests run in (a fresh clone's .venv, made by
    make) is constraints.txt: no package it brought is left unpinned, none is at another version."""
    freeze = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    installed = dict(
        (_canonical(name), version)
        for name, version in (line.split("==") for line in freeze.splitlines() if "==" in line)
    )
    constraints = _canonical_pins(os.path.join(ROOT, "constraints.txt"))
    unpinned = sorted(set(installed) - set(constraints))
    other = dict(
        (n, (installed[n], constraints[n])) for n in installed if n in constraints and installed[n] != constraints[n]
    )
    missing = sorted(set(constraints) - set(installed))
    assert not (unpinned or other or missing), (
        "installed but not in constraints.txt: %s; at another version (installed, constrained): %s; "
        "constrained but not installed: %s (scripts/constraints)" % (unpinned, other, missing)
    )
