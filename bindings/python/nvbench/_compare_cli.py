"""``nvbench compare`` and ``nvbench report``: results read back, compared side by side, tabled
in the four-stack layout and written as an HTML report (cli.py adds their parsers)."""
import json
import os

from . import _nvbench
from ._cli_common import EXIT_FAIL, EXIT_INPUT, EXIT_OK, _err, _n
from ._printable import printable
from ._report_figures import missing as missing_figures
from .loading import load
from .labels import block_label, block_sort_key
from .metrics import figures
from .store import StoreError, open_store
from .report import format_comparison
from .resultset import ResultSet
from .stacks import COLUMNS, four_stacks
from .store import StoreError
from ._env_compare import differences as env_differences, refusals as env_refusals

# ------------------------------------------------------------------ compare

def _measure_keys():
    """The workload echo's names of the keys whose difference changes what is measured (the
    key table's "measures" column): two files that differ in one of them are not two stacks doing
    the same thing."""
    return tuple(k["echo"] for k in _nvbench.key_table() if k["measures"] == "1")


def _echo_value(workload, name):
    """A key's value in a workload echo by its echo name, dotted for a nested member."""
    for part in name.split("."):
        workload = workload.get(part) if isinstance(workload, dict) else None
    return workload


def _load_named(path):
    try:
        if hasattr(path, "load"):  # a side read from the store (_store_cli.StoreQuery)
            return path.load(), None
        return load(path), None
    except (OSError, ValueError, KeyError, StoreError) as e:
        msg = str(getattr(e, "strerror", None) or e)
        where = f"{path}: "  # load() names the file itself; open() does not
        return None, "cannot read " + (msg if msg.startswith(where) else where + msg)


def _relabel(rs, stack, path):
    """All results of one file under one stack name (--stack)."""
    stacks = _stacks(rs)
    if len(stacks) > 1:
        return None, (f"--stack relabels a file of one stack, and {path} holds {len(stacks)} "
                      f"({', '.join(map(str, stacks))})")
    return ResultSet([r.with_meta(stack=stack) for r in rs]), None


def _differences(a, b, sa, sb, name_a, name_b):
    """The measuring keys in which the two files' runs of a cell differ."""
    out = []
    cells = {}
    for src, stack, side in ((a, sa, 0), (b, sb, 1)):
        for r in src:
            if _stack(r) == stack:
                cells.setdefault((r.meta.get("cell"), r.meta.get("op")), ([], []))[side].append(r)
    for (cell, op), (ra, rb) in cells.items():
        if not ra or not rb:
            continue
        for k in _measure_keys():
            va = {json.dumps(_echo_value(r.data.get("workload"), k)) for r in ra}
            vb = {json.dumps(_echo_value(r.data.get("workload"), k)) for r in rb}
            if va != vb and "null" not in va | vb:
                out.append(f"{k} {'/'.join(sorted(va))} in {name_a} but {'/'.join(sorted(vb))} in {name_b} "
                           f"({cell} {op})")
    return out


def _four_columns(files, windows_engine):
    """(ResultSet of the published four columns, None) or (None, message)."""
    if len(files) != 3:
        return None, (f"the four-column table takes three files, LINUX WINDOWS_NATIVE WINDOWS_NON_NATIVE "
                      f"({len(files)} given)")
    sets = []
    for f in files:
        rs, e = _load_named(f)
        if e:
            return None, e
        sets.append(rs)
    try:
        return four_stacks(*sets, paths=files, windows_engine=windows_engine), None
    except ValueError as e:
        return None, str(e)


def cmd_table(args):
    """compare --table: the published four columns, then the report when asked."""
    rs, e = _four_columns(args.files, args.windows_engine)
    if e:
        _err(e)
        return EXIT_INPUT
    try:
        print(rs.table(fmt="text"))
    except ImportError as e:
        _err(f"{e} (the table needs the analysis extras: numpy, pandas)")
        return EXIT_FAIL
    if not args.report:
        return EXIT_OK
    args.output, args.no_reference, args.baseline = args.report, False, COLUMNS["windows_non_native"]
    args.title = args.title or "nvbench: the four stacks of the published comparison"
    return _write_report(rs, args)


