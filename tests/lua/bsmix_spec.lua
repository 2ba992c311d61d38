-- Block-size mixes (bssplit) and think time through the Lua module: the
-- per-size counts in the result add up to its I/Os and bytes, thinktime's
-- bare number is microseconds, and a bad split is refused by name.
local nvb = require "nvbench"
local S = require "support"

describe("bssplit and thinktime", function()
  local data

  setup(function() data = S.scratch("4M") end)
  teardown(function() data:remove() end)

  it("counts the I/Os by size", function()
    local r, err = nvb.run { targets = { data.path }, engine = "null", rw = "randread", ios = 2000,
                             bssplit = "4k/50:64k/50" }
    assert.is_nil(err)
    local n, bytes = 0, 0
    for size, count in pairs(r.read.bs_counts) do
      n = n + count
      bytes = bytes + tonumber(size) * count
    end
    assert.are.equal(2000, n)
    assert.are.equal(r.read.bytes, bytes)
    assert.are.equal("4k/50:64k/50", r.workload.bssplit)
  end)

  it("takes thinktime in microseconds", function()
    local r, err = nvb.run { targets = { data.path }, engine = "null", ios = 20, thinktime = 200,
                             thinktime_blocks = 5 }
    assert.is_nil(err)
    assert.is_true(math.abs(r.workload.thinktime_s - 200e-6) < 1e-12)
    assert.is_true(r.duration_s >= 3 * 200e-6) -- 4 batches of 5, 3 thinks between them
  end)

  it("refuses a split that does not add up, naming key and value", function()
    local r, err = nvb.run { targets = { data.path }, engine = "null", ios = 20, bssplit = "4k/50:8k/40" }
    assert.is_nil(r)
    assert.matches("'bssplit'", err, 1, true)
    assert.matches("4k/50:8k/40", err, 1, true)
  end)
end)
