"""One seed table and one percentile rank rule (issue 24, item 3): the library's
nvb_seed_cell and nvb_pct_* called straight (ctypes on the build's libnvbench.so),
through Python's extension (nvbench.matrix, nvbench.labels, nvbench._percentile)
and through Lua's module (nvbench.matrix) give the same cells in the same order and
the same rank, verdict and fewest latencies for the same inputs, byte for byte."""
import ctypes
import os
import shutil
import subprocess

import pytest

from nvbench import labels
from nvbench.matrix import SEED_CELLS
from nvbench._percentile import PCT_TAIL, PCT_VALS, _pct_rank, pct_min_ios, pct_supported

from conftest import ROOT, lua_env

LUA = shutil.which("lua5.4")
FIELDS = ("key", "workload", "op", "rw", "bs", "label")
COUNTS = (0, 1, 19, 20, 21, 899, 900, 901, 999, 1000, 1001, 9999, 10000, 99999, 100000, 999999, 1000000,
          1 << 40)
PCTS = tuple(str(p) for p in PCT_VALS) + ("0", "100", "-1", "101", "0.1", "33.3", "1e-300", "nan")


def dump(cells, rank, supported, min_ios):
    """The text every front door must print: the cells, then per percentile its fewest
    latencies and per count its rank and verdict."""
    out = [" | ".join(c[f] for f in FIELDS) for c in cells]
    for p in PCTS:
        n = min_ios(p)
        out.append(f"p{p} min_ios {'none' if n is None else n}")
        out.extend(f"p{p} n {c} rank {rank(c, p)} {'yes' if supported(c, p) else 'no'}" for c in COUNTS)
    return "\n".join(out) + "\n"


def python_dump():
    # the Python package's own views: nvbench.matrix.SEED_CELLS and block_label say the same
    cells = [dict(zip(FIELDS, (f"{w}_{op}", w, op, rw, bs, labels.block_label(w, op))))
             for w, rw, bs, op in SEED_CELLS]
    return dump(cells, lambda c, p: _pct_rank(c, float(p)), lambda c, p: pct_supported(c, float(p)),
                lambda p: pct_min_ios(float(p)))


def library():
    """The build's libnvbench.so.0, or None."""
    for d in (os.path.join(os.getcwd(), ".."), os.path.join(ROOT, "build")):
        path = os.path.join(d, "libnvbench.so.0")
        if os.path.isfile(path):
            lib = ctypes.CDLL(os.path.abspath(path))
            lib.nvb_seed_cells.restype = ctypes.c_size_t
            lib.nvb_seed_cell.argtypes = (ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p))
            lib.nvb_pct_rank.restype = lib.nvb_pct_min_ios.restype = ctypes.c_uint64
            lib.nvb_pct_rank.argtypes = lib.nvb_pct_supported.argtypes = (ctypes.c_uint64, ctypes.c_double)
            lib.nvb_pct_min_ios.argtypes = (ctypes.c_double,)
            return lib
    return None


def c_dump(lib):
    cells = []
    for i in range(lib.nvb_seed_cells()):
        cell = {}
        for f in FIELDS:
            v = ctypes.c_char_p()
            assert lib.nvb_seed_cell(i, f.encode(), ctypes.byref(v)) == 0
            cell[f] = v.value.decode()
        cells.append(cell)
    return dump(cells, lambda c, p: lib.nvb_pct_rank(c, float(p)), lambda c, p: lib.nvb_pct_supported(c, float(p)),
                lambda p: lib.nvb_pct_min_ios(float(p)) or None)


LUA_DUMP = r"""
local nvb = require "nvbench"
local m = require "nvbench.matrix"
local fields = { "key", "workload", "op", "rw", "bs", "label" }
local counts, pcts = {}, {}
for x in os.getenv("NVB_COUNTS"):gmatch("%S+") do counts[#counts + 1] = math.tointeger(tonumber(x)) end
for x in os.getenv("NVB_PCTS"):gmatch("%S+") do pcts[#pcts + 1] = x end
for _, c in ipairs(m.cells) do
  local row = {}
  for i, f in ipairs(fields) do row[i] = c[f] end
  io.write(table.concat(row, " | "), "\n")
end
for _, p in ipairs(pcts) do
  local v = p == "nan" and 0 / 0 or tonumber(p)
  local n = m.pct_min_ios(v)
  io.write(string.format("p%s min_ios %s\n", p, n and string.format("%d", n) or "none"))
  for _, c in ipairs(counts) do
    io.write(string.format("p%s n %d rank %d %s\n", p, c, nvb.pct.rank(c, v), m.pct_supported(c, v) and "yes" or "no"))
  end
end
"""


def test_python_agrees_with_the_library():
    lib = library()
    if lib is None:
        pytest.skip("the build's libnvbench.so.0 is not here (run from the build tree's tests/)")
    c = c_dump(lib)
    assert python_dump() == c
    # what the cells are: the published eight, reads first; and the rule's figures
    assert c.splitlines()[0] == "rand4k_read | rand4k | read | randread | 4k | Random 4K read"
    assert [line.split(" | ")[5] for line in c.splitlines()[:8]] == [
        f"{w} {op}" for op in ("read", "write")
        for w in ("Random 4K", "Random 64K", "Sequential 64K", "Sequential 128K")]
    assert "p99.9 min_ios 10000\n" in c and "p99.9 n 1000 rank 999 no\n" in c and "p100 min_ios none\n" in c
    assert labels.SEED_CELLS == ("rand4k", "rand64k", "seq64k", "seq128k") and PCT_TAIL == 10


@pytest.mark.skipif(LUA is None, reason="lua5.4 not installed")
def test_lua_agrees_with_python():
    env = lua_env()
    if env is None:
        pytest.skip("the Lua module nvbench.so is not built")
    env.update(NVB_COUNTS=" ".join(map(str, COUNTS)), NVB_PCTS=" ".join(PCTS))
    p = subprocess.run([LUA, "-e", LUA_DUMP], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout == python_dump()