def cmd_compare(args):
    if args.table:
        return cmd_table(args)
    if len(args.files) != 2:
        _err(f"compare takes two files, A and B ({len(args.files)} given; --table takes three)")
        return EXIT_INPUT
    args.a, args.b = args.files
    (a, ea), (b, eb) = _load_named(args.a), _load_named(args.b)
    for e in (ea, eb):
        if e:
            _err(e)
    if ea or eb:
        return EXIT_INPUT
    name_a = os.path.splitext(os.path.basename(args.a))[0]
    name_b = os.path.splitext(os.path.basename(args.b))[0]
    if name_a == name_b:
        name_a, name_b = args.a, args.b
    if args.label:
        name_a, name_b = args.label
    if args.stack:
        a, e1 = _relabel(a, args.stack[0], args.a)
        b, e2 = (_relabel(b, args.stack[1], args.b) if not e1 else (None, None))
        if e1 or e2:
            _err(e1 or e2)
            return EXIT_INPUT
    stacks_a = _stacks(a)
    stacks_b = _stacks(b)
    common = [s for s in stacks_a if s in stacks_b]
    if common:
        pairs = [(s, s) for s in common]
    elif len(stacks_a) == 1 and len(stacks_b) == 1:
        pairs = [(stacks_a[0], stacks_b[0])]
    else:
        _err(f"nothing to compare: {args.a} has stacks {stacks_a}, {args.b} has {stacks_b}; "
             f"name one stack per file with --stack A B (e.g. --stack linux-io_uring windows-iocp)")
        return EXIT_INPUT
    diffs = [d for sa, sb in pairs for d in _differences(a, b, sa, sb, name_a, name_b)]
    if diffs:
        head = "the workloads differ in more than the stack: " + "; ".join(diffs[:4]) + \
               (f"; and {len(diffs) - 4} more" if len(diffs) > 4 else "")
        if not args.force:
            _err(head + ". A difference would mix both effects; --force compares anyway")
            return EXIT_INPUT
        _err("warning: " + head)
    refused = env_refusals(a, b, name_a, name_b)
    if refused and not args.force:
        for w in refused:
            _err(w)
        _err("the environments differ in what changes the figures: a difference in the results would mix "
             "both effects; --force compares anyway")
        return EXIT_INPUT
    for w in env_differences(a, b, name_a, name_b):
        _err("warning: " + w)
    try:
        frames = []
        for sa, sb in pairs:
            base, other = f"{name_a}:{sa}", f"{name_b}:{sb}"
            rs = ResultSet()
            for src, stack, label in ((a, sa, base), (b, sb, other)):
                rs.extend(r.with_meta(stack=label) for r in src if _stack(r) == stack)
            frames.append((base, other, rs.compare(baseline=base)))
    except ImportError as e:
        _err(f"{e} (compare needs the analysis extras: numpy, pandas)")
        return EXIT_FAIL
    if all(df.empty for _, _, df in frames):
        # no cell (block size, pattern, direction) in both: say what each file holds
        _err(f"nothing to compare: {args.a} and {args.b} have no cell in common")
        for path, src in ((args.a, a), (args.b, b)):
            _err(f"  {path}: {_cells(src)}")
        return EXIT_INPUT
    for base, other, df in frames:
        print(printable(f"{other} (B) vs {base} (A)"))
        print(format_comparison(df, "text"))
    return EXIT_OK


def _cells(rs):
    """'Random 4K read (3 runs), Sequential 128K write (1 run)': the cells of a file."""
    count = {}
    for r in rs:
        f = figures(r)
        key = (f["cell"], f["op"])
        count[key] = count.get(key, 0) + 1
    if not count:
        return "no result"
    return ", ".join(f"{printable(block_label(*k))} ({_n(n, 'run')})"
                     for k, n in sorted(count.items(), key=lambda kv: block_sort_key(kv[0])))


