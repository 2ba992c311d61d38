-- lua5.4 fio_job_dump.lua JOBFILE: the steps nvbench.fio_job maps a job file to, one line per
-- workload ("STEP<tab>SECTION<tab>key=value ..."), or "error<tab>MESSAGE": what
-- tests/python/test_fio_job.py compares with Python's mapping.
local fio = require "nvbench.fio_job"
local ok, steps = pcall(fio.from_fio_job, arg[1])
if not ok then print("error\t" .. steps) return end
for i, step in ipairs(steps) do
  for _, w in ipairs(step) do
    local keys = {}
    for k, v in pairs(w) do
      if k == "targets" then keys[#keys + 1] = "targets=" .. table.concat(v, "|")
      elseif k ~= "fio" then keys[#keys + 1] = k .. "=" .. v end
    end
    table.sort(keys)
    print(i .. "\t" .. w.fio.section .. "\t" .. table.concat(keys, " "))
  end
end
