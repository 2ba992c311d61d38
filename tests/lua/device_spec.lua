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

  it("reads media writes back and shows the write amplification factor, or why not", function()
    local r = assert(nvb.run { targets = { data.path }, engine = "psync", rw = "randwrite", ios = 64 })
    -- the health log's fields, by the schema; 40 data units written, the media 100 (x 512000)
    local schema = assert(nvb.decode_json(assert(S.read_file(S.src .. "/docs/result.schema.json"))))
    local before, after = {}, {}
    for _, k in ipairs(schema.definitions.health_log.required) do
      before[#before + 1] = string.format('"%s":0', k)
      after[#after + 1] = string.format('"%s":%d', k, k == "data_units_written" and 40 or 0)
    end
    local function with(media)
      local log = '"device_log":{"available":true,"reason":null,"node":"/dev/nvme0n1",' ..
        '"warning_threshold_k":null,"before":{' .. table.concat(before, ",") .. '},"after":{' ..
        table.concat(after, ",") .. '},"delta":{' .. table.concat(before, ",") .. '},' ..
        '"device_bytes_per_host_byte":null,"device_read_bytes_per_host_byte":null,' ..
        '"host_commands_per_io":null,"derived_reason":null,"media":' .. media .. '}'
      local text, n = r:json():gsub('"device_log":%b{}', function() return log end)
      assert.are.equal(1, n)
      return assert(nvb.load(text))
    end
    local back = with('{"available":true,"reason":null,"source":"ocp_smart_extended_log",' ..
      '"endurance_group":null,"bytes_written_before":1000,"bytes_written_after":51201000,"bytes_written":0}')
    local d = back.per_target[1].device_log
    assert.are.equal(2.5, d.write_amplification)
    assert.are.equal("ocp_smart_extended_log", d.media.source)
    assert.are.equal(51200000, d.media.bytes_written)
    assert.are.equal(2.5, back:get("per_target.0.device_log.write_amplification"))
    local why = "the controller reports no endurance groups (Identify Controller CTRATT bit 4)"
    d = with('{"available":false,"reason":"' .. why .. '"}').per_target[1].device_log
    assert.is_false(d.media.available)
    assert.are.equal(why, d.write_amplification_reason)
  end)
end)
