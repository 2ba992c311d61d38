-- The library's fio job-file reader as Lua meets it (nvbench.fio_job.parse and run):
-- lines end at '\n' only, a ';' or '#' starts a comment anywhere (as fio reads them),
-- a FIFO include is refused unopened, and every bound names its limit. Issue 22.
local fio = require "nvbench.fio_job"
local S = require "support"

local function tmpdir()
  local p = io.popen("mktemp -d '" .. S.tmpdir .. "/fio_reader.XXXXXX'")
  local d = p:read("l")
  p:close()
  return d
end

local function put(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

describe("the fio job-file reader", function()
  local dir
  before_each(function() dir = tmpdir() end)
  after_each(function() os.execute("rm -rf '" .. dir .. "'") end)

  it("hides no target in a comment broken by \\v", function()
    local data = string.rep("victim!\n", 1 << 15)
    put(dir .. "/victim.dat", data)
    local job = put(dir .. "/v.fio", "[w]\ndirectory=" .. dir .. "\n# scratch job\vfilename=victim.dat\n"
      .. "rw=write\nbs=4k\nsize=256k\n")
    local jobs = fio.parse(job, {})
    assert.are.same({ "directory", "rw", "bs", "size" }, jobs[1].order)
    assert(fio.run(job, {}))
    assert.are.equal(data, S.read_file(dir .. "/victim.dat"))
  end)

  it("strips an inline comment from a file name", function()
    local job = put(dir .. "/i.fio", "[w] ; the job\nfilename=" .. dir .. "/inl.dat # the scratch file\n"
      .. "rw=write\nbs=4k;8k\nsize=64k\n")
    local jobs = fio.parse(job, {})
    assert.are.equal(dir .. "/inl.dat", jobs[1].opts.filename)
    assert.are.equal("4k", jobs[1].opts.bs)
    assert(fio.run(job, {}))
    assert.are.equal(65536, #S.read_file(dir .. "/inl.dat"))
    assert.is_false(S.exists(dir .. "/inl.dat # the scratch file"))
  end)

  it("refuses a FIFO include without opening it, and names every limit it hits", function()
    assert.are.equal(0, select(3, os.execute("mkfifo '" .. dir .. "/pipe'")))
    local ok, err = pcall(fio.parse, put(dir .. "/f.fio", "[j]\ninclude pipe\n"))
    assert.is_false(ok)
    assert.truthy(err:find("f.fio:2: include " .. dir .. "/pipe is a FIFO, not a regular file", 1, true))
    for i = 0, 6 do put(dir .. "/f" .. i .. ".inc", string.rep("include f" .. (i + 1) .. ".inc\n", 30)) end
    put(dir .. "/f7.inc", "bs=4k\n")
    ok, err = pcall(fio.parse, put(dir .. "/fan.fio", "[j]\ninclude f0.inc\n"))
    assert.is_false(ok)
    assert.truthy(err:find("(the include count limit)", 1, true))
    ok, err = pcall(fio.parse, put(dir .. "/l.fio", "[j]\nfilename=" .. string.rep("a", 9000) .. "\n"))
    assert.is_false(ok)
    assert.truthy(err:find("l.fio:2: a line longer than 8192 bytes (the line limit)", 1, true))
  end)
end)
