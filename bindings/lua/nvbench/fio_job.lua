--- nvbench.fio_job: fio job files as nvbench workloads (read and mapped by the library).
--
--   local fio = require "nvbench.fio_job"
--   local steps = fio.from_fio_job("randread.fio")   -- { {workload, ...}, ... }
--   local results = fio.run("randread.fio")           -- one nvb result per step
--
-- The reading and the mapping are the library's (nvb_fiojob_read,
-- nvb_fiomap_new): the same as Python's nvbench.fio_job and C's, option for
-- option (docs/fio-jobs.md has the table). A workload is a table of library
-- keys (strings) plus `targets` (a list) and `fio` ({section, origin,
-- warnings, dropped}). An option nvbench cannot honour raises an error naming
-- it and the section; lenient mapping leaves it out with a warning instead.
local M = {}

-- Messages quote section names, paths and values from the file: their
-- control characters (ESC sequences) are shown escaped, never obeyed.
local function fail(msg)
  error((tostring(msg):gsub("%c", function(c) return string.format("\\x%02x", c:byte()) end)), 0)
end

local function library(fn, ...)
  local v, err = fn(...)
  if v == nil then fail(err) end
  return v
end

--- A fio quantity of data in bytes, as fio reads it (kb_base 1024 or 1000).
function M.fio_size(text, kb_base) return library(require("nvbench").fio_size, tostring(text), kb_base) end

--- A fio time in nanoseconds; a bare number is in `unit` ("s" or "us").
function M.fio_time_ns(text, unit) return library(require("nvbench").fio_time_ns, tostring(text), unit) end

--- The jobs in order: { {name=, opts=, order=, stonewall=}, ... } ([global] merged in;
--- a bare flag's value is true); env replaces os.getenv for ${VAR}.
function M.parse(path, env) return library(require("nvbench").fio_job_read, path, env) end

--- The steps of a job file: { {workload, ...}, ... }; env replaces os.getenv.
function M.from_fio_job(path, env, lenient)
  return library(require("nvbench").fio_job_map, path, env, lenient)
end

local function library_args(w, keys)
  local args = {}
  for k, v in pairs(w) do if k ~= "fio" then args[k] = v end end
  for k, v in pairs(keys or {}) do if args[k] == nil then args[k] = tostring(v) end end
  return args
end

local function step_error(section, s, n, err)
  return string.format("fio job section [%s] (step %d of %d): %s", section, s, n, err)
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
  local args, all, where = {}, { steps = {} }, {}
  for s, step in ipairs(steps) do
    args[s] = {}
    for i, w in ipairs(step) do
      args[s][i] = library_args(w, keys)
      all[#all + 1], all.steps[#all + 1], where[#all + 1] = args[s][i], s, w
    end
  end
  -- Every step planned by the library before the first runs (nvb_groups_validate):
  -- a refusal in the last step comes before any I/O of the first.
  local ok, err, errno, bad = nvb.validate_groups(all)
  if not ok then
    return nil, step_error(where[bad or 1].fio.section, all.steps[bad or 1], #steps, err), errno
  end
  local results = {}
  for s, step in ipairs(steps) do
    local ws, r, partial = args[s], nil, nil
    if #ws == 1 then r, err, errno, partial = nvb.run(ws[1])
    else r, err, errno, partial = nvb.run_groups(ws) end
    -- the step's result (partial, or complete with verify mismatches) and the steps before it
    if not r then return nil, step_error(step[1].fio.section, s, #steps, err), errno, partial, results end
    results[#results + 1] = r
  end
  return results
end

return M
