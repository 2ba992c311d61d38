-- The three scripted scenarios in examples/lua, run as a user would run
-- them (a lua5.4 subprocess) with short runtimes.
local m = require "nvbench.matrix"
local S = require "support"

local examples = S.src .. "/examples/lua/"

describe("scenario", function()
  local data

  setup(function() data = S.scratch("16M") end)
  teardown(function() data:remove() end)

  -- The scratch file an example made by itself is named on stderr and
  -- must be gone when it exits.
  local function assert_scratch_removed(out)
    local path = out:match("target (%S+)")
    assert.is_truthy(path, out)
    assert.are_not.equal(data.path, path)
    assert.is_false(S.exists(path), path .. " left behind")
  end

  it("seed_matrix.lua prints the published layout for every available engine", function()
    local out, code = S.run_lua(examples .. "seed_matrix.lua", { "--runtime", "50ms", "--qd", "8", data.path })
    assert.are.equal(0, code, out)
    local engines = m.available_engines()
    for _, cell in ipairs(m.cells) do assert.matches("\n" .. cell.label .. "  ", out, 1, true) end
    for _, metric in ipairs(m.metrics) do
      local _, n = ("\n" .. out):gsub("\n" .. metric.label:gsub("%p", "%%%0") .. "  ", "")
      assert.are.equal(8, n, metric.label)
    end
    local header = out:match("\n(Random 4K read [^\n]*)\n")
    for _, e in ipairs(engines) do assert.matches(" " .. e, header, 1, true) end
    assert.matches(#engines * 8 .. "]", out, 1, true)
  end)

  it("seed_matrix.lua lays out and removes its own scratch file", function()
    local out, code = S.run_lua(examples .. "seed_matrix.lua",
      { "--runtime", "30ms", "--size", "8M", "--engines", "psync", "--cells", "rand4k_read,seq128k_write" })
    assert.are.equal(0, code, out)
    assert.matches("Random 4K read", out, 1, true)
    assert.matches("Sequential 128K write", out, 1, true)
    assert.is_nil(out:find("Random 64K read", 1, true))
    assert_scratch_removed(out)
  end)

  it("qd_sweep.lua doubles qd until p99 breaks the target and reports the best IOPS", function()
    local out, code = S.run_lua(examples .. "qd_sweep.lua",
      { "--runtime", "50ms", "--max-qd", "8", "--p99", "10s", data.path })
    assert.are.equal(0, code, out)
    assert.matches("| Engine ", out, 1, true)
    for _, e in ipairs(m.available_engines()) do assert.matches("\n| " .. e .. " ", out, 1, true) end
    -- A 10 s target is never exceeded: asynchronous engines reach qd 8.
    for _, e in ipairs(m.available_engines()) do
      if e ~= "psync" then
        assert.matches(e .. "%s+qd%s+8 ", out)
        assert.matches("| " .. e .. "%s+|%s+%d+ |[^\n]*reached qd 8", out)
      end
    end
    if out:find("| psync ", 1, true) then assert.matches("synchronous engine", out, 1, true) end
  end)

  it("qd_sweep.lua stops an engine at the first qd whose p99 exceeds the target", function()
    local out, code = S.run_lua(examples .. "qd_sweep.lua",
      { "--runtime", "30ms", "--engines", "psync", "--p99", "1ns", "--size", "8M" })
    assert.are.equal(0, code, out)
    -- stopped at qd 1: by its p99, or, when the machine was so busy that no
    -- I/O completed in the 30 ms, because nothing was measured
    assert.matches("at qd 1%s", out)
    assert.matches("| psync%s+|%s+%-", out)
    assert_scratch_removed(out)
  end)

  it("engines_compare.lua puts CPU microseconds per I/O side by side", function()
    local out, code = S.run_lua(examples .. "engines_compare.lua", { "--runtime", "50ms", "--null", data.path })
    assert.are.equal(0, code, out)
    local header = out:match("\n(| Metric[^\n]*)")
    assert.is_truthy(header, out)
    for _, e in ipairs(m.available_engines(true)) do assert.matches("| " .. e .. " ", header, 1, true) end
    local row = out:match("\n(| CPU per I/O %(us%)[^\n]*)")
    assert.is_truthy(row, out)
    local values = {}
    for v in row:gmatch("|%s+([%d.]+)%s+") do values[#values + 1] = tonumber(v) end
    assert.are.equal(#m.available_engines(true), #values, row)
    -- the reference is named, is the cheapest engine that did I/O, and no engine that did
    -- I/O is cheaper than it; null (no I/O) is not set against it
    local names = {}
    for n in header:gmatch("|%s+([%w_]+)%s+") do names[#names + 1] = n end
    table.remove(names, 1) -- "Metric"
    local ref = out:match("| CPU per I/O vs ([%w_]+) %(cheapest with I/O%)")
    assert.is_truthy(ref, out)
    local cheapest
    for k, n in ipairs(names) do
      if n ~= "null" and (not cheapest or values[k] < values[cheapest]) then cheapest = k end
    end
    assert.are.equal(names[cheapest], ref, out)
    local vs = out:match("\n(| CPU per I/O vs [^\n]*)")
    local cells = {}
    for c in vs:gmatch("|%s*([^|]-)%s*%f[|]") do cells[#cells + 1] = c end
    table.remove(cells, 1)
    for k, n in ipairs(names) do
      if n == "null" then
        assert.are.equal("- (no I/O)", cells[k], vs)
      else
        local x = tonumber(cells[k]:match("^([%d.]+)x$"))
        assert.is_truthy(x and x >= 1.0, vs)
        if n == ref then assert.are.equal("1.00x", cells[k]) end
      end
    end
  end)

  it("engines_compare.lua makes its own scratch file and removes it", function()
    local out, code = S.run_lua(examples .. "engines_compare.lua",
      { "--runtime", "30ms", "--size", "8M", "--rw", "randwrite", "--engines", "psync" })
    assert.are.equal(0, code, out)
    assert.matches("randwrite 4k", out, 1, true)
    assert_scratch_removed(out)
  end)

  it("seed_matrix.lua checks every cell before the first run", function()
    local out, code = S.run_lua(examples .. "seed_matrix.lua", { "--runtime", "1x", "--size", "8M" })
    assert.are.equal(2, code, out)
    assert.matches("'1x'", out, 1, true)
    assert.matches("runtime", out, 1, true)
    assert.is_nil(out:find("[ 1/", 1, true), out)
    out, code = S.run_lua(examples .. "seed_matrix.lua", { "--engines", "iouring", "--size", "8M" })
    assert.are.equal(2, code, out)
    assert.matches("'iouring'", out, 1, true)
    assert.is_nil(out:find("[ 1/", 1, true), out)
    -- only the engines asked for are named
    assert.is_nil(out:find("skipped", 1, true), out)
  end)

  it("seed_matrix.lua prints each warning once, after the table", function()
    local out, code = S.run_lua(examples .. "seed_matrix.lua",
      { "--runtime", "30ms", "--size", "8M", "--qd", "8", "--engines", "psync", "--cells", "rand4k_read,rand4k_write" })
    assert.are.equal(0, code, out)
    local _, n = out:gsub("warning: engine psync is synchronous", "")
    assert.are.equal(1, n, out)
    assert.matches("(2 of 2 runs", out, 1, true)
  end)

  it("examples answer --help with status 0 and the usage", function()
    for _, ex in ipairs { "seed_matrix.lua", "qd_sweep.lua", "engines_compare.lua" } do
      local out, code = S.run_lua(examples .. ex, { "--help" })
      assert.are.equal(0, code, ex .. ": " .. out)
      assert.matches("usage:", out, 1, true)
    end
  end)

  it("examples refuse bad options with status 2 and a usage line", function()
    for _, ex in ipairs { "seed_matrix.lua", "qd_sweep.lua", "engines_compare.lua" } do
      local out, code = S.run_lua(examples .. ex, { "--bogus" })
      assert.are.equal(2, code, ex .. ": " .. out)
      assert.matches("usage:", out, 1, true)
    end
  end)

  it("report a refused workload with a nonzero status", function()
    local out, code = S.run_lua(examples .. "engines_compare.lua",
      { "--runtime", "30ms", "--engines", "psync", "--bs", "1000", data.path })
    assert.are_not.equal(0, code)
    assert.matches("bs", out, 1, true)
  end)
end)
