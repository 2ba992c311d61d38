"""Block-size mixes (bssplit) and think time (thinktime, thinktime_blocks)
through the Python front door and the CLI: the per-size counts in the
result, the keys echoed in its workload and reproduced by its command, and
refusals that name the key and the value."""
import json

import pytest

import nvbench
from nvbench._command import run_command

from conftest import check_c_result, cli


def test_bssplit_counts(data_file, schema):
    r = nvbench.run(data_file, engine="null", rw="randrw", bssplit="4k/50:64k/30:128k/20,8k/100", ios=3000,
                    qd=4, seed=5)
    check_c_result(r.data, schema)
    rd, wr = r.data["read"], r.data["write"]
    assert set(rd["bs_counts"]) == {"4096", "65536", "131072"}
    assert set(wr["bs_counts"]) == {"8192"}
    for d in (rd, wr):
        assert sum(d["bs_counts"].values()) == d["ios"]
        assert sum(int(k) * v for k, v in d["bs_counts"].items()) == d["bytes"]
    assert rd["ios"] + wr["ios"] == 3000
    assert r.data["workload"]["bssplit"] == "4k/50:64k/30:128k/20,8k/100"
    # through the library's loader and merge: the counts add by size
    m = nvbench.merge([r, r.data])
    assert m.data["read"]["bs_counts"] == {k: 2 * v for k, v in rd["bs_counts"].items()}


def test_no_split_no_counts(data_file):
    r = nvbench.run(data_file, engine="null", ios=100)
    assert "bs_counts" not in r.data["read"] and "bs_counts" not in r.data["per_target"][0]["write"]
    assert r.data["workload"]["bssplit"] is None


def test_thinktime_microseconds_and_command(data_file):
    r = nvbench.run(data_file, engine="null", ios=40, thinktime=100, thinktime_blocks=4)
    wl = r.data["workload"]
    assert wl["thinktime_s"] == pytest.approx(100e-6)
    assert wl["thinktime_blocks"] == 4
    assert r.data["duration_s"] >= 9 * 100e-6  # 10 batches of 4, 9 thinks between them
    cmd = run_command(r.data)
    assert "thinktime=100us" in cmd and "thinktime_blocks=4" in cmd


@pytest.mark.parametrize("value", ["4k/50", "4k/60:8k/60", "4k/50:4k/50", "4q/100"])
def test_bssplit_refused(data_file, value):
    with pytest.raises(nvbench.NvbenchError) as ei:
        nvbench.run(data_file, engine="null", ios=10, bssplit=value)
    assert "'bssplit'" in str(ei.value) and value in str(ei.value)


def test_cli_bssplit(data_file, tmp_path):
    out = tmp_path / "r.json"
    p = cli("run", "--json", out, "engine=null", "ios=500", "bssplit=4k/50:8k/50", data_file)
    assert p.returncode == 0, p.stderr
    counts = json.loads(out.read_text())["results"][0]["read"]["bs_counts"]
    assert set(counts) == {"4096", "8192"} and sum(counts.values()) == 500
    p = cli("run", "engine=null", "ios=5", "bssplit=4k/70", data_file)
    assert p.returncode == 2 and "'bssplit'" in p.stderr and "4k/70" in p.stderr
