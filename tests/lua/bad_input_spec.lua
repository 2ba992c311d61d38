-- Every bad-input case: nvb.run returns nil, a message naming the key and
-- the value, and the errno; the result it may add as a 4th value carries
-- the same error; nothing is created or written.
local nvb = require "nvbench"
local S = require "support"
local E = nvb.errno

describe("bad input", function()
  local data, before, emptydir

  setup(function()
    data = S.scratch("1M")
    before = S.read_file(data.path)
    emptydir = S.tmpdir .. "/lua-empty." .. tostring(os.time()) .. "." .. math.random(1e6)
    assert(os.execute("mkdir -p '" .. emptydir .. "'"))
  end)
  teardown(function()
    data:remove()
    os.remove(emptydir)
  end)

  -- Runs spec (targets default to the data file), checks the failure
  -- convention and that every `must` string appears in the message.
  local function refused(spec, errno, ...)
    if spec.targets == nil then spec.targets = { data.path } end
    if spec.targets == false then spec.targets = nil end
    local r, msg, code, partial = nvb.run(spec)
    assert.is_nil(r)
    assert.is_string(msg)
    assert.are.equal(errno, code, "errno for: " .. msg)
    for _, must in ipairs { ... } do
      assert.is_truthy(msg:find(must, 1, true), "message '" .. msg .. "' lacks '" .. must .. "'")
    end
    if partial ~= nil then
      assert.are.equal(errno, partial.error.errno)
      assert.are.equal(msg, partial.error.message)
      assert.is_false(partial.cancelled)
    end
    assert.are.equal(before, S.read_file(data.path), "target modified by a refused workload")
    assert.are.same({}, S.list_dir(emptydir))
    return msg
  end

  it("unknown key", function() refused({ blocksize = "4k" }, E.EINVAL, "blocksize", "4k") end)
  it("unknown engine", function() refused({ engine = "spdk" }, E.EINVAL, "engine", "spdk") end)
  it("unknown rw", function() refused({ rw = "randomread" }, E.EINVAL, "rw", "randomread") end)
  it("bs 0", function() refused({ bs = 0 }, E.ERANGE, "bs", "0") end)
  it("bs malformed", function() refused({ bs = "4x" }, E.EINVAL, "bs", "4x") end)
  it("bs not a multiple of the logical block size with direct I/O", function()
    refused({ rw = "randwrite", bs = 1000 }, E.EINVAL, "bs", "1000")
    refused({ rw = "randwrite", bs = 1000, size = "64k", targets = { emptydir } }, E.EINVAL, "bs", "1000")
  end)
  it("bs larger than the region", function()
    refused({ rw = "randwrite", bs = "64k", size = "8k" }, E.EINVAL, "bs", "64k")
    refused({ rw = "write", bs = "2M" }, E.EINVAL, "bs", "2M")
  end)
  it("qd 0", function() refused({ qd = 0 }, E.ERANGE, "qd", "0") end)
  it("jobs 0", function() refused({ jobs = 0 }, E.ERANGE, "jobs", "0") end)
  it("malformed size", function() refused({ size = "lots" }, E.EINVAL, "size", "lots") end)
  it("malformed duration", function()
    refused({ runtime = "2parsecs" }, E.EINVAL, "runtime", "2parsecs")
    refused({ runtime = -1 }, E.EINVAL, "runtime", "-1")
  end)
  it("runtime 0 without io_limit or ios", function()
    refused({ rw = "randwrite", runtime = 0 }, E.EINVAL, "runtime", "0")
  end)
  it("rwmix above 100", function() refused({ rw = "randrw", rwmix = 101 }, E.ERANGE, "rwmix", "101") end)
  it("no targets", function()
    refused({ rw = "randwrite", targets = false }, E.EINVAL, "targets")
    refused({ rw = "randwrite", targets = {} }, E.EINVAL, "targets")
  end)
  it("missing target, next to an existing one", function()
    local missing = emptydir .. "/does-not-exist"
    refused({ rw = "randwrite", targets = { data.path, missing } }, E.ENOENT, missing)
  end)
  it("engine options", function()
    refused({ ["io_uring.sqpoll"] = 2 }, E.EINVAL, "io_uring.sqpoll", "2")
    refused({ ["io_uring.nosuch"] = 1 }, E.EINVAL, "io_uring.nosuch")
    refused({ ["nosuchengine.opt"] = 1 }, E.EINVAL, "nosuchengine")
  end)
  it("both io_limit and ios", function()
    refused({ rw = "randwrite", ios = 10, io_limit = "40k" }, E.EINVAL, "io_limit", "ios")
  end)
  it("a value that is not a finite number", function()
    refused({ qd = 0 / 0 }, E.EINVAL, "qd")
    refused({ runtime = math.huge }, E.EINVAL, "runtime")
  end)

  it("the first bad key in name order is the one reported", function()
    local msg = refused({ qd = 0, bs = 0, jobs = 0 }, E.ERANGE)
    assert.matches("'bs'", msg)
  end)

  it("workload handles report the same way at set and at validate", function()
    local w = nvb.workload()
    local ok, msg, errno = w:set("rwmix", 101)
    assert.is_nil(ok)
    assert.matches("rwmix", msg)
    assert.are.equal(E.ERANGE, errno)
    ok, msg, errno = nvb.workload { jobs = 0 }
    assert.is_nil(ok)
    assert.matches("jobs", msg)
    assert.are.equal(E.ERANGE, errno)
    w = assert(nvb.workload { rw = "randwrite", bs = "64k", size = "8k", targets = { data.path } })
    ok, msg, errno = w:validate()
    assert.is_nil(ok)
    assert.matches("bs", msg)
    assert.are.equal(E.EINVAL, errno)
    local r, rmsg, rerrno, partial = nvb.run(w)
    assert.is_nil(r)
    assert.are.equal(msg, rmsg)
    assert.are.equal(errno, rerrno)
    assert.are.equal(rerrno, partial.error.errno)
    assert.are.equal(before, S.read_file(data.path))
  end)
end)
