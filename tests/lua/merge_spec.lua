-- nvb.load and nvb.merge: results from their JSON, and one result of
-- several runs (as MPI ranks or other processes would send them).
local nvb = require "nvbench"
local S = require "support"

describe("merging results", function()
  local data

  setup(function() data = S.scratch("4M") end)
  teardown(function() data:remove() end)

  local function run(seed)
    return assert(nvb.run { targets = data.path, engine = "psync", rw = "randread", bs = "4k",
                            ios = 300, seed = seed, direct = 0 })
  end

  it("loads a result back from its JSON, every figure the same", function()
    local r <close> = run(1)
    local text = assert(r:json())
    local back <close> = assert(nvb.load(text))
    assert.are.equal(text, assert(back:json()))
    assert.are.equal(r.read.ios, back.read.ios)
    assert.are.equal(r.read.lat_ns.p99, back.read.lat_ns.p99)
  end)

  it("refuses text that is not a result, saying where, with EINVAL", function()
    local v, msg, errno = nvb.load('{"schema": "nvbench.result/1", "read": ')
    assert.is_nil(v)
    assert.are.equal(nvb.errno.EINVAL, errno)
    assert.is_true(#msg > 0)
    v, msg, errno = nvb.load("[]")
    assert.is_nil(v)
    assert.are.equal(nvb.errno.EINVAL, errno)
  end)

  it("merges handles and JSON text: exact sums, one row per run", function()
    local a <close> = run(1)
    local b <close> = run(2)
    local c <close> = run(3)
    local m <close> = assert(nvb.merge { a, b, assert(c:json()) })
    assert.are.equal(a.read.ios + b.read.ios + c.read.ios, m.read.ios)
    assert.are.equal(900, m.read.ios)
    assert.are.equal(a.read.bytes + b.read.bytes + c.read.bytes, m.read.bytes)
    assert.are.equal(3, #m.hosts)
    -- the merged latency histogram holds every sample
    assert.are.equal(900, m.read.lat_hist.count)
    -- merging is associative: (a + b) + c has the same totals
    local ab <close> = assert(nvb.merge { a, b })
    local abc <close> = assert(nvb.merge { ab, c })
    assert.are.equal(m.read.ios, abc.read.ios)
    assert.are.equal(m.read.lat_ns.p99, abc.read.lat_ns.p99)
  end)

  it("says what is wrong with the list", function()
    local v, msg, errno = nvb.merge {}
    assert.is_nil(v)
    assert.are.equal(nvb.errno.EINVAL, errno)
    assert.matches("empty", msg)
    local a <close> = run(1)
    v, msg, errno = nvb.merge { a, "not json" }
    assert.is_nil(v)
    assert.are.equal(nvb.errno.EINVAL, errno)
    assert.matches("item 2", msg)
    assert.has_error(function() nvb.merge { a, 42 } end, "nvbench.merge: item 2 is a number, not a result or its JSON text")
    assert.has_error(function() nvb.merge("x") end)
  end)
end)
