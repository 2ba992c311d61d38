"""A store of results that lasts: every run saved with its full JSON, found again by host, time,
device, stack and workload (docs/history.md).

SQLite by default (a file: ``--db``, else ``NVBENCH_DB``, else
``~/.local/share/nvbench/results.db``); PostgreSQL for a fleet (``postgresql://...``, through
psycopg2), with the same schema. Each result is one row of ``runs``: indexed columns for what
people filter and plot by, and the result JSON verbatim in ``result``; user labels are rows of
``run_labels``. One run is written in one transaction: a writer killed half way leaves the
store as it was before that run. The time-series points of a run saved from the command line
are written as they are measured, every interval at full resolution, into ``points`` (one
``point_streams`` row per run, linked to its ``runs`` row when the run is saved; _points.py).

Queries take filters as (column, value) pairs, checked against a fixed list of columns and
passed to the database as parameters: nothing from the command line becomes SQL text.
"""
import json
import os
import platform
import socket
import time

from ._optional import _pandas
from .loading import loads
from . import _points
from .metrics import figures
from .result import Result
from .resultset import ResultSet

__all__ = ["Store", "StoreError", "open_store", "history", "points", "default_location", "FILTER_KEYS",
           "SCHEMA_VERSION"]

SCHEMA_VERSION = 4

# Indexed columns of runs (name, SQL type). The schema of version 1 lacked the ones marked
# added=2; MIGRATIONS adds them to an older store.
COLUMNS = (
    ("saved_at", "TEXT"), ("host", "TEXT"), ("start_time", "TEXT"), ("start_unix_ns", "BIGINT"),
    ("target", "TEXT"), ("device_model", "TEXT"), ("device_serial", "TEXT"),
    ("engine", "TEXT"), ("stack", "TEXT"), ("rw", "TEXT"), ("bs", "BIGINT"), ("qd", "BIGINT"),
    ("jobs", "BIGINT"), ("cell", "TEXT"), ("op", "TEXT"), ("workload_key", "TEXT"),
    ("iops", "DOUBLE PRECISION"), ("bw_gib_s", "DOUBLE PRECISION"), ("lat_mean_ms", "DOUBLE PRECISION"),
    ("lat_p99_ms", "DOUBLE PRECISION"), ("cpu_us_per_io", "DOUBLE PRECISION"), ("duration_s", "DOUBLE PRECISION"),
    ("nvbench_version", "TEXT"), ("source", "TEXT"),
    # version 2
    ("device_firmware", "TEXT"), ("kernel", "TEXT"),
)
ADDED_IN = {"device_firmware": 2, "kernel": 2}

# what --where may name: the indexed columns and id (labels: label.NAME)
FILTER_KEYS = ("id",) + tuple(c for c, _ in COLUMNS)

# Workload keys that change what is measured: their values make up workload_key, so runs of
# the same workload can be found and refused when they differ (gate, compare).
WORKLOAD_KEYS = ("engine", "rw", "bs", "qd", "jobs", "rwmix", "rwmixtrim", "direct", "rate_iops", "rate_mode",
                 "verify", "submit_batch", "invalidate", "data_compress", "data_dedupe", "bssplit",
                 "thinktime_s", "thinktime_blocks", "random_distribution", "random_map", "size",
                 "engine_opts")


class StoreError(Exception):
    """The store could not be opened, read or written; the message names it."""


def default_location(env=None):
    env = os.environ if env is None else env
    if env.get("NVBENCH_DB"):
        return env["NVBENCH_DB"]
    base = env.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "nvbench", "results.db")


def is_postgres(location):
    return str(location).startswith(("postgresql://", "postgres://"))


def open_store(location=None, create=True):
    """The store at ``location`` (a file path or a postgresql:// URL; None: the default)."""
    location = default_location() if location is None else str(location)
    return Store(location, create=create)


# ------------------------------------------------------------------ rows

