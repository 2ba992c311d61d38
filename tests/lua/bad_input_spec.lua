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

-- C reads a string up to its first NUL byte: "a.dat\0/etc/passwd" must be
-- refused, not run on "a.dat". Everything the module hands to the library
-- is checked, with the usual nil, message, errno and a message that names
-- the key.
describe("NUL bytes", function()
  local data, before

  setup(function()
    data = S.scratch("1M")
    before = S.read_file(data.path)
  end)
  teardown(function() data:remove() end)

  local function nul_refused(must, r, msg, errno)
    assert.is_nil(r)
    assert.is_string(msg)
    assert.are.equal(E.EINVAL, errno, msg)
    assert.is_truthy(msg:find("contains a NUL byte", 1, true), msg)
    assert.is_truthy(msg:find(must, 1, true), "message '" .. msg .. "' lacks '" .. must .. "'")
    assert.is_falsy(msg:find("\0", 1, true), "the message itself carries the NUL")
  end

  it("in a target, in a list or alone, in nvb.run and nvb.workload", function()
    local hostile = data.path .. "\0/etc/passwd"
    nul_refused("targets[2]", nvb.run { rw = "randwrite", ios = 4, targets = { data.path, hostile } })
    nul_refused("target", nvb.run { rw = "randwrite", ios = 4, targets = hostile })
    nul_refused("targets[1]", nvb.workload { targets = { hostile } })
    -- the path is shown with the NUL escaped
    local _, msg = nvb.workload { targets = { hostile } }
    assert.is_truthy(msg:find("\\x00/etc/passwd", 1, true), msg)
    assert.are.equal(before, S.read_file(data.path), "the truncated path was written")
  end)

  it("in add_target and in set('targets', ...)", function()
    local w = nvb.workload()
    nul_refused("target", w:add_target(data.path .. "\0x"))
    nul_refused("targets[1]", w:set("targets", { data.path .. "\0x" }))
    nul_refused("target", w:set { targets = data.path .. "\0x" })
    -- nothing was added: the workload still has no target
    local ok, msg = w:validate()
    assert.is_nil(ok)
    assert.matches("target", msg)
  end)

  it("in a workload value, with the key named", function()
    nul_refused("value of key 'name'", nvb.run { name = "job\0evil", ios = 4, targets = { data.path } })
    nul_refused("value of key 'bs'", nvb.workload { bs = "4k\0junk" })
    local w = nvb.workload()
    nul_refused("value of key 'rw'", w:set("rw", "randwrite\0"))
    assert.are.equal("randread", w:get("rw"), "a refused value changed the workload")
  end)

  it("in a workload key", function()
    nul_refused("workload key ('bs\\x00x')", nvb.workload { ["bs\0x"] = "8k" })
    local w = nvb.workload()
    nul_refused("workload key", w:set("bs\0x", "8k"))
    nul_refused("workload key", w:get("bs\0x"))
    assert.are.equal("4096", w:get("bs"))
  end)

  it("in a result's figure path, device paths and result text", function()
    local r = assert(nvb.run { engine = "null", ios = 8, targets = { data.path } })
    nul_refused("figure path", r:get("read.iops\0x"))
    nul_refused("device path", nvb.device("/dev/null\0x"))
    nul_refused("sysfs root", nvb.devices("/sys\0x"))
    -- the result parser takes the length and refuses the NUL itself
    local json = r:json()
    local back, msg, errno = nvb.load(json .. "\0")
    assert.is_nil(back)
    assert.are.equal(E.EINVAL, errno, msg)
  end)

  -- The newer doors: job groups, the latency search, the fio job reader
  -- (pure Lua: io.open would open "a.fio" for "a.fio\0x").
  it("in job groups, shared keys and each group's", function()
    nul_refused("value of key 'name'", nvb.run_groups { { engine = "null", ios = 4, targets = { data.path }, name = "g\0x" } })
    nul_refused("value of key 'name'", nvb.run_groups { { engine = "null", ios = 4, targets = { data.path } }, name = "g\0x" })
    nul_refused("targets[1]", nvb.run_groups { { rw = "randwrite", ios = 4, targets = { data.path .. "\0/etc/passwd" } } })
    assert.are.equal(before, S.read_file(data.path), "the truncated path was written")
  end)

  it("in the latency search's bound, vary and workload", function()
    local w = { engine = "null", ios = 8, targets = { data.path } }
    for _, opts in ipairs { { target = "p99<=1s\0x" }, { vary = "qd\0x" } } do
      local ok, msg = pcall(nvb.search, w, opts)
      assert.is_false(ok)
      assert.is_truthy(msg:find("\\x00x", 1, true), msg)
      assert.is_falsy(msg:find("\0", 1, true), "the message itself carries the NUL")
    end
    local ok, msg = pcall(nvb.search, { rw = "randwrite", ios = 8, targets = { data.path .. "\0x" } }, { max_runs = 1 })
    assert.is_false(ok)
    assert.is_truthy(msg:find("contains a NUL byte", 1, true), msg)
    assert.are.equal(before, S.read_file(data.path), "the truncated path was written")
  end)

  it("in a fio job file's path, an include, a line or an ${ENV} value", function()
    local fio = require "nvbench.fio_job"
    local base = S.tmpdir .. "/lua-nul." .. tostring(os.time()) .. "." .. math.random(1e6)
    local files = {}
    local function job(name, text)
      local path = base .. "." .. name .. ".fio"
      local f = assert(io.open(path, "wb"))
      f:write(text)
      f:close()
      files[#files + 1] = path
      return path
    end
    local ok_job = job("ok", "[w]\nioengine=null\nrw=randwrite\nsize=64k\nio_size=8k\nfilename=" .. data.path .. "\n")
    local cases = {
      { "the job file's path", ok_job .. "\0/etc/passwd" },
      { ".fio:1", job("inc", "include " .. ok_job:match("[^/]+$") .. "\0junk\n") },
      { ".fio:6", job("line", "[w]\nioengine=null\nrw=randwrite\nsize=64k\nio_size=8k\nfilename=" .. data.path .. "\0x\n") },
      -- the library reads C strings: such a value is refused before the file is read, naming it
      { "the value of 'T'", job("env", "[w]\nioengine=null\nrw=randwrite\nsize=64k\nio_size=8k\nfilename=${T}\n"),
        { T = data.path .. "\0x" } },
    }
    for _, c in ipairs(cases) do
      for _, fn in ipairs { fio.parse, fio.from_fio_job, fio.run } do
        local ok, msg = pcall(fn, c[2], c[3])
        assert.is_false(ok, c[2])
        assert.is_truthy(msg:find("contains a NUL byte", 1, true), msg)
        assert.is_truthy(msg:find(c[1], 1, true), msg)
        assert.is_falsy(msg:find("\0", 1, true), "the message itself carries the NUL")
      end
    end
    for _, p in ipairs(files) do os.remove(p) end
    assert.are.equal(before, S.read_file(data.path), "the truncated path was written")
  end)

  it("in the matrix helper's scratch directory", function()
    local m = require "nvbench.matrix"
    local s, msg = m.scratch("4k", S.tmpdir .. "\0/etc")
    assert.is_nil(s)
    assert.is_truthy(msg:find("contains a NUL byte", 1, true), msg)
  end)
end)

describe("text from results", function()
  it("tostring shows control characters escaped", function()
    local target = S.tmpdir .. "/no-such-dir/\27[2J\27]0;owned\7\194\155x"
    local r, msg, errno, partial = nvb.run { targets = { target } }
    assert.is_nil(r)
    assert.is_truthy(msg)
    assert.is_truthy(partial, "no result with the refusal")
    local text = tostring(partial)
    assert.is_falsy(text:find("[%c\127]"), "control character in: " .. text)
    assert.is_falsy(text:find("\194\155", 1, true), "C1 CSI in: " .. text)
    assert.is_truthy(text:find("\\x1b[2J", 1, true), text)
    assert.is_truthy(text:find("\\x9b", 1, true), text)
  end)
end)

-- Bytes that are not UTF-8 (and ESC) in a job group's name, a target, or a
-- fio job file's section and filename=: the JSON shows U+FFFD and escapes,
-- and the library's parser reads it back.
describe("bytes that are not UTF-8", function()
  it("in job groups and fio job files", function()
    local data = S.scratch("1M")
    local odd = data.path .. "\255\27[2J"
    assert(os.rename(data.path, odd))
    local r, msg = nvb.run_groups { { engine = "null", ios = 8, targets = { odd }, name = "g\255\27[2J" },
                                    { engine = "null", ios = 8, targets = { odd }, name = "h" } }
    assert.is_not_nil(r, msg)
    local json = r:json()
    assert.is_truthy(json:find('"name":"g\\ufffd\\u001b[2J"', 1, true), json:sub(1, 400))
    assert.is_falsy(json:find("[\0-\9\11-\31\255]"), "a raw control or stray byte in the JSON")
    local back, why = nvb.load(json)
    assert.is_not_nil(back, why)
    local job = S.tmpdir .. "/lua-utf8." .. tostring(os.time()) .. "." .. math.random(1e6) .. ".fio"
    local f = assert(io.open(job, "wb"))
    f:write("[global]\nioengine=null\nsize=64k\nio_size=8k\n[job\255\27[2J]\nrw=randread\nfilename=" .. odd .. "\n")
    f:close()
    local results, err = require("nvbench.fio_job").run(job)
    os.remove(job)
    os.remove(odd)
    assert.is_not_nil(results, err)
    json = results[1]:json()
    assert.is_truthy(json:find('"name":"job\\ufffd\\u001b[2J"', 1, true), json:sub(1, 400))
    assert.is_not_nil((nvb.load(json)))
    -- the reader's messages quote the section escaped, never the raw ESC
    f = assert(io.open(job, "wb"))
    f:write("[job\27[2J]\nioengine=null\nbogus_option=1\n")
    f:close()
    local ok, msg = pcall(require("nvbench.fio_job").from_fio_job, job)
    os.remove(job)
    assert.is_false(ok)
    assert.is_truthy(msg:find("job\\x1b[2J", 1, true), msg)
    assert.is_falsy(msg:find("\27", 1, true), "a raw ESC in the message")
  end)
end)
