"""``nvbench search``: the latency-target search (nvbench.search) from the command line.
cli.py adds the parser (add_parser) and hands over its own helpers: how KEY=VALUE items and
targets are told apart, the message for a key given twice, how errors are printed, the
exit codes and the status of a Ctrl-C or SIGTERM, so that ``nvbench search`` reads its workload exactly as ``nvbench run`` does."""
import argparse
import json
import sys

from ._jsontext import write_text
from . import _store_cli
from ._watch import Watch, add_live_args
from .search import search

__all__ = ["add_parser"]


def cmd_search(args):
    cli = args.cli
    keys, targets = cli.run_args(args.items)
    if cli.twice(keys):
        cli.err(cli.twice(keys))
        return cli.exit_input
    # --live, --metrics and the store see each run as it goes on; each run is saved as it ends
    watch = Watch.of(args, save=True)
    if isinstance(watch, int):
        return watch
    vary = args.vary
    run = watch.runner(targets, lambda kw: f"{vary}={kw.get(vary, 'unthrottled')}")
    try:
        res = search(dict(keys), target=args.latency, vary=vary, start=args.start, max_qd=args.max_qd,
                     rel_tol=args.rel_tol, direction=args.direction, max_runs=args.max_runs, run=run)
    except ValueError as e:
        cli.err(str(e))
        return _store_cli.saved(args, [], cli.exit_input, watch.close())
    except (KeyboardInterrupt, cli.terminated) as e:
        # Ctrl-C or SIGTERM: the run in progress was cancelled (its scratch
        # file removed); the points completed before it are printed as a search.
        status, word = cli.stopped_by(e)
        res = getattr(e, "search", None)
        cli.err(word + ("; the search below is partial" if res is not None else ""))
        points = watch.close()
        if res is not None:
            _emit(res, args, cli)
        return _store_cli.saved(args, [p["result"] for p in res.points] if res else [], status, points)
    except BaseException:
        # a run failed (its message follows): the runs saved as they ended stay saved
        _store_cli.saved(args, [], cli.exit_ok, watch.close())
        raise
    points = watch.close()
    _emit(res, args, cli)
    return _store_cli.saved(args, [p["result"] for p in res.points], cli.exit_ok, points)


def _emit(res, args, cli):
    """The search on stdout (table or JSON), its warnings on stderr, --json and --plot."""
    if args.print_json:
        print(json.dumps(res.to_dict(), indent=2))
    else:
        sys.stdout.write(res.table())
    for line in res.warnings:
        cli.err("warning: " + line)
    if args.json:
        write_text(args.json, json.dumps(res.to_dict(), indent=2) + "\n")  # whole or not at all
    if args.plot and res.points:
        res.plot().savefig(args.plot)


def _int_at_least_1(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return v


def add_parser(sub, **cli):
    """The `search` subcommand; cli: run_args, twice, err, exit_ok, exit_input, stopped_by,
    terminated (see above)."""
    s = sub.add_parser("search", help="find the highest throughput whose latency percentile keeps a bound",
                       description="Latency-target search: runs the workload (KEY=VALUE pairs and targets, "
                                   "as for `nvbench run`) at growing queue depths (doubling, then bisection) "
                                   "or rates (bisection below the unthrottled rate) and prints each point "
                                   "(IOPS against the percentile) and the answer: the highest IOPS within "
                                   "the bound. Python: nvbench.search (docs/python.md).")
    s.add_argument("items", nargs="*", metavar="KEY=VALUE|TARGET")
    s.add_argument("--latency", required=True, metavar="BOUND",
                   help="the bound: p99<=1ms, p99.9<500us, mean<=200us (Python's target=)")
    s.add_argument("--vary", choices=("qd", "rate_iops"), default="qd", help="what the search varies (default qd)")
    s.add_argument("--start", type=_int_at_least_1, default=1, metavar="N", help="first qd (default 1)")
    s.add_argument("--max-qd", type=_int_at_least_1, default=1024, metavar="N", help="highest qd tried (default 1024)")
    s.add_argument("--rel-tol", type=float, default=0.05, metavar="F",
                   help="rate search: stop when the bracket is narrower than this share of it (default 0.05)")
    s.add_argument("--direction", choices=("read", "write"), default=None,
                   help="judge this direction's latency (default: the worst that did I/O)")
    s.add_argument("--max-runs", type=_int_at_least_1, default=24, metavar="N", help="at most N runs (default 24)")
    s.add_argument("--json", metavar="F", help="also save the search (points, answer, warnings) to F")
    s.add_argument("--print-json", action="store_true", help="print the search as JSON instead of the table")
    _store_cli.add_save_args(s)
    add_live_args(s, "; '-' is stdout")
    s.add_argument("--plot", metavar="F.png", help="save the curve (IOPS against the percentile, the bound drawn)")
    s.set_defaults(func=cmd_search, cli=argparse.Namespace(**cli))
    return s