def _num(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if f != f else f


def _int(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def _device(data):
    for t in data.get("per_target") or []:
        dev = t.get("device") if isinstance(t, dict) else None
        if isinstance(dev, dict):
            return dev
    return {}


def workload_key(data):
    """The measuring keys of a result's workload as canonical JSON (equal workloads, equal text)."""
    wl = data.get("workload") if isinstance(data.get("workload"), dict) else {}
    return json.dumps({k: wl.get(k) for k in WORKLOAD_KEYS if k in wl}, sort_keys=True, separators=(",", ":"))


def row_of(result, saved_at=None):
    """The indexed columns of one Result."""
    r = result if isinstance(result, Result) else Result(result)
    data, fig = r.data, figures(r)
    dev = _device(data)
    host = data.get("host")
    # The result names no kernel: the saving machine's, when the run is this machine's.
    kernel = data.get("kernel") or (platform.release() if host == socket.gethostname() else None)
    return {
        "saved_at": saved_at or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": host, "start_time": data.get("start_time"), "start_unix_ns": _int(data.get("start_unix_ns")),
        "target": None if r.meta.get("target") is None else str(r.meta.get("target")),
        "device_model": dev.get("model") or None, "device_serial": dev.get("serial") or None,
        "engine": r.meta.get("engine"), "stack": None if r.meta.get("stack") is None else str(r.meta.get("stack")),
        "rw": r.meta.get("rw"), "bs": _int(r.meta.get("bs")), "qd": _int(r.meta.get("qd")),
        "jobs": _int(r.meta.get("jobs")), "cell": r.meta.get("cell"), "op": r.meta.get("op"),
        "workload_key": workload_key(data),
        "iops": _num(fig.get("iops")), "bw_gib_s": _num(fig.get("bw_gib_s")),
        "lat_mean_ms": _num(fig.get("lat_mean_ms")), "lat_p99_ms": _num(fig.get("lat_p99_ms")),
        "cpu_us_per_io": _num(fig.get("cpu_us_per_io")), "duration_s": _num(fig.get("duration_s")),
        "nvbench_version": data.get("version"), "source": fig.get("source"),
        "device_firmware": dev.get("firmware") or None, "kernel": kernel,
    }


# ------------------------------------------------------------------ schema

def _ddl(pg, version=SCHEMA_VERSION):
    ident = "BIGSERIAL PRIMARY KEY" if pg else "INTEGER PRIMARY KEY AUTOINCREMENT"
    cols = ", ".join(f"{c} {t}" for c, t in COLUMNS if ADDED_IN.get(c, 1) <= version)
    out = ["CREATE TABLE nvbench_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
           f"CREATE TABLE runs (id {ident}, {cols}, result TEXT NOT NULL)",
           "CREATE INDEX runs_host_time ON runs (host, start_unix_ns)",
           "CREATE INDEX runs_time ON runs (start_unix_ns)",
           "CREATE INDEX runs_workload ON runs (workload_key)"]
    if version >= 2:
        out += ["CREATE TABLE run_labels (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
                "name TEXT NOT NULL, value TEXT NOT NULL)",
                "CREATE INDEX run_labels_name ON run_labels (name, value)",
                "CREATE INDEX run_labels_run ON run_labels (run_id)"]
    if version >= 3:
        out += _points.ddl(pg)
    return out


def _migrate_1_to_2(store, cur):
    """Version 2: the device firmware and kernel columns, user labels; kernels and firmware
    of old runs stay unknown (NULL): version 1 did not record them."""
    for c in ("device_firmware", "kernel"):
        cur.execute(f"ALTER TABLE runs ADD COLUMN {c} TEXT")
    for stmt in _ddl(store.pg, 2)[-3:]:
        cur.execute(stmt)


def _migrate_2_to_3(store, cur):
    """Version 3: the time-series points of runs, as measured (point_streams, points); runs
    saved before have none (their results keep their series, merged or not)."""
    for stmt in _points.ddl(store.pg):
        cur.execute(stmt)


def _migrate_3_to_4(store, cur):
    """Version 4: the points' percentiles are doubles (a bucket's midpoint may be x.5 ns),
    as they were in SQLite, where a column keeps each value's own type: PostgreSQL's BIGINT
    columns rounded them. Points stored before keep their rounded values."""
    if store.pg:
        for c in _points.PCT_COLUMNS:
            cur.execute(f"ALTER TABLE points ALTER COLUMN {c} TYPE DOUBLE PRECISION")


MIGRATIONS = {1: _migrate_1_to_2, 2: _migrate_2_to_3, 3: _migrate_3_to_4}


# ------------------------------------------------------------------ the store

class Store:
    """One open store. Not shared between threads; each process opens its own."""

    def __init__(self, location, create=True):
        self.location = location
        self.pg = is_postgres(location)
        self.name = _redact(location) if self.pg else location
        self._conn = None
        try:
            self._connect(create)
            self._ensure_schema(create)
        except StoreError:
            self.close()
            raise
        except Exception as e:
            self.close()
            raise self._error(e, "open") from None

    # --- connection --------------------------------------------------------

    def _connect(self, create):
        if self.pg:
            try:
                import psycopg2
            except ImportError:
                raise StoreError(f"store {self.name}: PostgreSQL needs psycopg2 (Debian: apt-get install "
                                 f"python3-psycopg2)") from None
            self._conn = psycopg2.connect(self.location, connect_timeout=10)
            # transactions are begun and ended here, explicitly, as with SQLite
            self._conn.autocommit = True
            return
        import sqlite3
        path = self.location
        if not create and not os.path.exists(path):
            raise StoreError(f"store {path}: no such file")
        if create and not os.path.exists(path):
            d = os.path.dirname(os.path.abspath(path))
            try:
                os.makedirs(d, exist_ok=True)
            except OSError as e:
                raise StoreError(f"store {path}: cannot create its directory {d}: {e.strerror}") from None
        timeout = float(os.environ.get("NVBENCH_DB_TIMEOUT", "10"))
        # isolation_level None: transactions are begun and ended here, explicitly
        self._conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
        self._conn.execute("PRAGMA foreign_keys = ON")

    def close(self):
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:
                pass
            self._conn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _sql(self, text):
        # our own statements are written with ?; psycopg2 wants %s (values stay parameters)
        return text.replace("?", "%s") if self.pg else text

    def _error(self, e, doing):
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        low = msg.lower()
        if "locked" in low or "busy" in low:
            why = f"locked by another process ({msg}); try again, or raise NVBENCH_DB_TIMEOUT (seconds)"
        elif "readonly" in low or "read-only" in low or "permission denied" in low:
            why = f"read-only ({msg})"
        elif "not a database" in low or "malformed" in low or "corrupt" in low:
            why = f"not a readable nvbench store: corrupt or another kind of file ({msg})"
        elif "disk is full" in low or "no space" in low:
            why = f"full ({msg})"
        elif "unable to open" in low:
            why = f"cannot be opened ({msg})"
        else:
            why = msg
        return StoreError(f"store {self.name}: {doing}: {why}")

    def _begin(self, cur):
        cur.execute("BEGIN" if self.pg else "BEGIN IMMEDIATE")

    # --- schema ------------------------------------------------------------

    def _tables(self, cur):
        if self.pg:
            cur.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
        else:
            cur.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {r[0] for r in cur.fetchall()}

    def _ensure_schema(self, create):
        cur = self._conn.cursor()
        tables = self._tables(cur)
        if "nvbench_meta" not in tables:
            if tables and "runs" in tables:
                raise StoreError(f"store {self.name}: has a runs table but no nvbench_meta: not an nvbench store")
            if not create:
                raise StoreError(f"store {self.name}: empty, no runs saved yet")
            self._begin(cur)
            try:
                if self.pg:  # two processes creating one schema: one waits for the other
                    cur.execute("SELECT pg_advisory_xact_lock(2926)")
                if "nvbench_meta" not in self._tables(cur):
                    for stmt in _ddl(self.pg):
                        cur.execute(stmt)
                    cur.execute(self._sql("INSERT INTO nvbench_meta (key, value) VALUES (?, ?)"),
                                ("schema_version", str(SCHEMA_VERSION)))
                cur.execute("COMMIT")
            except Exception:
                cur.execute("ROLLBACK")
                raise
        self.version = self._version(cur)
        if self.version > SCHEMA_VERSION:
            raise StoreError(f"store {self.name}: schema version {self.version} is newer than this nvbench's "
                             f"({SCHEMA_VERSION}): written by a newer nvbench; upgrade nvbench to use it")
        if self.version < SCHEMA_VERSION:
            self._migrate(cur)

    def _version(self, cur):
        cur.execute(self._sql("SELECT value FROM nvbench_meta WHERE key = ?"), ("schema_version",))
        row = cur.fetchone()
        if row is None or not str(row[0]).isdigit():
            raise StoreError(f"store {self.name}: no schema version recorded: not an nvbench store")
        return int(row[0])

    def _migrate(self, cur):
        self._begin(cur)
        try:
            if self.pg:
                cur.execute("SELECT pg_advisory_xact_lock(2926)")
            v = self._version(cur)  # another process may have migrated it meanwhile
            while v < SCHEMA_VERSION:
                MIGRATIONS[v](self, cur)
                v += 1
            cur.execute(self._sql("UPDATE nvbench_meta SET value = ? WHERE key = ?"), (str(v), "schema_version"))
            cur.execute("COMMIT")
        except Exception:
            cur.execute("ROLLBACK")
            raise
        self.version = SCHEMA_VERSION

    # --- writing -----------------------------------------------------------

    def save(self, results, labels=None, points=None):
        """Save each Result (or result dict) with the user's labels ({name: value} or
        [(name, value)]); one transaction each. points: the _points.PointWriter that wrote
        the results' points while they were measured (closed): the points it left are
        written in the first run's transaction, and each run is linked to its points in
        its own. Returns the new ids."""
        if isinstance(results, (dict, Result)):
            results = [results]
        labels = list(labels.items()) if isinstance(labels, dict) else list(labels or [])
        ids = []
        for r in results:
            ids.append(self._save_one(r, labels, points))
        return ids

    def _insert_run(self, cur, result, labels):
        """The run's row and its labels, inside the caller's transaction; its id."""
        r = result if isinstance(result, Result) else Result(result)
        row = row_of(r)
        text = json.dumps(r.to_dict(), separators=(",", ":"))
        names = list(row) + ["result"]
        sql = self._sql(f"INSERT INTO runs ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})")
        if self.pg:
            cur.execute(sql + " RETURNING id", [row[n] for n in names[:-1]] + [text])
            rid = cur.fetchone()[0]
        else:
            cur.execute(sql, [row[n] for n in names[:-1]] + [text])
            rid = cur.lastrowid
        self._insert_labels(cur, rid, labels)
        return rid

    def _link(self, cur, rid, stream):
        """The points of stream are the run rid's."""
        if stream is not None:
            cur.execute(self._sql("UPDATE point_streams SET run_id = ? WHERE id = ?"), (rid, stream))

    def _save_one(self, result, labels, points=None):
        try:
            cur = self._conn.cursor()
            self._begin(cur)
            try:
                rid = self._insert_run(cur, result, labels)
                if points is not None:
                    points.write_rest(self, cur)
                    points.link(self, cur, rid, result)
                cur.execute("COMMIT")
            except BaseException:
                try:
                    cur.execute("ROLLBACK")
                except Exception:
                    pass
                raise
        except StoreError:
            raise
        except Exception as e:
            raise self._error(e, "saving a run") from None
        return rid

    def _insert_labels(self, cur, rid, labels):
        for name, value in labels:
            cur.execute(self._sql("INSERT INTO run_labels (run_id, name, value) VALUES (?, ?, ?)"),
                        (rid, str(name), str(value)))

    # --- reading -----------------------------------------------------------

    def query(self, where=(), last=None, columns=None, with_result=False, order="asc"):
        """Runs matching every (key, value) of ``where`` (key: a FILTER_KEYS column or
        ``label.NAME``; value compared as text, or ``None`` for NULL), oldest first; ``last``
        keeps the newest N. Rows are dicts of the columns (and "labels", and "result" when
        with_result)."""
        cols = ["id"] + [c for c, _ in COLUMNS] + (["result"] if with_result else [])
        conds, params = [], []
        for key, value in where:
            if key.startswith("label.") and len(key) > 6:
                conds.append("id IN (SELECT run_id FROM run_labels WHERE name = ? AND value = ?)")
                params += [key[6:], str(value)]
            elif key in FILTER_KEYS:
                if value is None:
                    conds.append(f"{key} IS NULL")
                else:
                    # compared as text so '4096' finds bs 4096 in either database
                    conds.append(f"CAST({key} AS TEXT) = ?")
                    params.append(str(value))
            else:
                raise StoreError(f"unknown field '{key}' to filter on (known: {', '.join(FILTER_KEYS)}, "
                                 f"label.NAME)")
        sql = f"SELECT {', '.join(cols)} FROM runs"
        if conds:
            sql += " WHERE " + " AND ".join(conds)
        sql += " ORDER BY start_unix_ns DESC, id DESC" if last is not None else " ORDER BY start_unix_ns, id"
        if last is not None:
            sql += " LIMIT ?"
            params.append(int(last))
        try:
            cur = self._conn.cursor()
            cur.execute(self._sql(sql), params)
            rows = [dict(zip(cols, r)) for r in cur.fetchall()]
            if last is not None:
                rows.reverse()
            self._attach_labels(cur, rows)
            if not self.pg:
                self._conn.commit() if self._conn.in_transaction else None
        except StoreError:
            raise
        except Exception as e:
            raise self._error(e, "reading runs") from None
        if columns:
            rows = [{k: r.get(k) for k in columns} for r in rows]
        return rows

    def _attach_labels(self, cur, rows):
        by_id = {r["id"]: r for r in rows}
        for r in rows:
            r["labels"] = {}
        ids = list(by_id)
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            cur.execute(self._sql(f"SELECT run_id, name, value FROM run_labels WHERE run_id IN "
                                  f"({', '.join('?' * len(chunk))}) ORDER BY run_id"), chunk)
            for rid, name, value in cur.fetchall():
                labs = by_id[rid]["labels"]
                labs[name] = value if name not in labs else f"{labs[name]},{value}"

    def results(self, where=(), last=None):
        """The matching runs as a ResultSet, each Result read back from its saved JSON."""
        out = []
        for row in self.query(where, last, with_result=True):
            rs = loads(row["result"])
            for r in rs:
                out.append(r.with_meta(store_id=row["id"], store_kernel=row["kernel"]))
        return ResultSet(out)

    def points(self, run_ids):
        """The points stored for these runs (ids), as dicts of _points.COLUMNS with run_id and
        stream label, in the order measured."""
        try:
            return _points.read(self, self._conn.cursor(), [int(i) for i in run_ids])
        except StoreError:
            raise
        except Exception as e:
            raise self._error(e, "reading points") from None

    def count(self):
        try:
            cur = self._conn.cursor()
            cur.execute("SELECT COUNT(*) FROM runs")
            return cur.fetchone()[0]
        except Exception as e:
            raise self._error(e, "counting runs") from None


def _redact(url):
    """A URL without its password, to name it in messages."""
    head, sep, rest = url.partition("://")
    if "@" in rest.split("/", 1)[0]:
        cred, _, host = rest.partition("@")
        return f"{head}{sep}{cred.split(':', 1)[0]}@{host}"
    return url


def history(db=None, where=(), last=None, results=False, **filters):
    """The runs of a store as a pandas DataFrame, one row per run, oldest first:
    ``nvbench.history(host="a", stack="io_uring", last=20)``. Filters are the store's columns
    (FILTER_KEYS) given as keywords or (name, value) pairs in ``where`` (``("label.ci", "1")``),
    passed to the database as parameters. ``results=True`` adds a ``result`` column holding
    each run as a :class:`nvbench.Result`. Columns: id, the indexed columns, labels (a dict)."""
    pd = _pandas()
    pairs = list(where) + sorted(filters.items())
    with open_store(db, create=False) as st:
        rows = st.query(pairs, last, with_result=results)
    if results:
        for r in rows:
            r["result"] = loads(r["result"])[0]
    cols = ["id"] + [c for c, _ in COLUMNS] + ["labels"] + (["result"] if results else [])
    df = pd.DataFrame(rows, columns=cols)
    df["start_time"] = pd.to_datetime(df["start_time"], utc=True, errors="coerce")
    return df


def points(run_id, db=None):
    """The time-series points a store holds for a run (an id of ``history()``, or a list of
    them), every interval as it was measured, as a pandas DataFrame, one row per point in
    the order measured: ``run_id``, ``label`` (the step, cell or MPI rank: ``rank=2``), ``host``
    (where it was measured), ``idx``, ``job_group`` (a
    job group's name, else None), the point's ``t_s``, ``dt_s``, ``t_unix_ns``, ``errors``, ``system_pct``, and per direction
    (read, write, trim) ``ios``, ``bytes``, ``iops``, ``bw_bytes_s``, ``lat_mean_ns``,
    ``lat_sum_ns``, ``p50_ns``, ``p99_ns``, ``p99_9_ns`` (``read_iops``, ...). Empty for a run
    saved without its points (from a file, or before schema version 3).
    ``nvbench.points(nvbench.history(host="a", last=1)["id"])``"""
    pd = _pandas()
    ids = list(run_id) if hasattr(run_id, "__iter__") and not isinstance(run_id, (str, bytes)) else [run_id]
    with open_store(db, create=False) as st:
        rows = st.points(ids)
    return pd.DataFrame(rows, columns=_points.READ_COLUMNS)


class PointWriter(_points.PointWriter):
    """_points.PointWriter writing into this module's stores (open_store; its errors are
    StoreError): what --save uses while a run goes on."""
    _StoreError = StoreError

    def _open_store(self, location):
        return open_store(location)
