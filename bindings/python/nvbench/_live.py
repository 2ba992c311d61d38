"""nvbench run --live FILE|- and --metrics ADDR: the run's figures while it goes on.

--live writes one JSON line per interval as the library measures it: the
time-series point (the object the result's timeseries[] holds for it, its
keys unchanged, byte for byte before the "progress" key) with a "progress"
object appended: elapsed_s (the point's end), done_fraction (the progress
snapshot taken at that tick), and the run's ios, bytes and errors so far.
A command of several runs (a job file's steps, a matrix's cells, a search's
runs) names the run first in that object: "step" (from 1), "steps" (null
for a search: not known ahead) and "label"; each run's figures start from
zero. A job group's point names its group ("group", the
point's first key: the library's text for groups, nvbench.h).
--metrics serves the latest figures in the Prometheus text format
(version 0.0.4) on http://ADDR/metrics, loopback unless ADDR names another
address; written by hand, no dependency.
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIRS = ("read", "write", "trim")


def parse_addr(text):
    """HOST:PORT, :PORT or PORT (loopback); the port may be 0 (any free one)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "", text
    host = host.strip("[]") or "127.0.0.1"
    try:
        p = int(port)
    except ValueError:
        raise ValueError(f"--metrics {text!r}: not HOST:PORT (a port from 0 to 65535)") from None
    if not 0 <= p <= 65535:
        raise ValueError(f"--metrics {text!r}: port {p} is not from 0 to 65535")
    return host, p


class Figures:
    """The run's figures so far, from its points (and progress snapshots):
    what --metrics serves and --live appends."""

    def __init__(self):
        self.lock = threading.Lock()
        self.tag = {}
        self.begin()

    def begin(self, tag=None):
        """A new run (a step, a cell): its figures from zero, named by tag."""
        with self.lock:
            self.tag = dict(tag or {})
            self.points = 0
            self.last = {}  # the latest point of each group (None: the run's own)
            self.done_fraction = None
            self.totals = {d: {"ios": 0, "bytes": 0} for d in DIRS}
            self.errors = 0

    def progress(self, p):
        with self.lock:
            self.done_fraction = p.get("done_fraction")

    def point(self, pt):
        with self.lock:
            self.points += 1
            self.last[pt.get("group")] = pt
            for d in DIRS:
                if d in pt:
                    self.totals[d]["ios"] += pt[d]["ios"]
                    self.totals[d]["bytes"] += pt[d]["bytes"]
            self.errors += pt.get("errors", 0)
            return {**self.tag, "elapsed_s": pt["t_s"], "done_fraction": self.done_fraction,
                    "ios": sum(t["ios"] for t in self.totals.values()),
                    "bytes": sum(t["bytes"] for t in self.totals.values()), "errors": self.errors}

    def prometheus(self):
        """The text format: HELP and TYPE once per family, then its samples."""
        out = []

        def fam(name, kind, help_, samples):
            out.append(f"# HELP {name} {help_}")
            out.append(f"# TYPE {name} {kind}")
            for labels, v in samples:
                lab = ",".join(f'{k}="{v_}"' for k, v_ in labels.items())
                out.append(f"{name}{{{lab}}} {_num(v)}" if lab else f"{name} {_num(v)}")

        with self.lock:
            lasts = sorted(self.last.items(), key=lambda kv: kv[0] or "")
            dirs = [d for d in DIRS if any(d in p for _, p in lasts)]
            if self.tag:
                fam("nvbench_run_info", "gauge", "the run of the command under way (a step, a cell)",
                    [({k: str(v) for k, v in self.tag.items() if v is not None}, 1)])
            fam("nvbench_points_total", "counter", "time-series points measured so far", [({}, self.points)])
            fam("nvbench_ios_total", "counter", "I/Os completed so far in the measured window",
                [({"dir": d}, self.totals[d]["ios"]) for d in dirs])
            fam("nvbench_bytes_total", "counter", "bytes completed so far in the measured window",
                [({"dir": d}, self.totals[d]["bytes"]) for d in dirs])
            fam("nvbench_errors_total", "counter", "failed I/Os so far", [({}, self.errors)])
            if not lasts:
                return "\n".join(out) + "\n"

            def each(fn, **extra):
                # one sample per group (labelled group=NAME) and direction
                return [({**({"group": g} if g is not None else {}), "dir": d, **extra}, fn(p[d]))
                        for g, p in lasts for d in dirs if d in p]
            fam("nvbench_iops", "gauge", "I/Os per second over the latest interval", each(lambda o: o["iops"]))
            fam("nvbench_bandwidth_bytes_per_second", "gauge", "bytes per second over the latest interval",
                each(lambda o: o["bw_bytes_s"]))
            fam("nvbench_latency_mean_seconds", "gauge", "mean I/O latency over the latest interval",
                each(lambda o: o["lat_mean_ns"] / 1e9))
            fam("nvbench_latency_seconds", "gauge",
                "latency percentile over the latest interval (NaN without completions)",
                [s for q, k in (("0.5", "p50"), ("0.99", "p99"), ("0.999", "p99.9"))
                 for s in each(lambda o, k=k: _ns(o.get(k)), quantile=q)])
            pt = lasts[-1][1]
            fam("nvbench_system_cpu_percent", "gauge",
                "whole-machine CPU busy over the latest interval (NaN when not measured)",
                [({}, pt["system_pct"] if pt.get("system_pct") is not None else float("nan"))])
            fam("nvbench_elapsed_seconds", "gauge", "end of the latest interval since the window started",
                [({}, max(p["t_s"] for _, p in lasts))])
            if self.done_fraction is not None:
                fam("nvbench_done_ratio", "gauge", "the run's progress, 0 to 1", [({}, self.done_fraction)])
        return "\n".join(out) + "\n"


