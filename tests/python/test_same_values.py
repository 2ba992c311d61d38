"""One reading of sizes and durations, one op of an rw mode, one size text (issue 24): the
same inputs fed to the library called straight (ctypes on the build's libnvbench.so),
through Python's package and through Lua's give the same answers, byte for byte, refusals
included (errno and the message naming the key and the value). A binding that kept or
grew a parser or a label rule of its own would answer something else for some input here.

  key values   nvb_workload_key_parse  | nvbench._scratch.parse_size, _nvbench.key_parse
                                        | nvbench.matrix.size_bytes / duration_ns, nvb.key_parse
  fio sizes    nvb_fiomap_size          | nvbench.fio.parse_size | nvbench.fio_job.fio_size
  rw -> op     nvb_rw_op                | nvbench.labels.op_of_rw | nvbench.matrix.op_of_rw
  size text    nvb_size_format          | nvbench.labels.human_bs | nvb.size_format
  write cells  nvb_seed_write_keys      | nvbench.matrix._write_cell_keys | nvbench.matrix.write_cell_keys
"""
import ctypes
import json

import pytest

import nvbench
from nvbench import _nvbench, fio, labels
from nvbench._scratch import parse_size
from nvbench.matrix import _write_cell_keys

import test_same_everywhere as same
import test_seed_cells as seed

# (key, text): sizes, durations and counts, good and bad, the edges of their ranges
KEY_VALUES = [
    ("size", "4k"), ("size", "4K"), ("size", "128KiB"), ("size", "1.5G"), ("size", "512"), ("size", "0"),
    ("size", " 2m "), ("size", "3t"), ("size", "16777215T"), ("size", "16777216T"), ("size", "lots"),
    ("size", "1.5"), ("size", "-4k"), ("size", ""), ("size", "4kk"), ("bs", "0"), ("bs", "1g"), ("bs", "2g"),
    ("offset", "1e3"),
    ("runtime", "500ms"), ("runtime", "2"), ("runtime", "1.5s"), ("runtime", "500us"), ("runtime", "5e-06s"),
    ("runtime", "1m"), ("runtime", "2h"), ("runtime", "366d"), ("runtime", "9000h"), ("runtime", "0.5ns"),
    ("runtime", "2 parsecs"), ("ramp", "250US"), ("interval", "1ms"), ("interval", "10ms"),
    ("thinktime", "100"), ("thinktime", "2ms"), ("ss.window", "5m"),
    ("qd", "32"), ("qd", "0"), ("qd", "4k"), ("jobs", "-1"), ("precondition", "random"), ("seq_stride", "-8k"),
    ("rw", "read"), ("direct", "1"), ("sise", "4k"), ("blocksize", "4k"), ("", "1"),
]
# (text, kb_base): fio's own reading of its sizes (a fio result's bs, a job file's size)
FIO_SIZES = [("4k", 1024), ("128KiB", 1024), ("128KiB", 1000), ("1m", 1000), ("1mi", 1024), ("512", 1024),
             ("0x10", 1024), ("3t", 1024), ("1.5k", 1024), ("lots", 1024), ("-1", 1024), ("99999999999p", 1024)]
RWS = ["read", "randread", "write", "randwrite", "trim", "randtrim", "rw", "randrw", "readwrite", "trimwrite",
       "randtrimwrite", "RandRW", "READ", "verify", "randread:8", "", "read\0write"]
SIZES = [1, 512, 1000, 4096, 6144, 65536, 131072, 1 << 20, 3 << 20, 1 << 30, 5 << 40, 1 << 50, 1 << 60,
         (1 << 63) - 1, (1 << 63)]


# (precondition, steady_state) of a seed matrix's write cells
WRITE_CELLS = [
    (None, None), (None, "bw"), (3, None), (0, "iops"), ("random", None),
    (2, {"excursion": 20, "metric": "lat", "runtime": "2h", "slope": 10, "stop": False, "window": "5m"}),
    (None, {"metric": "iops", "stop": True}), (None, {"metrc": "iops"}), (None, {"window": "5m"}),
    (None, {"metric": ""}), (-1, None), (True, None), ("2k", None), (None, {"metric": "iops", "window": "1m\nss=bw"}),
]


def library():
    lib = seed.library()
    if lib is None:
        pytest.skip("the build's libnvbench.so.0 is not here (run from the build tree's tests/)")
    cp, sz, u64 = ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64
    lib.nvb_workload_key_parse.argtypes = (cp, cp, ctypes.POINTER(u64), cp, sz)
    lib.nvb_fiomap_size.argtypes = (cp, ctypes.c_uint, ctypes.POINTER(u64), cp, sz)
    lib.nvb_rw_op.restype = cp
    lib.nvb_rw_op.argtypes = (cp,)
    lib.nvb_size_format.argtypes = (u64, cp, sz)
    lib.nvb_seed_write_keys.argtypes = (ctypes.POINTER(cp), sz, cp, sz, cp, sz)
    return lib


