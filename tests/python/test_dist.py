"""random_distribution and random_map from Python and the CLI: the library's keys (one table),
echoed in the result's workload, refused with the key and value named (the laws themselves are
tested in tests/c/test_dist.c)."""
import json

import pytest

import nvbench
from nvbench.errors import NvbenchError

from conftest import check_c_result, cli


@pytest.mark.parametrize("dist", ["zipf:1.2", "pareto:0.9", "normal:10", "zoned:60/10:30/20:10/70"])
def test_run_echoes_the_distribution(dist, schema):
    r = nvbench.run(engine="null", size="64M", ios=2000, qd=4, random_distribution=dist)
    assert r.read.ios == 2000
    d = r.to_dict()
    assert d["workload"]["random_distribution"] == dist and d["workload"]["random_map"] == 0
    check_c_result(d, schema)


def test_gauss_is_normal_and_map_echoes():
    r = nvbench.run(engine="null", size="64M", ios=100, random_distribution="gauss:5")
    assert r.to_dict()["workload"]["random_distribution"] == "normal:5"
    r = nvbench.run(engine="null", size="64M", ios=100, random_map=1)
    assert r.to_dict()["workload"]["random_map"] == 1


@pytest.mark.parametrize("kw, words", [
    (dict(random_distribution="zipf:0"), ["random_distribution", "zipf:0"]),
    (dict(random_distribution="zoned:60/10:30/20"), ["random_distribution", "zoned:60/10:30/20", "sum to 100"]),
    (dict(random_distribution="zipf:1.2", random_map=1), ["random_map", "random_distribution", "zipf:1.2"]),
    (dict(random_distribution="pareto:0.2", rw="read"), ["random_distribution", "pareto:0.2", "rw 'read'"]),
])
def test_refusals_name_key_and_value(kw, words):
    with pytest.raises(NvbenchError) as ei:
        nvbench.run(engine="null", size="64M", ios=100, **kw)
    for w in words:
        assert w in ei.value.strerror


def test_cli_takes_the_keys(data_file):
    p = cli("run", "--print-json", "--no-progress", "engine=psync", "direct=0", "ios=500",
            "random_distribution=zoned:90/10:10/90", data_file)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["workload"]["random_distribution"] == "zoned:90/10:10/90"
    p = cli("run", "--no-progress", "engine=psync", "ios=10", "random_distribution=zipf", data_file)
    assert p.returncode == 2 and "random_distribution" in p.stderr and "'zipf'" in p.stderr
