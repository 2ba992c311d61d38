"""Matrices of runs: any Cartesian product of workload keys, and the
published 8-cell seed matrix (the comparison nvbench started from: docs/analysis.md).

Order is stable and documented because it matters for fairness: the whole
product is swept once per repeat (repeat is the outermost loop), so slow
drifts of the device (heat, garbage collection) spread over every cell
instead of piling onto one; within a sweep, engines are the innermost axis,
so the stacks compared in one cell run back to back.
"""
import contextlib
import errno
import os
import tempfile
import warnings

from . import _nvbench
from . import _progress
from . import _warnings
from .core import available_engines, labels, workload, _run_workload, _flatten_targets
from .errors import NvbenchError
from .resultset import ResultSet
from ._scratch import scratch_file
from ._signals import sigterm_cancels

__all__ = ["matrix", "seed_matrix", "SEED_CELLS"]

#: The published matrix: (cell label, rw, bs, op), in the articles' order:
#: the library's table (nvb_seed_cell), the one the C example and Lua read.
SEED_CELLS = tuple((c["workload"], c["rw"], c["bs"], c["op"]) for c in _nvbench.seed_cells())

# Axes that define the cell (rows of the table) or the stack itself; any
# other axis that varies becomes part of the stack (column) label.
_CELL_AXES = frozenset({"rw", "bs", "engine"})


def _targets_list(targets):
    if targets is None:
        return []
    if isinstance(targets, (str, bytes, os.PathLike)):
        targets = [targets]
    return _flatten_targets(targets)


def _fitting_engines(targets=None, engines=None):
    """The engines among ``engines`` (default: every engine that works here,
    except null) that take these targets, and the (name, reason) of those
    that refuse them as the wrong kind of target (ENODEV): the nvme engine
    drives NVMe namespaces only, not files, directories or other devices.
    No targets stands for the scratch file a seed matrix lays out."""
    if engines is None:
        engines = available_engines()
    probe = _targets_list(targets) or [tempfile.gettempdir()]
    kept, skipped = [], []
    for e in engines:
        try:
            workload(*probe, engine=e, rw="randread", bs="4k").validate()
        except NvbenchError as err:
            if err.errno == errno.ENODEV:
                skipped.append((e, err.strerror))
                continue
        kept.append(e)
    return kept, skipped


def _fmt(v):
    return v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)


def _plan_product(engines, engine, axes):
    """[(keys, extra meta)] for the product of the list-valued keys: the order and the
    column labels are the library's (nvb_matrix_*), the engine axis added last."""
    if engines is not None and engine is not None:
        raise TypeError("give engines=[...] or engine=..., not both")
    fixed, varying = {}, {}
    for k, v in axes.items():
        (varying if isinstance(v, list) else fixed)[k] = v
    if engines is not None:
        varying["engine"] = [engines] if isinstance(engines, str) else list(engines)
    elif engine is not None:
        varying["engine"] = engine if isinstance(engine, list) else [engine]
    if "engine" in varying:  # innermost
        varying["engine"] = varying.pop("engine")
    names = list(varying)
    _, _, stacked, runs = _nvbench.matrix_plan([(k, [_fmt(v) for v in varying[k]]) for k in names])
    plan = []
    for _, idx, stack in runs:
        keys = dict(fixed)
        keys.update((k, varying[k][i]) for k, i in zip(names, idx))
        extra = {"stack": stack, "axes": {k: keys[k] for k in stacked}} if stacked else {}
        plan.append((keys, extra))
    return plan