def _text(v):  # as the bindings write a value: Python's bool as Lua's
    return str(v).lower() if isinstance(v, bool) else str(v)


def write_line(i, keys=None, error=None):
    if error is not None:
        return f"write {i} ! {error}\n"
    return f"write {i} = {' '.join(f'{k}={v}' for k, v in sorted(keys.items()))}\n"


def line(what, answer=None, errno=None, message=None):
    if errno is None:
        return f"{what} = {answer}\n"
    return f"{what} ! {errno} {message}\n"


# --- the C answers -----------------------------------------------------------------------

def c_values(lib):
    out = []
    for key, text in KEY_VALUES:
        v, why = ctypes.c_uint64(), ctypes.create_string_buffer(512)
        rc = lib.nvb_workload_key_parse(key.encode(), text.encode(), ctypes.byref(v), why, len(why))
        out.append(line(f"{key}={text!r}", v.value, *((-rc, why.value.decode()) if rc < 0 else ())))
    for text, base in FIO_SIZES:
        v, why = ctypes.c_uint64(), ctypes.create_string_buffer(512)
        rc = lib.nvb_fiomap_size(text.encode(), base, ctypes.byref(v), why, len(why))
        out.append(line(f"fio {text!r}/{base}", v.value, *((-rc, why.value.decode()) if rc < 0 else ())))
    for rw in RWS:
        # a C string ends at its NUL: what the bindings must not read as "read"
        op = None if "\0" in rw else lib.nvb_rw_op(rw.encode())
        out.append(line(f"op {rw!r}", op.decode() if op else None))
    for n in SIZES:
        buf = ctypes.create_string_buffer(32)
        assert lib.nvb_size_format(n, buf, len(buf)) == len(buf.value)
        out.append(line(f"bs {n}", buf.value.decode()))
    for i, (pre, ss) in enumerate(WRITE_CELLS):
        pairs = [] if pre is None else [("precondition", _text(pre))]
        if ss is not None:
            pairs += [(k, _text(v)) for k, v in ({"metric": ss} if isinstance(ss, str) else ss).items()]
        flat = [x.encode() for kv in pairs for x in kv]
        buf, why = ctypes.create_string_buffer(1024), ctypes.create_string_buffer(512)
        rc = lib.nvb_seed_write_keys((ctypes.c_char_p * (len(flat) + 1))(*flat, None), len(pairs), buf, len(buf),
                                     why, len(why))
        keys = dict(x.split("=", 1) for x in buf.value.decode().splitlines())
        out.append(write_line(i, keys) if rc >= 0 else write_line(i, error=why.value.decode()))
    return "".join(out)


# --- Python's ----------------------------------------------------------------------------

def _py(what, fn, *args):
    try:
        return line(what, fn(*args))
    except nvbench.NvbenchError as e:
        return line(what, errno=e.errno, message=e.strerror)
    except ValueError as e:  # fio.parse_size: FioJobError, a ValueError with the library's words
        return line(what, errno=22, message=str(e))


def python_values():
    out = []
    for key, text in KEY_VALUES:
        fn = parse_size if key == "size" else (lambda t, k=key: _nvbench.key_parse(k, t))
        out.append(_py(f"{key}={text!r}", fn, text))
    out += [_py(f"fio {text!r}/{base}", fio.parse_size, text, base) for text, base in FIO_SIZES]
    out += [line(f"op {rw!r}", labels.op_of_rw(rw) if labels.op_of_rw(rw) in ("read", "write", "trim", "mixed")
                 else None) for rw in RWS]
    out += [line(f"bs {n}", labels.human_bs(n)) for n in SIZES]
    for i, (pre, ss) in enumerate(WRITE_CELLS):
        try:
            out.append(write_line(i, _write_cell_keys(pre, ss)))
        except ValueError as e:
            out.append(write_line(i, error=str(e)))
    return "".join(out)


# --- Lua's -------------------------------------------------------------------------------

