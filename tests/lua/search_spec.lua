-- nvbench.search: the search's logic on an exact latency model (an injected run function),
-- its properties on the null engine with fault.delay (no completion comes before its delay),
-- and bad input. Nothing about timing.
local nvb = require "nvbench"
local search = require "nvbench.search"

-- p99 = per_qd_ns x qd; IOPS grow with qd
local function model(per_qd_ns, calls)
  return function(w)
    calls[#calls + 1] = w.qd
    return { read = { ios = 1000, iops = 1000 * w.qd / (1 + w.qd / 64), lat_ns = { p99 = per_qd_ns * w.qd },
                      lat_pct_supported = { p99 = true } },
             write = { ios = 0, iops = 0 }, warnings = { "same warning" }, engine = "model" }
  end
end

describe("nvbench.search", function()
  it("finds the highest qd within the bound: doubling, then bisection, no depth twice", function()
    for _, case in ipairs({ { 1000, 10 }, { 1600, 16 }, { 250, 2 }, { 1000000, 64 } }) do
      local calls = {}
      local s = nvb.search({ engine = "null" }, { target = ("p99<=%dus"):format(case[1]), max_qd = 64,
                                                  run = model(100000, calls) })
      assert.are.equal(case[2], s.answer.qd)
      local seen = {}
      for _, q in ipairs(calls) do assert.is_nil(seen[q]); seen[q] = true end
      for _, p in ipairs(s.points) do assert.are.equal(p.lat_ns <= case[1] * 1000, p.ok) end
      if case[2] < 64 then assert.is_true(seen[case[2] + 1]) end
      assert.are.equal(1, #s.warnings) -- each warning once, however many runs had it
      assert.are.equal(1, select(2, s.warnings[1]:gsub("same warning", "")))
    end
  end)

  it("has no answer when the first depth breaks the bound", function()
    local calls = {}
    local s = nvb.search({}, { target = "p99<=99us", run = model(100000, calls) })
    assert.is_nil(s.answer)
    assert.are.same({ 1 }, calls)
    assert.truthy(search.format(s):find("answer: none of the points kept p99<=99us", 1, true))
  end)

  it("brackets the rate where the bound breaks", function()
    local rates = {}
    local run = function(w)
      rates[#rates + 1] = w.rate_iops or "none"
      local rate = w.rate_iops
      local iops, lat = rate or 100000, rate and (10000 + 10 * rate) or 5e6
      return { read = { ios = 1, iops = iops, lat_ns = { p99 = lat } }, write = { ios = 0, iops = 0 }, warnings = {} }
    end
    local s = nvb.search({}, { target = "p99<500us", vary = "rate_iops", rel_tol = 0.01, run = run })
    assert.are.equal("none", rates[1])
    assert.is_true(s.answer.rate_iops < 49000 and s.answer.rate_iops >= 49000 * 0.99 - 1)
  end)

  it("names bad targets and options", function()
    local bad = { { "p99<=1", "needs a unit" }, { "p99<=1xs", "unit 'xs'" }, { "p42<=1ms", "'p42' is not measured" },
                  { "p99>=1ms", "expected PERCENTILE<=BOUND" } }
    for _, b in ipairs(bad) do
      local ok, err = pcall(nvb.search, { engine = "null" }, { target = b[1] })
      assert.is_false(ok)
      assert.truthy(tostring(err):find(b[2], 1, true), err)
    end
    local ok, err = pcall(nvb.search, { qd = 4 }, { target = "p99<=1ms" })
    assert.is_false(ok)
    assert.truthy(err:find("which the search varies", 1, true))
    ok, err = pcall(nvb.search, {}, { target = "p99<=1ms", vary = "bs" })
    assert.truthy(not ok and err:find("vary must be", 1, true))
  end)

  it("on the null engine: a bound under fault.delay is never kept, one far above it always", function()
    local w = { engine = "null", rw = "randread", runtime = "0.2s", ["fault.delay"] = "2ms" }
    local s = nvb.search(w, { target = "p50<=1ms", max_qd = 8 })
    assert.is_nil(s.answer)
    assert.are.equal(1, #s.points)
    assert.is_true(s.points[1].lat_ns >= 2e6 * (1 - 1 / 128))
    s = nvb.search(w, { target = "p50<=60s", max_qd = 4 })
    assert.are.equal(3, #s.points)
    for i, p in ipairs(s.points) do
      assert.are.equal(2 ^ (i - 1), p.qd)
      assert.is_true(p.ok)
    end
    local best = 0
    for _, p in ipairs(s.points) do best = math.max(best, p.iops) end
    assert.are.equal(best, s.answer.iops)
  end)

  it("sees each time-series interval's p50/p99/p99.9 and histogram; they add up to the run's", function()
    local r = assert(nvb.run { engine = "null", rw = "randread", qd = 2, runtime = "0.3s", interval = "100ms",
                               ["fault.delay"] = "100us" })
    assert.is_true(#r.timeseries >= 2)
    local sum = {}
    for _, p in ipairs(r.timeseries) do
      local h = p.read.lat_hist
      if h.count > 0 then
        assert.is_true(p.read.p50 <= p.read.p99 and p.read.p99 <= p.read["p99.9"])
      else
        assert.is_nil(p.read.p50) -- null: no completion in the interval
      end
      for _, b in ipairs(h.buckets) do sum[b[1]] = (sum[b[1]] or 0) + b[2] end
    end
    local whole = {}
    for _, b in ipairs(r.read.lat_hist.buckets) do whole[b[1]] = b[2] end
    assert.are.same(whole, sum)
  end)
end)