def _stack(r):
    meta = getattr(r, "meta", None) or {}
    return meta.get("stack") or meta.get("engine") or getattr(r, "engine", None)


def _stacks(rs):
    out = []
    for r in rs:
        s = _stack(r)
        if s not in out:
            out.append(s)
    return out


# ------------------------------------------------------------------- report

def _report_set(files, sets):
    """One ResultSet of several files. A stack found in two files names two runs
    of it (two machines, two kernels), never repeats of one: each file's stacks
    are then labelled with the file's name (its path, or its place in the
    command line, where names are the same)."""
    stacks = {}
    for i, rs in enumerate(sets):
        for s in rs.stacks:
            stacks.setdefault(s, set()).add(i)
    out = ResultSet()
    if all(len(found) == 1 for found in stacks.values()):
        for rs in sets:
            out.extend(rs)
        return out
    names = [os.path.splitext(os.path.basename(f))[0] for f in files]
    for alt in (list(files), [f"{i + 1}.{f}" for i, f in enumerate(files)]):
        if len(set(names)) < len(names):
            names = alt
    for name, rs in zip(names, sets):
        out.extend(r.with_meta(stack=f"{name}:{r.meta.get('stack')}") for r in rs)
    return out


def cmd_report(args):
    if args.db or not args.files:
        return _report_with_trend(args)
    if args.four_stacks:
        rs, e = _four_columns(args.files, None)
        if e:
            _err(e)
            return EXIT_INPUT
        args.baseline = args.baseline or COLUMNS["windows_non_native"]
        return _write_report(rs, args)
    rs = _files_set(args.files)
    return rs if isinstance(rs, int) else _write_report(rs, args)


def _files_set(files):
    """The report's ResultSet of the files, or an exit status once said why not."""
    sets = []
    for f in files:
        try:
            sets.append(load(f))
        except (OSError, ValueError) as e:
            _err(f"cannot read {f}: {getattr(e, 'strerror', None) or e}")
            return EXIT_INPUT
    rs = _report_set(files, sets)
    if not len(rs):
        _err(f"nothing to report: {', '.join(files)} hold no result")
        return EXIT_INPUT
    return rs


def _report_with_trend(args):
    """report --db: the trend view of the store's runs (and the report of the files
    given, else of those runs)."""
    if not args.db:
        _err("report: give result files, or --db to report a store's runs")
        return EXIT_INPUT
    try:
        where = [tuple(w.split("=", 1)) for w in args.where]
        if any(len(w) != 2 for w in where):
            raise StoreError("--where takes KEY=VALUE")
        with open_store(args.db, create=False) as st:
            rows = st.query(where, args.last)
            rs = st.results(where, args.last) if not args.files else _files_set(args.files)
            points = st.points([r["id"] for r in rows])
    except StoreError as e:
        _err(str(e))
        return EXIT_INPUT
    if isinstance(rs, int):
        return rs
    if not len(rs):
        _err(f"nothing to report: no run in {args.db} matches")
        return EXIT_INPUT
    return _write_report(rs, args, trend=rows, trend_points=points)


def _write_report(rs, args, trend=None, trend_points=None):
    try:
        rs.report(args.output, title=args.title, baseline=args.baseline,
                  reference=not args.no_reference, sources=args.files or [args.db], trend=trend,
                  trend_points=trend_points)
    except ImportError as e:
        _err(f"{e} (the report needs pandas: nvbench[analysis])")
        return EXIT_FAIL
    except ValueError as e:  # a baseline that is not a stack of these results
        _err(str(e))
        return EXIT_INPUT
    no_figures = missing_figures()
    if no_figures:
        _err(f"the report has no figures: {no_figures}")
    print(printable(f"report: {os.path.abspath(args.output)}"))
    return EXIT_OK
