#!/usr/bin/env python3
"""store_cost.py - what the results store costs (issue 29): saving a run beside the run's own
wall time, and `nvbench history` for one host over a store of many runs.

    PYTHON -m ... tests/bench/store_cost.py [--runtime 10] [--runs 10000] [--rounds 5] [--dir DIR]
                                            [--points-only] [--intervals 1s,100ms,10ms]

Run with the interpreter of a venv nvbench is installed in (build/tests/python-venv/bin/python).
A benchmark, not a test: never run by CTest. Prints markdown:
  1. one null-engine randread run of --runtime seconds (interval 1 s: its time series as a real
     run's), its wall time measured around nvbench.run; then the same result saved --rounds
     times into a fresh SQLite store through what `--save` does (open the store, check its
     schema, one transaction with the run and two labels, close), each timed; the median save
     over the run's wall time is the cost of saving;
  2. a store of --runs runs (copies of that result over 10 hosts and a year of start times,
     written in one transaction: the writing is not what is measured), then `nvbench history
     --host h3` as a user types it (a new process: interpreter start-up, import, open, query,
     print), --rounds times, and the query alone in-process; medians;
  3. the time-series points (schema 3): for each of --intervals, --rounds pairs of runs side
     by side, one saved as before (the run, then its save), one with its points written while
     it runs (a PointWriter, as --save does) and then saved with them; the wall time of each
     run, of each save, and the writer thread's CPU time; medians.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import nvbench
from nvbench import store


def median_time(fn, rounds):
    ts = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), min(ts), max(ts)


def points_cost(target, d, runtime, intervals, rounds):
    """Part 3: the cost of the points beside a run saved without them."""
    from nvbench import core
    from nvbench.store import PointWriter
    print(f"Time-series points (a {runtime:g} s null-engine randread per run, medians of {rounds} pairs run "
          "side by side):\n")
    print("| interval | points | run (without / with points) | save (without / with) | writer thread CPU | "
          "cost of the points, share of the run |")
    print("|---|---|---|---|---|---|")
    for iv in intervals:
        rows = {False: [], True: []}
        for k in range(rounds):
            for with_points in (False, True):
                db = os.path.join(d, f"p-{iv}-{k}-{int(with_points)}.db")
                store.open_store(db).close()  # the schema exists, as in a store in use
                w = core.workload(target, engine="null", rw="randread", bs="4k", runtime=f"{runtime}s", interval=iv)
                pw = PointWriter(db) if with_points else None
                point = pw.begin("bench") if pw else None
                t0 = time.perf_counter()
                r = core._run_workload(w, point=point, warn=False)
                t1 = time.perf_counter()
                if pw:
                    pw.done(r)
                    pw.close(flush=False)  # as --save: the last points in the run's transaction
                with store.open_store(db) as st:
                    st.save(r, [("ci", "1")], pw)
                t2 = time.perf_counter()
                n = pw.written if pw else len(r.data["timeseries"])
                rows[with_points].append((t1 - t0, t2 - t1, pw.thread_s if pw else 0.0, n))
        med = {m: [statistics.median(x[i] for x in rows[m]) for i in range(4)] for m in rows}
        without, withp = med[False], med[True]
        # the points' cost: the save's extra time plus the writer's CPU while the run went on
        cost = (withp[1] - without[1]) + withp[2]
        print(f"| {iv} | {withp[3]:,.0f} | {without[0]:.2f} s / {withp[0]:.2f} s | {without[1] * 1000:.1f} ms / "
              f"{withp[1] * 1000:.1f} ms | {withp[2] * 1000:.1f} ms | {cost * 1000:.1f} ms, "
              f"{100 * cost / withp[0]:.2f} % |")
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", type=float, default=10)
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--points-only", action="store_true", help="part 3 alone")
    ap.add_argument("--intervals", default="1s,100ms,10ms")
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="nvb-store-bench-", dir=a.dir)
    target = os.path.join(d, "data")
    with open(target, "wb") as f:
        f.truncate(1 << 20)
    if a.points_only:
        points_cost(target, d, a.runtime, a.intervals.split(","), a.rounds)
        shutil.rmtree(d, ignore_errors=True)
        return

    t0 = time.perf_counter()
    r = nvbench.run(target, engine="null", rw="randread", bs="4k", runtime=f"{a.runtime}s", interval="1s")
    run_wall = time.perf_counter() - t0
    size = len(r.to_json())

    db = os.path.join(d, "save.db")

    def save():
        with store.open_store(db) as st:
            st.save(r, [("ci", "1"), ("build", "bench")])
    save()  # the first creates the schema: not what a run pays from then on
    med, lo, hi = median_time(save, a.rounds)

    print(f"## Results store: cost of saving a run, history over {a.runs:,} runs\n")
    print(f"Saving (`--save`, SQLite on {os.path.dirname(db)}), median of {a.rounds}:\n")
    print("| run wall time | result JSON | save (open, check schema, write, close) | share of the run |")
    print("|---|---|---|---|")
    print(f"| {run_wall:.2f} s | {size / 1024:.0f} KiB | {med * 1000:.1f} ms (min {lo * 1000:.1f}, max "
          f"{hi * 1000:.1f}) | {100 * med / run_wall:.2f} % |\n")

    big = os.path.join(d, "big.db")
    with store.open_store(big) as st:
        row = store.row_of(r)
        text = json.dumps(r.to_dict(), separators=(",", ":"))
        names = list(row) + ["result"]
        cur = st._conn.cursor()
        cur.execute("BEGIN")
        base = int(row["start_unix_ns"] or 0)
        year_ns = 365 * 86400 * 10**9
        for i in range(a.runs):
            row["host"] = f"h{i % 10}"
            row["start_unix_ns"] = base - year_ns + i * (year_ns // a.runs)
            cur.execute(f"INSERT INTO runs ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                        [row[n] for n in names[:-1]] + [text])
            cur.execute("INSERT INTO run_labels (run_id, name, value) VALUES (?, ?, ?)",
                        (cur.lastrowid, "i", str(i)))
        cur.execute("COMMIT")
        n = st.count()
    mib = os.path.getsize(big) / (1 << 20)
    env = dict(os.environ, NVBENCH_DB=big)
    cmd = [sys.executable, "-m", "nvbench", "history", "--host", "h3"]
    lines = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout.count("\n")
    cli_med, cli_lo, cli_hi = median_time(lambda: subprocess.run(cmd, env=env, capture_output=True, check=True),
                                          a.rounds)
    jcmd = cmd + ["--json"]
    j_med, _, _ = median_time(lambda: subprocess.run(jcmd, env=env, capture_output=True, check=True), a.rounds)
    base_cmd = [sys.executable, "-c", "import nvbench"]
    imp_med, _, _ = median_time(lambda: subprocess.run(base_cmd, capture_output=True, check=True), a.rounds)

    def q():
        with store.open_store(big, create=False) as st:
            return st.query([("host", "h3")])
    q_med, _, _ = median_time(q, a.rounds)
    print(f"History over a store of {n:,} runs ({mib:.0f} MiB; 10 hosts), one host's {lines - 1:,} runs, "
          f"median of {a.rounds}:\n")
    print("| what | time |")
    print("|---|---|")
    print(f"| `nvbench history --host h3` (table; a new process) | {cli_med:.2f} s (min {cli_lo:.2f}, max {cli_hi:.2f}) |")
    print(f"| `nvbench history --host h3 --json` | {j_med:.2f} s |")
    print(f"| of which `python -c 'import nvbench'` alone | {imp_med:.2f} s |")
    print(f"| the query in-process (open, select, labels) | {q_med * 1000:.0f} ms |\n")
    points_cost(target, d, a.runtime, a.intervals.split(","), a.rounds)
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
