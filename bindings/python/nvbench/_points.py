"""The time-series points of runs in the store, at full resolution (docs/history.md).

A run's result keeps a bounded series (timeseries_max: neighbours merged once the limit is
reached); the store keeps every interval as the library measured it, written while the run
goes on, so a day-long run's points are neither held in memory nor lost with the process.

Tables (schema version 3, percentiles doubles since 4; the same in SQLite and PostgreSQL):
  point_streams (id, run_id, host, label, started_at): the points of one run, as measured;
      run_id is set in the transaction that saves the run, NULL until then (a run whose saving
      failed keeps its points, unlinked).
  points (stream_id, idx, ...COLUMNS): one row per interval, its figures as the point's JSON
      (and a --live line) has them; the latency histograms are left out (about 1.5 KB of a
      point's 1.7 KB: the result keeps them, merged).

PointWriter writes them from a thread of its own with its own connection: the run's thread
(where the library calls the point callback) only queues the point's text. Batches of points
are one transaction each: a writer killed half way loses only its last batch, never the
store's consistency.
"""
import json
import queue
import socket
import threading
import time

DIRS = ("read", "write", "trim")
# (column, SQL type, key of a direction's object); p99.9 cannot be a column name. A
# percentile may be a bucket's midpoint (x.5 ns): a double (BIGINT before schema version 4).
DIR_FIELDS = (("ios", "BIGINT", "ios"), ("bytes", "BIGINT", "bytes"), ("iops", "DOUBLE PRECISION", "iops"),
              ("bw_bytes_s", "DOUBLE PRECISION", "bw_bytes_s"), ("lat_mean_ns", "DOUBLE PRECISION", "lat_mean_ns"),
              ("lat_sum_ns", "BIGINT", "lat_sum_ns"), ("p50_ns", "DOUBLE PRECISION", "p50"),
              ("p99_ns", "DOUBLE PRECISION", "p99"), ("p99_9_ns", "DOUBLE PRECISION", "p99.9"))
PCT_COLUMNS = tuple(f"{d}_{c}" for d in DIRS for c in ("p50_ns", "p99_ns", "p99_9_ns"))
# (column, SQL type, key of the point): a job group's point names its group ("group": SQL's word)
TOP_FIELDS = (("job_group", "TEXT", "group"), ("t_s", "DOUBLE PRECISION", "t_s"),
              ("dt_s", "DOUBLE PRECISION", "dt_s"), ("t_unix_ns", "BIGINT", "t_unix_ns"), ("errors", "BIGINT", "errors"),
              ("system_pct", "DOUBLE PRECISION", "system_pct"))
COLUMNS = tuple((c, t) for c, t, _ in TOP_FIELDS) + tuple((f"{d}_{c}", t) for d in DIRS for c, t, _ in DIR_FIELDS)
READ_COLUMNS = ("run_id", "label", "host", "idx") + tuple(c for c, _ in COLUMNS)
# rows of one INSERT: within SQLite's oldest limit of 999 parameters
BATCH_ROWS = 999 // (len(COLUMNS) + 2)


def ddl(pg):
    ident = "BIGSERIAL PRIMARY KEY" if pg else "INTEGER PRIMARY KEY AUTOINCREMENT"
    cols = ", ".join(f"{c} {t}" for c, t in COLUMNS)
    return [f"CREATE TABLE point_streams (id {ident}, run_id BIGINT REFERENCES runs (id) ON DELETE CASCADE, "
            "host TEXT, label TEXT, started_at TEXT)",
            "CREATE INDEX point_streams_run ON point_streams (run_id)",
            "CREATE TABLE points (stream_id BIGINT NOT NULL REFERENCES point_streams (id) ON DELETE CASCADE, "
            f"idx BIGINT NOT NULL, {cols}, PRIMARY KEY (stream_id, idx))"]


def row_of(pt):
    """A point (the dict of its JSON) as the values of COLUMNS."""
    out = [pt.get(k) for _, _, k in TOP_FIELDS]
    for d in DIRS:
        o = pt.get(d)
        out += [o.get(k) for _, _, k in DIR_FIELDS] if isinstance(o, dict) else [None] * len(DIR_FIELDS)
    return out


