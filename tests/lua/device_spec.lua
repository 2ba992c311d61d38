-- What the device did and the energy (docs/device.md): the result's
-- per_target[].device_log and energy reach Lua as fields, with the reason
-- where they were not measured (a scratch file is not an NVMe namespace).
local nvb = require "nvbench"
local S = require "support"

describe("device counters and energy", function()
  local data
  setup(function() data = S.scratch("4M") end)
  teardown(function() data:remove() end)

  it("says why there is no device log on a file, and what the energy is or why not", function()
    local r = assert(nvb.run { targets = { data.path }, engine = "psync", rw = "randread", ios = 64 })
    local d = r.per_target[1].device_log
    assert.is_table(d)
    assert.is_false(d.available)
    assert.is_string(d.reason)
    assert.is_true(#d.reason > 0)
    assert.is_nil(d.delta)
    local e = r.energy
    assert.is_table(e)
    if e.available then
      assert.is_number(e.joules)
      assert.is_true(e.joules >= 0)
    else
      assert.is_string(e.reason)
      assert.is_true(#e.reason > 0)
    end
  end)
end)
