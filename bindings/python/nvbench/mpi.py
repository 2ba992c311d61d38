"""Runs across many hosts under MPI, with exactly merged statistics.

Every MPI rank runs the same workload on its own targets; the ranks start
together at a barrier inside the library (after every rank has laid out its
scratch files and opened its targets), and rank 0 gathers the results and
merges them exactly (:func:`nvbench.merge`): counts add, latency histograms
add bucket by bucket, rates are over the merged window, and each host keeps
its own row (IOPS, bandwidth, p99, CPU per I/O, when its first and last job
finished) in ``result.hosts``.

    # mpirun -n 4 --host a,b,c,d python3 bench.py
    import nvbench.mpi
    r = nvbench.mpi.run("/scratch/{host}/nvbench", rw="randread", bs="4k", qd=32,
                        runtime=10, size="4G")
    if nvbench.mpi.rank() == 0:
        print(r.read.iops, r.read.lat_ns.p99)
        print(nvbench.mpi.hosts_table(r))

Targets, per rank: a template string (or a list of them) expanding
``{rank}``, ``{size}`` (ranks in the run) and ``{host}``; a dict by rank or
by host name (``{0: ["/dev/nvme0n1"], "node7": [...], "*": [...]}``); or a
callable ``f(rank, host) -> targets``.

mpi4py is imported only when a function here is called (it initialises MPI
at import); without it the call raises ImportError saying how to install
it. Every rank gets the same outcome: the merged Result, or the same
exception (NvbenchError naming each failing rank and its host; or
KeyboardInterrupt when a rank was interrupted, with ``.result``, the merged
partial figures).
"""

from __future__ import annotations

import errno as _errno
import json
import os
import signal
import socket
import sys
import threading
import warnings

from . import _nvbench, _progress, core
from ._printable import printable
from .core import labels
from .errors import NvbenchError, VerifyError, verify_failure
from .matrix import _describe, _plan_product
from ._percentile import pct_supported
from .merge import merge
from .metrics import unsupported_text
from .result import Result
from .resultset import ResultSet

__all__ = ["run", "matrix", "rank", "size", "hosts_table", "expand_targets"]

_TAG_STOP = 0x6e76  # a rank tells the others to stop: its run failed or was interrupted
_seq = 0            # runs so far in this process: stale stop messages are recognised by it


def _f2(v):
    """Two decimals, or "n/a" for a figure the result has no measurement of (null)."""
    return f"{v:.2f}" if isinstance(v, (int, float)) and v == v else "n/a"


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError(
            "nvbench.mpi needs mpi4py (and an MPI library): 'apt install python3-mpi4py openmpi-bin' "
            "on Debian/Ubuntu, or 'pip install mpi4py'; then start the program with mpirun") from e
    return MPI


def _comm(comm):
    return comm if comm is not None else _mpi().COMM_WORLD


def rank(comm=None):
    """This process's rank in comm (MPI.COMM_WORLD by default)."""
    return _comm(comm).Get_rank()


def size(comm=None):
    """Number of ranks in comm."""
    return _comm(comm).Get_size()


def _host():
    try:
        return _mpi().Get_processor_name()
    except Exception:  # pragma: no cover - MPI without a processor name
        return socket.gethostname()


def expand_targets(targets, rank, size, host):
    """The list of targets of one rank (see the module docstring for the forms)."""
    if targets is None:
        return []
    if callable(targets):
        targets = targets(rank, host)
    elif isinstance(targets, dict):
        for key in (rank, str(rank), host, "*"):
            if key in targets:
                targets = targets[key]
                break
        else:
            targets = []
    if isinstance(targets, (str, bytes, os.PathLike)):
        targets = [targets]
    out = []
    for t in targets or []:
        t = os.fspath(t)
        if isinstance(t, bytes):
            t = os.fsdecode(t)
        out.append(t.replace("{rank}", str(rank)).replace("{size}", str(size)).replace("{host}", host))
    return out


# --------------------------------------------------------------------------
# one run


