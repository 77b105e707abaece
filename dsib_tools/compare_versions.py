"""``python -m dsib_tools compare versions A B``: ``asv compare`` between two environments (library
releases) at one commit, where asv's own compare goes between two commits.

A and B are ``key=value[,key=value]`` filters on a result file's params and environment variables
(``pyarrow=25.0.1``, ``pandas=2.2.3,python=3.11``); ``DSIB_PROFILE=default`` unless a filter names
the profile. The table, marks and significance are asv's (``Compare.print_table``), fed with the
two environments' results: only results whose benchmark version matches benchmarks.json count,
as in ``asv publish``."""

from asv.commands.compare import Compare

from . import asv_results
from .matrix import CURATED_CONFIG
from .chains import TEXT_VARIANTS, text_change
from .release_data import PUBLISHED_PROFILE

MACHINE_KEYS = ("arch", "cpu", "machine", "num_cpu", "os", "ram")


class SelectionError(Exception):
    pass


def parse_filter(text):
    pairs = [part.split("=", 1) for part in text.split(",") if part.strip()]
    if not pairs or any(len(p) != 2 or not p[0].strip() for p in pairs):
        raise SelectionError("%r is not a key=value[,key=value] filter (e.g. pyarrow=26.0.1)" % text)
    wanted = dict((k.strip(), v.strip()) for k, v in pairs)
    wanted.setdefault("DSIB_PROFILE", PUBLISHED_PROFILE)
    return wanted


def env_params(res):
    """What a filter matches: the environment's versions and its environment variables."""
    params = dict((k, v) for k, v in res.params.items() if k not in MACHINE_KEYS and v is not None)
    params.update(res.env_vars or {})
    return params


def describe(res):
    return "  %s  [commit %s]  (%s)" % (
        " ".join("%s=%s" % kv for kv in sorted(env_params(res).items())),
        res.commit_hash[:8],
        res.env_name,
    )


def default_machine(results_dir):
    machines = asv_results.machines(results_dir)
    if len(machines) != 1:
        raise SelectionError("results for %s: choose one with --machine" % (", ".join(machines) or "no machine"))
    return machines[0]


def select(results_dir, machine, a, b, commit=None):
    """(commit, Results for A, Results for B): the newest commit (or ``commit``) that has both."""
    filters = [parse_filter(a), parse_filter(b)]
    results = asv_results.runs(results_dir, machine, commit)
    if not results:
        raise SelectionError(
            "no results for machine %s%s in %s" % (machine, " at commit %s" % commit if commit else "", results_dir)
        )

    def matching(wanted, pool):
        return [r for r in pool if all(str(env_params(r).get(k)) == v for k, v in wanted.items())]

    for text, wanted in zip((a, b), filters):
        if not matching(wanted, results):
            raise SelectionError(
                "%s selects no environment; the candidates are:\n%s"
                % (text, "\n".join(sorted(set(map(describe, results)))))
            )
    newest_first = sorted(set((r.date or 0, r.commit_hash) for r in results), reverse=True)
    for _, commit_hash in newest_first:
        at_commit = [r for r in results if r.commit_hash == commit_hash]
        picked = [matching(wanted, at_commit) for wanted in filters]
        if not all(picked):
            continue
        for text, found in zip((a, b), picked):
            if len(found) > 1:
                raise SelectionError(
                    "%s is ambiguous at commit %s: add key=value pairs to pick one of\n%s"
                    % (text, commit_hash[:8], "\n".join(map(describe, found)))
                )
        if picked[0][0].env_name == picked[1][0].env_name:
            raise SelectionError("%s and %s select the same environment:\n%s" % (a, b, describe(picked[0][0])))
        return commit_hash, picked[0][0], picked[1][0]
    raise SelectionError(
        "no commit has results for both %s and %s; the candidates are:\n%s"
        % (a, b, "\n".join(sorted(set(map(describe, matching(filters[0], results) + matching(filters[1], results))))))
    )


