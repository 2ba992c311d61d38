--- nvbench.fio_job: fio job files as nvbench workloads (read by the library, mapped in Lua).
--
--   local fio = require "nvbench.fio_job"
--   local steps = fio.from_fio_job("randread.fio")   -- { {workload, ...}, ... }
--   local results = fio.run("randread.fio")           -- one nvb result per step
--
-- The same reading and mapping as Python's nvbench.fio_job (the reference;
-- docs/fio-jobs.md has the table). A workload is a table of library keys
-- (strings) plus `targets` (a list) and `fio` ({section, origin}). An option
-- nvbench cannot honour raises an error naming it and the section: there is
-- no lenient mode here, as a Lua result cannot carry extra warnings.
local M = {}

-- Messages quote section names, paths and values from the file: their
-- control characters (ESC sequences) are shown escaped, never obeyed.
local function fail(fmt, ...)
  error((string.format(fmt, ...):gsub("%c", function(c) return string.format("\\x%02x", c:byte()) end)), 0)
end

-- ------------------------------------------------------------------ values

local POW = { [""] = 0, k = 1, m = 2, g = 3, t = 4, p = 5 }

-- A value quoted in a message: a long one shown by its start and its length.
local function short(text, most)
  text, most = tostring(text), most or 40
  if #text <= most then return text end
  return string.format("%s... (%d characters)", text:sub(1, most), #text)
end

-- The library's CPU set: CPUs 0 to 1023 (NVB__MAX_CPUS, the 'cpus' key).
local MAX_CPUS = 1024
-- The library's name key holds 63 bytes (workload.c, K_STRING).
local NAME_MAX = 63

--- A fio quantity of data in bytes, as fio reads it: with kb_base 1024
-- (fio's default) k/m/g/t/p (kb, ki, ...) are powers of 1024 and kib/mib/...
-- powers of 1000; kb_base 1000 swaps them. Fractions are refused.
function M.fio_size(text, kb_base)
  local s = tostring(text):match("^%s*(.-)%s*$"):lower()
  local num, rest = s:match("^0x(%x+)(.*)$")
  local value, hex = nil, num ~= nil
  if not hex then num, rest = s:match("^(%d+)(.*)$") end
  local unit, tail = (rest or ""):match("^([kmgtp]?)(.*)$")
  if not num or not unit or not (tail == "" or tail == "b" or (unit ~= "" and (tail == "i" or tail == "ib"))) then
    fail("'%s' is not a size (a whole number with an optional k/m/g/t/p suffix)", short(text))
  end
  -- Lua's integers stop at 2^63 - 1: a longer decimal reads as a float, a longer hex wraps
  local digits = num:match("^0*(.*)$")
  if hex then value = #digits <= 15 and tonumber(num, 16) or nil
  else value = #digits <= 19 and math.tointeger(tonumber(num)) or nil end
  local base = (((kb_base or 1024) == 1024) ~= (tail == "ib")) and 1024 or 1000
  for _ = 1, POW[unit] do
    if not value or value > math.maxinteger // base then value = nil break end
    value = value * base
  end
  if not value then
    fail("'%s' is more than 2^63 - 1 bytes, the largest size nvbench takes from a job file", short(text))
  end
  return value
end

local NS = { d = 86400e9, h = 3600e9, m = 60e9, s = 1e9, ms = 1e6, msec = 1e6, us = 1e3, usec = 1e3, ns = 1, nsec = 1 }

--- A fio time in nanoseconds; a bare number is in `unit` ("s" or "us").
function M.fio_time_ns(text, unit)
  local num, suffix = tostring(text):lower():match("^%s*(%d*%.?%d+)(%a*)%s*$")
  local mult = NS[suffix ~= "" and suffix or (unit or "s")]
  if not num or not mult then fail("'%s' is not a time (a number with an optional d/h/m/s/ms/us/ns suffix)", short(text)) end
  local ns = tonumber(num) * mult
  if not (ns < 2 ^ 63) then
    fail("'%s' is longer than 2^63 - 1 ns (292 years), the longest time nvbench takes", short(text))
  end
  return math.floor(ns + 0.5)
end

local function bool(v)
  v = v == nil and "1" or tostring(v):lower()
  if v == "1" or v == "true" or v == "yes" or v == "on" then return true end
  if v == "0" or v == "false" or v == "no" or v == "off" then return false end
  fail("'%s' is not a boolean (0 or 1)", v)
end

--- fio's ':'-separated names; '\:' is a ':' inside a name.
local function split_escaped(text)
  local parts, cur = {}, {}
  local i = 1
  while i <= #text do
    local c = text:sub(i, i)
    if c == "\\" and text:sub(i + 1, i + 1) == ":" then cur[#cur + 1] = ":"; i = i + 1
    elseif c == ":" then parts[#parts + 1] = table.concat(cur); cur = {}
    else cur[#cur + 1] = c end
    i = i + 1
  end
  parts[#parts + 1] = table.concat(cur)
  local out = {}
  for _, p in ipairs(parts) do if p ~= "" then out[#out + 1] = p end end
  return out
end

-- ------------------------------------------------------------------ the file

--- The jobs in order: { {name=, opts=, order=, stonewall=}, ... } ([global] merged in;
--- a bare flag's value is true). The library reads the file (nvb.fio_job_read, one
--- reader for Python, Lua and C: lines end at '\n' only, a ';' or '#' starts a comment
--- anywhere, as fio reads them); env replaces os.getenv for ${VAR}.
function M.parse(path, env)
  local nvb = require "nvbench"
  local jobs, err = nvb.fio_job_read(path, env)
  if not jobs then fail("%s", err) end
  return jobs
end

-- ------------------------------------------------------------------ mapping

local ENGINES = { psync = "psync", pvsync = "psync", libaio = "libaio", io_uring = "io_uring",
                  io_uring_cmd = "nvme", null = "null" }
local RW = { read = "read", write = "write", randread = "randread", randwrite = "randwrite", rw = "rw",
             readwrite = "rw", randrw = "randrw", trim = "trim", randtrim = "randtrim" }
local RANDOM = { randread = true, randwrite = true, randrw = true, randtrim = true }
local STRUCTURE = {}
for w in ([[name description stonewall wait_for_previous new_group group_reporting thread kb_base
  unit_base lat_percentiles clat_percentiles filename directory nrfiles size io_size io_limit
  offset_increment loops runtime time_based ramp_time numjobs do_verify cpus_allowed_policy
  cmd_type refill_buffers scramble_buffers ioengine norandommap randrepeat]]):gmatch("%S+") do
  STRUCTURE[w] = true
end

-- Options that may stand without a value (on).
local FLAGS = {}
for w in ("direct buffered invalidate norandommap randrepeat fixedbufs registerfiles sqthread_poll hipri zero_buffers"):gmatch("%S+") do
  FLAGS[w] = true
end

--- text cut (at a UTF-8 character) so that text .. suffix fits the library's
-- name key: fio takes a name of any length.
function M.fit_name(text, suffix)
  suffix = suffix or ""
  local room = NAME_MAX - #suffix
  if #text <= room then return text .. suffix end
  local cut = room
  -- a continuation byte (10xxxxxx) at cut + 1 means a character would be split
  while cut > 0 and (text:byte(cut + 1) or 0) & 0xC0 == 0x80 do cut = cut - 1 end
  return text:sub(1, cut) .. suffix
end

local Job = {}
Job.__index = Job

function Job:error(opt, fmt, ...)
  fail("%s: section [%s]: fio option '%s': " .. fmt, self.path, self.name, opt, ...)
end
function Job:count(opt, default)
  local v = self:val(opt)
  if v == nil then return default end
  return self:whole(opt, v)
end
--- Digits 0-9, at most 2^63 - 1.
function Job:whole(opt, v, what)
  v = tostring(v):match("^%s*(.-)%s*$")
  if not v:match("^%d+$") then self:error(opt, "'%s' is not %s (digits 0-9)", short(v), what or "a whole number") end
  local n = #v <= 19 and math.tointeger(tonumber(v))
  if not n then self:error(opt, "'%s' is more than 2^63 - 1, the largest count nvbench takes", short(v)) end
  return n
end
function Job:set(key, value, opt) self.out[key] = tostring(value); self.origin[key] = opt end
function Job:val(opt) local v = self.opts[opt]; return v ~= true and v or nil end
function Job:flag(opt) return self.opts[opt] ~= nil and bool(self:val(opt)) end
function Job:size(opt, value)
  local ok, r = pcall(M.fio_size, value or self:val(opt), self.kb_base)
  if not ok then self:error(opt, "%s", r) end
  return r
end
function Job:time_ns(opt, unit, value)
  local ok, r = pcall(M.fio_time_ns, value or self:val(opt), unit)
  if not ok then self:error(opt, "%s", r) end
  return r
end
function Job:one_value(opt)
  local seen, first, n = {}, nil, 0
  for v in (self:val(opt) or ""):gmatch("[^,]+") do
    v = v:match("^%s*(.-)%s*$")
    if v ~= "" and not seen[v] then seen[v] = true; n = n + 1; first = first or v end
  end
  if n ~= 1 then self:error(opt, "different values per direction (nvbench takes one for all)") end
  return first
end
function Job:engine_opt(opt, value, key, only_io_uring)
  local e = self.fio_engine
  if e == "io_uring_cmd" and only_io_uring then
    -- fio takes it there; nvbench's nvme engine has no such key (docs/engines.md)
    if opt == "sqthread_poll" and value == "0" then return end
    self:error(opt, "not honoured: nvbench's nvme engine (fio's io_uring_cmd) has no submission-queue polling "
      .. "thread (no nvme.sqpoll key); ioengine=io_uring has one")
  end
  if not (e == "io_uring" or (e == "io_uring_cmd" and not only_io_uring)) then
    self:error(opt, "is an option of ioengine io_uring%s, not %s", only_io_uring and "" or " or io_uring_cmd", e)
  end
  self:set((e == "io_uring" and "io_uring." or "nvme.") .. key, value, opt)
end

local function as(key, conv)
  return function(j, opt, v) j:set(key, conv and conv(j, opt, v) or v, opt) end
end
local function size_of(j, opt) return j:size(opt, j:one_value(opt)) end
local function flag_of(j, opt) return j:flag(opt) and "1" or "0" end
local function eng(key, only) return function(j, opt) j:engine_opt(opt, flag_of(j, opt), key, only) end end

local HANDLERS = {
  rw = function(j, opt, v)
    local base, skip = v:match("^([^:]*):?(.*)$")
    if not RW[base] then j:error(opt, "'%s': nvbench runs read, write, randread, randwrite, rw, randrw, trim, randtrim", v) end
    if skip ~= "" then j:error(opt, "not honoured: the ':%s' offset modifier", skip) end
    j:set("rw", RW[base], opt)
  end,
  rwmixread = as("rwmix"),
  rwmixwrite = as("rwmix", function(j, opt) return 100 - j:count(opt, 0) end),
  bs = as("bs", size_of),
  bssplit = function(j, opt, v)
    local dirs = {}
    for part in (v .. ","):gmatch("([^,]*),") do
      local items = {}
      for item in (part .. ":"):gmatch("([^:]*):") do
        local size, rest = item:match("^([^/]*)(.*)$")
        items[#items + 1] = size ~= "" and (j:size(opt, size) .. rest) or item
      end
      dirs[#dirs + 1] = table.concat(items, ":")
    end
    j:set("bssplit", table.concat(dirs, ","), opt)
  end,
  iodepth = as("qd"),
  offset = as("offset", function(j, opt) return j:size(opt) end),
  direct = function(j, opt) j:set("direct", flag_of(j, opt), opt) end,
  buffered = function(j, opt) j:set("direct", j:flag(opt) and "0" or "1", opt) end,
  invalidate = as("invalidate", flag_of),
  random_distribution = as("random_distribution"),
  rate_iops = function(j, opt)
    local v = j:whole(opt, j:one_value(opt), "a count of I/Os per second")
    j:set("rate_iops", v * j.numjobs, opt)
    j:set("rate_mode", "closed", opt)
  end,
  rate_process = as("rate_process", function(_, _, v) return v == "linear" and "uniform" or v end),
  thinktime = as("thinktime", function(j, opt, v) return math.floor(j:time_ns(opt, "us", v) / 1000 + 0.5) end),
  thinktime_blocks = as("thinktime_blocks"),
  verify = function(j, opt, v)
    if v == "0" or v == "none" then return end
    if v ~= "crc32c" and v ~= "crc32c-intel" then
      j:error(opt, "not honoured: '%s': nvbench verifies with a CRC32C per block only (crc32c, crc32c-intel)", v)
    end
    j:set("verify", "1", opt)
  end,
  randseed = as("seed"),
  iodepth_batch_submit = as("submit_batch"),
  iodepth_batch_complete_min = as("complete_batch"),
  fixedbufs = eng("fixedbufs"), registerfiles = eng("regfiles"), hipri = eng("iopoll"),
  sqthread_poll = eng("sqpoll", true),
  sqthread_poll_cpu = function(j, opt, v) j:engine_opt(opt, v, "sqpoll_cpu", true) end,
  cpus_allowed = function(j, opt, v)
    -- each CPU below the library's CPU set size, checked before anything is counted
    local ncpus = 0
    for part in (v .. ","):gmatch("([^,]*),") do
      part = part:match("^%s*(.-)%s*$")
      local lo, hi = part:match("^(%d+)%-(%d+)$")
      if not lo then lo = part:match("^%d+$"); hi = lo end
      if not lo then j:error(opt, "'%s' is not a CPU list (0-3,6)", short(v)) end
      for _, n in ipairs { lo, hi } do
        if #n > 4 or tonumber(n) >= MAX_CPUS then
          j:error(opt, "CPU %s is beyond the %d CPUs nvbench can pin to (0-%d, its CPU set size)", short(n), MAX_CPUS, MAX_CPUS - 1)
        end
      end
      if tonumber(lo) > tonumber(hi) then j:error(opt, "'%s' is not a CPU range (the first CPU is the lower)", part) end
      ncpus = ncpus + tonumber(hi) - tonumber(lo) + 1
    end
    if (j.opts.cpus_allowed_policy or "shared") ~= "split" and ncpus > 1 then
      j:error(opt, "not honoured: with cpus_allowed_policy=shared fio's jobs float over the set; nvbench pins job i to the i-th CPU")
    end
    j:set("cpus", v, opt)
  end,
  continue_on_error = function(j, opt, v)
    local m = ({ none = "0", ["0"] = "0", all = "1", ["1"] = "1" })[tostring(v):lower()]
    if not m then j:error(opt, "not honoured: '%s': nvbench continues after every error or after none", v) end
    j:set("continue_on_error", m, opt)
  end,
  zero_buffers = function(j, opt) if j:flag(opt) then j:set("fill", "zero", opt) end end,
  buffer_compress_percentage = as("data_compress"),
  dedupe_percentage = as("data_dedupe"),
}
HANDLERS.readwrite, HANDLERS.blocksize = HANDLERS.rw, HANDLERS.bs
HANDLERS.iodepth_batch, HANDLERS.iodepth_batch_complete = HANDLERS.iodepth_batch_submit, HANDLERS.iodepth_batch_complete_min

-- Never opened here (nvb.target_length takes stat-like facts): a FIFO opened for
-- reading would wait for a writer.
local function target_len(j, path)
  local n, err = require("nvbench").target_length(path)
  if not n then j:error("size", "is not set and %s: without 'size' the target's length decides the run", err) end
  return n
end

local function is_dir(path)
  local f = io.open(path .. "/.", "r")
  if f then f:close() return true end
  return false
end

local function targets(j)
  local o = j.opts
  local files = j:val("filename") and split_escaped(j:val("filename")) or {}
  local dirs = j:val("directory") and split_escaped(j:val("directory")) or {}
  local nrfiles = j:count("nrfiles", 1)
  if #files > 0 then
    if #dirs > 1 then j:error("directory", "not honoured: several directories with filename") end
    local out = {}
    for i, f in ipairs(files) do out[i] = (#dirs == 0 or f:sub(1, 1) == "/") and f or (dirs[1] .. "/" .. f) end
    return out
  end
  if nrfiles ~= math.max(#dirs, 1) and not (nrfiles == 1 and #dirs > 0) then
    j:error("nrfiles", "not honoured: nvbench lays out one scratch file per directory target")
  end
  if #dirs > 0 then return { table.unpack(dirs, 1, math.max(1, nrfiles)) } end
  if j.fio_engine == "null" then return {} end
  return { "." }
end

local function region(j)
  local o, nt = j.opts, math.max(1, #j.targets)
  local bs = j.out.bssplit and 1 or math.tointeger(tonumber(j.out.bs or "4096"))
  local offset = math.tointeger(tonumber(j.out.offset or "0"))
  local total, per_target
  if o.size then
    if tostring(o.size):match("%%$") then j:error("size", "not honoured: a share of the target") end
    total = j:size("size")
    per_target = total // nt // bs * bs
  else
    local any_dir = false
    for _, t in ipairs(j.targets) do any_dir = any_dir or is_dir(t) end
    if #j.targets == 0 or any_dir then j:error("size", "is needed: fio and nvbench have no file to take it from") end
    total = 0
    if not (j:flag("time_based") and not (o.io_size or o.io_limit)) then
      for _, t in ipairs(j.targets) do total = total + math.max(0, target_len(j, t) - offset) // bs * bs end
    end
  end
  local sequential = not RANDOM[j.out.rw]
  if j.numjobs > 1 and (sequential or o.offset_increment) then
    local inc = o.offset_increment and j:size("offset_increment") or 0
    if inc ~= 0 and inc == per_target and nt == 1 then per_target = per_target * j.numjobs
    else j:error("numjobs", "not honoured: fio's clones of a sequential job all start at the job's offset; "
                 .. "nvbench's jobs start staggered over one region: give offset_increment equal to size") end
  end
  if per_target and (#j.targets > 0 or j.fio_engine == "null") then j:set("size", per_target, "size") end
  if o.io_size or o.io_limit then total = j:size(o.io_size and "io_size" or "io_limit") end
  return total // bs * bs * j:count("loops", 1)
end

local function bounds(j, per_job)
  local o = j.opts
  local runtime = o.runtime and j:time_ns("runtime") or 0
  if o.ramp_time then j:set("ramp", j:time_ns("ramp_time") .. "ns", "ramp_time") end
  if j:flag("time_based") then
    if runtime == 0 then j:error("time_based", "without runtime fio runs until stopped; nvbench needs the runtime") end
    j:set("runtime", runtime .. "ns", "runtime")
    return
  end
  if per_job == 0 then j:error("size", "the job moves no data (size 0)") end
  j:set("io_limit", per_job * j.numjobs, "size")
  if runtime > 0 then j:set("runtime", runtime .. "ns", "runtime") end
end

local function finish(j)
  local o = j.opts
  if j.fio_engine == "io_uring" or j.fio_engine == "io_uring_cmd" then
    if not o.fixedbufs then j:engine_opt("fixedbufs", "0", "fixedbufs") end
    if not o.registerfiles then j:engine_opt("registerfiles", "0", "regfiles") end
  end
  if RANDOM[j.out.rw] then  -- fio's random map covers uniform offsets only
    local skewed = (j.out.random_distribution or "random") ~= "random"
    local keep = not (skewed or j:flag("norandommap"))
    if keep and j.out.bssplit then  -- fio keeps its map with a split; nvbench has none there
      j:error("bssplit", "with fio's default random map (every block once per pass): nvbench keeps no map with a "
        .. "block-size split; add norandommap=1 to run it without one")
    end
    j:set("random_map", keep and "1" or "0", "norandommap")
  end
  if not o.randseed and o.randrepeat and not j:flag("randrepeat") then
    j:set("seed", math.random(0, math.maxinteger), "randrepeat")
  end
  j:set("jobs", j.numjobs, "numjobs")
  j.targets = targets(j)
  bounds(j, region(j))
  if j.out.verify == "1" and j.out.rw ~= "read" and (o.do_verify == nil or j:flag("do_verify")) then
    if j.out.rw ~= "write" or j:flag("time_based") then
      j:error("verify", "not honoured: the read-back of what a random, mixed or time-based job wrote; set do_verify=0")
    end
    local back = {}
    for k, v in pairs(j.out) do back[k] = v end
    for _, k in ipairs { "rate_iops", "rate_mode", "thinktime", "thinktime_blocks", "ramp", "runtime" } do back[k] = nil end
    back.rw, back.name = "read", M.fit_name(j.out.name, " verify")
    j.after = { back }
  end
end

local function workload(j, keys)
  local w = { targets = { table.unpack(j.targets) }, fio = { section = j.name, origin = j.origin } }
  for k, v in pairs(keys) do w[k] = v end
  return w
end

--- One job section -> { workload, [its read-back] }.
function M.map_job(name, opts, path)
  local j = setmetatable({ name = name, opts = opts, path = path or "job file", out = {}, origin = {}, after = {} }, Job)
  j.kb_base = j:count("kb_base", 1024)
  if j.kb_base ~= 1000 and j.kb_base ~= 1024 then j:error("kb_base", "is 1000 or 1024") end
  j.fio_engine = j:val("ioengine") or "psync"
  if not ENGINES[j.fio_engine] then
    j:error("ioengine", "'%s': nvbench runs psync, pvsync, libaio, io_uring, io_uring_cmd (its nvme engine) and null", j.fio_engine)
  end
  if j.fio_engine == "io_uring_cmd" and (j:val("cmd_type") or "nvme") ~= "nvme" then
    j:error("cmd_type", "nvbench's passthrough engine speaks nvme only")
  end
  j.numjobs = j:count("numjobs", 1)
  j:set("engine", ENGINES[j.fio_engine], "ioengine")
  j:set("name", M.fit_name(j:val("name") or name), "name")
  j:set("rw", "read", "rw")
  j:set("direct", "0", "direct")
  local names = {}
  for k in pairs(opts) do names[#names + 1] = k end
  table.sort(names)  -- an order of our own: the handlers do not depend on each other
  for _, opt in ipairs(names) do
    local h = HANDLERS[opt]
    if h and j:val(opt) == nil and not FLAGS[opt] then j:error(opt, "needs a value (option=value)") end
    if h then h(j, opt, j:val(opt))
    elseif not STRUCTURE[opt] then j:error(opt, "nvbench has no equivalent") end
  end
  finish(j)
  local out = { workload(j, j.out) }
  for _, extra in ipairs(j.after) do out[#out + 1] = workload(j, extra) end
  return out
end

--- The steps of a job file: { {workload, ...}, ... }; env replaces os.getenv.
function M.from_fio_job(path, env)
  local steps = {}
  for _, job in ipairs(M.parse(path, env)) do
    local mapped = M.map_job(job.name, job.opts, path)
    if job.stonewall or #steps == 0 then steps[#steps + 1] = {} end
    table.insert(steps[#steps], mapped[1])
    for i = 2, #mapped do steps[#steps + 1] = { mapped[i] } end
  end
  -- fio runs two sections of one name side by side; the job groups of one run
  -- need names of their own: the second becomes 'name #2'
  for _, step in ipairs(steps) do
    local seen, taken = {}, {}
    for _, w in ipairs(step) do seen[w.name] = true end
    for _, w in ipairs(step) do
      local name, k = w.name, 1
      while taken[w.name] or (k > 1 and seen[w.name]) do
        k = k + 1
        w.name = M.fit_name(name, " #" .. k)
      end
      taken[w.name] = true
    end
  end
  return steps
end

-- What a library without these keys does anyway: such a value needs no key.
local IMPLIED = { random_map = "0", random_distribution = "random", thinktime = "0" }

local function library_args(nvb, w)
  local args = {}
  for k, v in pairs(w) do
    if k ~= "fio" and not (IMPLIED[k] == v and not nvb.workload { [k] = v }) then args[k] = v end
  end
  return args
end

--- Run a job file with nvb.run: a list of results, one per step, or nil, msg, errno,
--- the failing step's result (if any) and the list of the steps' results before it.
--- Every step is planned by the library (nvb.validate_groups) before the first runs.
--- keys (optional): library keys for every job that the file does not set, as
--- Python's run_fio_job takes them ({allow_destructive = 1, interval = "500ms"}).
function M.run(path, env, keys)
  local nvb = require "nvbench"
  if keys ~= nil and type(keys) ~= "table" then
    return nil, "keys: a table of library keys for every job, not a " .. type(keys), 22
  end
  local steps = M.from_fio_job(path, env)
  for _, step in ipairs(steps) do
    if #step > 1 and not nvb.run_groups then
      return nil, string.format("jobs without a stonewall between them run at the same time (%s, ...): "
        .. "concurrent groups need nvbench.run_groups, which this nvbench lacks", step[1].fio.section)
    end
  end
  local args, all, where = {}, { steps = {} }, {}
  for s, step in ipairs(steps) do
    local ws = {}
    for i, w in ipairs(step) do
      ws[i] = library_args(nvb, w)
      for k, v in pairs(keys or {}) do
        if ws[i][k] == nil then ws[i][k] = tostring(v) end
      end
      all[#all + 1], all.steps[#all + 1], where[#all + 1] = ws[i], s, w
    end
    args[s] = ws
  end
  -- Every step planned by the library before the first runs (nvb_groups_validate):
  -- a refusal in the last step comes before any I/O of the first.
  if nvb.validate_groups then
    local ok, err, errno, bad = nvb.validate_groups(all)
    if not ok then
      local w = where[bad or 1]
      return nil, string.format("fio job section [%s] (step %d of %d): %s", w.fio.section, all.steps[bad or 1],
        #steps, err), errno
    end
  end
  local results = {}
  for s, step in ipairs(steps) do
    local ws, r, err, errno, partial = args[s]
    if #ws == 1 then r, err, errno, partial = nvb.run(ws[1])
    else r, err, errno, partial = nvb.run_groups(ws) end
    -- the step's result (partial, or complete with verify mismatches) and the steps before it
    if not r then
      return nil, string.format("fio job section [%s] (step %d of %d): %s", step[1].fio.section, s, #steps, err),
        errno, partial, results
    end
    results[#results + 1] = r
  end
  return results
end

return M
