"""`nvbench fio-check JOBFILE`: what a fio job file maps to, without running anything.

For each workload of each step: the nvbench keys and the fio option each came from, its
targets, the mapping's notes; what would be refused and why (strict), or with
``--fio-lenient`` what would be left out. Every step is then planned by the library as
`run --fio` plans it (nvb_groups_validate), so a refusal there shows too. Exit 0 when
`run --fio` (with the same --fio-lenient) would start, 2 when it would refuse.
"""
from __future__ import annotations

from . import fio_job
from ._cli_common import EXIT_INPUT, EXIT_OK
from ._printable import printable


def _show(steps):
    for i, step in enumerate(steps, 1):
        for w in step:
            targets, keys = fio_job.workload_args(w)
            print(printable(f"step {i} [{w['fio']['section']}]"
                            + (f" on {', '.join(targets)}" if targets else " (no target)")))
            width = max(len(f"{k}={v}") for k, v in keys.items())
            for k, v in keys.items():
                print(printable(f"  {k}={v}".ljust(width + 4) + f"from {w['fio']['origin'].get(k, k)}"))
            for t in w["fio"]["warnings"]:
                print(printable(f"  note: {t}"))


def cmd_fio_check(args):
    try:
        steps = fio_job.from_fio_job(args.jobfile, lenient=args.fio_lenient)
    except fio_job.FioJobError as e:
        print(printable(f"refused: {e}"))
        if not args.fio_lenient:  # what else a lenient mapping would leave out
            try:
                _show(fio_job.from_fio_job(args.jobfile, lenient=True))
            except fio_job.FioJobError:
                pass
        return EXIT_INPUT
    _show(steps)
    try:
        fio_job.check(steps, args.fio_lenient)
    except fio_job.FioJobError as e:
        print(printable(f"refused when planned: {e}"))
        return EXIT_INPUT
    print(f"{sum(map(len, steps))} workload(s) in {len(steps)} step(s): run --fio would start")
    return EXIT_OK


def add_parser(sub):
    s = sub.add_parser("fio-check", help="show what a fio job file maps to and what is refused, running nothing")
    s.add_argument("jobfile", help="the fio job file")
    s.add_argument("--fio-lenient", action="store_true",
                   help="leave out what nvbench cannot honour (each with a note), as run --fio-lenient")
    s.set_defaults(func=cmd_fio_check)
