--- nvbench.search: the latency-target search (the same search as Python's nvbench.search).
--
--   local nvb = require "nvbench"
--   local s = nvb.search({ engine = "io_uring", rw = "randread", targets = {"/dev/x"}, runtime = "2s" },
--                        { target = "p99<=1ms", vary = "qd" })
--   print(s.answer and s.answer.qd, #s.points)
--   nvb_search.print(s)                      -- the curve and the answer
--
-- vary = "qd": the depth doubles from opts.start (1) until the bound breaks or opts.max_qd
-- (1024) is reached, then the last good and the first bad depth are bisected. vary =
-- "rate_iops": one unthrottled run gives the ceiling (the answer when it keeps the bound),
-- then the rate is bisected below it until the bracket is narrower than opts.rel_tol (0.05)
-- of it. Each point is one nvb.run. Returns { points = {...}, answer = point or nil,
-- warnings = {...}, target, percentile, bound_ns, vary }, or raises on bad input (the
-- message names the option and the value) or on a failed run.
local nvb = require "nvbench"
local m = require "nvbench.matrix"

local M = {}

local PCTS = { p1 = 1, p5 = 1, p10 = 1, p25 = 1, p50 = 1, p75 = 1, p90 = 1, p95 = 1, p99 = 1,
               ["p99.5"] = 1, ["p99.9"] = 1, ["p99.99"] = 1, ["p99.999"] = 1, mean = 1, max = 1 }
local UNITS = { ns = 1, us = 1e3, ms = 1e6, s = 1e9 }

--- "p99<=1ms" -> "p99", 1e6, false (strict); raises naming what is wrong.
function M.parse_target(t)
  if type(t) ~= "string" then
    error(("nvbench.search: target must be a string like 'p99<=1ms', got %s"):format(tostring(t)), 2)
  end
  if t:find("\0", 1, true) then
    error(("nvbench.search: target '%s' contains a NUL byte"):format(m.printable(t)), 2)
  end
  local key, op, num, unit = t:match("^%s*([%w.]+)%s*(<=?)%s*(%d*%.?%d+)%s*(%a*)%s*$")
  if not key then
    error(("nvbench.search: target '%s': expected PERCENTILE<=BOUND with a unit, e.g. 'p99<=1ms'"):format(t), 2)
  end
  if not PCTS[key] then
    error(("nvbench.search: target '%s': percentile '%s' is not measured"):format(t, key), 2)
  end
  if unit == "" then error(("nvbench.search: target '%s': the bound needs a unit (ns, us, ms, s)"):format(t), 2) end
  if not UNITS[unit] then
    error(("nvbench.search: target '%s': unit '%s' is not one of ns, us, ms, s"):format(t, unit), 2)
  end
  local bound = tonumber(num) * UNITS[unit]
  if not (bound > 0) then error(("nvbench.search: target '%s': the bound must be above 0"):format(t), 2) end
  return key, bound, op == "<"
end

-- the key's latency in the worst direction that did I/O (or dir), whether it is supported,
-- and the IOPS of all directions
local function measure(r, key, dir)
  local lat, supported, iops = nil, true, 0
  for _, d in ipairs({ "read", "write" }) do
    local x = r[d] or {}
    iops = iops + (x.iops or 0)
    if (not dir or d == dir) and (x.ios or 0) > 0 and x.lat_ns and x.lat_ns[key] then
      lat = lat and math.max(lat, x.lat_ns[key]) or x.lat_ns[key]
      if key:sub(1, 1) == "p" and x.lat_pct_supported and x.lat_pct_supported[key] == false then
        supported = false
      end
    end
  end
  return lat, supported, iops
end

local function check_int(name, v, lo)
  if math.type(v) ~= "integer" or v < lo then
    error(("nvbench.search: %s must be an integer >= %d, got %s"):format(name, lo, tostring(v)), 3)
  end
end

function M.search(workload, opts)
  opts = opts or {}
  local key, bound, strict = M.parse_target(opts.target or "p99<=1ms")
  local vary = opts.vary or "qd"
  if vary ~= "qd" and vary ~= "rate_iops" then
    error(("nvbench.search: vary must be 'qd' or 'rate_iops', got '%s'"):format(m.printable(vary)), 2)
  end
  if workload[vary] ~= nil then
    error(("nvbench.search: the workload sets %s=%s, which the search varies: leave it out"):format(
      vary, tostring(workload[vary])), 2)
  end
  local start, max_qd, max_runs = opts.start or 1, opts.max_qd or 1024, opts.max_runs or 24
  local rel_tol, dir = opts.rel_tol or 0.05, opts.direction
  check_int("start", start, 1); check_int("max_qd", max_qd, 1); check_int("max_runs", max_runs, 1)
  if start > max_qd then error(("nvbench.search: start=%d is above max_qd=%d"):format(start, max_qd), 2) end
  if type(rel_tol) ~= "number" or not (rel_tol > 0 and rel_tol < 1) then
    error(("nvbench.search: rel_tol must be in (0, 1), got %s"):format(tostring(rel_tol)), 2)
  end
  local run = opts.run or nvb.run
  local s = { target = opts.target or "p99<=1ms", percentile = key, bound_ns = bound, vary = vary,
              points = {}, notes = {} }
  local budget = {}
  local function point(v)
    if #s.points >= max_runs then error(budget) end
    local w = {}
    for k, x in pairs(workload) do w[k] = x end
    w[vary] = v
    local r, err = run(w)
    if not r then error(("nvbench.search: %s=%s: %s"):format(vary, tostring(v), tostring(err)), 0) end
    local lat, supported, iops = measure(r, key, dir)
    local ok = lat ~= nil and (strict and lat < bound or (not strict and lat <= bound))
    local p = { [vary] = v, iops = iops, lat_ns = lat, ok = ok, supported = supported, result = r }
    s.points[#s.points + 1] = p
    if lat == nil then
      s.notes[#s.notes + 1] = ("%s=%s: no I/O completed, no latency to judge"):format(vary, tostring(v))
    elseif not supported then
      s.notes[#s.notes + 1] = ("%s=%s: %s rests on fewer than 10 samples beyond it"):format(vary, tostring(v), key)
    end
    return ok
  end
  local function body()
    if vary == "qd" then
      local good, bad, qd = nil, nil, start
      while qd <= max_qd do
        if point(qd) then good = qd; qd = qd * 2 else bad = qd; break end
      end
      if not good or not bad then return end
      while bad - good > 1 do
        local mid = (good + bad) // 2
        if point(mid) then good = mid else bad = mid end
      end
    else
      if point(nil) then return end
      local lo, hi = 0, s.points[1].iops
      while hi > 1 and hi - lo > rel_tol * hi do
        local mid = math.floor((lo + hi) / 2 + 0.5)
        if mid <= lo or mid >= hi then break end
        if point(mid) then lo = mid else hi = mid end
      end
    end
  end
  local ok, e = pcall(body)
  if not ok then
    if e ~= budget then error(e, 0) end
    s.notes[#s.notes + 1] = ("the search stopped after max_runs=%d runs: the answer is the best point found so far")
      :format(max_runs)
  end
  for _, p in ipairs(s.points) do
    if p.ok and (not s.answer or p.iops > s.answer.iops) then s.answer = p end
  end
  s.warnings = m.warnings(s.points)
  for _, n in ipairs(s.notes) do s.warnings[#s.warnings + 1] = n end
  return s
end

--- The curve (one line per point, in the order of the varied value) and the answer, as text.
function M.format(s)
  local pts = {}
  for i, p in ipairs(s.points) do pts[i] = p end
  table.sort(pts, function(a, b)
    local x, y = a[s.vary], b[s.vary]
    if x == nil or y == nil then return y == nil and x ~= nil end
    return x < y
  end)
  local out = { ("%10s  %12s  %12s  within %s"):format(s.vary, "IOPS", s.percentile .. " (ms)", s.target) }
  for _, p in ipairs(pts) do
    local v = p[s.vary] == nil and "unthrottled" or tostring(p[s.vary])
    out[#out + 1] = ("%10s  %12.0f  %12s  %s"):format(v, p.iops, p.lat_ns and ("%.4f"):format(p.lat_ns / 1e6) or "-",
      p.ok and "yes" or "no")
  end
  if s.answer then
    local a = s.answer
    out[#out + 1] = ("answer: %s: %.0f IOPS at %s %.4f ms"):format(
      a[s.vary] == nil and "unthrottled" or (s.vary .. "=" .. a[s.vary]), a.iops, s.percentile, a.lat_ns / 1e6)
  else
    out[#out + 1] = ("answer: none of the points kept %s"):format(s.target)
  end
  return table.concat(out, "\n") .. "\n"
end

function M.print(s, out)
  (out or io.stdout):write(M.format(s))
  for _, w in ipairs(s.warnings or {}) do io.stderr:write("warning: ", w, "\n") end
end

return M
