"""The report to share: `nvbench report RESULTS.json -o report.html` and ResultSet.report().

Content: the seed tables as ResultSet.table() gives them, the published figures beside the
cells that match and only those, the comparison, the figures, the machine facts, every
warning, and a command per run that runs the same workload again; every string of a result
escaped; nothing loaded from outside the file. Rendering: the page in headless Chromium
loads without a script error or a network request and draws something (the screenshot is
kept under $NVB_ARTIFACT_DIR, default build/test-artifacts).
"""
import html
import html.parser
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import pytest

import nvbench
from nvbench._command import run_command

from conftest import ROOT, cli

BLOCKS = ["Random 4K read", "Random 64K read", "Sequential 64K read", "Sequential 128K read",
          "Random 4K write", "Random 64K write", "Sequential 64K write", "Sequential 128K write"]
PUBLISHED = ["windows_non_native", "windows_native", "linux_libaio", "linux_io_uring"]


class Page(html.parser.HTMLParser):
    """The report's sections: per section id, its cards as (title, rows of cell texts),
    and the text of its <pre> blocks. Marks beside a header (a "published" tag, a
    warning badge) are left out of the header's text."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.sections, self.pres = {}, {}
        self._sec, self._title, self._rows, self._cell, self._pre, self._in_h3 = None, "", None, None, None, False
        self._mark = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("class") in ("badge", "tag"):
            self._mark = tag
        elif tag == "section":
            self._sec = a.get("id")
            self.sections.setdefault(self._sec, [])
        elif tag == "h3":
            self._in_h3, self._title = True, ""
        elif tag == "table":
            self._rows = []
        elif tag == "tr" and self._rows is not None:
            self._rows.append([])
        elif tag in ("td", "th") and self._rows is not None:
            self._cell = ""
        elif tag == "pre":
            self._pre = ""

    def handle_endtag(self, tag):
        if tag == self._mark:
            self._mark = None
        elif tag == "h3":
            self._in_h3 = False
        elif tag in ("td", "th") and self._cell is not None:
            self._rows[-1].append(self._cell.strip())
            self._cell = None
        elif tag == "table" and self._rows is not None:
            self.sections[self._sec].append((self._title, self._rows))
            self._rows = None
        elif tag == "pre" and self._pre is not None:
            self.pres.setdefault(self._sec, []).append(self._pre)
            self._pre = None

    def handle_data(self, data):
        if self._mark:
            return
        if self._in_h3:
            self._title += data
        if self._cell is not None:
            self._cell += data
        if self._pre is not None:
            self._pre += data

    def cards(self, section):
        """{card title: {row label: {column: text}}} of a section's tables."""
        out = {}
        for title, rows in self.sections[section]:
            head = rows[0]
            out[title] = {r[0]: dict(zip(head[1:], r[1:])) for r in rows[1:]}
        return out


def _engines():
    have = [n for n, (ok, _) in nvbench.engines().items() if ok]
    fast = [e for e in ("io_uring", "libaio") if e in have]
    return ["psync"] + fast[:1]


@pytest.fixture(scope="module")
def seed(tmp_path_factory):
    """A real seed matrix, two repeats, on a scratch file: its file and its ResultSet.
    psync at qd 4 carries a warning in every run (it runs at qd 1)."""
    d = tmp_path_factory.mktemp("seed")
    rs = nvbench.seed_matrix(engines=_engines(), runtime=0.25, interval="50ms", qd=4, size="16M",
                             repeat=2)
    path = d / "seed.json"
    rs.save(str(path))
    return path, nvbench.load(str(path))


@pytest.fixture(scope="module")
def report(seed):
    path, _ = seed
    out = path.parent / "seed-report.html"
    p = cli("report", path.name, "-o", out.name, timeout=300, cwd=path.parent)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"report: {out}"  # says where, as an absolute path
    return out, out.read_text(encoding="utf-8")


def test_seed_tables_are_resultset_table(seed, report):
    _, rs = seed
    page = Page(report[1])
    cards = page.cards("tables")
    assert list(cards) == BLOCKS
    frame = rs.table(fmt="frame")
    for block in BLOCKS:
        for metric, row in frame.loc[block].iterrows():
            for col in frame.columns:
                assert cards[block][metric][col] == row[col], (block, metric, col)
    # two repeats: every own figure has its interval
    # with repeats a cell carries its interval in the figure's domain: "mean [low, high]"
    cell = cards["Random 4K read"]["IOPS"][rs.stacks[0]]
    assert " [" in cell, cell


