"""The store from the command line: ``--save``/``--db``/``--label`` on the commands that run,
``nvbench store import|info`` and ``nvbench history`` (cli.py registers them; docs/history.md)."""
import csv
import json
import os
import sys
import time

from ._cli_common import EXIT_FAIL, EXIT_INPUT, EXIT_OK, _err, _n
from ._printable import printable
from ._points import READ_COLUMNS
from .loading import load
from .resultset import ResultSet
from .store import FILTER_KEYS, PointWriter, StoreError, _redact, default_location, open_store

# ------------------------------------------------------------------ saving runs


def add_save_args(p):
    """--save, --db and --label on a command that runs (run, matrix)."""
    p.add_argument("--save", action="store_true",
                   help="save the results in the store (--db, else $NVBENCH_DB, else "
                        "~/.local/share/nvbench/results.db); docs/history.md")
    p.add_argument("--db", metavar="FILE|URL",
                   help="save the results in this store: an SQLite file or postgresql://... (implies --save)")
    p.add_argument("--label", action="append", default=[], metavar="NAME=VALUE",
                   help="a label saved with each result in the store (repeatable): --label kernel_build=6.8-rc1")


def _labels(items):
    out = []
    for it in items or []:
        name, eq, value = it.partition("=")
        if not eq or not name:
            raise ValueError(f"--label '{it}': expected NAME=VALUE")
        out.append((name, value))
    return out


def _pending_path(args):
    """Where a result the store refused is kept: --json's file if one was written, else a file
    of its own beside the default store (or in the temporary directory)."""
    if getattr(args, "json", None):
        return args.json, False
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    for base in (os.path.join(os.path.dirname(default_location({k: v for k, v in os.environ.items()
                                                                 if k != "NVBENCH_DB"})), "pending"),
                 os.environ.get("TMPDIR") or "/tmp"):
        try:
            os.makedirs(base, exist_ok=True)
            return os.path.join(base, f"nvbench-{stamp}-{os.getpid()}.json"), True
        except OSError:
            continue
    return None, False


def _saving(args):
    return bool(getattr(args, "save", False) or getattr(args, "db", None))


def point_writer(args, err=_err, host=None):
    """The writer of the runs' time-series points into the store while they run (_points.py),
    when the results are to be saved; else None. err says why points were not stored; host
    names the streams' host (default: this one's name)."""
    if not _saving(args):
        return None
    try:
        labels = _labels(args.label)
    except ValueError:
        return None  # saving will refuse the labels, with nothing written: no points either
    return PointWriter(args.db if args.db else default_location(), err=err, labels=labels, host=host)


def saved(args, results, status, points=None):
    """Save the results when asked (--save, --db), with their points (the PointWriter that
    wrote them while they ran, closed here); the status to exit with. The results are
    already on stdout and in --json: a store that fails costs nothing but the saving, and
    the results are kept in a file the error names, to import later."""
    if not _saving(args) or not results:
        if points is not None:
            points.close()
        return status
    if points is not None:
        # the last points go in the runs' own transaction, or, when the writer saves the
        # runs as they are produced (PointWriter.save), with the last of them
        points.close(flush=points.saves)
    results = [r for r in results if r is not None and not isinstance(r, str)]
    try:
        labels = _labels(args.label)
    except ValueError as e:
        _err(str(e))
        return EXIT_INPUT
    done = points.saved if points is not None else {}
    rest = [r for r in results if id(r) not in done]
    try:
        with open_store(args.db) as st:
            if rest:
                st.save(rest, labels, points)
            _err(f"saved {_n(len(results), 'run')} in store {st.name}"
                 + (f" with {_n(points.written, 'time-series point')}" if points and points.streams() else ""))
            for host, label in getattr(points, "unlinked", ()):
                _err(f"the points of {label} (host {host}) are not in store {st.name} (a store of that host's "
                     "own?): not linked to the run")
        return status
    except StoreError as e:
        _err(str(e))
    if len(rest) < len(results):
        _err(f"{len(results) - len(rest)} of {_n(len(results), 'run')} were saved as they were produced")
        results = rest
    path, write = _pending_path(args)
    if path is None:
        _err("the results are only in the output above")
        return EXIT_FAIL
    if write:
        try:
            ResultSet(results).save(path)
        except OSError as e:
            _err(f"could not keep the results in {path} ({e.strerror}): they are only in the output above")
            return EXIT_FAIL
    _err(f"the results are kept in {path}: once the store is back, nvbench store import {path}"
         + (f" --db {_redact(args.db)}" if args.db else ""))
    return EXIT_FAIL if status == EXIT_OK else status


