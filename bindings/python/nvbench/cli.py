"""The nvbench command (console script and python -m nvbench).

Exit status: 0 success; 2 bad input (a refused workload: the library's
message names the key and the value); 1 any other failure; 130 interrupted
(SIGINT, Ctrl-C) and 143 terminated (SIGTERM: timeout, systemd, docker
stop). Either signal cancels the run in progress cleanly (in-flight I/O
drained, scratch files and temporary directories removed) and the partial
result is still printed and written where --json asks.
"""
import argparse
import contextlib
import json
import os
import sys
import warnings

from . import __version__, _nvbench, core, fio_job, mpi
from ._devices import devices
from ._printable import json_text, printable
from ._progress import Bar
from ._signals import sigterm_cancels
from .core import _run_workload
from .errors import NvbenchError, NvbenchWarning, Terminated, verify_failure
from .matrix import _fitting_engines, _seed_cells, seed_matrix
from .resultset import ResultSet
from ._summary import summary
from ._warnings import grouped
from . import _compare_cli, _doctor_cli, _fio_check_cli, _gate_cli, _search_cli, _store_cli
from ._watch import Watch, add_live_args, live_of, rank_live, rank_points, rank_streams, rank_watch, watchers
from ._cli_common import EXIT_FAIL, EXIT_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED, _err, _n



def _status_of(e):
    return EXIT_INPUT if e.is_input_error else EXIT_FAIL


def _stopped_by(e):
    """The exit status and the word for a KeyboardInterrupt or Terminated."""
    if isinstance(e, Terminated):
        return EXIT_TERMINATED, "terminated (SIGTERM)"
    return EXIT_INTERRUPTED, "interrupted"


def _warn(results):
    """Every warning of the results on stderr, each once (_warnings.grouped)."""
    for line in grouped(results):
        _err("warning: " + line)


def _progress_wanted(args):
    return not args.no_progress and sys.stderr.isatty()


def _save_json(results, path):
    ResultSet(list(results)).save(path)


# ------------------------------------------------------------------ engines

def cmd_engines(args):
    rows = [(n, "yes" if ok else "no", why) for n, (ok, why) in core.engines().items()]
    if args.json:
        print(json.dumps([{"name": n, "available": a == "yes", "reason": w} for n, a, w in rows], indent=2))
        return EXIT_OK
    width = max(len(r[0]) for r in rows)
    print(f"{'engine':<{width}}  available  reason")
    for n, a, why in rows:
        print(f"{n:<{width}}  {a:<9}  {printable(why)}".rstrip())
    return EXIT_OK


# ------------------------------------------------------------------ devices

