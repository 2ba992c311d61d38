-- Handles over time: cancellation from the progress callback, errors and
-- yields inside it, `local x <close>`, and garbage collection while a run
-- is under way.
local nvb = require "nvbench"
local S = require "support"

describe("run lifecycle", function()
  local data

  setup(function() data = S.scratch("4M") end)
  teardown(function() data:remove() end)

  local function spec(extra)
    local t = { targets = { data.path }, engine = "psync", rw = "randread", interval = "20ms", runtime = "30s" }
    for k, v in pairs(extra or {}) do t[k] = v end
    return t
  end

  describe("progress callback", function()
    it("receives snapshots with the live figures", function()
      local snaps = {}
      local r = assert(nvb.run(spec { runtime = "200ms", interval = "50ms",
                                      progress = function(s) snaps[#snaps + 1] = s end }))
      assert.is_false(r.cancelled)
      assert.is_true(#snaps >= 2, "got " .. #snaps .. " snapshots")
      local last = 0
      for _, s in ipairs(snaps) do
        for _, k in ipairs { "elapsed_s", "total_s", "done_fraction", "iops_read", "iops_write", "iops", "bw_read",
                             "bw_write", "lat_mean_ns_read", "lat_mean_ns_write" } do
          assert.is_number(s[k], k)
        end
        for _, k in ipairs { "ios_read", "ios_write", "bytes_read", "bytes_write", "errors" } do
          assert.are.equal("integer", math.type(s[k]), k)
        end
        assert.is_true(s.elapsed_s >= last)
        last = s.elapsed_s
        assert.is_true(s.ios_read >= 0 and s.ios_write == 0)
      end
      assert.is_true(snaps[#snaps].ios_read > 0)
      assert.is_true(math.abs(snaps[1].total_s - 0.2) < 1e-6)
    end)

    it("cancels the run by returning false and yields the partial result", function()
      local calls = 0
      local t0 = os.time()
      local r, err = nvb.run(spec { progress = function(s)
        calls = calls + 1
        if calls == 3 then return false end
      end })
      assert.is_nil(err)
      assert.is_truthy(r)
      assert.is_true(r.cancelled)
      assert.are.equal(3, calls)
      assert.are.equal("ECANCELED", r.error.name)
      assert.are.equal(nvb.errno.ECANCELED, r.error.errno)
      assert.is_true(r.duration_s < 5, "ran " .. r.duration_s .. " s")
      assert.is_true(os.time() - t0 < 10)
      assert.is_true(r.read.ios > 0)
      assert.matches("cancelled", tostring(r))
    end)

    it("keeps going when it returns nothing, true or nil", function()
      for _, ret in ipairs { "nothing", true } do
        local r = assert(nvb.run(spec { runtime = "100ms", progress = function()
          if ret ~= "nothing" then return ret end
        end }))
        assert.is_false(r.cancelled)
        assert.is_true(math.abs(r.duration_s - 0.1) < 0.05)
      end
    end)

    it("cancels and raises again when it errors; the next run is unaffected", function()
      local ok, err = pcall(nvb.run, spec { progress = function() error("boom") end })
      assert.is_false(ok)
      assert.matches("boom", err)
      local marker = {}
      ok, err = pcall(nvb.run, spec { progress = function() error(marker) end })
      assert.is_false(ok)
      assert.are.equal(marker, err) -- the error value itself, not a copy
      local r = assert(nvb.run(spec { runtime = "50ms" }))
      assert.is_false(r.cancelled)
    end)

    it("cannot yield across the run; the yield becomes an error", function()
      local co = coroutine.wrap(function()
        return pcall(nvb.run, spec { progress = function() coroutine.yield(1) end })
      end)
      local ok, err = co()
      assert.is_false(ok)
      assert.matches("yield", err)
    end)

    it("may start a nested run", function()
      local inner
      local r = assert(nvb.run(spec { runtime = "100ms", progress = function()
        if not inner then inner = assert(nvb.run { targets = { data.path }, engine = "null", ios = 10 }) end
      end }))
      assert.are.equal(10, inner.read.ios)
      assert.is_true(r.read.ios > 0)
    end)
  end)

  it("turns Ctrl-C (SIGINT to lua5.4) into a cancelled run and the interpreter's error", function()
    -- Without cancellation this would run for 30 s and print "true ...".
    -- One SIGINT, sent by a shell: timeout(1) signals the process and its
    -- group, and a second SIGINT kills lua5.4 outright (by design).
    local code = string.format([[
      local nvb = require "nvbench"
      local ok, err = pcall(nvb.run, { targets = { %q }, engine = "psync", runtime = "30s" })
      print(ok, err)]], data.path)
    local script = 'lua=$1; shift; "$lua" -e "$1" & pid=$!; sleep 1; kill -INT $pid; wait $pid'
    local p = assert(io.popen("sh -c " .. S.shell_quote(script) .. " sh " .. S.shell_quote(S.lua) .. " "
                              .. S.shell_quote(code) .. " 2>&1"))
    local out = p:read("a")
    p:close()
    assert.matches("false\tinterrupted!", out)
  end)

  describe("<close>", function()
    it("frees a result at scope end; later use errors cleanly", function()
      local kept
      do
        local r <close> = assert(nvb.run { targets = { data.path }, engine = "null", ios = 5 })
        assert.are.equal(5, r.read.ios)
        kept = r
      end
      assert.are.equal("nvbench.result (closed)", tostring(kept))
      assert.has_error(function() return kept.read end, "attempt to use a closed nvbench result")
      assert.has_error(function() return kept:json() end, "attempt to use a closed nvbench result")
      assert.has_error(function() return kept:get("read.ios") end, "attempt to use a closed nvbench result")
      assert.has_error(function() for _ in pairs(kept) do end end, "attempt to use a closed nvbench result")
      kept:close() -- closing twice is harmless
    end)

    it("frees a result whose fields were read (and cached) before", function()
      local kept
      do
        local r <close> = assert(nvb.run { targets = { data.path }, engine = "null", ios = 5 })
        local _ = r.cpu
        kept = r
      end
      assert.has_error(function() return kept.cpu end, "attempt to use a closed nvbench result")
    end)

    it("frees a workload at scope end, also when leaving by error", function()
      local kept
      local ok = pcall(function()
        local w <close> = assert(nvb.workload { targets = { data.path } })
        kept = w
        error("leave")
      end)
      assert.is_false(ok)
      assert.are.equal("nvbench.workload (closed)", tostring(kept))
      assert.has_error(function() kept:get("qd") end, "attempt to use a closed nvbench workload")
      assert.has_error(function() nvb.run(kept) end, "attempt to use a closed nvbench workload")
      kept:close()
    end)
  end)

  describe("garbage collection mid-run", function()
    it("collects other handles inside the progress callback without harm", function()
      local w = assert(nvb.workload { targets = { data.path }, engine = "psync", runtime = "30s", interval = "20ms" })
      local calls = 0
      local r = assert(nvb.run(w, { progress = function()
        calls = calls + 1
        if calls > 3 then return false end -- three rounds, however slow the machine
        -- garbage of every handle type, then full collections
        for _ = 1, 20 do
          nvb.workload { qd = 4 }
          assert(nvb.run { targets = { data.path }, engine = "null", ios = 1 })
        end
        w = nil -- the run's own reference keeps the handle alive
        collectgarbage("collect")
        collectgarbage("collect")
      end }))
      assert.are.equal(4, calls)
      assert.is_true(r.cancelled)
      assert.is_true(r.read.ios > 0)
      assert.are.equal(r.read.ios, nvb.decode_json(r:json()).read.ios)
      collectgarbage("collect")
    end)

    it("collects the spec table and its values during the run", function()
      local r = assert(nvb.run { targets = { data.path }, engine = "null", runtime = "100ms", interval = "10ms",
                                 progress = function() collectgarbage("collect") end })
      assert.is_true(r.read.ios > 0)
    end)

    it("refuses to close or change a workload that is running", function()
      local w = assert(nvb.workload { targets = { data.path }, engine = "null", runtime = "10s", interval = "20ms" })
      local ok, err = pcall(nvb.run, w, { progress = function() w:close() end })
      assert.is_false(ok)
      assert.matches("in use by a run", err)
      ok, err = pcall(nvb.run, w, { progress = function() w:set("qd", 2) end })
      assert.is_false(ok)
      assert.matches("in use by a run", err)
      ok, err = pcall(nvb.run, w, { progress = function()
        local alias <close> = w -- a <close> alias of the running handle
      end })
      assert.is_false(ok)
      assert.matches("in use by a run", err)
      -- still whole, and usable once the run has returned
      assert.are.equal("1", w:get("qd"))
      assert.are.equal(w, w:set("runtime", "50ms"))
      assert.is_truthy(w:run())
      w:close()
    end)

    it("survives many results left to the collector", function()
      for _ = 1, 200 do
        local r = nvb.run { targets = { data.path }, engine = "null", ios = 1 }
        local _ = r.read.ios
      end
      collectgarbage("collect")
    end)
  end)
end)