def _ns(v):
    return v / 1e9 if v is not None else float("nan")


def _num(v):
    if isinstance(v, float):
        if v != v:
            return "NaN"
        return repr(v)
    return str(v)


class Live:
    """The callbacks of one run: progress (wrapping the bar's) and point."""

    def __init__(self, live=None, metrics=None, err=None):
        self.fig = Figures()
        self.out = None
        self.own = False
        self.server = None
        if live == "-":
            self.out = sys.stdout
        elif live:
            self.out = open(live, "w", encoding="utf-8")
            self.own = True
        if metrics:
            host, port = parse_addr(metrics)
            fig = self.fig

            class Handler(BaseHTTPRequestHandler):
                def do_GET(self):
                    if self.path.split("?")[0] not in ("/metrics", "/"):
                        self.send_error(404)
                        return
                    body = fig.prometheus().encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

                def log_message(self, *a):
                    pass

            self.server = ThreadingHTTPServer((host, port), Handler)
            self.server.daemon_threads = True
            threading.Thread(target=self.server.serve_forever, daemon=True).start()
            h, p = self.server.server_address[:2]
            if err:
                err(f"metrics: serving http://{h}:{p}/metrics while the run goes on")

    def begin(self, label=None, step=None, steps=None):
        """The next run of the command: step (from 0) of steps (None: not known ahead, a
        search's), named label; its figures from zero."""
        self.fig.begin({"step": step + 1, "steps": steps, "label": label} if step is not None else None)

    def progress(self, inner):
        def on_progress(p):
            self.fig.progress(p)
            return inner(p) if inner else False
        return on_progress

    def point(self, text):
        prog = self.fig.point(json.loads(text))
        if self.out is not None:
            # the point's own text, its "progress" added at the end
            self.out.write(text[:-1] + ',"progress":' + json.dumps(prog, separators=(",", ":")) + "}\n")
            self.out.flush()

    def close(self):
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None
        if self.own and self.out is not None:
            self.out.close()
        self.out = None
