#!/usr/bin/env lua5.4
--[[
seed_matrix.lua: the published comparison's matrix (random 4K, random 64K,
sequential 64K, sequential 128K; each read and write) over every I/O engine
that works here, printed in the published table layout plus the CPU cost
per I/O and IOPS per core that the articles had to infer.

  lua5.4 seed_matrix.lua [--runtime 1s] [--qd 32] [--jobs 1] [--size 256M]
                         [--engines libaio,io_uring] [--cells rand4k_read,...]
                         [--allow-destructive] [--precondition N]
                         [--steady-state iops|bw|lat] [--ss-window DUR]
                         [--interval DUR] [TARGET]

TARGET is a regular file, a block device (writes need --allow-destructive)
or a directory; by default a scratch file in the temporary directory that is
removed afterwards. --precondition and --steady-state apply to the write
cells: N sequential write passes over the target before each, and each ended
at steady state (--runtime is then the cap; a round is one --interval;
docs/steady-state.md).

SIGTERM or SIGINT during a run: the run is cancelled and cleaned up by the
module, the scratch file removed, the table of the runs done so far printed,
and the script ends by that signal (exit status 143 / 130; docs/lua.md).
]]
local nvb = require "nvbench"
local m = require "nvbench.matrix"

local USAGE = "usage: lua5.4 seed_matrix.lua [--runtime DUR] [--qd N] [--jobs N] [--size SIZE]\n" ..
              "         [--engines LIST] [--cells LIST] [--allow-destructive] [--precondition N]\n" ..
              "         [--steady-state iops|bw|lat] [--ss-window DUR] [--interval DUR] [TARGET]\n"

local function usage(msg)
  if not msg then io.stdout:write(USAGE); os.exit(0) end -- --help
  io.stderr:write("seed_matrix: ", msg, "\n", USAGE)
  os.exit(2)
end

local function split(s) local t = {} for x in s:gmatch("[^,%s]+") do t[#t + 1] = x end return t end

local opt = { runtime = "1s", qd = 32, jobs = 1, size = "256M" }
local i = 1
while i <= #arg do
  local a = arg[i]
  local function value() i = i + 1; return arg[i] or usage(a .. " needs a value") end
  if a == "--runtime" then opt.runtime = value()
  elseif a == "--qd" then opt.qd = value()
  elseif a == "--jobs" then opt.jobs = value()
  elseif a == "--size" then opt.size = value()
  elseif a == "--engines" then opt.engines = split(value())
  elseif a == "--cells" then opt.cells = split(value())
  elseif a == "--allow-destructive" then opt.destructive = true
  elseif a == "--precondition" then opt.precondition = math.tointeger(tonumber(value())) or usage("--precondition needs a number")
  elseif a == "--steady-state" then opt.ss = value()
  elseif a == "--ss-window" then opt.ss_window = value()
  elseif a == "--interval" then opt.interval = value()
  elseif a == "-h" or a == "--help" then usage()
  elseif a:sub(1, 1) == "-" then usage("unknown option " .. a)
  else opt.target = a end
  i = i + 1
end

-- One scratch file laid out once and shared by every cell (a directory
-- target would make each run lay out its own).
local function make_scratch()
  local s, err = m.scratch(opt.size)
  if not s then io.stderr:write("seed_matrix: cannot create a scratch file: ", err, "\n"); os.exit(1) end
  return s
end
local scratch <close> = not opt.target and make_scratch() or nil
local target = opt.target or scratch.path

-- Only the engines asked for (default: every one that works here) are
-- named; one asked for that does not work here is refused below with the
-- library's reason, before anything runs.
local engines = opt.engines or m.available_engines(false)
io.stderr:write(string.format("seed_matrix: nvbench %s, %d engine(s) x %d cells, %s each, qd %s, jobs %s, target %s\n",
  nvb.version, #engines, opt.cells and #opt.cells or #m.cells, opt.runtime, opt.qd, opt.jobs, target))

local failed = 0
local done = { engines = engines }
local checking = true
local ok, rows = pcall(m.seed, {
  targets = { target }, engines = engines, cells = opt.cells,
  runtime = opt.runtime, qd = opt.qd, jobs = opt.jobs,
  workload = { allow_destructive = opt.destructive or false, interval = opt.interval },
  precondition = opt.precondition,
  steady_state = opt.ss and { metric = opt.ss, window = opt.ss_window } or nil,
  on_cell = function(row, n, total)
    checking = false
    done[#done + 1] = row
    if row.figures then
      local ss = row.result.steady_state
      local note = not ss and "" or ss.reached and string.format("  (steady at %.1f s)", ss.at_s) or "  (NOT steady)"
      io.stderr:write(string.format("  [%2d/%d] %-22s %-9s %12s IOPS%s\n", n, total, row.cell.label, row.engine,
        m.commas(row.figures.iops), note))
    else
      failed = failed + 1
      io.stderr:write(string.format("  [%2d/%d] %-22s %-9s %s\n", n, total, row.cell.label, row.engine,
        row.error or "cancelled"))
    end
  end,
})
if not ok and checking and #done == 0 and tostring(rows):find("^nvbench.matrix: ") then
  -- a cell the library refuses (bad --runtime, an engine that does not
  -- work here): said before anything ran
  io.stderr:write("seed_matrix: ", (tostring(rows):gsub("^nvbench.matrix: ", "")), "\n")
  os.exit(2, true)
end
if not ok then
  -- Interrupted (SIGTERM, Ctrl-C) or a Lua error: the run in progress was
  -- cancelled and cleaned up; show what was measured and end. Closing the
  -- state (os.exit(..., true)) removes the scratch file and, after a
  -- signal, lets the module end the process by that signal (130/143),
  -- with a message instead of a stack trace.
  local partial = nvb.interrupted_result()
  io.stderr:write(string.format("seed_matrix: stopped after %d run(s): %s\n", #done, tostring(rows)))
  if partial then
    io.stderr:write(string.format("seed_matrix: the run in progress was cancelled after %.1f s\n", partial.duration_s or 0))
    -- its partial figures join the table, the cell marked cancelled
    local prow = m.rows_from_results({ partial })
    if prow and prow[1] then done[#done + 1] = prow[1] end
  end
  m.print_seed(done)
  m.print_warnings(done)
  io.stderr:flush()
  os.exit(1, true)
end
m.print_seed(rows)
m.print_warnings(rows)
os.exit(failed == 0 and 0 or 1, true)
