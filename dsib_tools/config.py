"""asv configs derived from asv.conf.json: another profile, results location or environments."""
import json


def derive_config(base, profile=None, results_dir=None, html_dir=None, env_dir=None, repo=None,
                  benchmark_dir=None, envs="all"):
    """``base`` with the profile recorded in every environment (its name, hence its series) and,
    with ``envs="newest"``, only the matrix entry of the newest pyarrow and pandas."""
    from .matrix import newest

    conf = json.loads(json.dumps(base))
    if envs == "newest":
        conf["include"] = [newest(conf["include"])]
    if profile:
        for entry in conf.get("include", []):
            entry.setdefault("env_nobuild", {})["DSIB_PROFILE"] = profile
        if conf.get("matrix"):
            conf["matrix"].setdefault("env_nobuild", {})["DSIB_PROFILE"] = [profile]
    for key, value in (("results_dir", results_dir), ("html_dir", html_dir), ("env_dir", env_dir),
                       ("repo", repo), ("benchmark_dir", benchmark_dir)):
        if value:
            conf[key] = value
    return conf