class _Stop:
    """Stop messages between the ranks of one run."""

    def __init__(self, comm, seq):
        self.comm, self.seq = comm, seq
        self.MPI = _mpi()
        self.received = False
        self.sent = []

    def send(self):
        if self.sent or self.received:
            return
        for r in range(self.comm.Get_size()):
            if r != self.comm.Get_rank():
                self.sent.append(self.comm.isend(self.seq, dest=r, tag=_TAG_STOP))

    def poll(self):
        st = self.MPI.Status()
        while self.comm.iprobe(source=self.MPI.ANY_SOURCE, tag=_TAG_STOP, status=st):
            seq = self.comm.recv(source=st.Get_source(), tag=_TAG_STOP)
            if seq == self.seq:
                self.received = True
        return self.received

    def finish(self):
        for req in self.sent:
            req.wait()
        self.sent = []


class _Sigterm:
    """mpirun turns Ctrl-C into SIGTERM to every rank: make it a
    KeyboardInterrupt for the length of a run, so the run is cancelled
    cleanly and the partial results still merge."""

    def __enter__(self):
        self.old = None
        if threading.current_thread() is threading.main_thread():
            try:
                if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
                    self.old = signal.signal(signal.SIGTERM, signal.default_int_handler)
            except (ValueError, OSError):
                self.old = None
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            signal.signal(signal.SIGTERM, self.old)
        return False


def _failure_json(host, code, message):
    return json.dumps({"mpi_failure": True, "host": host, "errno": code, "message": message})


def _prepare(targets, comm, options, keys):
    """Build and validate this rank's workload; agree on success with every
    rank. Returns the Workload, or raises the same NvbenchError everywhere."""
    r, n, host = comm.Get_rank(), comm.Get_size(), _host()
    w, failure = None, None
    try:
        mine = expand_targets(targets, r, n, host)
        w = core.workload(*mine, options=options, **keys)
        w.validate()
    except NvbenchError as e:
        failure = (e.errno or _errno.EINVAL, e.strerror or str(e))
    except Exception as e:  # anything: a rank that skipped the collective below would hang the others
        failure = (getattr(e, "errno", None) or _errno.EINVAL, f"{type(e).__name__}: {e}")
    infos = comm.allgather((failure, host))
    bad = [(i, h, f) for i, (f, h) in enumerate(infos) if f]
    if bad:
        lines = [f"rank {i} (host {h}): {msg}" for i, h, (_, msg) in bad]
        e = NvbenchError(bad[0][2][0], f"{len(bad)} of {n} ranks cannot run the workload; nothing was run: "
                         + "; ".join(lines))
        e.failures = [{"rank": i, "host": h, "errno": c, "message": msg} for i, h, (c, msg) in bad]
        raise e
    return w


