-- The machine's CPU per I/O by kind and the environment reach Lua as the
-- library wrote them (docs/cpu.md): r.cpu.per_io_us, r.cpu.per_cpu,
-- r.environment, r.interrupts, r.placement, and r:get() on the numbers.
local nvb = require "nvbench"
local S = require "support"

describe("cpu by kind and environment", function()
  local data
  setup(function() data = S.scratch("4M") end)
  teardown(function() data:remove() end)

  it("shows cpu.per_io_us, cpu.per_cpu and environment", function()
    local r = assert(nvb.run { targets = { data.path }, engine = "psync", rw = "randread", bs = "4k",
                               runtime = "300ms", direct = 0 })
    local k = r.cpu.per_io_us
    assert.is_table(k)
    assert.are.equal("/proc/sys/kernel/osrelease", r.environment.kernel_release.source)
    assert.is_table(r.environment.devices)
    assert.is_table(r.interrupts) -- per_io, or nil with null_reason
    assert.is_true(r.interrupts.per_io ~= nil or type(r.interrupts.null_reason) == "string")
    -- placement: the job thread's CPU and the device's node (or why not)
    assert.is_table(r.placement)
    if r.placement.null_reason == nil then
      assert.are.equal(1, #r.placement.jobs)
      assert.is_true(math.type(r.placement.jobs[1].last_cpu) == "integer" and r.placement.jobs[1].last_cpu >= 0)
      assert.is_true(r.placement.jobs[1].samples >= 1)
      assert.is_table(r.placement.devices)
    else
      assert.is_string(r.placement.null_reason)
    end
    if k.busy == nil then
      assert.is_string(k.null_reason) -- not measured: it says why
      return
    end
    assert.is_true(math.abs(k.user + k.system + k.irq + k.softirq - k.busy) <= 1e-9 * k.busy)
    assert.is_true(#r.cpu.per_cpu > 0)
    local soft = 0
    for _, row in ipairs(r.cpu.per_cpu) do soft = soft + row.softirq end
    assert.is_true(math.abs(soft - k.softirq) <= 1e-9 * (1 + soft))
    assert.is_true(math.abs(r:get("cpu.per_io_us.busy") - k.busy) <= 1e-9 * k.busy)
  end)

  it("shows cpus=local's node and the buffers' policy, or the warning", function()
    local r = assert(nvb.run { targets = { data.path }, engine = "psync", rw = "randread", bs = "4k",
                               runtime = "200ms", direct = 0, cpus = "local" })
    if r.placement.null_reason ~= nil then return end -- no placement here (it says why)
    local warned = false
    for _, w in ipairs(r.warnings or {}) do warned = warned or w:find("cpus=local", 1, true) ~= nil end
    local loc = r.placement["local"]
    assert.are.equal(loc == nil, warned) -- a node used, or the warning
    if loc ~= nil then
      assert.is_true(math.type(loc.node) == "integer" and loc.node >= 0)
      assert.is_string(loc.source)
      local j = r.placement.jobs[1]
      if j.buffer_policy ~= nil then -- a kernel with NUMA policies: the bind left its mark
        assert.are.equal("preferred", j.buffer_policy)
        assert.are.equal(loc.node, j.buffer_node)
      end
    end
  end)

  it("shows cpu.counters, per I/O or with the reason", function()
    local r = assert(nvb.run { targets = { data.path }, engine = "psync", rw = "randread", bs = "4k",
                               runtime = "300ms", direct = 0 })
    local c = r.cpu.counters
    assert.is_table(c)
    if c.null_reason ~= nil then
      assert.are.equal("unavailable: ", c.null_reason:sub(1, 13))
      return
    end
    assert.is_true(c.task_clock_ns > 0)
    assert.is_true(math.abs(r:get("cpu.counters.task_clock_us_per_io") - c.task_clock_us_per_io)
                   <= 1e-9 * c.task_clock_us_per_io)
    if c.cycles == nil then
      assert.are.equal("unavailable: perf_event_open(cycles) failed with E", c.hardware_null_reason:sub(1, 50))
    else
      assert.is_nil(c.hardware_null_reason)
    end
  end)
end)
