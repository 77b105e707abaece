"""`python -m dsib_tools machine NAME` keeps one hardware per results series."""
import json
import os
import subprocess
import sys

import pytest
from asv.machine import Machine

from .conftest import ROOT


def _machine(name, results_dir, home):
    return subprocess.run([sys.executable, "-m", "dsib_tools", "machine", name, "--results-dir", str(results_dir)],
                          cwd=ROOT, env=dict(os.environ, HOME=str(home)), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)


def _recorded(results_dir, name, **changes):
    info = dict(Machine.get_defaults(), machine=name, version=1)
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
        assert saved["cpu"] == Machine.get_defaults()["cpu"] and saved["machine"] == name