# ------------------------------------------------------------------ store import / info

def cmd_store(args):
    if args.store_command == "import":
        try:
            labels = _labels(args.label)
        except ValueError as e:
            _err(str(e))
            return EXIT_INPUT
        batches = []
        for f in args.files:
            try:
                batches.append((f, list(load(f))))
            except (OSError, ValueError) as e:
                _err(f"cannot read {f}: {getattr(e, 'strerror', None) or e}")
                return EXIT_INPUT
        try:
            with open_store(args.db) as st:
                for f, rs in batches:
                    st.save(rs, labels)
                    _err(f"{f}: {_n(len(rs), 'run')} saved in store {st.name}")
        except StoreError as e:
            _err(str(e))
            return EXIT_FAIL
        return EXIT_OK
    try:
        with open_store(args.db, create=False) as st:
            print(json.dumps({"store": st.name, "schema_version": st.version, "runs": st.count()}, indent=1))
    except StoreError as e:
        _err(str(e))
        return EXIT_FAIL
    return EXIT_OK


# ------------------------------------------------------------------ history

def parse_where(items, host=None):
    """--where NAME=VALUE (repeatable) as [(name, value)]; ValueError names a bad one."""
    out = []
    for it in items or []:
        name, eq, value = it.partition("=")
        if not eq:
            raise ValueError(f"--where '{it}': expected NAME=VALUE")
        if name not in FILTER_KEYS and not (name.startswith("label.") and len(name) > 6):
            raise ValueError(f"--where '{it}': unknown field '{name}' (known: {', '.join(FILTER_KEYS)}, label.NAME)")
        out.append((name, value))
    if host:
        out.append(("host", host))
    return out


HISTORY_COLUMNS = ("id", "start_time", "host", "stack", "cell", "rw", "bs", "qd", "jobs", "iops", "bw_gib_s",
                   "lat_mean_ms", "lat_p99_ms", "cpu_us_per_io", "device_model", "kernel", "nvbench_version")