def _run_prepared(w, comm, root, progress, meta, watch=None):
    """Run a validated workload on every rank and merge on root. Every rank
    returns the merged Result or raises the same exception. watch (the CLI's
    --live and --metrics): watch(progress) gives this rank's (progress, point)."""
    global _seq
    _seq += 1
    MPI = _mpi()
    me, host = comm.Get_rank(), _host()
    stop = _Stop(comm, _seq)

    def barrier(status):
        # The barrier, and the news of a rank whose setup failed: then all abandon.
        return comm.allreduce(status, op=MPI.MIN) < 0

    def poll():
        return stop.poll()

    bar = None
    cb = None
    if progress and me == root:
        if callable(progress):
            cb = progress
        else:
            bar = _progress.Bar(1, enabled=True)
            cb = bar.callback(0, meta.get("stack") or "mpi")
    point = None
    if watch is not None:
        cb, point = watch(cb)
    text, interrupted = None, False
    try:
        with _Sigterm():
            try:
                text = _nvbench.run(w, progress=cb, interval_poll_ms=50, poll=poll, start_barrier=barrier,
                                    point=point)
            except KeyboardInterrupt as e:
                interrupted = True
                stop.send()
                text = e.result if isinstance(getattr(e, "result", None), str) else None
                if text is None:  # before the measurement started: no figures
                    text = _failure_json(host, _errno.ECANCELED, "interrupted")
            except NvbenchError as e:
                if not (e.errno == _errno.ECANCELED and stop.received):
                    stop.send()  # a failed run here ends the run everywhere
                text = e.result if isinstance(getattr(e, "result", None), str) else None
                if text is None:
                    text = _failure_json(host, e.errno, e.strerror)
            except Exception as e:  # e.g. the progress callback's own: still join the gather
                stop.send()
                text = _failure_json(host, _errno.EIO, f"{type(e).__name__}: {e}")
    finally:
        if bar is not None:
            bar.close()
    stop.finish()
    texts = comm.gather((text, interrupted), root=root)

    outcome = None
    if me == root:
        parts, failures, any_interrupt = [], [], False
        for i, (t, intr) in enumerate(texts):
            any_interrupt = any_interrupt or intr
            if t is None:
                failures.append({"rank": i, "host": "?", "errno": _errno.EIO, "message": "sent no result"})
                continue
            d = json.loads(t)
            if d.get("mpi_failure"):
                if d.get("errno") != _errno.ECANCELED:
                    failures.append({"rank": i, "host": d.get("host", "?"),
                                     "errno": d.get("errno") or _errno.EIO, "message": d.get("message", "")})
                continue
            parts.append(d)
            err = d.get("error")
            # A cancelled run was stopped (by a signal, or by another rank's
            # failure): not a failure of its own.
            if isinstance(err, dict) and not d.get("cancelled"):
                failures.append({"rank": i, "host": d.get("host", "?"), "errno": err.get("errno") or _errno.EIO,
                                 "message": err.get("message", "")})
        merged = None
        if parts:
            m = merge(parts)
            merged = m.to_json()
        outcome = (merged, failures, any_interrupt)
    merged, failures, any_interrupt = comm.bcast(outcome, root=root)

    result = None
    if merged is not None:
        data = json.loads(merged)
        data.pop("meta", None)
        m = dict(labels(data, 0))
        m.update(meta)
        m["hosts"] = len(data.get("hosts") or [])
        result = Result(data, m)
    if failures:
        lines = "; ".join(f"rank {f['rank']} (host {f['host']}): {f['message']}" for f in failures)
        e = NvbenchError(failures[0]["errno"], lines)
        e.failures = failures
        e.result = result
        raise e
    if any_interrupt:
        e = KeyboardInterrupt("interrupted")
        e.result = result
        raise e
    return result


def run(targets, comm=None, root=0, progress=False, options=None, on_point=None, _watch=None, **keys):
    """Run one workload on every rank of comm (MPI.COMM_WORLD) and return the
    merged Result on every rank.

    targets: what each rank runs on (module docstring: templates with
    {rank}/{size}/{host}, a dict by rank or host, a callable). Keys as in
    :func:`nvbench.run`; ``align_interval=1`` is a good idea across hosts
    (time-series intervals on wall-clock multiples, so they add up point by
    point). progress: a bar (or a callable) on root.

    Before anything runs, every rank builds and validates its workload; if
    any cannot (a missing target, a refused key), every rank raises the same
    NvbenchError naming each failing rank and its host, and nothing runs.
    A rank whose run fails or is interrupted stops the others; the merged
    partial figures are then ``.result`` of the NvbenchError or
    KeyboardInterrupt raised on every rank. With ``verify=1``, blocks read
    back that did not match on any rank raise VerifyError on every rank, the
    merged Result attached. on_point: called on each rank with that rank's
    own time-series points (dicts) as they are measured, as in nvbench.run.
    """
    c = _comm(comm)
    w = _prepare(targets, c, options, keys)
    if on_point is not None and _watch is None:
        def _watch(cb):
            return cb, lambda text: on_point(json.loads(text))
    result = _run_prepared(w, c, root, progress, _meta_of(targets), _watch)
    bad = verify_failure(result.data)
    if bad:  # bad data on any rank: a failure on every rank, as nvbench.run raises it
        raise VerifyError(bad, result)
    return result


def _meta_of(targets):
    if isinstance(targets, (str, os.PathLike)):
        return {"target": os.fspath(targets)}
    if isinstance(targets, (list, tuple)) and all(isinstance(t, (str, os.PathLike)) for t in targets):
        return {"target": ",".join(os.fspath(t) for t in targets)}
    return {}


# --------------------------------------------------------------------------
# matrices


