"""The report's "Where the CPU went" section (issue 27, docs/cpu.md): a card
per cell with a row per run holding the machine's CPU per I/O by kind as a
stacked bar and in figures, the per-CPU rows, the interrupts per I/O, the
event counters, where the jobs ran and the environment checks that failed;
a result from before these figures says so; strings are escaped."""
import re

import nvbench
from nvbench.results import ResultSet

from test_report_html import Page

WIDTH = re.compile(r'title="(user|system|irq|softirq) ([^ ]+) us" style="[^"]*width:([0-9.]+)%')


def _g(v):
    return f"{v:.3g}"


def _runs(tmp_path):
    t = tmp_path / "t.dat"
    t.write_bytes(b"\1" * (4 << 20))
    a = nvbench.run(str(t), engine="psync", rw="randread", bs="4k", runtime="300ms", direct=0)
    b = nvbench.run(str(t), engine="psync", rw="randread", bs="64k", runtime="300ms", direct=0)
    return a.with_meta(stack="a"), b.with_meta(stack="b")


def test_where_the_cpu_went(tmp_path):
    a, b = _runs(tmp_path)
    old = nvbench.Result.from_json(a.to_json())
    for key in ("per_io_us", "per_cpu", "machine_ns", "kinds_accounted_pct", "counters"):
        old.data["cpu"].pop(key, None)
    for key in ("interrupts", "placement", "environment"):
        old.data.pop(key, None)
    old = old.with_meta(stack="old")
    b.data["warnings"].append("environment: <b>scheduler</b> mq-deadline")
    devs = b.data["environment"]["devices"]
    for facts in devs.values():
        if isinstance(facts.get("scheduler"), dict):
            facts["scheduler"]["value"] = "<x>"
    path = tmp_path / "r.html"
    ResultSet([a, b, old]).report(str(path))
    text = path.read_text()
    assert '<section id="cpu"><h2>Where the CPU went</h2>' in text
    sec = text[text.index('<section id="cpu">'):]
    assert "<b>scheduler</b>" not in sec and "&lt;b&gt;scheduler&lt;/b&gt;" in sec
    # the environment facts that differ between the stacks, as compare names them
    if any(isinstance(f.get("scheduler"), dict) and f["scheduler"].get("value") is not None
           for f in a.data["environment"]["devices"].values()):
        assert re.search(r"<li>environment differs: scheduler is [^<]+ in a, &lt;x&gt; in b \(changes CPU per "
                         r"I/O and latency\)</li>", sec), sec[:2000]
    page = Page(text)
    cards = [rws for t, rws in page.sections["cpu"] if rws[0][0] == "Run"]
    assert len(cards) == len({(r.meta.get("cell"), r.meta.get("op")) for r in ResultSet([a, b, old])})
    head = cards[0][0]
    body = sorted((row for rws in cards for row in rws[1:]), key=lambda row: ["a", "b", "old"].index(row[0]))
    assert head == ["Run", "Machine CPU per I/O (us)", "Interrupts per I/O", "Counters per I/O",
                    "Where the jobs ran", "Environment checks failed"]
    assert [r[0] for r in body] == ["a", "b", "old"]
    for r, row in ((a, body[0]), (b, body[1])):
        cell = dict(zip(head, row))
        k = r.data["cpu"]["per_io_us"]
        if k["busy"] is None:
            assert cell["Machine CPU per I/O (us)"].startswith(f"n/a: {k['null_reason']}")
        else:
            assert f"{_g(k['busy'])} us = {_g(k['user'])} user + {_g(k['system'])} system" in row[1]
        irq = r.data["interrupts"]
        assert cell["Interrupts per I/O"] == (_g(irq["per_io"]) if irq.get("per_io") is not None
                                              else irq["null_reason"])
        c = r.data["cpu"]["counters"]
        if c["null_reason"] is None:
            assert cell["Counters per I/O"].startswith(f"{_g(c['task_clock_us_per_io'])} us on a CPU")
            if c["hardware_null_reason"]:
                assert c["hardware_null_reason"] in cell["Counters per I/O"]
        jobs = r.data["placement"]["jobs"]
        assert cell["Where the jobs ran"].startswith(f"CPU {jobs[0]['last_cpu']}")
    # each run's own placement/environment warnings (a job away from the interrupts' CPU, say), in order
    failed = [[w for w in r.data["warnings"] if w.startswith(("environment:", "placement:", "cpus=local"))]
              for r in (a, b)]
    assert failed[1][-1] == "environment: <b>scheduler</b> mq-deadline"
    assert dict(zip(head, body[1]))["Environment checks failed"] == "".join(failed[1])
    assert dict(zip(head, body[0]))["Environment checks failed"] == ("".join(failed[0]) or "none failed")
    assert body[2][1].startswith("not recorded")
    # the bars: each kind's segment is its share of the card's largest busy
    busy = [r.data["cpu"]["per_io_us"]["busy"] for r in (a, b)]
    cell = lambda r: (r.meta.get("cell"), r.meta.get("op"))
    if None not in busy and min(busy) > 0:
        for r in (a, b):
            k = r.data["cpu"]["per_io_us"]
            # the widest bar of its card (the runs of its cell) is full width
            scale = max(x.data["cpu"]["per_io_us"]["busy"] for x in (a, b) if cell(x) == cell(r))
            row_html = sec[sec.index(f">{r.meta['stack']}</a>"):]
            row_html = row_html[:row_html.index("</tr>")]
            widths = {m[0]: float(m[2]) for m in WIDTH.findall(row_html)}
            for kind, w in widths.items():
                assert abs(w - 100 * k[kind] / scale) <= 0.01, (kind, w)
            assert abs(sum(widths.values()) - 100 * k["busy"] / scale) <= 0.05
        # per CPU rows, one per CPU of the result
        cpu_tables = [rws for t, rws in page.sections["cpu"] if rws[0][0] == "CPU"]
        assert len(cpu_tables) == 2 and sec.count("<summary>per CPU: ") == 2
        for rws in cpu_tables:
            assert [int(x[0]) for x in rws[1:]] == [c["cpu"] for c in a.data["cpu"]["per_cpu"]]


def test_checks_column_lists_every_placement_warning():
    """The report's "Environment checks failed" column takes the placement warnings the
    summary prints (one list of their prefixes), io_uring.sqpoll_cpu=local's included."""
    from html import escape
    from nvbench._report_cpu import _checks
    ws = ["environment: scheduler mq-deadline on nvme0n1", "placement: job nvb-job-0 last ran on CPU 3 (node 1)",
          "cpus=local: sysfs gives vda no NUMA node", "io_uring.sqpoll_cpu=local: sysfs gives vda no NUMA node",
          "the machine was not quiet"]
    out = _checks({"warnings": ws}, escape)
    assert out.split("<br>") == [escape(w) for w in ws[:4]]
    assert "none failed" in _checks({"warnings": ws[4:]}, escape)