def test_published_figures_stand_beside_the_cells_that_match(seed, report, data_file, tmp_path):
    ref = nvbench.reference().table(fmt="frame")
    cards = Page(report[1]).cards("tables")
    for block in BLOCKS:
        for metric, row in ref.loc[block].iterrows():
            for col in PUBLISHED:
                assert cards[block][metric][col] == row[col], (block, metric, col)
    # a cell that is not one of the published ones gets none; the seed cell beside it does
    rs = nvbench.ResultSet([nvbench.run(data_file, engine="psync", rw="randread", bs=bs, runtime=0.1)
                            for bs in ("4k", "8k")])
    out = tmp_path / "two.html"
    rs.report(str(out))
    cards = Page(out.read_text()).cards("tables")
    assert set(cards) == {"Random 4K read", "Random 8K read"}
    assert all(c in cards["Random 4K read"]["IOPS"] for c in PUBLISHED)
    assert not any(c in cards["Random 8K read"]["IOPS"] for c in PUBLISHED)
    # published figures already in the set are those shown, once, and are not runs
    (rs + nvbench.reference()).report(str(out))
    page = Page(out.read_text())
    assert page.cards("tables") == cards
    assert len([p for p in page.pres["runs"] if p.startswith("nvbench run ")]) == 2
    rs.report(str(out), reference=False)
    assert not any(c in Page(out.read_text()).cards("tables")["Random 4K read"]["IOPS"]
                   for c in PUBLISHED)


def test_files_with_the_same_stacks_are_labelled_not_pooled(data_file, tmp_path):
    rs = nvbench.ResultSet([nvbench.run(data_file, engine="psync", rw="randread", runtime=0.1)])
    for name in ("a.json", "b.json"):
        rs.save(str(tmp_path / name))
    p = cli("report", "a.json", "b.json", "-o", "ab.html", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    cards = Page((tmp_path / "ab.html").read_text()).cards("tables")
    assert list(cards["Random 4K read"]["IOPS"])[:2] == ["a:psync", "b:psync"]
    p = cli("report", "a.json", "missing.json", "-o", "x.html", cwd=tmp_path)
    assert p.returncode == 2 and "missing.json" in p.stderr
    assert not (tmp_path / "x.html").exists()


def test_comparison_with_confidence_intervals(seed, report):
    _, rs = seed
    if len(rs.stacks) < 2:
        pytest.skip("one engine only here: nothing to compare")
    base = "libaio" if "libaio" in rs.stacks else rs.stacks[0]
    other = next(s for s in rs.stacks if s != base)
    page = Page(report[1])
    cards = page.cards("compare")
    assert list(cards) == BLOCKS
    df = rs.compare(baseline=base)
    rec = df[(df.block == "Random 4K read") & (df.metric == "iops")].iloc[0]
    cell = cards["Random 4K read"]["IOPS"]
    head = list(cell)  # columns: baseline, the stack, its delta, each with the qd it ran at
    assert head[0] == f"{base} (qd {rec.baseline_qd})" and head[1] == f"{other} (qd {rec.qd})"
    delta = cell["Δ"]
    assert delta.startswith(f"{rec.delta_pct:+.1f}%")
    assert f"[{rec.ci_low_pct:+.1f}%, {rec.ci_high_pct:+.1f}%]" in delta and rec.verdict in delta
    assert "n 2/2" in delta


def test_latency_and_time_series_figures(seed, report):
    _, rs = seed
    text = report[1]
    lat = text[text.index('<section id="latency">'):text.index('<section id="timeseries">')]
    ts = text[text.index('<section id="timeseries">'):text.index('<section id="machine">')]
    assert lat.count("<svg") == len(BLOCKS) and ts.count("<svg") == len(BLOCKS)
    for block in BLOCKS:
        assert f">{block}<" in lat and f">{block}<" in ts  # panel titles
    cards = Page(text).cards("latency")
    frame = rs.table(metrics=["lat_p50_ms", "lat_p99_9_ms"], fmt="frame")
    for block in BLOCKS:
        for metric, row in frame.loc[block].iterrows():
            for col in frame.columns:
                assert cards[block][metric][col] == row[col]
    # every id is unique in the page (several SVGs share its id space)
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids))


