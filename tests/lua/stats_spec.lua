-- nvb.stats: the library's statistics of repeated runs, as Python's
-- nvbench.stats and the C API give them (tests/python/test_stats.py feeds
-- the same values through Lua and compares the digits).
local nvb = require "nvbench"

describe("nvb.stats", function()
  it("keeps a share's interval inside 0..100 (the reported n = 2 case)", function()
    local e = nvb.stats.mean_interval({ 99.5, 11.8 }, "share")
    assert.are.equal((99.5 + 11.8) / 2, e.value)
    assert.are.equal("logit", e.method)
    assert.is_nil(e.why)
    assert.is_true(0 < e.low and e.low < e.value and e.value < e.high and e.high < 100)
  end)

  it("says why there is no interval instead of a number", function()
    local e = nvb.stats.mean_interval({ 7 }, "positive")
    assert.are.equal("n<2", e.why)
    assert.is_nil(e.low)
    e = nvb.stats.mean_interval({ 0, 0 }, "share")
    assert.are.equal("mean at the domain's bound", e.why)
    e = nvb.stats.mean_interval({ 0 / 0, 3 }, "positive") -- a NaN is a run without the figure
    assert.are.equal(1, e.n_a)
  end)

  it("gives the ratio of the arithmetic means with Welch's interval on its logarithm", function()
    local r = nvb.stats.ratio({ 99.5, 11.8 }, { 60.0, 52.8 }, "share")
    assert.are.equal((60.0 + 52.8) / 2 / ((99.5 + 11.8) / 2), r.value)
    assert.is_true(r.low > 0 and r.low < r.value and r.value < r.high)
    assert.is_true(math.abs(nvb.stats.t_critical(1) - math.tan(math.pi * 0.475)) < 1e-9)
  end)

  it("raises on misuse, returns nil, message, errno on a refused confidence", function()
    assert.has_error(function() nvb.stats.mean_interval({ 1 }, "percent") end)
    assert.has_error(function() nvb.stats.mean_interval("1, 2", "share") end)
    local v, msg, errno = nvb.stats.mean_interval({ 1, 2 }, "share", 1.5)
    assert.is_nil(v)
    assert.are.equal(nvb.errno.EINVAL, errno)
    assert.is_true(#msg > 0)
  end)
end)
