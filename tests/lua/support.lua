-- Shared helpers for the busted specs in this directory (not a spec itself).
local m = require "nvbench.matrix"

local S = {}

S.tmpdir = os.getenv("NVB_TEST_TMP")
if not S.tmpdir or S.tmpdir == "" then S.tmpdir = "/tmp" end
os.execute("mkdir -p '" .. S.tmpdir .. "'")
S.lua = os.getenv("NVB_LUA") or "lua5.4"
S.src = os.getenv("NVB_SOURCE_DIR") or "../.."

--- A scratch data file of `size` in the test temporary directory.
function S.scratch(size)
  local s = assert(m.scratch(size or "4M", S.tmpdir))
  return s
end

function S.read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local data = f:read("a")
  f:close()
  return data
end

function S.exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end

local function shell_quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
S.shell_quote = shell_quote

--- Runs `lua5.4 script args...` (the environment, LUA_PATH/LUA_CPATH
--- included, is inherited) and returns output (stdout+stderr), exit code.
function S.run_lua(script, args)
  local cmd = { shell_quote(S.lua), shell_quote(script) }
  for _, a in ipairs(args or {}) do cmd[#cmd + 1] = shell_quote(a) end
  local p = assert(io.popen(table.concat(cmd, " ") .. " 2>&1", "r"))
  local out = p:read("a")
  local _, how, code = p:close()
  return out, how == "exit" and code or 128 + code
end

--- Entries of a directory (names), via ls: the tests need no lfs.
function S.list_dir(dir)
  local p = assert(io.popen("ls -A " .. shell_quote(dir), "r"))
  local out = {}
  for line in p:lines() do out[#out + 1] = line end
  p:close()
  return out
end

return S
