"""The text layout of the seed table (docs/analysis.md) and the numbers of CSV files.

The same layout printed by the C and Lua front doors is pinned against one golden
file by tests/scripts/test_seed_table.sh; these are the Python side's own properties.
"""

import csv
import math

import pytest

import _synth  # first: makes nvbench importable without the C extension
from nvbench.results import Result, ResultSet

pytest.importorskip("pandas")


def _blocks(text):
    return [b.splitlines() for b in text.rstrip("\n").split("\n\n")]


def test_every_block_has_the_same_width_and_column_edges():
    # "Sequential 128K write" is the longest title, one character longer than
    # the longest metric label: every block takes its width, not only its own.
    rs = ResultSet(_synth.matrix(stacks=("psync", "io_uring"), repeats=1))
    blocks = _blocks(rs.table())
    assert len(blocks) == 8
    rules = {b[1] for b in blocks}
    assert len(rules) == 1, rules
    first = len(next(iter(rules)).split("  ")[0])
    assert first == len("Sequential 128K write")
    for b in blocks:
        assert {len(line) for line in b} == {len(b[1])}, b


def test_a_wide_figure_in_one_block_widens_that_column_in_all():
    small = _synth.result_dict(engine="psync", cell="rand4k", op="read", iops=1_000.0)
    big = _synth.result_dict(engine="psync", cell="seq64k", op="read", iops=123_456_789.0)
    text = ResultSet([Result(small), Result(big)]).table()
    blocks = _blocks(text)
    assert blocks[0][1] == blocks[1][1]
    assert blocks[0][3].endswith("  " + "1,000".rjust(len("123,456,789")))


def test_csv_figures_have_the_json_precision_not_float_noise(tmp_path):
    d = _synth.result_dict(engine="psync", cell="rand4k", op="read", iops=1234.5)
    d["cpu"]["cpu_us_per_io"] = 0.14966159839999998   # what arithmetic on doubles gives
    d["read"]["bw_gib_s"] = 0.1 + 0.2                   # 0.30000000000000004
    path = tmp_path / "x.csv"
    ResultSet([Result(d)]).to_csv(path)
    with open(path, newline="") as f:
        row = next(csv.DictReader(f))
    assert row["cpu_us_per_io"] == "0.1496615984"
    assert row["bw_gib_s"] == "0.3"
    assert row["iops"] == "1234.5"
    for key, text in row.items():
        try:
            v = float(text)
        except ValueError:
            continue
        digits = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
        assert len(digits) <= 10, (key, text)
        if math.isfinite(v) and v:
            assert float(f"{v:.10g}") == v, (key, text)