def _execute(plan, targets, repeat, progress, on_error, meta_of=None, watch=None):
    """watch (the CLI's --live, --metrics and store points): watch(index, total, label,
    progress) gives each run's (progress, point) callbacks, watch.done(result) its result."""
    if on_error not in ("raise", "warn"):
        raise ValueError("on_error must be 'raise' or 'warn'")
    if not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 1:
        raise ValueError(f"repeat must be a positive integer, not {repeat!r}")
    # Check every cell before the first run: a typo in the last axis value
    # should not surface after an hour of measurements.
    workloads = []
    for keys, extra in plan:
        options = keys.pop("options", None)
        w = workload(*targets, options=options, **keys)
        w.validate()
        workloads.append((w, extra, _describe(keys)))
    total = len(workloads) * repeat
    user_cb = progress if callable(progress) else None
    bar = _progress.Bar(total, enabled=bool(progress) and user_cb is None)
    results = ResultSet()
    # the order of the runs is the library's plan: every cell once per sweep, repeat outermost
    _, _, _, order = _nvbench.matrix_plan([("cell", [str(i) for i in range(len(workloads))])], repeat=repeat)
    try:
        for rep, (i,), _ in order:
            w, extra, desc = workloads[i]
            index = rep * len(workloads) + i
            cb = bar.callback(index, desc)
            if user_cb is not None:
                cb = _wrap_user(user_cb, index, total, desc)
            point = None
            if watch is not None:
                cb, point = watch(index, total, _run_label(extra, desc, rep), cb)
            try:
                r = _run_workload(w, progress=cb, meta=extra, repeat=rep, warn=False, point=point)
            except NvbenchError as e:
                if on_error == "raise" or e.is_input_error:
                    e.results = results
                    raise
                bar.write(f"nvbench: {desc} (repeat {rep}) failed: {e}")
                warnings.warn(f"{desc} (repeat {rep}) failed: {e}", RuntimeWarning, stacklevel=3)
                continue
            except BaseException as e:  # KeyboardInterrupt, a callback's exception
                try:
                    e.results = results
                except AttributeError:
                    pass
                raise
            results.append(r)
            if watch is not None:
                watch.done(r)
            bar.done(index)
    finally:
        bar.close()
    _warnings.issue(results, stacklevel=3)
    return results


def _run_label(extra, desc, rep):
    """A run's name in a --live line and the store's points: its cell, what it runs, its repeat."""
    cell = " ".join(str(extra[k]) for k in ("cell", "op") if extra and k in extra)
    return " ".join(p for p in (cell, desc, f"repeat {rep}" if rep else "") if p)


def _describe(keys):
    parts = [str(keys[k]) for k in ("engine", "rw", "bs") if k in keys]
    parts += [f"{k}={_fmt(v)}" for k, v in keys.items() if k not in ("engine", "rw", "bs", "runtime")]
    return " ".join(parts)


def _wrap_user(cb, index, total, desc):
    def on_progress(p):
        p = dict(p, run_index=index, runs=total, label=desc)
        return cb(p)
    return on_progress


def matrix(targets=None, engines=None, repeat=1, progress=False, on_error="raise", **axes):
    """Run the Cartesian product of workload keys and return a ResultSet.

    >>> rs = nvbench.matrix(targets=["/dev/nvme0n1"], engines=["libaio", "io_uring"],
    ...                     rw=["randread", "randwrite"], bs=["4k", "64k"], qd=[1, 32],
    ...                     repeat=3, runtime=2, progress=True)

    Every keyword whose value is a list is an axis; any other value applies to
    every run (values as in nvbench.run()). ``engines`` is the engine axis.
    The product is taken in the order the keywords were given, with the
    engine innermost, and swept ``repeat`` times (repeat outermost). Every
    cell is validated before the first run starts.

    Each Result carries meta labels: engine, rw, bs, qd, jobs, repeat
    (0-based), target, cell ("rand4k"), op, and stack (the column label:
    the engine, plus any other varying axis, e.g. "io_uring qd=32").

    on_error: "raise" (default) stops at the first failure; "warn" reports a
    failed run and goes on (refused workloads still raise). A raised
    NvbenchError or KeyboardInterrupt carries ``.results``, the ResultSet of
    the completed runs, and ``.result``, the partial Result of the run that
    was interrupted. A SIGTERM (default disposition, main thread) cancels the
    same way and raises nvbench.Terminated (SystemExit, code 143) carrying
    both.
    """
    engine = axes.pop("engine", None)
    plan = _plan_product(engines, engine, axes)
    with sigterm_cancels():
        return _execute(plan, _targets_list(targets), repeat, progress, on_error)


# steady_state={...} options -> the library's keys (docs/steady-state.md);
# "runtime" is the write cells' own cap while they wait for steady state.
_SS_OPTIONS = {"metric": "ss", "window": "ss.window", "excursion": "ss.excursion", "slope": "ss.slope",
               "stop": "ss.stop", "runtime": "runtime"}


def _write_cell_keys(precondition, steady_state):
    """The keys seed_matrix() adds to its write cells: precondition=N (or
    "random": one pass with planned invalidation), and ss=... with its
    options (ss.stop on unless steady_state says otherwise)."""
    out = {}
    if precondition is not None:
        if precondition == "random":
            out["precondition"] = precondition
        elif isinstance(precondition, bool) or not isinstance(precondition, int) or precondition < 0:
            raise ValueError(f"precondition must be a number of passes (an int >= 0) or 'random', "
                             f"not {precondition!r}")
        elif precondition:
            out["precondition"] = precondition
    if steady_state is None:
        return out
    spec = {"metric": steady_state} if isinstance(steady_state, str) else dict(steady_state)
    unknown = sorted(set(spec) - set(_SS_OPTIONS))
    if unknown:
        raise ValueError(f"steady_state: unknown option(s) {', '.join(unknown)} "
                         f"(known: {', '.join(_SS_OPTIONS)})")
    if not spec.get("metric"):
        raise ValueError("steady_state needs a metric: 'iops', 'bw' or 'lat'")
    spec.setdefault("stop", True)
    out.update({_SS_OPTIONS[k]: v for k, v in spec.items() if v is not None})
    return out