LUA_VALUES = r"""
local nvb = require "nvbench"
local m = require "nvbench.matrix"
local fio = require "nvbench.fio_job"
local cases = nvb.decode_json(os.getenv("NVB_CASES"))
local function say(what, v, msg, errno)
  if v ~= nil then io.write(what, " = ", tostring(v), "\n") else io.write(what, " ! ", errno, " ", msg, "\n") end
end
local durations = { runtime = true, ramp = true, interval = true, thinktime = true, ["ss.window"] = true }
for _, c in ipairs(cases.keys) do
  local key, text = c[1], c[2]
  local what = ("%s=%s"):format(key, c[3])
  if key == "size" then say(what, m.size_bytes(text))
  elseif durations[key] then say(what, m.duration_ns(text, key))
  else say(what, nvb.key_parse(key, text)) end
end
for _, c in ipairs(cases.fio) do
  local ok, v = pcall(fio.fio_size, c[1], c[2])
  local what = ("fio %s/%d"):format(c[3], c[2])
  if ok then say(what, v) else say(what, nil, v, 22) end
end
for _, c in ipairs(cases.rws) do io.write(("op %s = %s\n"):format(c[2], tostring(m.op_of_rw(c[1])))) end
for _, n in ipairs(cases.sizes) do io.write(("bs %d = %s\n"):format(n, nvb.size_format(math.tointeger(n)))) end
for i, c in ipairs(cases.write) do
  local pre, ss = c[1], c[2]
  if pre ~= pre then pre = nil end -- JSON's null in an array is NaN here (lua_json.c)
  if ss ~= ss then ss = nil end
  local ok, keys = pcall(m.write_cell_keys, pre, ss)
  if not ok then
    io.write(("write %d ! %s\n"):format(i - 1, (tostring(keys):gsub("^.-nvbench%.matrix: ", "", 1))))
  else
    local names, out = {}, {}
    for k in pairs(keys) do names[#names + 1] = k end
    table.sort(names)
    for j, k in ipairs(names) do out[j] = k .. "=" .. keys[k] end
    io.write(("write %d = %s\n"):format(i - 1, table.concat(out, " ")))
  end
end
"""


def lua_values():
    cases = {"keys": [[k, t, repr(t)] for k, t in KEY_VALUES],
             "fio": [[t, b, repr(t)] for t, b in FIO_SIZES],
             "rws": [[rw, repr(rw)] for rw in RWS if "\0" not in rw],  # JSON text to Lua: no NUL
             "sizes": [n for n in SIZES if n < 1 << 63],  # a Lua integer is signed
             "write": [[pre, ss] for pre, ss in WRITE_CELLS]}
    return same.run_lua(LUA_VALUES, NVB_CASES=json.dumps(cases))


def test_values_and_labels_are_one():
    lib = library()
    c = c_values(lib)
    assert python_values() == c
    lua = lua_values().splitlines(True)
    expect = [x.replace("= None\n", "= nil\n") for x in c.splitlines(True)
              if not x.startswith((f"bs {1 << 63} ", "op 'read\\x00"))]
    assert len(lua) == len(expect), lua
    for got, want in zip(lua, expect):
        what, _, answer = want.partition(" = ")
        if answer.strip().isdigit() and int(answer) >= 1 << 63:  # past a Lua integer: refused, not wrapped
            assert got == f"{what} ! 34 the value is past a Lua integer (2^63 - 1)\n"
        else:
            assert got == want
    # what the library says, so that agreeing means something
    assert "size='4k' = 4096\n" in c and "size='1.5G' = 1610612736\n" in c and "runtime='5e-06s' = 5000\n" in c
    assert "size='lots' ! 22 invalid size 'lots' for key 'size' (examples: 4k, 1M, 2G)\n" in c
    assert "bs='0' ! 34 value '0' for key 'bs' out of range [1, 1073741824]\n" in c
    assert "runtime='366d' ! 22 " in c or "runtime='366d' ! 34 " in c
    assert "rw='read' ! 22 key 'rw' (value 'read') is not a number: it is of type enum\n" in c
    assert "sise='4k' ! 22 unknown key 'sise' (value '4k'): did you mean 'size'?\n" in c
    assert "fio '128KiB'/1024 = 128000\n" in c and "fio '128KiB'/1000 = 131072\n" in c
    assert "op 'randrw' = mixed\n" in c and "op 'RandRW' = mixed\n" in c and "op 'verify' = None\n" in c
    assert "write 1 = ss=bw ss.stop=1\n" in c and "write 3 = ss=iops ss.stop=1\n" in c
    assert "write 5 = precondition=2 runtime=2h ss=lat ss.excursion=20 ss.slope=10 ss.stop=false ss.window=5m\n" in c
    assert "write 7 ! steady_state: unknown option 'metrc' (known: " in c and "write 4 = precondition=random\n" in c
    assert "write 8 ! steady_state needs a metric: iops, bw or lat\n" in c and "write 13 ! " in c
    # the cells' sizes, named by the library's text and read back by its parser
    sizes = [labels._bs_of_cell(labels.cell_of("randread", n)) for n in (4096, 1 << 20, 3 << 30)]
    assert sizes == [4096, 1 << 20, 3 << 30] and labels._bs_of_cell("rand") == float("inf")
    assert "bs 4096 = 4k\n" in c and "bs 1048576 = 1M\n" in c and "bs 6144 = 6k\n" in c and "bs 1000 = 1000\n" in c
