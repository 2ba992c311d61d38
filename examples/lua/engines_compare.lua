#!/usr/bin/env lua5.4
--[[
engines_compare.lua: the same workload on every engine that works here, the
CPU microseconds per I/O side by side (the figure that shows what an I/O
stack costs, which throughput alone hides), with IOPS per core and the
usual throughput and latency rows.

  lua5.4 engines_compare.lua [--rw randread] [--bs 4k] [--qd 32] [--jobs 1]
                             [--runtime 2s] [--size 256M] [--null]
                             [--engines psync,io_uring] [TARGET]

--null adds the null engine (no I/O: the measurement loop's own cost).
TARGET as in seed_matrix.lua; by default a scratch file that is removed
afterwards.
]]
local nvb = require "nvbench"
local m = require "nvbench.matrix"

local USAGE = "usage: lua5.4 engines_compare.lua [--rw RW] [--bs SIZE] [--qd N] [--jobs N] [--runtime DUR]\n" ..
              "         [--size SIZE] [--null] [--engines LIST] [TARGET]\n"

local function usage(msg)
  if not msg then io.stdout:write(USAGE); os.exit(0) end -- --help
  io.stderr:write("engines_compare: ", msg, "\n", USAGE)
  os.exit(2)
end

local function split(s) local t = {} for x in s:gmatch("[^,%s]+") do t[#t + 1] = x end return t end

local opt = { rw = "randread", bs = "4k", qd = 32, jobs = 1, runtime = "2s", size = "256M" }
local i = 1
while i <= #arg do
  local a = arg[i]
  local function value() i = i + 1; return arg[i] or usage(a .. " needs a value") end
  if a == "--rw" then opt.rw = value()
  elseif a == "--bs" then opt.bs = value()
  elseif a == "--qd" then opt.qd = value()
  elseif a == "--jobs" then opt.jobs = value()
  elseif a == "--runtime" then opt.runtime = value()
  elseif a == "--size" then opt.size = value()
  elseif a == "--null" then opt.null = true
  elseif a == "--engines" then opt.engines = split(value())
  elseif a == "-h" or a == "--help" then usage()
  elseif a:sub(1, 1) == "-" then usage("unknown option " .. a)
  else opt.target = a end
  i = i + 1
end
local dir = opt.rw:find("write") and "write" or "read"

local function make_scratch()
  local s, err = m.scratch(opt.size)
  if not s then io.stderr:write("engines_compare: cannot create a scratch file: ", err, "\n"); os.exit(1) end
  return s
end
local scratch <close> = not opt.target and make_scratch() or nil
local target = opt.target or scratch.path

local engines = opt.engines or m.available_engines(opt.null)
io.stderr:write(string.format("engines_compare: %s %s qd %s jobs %s, %s per engine, target %s\n",
  opt.rw, opt.bs, opt.qd, opt.jobs, opt.runtime, target))

local figs, status, runs = {}, 0, {}
for _, engine in ipairs(engines) do
  local r, err = nvb.run { targets = { target }, engine = engine, rw = opt.rw, bs = opt.bs, qd = opt.qd,
                           jobs = opt.jobs, runtime = opt.runtime }
  runs[#runs + 1] = { engine = engine, result = r }
  if r then
    figs[engine] = m.figures(r, dir)
    figs[engine].p99_us = figs[engine].p99_ms and figs[engine].p99_ms * 1e3
    figs[engine].lat_us = r[dir].lat_ns.mean / 1e3
    local us = figs[engine].us_per_io
    io.stderr:write(string.format("  %-9s %12s IOPS  %8s CPU-us per I/O\n", engine, m.commas(figs[engine].iops),
      us and us == us and string.format("%.2f", us) or "-"))
  else
    io.stderr:write(string.format("  %-9s %s\n", engine, err))
    status = 1
  end
end

-- The cheapest engine per I/O is the 1.00x reference, named in the row's label. null does
-- no I/O: it is the reference only when it is the sole engine, and otherwise not set against
-- the reference (its fraction of a real engine's cost would make the label untrue).
local best, best_engine
for _, e in ipairs(engines) do
  local f = figs[e]
  if f and f.us_per_io and f.us_per_io > 0 and (e ~= "null" or #engines == 1)
     and (not best or f.us_per_io < best) then
    best, best_engine = f.us_per_io, e
  end
end
local function vs_best(f, e)
  if e == "null" and e ~= best_engine then return "- (no I/O)" end
  if not best or not f.us_per_io or f.us_per_io <= 0 then return "-" end
  return string.format("%.2fx", f.us_per_io / best)
end
local vs_label = best_engine and string.format("CPU per I/O vs %s (cheapest%s)", best_engine,
  best_engine == "null" and "" or " with I/O") or "CPU per I/O vs the cheapest"

-- A figure the result has no measurement for (null: a run too short for the
-- machine's CPU ticks, no I/O counted) prints "-", never 0.
local function fmt(spec, v) return v and v == v and string.format(spec, v) or "-" end

local rows_def = {
  { "CPU per I/O (us)", function(f) return fmt("%.2f", f.us_per_io) end },
  { vs_label, vs_best },
  { "IOPS per core", function(f) return f.iops_core and m.commas(f.iops_core) or "-" end },
  { "Process CPU (cores)", function(f) return fmt("%.2f", f.process_cores) end },
  { "IOPS", function(f) return m.commas(f.iops) end },
  { "Bandwidth (GiB/s)", function(f) return string.format("%.3f", f.gib_s) end },
  { "Average latency (us)", function(f) return string.format("%.1f", f.lat_us) end },
  { "p99 latency (us)", function(f) return f.p99_us and string.format("%.1f", f.p99_us) or f.p99_na end },
  { "Total CPU Usage (%)", function(f) return fmt("%.2f", f.cpu_pct) end },
}
local header, body = { "Metric" }, {}
for _, e in ipairs(engines) do header[#header + 1] = e end
for _, def in ipairs(rows_def) do
  local line = { def[1] }
  for _, e in ipairs(engines) do line[#line + 1] = figs[e] and def[2](figs[e], e) or "-" end
  body[#body + 1] = line
end
print(string.format("\n%s %s, qd %s, jobs %s (nvbench %s)", opt.rw, opt.bs, opt.qd, opt.jobs, nvb.version))
io.write(m.format_table(header, body))
m.print_warnings(runs)
os.exit(status, true)
