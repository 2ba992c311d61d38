--- nvbench.matrix: pure-Lua helpers over the `nvbench` C module.
--
--   local m = require "nvbench.matrix"
--   m.product{ engine = {"libaio", "io_uring"}, qd = {1, 8, 32}, bs = "4k" }  -- 6 workloads
--   local rows = m.seed{ targets = {"/dev/nvme0n1"}, runtime = "1s", qd = 32 }
--   m.print_seed(rows)
--
-- Everything here is built on nvb.run(); nothing needs the C module's
-- internals. See docs/lua.md.
local nvb = require "nvbench"

local M = {}

-- The published matrix (docs/analysis.md): four workloads, each read and
-- write, in the published order: the library's table (nvb_seed_cell), the
-- one the C example and Python read. Each cell: key ("rand4k_read"),
-- workload ("rand4k"), op, rw, bs, label ("Random 4K read").
M.cells = nvb.seed_cells()

-- The metric rows of the seed layout, with the two the articles had to infer.
-- kind: how the figure is printed (M.format_value).
M.metrics = {
  { key = "gib_s",     label = "Bandwidth (GiB/s)",    kind = "figure" },
  { key = "iops",      label = "IOPS",                 kind = "count" },
  { key = "lat_ms",    label = "Average Latency (ms)", kind = "figure" },
  { key = "cpu_pct",   label = "Total CPU Usage (%)",  kind = "pct" },
  -- the seed's Total CPU Usage is the whole machine's: nvbench's own share
  -- (every thread of the process) and everything else that ran meanwhile
  { key = "own_pct",    label = "of which nvbench (%)", kind = "pct" },
  { key = "others_pct", label = "other processes (%)",  kind = "pct" },
  { key = "us_per_io", label = "CPU per I/O (us)",     kind = "figure" },
  { key = "iops_core", label = "IOPS per core",        kind = "count" },
}

------------------------------------------------------------------ values

--- true when v is a non-empty sequence {v1, v2, ...} and nothing else.
function M.is_list(v)
  if type(v) ~= "table" or getmetatable(v) ~= nil then return false end
  local n = #v
  if n == 0 then return false end
  for k in pairs(v) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

--- "256M" -> 268435456: the library's reading of a size (the workload key
--- `size`, nvb.key_parse, as Python's nvbench._scratch.parse_size reads it),
--- so no second parser of sizes lives here; nil, message, errno on bad input
--- (the message names the key and the value).
function M.size_bytes(s)
  if math.type(s) == "integer" then return s end
  return nvb.key_parse("size", tostring(s))
end

--- "500us" -> 500000 (nanoseconds, an integer): the library's reading of a
--- duration (the workload key `key`, default "runtime", nvb.key_parse); a bare
--- number is seconds; nil, message, errno on bad input.
function M.duration_ns(s, key)
  return nvb.key_parse(key or "runtime", tostring(s))
end

-- "-1234567.5" -> "-1,234,567.5": thousands separators in the integer part.
local function group(s)
  local sign, digits, rest = s:match("^(-?)(%d+)(.*)$")
  if not digits then return s end
  digits = digits:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
  return sign .. digits .. rest
end

--- 1234567.8 -> "1,234,568"
function M.commas(n)
  if n == nil or n ~= n then return "-" end
  return group(string.format("%.0f", n))
end