def test_machine_and_device_facts(seed, report):
    _, rs = seed
    page = Page(report[1])
    hosts, engines, targets = [rows for _, rows in page.sections["machine"]]
    r = rs[0]
    assert hosts[1][0] == r.data["host"] and hosts[1][2] == str(r.data["cpu"]["ncpus"])
    assert hosts[1][3] == str(len(rs))
    shown = {row[0]: row[1] for row in engines[1:]}
    for x in rs:
        used = x.data["engine_used"]
        assert all(f"{k}={v}" in shown[x.data["engine"]] for k, v in used.items())
    assert targets[1][1] == r.data["per_target"][0]["path"] and targets[1][2] == "file"


def test_every_warning_is_shown(seed, report):
    _, rs = seed
    rows = Page(report[1]).sections["warnings"][0][1][1:]
    expected = [(f"run {i + 1}", w) for i, x in enumerate(rs) for w in x.data["warnings"]]
    assert any("psync is synchronous" in w for _, w in expected)
    assert [(r[0], r[3]) for r in rows] == expected
    # the seed table marks the columns whose runs warned, linking to their warnings
    assert '<a class="badge" href="#problems-' in report[1]


def test_each_run_has_the_command_that_runs_it_again(seed, report, data_file, tmp_path):
    _, rs = seed
    pres = Page(report[1]).pres["runs"]
    commands = [p for p in pres if p.startswith("nvbench run ")]
    assert commands == [run_command(x.data) for x in rs]
    assert all("engine=" in c and "rw=" in c and "bs=" in c for c in commands)
    # a workload with keys away from their defaults: its command runs the same workload
    r = nvbench.run(data_file, engine="psync", rw="randrw", rwmix=70, bs="8k", qd=2, runtime=0.2,
                    ramp="50ms", seed=42, fill="zero", name="a b", interval="100ms")
    out = tmp_path / "one.html"
    nvbench.ResultSet([r]).report(str(out))
    (cmd,) = [p for p in Page(out.read_text()).pres["runs"] if p.startswith("nvbench run ")]
    words = shlex.split(cmd)
    assert words[:2] == ["nvbench", "run"] and "seed=42" in words and "name=a b" in words
    again = cli("run", *words[2:], "--json", tmp_path / "again.json")
    assert again.returncode == 0, again.stderr
    assert nvbench.load(str(tmp_path / "again.json"))[0].data["workload"] == r.data["workload"]


def test_strings_from_results_are_escaped(tmp_path):
    # a target whose path holds a whole script element, a stack and a warning with markup
    d = tmp_path / "<script>alert(1)<"
    d.mkdir()
    target = d / "script>"
    target.write_bytes(os.urandom(1 << 20))
    r = nvbench.run(str(target), engine="psync", runtime=0.1, name="<b>x</b>")
    assert "<script>alert(1)</script>" in r.data["workload"]["targets"][0]
    r.data["warnings"].append('<img src=x onerror=alert(2)> & "q" $\\frac{a}{b}$ \x1b[2J')
    rs = nvbench.ResultSet([r.with_meta(stack="<i>st$a$ck</i>")])
    rs.report(str(tmp_path / "x.html"))
    text = (tmp_path / "x.html").read_text()
    for raw in ("<script", "<img", "<i>st", "<b>x", "\x1b"):
        assert raw not in text, raw
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=alert(2)&gt; &amp; &quot;q&quot;" in text
    assert Page(text).sections["warnings"][0][1][-1][3].endswith("\\x1b[2J")
    assert "&lt;i&gt;st$a$ck&lt;/i&gt;" in text  # in the tables and, literally, in the figures
    assert text.count("&lt;i&gt;st$a$ck&lt;/i&gt;</text>") >= 1


def test_nothing_is_loaded_from_outside_the_file(report):
    text = report[1]
    assert "http://" not in text and "https://" not in text
    assert all(v.startswith(("data:", "#")) for v in re.findall(r'\b(?:src|href)="([^"]*)"', text))
    for tag in ("<script", "<link", "<iframe", "<object", "<embed", "@import", "@font-face"):
        assert tag not in text.lower()
    assert all(u.startswith("#") for u in re.findall(r"url\(([^)]*)\)", text))


