#!/usr/bin/env python3
"""store_cost.py - what the results store costs (issue 29): saving a run beside the run's own
wall time, and `nvbench history` for one host over a store of many runs.

    PYTHON -m ... tests/bench/store_cost.py [--runtime 10] [--runs 10000] [--rounds 5] [--dir DIR]

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
     print), --rounds times, and the query alone in-process; medians.
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", type=float, default=10)
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dir", default=None)
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="nvb-store-bench-", dir=a.dir)
    target = os.path.join(d, "data")
    with open(target, "wb") as f:
        f.truncate(1 << 20)

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
    print(f"| the query in-process (open, select, labels) | {q_med * 1000:.0f} ms |")
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
