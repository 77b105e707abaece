"""asv plugin (``"plugins": [".dsib.asv_plugin"]``): install an environment's pins in one pip call.

asv 0.6's virtualenv plugin runs one ``pip install`` per requirement, so a
later package can silently upgrade one installed before it (tables pulling a
newer numpy breaks pandas' ABI). Here all pins are resolved together, and the
installed versions are checked against the pins afterwards.

asv also installs ``asv_runner``, the code that takes the samples, unpinned: its 0.3 releases run
``setup`` before every sample where earlier ones did not. Every environment gets the release the
tools are pinned to (requirements.txt), so a new asv_runner never changes how a series samples.
"""

import json
import os
from importlib import metadata

from asv import util
from asv.plugins.virtualenv import Virtualenv

from dsib_tools.matrix import install_args, wrong_versions


def _pins(env):
    pins = {}
    for key, value in list(env._requirements.items()) + list(env._base_requirements.items()):
        name = key[4:] if key.startswith("pip+") else key
        pins.setdefault(name, value)
    if not pins.get("asv_runner"):  # "" from asv; a path when ASV_RUNNER_PATH points at a checkout
        pins["asv_runner"] = metadata.version("asv_runner")
    return pins


def _install_requirements(self):
    env = dict(os.environ)
    env.update(self.build_env_vars)
    self._run_pip(["install", "wheel", "pip>=8"], env=env)
    pins = _pins(self)
    self._run_pip(install_args(pins), env=env)
    listing = json.loads(self._run_pip(["list", "--format=json"]))
    wrong = wrong_versions(pins, dict((p["name"], p["version"]) for p in listing))
    if wrong:
        raise util.UserError("environment %s did not install its pins: %s" % (self.name, "; ".join(wrong)))


Virtualenv._install_requirements = _install_requirements
