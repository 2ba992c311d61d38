-- lua5.4 fio_read_dump.lua JOBFILE [NAME=VALUE ...]: the jobs nvbench.fio_job.parse reads
-- from a job file (with only the given variables for ${NAME}), one line per job
-- ("job<tab>NAME<tab>STONEWALL") then one per option in order ("<tab>KEY=VALUE", or
-- "<tab>KEY" for a bare flag), or "error<tab>MESSAGE": what tests/python/test_fio_reader.py
-- compares with Python's parse_job_text, byte for byte.
local fio = require "nvbench.fio_job"
local env = {}
for i = 2, #arg do
  local k, v = arg[i]:match("^([^=]*)=(.*)$")
  env[k] = v
end
local ok, jobs = pcall(fio.parse, arg[1], env)
if not ok then io.write("error\t", jobs, "\n") return end
for _, j in ipairs(jobs) do
  io.write("job\t", j.name, "\t", tostring(j.stonewall), "\n")
  for _, k in ipairs(j.order) do
    local v = j.opts[k]
    io.write("\t", k, v == true and "" or "=" .. v, "\n")
  end
end
