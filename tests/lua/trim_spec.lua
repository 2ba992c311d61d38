-- Trims from Lua: rw=trim/randtrim through the key table, the result's trim
-- direction (r.trim, r:get("trim...")), tostring naming it, and the refusal
-- of an engine that cannot trim.
local nvb = require "nvbench"
local S = require "support"

describe("trims", function()
  local data

  setup(function() data = S.scratch("4M") end)
  teardown(function() data:remove() end)

  it("counts trims in their own direction", function()
    local r = assert(nvb.run { engine = "null", rw = "randtrim", bs = "8k", qd = 4, jobs = 2, ios = 300 })
    assert.are.equal(300, r.trim.ios)
    assert.are.equal(300 * 8192, r.trim.bytes)
    assert.are.equal(0, r.read.ios)
    assert.are.equal(0, r.write.ios)
    assert.are.equal(300, r:get("trim.ios"))
    assert.are.equal(300, r.total.ios)
    assert.is_true(r.trim.lat_ns.p99 >= r.trim.lat_ns.p50)
    assert.matches("trim IOPS", tostring(r), 1, true)
    -- a run without trims has no trim direction
    local q = assert(nvb.run { engine = "null", rw = "randread", ios = 10 })
    assert.is_nil(q.trim)
    assert.is_nil(tostring(q):find("trim", 1, true))
  end)

  it("punches holes in a file through psync: the range reads back as zeros", function()
    local r = assert(nvb.run { targets = { data.path }, engine = "psync", rw = "trim", bs = "64k",
                               size = "256k", io_limit = "256k" })
    assert.are.equal(4, r.trim.ios)
    local bytes = S.read_file(data.path)
    assert.are.equal(string.rep("\0", 256 * 1024), bytes:sub(1, 256 * 1024))
    assert.are_not.equal(string.rep("\0", 1024), bytes:sub(256 * 1024 + 1, 257 * 1024))
  end)

  it("refuses an engine that cannot trim, naming it and the rw", function()
    if not nvb.engines().libaio.available then return end
    local r, msg, errno = nvb.run { targets = { data.path }, engine = "libaio", rw = "randtrim", ios = 4 }
    assert.is_nil(r)
    assert.matches("libaio", msg, 1, true)
    assert.matches("rw=randtrim", msg, 1, true)
    assert.are.equal(nvb.errno.ENOTSUP, errno)
  end)
end)