def matrix(targets, engines=None, repeat=1, progress=False, on_error="raise", comm=None, root=0, **axes):
    """:func:`nvbench.matrix` across hosts: every cell runs on every rank at
    once (cell by cell, in the same order as on one host) and is merged, so
    the ResultSet (the same on every rank) has the same tables, comparisons
    and plots as one host's, with per-host rows in each result's ``hosts``.

    Every cell is validated on every rank before the first run. on_error:
    "raise" stops at the first failed cell; "warn" goes on. A raised
    exception carries ``.results`` (the cells done) on every rank.
    """
    if on_error not in ("raise", "warn"):
        raise ValueError("on_error must be 'raise' or 'warn'")
    if not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 1:
        raise ValueError(f"repeat must be a positive integer, not {repeat!r}")
    c = _comm(comm)
    engine = axes.pop("engine", None)
    plan = _plan_product(engines, engine, axes)
    cells = []
    for keys, extra in plan:
        options = keys.pop("options", None)
        w = _prepare(targets, c, options, keys)
        meta = dict(_meta_of(targets))
        meta.update(extra)
        cells.append((w, meta, _describe(keys)))
    results = ResultSet()
    total = len(cells) * repeat
    for rep in range(repeat):
        for i, (w, meta, desc) in enumerate(cells):
            cb = None
            if progress and c.Get_rank() == root:
                index = rep * len(cells) + i
                cb = progress if callable(progress) else _text_progress(index, total, desc)
            try:
                r = _run_prepared(w, c, root, cb, dict(meta, repeat=rep))
            except NvbenchError as e:
                if on_error == "raise":
                    e.results = results
                    raise
                if c.Get_rank() == root:
                    warnings.warn(f"{desc} (repeat {rep}) failed: {e}", RuntimeWarning, stacklevel=2)
                continue
            except KeyboardInterrupt as e:
                e.results = results
                raise
            results.append(r)
    return results


def _text_progress(index, total, desc):
    shown = [False]

    def cb(p):
        if not shown[0]:
            shown[0] = True
            print(f"nvbench mpi: run {index + 1}/{total}: {printable(desc)}", file=sys.stderr, flush=True)
        return False
    return cb


# --------------------------------------------------------------------------
# reporting


def hosts_table(result):
    """The totals and one line per host of a merged Result, as text."""
    d = result.data if hasattr(result, "data") else result
    hosts = d.get("hosts") or []
    tot = d.get("total") or {}
    rd, wr = d.get("read") or {}, d.get("write") or {}
    cpu = d.get("cpu") or {}
    nhosts = len({h["host"] for h in hosts})

    def p99(x):
        if not x.get("ios"):
            return "-"
        if (x.get("lat_pct_supported") or {}).get("p99") is False:
            return unsupported_text("lat_p99_ms")
        return f"{(x.get('lat_ns') or {}).get('p99', 0) / 1e3:.1f} us"

    lines = [f"{len(hosts)} runs on {nhosts} host{'s' if nhosts != 1 else ''}, window {d.get('duration_s', 0):.3f} s: "
             f"{tot.get('iops', 0):,.0f} IOPS "
             f"(read {rd.get('iops', 0):,.0f}, write {wr.get('iops', 0):,.0f}), "
             f"{tot.get('bw_bytes_s', 0) / 1048576:,.1f} MiB/s, p99 read {p99(rd)} write {p99(wr)}, "
             f"{_f2(cpu.get('cpu_us_per_io'))} CPU-us/IO"]

    def host_p99(x):
        # a host row keeps its p99, not its histogram: judged by its I/O count
        if x["ios"] and not pct_supported(x["ios"], 99):
            return unsupported_text("lat_p99_ms")
        return f"{x['lat_p99_ns'] / 1e3:.1f}"

    head = ("rank", "host", "IOPS", "MiB/s", "p99 read us", "p99 write us", "CPU us/IO", "sys %", "first done s",
            "last done s", "error")
    rows = []
    for h in hosts:
        sys_pct = h["cpu"].get("system_pct")
        rows.append((str(h["rank"]), printable(h["host"]), f"{h['total']['iops']:,.0f}",
                     f"{h['total']['bw_bytes_s'] / 1048576:,.1f}", host_p99(h["read"]),
                     host_p99(h["write"]), _f2(h["cpu"].get("cpu_us_per_io")),
                     "-" if sys_pct is None else f"{sys_pct:.1f}", f"{h['first_done_s']:.3f}",
                     f"{h['last_done_s']:.3f}",
                     "cancelled" if h.get("cancelled") else printable(h.get("error") or "")))
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    for r in [head] + rows:
        lines.append("  ".join(c.rjust(w) if 1 < i < 10 else c.ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    return "\n".join(lines) + "\n"
