-- random_distribution and random_map from Lua: the library's keys (one
-- table), echoed in the result's workload, refused with key and value named.
-- The laws themselves are tested in tests/c/test_dist.c.
local nvb = require "nvbench"
local E = nvb.errno

describe("offset distributions", function()
  it("runs each distribution and echoes it", function()
    for _, d in ipairs { "zipf:1.2", "pareto:0.9", "normal:10", "zoned:60/10:30/20:10/70" } do
      local r = assert(nvb.run { engine = "null", size = "64M", ios = 1000, qd = 4, random_distribution = d })
      assert.are.equal(1000, r.read.ios)
      assert.are.equal(d, r.workload.random_distribution)
      assert.are.equal(0, r.workload.random_map)
    end
    local r = assert(nvb.run { engine = "null", size = "64M", ios = 100, random_map = true })
    assert.are.equal(1, r.workload.random_map)
    assert.are.equal("random", r.workload.random_distribution)
  end)

  it("refuses bad values naming the keys", function()
    local cases = {
      { { random_distribution = "zipf:0" }, E.ERANGE, "random_distribution", "zipf:0" },
      { { random_distribution = "zoned:60/10" }, E.EINVAL, "random_distribution", "sum to 100" },
      { { random_distribution = "pareto:0.2", random_map = true }, E.EINVAL, "random_map", "pareto:0.2" },
    }
    for _, c in ipairs(cases) do
      local spec = { engine = "null", size = "64M", ios = 10 }
      for k, v in pairs(c[1]) do spec[k] = v end
      local r, msg, code = nvb.run(spec)
      assert.is_nil(r)
      assert.are.equal(c[2], code, msg)
      assert.is_truthy(msg:find(c[3], 1, true), msg)
      assert.is_truthy(msg:find(c[4], 1, true), msg)
    end
  end)
end)
