-- nvb.run_groups: several workloads as the job groups of one run, each
-- group's figures in result.groups, the totals at the top.
local nvb = require "nvbench"
local S = require "support"

describe("job groups", function()
  local data

  setup(function() data = S.scratch("4M") end)
  teardown(function() data:remove() end)

  it("totals are the sums of the groups, each group its own figures", function()
    local r <close> = assert(nvb.run_groups {
      { name = "rd", rw = "randread", bs = "4k", ios = 3001 },
      { name = "wr", rw = "randwrite", bs = "64k", ios = 1234 },
      engine = "null",
    })
    assert.are.equal(2, #r.groups)
    assert.are.equal("rd", r.groups[1].name)
    assert.are.equal("wr", r.groups[2].name)
    assert.are.equal(3001, r.groups[1].read.ios)
    assert.are.equal(0, r.groups[1].write.ios)
    assert.are.equal(1234 * 65536, r.groups[2].write.bytes)
    assert.are.equal(r.groups[1].read.ios + r.groups[2].read.ios, r.read.ios)
    assert.are.equal(r.groups[1].write.bytes + r.groups[2].write.bytes, r.write.bytes)
    assert.are.equal(3001, assert(r:get("groups.0.read.ios")))
    assert.is_nil(r.groups[1].cpu) -- the process CPU: the total's only
    assert.is_table(r.cpu)
    -- the JSON goes back through the library unchanged
    local text = assert(r:json())
    local back <close> = assert(nvb.load(text))
    assert.are.equal(text, assert(back:json()))
  end)

  it("runs a reader and a writer on one file, and takes workloads too", function()
    local w = assert(nvb.workload { engine = "psync", direct = 0, rw = "randread", ios = 400,
                                    targets = data.path, name = "reader" })
    local r <close> = assert(nvb.run_groups {
      w,
      { engine = "psync", direct = 0, rw = "randwrite", ios = 100, targets = data.path, name = "writer" },
    })
    assert.are.equal(400, r.groups[1].read.ios)
    assert.are.equal(100, r.groups[2].write.ios)
  end)

  it("runs two writers on one file; refuses them with EBUSY naming both when one verifies", function()
    local r = assert(nvb.run_groups {
      { rw = "write", name = "w1" }, { rw = "randwrite", name = "w2" },
      engine = "psync", direct = 0, ios = 10, targets = data.path,
    })
    assert.are.equal(10, r.groups[1].write.ios)
    assert.are.equal(10, r.groups[2].write.ios)
    local v, msg, errno = nvb.run_groups {
      { rw = "write", name = "w1" }, { rw = "randwrite", name = "w2", verify = 1 },
      engine = "psync", direct = 0, ios = 10, targets = data.path,
    }
    assert.is_nil(v)
    assert.are.equal(nvb.errno.EBUSY, errno)
    assert.truthy(msg:find("'w1'", 1, true) and msg:find("'w2'", 1, true))
  end)

  it("names the group whose key is bad", function()
    local v, msg, errno = nvb.run_groups { { rw = "read" }, { rw = "sideways" }, engine = "null" }
    assert.is_nil(v)
    assert.are.equal(nvb.errno.EINVAL, errno)
    assert.truthy(msg:find("group 2", 1, true) and msg:find("sideways", 1, true))
    assert.has_error(function() nvb.run_groups {} end)
    assert.has_error(function() nvb.run_groups { "read" } end)
  end)

  it("cancels every group from progress, keeping a partial grouped result", function()
    local calls = 0
    local r <close> = assert(nvb.run_groups {
      { rw = "randread" }, { rw = "randwrite" },
      engine = "null", runtime = 600, interval = "50ms",
      progress = function() calls = calls + 1; return calls < 3 end,
    })
    assert.is_true(r.cancelled)
    assert.are.equal(2, #r.groups)
    assert.is_true(r.groups[1].cancelled and r.groups[2].cancelled)
    assert.is_true(r.groups[1].read.ios > 0 and r.groups[2].write.ios > 0)
    assert.are.equal(r.groups[1].read.ios, r.read.ios)
  end)
end)
