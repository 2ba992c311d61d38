"""One implementation of each algorithm (issue 24, item 3): the same inputs fed through the
library called straight (ctypes on the build's libnvbench.so), through Python and through
Lua give the same text, byte for byte, for the fio job-file reader (nvb_fiojob_*), the
matrix's plan and the seed cells (nvb_matrix_*, nvb_seed_cell), the latency-target search
(nvb_search_*) and the percentile rank (nvb_pct_*). A binding that kept or grew its own
copy of one of them would print something else for some input here."""
import ctypes
import json
import os
import shutil
import subprocess
import warnings

import pytest

import nvbench
from nvbench import _nvbench

import test_seed_cells as seed
from conftest import lua_env

LUA = shutil.which("lua5.4")
P = ctypes.POINTER


def library():
    lib = seed.library()
    if lib is None:
        pytest.skip("the build's libnvbench.so.0 is not here (run from the build tree's tests/)")
    vp, cp, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
    sigs = {
        "nvb_fiojob_read": (ctypes.c_int, (cp, P(cp), P(vp), cp, sz)),
        "nvb_fiojob_free": (None, (vp,)),
        "nvb_fiojob_jobs": (sz, (vp,)),
        "nvb_fiojob_name": (cp, (vp, sz)),
        "nvb_fiojob_stonewall": (ctypes.c_int, (vp, sz)),
        "nvb_fiojob_options": (sz, (vp, sz)),
        "nvb_fiojob_option": (cp, (vp, sz, sz, P(cp))),
        "nvb_matrix_create": (ctypes.c_int, (P(vp),)),
        "nvb_matrix_destroy": (None, (vp,)),
        "nvb_matrix_error": (cp, (vp,)),
        "nvb_matrix_axis": (ctypes.c_int, (vp, cp, sz, P(cp))),
        "nvb_matrix_cells": (ctypes.c_int, (vp, cp)),
        "nvb_matrix_set": (ctypes.c_int, (vp, cp, cp)),
        "nvb_matrix_runs": (sz, (vp,)),
        "nvb_matrix_axes": (sz, (vp,)),
        "nvb_matrix_pick": (ctypes.c_int, (vp, sz, sz, P(sz))),
        "nvb_matrix_value": (ctypes.c_int, (vp, sz, sz, P(cp))),
        "nvb_matrix_stack": (ctypes.c_int, (vp, sz, cp, sz)),
        "nvb_search_create": (ctypes.c_int, (cp, cp, P(vp), cp, sz)),
        "nvb_search_destroy": (None, (vp,)),
        "nvb_search_set": (ctypes.c_int, (vp, cp, cp)),
        "nvb_search_error": (cp, (vp,)),
        "nvb_search_next": (ctypes.c_int, (vp, P(ctypes.c_double))),
        "nvb_search_measure": (ctypes.c_int, (vp, ctypes.c_int, ctypes.c_uint64, ctypes.c_double, ctypes.c_double,
                                              ctypes.c_int)),
        "nvb_search_points": (sz, (vp,)),
        "nvb_search_point": (ctypes.c_int, (vp, sz, cp, P(ctypes.c_double))),
        "nvb_search_answer": (ctypes.c_int, (vp, P(sz))),
        "nvb_search_cut": (ctypes.c_int, (vp,)),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


def run_lua(code, **env):
    if LUA is None:
        pytest.skip("lua5.4 not installed")
    e = lua_env()
    if e is None:
        pytest.skip("the Lua module nvbench.so is not built")
    e.update(env)
    p = subprocess.run([LUA, "-e", code], capture_output=True, text=True, env=e)
    assert p.returncode == 0, p.stderr
    return p.stdout


# --- the fio job-file reader ----------------------------------------------------------

JOBS = {
    "plain.fio": "[global]\nioengine=psync\nbs=4k\n\n[a]\nrw=read\n[b]\nstonewall\nrw=write ; a comment\nbs=64k\n",
    "env.fio": "[j]\nfilename=${DEV}\nsize=${SIZE}\ndirect\n# size=1\n[k]\nwait_for_previous=1\nrw=randread\n",
    "bad.fio": "rw=read\n[j]\n",
    "include.fio": "[c]\ninclude part.inc\nrw=trim\n",
}
PART = "bs=8k ; included\niodepth=4\n"
ENV = ["DEV=/dev/x", "SIZE=1g"]


def fio_dump(jobs):
    out = []
    for name, opts, stonewall in jobs:
        out.append(f"job {name} {'yes' if stonewall else 'no'}")
        out += [f"  {k}" if v is None else f"  {k}={v}" for k, v in opts]
    return "\n".join(out) + "\n"


def fio_c(lib, path):
    f, why = ctypes.c_void_p(), ctypes.create_string_buffer(1024)
    envp = (ctypes.c_char_p * (len(ENV) + 1))(*[e.encode() for e in ENV], None)
    rc = lib.nvb_fiojob_read(path.encode(), envp, ctypes.byref(f), why, len(why))
    if rc < 0:
        return f"error {-rc} {why.value.decode()}\n"
    jobs = []
    for j in range(lib.nvb_fiojob_jobs(f)):
        opts = []
        for k in range(lib.nvb_fiojob_options(f, j)):
            v = ctypes.c_char_p()
            key = lib.nvb_fiojob_option(f, j, k, ctypes.byref(v))
            opts.append((key.decode(), None if v.value is None else v.value.decode()))
        jobs.append((lib.nvb_fiojob_name(f, j).decode(), opts, lib.nvb_fiojob_stonewall(f, j) > 0))
    lib.nvb_fiojob_free(f)
    return fio_dump(jobs)


def fio_python(path):
    try:
        return fio_dump(_nvbench.fio_job_read(path, env=[e.encode() for e in ENV]))
    except nvbench.NvbenchError as e:
        return f"error {e.errno} {e.strerror}\n"


LUA_FIO = r"""
local nvb = require "nvbench"
local env = {}
for k, v in os.getenv("NVB_ENV"):gmatch("(%w+)=(%S+)") do env[k] = v end
for path in os.getenv("NVB_PATHS"):gmatch("[^\n]+") do
  local jobs, msg, errno = nvb.fio_job_read(path, env)
  if not jobs then
    io.write(("error %d %s\n"):format(errno, msg))
  else
    for _, j in ipairs(jobs) do
      io.write(("job %s %s\n"):format(j.name, j.stonewall and "yes" or "no"))
      for _, k in ipairs(j.order) do
        local v = j.opts[k]
        io.write(v == true and ("  " .. k .. "\n") or ("  " .. k .. "=" .. v .. "\n"))
      end
    end
  end
  io.write("--\n")
end
"""


def test_fio_reader_is_one(tmp_path):
    lib = library()
    (tmp_path / "part.inc").write_text(PART)
    paths = []
    for name, text in JOBS.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    c = "".join(fio_c(lib, p) + "--\n" for p in paths)
    assert "".join(fio_python(p) + "--\n" for p in paths) == c
    assert run_lua(LUA_FIO, NVB_ENV=" ".join(ENV), NVB_PATHS="\n".join(paths)) == c
    # what the reader does, so that agreeing means something
    assert "job b yes\n  ioengine=psync\n  bs=64k\n  stonewall\n  rw=write\n" in c, c
    assert "  filename=/dev/x\n  size=1g\n  direct\n" in c and c.count("error 22 ") == 1, c
    assert "job c no\n  bs=8k\n  iodepth=4\n  rw=trim\n" in c, c


# --- the matrix's plan and the seed cells -----------------------------------------------

PLANS = [  # (axes, cells or None, repeat)
    ([["rw", ["randread", "randwrite"]], ["qd", ["1", "32"]], ["engine", ["libaio", "io_uring"]]], None, 2),
    ([["engine", ["psync", "null"]]], "seq128k, rand4k_read,Random 64K write", 1),
    ([["bs", ["4k"]], ["numjobs", ["1", "2", "4"]]], "", 1),
    ([["qd", []]], None, 1),
    ([], "rand5k", 1),
    ([["qd", ["1"]]], None, 0),
]


def plan_dump(keys, runs):
    return "".join(f"{rep} {' '.join(f'{k}={v}' for k, v in zip(keys, vals))} [{stack}]\n"
                   for rep, vals, stack in runs)


def plan_c(lib, axes, cells, repeat):
    m = ctypes.c_void_p()
    assert lib.nvb_matrix_create(ctypes.byref(m)) == 0
    try:
        rc = lib.nvb_matrix_cells(m, cells.encode()) if cells is not None else 0
        rc = rc or lib.nvb_matrix_set(m, b"repeat", str(repeat).encode())
        for key, vals in axes:
            rc = rc or lib.nvb_matrix_axis(m, key.encode(), len(vals), (ctypes.c_char_p * (len(vals) + 1))(
                *[v.encode() for v in vals], None))
        if rc:
            return f"error {lib.nvb_matrix_error(m).decode()}\n"
        na = lib.nvb_matrix_axes(m)
        keys = (["cell"] if cells is not None else []) + [k for k, _ in axes]
        runs = []
        for r in range(lib.nvb_matrix_runs(m)):
            rep, v, buf = ctypes.c_size_t(), ctypes.c_char_p(), ctypes.create_string_buffer(256)
            lib.nvb_matrix_pick(m, r, na, ctypes.byref(rep))
            vals = []
            for a in range(na):
                lib.nvb_matrix_value(m, r, a, ctypes.byref(v))
                vals.append(v.value.decode())
            assert lib.nvb_matrix_stack(m, r, buf, len(buf)) >= 0
            runs.append((rep.value, vals, buf.value.decode()))
        return plan_dump(keys, runs)
    finally:
        lib.nvb_matrix_destroy(m)


def plan_python(axes, cells, repeat):
    try:
        keys, cell_keys, _, runs = _nvbench.matrix_plan([tuple(a) for a in axes], cells=cells, repeat=repeat)
    except ValueError as e:
        return f"error {e}\n"
    vals = dict(axes)
    if cell_keys is not None:
        vals["cell"] = cell_keys
    return plan_dump(keys, [(rep, [vals[k][i] for k, i in zip(keys, idx)], stack) for rep, idx, stack in runs])


LUA_PLAN = r"""
local nvb = require "nvbench"
for _, case in ipairs(nvb.decode_json(os.getenv("NVB_PLANS"))) do
  local axes, rep = case[1], case[3]
  local cells = type(case[2]) == "string" and case[2] or nil -- JSON null
  local plan, msg = nvb.matrix_plan(axes, { cells = cells, ["repeat"] = rep })
  if not plan then
    io.write("error ", msg, "\n")
  else
    local vals = {}
    for _, a in ipairs(axes) do vals[a[1]] = a[2] end
    for _, run in ipairs(plan.runs) do
      local parts = {}
      for i, k in ipairs(plan.keys) do
        parts[i] = k .. "=" .. (k == "cell" and run.cell_key or vals[k][run[k]])
      end
      io.write(("%d %s [%s]\n"):format(run.rep, table.concat(parts, " "), run.stack))
    end
  end
  io.write("--\n")
end
"""


def test_matrix_plan_and_cells_are_one():
    lib = library()
    c = "".join(plan_c(lib, *p) + "--\n" for p in PLANS)
    assert "".join(plan_python(*p) + "--\n" for p in PLANS) == c
    assert run_lua(LUA_PLAN, NVB_PLANS=json.dumps([[a, cells, rep] for a, cells, rep in PLANS])) == c
    # repeat outermost, the engines innermost, the seed cells in the published order
    first = c.split("--\n")[0].splitlines()
    assert first[0] == "0 rw=randread qd=1 engine=libaio [libaio qd=1]" and first[-1].startswith("1 rw=randwrite")
    assert [line.split()[1] for line in c.split("--\n")[1].splitlines()][::2] == [
        "cell=rand4k_read", "cell=seq128k_read", "cell=rand64k_write", "cell=seq128k_write"]
    assert "error axis 'qd' is an empty list\n" in c and "error unknown seed cell 'rand5k'" in c
    assert "error repeat must be a positive integer, not 0\n" in c


def test_seed_cells_and_percentile_ranks_are_one():
    lib = seed.library()
    if lib is None:
        pytest.skip("the build's libnvbench.so.0 is not here (run from the build tree's tests/)")
    c = seed.c_dump(lib)
    assert seed.python_dump() == c
    counts = " ".join(map(str, seed.COUNTS))
    assert run_lua(seed.LUA_DUMP, NVB_COUNTS=counts, NVB_PCTS=" ".join(seed.PCTS)) == c


# --- the latency-target search ----------------------------------------------------------

# (target, vary, options, model): a probe at value v (0: unthrottled) gives
# iops = k v / (1 + v / 64) (top_iops unthrottled) and p99 = a v + b (top_lat), supported below s
CASES = [
    ("p99<=1000us", "qd", {"max_qd": 64}, {"k": 1000, "a": 100000, "b": 0, "s": 1e9}),
    ("p99<=1600us", "qd", {}, {"k": 1000, "a": 100000, "b": 0, "s": 1e9}),
    ("p99<99us", "qd", {}, {"k": 1000, "a": 100000, "b": 0, "s": 1e9}),
    ("p99<=1s", "qd", {"max_runs": 3}, {"k": 1234567, "a": 1000, "b": 0, "s": 4}),
    ("p99<=3ms", "qd", {"start": 3, "max_qd": 100}, {"k": 77, "a": 50000, "b": 20000, "s": 1e9}),
    ("p99<500us", "rate_iops", {"rel_tol": 0.01}, {"k": 1, "a": 10, "b": 10000, "top_iops": 100000, "top_lat": 5e6,
                                                     "s": 1e9}),
    ("p99<=10ms", "rate_iops", {}, {"k": 1, "a": 10, "b": 0, "top_iops": 5000, "top_lat": 1e6, "s": 1e9}),
    ("p99 <= 2.5e2 us", "rate_iops", {"rel_tol": 0.2, "max_runs": 5},
     {"k": 1, "a": 3, "b": 1000, "top_iops": 333333, "top_lat": 9e9, "s": 100}),
]


def model(m, v):
    if v == 0:
        return m["top_iops"], m["top_lat"], True
    return m["k"] * v / (1 + v / 64), m["a"] * v + m["b"], v < m["s"]


def search_dump(points, answer, cut):
    out = [f"{v} {iops:.3f} {'none' if lat is None else f'{lat:.3f}'} {int(ok)} {int(sup)}"
           for v, iops, lat, ok, sup in points]
    return "\n".join(out + [f"answer {answer}", f"cut {int(cut)}"]) + "\n"


def search_c(lib, target, vary, opts, m):
    s, why = ctypes.c_void_p(), ctypes.create_string_buffer(256)
    assert lib.nvb_search_create(target.encode(), vary.encode(), ctypes.byref(s), why, len(why)) == 0, why.value
    for k, v in opts.items():
        assert lib.nvb_search_set(s, k.encode(), str(v).encode()) == 0
    v = ctypes.c_double()
    while lib.nvb_search_next(s, ctypes.byref(v)) == 1:
        iops, lat, sup = model(m, int(v.value))
        lib.nvb_search_measure(s, 0, 1000, iops, lat, int(sup))
        lib.nvb_search_measure(s, 1, 0, 0.0, float("nan"), 1)
    points = []
    for i in range(lib.nvb_search_points(s)):
        f = {}
        for name in ("value", "iops", "lat_ns", "ok", "supported"):
            x = ctypes.c_double()
            assert lib.nvb_search_point(s, i, name.encode(), ctypes.byref(x)) == 0
            f[name] = x.value
        points.append((int(f["value"]), f["iops"], f["lat_ns"], f["ok"] == 1, f["supported"] == 1))
    a = ctypes.c_size_t()
    answer = a.value if lib.nvb_search_answer(s, ctypes.byref(a)) == 0 else "none"
    cut = lib.nvb_search_cut(s)
    lib.nvb_search_destroy(s)
    return search_dump(points, answer, cut)


class _Result:
    def __init__(self, iops, lat, supported):
        self.data = {"read": {"ios": 1000, "iops": iops, "lat_ns": {"p99": lat}, "lat_pct_supported": {"p99": supported}},
                     "write": {"ios": 0, "iops": 0, "lat_ns": {}}, "warnings": []}
        self.meta = {}


def search_python(target, vary, opts, m):
    def run(**kw):
        return _Result(*model(m, kw.get(vary) or 0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = nvbench.search({}, target=target, vary=vary, run=run, **opts)
    points = [(p[vary] or 0, p["iops"], p["lat_ns"], p["ok"], p["supported"]) for p in res.points]
    answer = "none" if res.answer is None else next(i for i, p in enumerate(res.points) if p is res.answer)
    return search_dump(points, answer, any("max_runs=" in w for w in res.warnings))


LUA_SEARCH = r"""
local nvb = require "nvbench"
local search = require "nvbench.search"
for _, case in ipairs(nvb.decode_json(os.getenv("NVB_CASES"))) do
  local target, vary, opts, m = case[1], case[2], case[3], case[4]
  local function model(v)
    if v == 0 then return m.top_iops, m.top_lat, true end
    return m.k * v / (1 + v / 64), m.a * v + m.b, v < m.s
  end
  local o = { target = target, vary = vary, run = function(w)
    local iops, lat, sup = model(w[vary] or 0)
    return { read = { ios = 1000, iops = iops, lat_ns = { p99 = lat }, lat_pct_supported = { p99 = sup } },
             write = { ios = 0, iops = 0, lat_ns = {} }, warnings = {} }
  end }
  for k, v in pairs(opts) do o[k] = math.tointeger(v) or v end
  local s = search.search({}, o)
  local answer, cut = "none", 0
  for i, p in ipairs(s.points) do
    io.write(("%d %.3f %s %d %d\n"):format(p[vary] or 0, p.iops, p.lat_ns and ("%.3f"):format(p.lat_ns) or "none",
      p.ok and 1 or 0, p.supported and 1 or 0))
    if p == s.answer then answer = tostring(i - 1) end
  end
  for _, w in ipairs(s.warnings) do if w:find("max_runs=", 1, true) then cut = 1 end end
  io.write("answer ", answer, "\ncut ", cut, "\n--\n")
end
"""


def test_search_is_one():
    lib = library()
    c = "".join(search_c(lib, *case) + "--\n" for case in CASES)
    assert "".join(search_python(*case) + "--\n" for case in CASES) == c
    assert run_lua(LUA_SEARCH, NVB_CASES=json.dumps(CASES)) == c
    # what the search does, so that agreeing means something
    first = c.split("--\n")[0]
    assert [int(line.split()[0]) for line in first.splitlines()[:-2]] == [1, 2, 4, 8, 16, 12, 10, 11]
    assert "answer 6\n" in first
    assert c.split("--\n")[3].endswith("cut 1\n") and c.split("--\n")[2] == "1 984.615 100000.000 0 1\nanswer none\ncut 0\n"


# --- the figures of a mixed run -------------------------------------------------------

LUA_MIXED = r"""
local nvb, m = require "nvbench", require "nvbench.matrix"
local f = io.open(os.getenv("NVB_RESULT")); local text = f:read("a"); f:close()
local fig = m.figures(assert(nvb.load(text)), "mixed")
io.write(("%.10g %.10g %.10g\n"):format(fig.gib_s, fig.iops, fig.lat_ms * 1e6))
"""


def test_mixed_figures_are_one():
    """A mixed run's figures (the directions summed, the mean of all their latencies) are
    the result's total as the library writes it: Python's metrics.figures and Lua's
    m.figures read the same numbers, none computed twice."""
    lib = library()
    path = os.path.join(os.path.dirname(__file__), "data", "c-null-randrw.json")
    text = open(path, "rb").read()
    lib.nvb_result_parse.argtypes = (ctypes.c_char_p, ctypes.c_size_t, P(ctypes.c_void_p), ctypes.c_char_p,
                                     ctypes.c_size_t)
    lib.nvb_result_get.argtypes = (ctypes.c_void_p, ctypes.c_char_p, P(ctypes.c_double))
    lib.nvb_result_free.argtypes = (ctypes.c_void_p,)
    r, why = ctypes.c_void_p(), ctypes.create_string_buffer(256)
    assert lib.nvb_result_parse(text, len(text), ctypes.byref(r), why, len(why)) == 0, why.value
    vals = []
    for key in ("total.bw_gib_s", "total.iops", "total.lat_mean_ns"):
        v = ctypes.c_double()
        assert lib.nvb_result_get(r, key.encode(), ctypes.byref(v)) == 0, key
        vals.append(v.value)
    lib.nvb_result_free(r)
    c = "%.10g %.10g %.10g\n" % tuple(vals)
    row = nvbench.load(path)[0].figures()
    assert "%.10g %.10g %.10g\n" % (row["bw_gib_s"], row["iops"], row["lat_mean_ms"] * 1e6) == c
    assert run_lua(LUA_MIXED, NVB_RESULT=path) == c
    # both directions, and a mean between theirs: so that agreeing means something
    d = json.loads(text)
    lo, hi = sorted((d["read"]["lat_ns"]["mean"], d["write"]["lat_ns"]["mean"]))
    assert d["read"]["ios"] > 0 and d["write"]["ios"] > 0 and lo < vals[2] < hi
