--- nvbench.history: the runs of an SQLite results store (docs/history.md), read from Lua.
--
--   local h = require "nvbench.history"
--   local runs = assert(h.read("/home/me/.local/share/nvbench/results.db",
--                              { host = "a", stack = "io_uring", ["label.ci"] = "1" }, { last = 5 }))
--   for _, r in ipairs(runs) do print(r.start_time, r.iops, r.labels.ci) end
--   local result = h.result(path, runs[1].id)   -- the run's whole result, decoded
--   local pts = h.points(path, runs[1].id)      -- its time-series points, every interval as measured
--
-- An SQLite store is read through the sqlite3 program (Debian: sqlite3) in read-only mode; a
-- PostgreSQL store (path postgresql://... or postgres://..., as --db takes it) through psql
-- (Debian: postgresql-client), its rows as one JSON array. The statements are fixed: the
-- filters are compared here, in Lua, never written into SQL. Rows are tables of the store's
-- columns (id, host, start_time, start_unix_ns, engine, stack, rw, bs, qd, jobs, iops,
-- bw_gib_s, lat_mean_ms, lat_p99_ms, cpu_us_per_io, kernel, ...) and labels, oldest first.
-- Failures return nil, message.
local nvb = require "nvbench"

local M = {}

M.sqlite3 = os.getenv("NVB_SQLITE3") or "sqlite3"
M.psql = os.getenv("NVB_PSQL") or "psql"

local function is_pg(path)
  return tostring(path):match("^postgres[a-z]*://") ~= nil
end

local function quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- rows of a fixed statement, as decoded JSON objects
local function select(path, sql)
  local cmd, prog
  if is_pg(path) then
    -- psql's own settings (~/.psqlrc) left out; the rows as one JSON array, order kept
    prog = M.psql
    cmd = ("%s -X -q -A -t -v ON_ERROR_STOP=1 -d %s -c %s"):format(prog, quote(path),
      quote("SELECT coalesce(json_agg(q), '[]'::json) FROM (" .. sql .. ") q"))
  else
    local f = io.open(path, "rb")
    if not f then return nil, ("store %s: no such file"):format(path) end
    f:close()
    prog = M.sqlite3
    cmd = ("%s -readonly -json %s %s"):format(prog, quote(path), quote(sql))
  end
  local errf = os.tmpname()
  local p = io.popen(("%s 2>%s"):format(cmd, quote(errf)))
  local out = p:read("a")
  local ok = p:close()
  local ef = io.open(errf, "rb")
  local err = ef and ef:read("a") or ""
  if ef then ef:close() end
  os.remove(errf)
  if not ok then
    return nil, ("store %s: %s"):format(path, (err:gsub("%s+$", "")) ~= "" and err:gsub("%s+$", "")
                                               or "cannot be read with " .. prog)
  end
  if out:match("^%s*$") then return {} end
  local rows, why = nvb.decode_json(out)
  if not rows then return nil, ("store %s: %s"):format(path, why) end
  return rows
end

M.SCHEMA_VERSION = 4

-- the store's schema version, one this reader knows | nil, message
local function version(path)
  local v, why = select(path, "SELECT value FROM nvbench_meta WHERE key = 'schema_version'")
  if not v then return nil, why end
  if #v ~= 1 then return nil, ("store %s: no schema version: not an nvbench store"):format(path) end
  local n = tonumber(v[1].value)
  if n > M.SCHEMA_VERSION then
    return nil, ("store %s: schema version %d is newer than this reader's (%d): upgrade nvbench"):format(
      path, n, M.SCHEMA_VERSION)
  end
  return n
end

--- read(path, filters, opts) -> rows | nil, message. filters: { column = value,
--- ["label.NAME"] = value }, each compared as text; opts.last: the newest N only.
function M.read(path, filters, opts)
  opts = opts or {}
  local v, why = version(path)
  if not v then return nil, why end
  local runs, e1 = select(path, "SELECT * FROM runs ORDER BY start_unix_ns, id")
  if not runs then return nil, e1 end
  local labels = {}
  if v >= 2 then
    -- in the order written (SQLite's rowid; PostgreSQL's table keeps no such number: ctid)
    local ls, e2 = select(path, "SELECT run_id, name, value FROM run_labels ORDER BY "
                                .. (is_pg(path) and "ctid" or "rowid"))
    if not ls then return nil, e2 end
    for _, l in ipairs(ls) do
      local t = labels[l.run_id] or {}
      t[l.name] = t[l.name] and (t[l.name] .. "," .. l.value) or l.value
      labels[l.run_id] = t
    end
  end
  local out = {}
  for _, r in ipairs(runs) do
    r.result = nil -- the whole JSON: M.result
    r.labels = labels[r.id] or {}
    local keep = true
    for k, want in pairs(filters or {}) do
      local have
      if type(k) == "string" and k:sub(1, 6) == "label." then have = r.labels[k:sub(7)] else have = r[k] end
      if have == nil or type(have) == "userdata" or tostring(have) ~= tostring(want) then
        -- integers read back as floats print as 4096.0 in Lua: compare numbers as numbers
        if not (type(have) == "number" and tonumber(want) == have) then keep = false break end
      end
    end
    if keep then out[#out + 1] = r end
  end
  if opts.last and #out > opts.last then
    local tail = {}
    for i = #out - opts.last + 1, #out do tail[#tail + 1] = out[i] end
    out = tail
  end
  return out
end

--- points(path, id) -> the run's time-series points as measured (schema 3; {} for a run saved
--- without them), each a table of the points columns (idx, t_s, read_iops, read_p99_ns, ...,
--- label: its step, cell or MPI rank, host, job_group), in the order measured | nil, message
function M.points(path, id)
  if math.type(id) ~= "integer" then return nil, "points: id must be an integer" end
  local v, why = version(path)
  if not v then return nil, why end
  if v < 3 then return {} end
  return select(path, ("SELECT s.run_id, s.label, s.host, p.* FROM points p JOIN point_streams s ON p.stream_id = s.id "
                       .. "WHERE s.run_id = %d ORDER BY s.id, p.idx"):format(id))
end

--- result(path, id) -> the run's whole result (decoded JSON) | nil, message
function M.result(path, id)
  if math.type(id) ~= "integer" then return nil, "result: id must be an integer" end
  local rows, why = select(path, ("SELECT result FROM runs WHERE id = %d"):format(id))
  if not rows then return nil, why end
  if #rows ~= 1 then return nil, ("store %s: no run %d"):format(path, id) end
  return nvb.decode_json(rows[1].result)
end

return M
