-- The module's API: library facts, runs and their results, workload handles,
-- value conversion, the JSON decoder, and misuse raising errors.
local nvb = require "nvbench"
local S = require "support"

describe("nvbench module", function()
  local data

  setup(function() data = S.scratch("4M") end)
  teardown(function() data:remove() end)

  it("states its version, schema and errno names", function()
    assert.matches("^%d+%.%d+%.%d+$", nvb.version)
    assert.are.equal("nvbench.result/1", nvb.schema)
    assert.are.equal(22, nvb.errno.EINVAL)
    assert.are.equal(2, nvb.errno.ENOENT)
    assert.is_string(nvb.strerror(nvb.errno.EINVAL))
    assert.are.equal(nvb.strerror(22), nvb.strerror(-22))
  end)

  it("lists every engine with availability and a reason when unavailable", function()
    local e = nvb.engines()
    for _, name in ipairs { "psync", "libaio", "io_uring", "null" } do
      assert.is_table(e[name], name)
      assert.is_boolean(e[name].available)
      assert.is_number(e[name].index)
      if not e[name].available then
        assert.is_string(e[name].reason)
        assert.is_true(#e[name].reason > 0)
      end
    end
    assert.is_true(e.psync.available)
    assert.is_true(e.null.available)
  end)

  it("lists devices when the library discovers them, and says ENOSYS when it cannot", function()
    local v, msg, errno = nvb.devices()
    if v == nil and errno == nvb.errno.ENOSYS then
      assert.matches("not available", msg)
      local d, dmsg, derrno = nvb.device("/dev/null")
      assert.is_nil(d)
      assert.matches("not available", dmsg)
      assert.are.equal(nvb.errno.ENOSYS, derrno)
      return
    end
    assert.is_table(v, msg)
    for _, dev in ipairs(v) do assert.is_string(dev.name) end
    local d, dmsg, derrno = nvb.device("/nonexistent/nvbench-device")
    assert.is_nil(d)
    assert.matches("/nonexistent/nvbench-device", dmsg, 1, true)
    assert.are.equal(nvb.errno.ENOENT, derrno)
    local none, nmsg, nerrno = nvb.devices("/nonexistent/sysfs")
    assert.is_nil(none)
    assert.matches("/nonexistent/sysfs", nmsg, 1, true)
    assert.is_number(nerrno)
  end)

  it("runs a workload and exposes the result as nested tables", function()
    local r, err = nvb.run { targets = { data.path }, engine = "psync", rw = "randread", bs = "4k",
                             qd = 1, runtime = "10s", ios = 200 }
    assert.is_nil(err)
    assert.are.equal("userdata", type(r))
    assert.is_true(r.read.ios > 0)
    assert.is_true(r.read.iops > 0)
    assert.are.equal(0, r.write.ios)
    assert.is_true(r.read.lat_ns.p99 >= r.read.lat_ns.p50)
    assert.is_true(r.read.lat_ns["p99.9"] >= r.read.lat_ns.p99)
    assert.is_true(r.read.lat_ns["p99.9"] <= r.read.lat_ns.max)
    -- the machine's share, or nil (null) with the reason when 200 I/Os took fewer than 10 ticks
    if r.cpu.system_pct == nil then
      assert.is_truthy(r.cpu.system_null_reason:find("USER_HZ", 1, true))
    else
      assert.is_number(r.cpu.system_pct)
    end
    assert.is_true(r.cpu.cpu_us_per_io > 0)
    assert.is_false(r.cancelled)
    assert.is_nil(r.error) -- JSON null reads as nil
    assert.are.equal("psync", r.engine)
    assert.are.equal("psync", r.workload.engine)
    assert.are.equal(data.path, r.workload.targets[1])
    assert.are.equal(data.path, r.per_target[1].path)
    assert.are.equal("integer", math.type(r.read.ios))
    assert.is_nil(r.no_such_key)
    assert.are.equal(r.read.bytes, r.read.ios * 4096)
  end)

  it("fails a run whose verify read back blocks that did not match, with the result", function()
    -- data holds bytes no verify=1 run wrote: every block read is a mismatch (it returned the result, as a success)
    local r, msg, errno, res = nvb.run { targets = { data.path }, engine = "psync", rw = "read", verify = 1, ios = 8 }
    assert.is_nil(r)
    assert.are.equal(nvb.errno.EILSEQ, errno)
    assert.matches("verify: 8 of 8 blocks read did not match", msg, 1, true)
    assert.matches("offset 0, field 'magic'", msg, 1, true)
    assert.are.equal(8, res.verify.mismatches)
    assert.are.equal("magic", res.verify.first_mismatches[1].field)
    -- a target named twice in a run that writes is refused before any I/O
    local w, wmsg, werrno = nvb.run { targets = { data.path, data.path }, engine = "psync", rw = "randwrite", ios = 8 }
    assert.is_nil(w)
    assert.are.equal(nvb.errno.EINVAL, werrno)
    assert.matches("are the same file", wmsg, 1, true)
  end)

  it("serialises to JSON that decodes to the same figures", function()
    local r = assert(nvb.run { targets = data.path, rw = "randread", ios = 100 })
    local json = r:json()
    assert.is_string(json)
    assert.matches('"schema":"nvbench.result/1"', json, 1, true)
    local t = assert(nvb.decode_json(json))
    assert.are.equal(100, t.read.ios)
    assert.are.equal(r.read.ios, t.read.ios)
    assert.are.equal(r.read.lat_ns["p99.9"], t.read.lat_ns["p99.9"])
    assert.are.same(t.cpu.per_cpu_pct, r.cpu.per_cpu_pct)
    assert.are.equal(r:table(), r:table()) -- decoded once, cached
  end)

  it("reads any figure by dotted path", function()
    local r = assert(nvb.run { targets = { data.path }, ios = 50 })
    -- Fields come from the JSON form (10 significant digits); get() is exact.
    local function near(a, b) return math.abs(a - b) <= 1e-9 * math.max(math.abs(a), math.abs(b)) end
    assert.is_true(near(r.read.lat_ns.p99, r:get("read.lat_ns.p99")))
    assert.is_true(near(r.read.lat_ns["p99.9"], r:get("read.lat_ns.p99.9")))
    assert.is_true(near(r.cpu.cpu_us_per_io, r:get("cpu.cpu_us_per_io")))
    assert.are.equal(50, r:get("per_target.0.read.ios"))
    local v, msg, errno = r:get("read.nope")
    assert.is_nil(v)
    assert.matches("read.nope", msg, 1, true)
    assert.are.equal(nvb.errno.ENOENT, errno)
  end)

  it("walks the result with pairs and prints it with tostring", function()
    local r = assert(nvb.run { targets = { data.path }, ios = 10 })
    local keys = {}
    for k in pairs(r) do keys[k] = true end
    assert.is_true(keys.schema and keys.read and keys.cpu and keys.per_target)
    assert.matches("^nvbench%.result: %d+ read IOPS", tostring(r))
  end)

  it("converts numbers, booleans and engine options to the library's strings", function()
    local r = assert(nvb.run { targets = { data.path }, engine = "null", qd = 4, runtime = 0.2, direct = false,
                               rwmix = 70, rw = "randrw", ["io_uring.sqpoll"] = false, ["io_uring.fixedbufs"] = true,
                               interval = "100ms", name = "conv" })
    assert.are.equal(4, r.workload.qd)
    assert.are.equal(0.2, r.workload.runtime_s)
    assert.are.equal(0, r.workload.direct)
    assert.are.equal(70, r.workload.rwmix)
    assert.are.equal("randrw", r.workload.rw)
    assert.are.equal("0", r.workload.engine_opts["io_uring.sqpoll"])
    assert.are.equal("1", r.workload.engine_opts["io_uring.fixedbufs"])
    assert.are.equal("conv", r.workload.name)
    assert.is_true(r.read.ios > 0 and r.write.ios > 0)
  end)

  it("bounds a run by ios and io_limit", function()
    local r = assert(nvb.run { targets = { data.path }, engine = "libaio", qd = 8, ios = 64 })
    assert.are.equal(64, r.read.ios)
    r = assert(nvb.run { targets = { data.path }, engine = "null", bs = "8k", io_limit = "1M" })
    assert.are.equal(128, r.read.ios)
  end)

  describe("workload handles", function()
    it("set, get, validate and run", function()
      local w = assert(nvb.workload { engine = "psync", qd = 8 })
      assert.matches("^nvbench%.workload %(engine=psync rw=randread bs=4096 qd=8 jobs=1%)", tostring(w))
      assert.are.equal("8", w:get("qd"))
      assert.are.equal(w, w:set("bs", "8k"):set("qd", 2))
      assert.are.equal("8192", w:get("bs"))
      assert.are.equal(w, w:set { rw = "randwrite", ios = 20 })
      assert.are.equal("randwrite", w:get("rw"))
      assert.are.equal("auto", w:get("io_uring.fixedbufs"))
      local v, msg, errno = w:get("nosuch")
      assert.is_nil(v)
      assert.matches("nosuch", msg)
      assert.are.equal(nvb.errno.ENOENT, errno)
      local ok, vmsg, verrno = w:validate()
      assert.is_nil(ok)
      assert.matches("target", vmsg)
      assert.are.equal(nvb.errno.EINVAL, verrno)
      assert.are.equal(w, w:add_target(data.path))
      assert.is_true(w:validate())
      local r = assert(w:run())
      assert.are.equal(20, r.write.ios)
      r = assert(nvb.run(w, { progress = function() end }))
      assert.are.equal(20, r.write.ios)
      w:clear_targets()
      assert.is_nil((w:validate()))
      w:set("targets", { data.path })
      assert.is_true(w:validate())
    end)

    it("reports a bad value without changing the workload", function()
      local w = nvb.workload()
      local v, msg, errno = w:set("qd", 0)
      assert.is_nil(v)
      assert.matches("'qd'", msg)
      assert.are.equal(nvb.errno.ERANGE, errno)
      assert.are.equal("1", w:get("qd"))
    end)

    it("can be run many times from one handle", function()
      local w = assert(nvb.workload { targets = { data.path }, engine = "null", ios = 10 })
      for _ = 1, 5 do assert.are.equal(10, assert(w:run()).read.ios) end
    end)
  end)

  describe("JSON decoder", function()
    it("decodes nesting, escapes, numbers and literals", function()
      local t = assert(nvb.decode_json(
        '{"a":[1,2.5,-3e2,{"b":"x\\"y\\\\z\\u00e9\\ud83d\\ude00"}],"t":true,"f":false,"n":null,"e":{},"l":[]}'))
      assert.are.equal(1, t.a[1])
      assert.are.equal("integer", math.type(t.a[1]))
      assert.are.equal(2.5, t.a[2])
      assert.are.equal(-300, t.a[3])
      assert.are.equal('x"y\\z\xc3\xa9\xf0\x9f\x98\x80', t.a[4].b)
      assert.is_true(t.t)
      assert.is_false(t.f)
      assert.is_nil(t.n)
      assert.are.same({}, t.e)
      assert.are.same({}, t.l)
      local arr = assert(nvb.decode_json("[1,null,3]"))
      assert.are.equal(3, #arr)
      assert.is_true(arr[2] ~= arr[2]) -- NaN
      assert.are.equal(18446744073709551615.0, nvb.decode_json("18446744073709551615"))
    end)

    it("refuses malformed text with nil, message, EINVAL", function()
      for _, bad in ipairs { "", "{", "[1,]", '{"a" 1}', "tru", "01", "1.", '"\\x"', '"\\ud800"', "[1] x",
                             string.rep("[", 500) .. string.rep("]", 500) } do
        local v, msg, errno = nvb.decode_json(bad)
        assert.is_nil(v, bad)
        assert.matches("^invalid JSON", msg)
        assert.are.equal(nvb.errno.EINVAL, errno)
      end
    end)
  end)

  describe("misuse raises", function()
    it("on wrong argument types", function()
      assert.has_error(function() nvb.run(42) end)
      assert.has_error(function() nvb.run() end)
      assert.has_error(function() nvb.run { targets = { data.path }, bs = {} } end,
        "nvbench: value of key 'bs' must be a string, number or boolean (got table)")
      assert.has_error(function() nvb.run { targets = 5 } end)
      assert.has_error(function() nvb.run { targets = { 1 } } end)
      assert.has_error(function() nvb.run { "positional" } end)
      assert.has_error(function() nvb.run { targets = { data.path }, progress = "often" } end)
      assert.has_error(function() nvb.run(nvb.workload(), 5) end)
      assert.has_error(function() nvb.workload { progress = function() end } end)
      assert.has_error(function() nvb.workload(5) end)
      assert.has_error(function() nvb.workload():set("qd") end)
      assert.has_error(function() nvb.workload():get() end)
      assert.has_error(function() nvb.decode_json() end)
      assert.has_error(function() nvb.strerror("x") end)
      assert.has_error(function() nvb.device() end)
      local r = assert(nvb.run { targets = { data.path }, engine = "null", ios = 1 })
      assert.has_error(function() r:get() end)
      assert.has_error(function() r.json() end)
    end)
  end)
end)