def read(store, cur, run_ids):
    """Rows (dicts of READ_COLUMNS) of the points of these runs, by run, then as measured."""
    out = []
    cols = ", ".join(f"p.{c}" for c, _ in COLUMNS)
    for i in range(0, len(run_ids), 500):
        chunk = run_ids[i:i + 500]
        if not chunk:
            continue
        cur.execute(store._sql(f"SELECT s.run_id, s.label, s.host, p.idx, {cols} FROM points p JOIN point_streams s "
                               f"ON p.stream_id = s.id WHERE s.run_id IN ({', '.join('?' * len(chunk))}) "
                               "ORDER BY s.run_id, s.id, p.idx"), chunk)
        out += [dict(zip(READ_COLUMNS, r)) for r in cur.fetchall()]
    if not store.pg and store._conn.in_transaction:
        store._conn.commit()
    return out


class PointWriter:
    """Writes the points of the runs of one command into a store, from a thread of its own.

    begin(label) starts the points of one run (a step, a job group's run, a matrix cell) and
    returns the callable to give the library (point(text)); done(result) says which result
    those points are of, so that saving it links them. close() ends the thread: the points
    still queued are written then (flush) or left to the transaction that saves the runs
    (Store.save(points=...) calls write_rest: one commit fewer), and what could not be written
    is said through err. A store that fails (locked beyond its timeout, read-only, corrupt,
    newer) costs the points only: the run goes on."""

    FLUSH_S = 0.5  # a point waits at most this long to be written, while the run goes on
    # The store's opener and its error, given by store.PointWriter (store imports this module,
    # so this one names neither).
    _StoreError = Exception

    def _open_store(self, location):
        raise NotImplementedError("use store.PointWriter, which opens the store")

    def __init__(self, location, err=None, labels=(), host=None):
        self.location, self.err = location, err
        self.host = host or socket.gethostname()  # each stream's host
        self.q = queue.Queue()
        self.by_result = {}          # id(result) -> stream id
        self._streams = []           # stream ids, in order begun (None until written)
        self._refs = []              # (host, label) of each stream, in order begun
        self._current = None
        self.queued = self.written = 0
        self.failure = None
        self.rest = []               # queued when the thread ended without writing them
        self._flush_at_end = True
        self.labels = list(labels)   # [(name, value)] saved with each run save() saves
        self.saves = False           # save() was called: close() then writes what is queued
        self.saved = {}
        self.thread_s = 0.0          # the writer thread's CPU time (the benchmark reads it)
        self._t = threading.Thread(target=self._main, name="nvbench-points", daemon=True)
        self._t.start()

    # --- the run's side ------------------------------------------------------

    def begin(self, label):
        k = len(self._streams)
        self._streams.append(None)
        self._current = k
        self.q.put(("begin", k, label))
        self._refs.append((self.host, label))
        state = {"idx": 0}

        def point(text):
            self.q.put(("point", k, state["idx"], text))
            state["idx"] += 1
            self.queued += 1
        return point

    def done(self, result):
        """The result the points begun last are of (a partial one too)."""
        if result is not None and self._current is not None:
            self.by_result[id(result)] = self._current

    def save(self, result):
        """Save the result the points begun last are of, as soon as they are written: the
        writer's thread saves it (with labels) in the transaction of its last points, so a
        command of many runs keeps each one it finished. saved: {id(result): run id}."""
        self.done(result)
        self.saves = True
        self.q.put(("run", self._current, result))

    def close(self, flush=True):
        """End the writer's thread; the points still queued are written now (flush), or kept
        for write_rest in the transaction that saves the runs."""
        if self._t is not None:
            self._flush_at_end = flush
            self.q.put(None)
            self._t.join()
            self._t = None
            self._say()

    def _say(self):
        if self.failure and self.err:
            self.err(f"{self.failure}: {self.queued - self.written} of {self.queued} time-series points "
                     "not stored (the result keeps its series)")
            self.err = None  # once

    def streams(self):
        """{id(result): stream id} of the streams written, for linking."""
        return {rid: self._streams[k] for rid, k in self.by_result.items() if self._streams[k] is not None}

    def stream_ref(self):
        """(stream id, host, label) of the stream begun first, once written (None if not):
        how another process names it to link it (Streams)."""
        return None if not self._streams or self._streams[0] is None else (self._streams[0],) + self._refs[0]

    def link(self, st, cur, rid, result):
        """Inside the transaction saving result as run rid (Store.save): its points are that run's."""
        st._link(cur, rid, self.streams().get(id(result)))

    def write_rest(self, st, cur):
        """The points close() left, inside the caller's transaction on st (Store.save)."""
        rest, self.rest = self.rest, []
        if rest and not self.failure:
            self.saved.update(self._items(st, cur, rest))
            self.written += sum(1 for it in rest if it[0] == "point")

    # --- the writer's thread ---------------------------------------------------

    def _main(self):
        t0 = time.thread_time()
        st, batch, due = None, [], None
        try:
            st = self._open_store(self.location)
        except self._StoreError as e:
            self.failure = str(e)
        except Exception as e:  # noqa: BLE001 - whatever it is, the run goes on
            self.failure = f"store {self.location}: {e}"
        while True:
            # a batch is written FLUSH_S after its first point came: the last points of a
            # run are then still queued when the run ends, for the transaction saving it
            try:
                item = self.q.get(timeout=None if due is None else max(0.0, due - time.monotonic()))
            except queue.Empty:
                item = ()
            if item is None:
                if self._flush_at_end:
                    self._write(st, batch)
                else:
                    self.rest = batch
                break
            if item:
                batch.append(item)
                # a run to save is written at once, with the points before it
                due = time.monotonic() if item[0] == "run" else due or time.monotonic() + self.FLUSH_S
            if batch and (len(batch) >= 4 * BATCH_ROWS or time.monotonic() >= due):
                self._write(st, batch)
                batch, due = [], None
        if st is not None:
            st.close()
        self.thread_s = time.thread_time() - t0

    def _write(self, st, items):
        """One transaction: the streams begun and the points measured since the last."""
        if st is None or self.failure or not items:
            return
        cur = st._conn.cursor()
        try:
            st._begin(cur)
            saved = self._items(st, cur, items)
            cur.execute("COMMIT")
            self.saved.update(saved)
            self.written += sum(1 for it in items if it[0] == "point")
        except Exception as e:  # noqa: BLE001 - named once at close; the run goes on
            try:
                cur.execute("ROLLBACK")
            except Exception:  # noqa: BLE001
                pass
            # streams begun in this batch were rolled back with it
            for it in items:
                if it[0] == "begin":
                    self._streams[it[1]] = None
            self.failure = str(st._error(e, "writing time-series points"))

    def _items(self, st, cur, items):
        """Streams begun, points and runs to save, in order; {id(result): run id} of the runs."""
        rows, saved = [], {}
        for it in items:
            if it[0] == "point":
                _, k, idx, text = it
                rows.append([self._streams[k], idx] + row_of(json.loads(text)))
                continue
            self._flush_rows(st, cur, rows)
            if it[0] == "begin":
                self._streams[it[1]] = self._stream(st, cur, it[2])
            else:
                rid = st._insert_run(cur, it[2], self.labels)
                st._link(cur, rid, self._streams[it[1]])
                saved[id(it[2])] = rid
        self._flush_rows(st, cur, rows)
        return saved

    def _stream(self, st, cur, label):
        sql = st._sql("INSERT INTO point_streams (host, label, started_at) VALUES (?, ?, ?)")
        args = (self.host, label, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        if st.pg:
            cur.execute(sql + " RETURNING id", args)
            return cur.fetchone()[0]
        cur.execute(sql, args)
        return cur.lastrowid

    @staticmethod
    def _flush_rows(st, cur, rows):
        names = "stream_id, idx, " + ", ".join(c for c, _ in COLUMNS)
        one = "(" + ", ".join("?" * (len(COLUMNS) + 2)) + ")"
        while rows:
            chunk, rows[:] = rows[:BATCH_ROWS], rows[BATCH_ROWS:]
            cur.execute(st._sql(f"INSERT INTO points ({names}) VALUES {', '.join([one] * len(chunk))}"),
                        [v for r in chunk for v in r])


class Streams:
    """The streams of points that other processes wrote for one result (the ranks of an MPI
    run, each with a PointWriter of its own: refs, their stream_ref() and points written),
    given to Store.save(points=...) in place of a PointWriter: the run saved is linked to
    those of them its store holds (by id, host and label, not yet linked to a run; a rank on
    another host may have written into a store of its own), in the run's transaction."""

    saves = False

    def __init__(self, result, refs):
        self.result = id(result)
        self.refs = [(ref, n) for ref, n in refs if ref is not None]
        self.saved, self.written, self.unlinked = {}, 0, []

    def close(self, flush=True):
        pass

    def streams(self):
        return {self.result: [ref for ref, _ in self.refs]} if self.refs else {}

    def write_rest(self, st, cur):
        pass

    def link(self, st, cur, rid, result):
        self.written, self.unlinked = 0, []
        if id(result) != self.result:
            return
        for (sid, host, label), n in self.refs:
            cur.execute(st._sql("UPDATE point_streams SET run_id = ? WHERE id = ? AND host = ? AND label = ? "
                                "AND run_id IS NULL"), (rid, sid, host, label))
            if cur.rowcount == 1:
                self.written += n
            else:
                self.unlinked.append((host, label))