def _cell(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"
    if isinstance(v, dict):
        return ",".join(f"{k}={x}" for k, x in v.items()) or "-"
    return str(v)


POINT_COLUMNS = ("run_id", "label", "host", "idx", "job_group", "t_s", "dt_s", "read_iops", "read_p50_ns",
                 "read_p99_ns", "read_p99_9_ns", "write_iops", "write_p50_ns", "write_p99_ns", "write_p99_9_ns", "errors",
                 "system_pct")


def cmd_history(args):
    try:
        where = parse_where(args.where, args.host)
    except ValueError as e:
        _err(str(e))
        return EXIT_INPUT
    try:
        with open_store(args.db, create=False) as st:
            if args.points:
                rows = st.points(args.points)
            else:
                rows = st.query(where, last=args.last)
    except StoreError as e:
        _err(str(e))
        return EXIT_FAIL
    if args.points:
        # every column of a point in JSON and CSV, the figures people watch in the table
        return _print_rows(args, rows, list(READ_COLUMNS) if args.json or args.csv else list(POINT_COLUMNS),
                           "no points stored for run " + ", ".join(map(str, args.points)))
    return _print_rows(args, rows, list(HISTORY_COLUMNS) + ["labels"], "no runs match")


def _print_rows(args, rows, cols, none):
    if args.json:
        print(json.dumps([{k: r.get(k) for k in cols} for r in rows], indent=1))
    elif args.csv:
        w = csv.writer(sys.stdout if args.csv == "-" else open(args.csv, "w", newline=""))
        w.writerow(cols)
        for r in rows:
            w.writerow([json.dumps(r[k]) if k == "labels" else r.get(k) for k in cols])
    else:
        if not rows:
            print(none)
            return EXIT_OK
        table = [cols] + [[printable(_cell(r.get(k))) for k in cols] for r in rows]
        widths = [max(len(t[i]) for t in table) for i in range(len(cols))]
        for t in table:
            print("  ".join(c.ljust(w) for c, w in zip(t, widths)).rstrip())
    return EXIT_OK


def add_parsers(sub):
    """nvbench store and nvbench history."""
    s = sub.add_parser("store", help="the results store: import saved results, or say what it holds",
                       description="The results store (docs/history.md): an SQLite file (--db, else "
                                   "$NVBENCH_DB, else ~/.local/share/nvbench/results.db) or a PostgreSQL "
                                   "server (--db postgresql://...).")
    ss = s.add_subparsers(dest="store_command", metavar="ACTION", required=True)
    i = ss.add_parser("import", help="save result files (nvbench --json, fio JSON) in the store")
    i.add_argument("files", nargs="+", metavar="RESULTS.json")
    i.add_argument("--db", metavar="FILE|URL", help="the store (default: $NVBENCH_DB, else the default file)")
    i.add_argument("--label", action="append", default=[], metavar="NAME=VALUE", help="a label for each run")
    i = ss.add_parser("info", help="the store's location, schema version and number of runs (JSON)")
    i.add_argument("--db", metavar="FILE|URL", help="the store")
    s.set_defaults(func=cmd_store)

    s = sub.add_parser("history", help="list the runs saved in the store",
                       description="The runs of the store, oldest first, filtered by --where NAME=VALUE "
                                   f"(fields: {', '.join(FILTER_KEYS)}, label.NAME); values are compared "
                                   "as given, never read as SQL.")
    s.add_argument("--db", metavar="FILE|URL", help="the store (default: $NVBENCH_DB, else the default file)")
    s.add_argument("--where", action="append", default=[], metavar="NAME=VALUE", help="a filter (repeatable)")
    s.add_argument("--host", help="runs of this host (as --where host=HOST)")
    s.add_argument("--last", type=int, metavar="N", help="the newest N runs only")
    s.add_argument("--points", type=int, action="append", metavar="ID",
                   help="the time-series points stored for run ID (repeatable), every interval as measured, "
                        "instead of the runs")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON, one object per run")
    fmt.add_argument("--csv", metavar="F", help="write CSV to F (- for stdout)")
    s.set_defaults(func=cmd_history)


# ------------------------------------------------------------------ compare with store queries

class StoreQuery(str):
    """A side of `nvbench compare` read from the store: named by its query (a str, so it
    names the side in the output), loaded by _compare_cli like a file."""

    def __new__(cls, db, where, last):
        # compare names a side by its file name without the extension: no '.' in the keys
        parts = [f"{k.replace('label.', 'label:', 1)}={v}" for k, v in where] + \
            ([f"last={last}"] if last is not None else [])
        self = super().__new__(cls, "store:" + (",".join(parts) or "all"))
        self.db, self.where, self.last = db, where, last
        return self

    def load(self):
        with open_store(self.db, create=False) as st:
            rs = st.results(self.where, self.last)
        if not len(rs):
            raise ValueError(f"no run in store {st.name} matches {self}")
        return rs


def _query_of(spec, db):
    """'store:host=a,stack=io_uring,last=5' as a StoreQuery (values with a comma: --where)."""
    where, last = [], None
    body = spec[len("store:"):]
    for part in [p for p in body.split(",") if p] if body != "all" else []:
        if part.startswith("last="):
            last = int(part[5:]) if part[5:].isdigit() else None
            if last is None:
                raise ValueError(f"'{spec}': last= takes a number")
        else:
            where += parse_where([part])
    return StoreQuery(db, where, last)


def add_query_args(p):
    """--db/--where/--last on compare: the runs they select are one more side (B when one file is given)."""
    p.add_argument("--db", metavar="FILE|URL", help="the store the store: sides and --where read (default: "
                                                    "$NVBENCH_DB, else the default file)")
    p.add_argument("--where", action="append", default=[], metavar="NAME=VALUE",
                   help="runs of the store as one side (repeatable; FILE.json --where host=b --last 5: the "
                        "store's runs against the file); a side may also be given as store:host=a,last=5")
    p.add_argument("--last", type=int, metavar="N", help="with --where: the newest N runs only")


def with_store_queries(cmd):
    """The compare command, its store: sides and --where turned into StoreQuery sides first."""
    def run(args):
        try:
            files = [(_query_of(f, args.db) if f.startswith("store:") else f) for f in args.files]
            if args.where or args.last is not None:
                files.append(StoreQuery(args.db, parse_where(args.where), args.last))
        except ValueError as e:
            _err(str(e))
            return EXIT_INPUT
        args.files = files
        return cmd(args)
    return run
