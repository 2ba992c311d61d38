#!/usr/bin/env lua5.4
--[[
qd_sweep.lua: for every engine, double the queue depth (1, 2, 4, ...) until
the p99 latency exceeds a target, and report the best IOPS reached while
p99 stayed within it: the question "how hard can I push this device before
the tail breaks?" answered per I/O stack.

  lua5.4 qd_sweep.lua [--p99 1ms] [--max-qd 256] [--rw randread] [--bs 4k]
                      [--jobs 1] [--runtime 1s] [--engines psync,io_uring]
                      [--size 256M] [TARGET]

TARGET as in seed_matrix.lua; by default a scratch file that is removed
afterwards. Writes to a block device need allow_destructive and are not
offered here: sweep reads on a device, or writes on a file.
]]
local nvb = require "nvbench"
local m = require "nvbench.matrix"

local USAGE = "usage: lua5.4 qd_sweep.lua [--p99 DUR] [--max-qd N] [--rw RW] [--bs SIZE] [--jobs N]\n" ..
              "         [--runtime DUR] [--engines LIST] [--size SIZE] [TARGET]\n"

local function usage(msg)
  if not msg then io.stdout:write(USAGE); os.exit(0) end -- --help
  io.stderr:write("qd_sweep: ", msg, "\n", USAGE)
  os.exit(2)
end

local function split(s) local t = {} for x in s:gmatch("[^,%s]+") do t[#t + 1] = x end return t end

local opt = { p99 = "1ms", max_qd = 256, rw = "randread", bs = "4k", jobs = 1, runtime = "1s", size = "256M" }
local i = 1
while i <= #arg do
  local a = arg[i]
  local function value() i = i + 1; return arg[i] or usage(a .. " needs a value") end
  if a == "--p99" then opt.p99 = value()
  elseif a == "--max-qd" then opt.max_qd = tonumber(value()) or usage("--max-qd needs a number")
  elseif a == "--rw" then opt.rw = value()
  elseif a == "--bs" then opt.bs = value()
  elseif a == "--jobs" then opt.jobs = value()
  elseif a == "--runtime" then opt.runtime = value()
  elseif a == "--engines" then opt.engines = split(value())
  elseif a == "--size" then opt.size = value()
  elseif a == "-h" or a == "--help" then usage()
  elseif a:sub(1, 1) == "-" then usage("unknown option " .. a)
  else opt.target = a end
  i = i + 1
end
local target_ns = m.duration_ns(opt.p99) or usage("invalid --p99 '" .. opt.p99 .. "' (examples: 500us, 2ms)")
local dir = opt.rw:find("write") and "write" or "read"

local function make_scratch()
  local s, err = m.scratch(opt.size)
  if not s then io.stderr:write("qd_sweep: cannot create a scratch file: ", err, "\n"); os.exit(1) end
  return s
end
local scratch <close> = not opt.target and make_scratch() or nil
local target = opt.target or scratch.path

io.stderr:write(string.format("qd_sweep: %s %s, p99 target %.0f us, qd up to %d, %s per point, target %s\n",
  opt.rw, opt.bs, target_ns / 1e3, opt.max_qd, opt.runtime, target))

local summary, status, runs = {}, 0, {}
for _, engine in ipairs(opt.engines or m.available_engines(false)) do
  local best, why = nil, nil
  local qd = 1
  while qd <= opt.max_qd do
    -- A point in which no I/O completed (a very short runtime on a busy
    -- machine) measured nothing: a p99 of 0 would pass any target. It is
    -- run again, twice as long, up to three times.
    local r, err, runtime = nil, nil, m.duration_ns(opt.runtime)
    for _ = 1, 3 do
      r, err = nvb.run { targets = { target }, engine = engine, rw = opt.rw, bs = opt.bs, qd = qd,
                         jobs = opt.jobs, runtime = string.format("%dns", runtime) }
      if not r or r[dir].ios > 0 then break end
      runtime = runtime * 2
    end
    if not r then why = "error: " .. err; status = 1; break end
    runs[#runs + 1] = { engine = engine, result = r }
    local p99 = r[dir].lat_ns.p99
    local iops = r[dir].iops
    io.stderr:write(string.format("  %-9s qd %4d  %12s IOPS  p99 %10.1f us\n", engine, qd, m.commas(iops), p99 / 1e3))
    if r[dir].ios == 0 then
      -- no latency was measured: a p99 of 0 would pass any target
      why = string.format("no I/O completed at qd %d in %.0f ms", qd, runtime / 1e6)
      break
    end
    if p99 > target_ns then
      why = string.format("p99 %.0f us at qd %d", p99 / 1e3, qd)
      break
    end
    if not best or iops > best.iops then best = { qd = qd, iops = iops, p99 = p99 } end
    if r.qd_effective < qd then
      why = string.format("synchronous engine: qd stays %d", r.qd_effective)
      break
    end
    qd = qd * 2
  end
  summary[#summary + 1] = {
    engine,
    best and tostring(best.qd) or "-",
    best and m.commas(best.iops) or "-",
    best and string.format("%.1f", best.p99 / 1e3) or "-",
    why or string.format("reached qd %d", opt.max_qd),
  }
end

print(string.format("\nBest %s %s IOPS with p99 latency <= %.0f us", opt.rw, opt.bs, target_ns / 1e3))
io.write(m.format_table({ "Engine", "Best QD", "IOPS", "p99 (us)", "Stopped" }, summary))
m.print_warnings(runs)
os.exit(status, true)