def test_without_matplotlib_the_report_says_what_is_missing(seed, tmp_path):
    path, _ = seed
    out = tmp_path / "nompl.html"
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "from nvbench.cli import main; sys.exit(main(sys.argv[1:]))")
    p = subprocess.run([sys.executable, "-c", code, "report", str(path), "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "no figures" in p.stderr and "matplotlib" in p.stderr
    text = out.read_text()
    assert "<svg" not in text and text.count('class="missing"') == 2
    assert "apt install python3-matplotlib" in text
    assert Page(text).cards("tables")  # the rest is there


# ---------------------------------------------------------------- rendering

def _artifacts():
    d = os.environ.get("NVB_ARTIFACT_DIR") or os.path.join(ROOT, "build", "test-artifacts")
    os.makedirs(d, exist_ok=True)
    return d


_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--disable-default-apps", "--hide-scrollbars"]


def _chromium(page, tmp_path, *args):
    """Run chromium on a file (fresh profile, bounded time); (stderr, page's network requests)."""
    exe = shutil.which("chromium")
    if not exe:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium); make test "
                    "installs it")
    run_dir = tempfile.mkdtemp(dir=tmp_path)
    profile, netlog = os.path.join(run_dir, "profile"), os.path.join(run_dir, "net.json")
    p = subprocess.run([exe, *_FLAGS, f"--user-data-dir={profile}", f"--log-net-log={netlog}",
                        "--enable-logging=stderr", "--v=0", *args, f"file://{page}"],
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr[-2000:]
    return p, _page_requests(netlog)


def _page_requests(netlog):
    """URLs the page (not the browser's own services) asked the network for."""
    with open(netlog, encoding="utf-8") as f:
        log, _ = json.JSONDecoder().raw_decode(f.read())
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return [e["params"]["url"] for e in log["events"]
            if e.get("type") == start and "file://" in e["params"].get("network_isolation_key", "")]


def _problems(stderr):
    return [l for l in stderr.splitlines() if ":CONSOLE" in l or "Uncaught" in l]


def _colours(png):
    import numpy as np
    from matplotlib.image import imread
    px = (imread(png)[..., :3] * 255).round().astype(np.uint8).reshape(-1, 3)
    nonwhite = float((px < 245).any(axis=1).mean())
    return len(np.unique(px, axis=0)), nonwhite


def test_page_renders_in_headless_chromium(report, tmp_path, capsys):
    path, text = report
    # The detectors first, on a page that fails both ways: a check that cannot fail proves nothing.
    bad = tmp_path / "bad.html"
    bad.write_text('<p>x</p><img src="http://127.0.0.1:9/x.png"><script>throw new Error("boom")'
                   "</script>")
    p, requests = _chromium(bad, tmp_path, "--dump-dom")
    assert any("boom" in l for l in _problems(p.stderr)) and requests == ["http://127.0.0.1:9/x.png"]

    png = os.path.join(_artifacts(), "report.png")
    if os.path.exists(png):
        os.unlink(png)
    p, requests = _chromium(path, tmp_path, "--window-size=1280,1800", f"--screenshot={png}")
    assert not _problems(p.stderr) and requests == []
    colours, nonwhite = _colours(png)
    shutil.copy(path, os.path.join(_artifacts(), "report.html"))
    with capsys.disabled():
        print(f"\n  report screenshot: {png} ({colours} colours, {nonwhite:.0%} not white)")
    assert colours > 20 and nonwhite > 0.05

    p, requests = _chromium(path, tmp_path, "--dump-dom")
    assert not _problems(p.stderr) and requests == []
    dom = p.stdout
    for tag in ("<svg", "<table", "<section", "<pre"):
        assert dom.count(tag) == text.count(tag), tag
    assert "<title>nvbench report</title>" in dom and "Sequential 128K write" in dom


def test_bad_data_read_back_is_marked(tmp_path):
    # a run whose verify found blocks that did not match: its cell and its row in the
    # warnings say so (the report showed it as an ordinary warning at most)
    t = tmp_path / "foreign.dat"
    t.write_bytes(os.urandom(1 << 20))
    with pytest.raises(nvbench.VerifyError) as ei:
        nvbench.run(str(t), engine="psync", rw="read", bs="4k", ios=16, verify=True)
    good = nvbench.run(str(t), engine="psync", rw="read", bs="4k", ios=16)
    rs = nvbench.ResultSet([ei.value.result.with_meta(stack="bad"), good.with_meta(stack="good")])
    rs.report(str(tmp_path / "v.html"))
    text = (tmp_path / "v.html").read_text()
    assert "✗ verify failed (1)</a>" in text and "<td class=baddata>✗ " in text
    rows = Page(text).sections["warnings"][0][1][1:]
    assert [r[2] for r in rows if r[3].startswith("verify failed: verify: 16 of 16 blocks")] == ["error"]


# --- issue 23: one set of files, the same figures through every front door -----

def _front_door_files(tmp_path):
    """a.json: libaio at qd 32; b.json: psync asked for qd 32, ran at 1. Three runs each,
    Total CPU Usage spread as in the reported case (99.5 and 11.8)."""
    import _synth
    from nvbench.results import Result, ResultSet
    runs = {"libaio": [(99.5, 100e3), (11.8, 120e3), (55.0, 95e3)],
            "psync": [(60.0, 20e3), (52.8, 21e3), (41.0, 19e3)]}
    paths = {}
    for name, stack in (("a", "libaio"), ("b", "psync")):
        rs = ResultSet()
        for rep, (cpu, iops) in enumerate(runs[stack]):
            d = _synth.result_dict(engine=stack, cpu_pct=cpu, iops=iops, lat_ms=3.2e3 / iops, qd=32)
            d["qd_effective"] = 32 if stack == "libaio" else 1
            rs.append(Result(d, {"repeat": rep}))
        paths[name] = tmp_path / f"{name}.json"
        rs.save(str(paths[name]))
    return paths, runs


def _cli_rows(stdout):
    """{metric label: [A mean, B mean, B vs A]} of `nvbench compare`'s first block."""
    out = {}
    for line in stdout.splitlines():
        cols = re.split(r"\s{2,}", line.strip())
        if len(cols) >= 5 and cols[0] != "Metric":
            out.setdefault(cols[0], cols[2:5])
    return out


def test_compare_figures_are_the_same_in_every_front_door(tmp_path, monkeypatch):
    from nvbench.metrics import METRICS, format_value
    from nvbench.report import _pct
    paths, runs = _front_door_files(tmp_path)
    metrics = ("iops", "cpu_total_pct", "cpu_us_per_io")
    # what every door must print: arithmetic means, and the ratio of exactly those
    want = {}
    both = nvbench.load(str(paths["a"])) + nvbench.load(str(paths["b"]))
    frame = both.compare(baseline="libaio")
    for key in metrics:
        vals = {s: [r.figures()[key] for r in both if r.meta["stack"] == s] for s in ("libaio", "psync")}
        ma, mb = (sum(v) / len(v) for v in (vals["libaio"], vals["psync"]))
        want[METRICS[key].label] = [format_value(key, ma), format_value(key, mb), _pct((mb / ma - 1.0) * 100.0)]
        rec = frame[(frame.block == "Random 4K read") & (frame.metric == key)].iloc[0]
        got = [format_value(key, rec["baseline_mean"]), format_value(key, rec["mean"]), _pct(rec["delta_pct"])]
        assert got == want[METRICS[key].label], ("python", key)
    # the CLI
    p = cli("compare", "a.json", "b.json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    rows = _cli_rows(p.stdout)
    for label, w in want.items():
        assert rows[label] == w, ("cli", label, rows[label], w)
    assert "psync (qd 1)" in p.stdout and "libaio (qd 32) (A) mean" in p.stdout
    # the HTML report
    p = cli("report", "a.json", "b.json", "-o", "r.html", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    card = Page((tmp_path / "r.html").read_text(encoding="utf-8")).cards("compare")["Random 4K read"]
    for label, w in want.items():
        cells = card[label]
        assert list(cells)[:2] == ["libaio (qd 32)", "psync (qd 1)"], list(cells)
        got = [cells["libaio (qd 32)"], cells["psync (qd 1)"], cells["Δ"].split("[")[0].split(" ")[0]]
        assert got == w, ("report", label, got, w)
    # the notebook, on the same runs in one file
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    both.save(str(tmp_path / "both.json"))
    nb = nbformat.read(os.path.join(ROOT, "examples", "notebooks", "seed_matrix.ipynb"), as_version=4)
    monkeypatch.setenv("NVBENCH_RESULTS", str(tmp_path / "both.json"))
    # the kernel the notebook names, which the installed package brings (finding 17); the
    # system's "python3" kernel is /usr/bin/python3, which does not see this venv's package
    nbclient.NotebookClient(nb, timeout=300, resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                      for o in c.get("outputs", []) if o.output_type == "stream")
    block = printed[printed.index("Random 4K read (vs libaio)"):]
    rows = _cli_rows(block)
    for key in ("iops", "cpu_us_per_io"):   # the metrics the notebook compares
        assert rows[METRICS[key].label] == want[METRICS[key].label], ("notebook", key)
    assert "psync (qd 1)" in block


def test_a_time_series_of_one_interval_is_drawn_as_a_point(tmp_path):
    # `make run`: 1 s runs, 1 s interval: one sample, once drawn as a flat line over the run
    import _synth
    from nvbench import _report_figures
    from nvbench.results import Result, ResultSet
    pytest.importorskip("matplotlib")
    rs = ResultSet([Result(_synth.result_dict(), {})])
    assert len(rs[0].data["timeseries"]) == 1
    (block, svg), = _report_figures.timeseries_svgs(rs)
    assert "too short for a series" in svg
    # the point is a marker, and no line runs from 0 to the end of the interval
    assert "<use" in svg or "marker" in svg, svg[:400]
    assert not re.search(r'<path d="M [\d.]+ [\d.]+ L [\d.]+ [\d.]+ L [\d.]+ [\d.]+"[^>]*stroke-width: 1\.4', svg)


# --- issue 23 finding 16: the comparison cards show every cell whole -------------

_CLIP_PROBE = """<script>
// Each cell of a comparison card: clipped if its content is wider than the cell, or if the
// cell reaches past the card's visible box (the card cuts what overflows it).
addEventListener("load", () => {
  const bad = [];
  for (const card of document.querySelectorAll("#compare .card")) {
    const box = card.getBoundingClientRect();
    for (const cell of card.querySelectorAll("th, td")) {
      const r = cell.getBoundingClientRect();
      if (cell.scrollWidth > cell.clientWidth || r.right > box.right + 0.5 || r.left < box.left - 0.5)
        bad.push(cell.textContent.trim() + " (" + cell.scrollWidth + ">" + cell.clientWidth + ", right "
                 + Math.round(r.right) + ">" + Math.round(box.right) + ")");
    }
    for (const s of card.querySelectorAll(".scroll"))
      if (s.scrollWidth > s.clientWidth) bad.push("scroller " + s.scrollWidth + ">" + s.clientWidth);
  }
  const out = document.createElement("pre");
  out.id = "clip-probe";
  out.textContent = JSON.stringify({cards: document.querySelectorAll("#compare .card").length, bad});
  document.body.appendChild(out);
});
</script>"""


@pytest.mark.parametrize("width", [1280, 1920])
def test_comparison_cards_clip_no_cell(tmp_path, width):
    # four stacks with a wide spread: every Δ has a long interval beneath it
    # ("[-63.2%, +171.8%] within noise · n 3/3"), the widest the cards hold
    import _synth
    from nvbench.results import ResultSet
    runs = _synth.matrix(stacks=("libaio", "io_uring", "psync", "posixaio"), repeats=3, noise=0.6,
                         effect={"psync": 0.6})
    rs = ResultSet([r.with_meta(stack=r.data["engine"]) for r in runs])
    page = tmp_path / "cmp.html"
    rs.report(str(page), baseline="libaio")
    text = page.read_text(encoding="utf-8")
    assert re.search(r"\[[-+]\d+\.\d%, [-+]\d+\.\d%\]", text)  # the intervals are there
    probe = tmp_path / "probe.html"
    probe.write_text(text.replace("</body>", _CLIP_PROBE + "</body>"), encoding="utf-8")
    p, _ = _chromium(probe, tmp_path, f"--window-size={width},1200", "--virtual-time-budget=5000",
                     "--dump-dom")
    m = re.search(r'<pre id="clip-probe">(.*?)</pre>', p.stdout, re.S)
    assert m, p.stdout[-2000:]
    got = json.loads(html.unescape(m.group(1)))
    assert got["cards"] == 8 and got["bad"] == [], got["bad"][:10]
