"""The commands that make the published site: asv's dashboard (``site publish``), dsib's pages
beside it (``site build``) and the chart library they load (``setup vendor-js``)."""

import os
import sys


def cmd_publish(args):
    from ..publish import publish

    for machine, env_name, lacking in publish(args.config, html_dir=args.html_dir, profile=args.profile):
        print(
            "left out of asv's graphs: %s %s (no results for %d benchmarks, e.g. %s)"
            % (machine, env_name, len(lacking), lacking[0])
        )
    return 0


def add_publish(sub):
    p = sub.add_parser(
        "publish",
        help="asv publish from a copy of the results without stale results or "
        "environments lacking a benchmark (whose graph pages would 404), then asv's pages fixed",
    )
    p.add_argument("--config", required=True, help="the asv config whose results_dir and html_dir to use")
    p.add_argument("--html-dir", default=None, help="default: the config's html_dir")
    p.add_argument("--profile", default=None, help="only the results at this profile (default: every profile's)")
    p.set_defaults(func=cmd_publish)


def cmd_site(args):
    """The report page of each ``--machine`` (the first's is the dsib page of asv's navigation bar,
    linked to the others'), and the release view of each, the first's the default."""
    from ..release_view import write
    from ..asv_results import NoResults
    from ..report_sections import grid_charts, page_sections, results_of
    from ..site import machine_page, write_page

    if args.published:
        from ..publish import published_machines

        args.machine = published_machines(args.results_dir)
    machines = args.machine or [None]
    pages = []
    for wanted in machines:
        try:
            pages.append(results_of(args.results_dir, wanted, args.env, args.commit))
        except NoResults as exc:
            if len(machines) == 1:
                print("error: %s" % exc, file=sys.stderr)
                return 1
            print("no page for machine %s: %s" % (wanted, exc))
            continue
        except ValueError as exc:  # an unreadable load log
            print("error: %s" % exc, file=sys.stderr)
            return 1
    if not pages:
        print(
            "error: none of the machines %s has results in %s for these filters"
            % (", ".join(machines), args.results_dir),
            file=sys.stderr,
        )
        return 1
    names = [results[0] for results, _ in pages]
    for i, (results, load) in enumerate(pages):
        others = [(name, os.path.relpath(machine_page(name, j == 0), "dsib")) for j, name in enumerate(names) if j != i]
        print(
            "wrote %s"
            % write_page(
                args.html_dir,
                page_sections(results, load),
                machine_page(names[i], i == 0),
                title="dsib report: machine %s" % names[i] if i else "dsib report",
                others=others,
                charts=grid_charts(*results[1:]),
            )
        )
    for path in write(args.html_dir, args.results_dir, *names):
        print("wrote %s" % path)
    print("make serve SITE=%s serves it on http://127.0.0.1:8080/ (opened from disk, asv's pages fail)" % args.html_dir)
    return 0


def add_site(sub):
    p = sub.add_parser("build", help="write html/dsib/ (report, releases) and link it from asv's site")
    p.add_argument("--results-dir", default="results")
    p.add_argument(
        "--machine",
        action="append",
        default=None,
        help="a machine whose report page to write (again for each other; default: the newest "
        "results' machine); the first's is the dsib page and has the release view",
    )
    p.add_argument(
        "--published",
        action="store_true",
        help="every machine of --results-dir, the reference machine (dsib_tools/publish.py) first: the published site",
    )
    p.add_argument("--env", default=None)
    p.add_argument("--commit", default=None)
    p.add_argument("--html-dir", default="html")
    p.set_defaults(func=cmd_site)


def cmd_vendor_js(args):
    from ..vendor_js import main

    return main(args)


def add_vendor_js(sub):
    p = sub.add_parser("vendor-js", help="fetch the pinned chart library from the npm registry (checked sha256)")
    p.set_defaults(func=cmd_vendor_js)


COMMANDS = {"site publish": add_publish, "site build": add_site, "setup vendor-js": add_vendor_js}