def _cell_plan(cells, engines=None):
    """The library's plan of the seed cells named by ``cells`` ("rand4k_read", "rand4k" for
    both directions, or a label; a list or a comma-separated string; None: all eight) in the
    published order, each on every engine: [(cell, engine)] in the order to run them."""
    if cells is None:
        cells = ""
    elif not isinstance(cells, str):
        cells = ",".join(str(c) for c in cells)
    axes = [("engine", list(engines))] if engines else []
    try:
        _, names, _, runs = _nvbench.matrix_plan(axes, cells=cells)
    except ValueError as e:
        raise NvbenchError(errno.EINVAL, str(e)) from None
    by_key = {f"{c[0]}_{c[3]}": c for c in SEED_CELLS}
    return [(by_key[names[idx[0]]], engines[idx[1]] if engines else None) for _, idx, _ in runs]


def _seed_cells(cells):
    """The SEED_CELLS named by ``cells`` (see _cell_plan), in the published order."""
    return [c for c, _ in _cell_plan(cells)]


def seed_matrix(targets=None, engines=None, runtime=2, qd=32, jobs=1, repeat=1, progress=False,
                size="512M", on_error="raise", cells=None, precondition=None, steady_state=None, _watch=None,
                **keys):
    """The published 8-cell matrix: random 4K, random 64K, sequential 64K and
    sequential 128K, each read and write, over several engines (the published comparison, docs/analysis.md).

    engines: default every engine that works here, except null and those
    that do not take the targets (nvme on files). targets:
    default a scratch file of ``size`` bytes in a new temporary directory,
    laid out once, shared by every cell and removed at the end; a directory
    target gets the same treatment inside that directory. Results are
    labelled cell="rand4k"... and op="read"/"write" so ResultSet.table()
    prints the published layout. cells: a subset, e.g. ["rand4k_read",
    "seq128k"] (a cell name alone: both directions). Other keys apply to
    every run.

    The temporary directory is removed on Ctrl-C and SIGTERM too (see
    matrix()); one left by a matrix that was killed outright is removed by
    the next seed_matrix that lays one out in the same place.

    Write cells measured the SNIA PTS way (docs/steady-state.md), read cells
    unchanged: ``precondition=N`` writes each target's region N times
    sequentially before every write cell (not counted in its figures),
    ``precondition="random"`` once in random blocks with planned
    invalidation (``sprandom.*`` keys tune it);
    ``steady_state="iops"`` (or "bw", "lat") judges each write cell's time
    series and ends it when steady, ``runtime`` then being the cap; a dict
    sets the other options: ``{"metric": "iops", "window": "5m",
    "excursion": 20, "slope": 10, "stop": True, "runtime": "2h"}`` (its
    ``runtime`` is the write cells' own). Rounds are time-series intervals:
    pass ``interval="1m"`` for minute rounds. Each write Result then has
    ``r.precondition`` and ``r.steady_state``.
    """
    if engines is None:
        # Every engine that works here and takes these targets (the nvme
        # engine is left out of a matrix on files).
        engines, _ = _fitting_engines(targets)
        if not engines:
            raise NvbenchError(errno.ENOTSUP, "no engine works here (see nvbench.engines() for the reasons)")
    elif isinstance(engines, str):
        engines = [engines]
    write_keys = _write_cell_keys(precondition, steady_state)
    plan = []
    for (cell, rw, bs, op), eng in _cell_plan(cells, engines):
        k = dict(keys, engine=eng, rw=rw, bs=bs, qd=qd, jobs=jobs, runtime=runtime)
        if op == "write":
            k.update(write_keys)
        plan.append((k, {"cell": cell, "op": op}))
    tlist = _targets_list(targets)
    with sigterm_cancels(), contextlib.ExitStack() as stack:
        if not tlist:
            tlist = [stack.enter_context(scratch_file(size))]
        else:
            tlist = [stack.enter_context(scratch_file(size, dir=t)) if os.path.isdir(t) else t
                     for t in tlist]
        return _execute(plan, tlist, repeat, progress, on_error, watch=_watch)