--- One figure of the seed table, in the one number format of every front
--- door (docs/analysis.md, "The text layout"; Python's
--- nvbench.metrics.format_value, the C example's format_value):
--- kind "count" (IOPS) with thousands separators and no decimals, "pct"
--- with 2 decimals, "figure" with 3 decimals, or 3 significant digits below
--- 0.01, or 1 decimal and separators from 1000 on; "-" when unknown.
function M.format_value(kind, v)
  if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then return "-" end
  local a = math.abs(v)
  if a >= 1e15 then return string.format("%.3g", v) end
  if kind == "count" then return M.commas(v) end
  if kind == "pct" then return string.format("%.2f", v) end
  if a >= 0.01 or v == 0 then
    return a < 1000 and string.format("%.3f", v) or group(string.format("%.1f", v))
  end
  local decimals = math.min(12, 2 - math.floor(math.log(a, 10)))
  return string.format("%." .. decimals .. "f", v)
end

------------------------------------------------------------------ product

-- Text from results or the caller (an engine, a stack, a path) with its
-- control characters shown escaped, never sent to the terminal.
local function printable(v)
  return (tostring(v):gsub("%c", function(c) return string.format("\\x%02x", c:byte()) end))
end
M.printable = printable

-- Keys that hold a list without being an axis: `targets = {"/a", "/b"}` is
-- one workload on two targets; a list of lists makes it an axis.
local not_axes = { targets = true }

local function is_axis(key, v)
  if not M.is_list(v) then return false end
  if not_axes[key] then return type(v[1]) == "table" end
  return true
end

--- The axes of a spec: its keys whose value is a list, in `order` first,
--- then the others sorted by name.
function M.axes(spec, order)
  local seen, out = {}, {}
  for _, k in ipairs(order or {}) do
    if is_axis(k, spec[k]) and not seen[k] then seen[k] = true; out[#out + 1] = k end
  end
  local rest = {}
  for k, v in pairs(spec) do
    if type(k) == "string" and not seen[k] and is_axis(k, v) then rest[#rest + 1] = k end
  end
  table.sort(rest)
  for _, k in ipairs(rest) do out[#out + 1] = k end
  return out
end

--- Cartesian product of a spec: every key whose value is a list is an axis
--- (the first axis varies slowest: the library's plan, nvb.matrix_plan); other
--- keys are copied into every point. opts.order lists axes to put first.
--- Returns a list of nvb.run specs.
function M.product(spec, opts)
  opts = opts or {}
  local axes, list = M.axes(spec, opts.order), {}
  for i, k in ipairs(axes) do list[i] = { k, spec[k] } end
  local plan, err = nvb.matrix_plan(list)
  if not plan then error("nvbench.matrix: " .. printable(err), 2) end
  local points = {}
  for _, run in ipairs(plan.runs) do
    local p = {}
    for k, v in pairs(spec) do p[k] = v end
    for _, k in ipairs(axes) do p[k] = spec[k][run[k]] end
    points[#points + 1] = p
  end
  return points
end

--- Runs every point of a spec (or a list of specs from M.product) and returns
--- rows { params, result, error, errno }. opts.on_row(row, i, n) is called
--- after each run; returning false from it stops the sweep. A run cancelled
--- by its progress callback also stops it (rows.cancelled = true).
function M.run(spec, opts)
  opts = opts or {}
  local points = M.is_list(spec) and spec or M.product(spec, opts)
  local rows = {}
  for i, p in ipairs(points) do
    local r, err, errno = nvb.run(p)
    local row = { params = p, result = r, error = err, errno = errno }
    rows[#rows + 1] = row
    local go_on = true
    if opts.on_row then go_on = opts.on_row(row, i, #points) ~= false end
    if r and r.cancelled then rows.cancelled = true; break end
    if not go_on then break end
  end
  return rows
end

------------------------------------------------------------------ engines

--- Names of the engines that work here, in the library's order; the null
--- engine (no I/O at all) only when with_null is true.
function M.available_engines(with_null)
  local list = {}
  for name, info in pairs(nvb.engines()) do
    if info.available and (with_null or name ~= "null") then list[#list + 1] = name end
  end
  local all = nvb.engines()
  table.sort(list, function(a, b) return all[a].index < all[b].index end)
  return list
end

------------------------------------------------------------------ scratch


local Scratch = {}
Scratch.__index = Scratch
Scratch.__close = function(s) s:remove() end
Scratch.__tostring = function(s) return "nvbench scratch file " .. s.path end

function Scratch:remove()
  if self.path and not self.removed then
    os.remove(self.path)
    self.removed = true
  end
end

--- A scratch file of `size` bytes of incompressible data (so reads hit real
--- blocks), in `dir` (default: os.tmpname()'s directory, /tmp). Returns an
--- object with .path that removes the file on :remove() or when a
--- `local s <close>` goes out of scope; nil, message on failure.
function M.scratch(size, dir)
  local bytes = M.size_bytes(size or "256M")
  if not bytes or bytes <= 0 then return nil, "invalid scratch size '" .. tostring(size) .. "'" end
  if dir and tostring(dir):find("\0", 1, true) then
    -- io.open would cut the path at the NUL and write somewhere else
    return nil, "nvbench.matrix: the scratch directory ('" .. printable(dir) .. "') contains a NUL byte"
  end
  local path
  if dir then
    path = string.format("%s/nvbench-scratch.%d.%06d", dir, os.time(), math.random(0, 999999))
  else
    path = os.tmpname() -- created with mkstemp: the name is ours
  end
  local f, err = io.open(path, "wb")
  if not f then return nil, err end
  local s = setmetatable({ path = path, size = bytes }, Scratch)
  -- 1 MiB of xorshift output; the first 8 bytes of each MiB carry its
  -- offset so no two blocks are alike.
  local words, x = {}, 0x243f6a8885a308d3
  for i = 1, 131072 do
    x = x ~ (x << 13); x = x ~ (x >> 7); x = x ~ (x << 17)
    words[i] = string.pack("<i8", x)
  end
  local chunk = table.concat(words)
  local off = 0
  while off < bytes do
    local n = math.min(#chunk, bytes - off)
    local data = n >= 8 and string.pack("<i8", off) .. chunk:sub(9, n) or chunk:sub(1, n)
    local ok, werr = f:write(data)
    if not ok then f:close(); s:remove(); return nil, werr end
    off = off + n
  end
  local ok, cerr = f:close()
  if not ok then s:remove(); return nil, cerr end
  return s
end

------------------------------------------------------------------ percentiles

-- The library's rule (nvb.pct: libnvbench/core/hist.c, docs/json-schema.md):
-- percentile p of n latencies is the r-th smallest, r = ceil(n p / 100); it
-- is supported when r >= 10 and n - r >= 10. A result carries the verdicts
-- in lat_pct_supported.

--- true when percentile p (0..100) of n latencies rests on enough samples.
M.pct_supported = nvb.pct.supported

--- The fewest latencies for which percentile p is supported (nil for p0, p100).
M.pct_min_ios = nvb.pct.min_ios

--- Percentile `key` ("p99", "p99.9") of a result's direction table in ms, or
--- nil and "n/a (n<N)" when the run had too few I/Os for it.
function M.pct_ms(d, key)
  local ok = d.lat_pct_supported
  if ok and ok[key] == false then
    return nil, "n/a (n<" .. M.commas(M.pct_min_ios(tonumber(key:sub(2)))) .. ")"
  end
  return d.lat_ns[key] / 1e6
end

------------------------------------------------------------------ seed matrix

--- "read", "write", "trim" or "mixed" for an rw mode (nvbench's or fio's
--- spelling): the library's rule (nvb.rw_op, as Python's nvbench.labels.op_of_rw);
--- nil for anything else.
function M.op_of_rw(rw)
  return rw ~= nil and nvb.rw_op(tostring(rw)) or nil
end

-- The figures of a mixed workload are the library's total: both directions
-- summed, the mean latency of all their I/Os (total.lat_mean_ns, absent
-- without latencies), as Python's nvbench.metrics.figures reads them; no
-- percentile of the union can be had from the two summaries.
local function mixed(r)
  local t = r.total
  return { bw_gib_s = t.bw_gib_s, iops = t.iops, lat_ns = { mean = t.lat_mean_ns or 0 / 0 } }, "n/a (mixed)"
end

--- The headline figures of a result for one direction ("read", "write",
--- "trim", or "mixed": both summed; by default the op of the workload's rw,
--- M.op_of_rw). p99_ms is nil when the run had too few I/Os for a p99, or
--- is mixed (p99_na then says so).
function M.figures(r, op)
  if not r then return nil end
  op = op or M.op_of_rw(r.workload and r.workload.rw) or "read"
  local d, cpu, p99_ms, p99_na = r[op], r.cpu, nil, nil
  if op == "mixed" then d, p99_na = mixed(r) else p99_ms, p99_na = M.pct_ms(d, "p99") end
  return {
    gib_s = d.bw_gib_s,
    iops = d.iops,
    lat_ms = d.lat_ns.mean / 1e6,
    p99_ms = p99_ms,
    p99_na = p99_na,
    cpu_pct = cpu.system_pct,
    -- the library's share (never above system_pct); computed for results without it (fio's)
    own_pct = cpu.nvbench_pct or ((cpu.ncpus and cpu.ncpus > 0 and cpu.process_cores) and 100 * cpu.process_cores / cpu.ncpus or nil),
    others_pct = cpu.background_pct,
    us_per_io = cpu.cpu_us_per_io,
    iops_core = cpu.iops_per_core,
    process_cores = cpu.process_cores,
  }
end

-- The library's plan of the seed cells named by list (keys "rand4k_read", workloads
-- "rand4k" for both directions, or labels; nil: all eight), in the published order, on
-- each engine: { { cell = cell, engine = name }, ... } in the order to run them.
local function cell_plan(list, engines)
  local names = {}
  for i, c in ipairs(list or {}) do names[i] = type(c) == "table" and c.key or tostring(c) end
  local plan, err = nvb.matrix_plan(engines and { { "engine", engines } } or {}, { cells = table.concat(names, ",") })
  if not plan then error("nvbench.matrix: " .. printable(err), 3) end
  local by, out = {}, {}
  for _, c in ipairs(M.cells) do by[c.key] = c end
  for i, run in ipairs(plan.runs) do out[i] = { cell = by[run.cell_key], engine = engines and engines[run.engine] } end
  return out
end

--- The keys seed() adds to its write cells: precondition = N, and ss = ...
--- with steady_state's options (ss.stop on unless it says otherwise): the
--- library's mapping and checks (nvb.seed_write_keys, as Python's and C's),
--- values as text. Raises an error naming a bad option.
function M.write_cell_keys(precondition, steady_state)
  local pairs_ = {}
  if precondition ~= nil then pairs_[1] = { "precondition", tostring(precondition) } end
  local spec = type(steady_state) == "table" and steady_state or { metric = steady_state }
  local names = {}
  for k in pairs(spec) do names[#names + 1] = tostring(k) end
  table.sort(names) -- one order, whatever the table's
  for _, k in ipairs(names) do pairs_[#pairs_ + 1] = { k, tostring(spec[k]) } end
  local keys, err = nvb.seed_write_keys(pairs_)
  if not keys then error("nvbench.matrix: " .. printable(err), 3) end
  return keys
end

--- Runs the published matrix: every cell x every engine.
---   targets  string or list; default a scratch file of `size` (256M) that is removed afterwards
---   engines  list; default every available engine but null
---   runtime, qd, jobs  default "1s", 32, 1
---   cells    list of cell keys ("rand4k_read", ...) or labels; default all 8
---   workload table of further workload keys (e.g. { ["io_uring.sqpoll"] = 1 })
---   precondition  write cells: N sequential write passes over each target first,
---            not counted in their figures (docs/steady-state.md)
---   steady_state  write cells: "iops", "bw" or "lat" to end each when steady
---            (runtime is then the cap), or { metric =, window =, excursion =,
---            slope =, stop =, runtime = } (runtime: the write cells' own cap);
---            rounds are time-series intervals (workload = { interval = "1m" })
---   progress passed to every nvb.run
---   on_cell  function(row, i, n) called after each run; return false to stop
--- Returns rows { cell, engine, result, error, errno, figures } with
--- rows.engines and rows.cells set for print_seed; nil, message when the
--- scratch file cannot be made.
function M.seed(opts)
  opts = opts or {}
  local engines = opts.engines or M.available_engines(false)
  local plan = cell_plan(opts.cells, engines)
  local cells, seen = {}, {}
  for _, x in ipairs(plan) do
    if not seen[x.cell] then seen[x.cell] = true; cells[#cells + 1] = x.cell end
  end
  local write_keys = M.write_cell_keys(opts.precondition, opts.steady_state)
  local targets, scratch = opts.targets, nil
  if targets == nil then
    local err
    scratch, err = M.scratch(opts.size or "256M", opts.dir)
    if not scratch then return nil, err end
    targets = { scratch.path }
  end
  local rows = { engines = engines, cells = cells }
  local n, i = #plan, 0
  local function spec_of(cell, engine)
    local spec = {}
    for k, v in pairs(opts.workload or {}) do spec[k] = v end
    spec.targets, spec.engine, spec.rw, spec.bs = targets, engine, cell.rw, cell.bs
    spec.runtime = opts.runtime or "1s"
    spec.qd = opts.qd or 32
    spec.jobs = opts.jobs or 1
    return spec
  end
  -- Every cell is checked before the first one runs: a bad runtime or an
  -- engine that does not work here is said at once, not after an hour.
  for _, x in ipairs(plan) do
    local w, msg = nvb.workload(spec_of(x.cell, x.engine))
    local okv
    if w then okv, msg = w:validate(); w:close() end
    if not w or not okv then
      if scratch then scratch:remove() end
      error(string.format("nvbench.matrix: %s on engine %s: %s", x.cell.label, x.engine, tostring(msg)), 2)
    end
  end
  local ok, err = pcall(function()
    for _, x in ipairs(plan) do
      local cell, engine = x.cell, x.engine
      local spec = spec_of(cell, engine)
      spec.progress = opts.progress
      if cell.op == "write" then
        for k, v in pairs(write_keys) do spec[k] = v end
      end
      local r, msg, errno = nvb.run(spec)
      local row = { cell = cell, engine = engine, result = r, error = msg, errno = errno }
      if r and not r.cancelled then row.figures = M.figures(r, cell.op) end
      rows[#rows + 1] = row
      i = i + 1
      local go_on = true
      if opts.on_cell then go_on = opts.on_cell(row, i, n) ~= false end
      if r and r.cancelled then rows.cancelled = true; return end
      if not go_on then return end
    end
  end)
  if scratch then scratch:remove() end
  if not ok then error(err, 0) end
  return rows
end

------------------------------------------------------------------ warnings

--- The warnings of the rows' results (rows of M.seed or M.run), one line
--- each: texts that differ only in their figures (the machine's load in each
--- run) become one line with the range of each figure, and with several runs
--- the runs concerned are counted. A script prints them where it prints
--- the table (M.print_warnings).
function M.warnings(rows)
  local order, groups, nres = {}, {}, 0
  for _, row in ipairs(rows) do
    local r = row.result
    if r then
      nres = nres + 1
      local where = row.cell and (row.engine .. " " .. row.cell.key) or (r.engine or "")
      for _, w in ipairs(r.warnings or {}) do
        local key = w:gsub("%d+%.?%d*", "#")
        if not groups[key] then groups[key] = { texts = {}, where = {} }; order[#order + 1] = key end
        local g = groups[key]
        g.texts[#g.texts + 1] = w
        g.where[#g.where + 1] = where
      end
    end
  end
  local lines = {}
  for _, key in ipairs(order) do
    local g = groups[key]
    local text, same = g.texts[1], true
    for _, t in ipairs(g.texts) do if t ~= text then same = false end end
    if not same then
      local lo, hi = {}, {}
      for _, t in ipairs(g.texts) do
        local k = 0
        for x in t:gmatch("%d+%.?%d*") do
          k = k + 1
          local v = tonumber(x)
          lo[k] = lo[k] and math.min(lo[k], v) or v
          hi[k] = hi[k] and math.max(hi[k], v) or v
        end
      end
      local k = 0
      text = key:gsub("#", function()
        k = k + 1
        local a, b = string.format("%g", lo[k]), string.format("%g", hi[k])
        return a == b and a or (a .. "-" .. b)
      end)
    end
    if nres > 1 then
      local shown = {}
      for j = 1, math.min(3, #g.where) do shown[j] = g.where[j] end
      text = string.format("%s (%d of %d runs: %s%s)", text, #g.where, nres, table.concat(shown, ", "),
        #g.where > 3 and ", ..." or "")
    end
    lines[#lines + 1] = text
  end
  return lines
end

--- M.warnings(rows) to `out` (default io.stderr), "warning: " before each.
function M.print_warnings(rows, out)
  out = out or io.stderr
  io.stdout:flush() -- after the table, not inside it, when both go to one terminal or file
  for _, line in ipairs(M.warnings(rows)) do out:write("warning: ", line, "\n") end
end

------------------------------------------------------------------ printing

--- A plain table: header and rows are lists of strings; numbers are
--- right-aligned, text left-aligned. Returns the text.
function M.format_table(header, rows)
  local width = {}
  for c, h in ipairs(header) do width[c] = #h end
  for _, row in ipairs(rows) do
    for c, v in ipairs(row) do width[c] = math.max(width[c] or 0, #tostring(v)) end
  end
  local function line(cells, is_header)
    local out = {}
    for c = 1, #header do
      local v = tostring(cells[c] == nil and "" or cells[c])
      local numeric = not is_header and c > 1 and v:match("^[-%d.,x%%]+$")
      out[c] = string.format(numeric and "%" .. width[c] .. "s" or "%-" .. width[c] .. "s", v)
    end
    return "| " .. table.concat(out, " | ") .. " |"
  end
  local sep = {}
  for c = 1, #header do sep[c] = string.rep("-", width[c] + 2) end
  local lines = { line(header, true), "|" .. table.concat(sep, "|") .. "|" }
  for _, row in ipairs(rows) do lines[#lines + 1] = line(row) end
  return table.concat(lines, "\n") .. "\n"
end

--- The seed layout (docs/analysis.md, "The text layout"; the same text as
--- Python's ResultSet.table() and the C example): one block per cell, its
--- title heading the metric labels, a column per engine that has a row in
--- that block, two spaces between columns, numbers right-aligned, column
--- widths the same in every block, a blank line between blocks. A run that
--- failed shows "-" (its error is listed under the block).
-- A column's heading: the engine, and "(qd N)" when every run of it ran at
-- a queue depth N other than the one asked for (a synchronous engine: 1 per
-- job), as the Python and C tables head it.
local function heading(rows, e)
  local ran, mixed
  for _, row in ipairs(rows) do
    local r = row.result
    if row.engine == e and r and not row.error and type(r.workload) == "table" then
      local qd, qde = r.workload.qd, r.qd_effective
      local v = (qde and qd and qde ~= qd and qde > 0) and qde or false
      if ran == nil then ran = v elseif ran ~= v then mixed = true end
    end
  end
  return (not mixed and ran) and string.format("%s (qd %d)", e, ran) or e
end

function M.format_seed(rows)
  local engines = rows.engines or {}
  local cells = rows.cells or M.cells
  local by, heads = {}, {}
  for _, row in ipairs(rows) do by[row.cell.key .. "\0" .. row.engine] = row end
  for _, e in ipairs(engines) do heads[e] = heading(rows, e) end
  local blocks, width = {}, { [0] = 0 }
  for _, cell in ipairs(cells) do
    local cols, body, notes = {}, {}, {}
    for _, e in ipairs(engines) do
      local row = by[cell.key .. "\0" .. e]
      if row then
        cols[#cols + 1] = e
        if row.error then notes[#notes + 1] = string.format("  %s: %s", e, row.error) end
        if row.result and row.result.cancelled then notes[#notes + 1] = "  " .. e .. ": cancelled" end
      end
    end
    if #cols > 0 then
      local head = { printable(cell.label) }
      for _, e in ipairs(cols) do head[#head + 1] = printable(heads[e]) end
      body[1] = head
      for _, m in ipairs(M.metrics) do
        local line = { m.label }
        for _, e in ipairs(cols) do
          local f = by[cell.key .. "\0" .. e].figures
          line[#line + 1] = f and M.format_value(m.kind, f[m.key]) or "-"
        end
        body[#body + 1] = line
      end
      for _, line in ipairs(body) do
        width[0] = math.max(width[0], #line[1])
        for c = 2, #line do width[head[c]] = math.max(width[head[c]] or 0, #line[c]) end
      end
      blocks[#blocks + 1] = { body = body, notes = notes }
    end
  end
  local out = {}
  for i, b in ipairs(blocks) do
    if i > 1 then out[#out + 1] = "" end
    local head = b.body[1]
    for r, line in ipairs(b.body) do
      local cells_out = { line[1] .. string.rep(" ", width[0] - #line[1]) }
      for c = 2, #line do cells_out[c] = string.rep(" ", width[head[c]] - #line[c]) .. line[c] end
      out[#out + 1] = (table.concat(cells_out, "  "):gsub("%s+$", ""))
      if r == 1 then
        local dashes = { string.rep("-", width[0]) }
        for c = 2, #head do dashes[c] = string.rep("-", width[head[c]]) end
        out[#out + 1] = table.concat(dashes, "  ")
      end
    end
    for _, note in ipairs(b.notes) do out[#out + 1] = note end
  end
  return #out > 0 and table.concat(out, "\n") .. "\n" or ""
end

--- Rows for format_seed from saved results: a list of result tables (each
--- as the library writes it, e.g. from nvb.decode_json of a JSON array; a
--- "meta.stack" label names its column, else its engine). Only the eight
--- seed cells are placed; two results for one cell and column are refused
--- (the Python table averages repeats). Returns rows, or nil and a message.
function M.rows_from_results(results)
  local rows, seen = { engines = {}, cells = M.cells }, {}
  for i, r in ipairs(results) do
    -- decoded JSON (a table) or a result object of nvb.run (userdata)
    local wl = (type(r) == "table" or type(r) == "userdata") and r.workload
    if type(wl) ~= "table" then return nil, string.format("result %d has no workload", i) end
    local cell
    for _, c in ipairs(M.cells) do
      if c.rw == wl.rw and M.size_bytes(c.bs) == wl.bs then cell = c end
    end
    if cell then
      local col = tostring(type(r.meta) == "table" and r.meta.stack or r.engine)
      local key = cell.key .. "\0" .. col
      if seen[key] then
        return nil, string.format("results %d and %d are both %s on %s: one run per cell and column here",
          seen[key], i, cell.label, printable(col))
      end
      seen[key] = i
      if not seen["\0" .. col] then
        seen["\0" .. col] = true
        rows.engines[#rows.engines + 1] = col
      end
      rows[#rows + 1] = { cell = cell, engine = col, result = r, figures = M.figures(r, cell.op) }
    end
  end
  return rows
end

--- Writes format_seed(rows) to `out` (default io.stdout).
function M.print_seed(rows, out)
  (out or io.stdout):write(M.format_seed(rows))
end

return M
