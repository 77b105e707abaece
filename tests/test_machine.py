"""`python -m dsib_tools setup machine NAME` keeps one hardware per results series."""

import json
import os
import subprocess
import sys

import pytest
from asv.machine import Machine

from dsib_tools.workspace import cpu_identity, machine_info

from .conftest import ROOT


def _machine(name, results_dir, home):
    return subprocess.run(
        [sys.executable, "-m", "dsib_tools", "setup", "machine", name, "--results-dir", str(results_dir)],
        cwd=ROOT,
        env=dict(os.environ, HOME=str(home)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )


def _recorded(results_dir, name, **changes):
    info = dict(machine_info(name), version=1)
    info.update(changes)
    os.makedirs(os.path.join(results_dir, name))
    with open(os.path.join(results_dir, name, "machine.json"), "w") as f:
        json.dump(info, f)


@pytest.mark.parametrize("changes", [{"cpu": "Some Other CPU @ 1.00GHz"}, {"num_cpu": "96"}])
def test_a_name_whose_results_came_from_other_hardware_is_refused_and_nothing_is_saved(tmp_path, changes):
    _recorded(tmp_path / "results", "box", **changes)
    proc = _machine("box", tmp_path / "results", tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert list(changes.values())[0] in proc.stderr
    assert "choose another machine name" in proc.stderr
    assert not (tmp_path / ".asv-machine.json").exists()


def test_an_unreadable_record_is_a_clear_error_and_nothing_is_saved(tmp_path):
    os.makedirs(str(tmp_path / "results" / "box"))
    (tmp_path / "results" / "box" / "machine.json").write_text('{"cpu": "AMD')
    proc = _machine("box", tmp_path / "results", tmp_path)
    assert proc.returncode == 2 and "is not readable JSON" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / ".asv-machine.json").exists()


def test_the_same_hardware_or_a_new_name_is_recorded_for_asv(tmp_path):
    # ram differs by a few kB between boots of the same machine: not a reason to refuse
    _recorded(tmp_path / "results", "box", ram="1")
    for name in ("box", "new-box"):
        proc = _machine(name, tmp_path / "results", tmp_path)
        assert proc.returncode == 0, proc.stderr
        with open(str(tmp_path / ".asv-machine.json")) as f:
            saved = json.load(f)[name]
        assert saved["cpu"] == cpu_identity(Machine.get_defaults()["cpu"]) and saved["machine"] == name


def test_a_cpu_is_told_apart_by_its_family_model_and_stepping(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
        "model name\t: AMD EPYC\nstepping\t: 1\n\nprocessor\t: 1\ncpu family\t: 25\n"
    )
    assert cpu_identity("AMD EPYC", str(cpuinfo)) == "AMD EPYC (family 26, model 2, stepping 1)"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Some ARM core\n")
    assert cpu_identity("Some ARM core", str(cpuinfo)) == "Some ARM core", "nothing made up where the kernel is silent"
    assert cpu_identity("X", str(tmp_path / "absent")) == "X"


def test_results_recorded_under_a_bare_model_name_are_not_taken_for_this_cpus(tmp_path):
    """The committed history says "AMD EPYC" or "Intel(R) Xeon(R) Processor" only: a run here
    cannot show it is the same CPU, so it needs a name of its own."""
    bare = Machine.get_defaults()["cpu"]
    if cpu_identity(bare) == bare:
        pytest.skip("this kernel does not say the CPU's family and model")
    _recorded(tmp_path / "results", "box", cpu=bare)
    proc = _machine("box", tmp_path / "results", tmp_path)
    assert proc.returncode == 2 and "before dsib noted a CPU's family and model" in proc.stderr, proc.stderr
