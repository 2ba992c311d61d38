-- lua5.4 fio_job_dump.lua JOBFILE [lenient]: the steps nvbench.fio_job maps a job file to,
-- one line per workload ("STEP<tab>SECTION<tab>key=value(origin) ... targets=a|b", sorted),
-- then "<tab>warning<tab>..." and "<tab>dropped<tab>..." lines, or "error<tab>MESSAGE": what
-- tests/python/test_fio_job.py compares with Python's and C's (tests/c/test_fiomap dump).
local fio = require "nvbench.fio_job"
local ok, steps = pcall(fio.from_fio_job, arg[1], nil, arg[2] == "lenient")
if not ok then print("error\t" .. steps) return end
for i, step in ipairs(steps) do
  for _, w in ipairs(step) do
    local keys = { "targets=" .. table.concat(w.targets, "|") }
    for k, v in pairs(w) do
      local o = w.fio.origin[k]
      if k ~= "targets" and k ~= "fio" then keys[#keys + 1] = k .. "=" .. (o == "randrepeat" and "*" or v) .. "(" .. o .. ")" end
    end
    table.sort(keys)
    print(i .. "\t" .. w.fio.section .. "\t" .. table.concat(keys, " "))
    for _, t in ipairs(w.fio.warnings) do print("\twarning\t" .. t) end
    for _, t in ipairs(w.fio.dropped) do print("\tdropped\t" .. t) end
  end
end
