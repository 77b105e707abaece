"""The commands of ``python -m dsib_tools``, a module per group: ``tables`` (the Markdown tables the
documentation generates from results and records), ``site`` (the published pages), ``runs`` (a run's
configuration, machine, servers and results) and ``gates`` (compare, its noise floor and the audit).

Each module's ``COMMANDS`` maps a command's name ("GROUP COMMAND" for a group's) to the function
that adds its parser to argparse's subparsers and sets ``func``, the function that runs it;
``dsib_tools.__main__`` builds the parser from them, a group's under the group's, and dispatches.
"""
