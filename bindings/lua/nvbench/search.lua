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
-- message names the option and the value) or on a failed run. The probes, the decisions,
-- the stop rules and the answer are the library's (nvb.search_new: libnvbench/core/search.c,
-- which Python's nvbench.search drives too); this module runs the probes it names.
local nvb = require "nvbench"
local m = require "nvbench.matrix"

local M = {}

--- "p99<=1ms" -> "p99", 1e6, false (strict); raises naming what is wrong. The library reads
--- the target (nvb_search_create), as it does for Python.
local function handle(t, vary)
  if type(t) ~= "string" then
    error(("nvbench.search: target must be a string like 'p99<=1ms', got %s"):format(tostring(t)), 3)
  end
  if t:find("\0", 1, true) then
    error(("nvbench.search: target '%s' contains a NUL byte"):format(m.printable(t)), 3)
  end
  if type(vary) ~= "string" or vary:find("\0", 1, true) then
    error(("nvbench.search: vary must be 'qd' or 'rate_iops', got '%s'"):format(m.printable(vary)), 3)
  end
  local h, err = nvb.search_new(t, vary)
  if not h then error("nvbench.search: " .. m.printable(err), 3) end
  return h
end

function M.parse_target(t)
  return handle(t, "qd"):target()
end

-- the figures of each direction of a run, as the library judges them
local function measure(h, r, key)
  for _, d in ipairs({ "read", "write" }) do
    local x = r[d] or {}
    local lat = x.lat_ns and x.lat_ns[key]
    h:measure(d, math.tointeger(x.ios) or 0, x.iops or 0, type(lat) == "number" and lat or nil,
      not (x.lat_pct_supported and x.lat_pct_supported[key] == false))
  end
end

function M.search(workload, opts)
  opts = opts or {}
  local target, vary = opts.target or "p99<=1ms", opts.vary or "qd"
  local h = handle(target, vary)
  local key, bound = h:target()
  for _, name in ipairs({ "start", "max_qd", "max_runs", "rel_tol", "direction" }) do
    local v = opts[name]
    if v ~= nil then
      if name ~= "direction" and type(v) ~= "number" then v = "'" .. m.printable(v) .. "'" end
      local ok, err = h:set(name, v)
      if not ok then error("nvbench.search: " .. m.printable(err), 2) end
    end
  end
  if workload[vary] ~= nil then
    error(("nvbench.search: the workload sets %s=%s, which the search varies: leave it out"):format(
      vary, tostring(workload[vary])), 2)
  end
  local ok0, first = pcall(h.next, h) -- start above max_qd is said before any run
  if not ok0 then error(first, 2) end
  local run = opts.run or nvb.run
  local s = { target = target, percentile = key, bound_ns = bound, vary = vary, points = {}, notes = {} }
  local v = first
  while v ~= nil do
    local value = not (vary == "rate_iops" and v == 0) and v or nil
    local w = {}
    for k, x in pairs(workload) do w[k] = x end
    w[vary] = value
    local r, err = run(w)
    if not r then error(("nvbench.search: %s=%s: %s"):format(vary, tostring(value), tostring(err)), 0) end
    measure(h, r, key)
    local c = h:points()
    local p = c[#c]
    p[vary], p.value, p.result = value, nil, r
    s.points[#s.points + 1] = p
    if p.lat_ns == nil then
      s.notes[#s.notes + 1] = ("%s=%s: no I/O completed, no latency to judge"):format(vary, tostring(value))
    elseif not p.supported then
      s.notes[#s.notes + 1] = ("%s=%s: %s rests on fewer than 10 samples beyond it"):format(vary, tostring(value), key)
    end
    v = h:next()
  end
  if h:cut() then
    s.notes[#s.notes + 1] = ("the search stopped after max_runs=%s runs: the answer is the best point found so far")
      :format(tostring(opts.max_runs))
  end
  local a = h:answer()
  s.answer = a and s.points[a]
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