def _fmt_bytes(n):
    if not isinstance(n, int) or n <= 0:
        return "-"
    for unit, shift in (("T", 40), ("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f}{unit}"
    return str(n)


def _device_notes(d):
    notes = []
    if d.get("busy"):
        notes.append(f"busy: {d['busy']}")
    # what --json has and the table hid: the file behind a loop device and
    # what the device holds (a file system, a partition table, ...)
    if d.get("backing_file"):
        notes.append(f"backed by {d['backing_file']}")
    sig = d.get("signature") or {}
    if sig.get("type"):
        what = sig["type"] + (f" '{sig['label']}'" if sig.get("label") else "")
        notes.append(f"holds {what}" + (f" ({sig['usage']})" if sig.get("usage") else ""))
    nv = d.get("nvme") or {}
    for c in nv.get("controllers") or []:
        pcie = c.get("pcie") or {}
        cur, top = pcie.get("current_link_speed_gts"), pcie.get("max_link_speed_gts")
        w, wmax = pcie.get("current_link_width"), pcie.get("max_link_width")
        if cur and w:
            link = f"PCIe {cur:g} GT/s x{w}"
            if (top and cur < top) or (wmax and w < wmax):
                link += f" (max {top:g} GT/s x{wmax})"
            notes.append(link)
    iu = d.get("indirection_unit")
    if iu:
        notes.append(f"IU {_fmt_bytes(iu)} ({d.get('indirection_unit_source')})")
    return "; ".join(notes)


def cmd_devices(args):
    devs = devices(args.sysfs_root)
    if args.json:
        print(json.dumps(devs, indent=2))
        return EXIT_OK
    if not args.all:
        devs = [d for d in devs if not d.get("hidden") and d.get("kind") != "partition"]
    if not devs:
        print("no block devices")
        return EXIT_OK
    # A device's model string is whatever its firmware reports: shown escaped.
    rows = [tuple(printable(c) for c in (
                d.get("path") or d.get("name"), d.get("kind") or "", _fmt_bytes(d.get("size")),
                str(d.get("logical_block_size") or "-"), (d.get("model") or "").strip(), _device_notes(d)))
            for d in devs]
    head = ("device", "kind", "size", "lbs", "model", "notes")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(5)]
    for r in [head] + rows:
        print(("  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5]).rstrip())
    return EXIT_OK


# ---------------------------------------------------------------------- run

def _split_run_args(items):
    keys, targets = [], []
    for it in items:
        if "=" in it and not it.startswith(("/", ".")):
            k, v = it.split("=", 1)
            keys.append((k, v))
        else:
            targets.append(it)
    return keys, targets


def _twice(keys):
    """The message for a key given twice (which value would count?), or None."""
    seen = {}
    for k, v in keys:
        if k in seen:
            return f"key '{k}' given twice ('{seen[k]}' and '{v}'): give each key once"
        seen[k] = v
    return None


# `--group` in `nvbench run`'s arguments, as main() passes it on among the
# items: a NUL cannot be part of any argument, so no target is taken for it.
GROUP_MARK = "\0group"


def _run_groups_of(items):
    """[(keys, targets)] per group: the items before the first --group apply
    to every group (a group's own key wins, its targets are added), each
    --group starts one. Without --group, one group of all the items."""
    parts = [[]]
    for it in items:
        if it == GROUP_MARK:
            parts.append([])
        else:
            parts[-1].append(it)
    shared_keys, shared_targets = _split_run_args(parts[0])
    if len(parts) == 1:
        return [(shared_keys, shared_targets)]
    out = []
    for p in parts[1:]:
        keys, targets = _split_run_args(p)
        own = {k for k, _ in keys}
        out.append(([kv for kv in shared_keys if kv[0] not in own] + keys, shared_targets + targets))
    return out


def _run_workloads(groups):
    """One Workload per group, or (None, message, status)."""
    ws = []
    for i, (keys, targets) in enumerate(groups):
        where = f"group {i + 1}: " if len(groups) > 1 else ""
        if _twice(keys):
            return None, where + _twice(keys), EXIT_INPUT
        w = _nvbench.Workload()
        try:
            for k, v in sorted(keys, key=lambda kv: kv[0] != "engine"):
                w.set(k, v)
            for t in targets:
                w.add_target(t)
            if not targets:  # the null engine and io_uring.nop=1 need none; the library says who does
                w.validate()
        except NvbenchError as e:
            return None, where + e.strerror, _status_of(e)
        ws.append(w)
    return ws, None, EXIT_OK


def cmd_run(args):
    if args.fio:
        return _run_fio(args)
    groups = _run_groups_of(args.items)
    ws, why, status = _run_workloads(groups)
    if ws is None:
        _err(why)
        return status
    keys = groups[0][0]
    w = ws[0] if len(ws) == 1 else ws
    live = live_of(args)
    if isinstance(live, int):
        return live
    bar = Bar(1, enabled=_progress_wanted(args))
    points = _store_cli.point_writer(args)
    label = " ".join(f"{k}={v}" for k, v in keys) if len(ws) == 1 else f"{len(ws)} job groups"
    try:
        progress, point = watchers(live, points, bar.callback(0, label), label)
        text, r = _run_workload(w, progress=progress, raw=True, point=point)
    except (KeyboardInterrupt, Terminated) as e:
        bar.close()
        status, word = _stopped_by(e)
        _err(word + ("; the result below is partial" if getattr(e, "result_json", None) else ""))
        _emit_partial(e, args)
        _store_cli.saved(args, [], status, points)
        return status
    except NvbenchError as e:
        bar.close()
        _err(e.strerror)
        _emit_partial(e, args)
        _store_cli.saved(args, [], status, points)
        return _status_of(e)
    finally:
        bar.close()
        if live is not None:
            live.close()
    if points is not None:
        points.done(r)
    if _json_out(args):
        _write_json(text)
    else:
        sys.stdout.write(summary(r.data))
    _warn([r])
    if args.json:
        _save_json([r], args.json)
    return _store_cli.saved(args, [r], _verify_status([r]), points)


def _json_out(args):
    """JSON or the summary on stdout: --print-json and --summary say which; otherwise the
    summary on a terminal, the JSON piped (`| tee log` with --summary keeps the summary)."""
    if args.print_json or args.summary:
        return bool(args.print_json)
    return not sys.stdout.isatty()


def _verify_status(results):
    """Bad data read back (verify=1) is a failure, once the results are out."""
    bad = [why for why in (verify_failure(r.data) for r in results) if why]
    for why in bad:
        _err(f"verify failed: {why}")
    return EXIT_FAIL if bad else EXIT_OK


def _run_fio(args):
    """run --fio JOBFILE: each step of the job file, the results as {"results": [...]}."""
    # the one key a job file cannot say: fio writes a device when told to,
    # nvbench only with allow_destructive=1 (docs/devices.md)
    allow = [i for i in args.items if i.partition("=")[0] == "allow_destructive"]
    if len(allow) != len(args.items) or len(allow) > 1:
        _err("run --fio takes the job file only (and allow_destructive=1, to let it write a block device): its "
             "targets and options come from it")
        return EXIT_INPUT
    run_kwargs = {"allow_destructive": allow[0].partition("=")[2]} if allow else {}
    try:
        steps = fio_job.from_fio_job(args.fio, lenient=args.fio_lenient)
        fio_job.check(steps, args.fio_lenient, **run_kwargs)
    except fio_job.FioJobError as e:
        _err(str(e))
        return EXIT_INPUT
    live = live_of(args)
    if isinstance(live, int):
        return live
    bar, results, status = Bar(len(steps), enabled=_progress_wanted(args)), [], EXIT_OK
    points = _store_cli.point_writer(args)
    try:
        for i, step in enumerate(steps):
            label = "+".join(w["fio"]["section"] for w in step)
            progress, point = watchers(live, points, bar.callback(i, label), label, i, len(steps))
            results.append(fio_job.run_step(step, progress=progress, point=point, **run_kwargs))
            if points is not None:
                points.save(results[-1])  # saved as it ends (its last points with it)
    except (KeyboardInterrupt, Terminated) as e:
        # the steps done and the cancelled one's partial result, as a finished job file's
        bar.close()
        status, word = _stopped_by(e)
        partial = getattr(e, "result", None)
        if partial is not None and not isinstance(partial, str):
            results.append(partial)
            if points is not None:
                points.done(partial)
        _err(f"{word} in step {len(results) if partial is not None else len(results) + 1} of {len(steps)}"
             + ("; the results below are partial" if results else ""))
        if not results:
            _store_cli.saved(args, [], status, points)
            return status
    except NvbenchError as e:
        # a step failed (an I/O error, a target changed since the check): the steps
        # done are still shown and saved, with the failed one's partial result
        bar.close()
        partial = getattr(e, "result", None)
        failed = len(results) + 1
        if partial is not None and not isinstance(partial, str):
            results.append(partial)
            if points is not None:
                points.done(partial)
        _err(f"step {failed} of {len(steps)} ({'+'.join(w['fio']['section'] for w in steps[failed - 1])}): "
             f"{e.strerror}" + ("; the results below are of the steps before it" if results else ""))
        status = _status_of(e)
        if not results:
            _store_cli.saved(args, [], status, points)
            return status
    finally:
        bar.close()
        if live is not None:
            live.close()
    rs = ResultSet(results)
    if _json_out(args):
        _write_json(rs.to_json(indent=1))
    else:
        sys.stdout.write("".join(summary(r.data) for r in results))
    _warn(results)
    if args.json:
        _save_json(results, args.json)
    return _store_cli.saved(args, results, status if status != EXIT_OK else _verify_status(results), points)


def _write_json(text):
    """The library's JSON to stdout, the same JSON value, with no control
    character a terminal would obey (a target name can hold any byte)."""
    text = json_text(text)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _emit_partial(e, args):
    text = getattr(e, "result_json", None)
    partial = getattr(e, "result", None)
    if getattr(args, "summary", False) and partial is not None and not isinstance(partial, str):
        sys.stdout.write(summary(partial.data))
    elif text:
        _write_json(text)
    if args.json and getattr(e, "result", None) is not None:
        _save_json([e.result], args.json)


# ------------------------------------------------------------------ mpi-run

def cmd_mpi_run(args):
    """One workload on every MPI rank (mpirun -n N nvbench mpi-run ...), merged."""
    keys, targets = _split_run_args(args.items)
    if _twice(keys):
        _err(_twice(keys))
        return EXIT_INPUT
    try:
        comm = mpi._comm(None)
    except ImportError as e:
        _err(str(e))
        return EXIT_FAIL
    root = comm.Get_rank() == 0
    live = rank_live(args, comm.Get_rank(), comm.Get_size(), mpi._host())
    if comm.allreduce(int(isinstance(live, int))):  # one rank cannot watch its run: none runs
        if live is not None and not isinstance(live, int):
            live.close()
        return EXIT_INPUT
    status, r = EXIT_OK, None
    points, point = rank_points(args, comm.Get_rank(), mpi._host())
    try:
        r = mpi.run(targets, comm=comm, progress=root and _progress_wanted(args),
                    _watch=rank_watch(live, point), **dict(keys))
    except KeyboardInterrupt as e:
        status, r = EXIT_INTERRUPTED, getattr(e, "result", None)
        if root:
            _err("interrupted" + ("; the figures below are partial" if r is not None else ""))
    except NvbenchError as e:
        status, r = _status_of(e), getattr(e, "result", None)
        if root:
            _err(e.strerror)
    finally:
        if live is not None:
            live.close()
    streams = rank_streams(comm, points, r)  # each rank's points, for rank 0 to link to the run it saves
    if root and r is not None:
        if args.print_json:
            print(json.dumps(r.data))
        else:
            sys.stdout.write(mpi.hosts_table(r))
        if args.json:
            _save_json([r], args.json)
        status = _store_cli.saved(args, [r], status, streams)  # the merged run, saved by rank 0
    return status


# ------------------------------------------------------------------- matrix

def _print_steady_states(rs):
    """One line per run judged for steady state (write cells with --steady-state)."""
    for r in rs:
        ss = r.data.get("steady_state")
        if not ss:
            continue
        where = printable(f"{r.meta.get('cell')} {r.meta.get('op')} {r.meta.get('engine')}")
        fig = ("-" if ss["mean"] is None else f"{ss['mean']:,.0f}", ss["max_excursion_pct"], ss["slope_pct"])
        if ss["reached"]:
            print(f"{where}: steady ({ss['metric']}) at {ss['at_s']:.1f} s, window mean {fig[0]}", file=sys.stderr)
        elif ss["mean"] is None or fig[1] is None:
            print(f"{where}: not steady ({ss['metric']}) in {r.data['duration_s']:.1f} s: no whole window",
                  file=sys.stderr)
        else:
            print(f"{where}: NOT steady ({ss['metric']}) in {r.data['duration_s']:.1f} s: last window mean {fig[0]}, "
                  f"excursion {fig[1]:.1f} %, slope {fig[2]:.1f} %", file=sys.stderr)


def _for_another_os(why):
    """Whether the library's reason for an unavailable engine is that it is built for the
    other operating system (engines/*.c, NVB__ENGINE_IF(NVB__WINDOWS/NVB__POSIX, ...))."""
    return why.startswith(("not on Windows", "Linux only") if sys.platform == "win32" else ("Windows only",))


def cmd_matrix(args):
    engines = None
    if args.engines:
        engines = [e.strip() for e in args.engines.split(",") if e.strip()]
        known = core.engines()
        for e in engines:
            if e not in known:
                _err(f"unknown engine '{e}' for --engines (known: {', '.join(known)})")
                return EXIT_INPUT
            if not known[e][0]:
                _err(f"engine '{e}' is not available here: {known[e][1]}")
                return EXIT_INPUT
    else:
        engines, unfit = _fitting_engines(args.target or None)
        # engines of the other operating system are one line: nothing to do about them here
        other_os = []
        for n, (ok, why) in core.engines().items():
            if not ok and _for_another_os(why):
                other_os.append(n)
            elif not ok:
                _err(f"engine {n} skipped: {why}")
        if other_os:
            _err(f"engines {', '.join(other_os)} are for another operating system (nvbench engines says which)")
        for n, why in unfit:
            _err(f"engine {n} skipped: {why}")
    if not engines:
        _err("no engine works here (see: nvbench engines)")
        return EXIT_FAIL
    extra = {"allow_destructive": 1} if args.allow_destructive else {}
    if args.interval:
        extra["interval"] = args.interval
    steady = None
    if args.steady_state:
        steady = {"metric": args.steady_state, "window": args.ss_window, "runtime": args.ss_runtime}
    elif args.ss_window or args.ss_runtime:
        _err("--ss-window and --ss-runtime need --steady-state")
        return EXIT_INPUT
    target_desc = ", ".join(args.target) if args.target else f"a {args.size} scratch file in a temporary directory"
    try:
        cells = _seed_cells(args.cells)
    except NvbenchError as e:
        _err(e.strerror)
        return EXIT_INPUT
    expected = len(cells) * len(engines) * args.repeat
    runtime = args.runtime + "s" if args.runtime.replace(".", "", 1).isdigit() else args.runtime
    print(f"nvbench {__version__}: seed matrix, {_n(len(engines), 'engine')} ({', '.join(engines)}) x "
          f"{_n(len(cells), 'cell')} x {_n(args.repeat, 'repeat')}, {runtime} each, qd {args.qd} requested "
          f"(a column marked (qd N) ran at N), "
          f"jobs {args.jobs}, on {printable(target_desc)}", file=sys.stderr)
    status = EXIT_OK
    partial = None
    watch = Watch.of(args, save=True)
    if isinstance(watch, int):
        return watch
    try:
        rs = seed_matrix(targets=args.target or None, engines=engines, runtime=args.runtime, qd=args.qd,
                         cells=args.cells, jobs=args.jobs, repeat=args.repeat, size=args.size,
                         precondition=args.precondition, steady_state=steady,
                         progress=_progress_wanted(args), on_error="warn", _watch=watch, **extra)
    except (KeyboardInterrupt, Terminated) as e:
        status, word = _stopped_by(e)
        rs = getattr(e, "results", None)
        partial = getattr(e, "result", None)
        _err(f"{word} after {len(rs) if rs is not None else 0} of {expected} runs; the temporary files are removed")
    except NvbenchError as e:
        _err(e.strerror)
        _store_cli.saved(args, [], EXIT_FAIL, watch.close())
        return _status_of(e)
    points = watch.close()
    if rs is None:
        rs = ResultSet()
    if status == EXIT_OK and len(rs) < expected:
        _err(f"{expected - len(rs)} of {expected} runs failed (see above)")
        status = EXIT_FAIL
    if args.json:
        saved = list(rs) + ([partial] if partial is not None and not isinstance(partial, str) else [])
        _save_json(saved, args.json)
    status = _store_cli.saved(args, list(rs), status, points)
    _warn(rs)
    if len(rs):
        _print_steady_states(rs)
        try:
            print(rs.table())
            if args.csv:
                rs.to_csv(args.csv)
            _save_plots(rs, [(k, f) for k, f in (("bars", args.plot), ("latency", args.plot_latency),
                                                  ("efficiency", args.plot_efficiency)) if f])
        except ImportError as e:
            _err(f"{e} (the table, CSV and plots need the analysis extras: numpy, pandas, matplotlib)")
            return EXIT_FAIL
    return status


def _save_plots(rs, wanted):
    """Each plot to exactly the file named for it (--plot, --plot-latency,
    --plot-efficiency): nothing is written that was not asked for."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    saved = []
    for kind, out in wanted:
        fig = rs.plot(kind=kind)
        fig.savefig(out, bbox_inches="tight")
        saved.append(out)
        try:
            import matplotlib.pyplot as plt
            plt.close(fig)
        except ImportError:
            pass
    if saved:
        print(printable("plots: " + ", ".join(saved)), file=sys.stderr)


# --------------------------------------------------------------------- main

def _precondition_arg(text):
    """matrix --precondition: a number of sequential passes (>= 0) or "random"."""
    if text == "random":
        return text
    try:
        v = int(text)
    except ValueError:
        v = -1
    if v < 0:
        raise argparse.ArgumentTypeError(f"invalid value '{text}': expected a number of passes (>= 0) or 'random'")
    return v


def _positive_int(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid value '{text}': expected a positive integer")
    if v < 1:
        raise argparse.ArgumentTypeError(f"invalid value '{text}': expected a positive integer")
    return v


def _keys_help():
    """The workload keys from the library's own table (never a copy), by group,
    each with its fio name where fio has one."""
    rows = _nvbench.key_table(engines=True)
    width = max(len(r["name"]) for r in rows)
    kind = max(len(r["type"]) for r in rows)
    groups = {}
    for r in rows:
        groups.setdefault(r["group"], []).append(r)
    lines = ["workload keys (docs/api.md has every key in full and examples; docs/engines.md the engines'):"]
    for group, keys in groups.items():
        lines.append(f" {group}:")
        for r in keys:
            fio = f" [fio: {r['fio']}]" if r["fio"] and r["fio"] != r["name"] else ""
            lines.append(f"  {r['name']:<{width}}  {r['type']:<{kind}}  {r['help']}{fio}")
    return "\n".join(lines)


class _Parser(argparse.ArgumentParser):
    """argparse quotes the arguments it refuses (a target path, a file name):
    shown escaped, never obeyed. Subcommands' parsers are of this class too."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_INPUT, f"{self.prog}: error: {printable(message)}\n")


def build_parser():
    p = _Parser(
        prog="nvbench",
        description="Measure what NVMe drives and the storage stack deliver, and at what CPU cost.",
        epilog="Exit status: 0 success, 2 bad input, 1 other failures, 130 interrupted (SIGINT), "
               "143 terminated (SIGTERM).")
    p.add_argument("--version", action="version", version=f"nvbench {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    s = sub.add_parser("engines", help="list the I/O engines and whether they work here")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_engines)

    s = sub.add_parser("devices", help="list block devices: size, block sizes, NVMe and PCIe link, in-use state")
    s.add_argument("--json", action="store_true", help="print the library's JSON (docs/devices.md)")
    s.add_argument("--all", action="store_true", help="include partitions and hidden multipath paths")
    s.add_argument("--sysfs-root", metavar="DIR", help="a recorded sysfs tree instead of this machine")
    s.set_defaults(func=cmd_devices)

    s = sub.add_parser("run", help="run one workload and print its summary or JSON result",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Run one workload: KEY=VALUE pairs (engine=io_uring rw=randread bs=4k "
                                   "qd=32 runtime=2s io_uring.sqpoll=1) and targets (files, block devices, "
                                   "directories). On a terminal a summary goes to stdout; piped, or with "
                                   "--print-json, the JSON result; --summary prints the summary wherever "
                                   "stdout goes. Warnings go to stderr. "
                                   "Several workloads at once (job groups): each --group starts the "
                                   "KEY=VALUE pairs and targets of one group; what comes before the first "
                                   "--group applies to every group (run engine=io_uring runtime=10 "
                                   "/dev/nvme0n1 --group name=reader rw=randread --group name=writer "
                                   "rw=write bs=128k).",
                       epilog=_keys_help())
    s.add_argument("items", nargs="*", metavar="KEY=VALUE|TARGET")
    s.add_argument("--json", metavar="F", help="also save {\"results\": [...]} to F")
    out = s.add_mutually_exclusive_group()
    out.add_argument("--print-json", action="store_true", help="print the JSON result, even on a terminal")
    out.add_argument("--summary", action="store_true",
                     help="print the summary, even piped (nvbench run --summary ... | tee log)")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_live_args(s, "; '-' is stdout, where a piped result follows as the last line")
    s.add_argument("--fio", metavar="JOBFILE", help="run a fio job file (docs/fio-jobs.md); JSON: {\"results\": [...]}")
    s.add_argument("--fio-lenient", action="store_true",
                   help="with --fio: leave out options nvbench cannot honour, each a warning in the results")
    s.set_defaults(func=cmd_run)
    _store_cli.add_save_args(s)

    s = sub.add_parser("mpi-run", help="under mpirun: one workload on every rank, merged exactly",
                       description="Under MPI (mpirun -n 4 nvbench mpi-run KEY=VALUE... TARGET_TEMPLATE...): "
                                   "every rank runs the workload on its own targets, all start together, and "
                                   "rank 0 prints the merged result (exact sums and percentiles) with one line "
                                   "per host. Templates expand {rank}, {size} and {host}: "
                                   "/scratch/{host}/r{rank}. Needs mpi4py (python3-mpi4py).")
    s.add_argument("items", nargs="+", metavar="KEY=VALUE|TARGET_TEMPLATE")
    s.add_argument("--json", metavar="F", help="save {\"results\": [merged]} to F (rank 0)")
    s.add_argument("--print-json", action="store_true", help="print the merged JSON instead of the table")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_live_args(s, "; every rank writes its own points, each line naming its rank: FILE names each "
                     "rank's with {rank} ({host}, {size}), or '-'; --metrics: each rank on PORT + its rank")
    s.set_defaults(func=cmd_mpi_run)
    _store_cli.add_save_args(s)

    s = sub.add_parser("matrix", help="run the published seed matrix and print the seed table",
                       description="The published 8-cell matrix (random 4K/64K, sequential 64K/128K; "
                                   "read and write) over every available engine, on a scratch file "
                                   "laid out once in a temporary directory unless --target is given.")
    s.add_argument("--target", action="append", metavar="PATH",
                   help="file, block device or directory (repeatable); default: a temporary scratch file")
    s.add_argument("--engines", metavar="A,B", help="engines to compare (default: every available one but null)")
    s.add_argument("--cells", metavar="A,B", help="cells to run: rand4k_read, seq128k_write, ... or rand4k "
                                                  "(both directions); default all eight")
    s.add_argument("--runtime", default="2s", metavar="S", help="per cell: 2, 500ms, 2s (default 2s)")
    s.add_argument("--repeat", type=_positive_int, default=1, metavar="N", help="sweeps of the matrix (default 1)")
    s.add_argument("--qd", type=_positive_int, default=32, metavar="N", help="queue depth per job (default 32)")
    s.add_argument("--jobs", type=_positive_int, default=1, metavar="N", help="worker threads (default 1)")
    s.add_argument("--size", default="512M", metavar="SIZE", help="scratch file size (default 512M)")
    s.add_argument("--allow-destructive", action="store_true", help="permit writes to block device targets")
    s.add_argument("--precondition", type=_precondition_arg, default=None, metavar="N|random",
                   help="write cells: N sequential write passes over the target first, or 'random' (one "
                        "pass with planned invalidation, sprandom.* keys), not counted (docs/steady-state.md)")
    s.add_argument("--steady-state", choices=("iops", "bw", "lat"), default=None, metavar="METRIC",
                   help="write cells: run until steady on iops, bw or lat (--runtime, or --ss-runtime, caps them)")
    s.add_argument("--ss-window", metavar="DUR", help="steady-state window (default: 5 intervals)")
    s.add_argument("--ss-runtime", metavar="DUR", help="write cells' cap while waiting for steady state")
    s.add_argument("--interval", metavar="DUR", help="time-series interval: one steady-state round (default 1s)")
    s.add_argument("--json", metavar="F", help="save {\"results\": [...]}, one entry per run")
    s.add_argument("--csv", metavar="F", help="save a CSV table (one row per run)")
    s.add_argument("--plot", metavar="F.png", help="save the grouped bars (IOPS, bandwidth, latency, CPU)")
    s.add_argument("--plot-latency", metavar="F.png", help="save the latency percentiles per cell")
    s.add_argument("--plot-efficiency", metavar="F.png", help="save IOPS per core and CPU per I/O")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_live_args(s, "; '-' is stdout")
    s.set_defaults(func=cmd_matrix)
    _store_cli.add_save_args(s)

    s = sub.add_parser("report", help="write one self-contained HTML report of saved results",
                       description="One HTML file to share, readable without network access: the "
                                   "seed tables with the published figures beside the cells that "
                                   "match, the comparison of the stacks with confidence intervals, "
                                   "latency percentiles and time series, the machine and device "
                                   "facts, every warning, and the nvbench run command of each run. "
                                   "A stack found in several files is labelled with each file's name.")
    s.add_argument("files", nargs="*", metavar="RESULTS.json",
                   help="saved results: nvbench matrix/run --json, ResultSet.save, fio JSON")
    s.add_argument("--db", metavar="DB",
                   help="add a trend view of a store's runs (each metric over time per host and stack); "
                        "without files the report is of those runs (docs/history.md)")
    s.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                   help="with --db: only the runs whose field is VALUE (as nvbench history)")
    s.add_argument("--last", type=int, metavar="N", help="with --db: the newest N runs")
    s.add_argument("-o", "--output", default="report.html", metavar="FILE.html",
                   help="where to write it (default report.html)")
    s.add_argument("--title", help="the page's title (default: nvbench report)")
    s.add_argument("--baseline", metavar="STACK",
                   help="stack the others are compared against (default libaio, else the first)")
    s.add_argument("--no-reference", action="store_true", help="leave the published figures out")
    s.add_argument("--four-stacks", action="store_true",
                   help="the files are LINUX WIN-NATIVE WIN-NONNATIVE: the published four columns, as "
                        "nvbench compare --table makes them (docs/reproduce.md)")
    s.set_defaults(func=_compare_cli.cmd_report)

    s = sub.add_parser("compare", help="compare two saved result files (A is the baseline)",
                       description="B against A, per stack they share (or their one stack each), cell by "
                                   "cell: both means, the change and its confidence interval. With --table: "
                                   "the published four-column table (Win non-native, Win native, Linux "
                                   "libaio, Linux io_uring) from LINUX.json WIN-NATIVE.json "
                                   "WIN-NONNATIVE.json (docs/reproduce.md).")
    s.add_argument("files", nargs="+", metavar="FILE.json", help="A.json B.json, or the three files of --table")
    s.add_argument("--table", action="store_true",
                   help="the four-column table of LINUX WIN-NATIVE WIN-NONNATIVE (each Windows file's "
                        "engine_used.stack must be its stack, detected or stated)")
    s.add_argument("--windows-engine", choices=("iocp", "ioring", "wsync"), default=None,
                   help="--table: the Windows engine of the Windows columns (default iocp, else ioring, else wsync)")
    s.add_argument("--report", metavar="FILE.html", help="--table: also write the HTML report of the four columns")
    s.add_argument("--title", help="--table --report: the page's title")
    s.add_argument("--label", nargs=2, metavar=("NAME_A", "NAME_B"), help="names for the two files in the output")
    s.add_argument("--stack", nargs=2, metavar=("STACK_A", "STACK_B"),
                   help="the stack of each file (e.g. linux-io_uring windows-native): compares two files "
                        "whose engines differ")
    s.add_argument("--force", action="store_true",
                   help="compare even when the workloads differ in more than the stack (qd, jobs, ...) "
                        "or the environments in what changes the figures (scheduler, governor, poll "
                        "queues, mitigations, the jobs' NUMA node)")
    s.set_defaults(func=_store_cli.with_store_queries(_compare_cli.cmd_compare))
    _store_cli.add_query_args(s)

    _doctor_cli.add_parser(sub)
    _search_cli.add_parser(sub, run_args=_split_run_args, twice=_twice, err=_err, exit_ok=EXIT_OK,
                           exit_input=EXIT_INPUT, stopped_by=_stopped_by, terminated=Terminated)
    _store_cli.add_parsers(sub)
    _gate_cli.add_parser(sub)
    _fio_check_cli.add_parser(sub)
    return p


def main(argv=None):
    parser = build_parser()
    # KEY=VALUE pairs and targets of `run` may come on either side of its
    # options (run bs=4k --json out.json /dev/nvme0n1).
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "run":
        # `run ... --group KEY=VALUE... --group ...`: a separator among the items
        argv = [GROUP_MARK if a == "--group" else a for a in argv]
    args, extra = parser.parse_known_args(argv)
    # The library's warnings are printed as "nvbench: warning: ..." lines by
    # each command (_warn), once each: not a second time by Python.
    warnings.simplefilter("ignore", NvbenchWarning)
    if extra:
        if getattr(args, "command", None) in ("run", "mpi-run", "search") and not any(x.startswith("-") for x in extra):
            args.items = list(args.items) + extra
        else:
            parser.error("unrecognized arguments: " + " ".join(extra))
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_INPUT
    try:
        # SIGTERM, like Ctrl-C, unwinds the command: the run is cancelled,
        # the scratch files go, the partial result is printed (143). Not
        # mpi-run: mpirun turns Ctrl-C into SIGTERM to every rank, and
        # nvbench.mpi makes that an interruption all ranks agree on.
        guard = contextlib.nullcontext() if args.func is cmd_mpi_run else sigterm_cancels()
        with guard:
            return args.func(args)
    except (KeyboardInterrupt, Terminated) as e:
        status, word = _stopped_by(e)
        _err(word)
        return status
    except NvbenchError as e:
        _err(e.strerror)
        return _status_of(e)
    except BrokenPipeError:
        # stdout closed early (| head): not an error of ours
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except OSError as e:  # writing --json/--csv/--plot, reading inputs
        _err(str(e))
        return EXIT_FAIL
    except ValueError as e:  # e.g. a file that is not an nvbench/fio result
        _err(str(e))
        return EXIT_INPUT
    except ImportError as e:
        _err(f"{e} (the analysis features need numpy, pandas, matplotlib: nvbench[analysis])")
        return EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main())
