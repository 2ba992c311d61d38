-- The key table reaches Lua from the library (nvb_workload_key_info): every
-- key a workload takes, with its columns, and the engines' options on request.
local nvb = require "nvbench"

describe("nvbench.key_table", function()
  it("lists every key the library takes, each with its columns", function()
    local t = nvb.key_table()
    assert.is_true(#t > 40)
    local by = {}
    for _, k in ipairs(t) do
      assert.is_true(k.help ~= "" and k.group ~= "" and k.type ~= "" and k.echo ~= "", k.name)
      assert.is_true(k.measures == "0" or k.measures == "1", k.name)
      by[k.name] = k
    end
    assert.are.equal("iodepth", by.qd.fio)
    assert.are.equal("startdelay_s", by.startdelay.echo)
    assert.are.equal("ss.metric", by.ss.echo)
    -- each is a key a workload takes: its default reads back
    local w = nvb.workload()
    for _, k in ipairs(t) do
      assert.is_not_nil(w:get(k.name), k.name)
    end
  end)

  it("adds the engines' options after the core keys when asked", function()
    local core, all = nvb.key_table(), nvb.key_table(true)
    assert.is_true(#all > #core)
    local seen = false
    for i = #core + 1, #all do
      assert.are.equal("engine", all[i].group)
      seen = seen or all[i].name == "io_uring.sqpoll"
    end
    assert.is_true(seen)
  end)
end)
