-- A result's workload read back by the library (nvb_result_workload,
-- nvb_workload_from_json): every key under its own name, as it ran, so
-- that running it again runs the same workload.
local nvb = require "nvbench"
local S = require "support"

describe("the workload echo read back", function()
  local data

  setup(function() data = S.scratch("1M") end)
  teardown(function() data:remove() end)

  it("gives every key of a result's workload, ss and fault keys included", function()
    local r = assert(nvb.run { targets = { data.path }, engine = "null", ios = 64, interval = "20ms",
                               continue_on_error = 1, ss = "iops", ["ss.window"] = "60ms", ["ss.excursion"] = 12.5,
                               ["ss.stop"] = 1, ["fault.rate"] = "1/3", ["fault.errno"] = "ENOSPC",
                               ["fault.delay"] = "1ms", ["fault.seed"] = 9 })
    local w = assert(r:to_workload())
    assert.are.equal("iops", w:get("ss"))
    assert.are.equal("60ms", w:get("ss.window"))
    assert.are.equal("12.5", w:get("ss.excursion"))
    assert.are.equal("1", w:get("ss.stop"))
    assert.are.equal("ENOSPC", w:get("fault.errno"))
    assert.are.equal("1ms", w:get("fault.delay"))
    assert.are.equal("9", w:get("fault.seed"))
    assert.are.equal("0s", w:get("runtime")) -- ios alone bounded the run
    -- run again from it: the same workload, key for key
    local r2 = assert(nvb.run(w))
    local w2 = assert(r2:to_workload())
    local keys = assert(nvb.workload_echo("{}"))
    assert.is_true(#keys > 40)
    for _, kv in ipairs(keys) do
      assert.are.equal(w:get(kv[1]), w2:get(kv[1]), kv[1])
    end
  end)

  it("reads each member under the key the library's table gives it", function()
    local keys, targets = nvb.workload_echo('{"ss":{"metric":"bw","excursion_pct":7.5},"runtime_s":0.001,'
                                            .. '"targets":["/x"],"engine_opts":{"io_uring.sqpoll":"1"}}')
    local got = {}
    for _, kv in ipairs(keys) do got[kv[1]] = kv[2] end
    assert.are.equal("bw", got.ss)
    assert.are.equal("7.5", got["ss.excursion"])
    assert.are.equal("1ms", got.runtime)
    assert.are.equal("1", got["io_uring.sqpoll"])
    assert.are.same({ "/x" }, targets)
  end)

  it("refuses a member that is no key, by name", function()
    local ok, msg, err = nvb.workload_echo('{"ss":{"excursion":5}}')
    assert.is_nil(ok)
    assert.matches("ss.excursion", msg, 1, true)
    assert.are.equal(nvb.errno.EINVAL, err)
  end)
end)