def _resultset(res, benchmarks, machine):
    # Compare.print_table's row format; one shared environment label so that both sides join by name.
    for key in sorted(res.get_result_keys(benchmarks)):
        params = res.get_result_params(key)
        yield (
            key,
            params,
            res.get_result_value(key, params),
            res.get_result_stats(key, params),
            res.get_result_samples(key, params),
            res.benchmark_version.get(key),
            machine,
            "compare-versions",
        )


def compare(results_dir, a, b, machine=None, commit=None, factor=1.1, only_changed=False):
    machine = machine or default_machine(results_dir)
    commit_hash, before, after = select(results_dir, machine, a, b, commit)
    benchmarks = asv_results.benchmarks(results_dir)
    print("before: %s = %s" % (a, before.env_name))
    print("after:  %s = %s" % (b, after.env_name))
    print(
        "machine %s, commit %s; + slower, - faster, ~ a difference asv does not find significant"
        % (machine, commit_hash[:8])
    )
    kinds = text_change(before.params, after.params)
    if kinds:
        print(
            "not like with like: the %s variants' %s (pandas %s → %s), so their rows compare two different "
            "frames" % (" and ".join(TEXT_VARIANTS), kinds, before.params.get("pandas"), after.params.get("pandas"))
        )
    Compare.print_table(
        asv_results.config(results_dir),
        commit_hash,
        commit_hash,
        factor=factor,
        split=False,
        resultset_1=_resultset(before, benchmarks, machine),
        resultset_2=_resultset(after, benchmarks, machine),
        machine=machine,
        only_changed=only_changed,
        commit_names={},
    )
    for label, res in (("before", before), ("after", after)):
        print("%s: %s" % (label, sample_counts(res, benchmarks)))
    print()
    print(chain_verdict(results_dir, machine, before, after))


def chain_verdict(results_dir, machine, before, after, config_path=CURATED_CONFIG):
    """What the step caller says of the pair: the steps it calls where the two environments are
    neighbours in ``config_path``'s chains (``dsib_tools.steps``, as the release view lists them),
    or that no change between them is credited to one library."""
    from . import chains, steps
    from .matrix import entries as config_entries

    entries = config_entries(config_path)

    def index(res):
        found = [i for i, e in enumerate(entries) if chains.ran_in(e, res.params)]
        return found[0] if found else None

    i, j = index(before), index(after)
    if i is None or j is None or abs(i - j) != 1:
        changed = ", ".join(
            "%s %s → %s" % (k, before.params.get(k) or "absent", after.params.get(k) or "absent")
            for k in sorted(set(before.params) | set(after.params))
            if before.params.get(k) != after.params.get(k)
        )
        return (
            "Not neighbours in the chains of %s: the two environments differ in %s, so no change above is "
            "credited to one library (python -m dsib_tools table steps lists the steps that are)."
            % (config_path, changed)
        )
    judged, _, _ = steps.judge_results(results_dir, machine, config_path, PUBLISHED_PROFILE)
    (pair,) = [p for p in judged if {p.step.before, p.step.after} == {i, j}]
    found = [c for c in pair.cells.values() if c.way]
    lines = [
        "A step of the chains: %s (%s). Called beyond the environments' noise: %d of %d cells%s"
        % (
            pair.label,
            "in chain order" if i < j else "the table reads it backwards",
            len(found),
            len(pair.cells),
            ":" if found else ".",
        )
    ]
    return "\n".join(lines + ["- " + steps.describe_call(pair, c) for c in found])


def sample_counts(res, benchmarks):
    """How many samples stand behind the table's figures of ``res``: asv's ± is half their
    interquartile range, and a figure of one sample has none."""
    counts = [c["stats"].get("repeat") or 1 for c in asv_results.cells(res, benchmarks) if c["stats"]]
    if not counts:
        return "no sampled figures"
    single = sum(1 for n in counts if n == 1)
    return "%d figures of %s samples each (± is half their interquartile range)%s" % (
        len(counts),
        "%d" % min(counts) if min(counts) == max(counts) else "%d–%d" % (min(counts), max(counts)),
        "; %d of one sample, whose ± says nothing" % single if single else "",
    )
