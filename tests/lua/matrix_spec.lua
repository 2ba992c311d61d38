-- nvbench.matrix: products, the seed matrix, and the seed table layout.
local nvb = require "nvbench"
local m = require "nvbench.matrix"
local S = require "support"

describe("nvbench.matrix", function()
  local data

  setup(function() data = S.scratch("8M") end)
  teardown(function() data:remove() end)

  describe("product", function()
    it("makes every list-valued key an axis, the first in name order varying slowest", function()
      local pts = m.product { engine = { "psync", "null" }, qd = { 1, 2, 4 }, bs = "4k", targets = { "/a", "/b" } }
      assert.are.equal(6, #pts)
      assert.are.same({ "psync", 1 }, { pts[1].engine, pts[1].qd })
      assert.are.same({ "psync", 4 }, { pts[3].engine, pts[3].qd })
      assert.are.same({ "null", 1 }, { pts[4].engine, pts[4].qd })
      for _, p in ipairs(pts) do
        assert.are.equal("4k", p.bs)
        assert.are.same({ "/a", "/b" }, p.targets) -- a list of targets is not an axis
      end
    end)

    it("takes axis order and target-set axes", function()
      local spec = { engine = { "a", "b" }, qd = { 1, 2 }, targets = { { "/x" }, { "/x", "/y" } } }
      assert.are.same({ "qd", "engine", "targets" }, m.axes(spec, { "qd" }))
      local pts = m.product(spec, { order = { "qd" } })
      assert.are.equal(8, #pts)
      assert.are.equal(1, pts[1].qd)
      assert.are.equal(2, pts[5].qd)
      assert.are.same({ "/x" }, pts[1].targets)
      assert.are.same({ "/x", "/y" }, pts[2].targets)
    end)

    it("returns the spec itself as the one point when there is no axis", function()
      local pts = m.product { bs = "4k", qd = 8 }
      assert.are.equal(1, #pts)
      assert.are.same({ bs = "4k", qd = 8 }, pts[1])
    end)

    it("runs the points, stopping when asked", function()
      local seen = 0
      local rows = m.run({ targets = { data.path }, engine = "null", ios = 10, qd = { 1, 2, 4, 8 } }, {
        on_row = function(row, i, n)
          seen = seen + 1
          assert.are.equal(4, n)
          assert.are.equal(10, row.result.read.ios)
          if i == 3 then return false end
        end })
      assert.are.equal(3, #rows)
      assert.are.equal(3, seen)
      assert.are.equal(4, rows[3].params.qd)
      rows = m.run { targets = { data.path }, engine = "null", ios = 10, qd = { 0, 1 } }
      assert.is_nil(rows[1].result)
      assert.are.equal(nvb.errno.ERANGE, rows[1].errno)
      assert.matches("qd", rows[1].error)
      assert.is_truthy(rows[2].result)
    end)
  end)

  describe("helpers", function()
    it("recognise lists and parse sizes and durations", function()
      assert.is_true(m.is_list { 1, 2 })
      assert.is_false(m.is_list {})
      assert.is_false(m.is_list { 1, x = 2 })
      assert.is_false(m.is_list "ab")
      assert.are.equal(4096, m.size_bytes "4k")
      assert.are.equal(256 * 2^20, m.size_bytes "256M")
      assert.are.equal(3 * 2^30, m.size_bytes "3GiB")
      assert.are.equal(512, m.size_bytes(512))
      assert.is_nil(m.size_bytes "lots")
      assert.are.equal(500e3, m.duration_ns "500us")
      assert.are.equal(2e6, m.duration_ns "2ms")
      assert.are.equal(1.5e9, m.duration_ns "1.5s")
      assert.are.equal(2e9, m.duration_ns(2))
      assert.is_nil(m.duration_ns "2 parsecs")
      assert.are.equal("1,234,568", m.commas(1234567.8))
      assert.are.equal("999", m.commas(999))
      assert.are.equal("-1,000", m.commas(-1000))
      assert.are.equal("-", m.commas(0 / 0))
    end)

    it("format figures as Python's format_value does (docs/analysis.md)", function()
      assert.are.equal("2,636,516", m.format_value("count", 2636516))
      assert.are.equal("74.22", m.format_value("pct", 74.2222))
      assert.are.equal("10.058", m.format_value("figure", 10.058))
      assert.are.equal("0.0000444", m.format_value("figure", 0.0000444))
      assert.are.equal("0.000877", m.format_value("figure", 0.000877))
      assert.are.equal("0.000", m.format_value("figure", 0))
      assert.are.equal("1,234.6", m.format_value("figure", 1234.56))
      assert.are.equal("-12,345.7", m.format_value("figure", -12345.67))
      assert.are.equal("2.5e+15", m.format_value("count", 2.5e15))
      assert.are.equal("-", m.format_value("figure", 0 / 0))
      assert.are.equal("-", m.format_value("figure", math.huge))
      assert.are.equal("-", m.format_value("figure", nil))
    end)

    it("list the available engines in the library's order, null only on request", function()
      local list = m.available_engines()
      local all = nvb.engines()
      for i, name in ipairs(list) do
        assert.is_true(all[name].available)
        assert.are_not.equal("null", name)
        if i > 1 then assert.is_true(all[list[i - 1]].index < all[name].index) end
      end
      local with = m.available_engines(true)
      assert.are.equal(#list + 1, #with)
    end)

    it("make and remove scratch files, also through <close>", function()
      local path
      do
        local s <close> = assert(m.scratch("1M", S.tmpdir))
        path = s.path
        local body = S.read_file(path)
        assert.are.equal(2^20, #body)
        assert.are_not.equal(body:sub(1, 4096), body:sub(4097, 8192))
      end
      assert.is_false(S.exists(path))
      local s = assert(m.scratch("64k"))
      assert.is_true(S.exists(s.path))
      s:remove()
      assert.is_false(S.exists(s.path))
      assert.is_nil((m.scratch("lots")))
    end)

    it("format plain tables with numbers right-aligned", function()
      local t = m.format_table({ "Metric", "a", "bbbbbbb" }, { { "IOPS", "1,000", "5" }, { "x", "-", "text" } })
      assert.are.equal(table.concat({
        "| Metric | a     | bbbbbbb |",
        "|--------|-------|---------|",
        "| IOPS   | 1,000 |       5 |",
        "| x      |     - | text    |",
      }, "\n") .. "\n", t)
    end)
  end)

  describe("percentiles", function()
    local keys = { "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9", "p99.99", "p99.999" }

    it("need 10 latencies on either side of their rank", function()
      assert.are.equal(1000, m.pct_min_ios(99))
      assert.are.equal(10000, m.pct_min_ios(99.9))
      assert.are.equal(100000, m.pct_min_ios(99.99))
      assert.are.equal(901, m.pct_min_ios(1))
      assert.are.equal(20, m.pct_min_ios(50))
      assert.is_nil(m.pct_min_ios(100))
      assert.is_true(m.pct_supported(1000, 99))
      assert.is_false(m.pct_supported(999, 99))
    end)

    it("agree with the result's lat_pct_supported, and figures show the unsupported as such", function()
      for _, n in ipairs { 500, 3000 } do
        local r = assert(nvb.run { engine = "null", rw = "randread", ios = n })
        assert.are.equal(n, r.read.lat_hist.count)
        for _, k in ipairs(keys) do
          assert.are.equal(m.pct_supported(n, tonumber(k:sub(2))), r.read.lat_pct_supported[k], k)
        end
        local f = m.figures(r)
        if n == 500 then
          assert.is_nil(f.p99_ms)
          assert.are.equal("n/a (n<1,000)", f.p99_na)
        else
          assert.are.equal(r.read.lat_ns.p99 / 1e6, f.p99_ms)
          local v, na = m.pct_ms(r.read, "p99.9")
          assert.is_nil(v)
          assert.are.equal("n/a (n<10,000)", na)
        end
      end
    end)
  end)

  describe("figures of a mixed run", function()
    it("are the library's total: the directions summed, the mean of all their latencies", function()
      local r = assert(nvb.run { engine = "null", rw = "randrw", ios = 3000 })
      assert.is_true(r.read.ios > 0 and r.write.ios > 0)
      local f = m.figures(r) -- randrw: op mixed
      assert.are.equal(r.total.iops, f.iops)
      assert.are.equal(r.total.bw_gib_s, f.gib_s)
      assert.are.equal(r.total.lat_mean_ns / 1e6, f.lat_ms)
      assert.is_nil(f.p99_ms)
      assert.are.equal("n/a (mixed)", f.p99_na)
      -- the mean of every latency: the exact sums over the counts, each direction's mean
      -- weighted by its I/Os
      local n = r.read.lat_hist.count + r.write.lat_hist.count
      local mean = (r.read.lat_ns.mean * r.read.lat_hist.count + r.write.lat_ns.mean * r.write.lat_hist.count) / n
      assert.is_true(math.abs(f.lat_ms * 1e6 - mean) <= 1e-9 * mean)
      assert.is_true(math.abs(f.iops - (r.read.iops + r.write.iops)) <= 1e-9 * f.iops)
    end)
  end)

  describe("seed", function()
    it("prints the published layout from rows", function()
      local cell = m.cells[1]
      local rows = {
        engines = { "libaio", "io_uring" }, cells = { cell },
        { cell = cell, engine = "libaio", figures = { gib_s = 9.198, iops = 2411000, lat_ms = 0.198, cpu_pct = 99.77,
                                                      own_pct = 12.5, others_pct = 87.27,
                                                      us_per_io = 2.5, iops_core = 400000 } },
        { cell = cell, engine = "io_uring", error = "engine io_uring: not here", errno = 95 },
      }
      local text = m.format_seed(rows)
      -- The layout of docs/analysis.md ("The text layout"), as Python's table prints it.
      assert.are.equal(table.concat({
        "Random 4K read           libaio  io_uring",
        "--------------------  ---------  --------",
        "Bandwidth (GiB/s)         9.198         -",
        "IOPS                  2,411,000         -",
        "Average Latency (ms)      0.198         -",
        "Total CPU Usage (%)       99.77         -",
        "of which nvbench (%)      12.50         -",
        "other processes (%)       87.27         -",
        "CPU per I/O (us)          2.500         -",
        "IOPS per core           400,000         -",
      }, "\n") .. "\n", text:sub(1, text:find("\n  io_uring") or #text))
      assert.matches("  io_uring: engine io_uring: not here", text, 1, true)
    end)

    it("runs the eight published cells on each engine", function()
      local calls = 0
      -- Bounded by an I/O count too, so a loaded machine cannot leave a cell empty.
      local rows = assert(m.seed { targets = { data.path }, engines = { "null", "psync" }, runtime = "5s",
                                   qd = 4, workload = { ios = 32 }, on_cell = function() calls = calls + 1 end })
      assert.are.equal(16, #rows)
      assert.are.equal(16, calls)
      assert.are.same({ "null", "psync" }, rows.engines)
      for _, row in ipairs(rows) do
        assert.is_nil(row.error)
        assert.are.equal(32, row.result[row.cell.op].ios, row.cell.key .. " " .. row.engine)
        assert.is_true(row.figures.iops > 0, row.cell.key .. " " .. row.engine)
        assert.are.equal(row.cell.rw, row.result.workload.rw)
        assert.are.equal(m.size_bytes(row.cell.bs), row.result.workload.bs)
        assert.are.equal(4, row.result.workload.qd)
      end
      local text = m.format_seed(rows)
      for _, cell in ipairs(m.cells) do
        -- psync ran at qd 1 of the 4 asked: its column says so
        assert.matches("\n" .. cell.label .. " +null +psync %(qd 1%)\n", "\n" .. text)
      end
      local _, blocks = text:gsub("\nIOPS per core ", "")
      assert.are.equal(8, blocks)
    end)

    it("makes and removes its own scratch file when given no targets", function()
      local rows = assert(m.seed { engines = { "psync" }, cells = { "seq128k_write" }, runtime = "5s",
                                   workload = { ios = 8 }, size = "4M", dir = S.tmpdir })
      assert.are.equal(1, #rows)
      local path = rows[1].result.per_target[1].path
      assert.are.equal(S.tmpdir .. "/", path:sub(1, #S.tmpdir + 1))
      assert.are.equal(4 * 2^20, rows[1].result.per_target[1].region_size)
      assert.is_false(S.exists(path))
      assert.are.equal(8, rows[1].result.write.ios)
      assert.is_true(rows[1].figures.iops > 0)
    end)

    it("stops when a progress callback cancels", function()
      local rows = m.seed { targets = { data.path }, engines = { "null" }, runtime = "5s",
                            workload = { interval = "20ms" }, progress = function() return false end }
      assert.is_true(rows.cancelled)
      assert.are.equal(1, #rows)
      assert.is_true(rows[1].result.cancelled)
      assert.matches("null: cancelled", m.format_seed(rows), 1, true)
    end)

    it("preconditions and judges steady state on write cells only", function()
      local rows = assert(m.seed {
        targets = { data.path }, engines = { "psync" }, runtime = "5s", qd = 2,
        cells = { "rand4k_read", "rand4k_write", "seq128k_write" },
        workload = { ios = 64, interval = "100ms" }, precondition = 2,
        steady_state = { metric = "iops", window = "300ms", excursion = 100, slope = 100, stop = false },
      })
      assert.are.equal(3, #rows)
      for _, row in ipairs(rows) do
        assert.is_nil(row.error)
        local r = row.result
        if row.cell.op == "read" then
          assert.is_nil(r.precondition)
          assert.is_nil(r.steady_state)
          assert.are.equal(0, r.workload.precondition)
        else
          -- the region twice, not in the cell's own figures
          assert.are.equal(2, r.precondition.passes)
          assert.are.equal(2 * 8 * 2^20, r.precondition.bytes)
          assert.are.equal(64, r.write.ios)
          assert.are.equal(64 * m.size_bytes(row.cell.bs), r.write.bytes)
          assert.are.equal("iops", r.steady_state.metric)
          assert.are.equal(3, r.steady_state.rounds)
          assert.is_false(r.steady_state.stopped)
          if r.steady_state.reached then
            assert.is_true(r.steady_state.at_s <= r.duration_s)
            assert.is_true(r.steady_state.max_excursion_pct <= 100 and r.steady_state.slope_pct <= 100)
          else
            assert.is_nil(r.steady_state.at_s)
          end
        end
      end
      -- a metric name alone: ss.stop on
      local keys = m.write_cell_keys(nil, "bw")
      assert.are.same({ ss = "bw", ["ss.stop"] = "1" }, keys)
      assert.are.same({ precondition = "1", ss = "lat", ["ss.window"] = "5m", ["ss.stop"] = "false", runtime = "2h" },
        m.write_cell_keys(1, { metric = "lat", window = "5m", stop = false, runtime = "2h" }))
      assert.has_error(function() m.seed { targets = { data.path }, steady_state = { metrc = "iops" } } end,
        "nvbench.matrix: steady_state: unknown option 'metrc' (known: metric, window, excursion, slope, stop, runtime)")
      assert.has_error(function() m.seed { targets = { data.path }, precondition = -1 } end)
      assert.has_error(function() m.seed { targets = { data.path }, precondition = "rand" } end)
      assert.are.same({ precondition = "random" }, m.write_cell_keys("random"))
      assert.has_error(function() m.seed { targets = { data.path }, steady_state = { window = "5m" } } end)
    end)

    it("preconditions write cells the random way", function()
      local rows = assert(m.seed {
        targets = { data.path }, engines = { "psync" }, runtime = "5s", qd = 2, cells = { "rand4k" },
        workload = { ios = 16, ["sprandom.regions"] = 8 }, precondition = "random",
      })
      assert.are.equal(2, #rows)
      for _, row in ipairs(rows) do
        assert.is_nil(row.error)
        if row.cell.op == "read" then
          assert.is_nil(row.result.precondition)
        else
          assert.are.equal(8, row.result.precondition.regions)
          assert.is_true(row.result.precondition.rewrites > 0)
          assert.are.equal("random", row.result.workload.precondition_mode)
        end
      end
    end)

    it("refuses unknown cells", function()
      assert.has_error(function() m.seed { targets = { data.path }, cells = { "rand3k_read" } } end)
    end)
  end)
end)
