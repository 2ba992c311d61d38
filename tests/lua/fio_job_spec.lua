-- nvbench.fio_job: fio job files read and run from Lua (the mapping itself is
-- compared with Python's in tests/python/test_fio_job.py).
local nvb = require "nvbench"
local fio = require "nvbench.fio_job"
local S = require "support"

local JOBS = S.src .. "/tests/data/fio_jobs/"

describe("nvbench.fio_job", function()
  it("reads sizes as fio does", function()
    assert.are.equal(4096, fio.fio_size("4k"))
    assert.are.equal(1000, fio.fio_size("1KiB"))
    assert.are.equal(1024, fio.fio_size("1ki"))
    assert.are.equal(1024, fio.fio_size("1KiB", 1000))
    assert.are.equal(3 << 40, fio.fio_size("3t"))
    assert.has_error(function() fio.fio_size("1.5k") end)
    assert.are.equal(120 * 10 ^ 9 // 1, fio.fio_time_ns("2m"))
    assert.are.equal(50000, fio.fio_time_ns("50", "us"))
  end)

  it("refuses a FIFO target without size unopened (opening it waited for a writer)", function()
    local dir = S.tmpdir .. "/nvb-fifo-" .. tostring(os.time()) .. "-" .. tostring(math.random(1 << 30))
    assert(os.execute("mkdir -p '" .. dir .. "' && mkfifo '" .. dir .. "/pipe'"))
    local jf = dir .. "/p.fio"
    local f = assert(io.open(jf, "w"))
    f:write("[p]\nioengine=psync\nrw=read\nbs=4k\nfilename=" .. dir .. "/pipe\n")
    f:close()
    local ok, err = pcall(fio.from_fio_job, jf)
    os.execute("rm -rf '" .. dir .. "'")
    assert.is_false(ok)
    err = tostring(err)
    assert.truthy(err:find("fio option 'size'", 1, true) and err:find("FIFO", 1, true), err)
  end)

  it("splits steps at stonewall and wait_for_previous", function()
    local steps = fio.from_fio_job(JOBS .. "stonewall.fio")
    assert.are.same({ 1, 1, 2 }, { #steps[1], #steps[2], #steps[3] })
    assert.are.same({ "fill", "check", "reader-a", "reader-b" },
      { steps[1][1].name, steps[2][1].name, steps[3][1].name, steps[3][2].name })
  end)

  it("names the option and the section it cannot honour", function()
    local ok, err = pcall(fio.from_fio_job, JOBS .. "unsupported.fio")
    assert.is_false(ok)
    assert.truthy(err:find("section [fsync-writer]: fio option 'fsync'", 1, true))
  end)

  it("runs a job file on the null engine, the job's name in the result", function()
    local env = { NVB_FIO_BS = "4k", NVB_FIO_SIZE = "16m", NVB_FIO_RUNTIME = "200ms" }
    local results = assert(fio.run(JOBS .. "env.fio", env))
    assert.are.equal(1, #results)
    local r = results[1]
    assert.are.equal("env-job", r.workload.name)
    assert.are.equal("null", r.engine)
    assert.are.equal(4096, r.workload.bs)
    assert.is_true(r.read.ios > 0)
    assert.are.equal(0, r.write.ios)
  end)

  it("takes library keys for every job that the file does not set", function()
    local env = { NVB_FIO_BS = "4k", NVB_FIO_SIZE = "16m", NVB_FIO_RUNTIME = "200ms" }
    local results = assert(fio.run(JOBS .. "env.fio", env, { interval = "50ms", bs = "8k" }))
    local w = results[1].workload
    assert.are.equal(0.05, w.interval_s)
    assert.are.equal(4096, w.bs) -- the file's bs, not the key's
    local none, err, errno = fio.run(JOBS .. "env.fio", env, "allow_destructive=1")
    assert.is_nil(none)
    assert.truthy(err:find("keys: a table", 1, true))
    assert.are.equal(22, errno)
  end)

  it("refuses concurrent jobs where the library has no run_groups", function()
    if nvb.run_groups then return pending("this nvbench has run_groups") end
    local results, err = fio.run(JOBS .. "stonewall.fio")
    assert.is_nil(results)
    assert.truthy(err:find("run_groups", 1, true))
  end)

  it("runs concurrent jobs as the job groups of one run", function()
    if not nvb.run_groups then return pending("this nvbench lacks run_groups") end
    local results = assert(fio.run(JOBS .. "stonewall.fio"))
    assert.are.equal(3, #results)
    local names = {}
    for _, g in ipairs(results[3].groups) do names[#names + 1] = g.name end
    table.sort(names)
    assert.are.same({ "reader-a", "reader-b" }, names)
    assert.are.equal(results[3].groups[1].read.ios + results[3].groups[2].read.ios, results[3].read.ios)
  end)

  -- issue 22: every step planned before the first I/O; bounds; names
  local function write_job(text)
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
    return path
  end
  local function random_file(size)
    local path = os.tmpname()
    local f = assert(io.open("/dev/urandom", "rb"))
    local data = f:read(size)
    f:close()
    local o = assert(io.open(path, "wb"))
    o:write(data)
    o:close()
    return path
  end

  it("checks every step before the first one writes", function()
    local first, second = random_file(1 << 20), random_file(1 << 20)
    local before1, before2 = S.read_file(first), S.read_file(second)
    local jf = write_job("[global]\nioengine=psync\nbs=4k\nsize=1m\n[one]\nrw=write\nfilename=" .. first
      .. "\n[two-a]\nstonewall\nrw=randwrite\nnorandommap\nfilename=" .. second
      .. "\n[two-b]\nrw=write\nverify=crc32c\nfilename=" .. second .. "\n")
    local results, err, errno = fio.run(jf)
    assert.is_nil(results)
    assert.truthy(err:find("(step 2 of 3)", 1, true), err)
    assert.truthy(err:find("'two-a'", 1, true) and err:find("'two-b'", 1, true), err)
    assert.are.equal(16, errno) -- EBUSY
    assert.is_true(S.read_file(first) == before1, "step one wrote its target")
    assert.is_true(S.read_file(second) == before2)
    os.remove(first); os.remove(second); os.remove(jf)
  end)

  it("runs two sections of one name side by side, and a long name cut to fit", function()
    local long = string.rep("n", 60) .. string.rep("\u{e9}", 20)
    local jf = write_job("[global]\nioengine=null\nsize=1m\n[" .. long .. "]\nrw=read\n[" .. long .. "]\nrw=read\n")
    local results = assert(fio.run(jf))
    local g = results[1].groups
    assert.are.equal(string.rep("n", 60) .. "\u{e9}", g[1].name)
    assert.are.equal(string.rep("n", 60) .. " #2", g[2].name)
    os.remove(jf)
  end)

  it("bounds counts and CPU ranges, naming the option and the section", function()
    for body, opt in pairs {
      ["cpus_allowed=0-99999999999\ncpus_allowed_policy=split"] = "cpus_allowed",
      ["numjobs=\u{b2}"] = "numjobs", ["numjobs=" .. string.rep("9", 5000)] = "numjobs",
      ["size=" .. string.rep("9", 5000)] = "size", ["bs=99999999999p"] = "bs",
      ["runtime=" .. string.rep("9", 5000) .. "\ntime_based"] = "runtime",
    } do
      local jf = write_job("[global]\nioengine=null\nsize=1m\n[sec]\n" .. body .. "\n")
      local ok, err = pcall(fio.from_fio_job, jf)
      assert.is_false(ok)
      assert.truthy(err:find("[sec]: fio option '" .. opt .. "'", 1, true), err)
      assert.is_true(#err < 400, err)
      os.remove(jf)
    end
  end)

  it("says why sqthread_poll is not taken with io_uring_cmd", function()
    local jf = write_job("[j]\nioengine=io_uring_cmd\nfilename=/dev/ng0n1\nrw=randread\ntime_based\nruntime=1\nsqthread_poll=1\n")
    local ok, err = pcall(fio.from_fio_job, jf)
    assert.is_false(ok)
    assert.truthy(err:find("no submission-queue polling", 1, true), err)
    os.remove(jf)
  end)

  it("validates groups and steps in the library (nvb.validate_groups)", function()
    local f = random_file(1 << 20)
    assert.is_true(nvb.validate_groups { -- two writers of one file share it
      { engine = "psync", rw = "write", name = "w1", ios = 1, targets = { f } },
      { engine = "psync", rw = "write", name = "w2", ios = 1, targets = { f } },
      steps = { 1, 1 } })
    local ok, err, errno, bad = nvb.validate_groups { -- but not with verify
      { engine = "psync", rw = "write", name = "w1", ios = 1, targets = { f } },
      { engine = "psync", rw = "write", name = "w2", ios = 1, verify = 1, targets = { f } },
      steps = { 1, 1 } }
    assert.is_nil(ok)
    assert.are.equal(16, errno)
    assert.are.equal(2, bad)
    assert.truthy(err:find("'w1'", 1, true), err)
    assert.is_true(nvb.validate_groups {
      { engine = "psync", rw = "write", name = "w1", ios = 1, targets = { f } },
      { engine = "psync", rw = "write", name = "w2", ios = 1, targets = { f } },
      steps = { 1, 2 } })
    os.remove(f)
  end)

  it("reads back what numjobs clones at offset_increment wrote, and fails on bad data", function()
    -- the writers took interleaved stripes, the readers their own offsets: 512 of 1024 mismatched
    local data = S.scratch("16M")
    local job = S.tmpdir .. "/nvb-clones-" .. tostring(os.time()) .. ".fio"
    local function write_job(text)
      local f = assert(io.open(job, "w"))
      f:write(text)
      f:close()
    end
    write_job("[w]\nfilename=" .. data.path .. "\nrw=write\nbs=4k\nsize=8m\nnumjobs=2\n"
      .. "offset_increment=8m\nio_size=2m\nverify=crc32c\n")
    local results = assert(fio.run(job))
    assert.are.equal(2, #results)
    assert.are.equal(1024, results[2].verify.checked)
    assert.are.equal(0, results[2].verify.mismatches)
    -- a verify pass over the other half, which nothing wrote: a failure, the result with it
    write_job("[r]\nfilename=" .. data.path .. "\nrw=read\nbs=4k\noffset=4m\nsize=64k\nverify=crc32c\n")
    local none, err, errno, res, before = fio.run(job)
    assert.is_nil(none)
    assert.are.equal(nvb.errno.EILSEQ, errno)
    assert.truthy(err:find("[r] (step 1 of 1): verify: 16 of 16 blocks read did not match", 1, true), err)
    assert.are.equal(16, res.verify.mismatches)
    assert.are.same({}, before)
    os.remove(job)
    data:remove()
  end)
end)
