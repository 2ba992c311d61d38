/*
 * The workload key table (core/keys.h says what each column is for). The
 * order is the order of a result's workload echo and of every listing.
 */
#include <stddef.h>
#include <string.h>

#include "core/internal.h"
#include "core/keys.h"
#include "core/sprandom.h"

const char *const nvb__rw_names[] = {"read", "write", "randread", "randwrite", "randrw", "rw", "trim", "randtrim", NULL};
#define rw_names nvb__rw_names

const char *nvb__rw_name(int rw)
{
    return (rw >= 0 && rw < (int)(sizeof rw_names / sizeof rw_names[0]) - 1) ? rw_names[rw] : "?";
}

static const char *const fill_names[] = {"random", "zero", NULL};
static const char *const tmode_names[] = {"shared", "split", NULL};
static const char *const seq_start_names[] = {"staggered", "same", NULL}; /* enum nvb__seq_start */
static const char *const rate_mode_names[] = {"open", "closed", NULL};
static const char *const rate_process_names[] = {"uniform", "poisson", NULL};
static const char *const zone_mode_names[] = {"none", "zbd", NULL}; /* core/zbd.h */
static const char *const ss_names[] = {"off", "iops", "bw", "lat", NULL}; /* enum nvb__ss_metric */
static const char *const precond_names[] = {"seq", "random", NULL}; /* enum nvb__precond_mode */
static const char *const exitall_names[] = {"off", "group", "step", NULL}; /* enum nvb__exitall */

/* Indexed by enum ktype, so a new type without a name is a NULL the
 * bindings' tests notice, not a shifted list. */
const char *const nvb__ktype_names[] = {
    [K_SIZE] = "size", [K_DURATION] = "duration", [K_UINT] = "uint", [K_BOOL] = "bool",
    [K_ENUM] = "enum", [K_ENGINE] = "engine", [K_CPULIST] = "cpulist", [K_STRING] = "string",
    [K_U64] = "u64", [K_PROB] = "prob", [K_ERRNO] = "errno", [K_PCT] = "percent",
    [K_BSSPLIT] = "bssplit", [K_USEC] = "duration_us", [K_DIST] = "distribution", [K_SSIZE] = "signed_size",
};

#define KEY(n, t, field, lo, hi) .name = n, .type = t, .off = offsetof(struct nvb_workload, field), .min = lo, .max = hi
#define NS_PER_S 1000000000ull
#define MEASURES NVB__KEY_MEASURES
#define FIO_AS_IS NVB__KEY_FIO_AS_IS

const struct keydef nvb__keys[] = {
    {KEY("engine", K_ENGINE, engine, 0, 0),
     .group = "workload", .fio = "ioengine",
     .help = "I/O engine: psync, libaio, io_uring, nvme, null (Linux); wsync, iocp, ioring (Windows)",
     .dflt = "`psync`",
     .range = "`psync`, `libaio`, `io_uring`, `nvme`, `null`",
     .doc = "the I/O engine (`nvme`: NVMe passthrough, NVMe namespaces only)"},
    {KEY("rw", K_ENUM, rw, 0, 0), .names = rw_names,
     .group = "workload", .fio = "rw",
     .help = "read, write, randread, randwrite, randrw, rw, trim, randtrim",
     .dflt = "`randread`",
     .range = "`read`, `write`, `randread`, `randwrite`, `randrw`, `rw` (alias `readwrite`), `trim`, `randtrim`",
     .doc = "pattern; `read`/`write`/`rw`/`trim` are sequential, each job starting at its own offset; "
             "`randrw` and `rw` mix; `trim`/`randtrim` discard (below: [Trims](#trims))"},
    {KEY("rwmix", K_UINT, rwmix, 0, 100),
     .unit = "percent", .group = "workload", .fio = "rwmixread", .flags = MEASURES | FIO_AS_IS,
     .help = "read percentage of mixed workloads",
     .dflt = "50",
     .range = "0..100",
     .doc = "percent of reads in `randrw`/`rw` (chosen per I/O at random)"},
    {KEY("rwmixtrim", K_UINT, rwmixtrim, 0, 100),
     .unit = "percent", .group = "workload", .flags = MEASURES,
     .help = "trim percentage of a mixed workload's I/Os (rwmix splits the rest)",
     .dflt = "0",
     .range = "0..100",
     .doc = "percent of a mixed workload's I/Os (`randrw`, `rw`) that are trims; `rwmix` splits the rest "
             "([Trims](#trims)); no fio equivalent"},
    {KEY("bs", K_SIZE, bs, 1, 1ull << 30),
     .unit = "bytes", .group = "workload", .fio = "bs",
     .help = "block size",
     .dflt = "4k",
     .range = "1 .. 1G",
     .doc = "block size; with `direct=1` a multiple of the target's logical block size"},
    {KEY("qd", K_UINT, qd, 1, 16384),
     .unit = "I/Os", .group = "workload", .fio = "iodepth", .flags = MEASURES | FIO_AS_IS,
     .help = "I/Os in flight per job",
     .dflt = "1",
     .range = "1..16384",
     .doc = "I/Os in flight per job (psync: always 1, use `jobs`)"},
    {KEY("jobs", K_UINT, jobs, 1, 4096),
     .unit = "threads", .group = "workload", .fio = "numjobs", .flags = MEASURES,
     .help = "worker threads",
     .dflt = "1",
     .range = "1..4096",
     .doc = "worker threads"},
    {KEY("size", K_SIZE, size, 0, UINT64_MAX),
     .unit = "bytes", .group = "region", .fio = "size",
     .help = "region per target (0: to the end)",
     .dflt = "0",
     .doc = "bytes of each target to use, 0: to the end (directory targets: scratch file size, default 1G; "
             "null engine without targets: 1G)"},
    {KEY("offset", K_SIZE, offset, 0, UINT64_MAX),
     .unit = "bytes", .group = "region", .fio = "offset",
     .help = "start of the region per target",
     .dflt = "0",
     .doc = "start of the region in each target (ignored for directories)"},
    {KEY("random_distribution", K_DIST, dist, 0, 0),
     .group = "region", .fio = "random_distribution", .flags = MEASURES,
     .help = "offsets of random I/O: random (uniform), zipf:THETA, pareto:H, normal:P (stddev % of range), "
              "zoned:IO%/RANGE%:...",
     .dflt = "`random`",
     .range = "`random`, `zipf:THETA`, `pareto:H`, `normal:P` (alias `gauss:P`), `zoned:IO/RANGE:...`, "
              "`sequence:BLOCK,...`",
     .doc = "where random I/O goes in the region (fio's `random_distribution`; see [Offset "
             "distributions](#offset-distributions)); only with a random `rw`; with `bssplit` over the region's "
             "units (`blockalign`, or the split's smallest size)"},
    {KEY("random_map", K_BOOL, random_map, 0, 1),
     .group = "region", .flags = MEASURES,
     .help = "random I/O touches every block of the region exactly once per pass (fio's inverse of "
              "norandommap)",
     .dflt = "0",
     .range = "bool",
     .doc = "random I/O touches every block of the region exactly once per pass, then starts a new pass in a "
             "new order (fio's default; `random_map=0` is fio's `norandommap`); only with "
             "`random_distribution=random`. With `bssplit` every unit of the smallest size is done once per pass: "
             "an I/O that would cover a unit already done is cut to the largest size of the split that covers "
             "none"},
    {KEY("random_sequence_stride", K_BOOL, dist.seq_stride, 0, 1),
     .group = "region", .fio = "random_sequence_stride", .flags = MEASURES | FIO_AS_IS,
     .help = "random_distribution=sequence: each round of the sequence moves its length of blocks on",
     .dflt = "0",
     .range = "bool",
     .doc = "with `random_distribution=sequence:B,...`: 0 repeats the same blocks; 1 adds, in round r of the "
            "sequence, r times its length to each block (fio's `random_sequence_stride`), back to round 0 where "
            "a block would pass the region (fio's job ends there)"},
    /* Emulated zones (core/zbd.c, docs/zoned.md) */
    {KEY("zone_mode", K_ENUM, zone_mode, 0, 0), .names = zone_mode_names,
     .group = "zones", .fio = "zonemode", .flags = MEASURES,
     .help = "none, or zbd: writes go at each zone's write pointer (zones emulated on a file or block device)",
     .dflt = "`none`",
     .range = "`none`, `zbd`",
     .doc = "`zbd`: the region is cut into zones of `zone_size`, each with a write pointer kept by the run and "
             "shared by its jobs: a write goes at its zone's pointer (a random write picks a zone), a full "
             "zone is reset, reads stay below the pointer, a trim resets its zone (fio's `zonemode=zbd` on a "
             "target that is not a zoned device; [zoned.md](zoned.md)). A real zoned block device is refused"},
    {KEY("zone_capacity", K_SIZE, zone_capacity, 0, UINT64_MAX),
     .unit = "bytes", .group = "zones", .fio = "zonecapacity", .flags = MEASURES,
     .help = "bytes of a zone that can be written (0: zone_size)",
     .dflt = "0",
     .range = "0 .. `zone_size`",
     .doc = "writable bytes at the start of each zone (a ZNS zone's capacity); the rest of the zone is "
             "never written, and sequential writes skip it. 0: the whole zone"},
    {KEY("max_open_zones", K_UINT, max_open_zones, 0, 1u << 20),
     .unit = "zones", .group = "zones", .fio = "max_open_zones", .flags = MEASURES | FIO_AS_IS,
     .help = "zones written at once per target (0: no limit)",
     .dflt = "0",
     .range = "0 .. 1048576",
     .doc = "at most this many zones of a target take writes at once (shared by its jobs): a write to "
             "another zone goes to one of them, and a zone leaves the set when full. 0: no limit"},
    {KEY("zone_reset_threshold", K_PROB, zone_reset_threshold, 0, 0),
     .unit = "fraction", .group = "zones", .fio = "zone_reset_threshold", .flags = MEASURES | FIO_AS_IS,
     .help = "share of the region written above which zone_reset_frequency resets zones",
     .dflt = "0",
     .range = "0 .. 1",
     .doc = "with `zone_reset_frequency`: once the data below the write pointers is at least this share of "
             "the region, the zone a write goes to is reset first, every 1/`zone_reset_frequency` writes "
             "(fio's garbage-collection simulation)"},
    {KEY("zone_reset_frequency", K_PROB, zone_reset_frequency, 0, 0),
     .unit = "fraction", .group = "zones", .fio = "zone_reset_frequency", .flags = MEASURES | FIO_AS_IS,
     .help = "above zone_reset_threshold, reset the written zone every 1/F writes (0: never)",
     .dflt = "0",
     .range = "0 .. 1",
     .doc = "see `zone_reset_threshold`; 0: no such resets"},
    {KEY("read_beyond_wp", K_BOOL, read_beyond_wp, 0, 1),
     .group = "zones", .fio = "read_beyond_wp", .flags = MEASURES | FIO_AS_IS,
     .help = "reads may go past a zone's write pointer (zone_mode=zbd)",
     .dflt = "0",
     .range = "bool",
     .doc = "0: a read goes below its zone's write pointer (another zone with data when its own has none; "
             "the job ends when no zone has data); 1: reads go where they would without zones"},
    {KEY("runtime", K_DURATION, runtime_ns, 0, 365ull * 86400 * NS_PER_S), .echo = "runtime_s",
     .unit = "seconds", .group = "timing", .fio = "runtime",
     .help = "measured duration",
     .dflt = "5s",
     .range = "up to 365 days",
     .doc = "length of the measured window; 0 only with `ios` or `io_limit`"},
    {KEY("ramp", K_DURATION, ramp_ns, 0, 86400ull * NS_PER_S), .echo = "ramp_s",
     .unit = "seconds", .group = "timing", .fio = "ramp_time",
     .help = "warm-up excluded from statistics",
     .dflt = "0",
     .range = "up to 1 day",
     .doc = "warm-up before the window, not counted"},
    {KEY("startdelay", K_DURATION, startdelay_ns, 0, 86400ull * NS_PER_S), .echo = "startdelay_s",
     .unit = "seconds", .group = "timing", .fio = "startdelay",
     .help = "the jobs start this long after they are ready, before ramp and runtime",
     .range = "up to 1 day",
     .doc = "the jobs, once set up, wait this long before their first I/O (fio's `startdelay`); the ramp and "
            "the measured window start after it, so it is in no figure. With job groups each group waits its "
            "own, so one group can start after another; a cancel or a stop ends the wait"},
    {KEY("interval", K_DURATION, interval_ns, 10000000ull, 3600ull * NS_PER_S), .echo = "interval_s",
     .unit = "seconds", .group = "timing", .fio = "log_avg_msec",
     .help = "time-series step",
     .dflt = "1s",
     .range = "10ms .. 1h",
     .doc = "time-series step and progress callback period; each interval carries its own p50/p99/p99.9 "
             "latency and histogram (`timeseries[]` in [json-schema.md](json-schema.md)). Latency-target "
             "search over `qd` or `rate_iops` (vdbench's curve; fio has no equivalent): `nvbench.search` in "
             "Python and Lua, `nvbench search` ([python.md](python.md))"},
    {KEY("align_interval", K_BOOL, align_interval, 0, 1),
     .group = "timing",
     .help = "time-series intervals end on wall-clock multiples of interval (hosts line up)",
     .dflt = "0",
     .range = "bool",
     .doc = "time-series intervals end on wall-clock multiples of `interval` (the first one is shorter), so "
             "the points of hosts with synchronised clocks line up ([multihost.md](multihost.md))"},
    {KEY("timeseries_max", K_UINT, ts_max, 2, 4294967295u),
     .group = "timing",
     .help = "time-series points the result keeps; beyond, neighbouring intervals merge exactly",
     .dflt = "1000",
     .range = "2 .. 4294967295",
     .doc = "the most points `timeseries[]` keeps: a longer series merges neighbouring points exactly (counts, "
             "latency sums and histograms add), two by two, so every point then spans the same number of "
             "intervals (its `intervals`); totals are unchanged. The run's point callback (`--live`, `on_point`) "
             "gets every interval as it is measured ([history.md](history.md#live-figures))"},
    {KEY("io_limit", K_SIZE, io_limit, 0, UINT64_MAX),
     .unit = "bytes", .group = "timing", .fio = "io_size",
     .help = "total bytes over all jobs",
     .dflt = "0",
     .range = "multiple of `bs` (with `bssplit`: any; see there)",
     .doc = "stop after this many bytes over all jobs"},
    {KEY("ios", K_U64, ios, 0, UINT64_MAX),
     .unit = "I/Os", .group = "timing", .fio = "number_ios",
     .help = "total I/O count over all jobs",
     .dflt = "0",
     .doc = "stop after exactly this many I/Os over all jobs (split exactly among them)"},
    {KEY("direct", K_BOOL, direct, 0, 1),
     .group = "workload", .fio = "direct", .flags = MEASURES,
     .help = "O_DIRECT",
     .dflt = "1",
     .range = "bool",
     .doc = "`O_DIRECT`"},
    {KEY("invalidate", K_BOOL, invalidate, 0, 1),
     .group = "data", .fio = "invalidate", .flags = MEASURES,
     .help = "write back and drop the targets' cached pages before the run (fio's invalidate)",
     .dflt = "1",
     .range = "bool",
     .doc = "before the run (after the targets are held and scratch files laid out), each file or "
             "block-device target's region is written back (`sync_file_range`: the region's dirty pages, and "
             "no more: no device cache flush, no journal commit) and its cached pages dropped "
             "(`posix_fadvise(POSIX_FADV_DONTNEED)`), whatever `direct` says, as fio's `invalidate=1` does. "
             "The write-back comes first because `DONTNEED` drops only clean pages: a dirty page would be "
             "written back and stay cached. Pages another process maps or locks, and files of a file system "
             "that lives in memory (tmpfs), stay. With `direct=0` the share of the region still cached is "
             "measured then (`per_target[].page_cache`, [json-schema.md](json-schema.md)), and 50 % or more "
             "is a warning; `invalidate=0` keeps the cache as it is (a warm-cache run on purpose), measured "
             "and warned about the same way. Block devices: the same two calls on the device (its own page "
             "cache), and the cached share measured on that page cache the same way (`cachestat`, or "
             "`mincore` on a mapping of the device node); not `BLKFLSBUF`, which needs `CAP_SYS_ADMIN` and "
             "acts on the whole device; the kernel also drops a block device's cached pages by itself when "
             "its last opener closes it, so a warm cache there exists only while something else holds the "
             "device open (a mounted file system, another process). Windows has no such call: there "
             "`invalidate` does nothing (a warning says so with `direct=0`) and nothing is measured"},
    {KEY("uncached", K_BOOL, uncached, 0, 1),
     .group = "workload", .fio = "uncached", .flags = MEASURES,
     .help = "buffered I/O whose pages are dropped when done (RWF_DONTCACHE)",
     .dflt = "0",
     .range = "bool",
     .doc = "each read and write carries `RWF_DONTCACHE` (Linux 6.14+): buffered I/O through the page cache "
             "whose pages are written back and dropped once done, so the cache does not grow. Needs "
             "`direct=0` and engine `psync` or `io_uring`; where the kernel or the file system refuses the "
             "flag the run is refused with the kernel's answer ([engines.md](engines.md#io-modes))"},
    {KEY("atomic", K_BOOL, atomic, 0, 1),
     .group = "workload", .fio = "atomic", .flags = MEASURES,
     .help = "writes land whole or not at all (RWF_ATOMIC)",
     .dflt = "0",
     .range = "bool",
     .doc = "each write carries `RWF_ATOMIC` (Linux 6.11+): it lands whole or not at all. Needs `direct=1`, "
             "engine `psync` or `io_uring`, and every write size a power of two within the target's "
             "`atomic_write_unit_min_bytes`..`atomic_write_unit_max_bytes` (sysfs, the block device under the "
             "target); else refused naming them"},
    {KEY("fua", K_BOOL, fua, 0, 1),
     .group = "workload", .fio = "fua", .flags = MEASURES,
     .help = "each write durable when it completes (RWF_DSYNC)",
     .dflt = "0",
     .range = "bool",
     .doc = "each write carries `RWF_DSYNC`: durable when it completes (a FUA write where the device has "
             "FUA, else the write and a cache flush). Engine `psync` or `io_uring`; a workload without writes "
             "is refused. fio's `fua` is the passthrough engines' FUA bit; here it is the block layer's"},
    /* End-to-end protection information and metadata: NVMe passthrough only (core/pi.c, engines/nvme_pi.c). */
    {KEY("pi_act", K_BOOL, pi_act, 0, 1),
     .group = "protection", .fio = "pi_act", .flags = MEASURES | FIO_AS_IS,
     .help = "the controller inserts the protection information on writes and strips it on reads (PRACT)",
     .dflt = "0",
     .range = "bool",
     .doc = "sets PRACT in every Read and Write: the controller generates the protection information (PI) of "
             "each written block and strips it from each block read. With `0` on a PI format nvbench generates "
             "it on writes (16-bit guard CRC, `apptag`, reference tag = the block's LBA) into the metadata "
             "buffer (`md_per_io_size`). Engine `nvme` and a namespace formatted with PI only "
             "([engines.md](engines.md#protection-information-and-metadata))"},
    {KEY("pi_chk", K_STRING, pi_chk, 0, 0),
     .group = "protection", .fio = "pi_chk", .flags = MEASURES | FIO_AS_IS,
     .help = "what the controller checks: GUARD,REFTAG,APPTAG (PRCHK), or none",
     .dflt = "`\"\"` (none)",
     .range = "comma-separated `GUARD`, `REFTAG`, `APPTAG`; `none`",
     .doc = "the PRCHK bits of every Read and Write: the controller checks the guard (a CRC of the block), the "
             "reference tag (the LBA; PI types 1 and 2, refused on type 3) and the application tag "
             "(`apptag` under `apptag_mask`). A failed check fails the I/O with its NVMe status (End-to-end "
             "Guard / Application Tag / Reference Tag Check Error), counted as an error and named in the "
             "result's notes. Engine `nvme` and a namespace formatted with PI only"},
    {KEY("apptag", K_UINT, apptag, 0, 0xffff),
     .group = "protection", .fio = "apptag", .flags = MEASURES | FIO_AS_IS,
     .help = "the application tag written and checked (16 bits; 0x1234 or decimal)",
     .dflt = "0x1234",
     .range = "0..0xffff",
     .doc = "the application tag nvbench writes with `pi_act=0` and the controller checks with "
             "`pi_chk=APPTAG` (CDW15); hex as in fio (`0x1234`) or decimal"},
    {KEY("apptag_mask", K_UINT, apptag_mask, 0, 0xffff),
     .group = "protection", .fio = "apptag_mask", .flags = MEASURES | FIO_AS_IS,
     .help = "the bits of the application tag checked (16 bits)",
     .dflt = "0xffff",
     .range = "0..0xffff",
     .doc = "the bits of `apptag` the controller compares with `pi_chk=APPTAG` (CDW15)"},
    {KEY("md_per_io_size", K_SIZE, md_per_io_size, 0, 1ull << 24),
     .unit = "bytes", .group = "protection", .fio = "md_per_io_size", .flags = FIO_AS_IS,
     .help = "bytes of the metadata buffer each passthrough I/O carries (0: none)",
     .dflt = "0",
     .range = "0 .. 16M",
     .doc = "the metadata buffer of each I/O on a namespace formatted with separate metadata: at least the "
             "format's metadata bytes per block times the blocks of the largest I/O, else refused naming "
             "that size. Not needed with `pi_act=1` when the metadata is only the 8-byte PI (the controller "
             "inserts and strips it). Engine `nvme` only; metadata interleaved with the data (extended "
             "LBAs) is refused"},
    {KEY("write_zeroes", K_BOOL, write_zeroes, 0, 1),
     .group = "workload", .flags = MEASURES,
     .help = "the workload's trims write zeroes instead of discarding (Write Zeroes, BLKZEROOUT, ZERO_RANGE)",
     .dflt = "0",
     .range = "bool",
     .doc = "every trim I/O (`rw=trim`, `randtrim`, `rwmixtrim`'s share) zeroes its range instead of "
             "discarding it: the NVMe Write Zeroes command (engine `nvme`), `BLKZEROOUT` on block devices "
             "and `fallocate(FALLOC_FL_ZERO_RANGE)` on files (engine `psync`), `IORING_OP_FALLOCATE` with "
             "`FALLOC_FL_ZERO_RANGE` on both (engine `io_uring`). The result's `trim` figures "
             "then count these write-zeroes (`engine_used.trims` says which). Other engines, and a workload "
             "without trims, are refused with the reason; a file system without `ZERO_RANGE` (tmpfs) fails "
             "the first one with `EOPNOTSUPP` ([engines.md](engines.md#write-zeroes)); no fio equivalent"},
    {KEY("fill", K_ENUM, fill, 0, 0), .names = fill_names,
     .group = "data", .fio = "zero_buffers",
     .help = "write content: random (fresh, incompressible data in every block) or zero",
     .dflt = "`random`",
     .range = "`random`, `zero`",
     .doc = "what writes carry. `random`: every block written, and every block of a scratch layout, carries "
             "data of its own: a base block of random bytes from `seed`, each 512-byte sector of it XORed "
             "with a 64-bit key derived from (`seed`, the block's offset, a per-job write counter, the "
             "sector): no two blocks written by a run are alike and none compresses (one pass over the block "
             "per write on the submitting thread, about half what the kernel's own copy of a buffered write "
             "costs: [benchmarks.md](benchmarks.md#cost-of-fresh-data-per-write)). `zero`: the buffers are "
             "zeros, never changed. With `verify=1` each block is a verification block instead (also "
             "different for every write, [reliability.md](reliability.md#data-verification-verify1)); the "
             "null engine writes nothing and prepares nothing"},
    {KEY("data_compress", K_UINT, data_compress, 0, 100),
     .unit = "percent", .group = "data", .fio = "buffer_compress_percentage", .flags = MEASURES | FIO_AS_IS,
     .help = "percent of every written 512-byte sector that is zeros (compressible), the rest random",
     .dflt = "0",
     .range = "0..100",
     .doc = "percent of each written block that compresses: the last `floor(512 x P / 100)` bytes of every "
             "512-byte sector, rounded down to 8 bytes, are zeros (all of it at 100), the rest is the fresh "
             "data above; a last sector shorter than 512 bytes the same share of its length. gzip -1 makes "
             "such data about `100 - P` % of its size. Needs `fill=random` and `verify=0`"},
    {KEY("data_dedupe", K_UINT, data_dedupe, 0, 100),
     .unit = "percent", .group = "data", .fio = "dedupe_percentage", .flags = MEASURES | FIO_AS_IS,
     .help = "percent of written blocks that are one and the same block (deduplicable)",
     .dflt = "0",
     .range = "0..100",
     .doc = "percent of written blocks (I/Os) that are duplicates: chosen by a hash of (offset, write "
             "counter, `seed`), such a block is the run's base block itself, the same for every job and "
             "target (with `data_compress`, its zeros too). Of N blocks written, about P % duplicate another. "
             "Needs `fill=random` and `verify=0`; both keys apply to the scratch layout too and are echoed in "
             "the result's `workload`"},
    {KEY("data_dedupe_set", K_UINT, data_dedupe_set, 0, 100),
     .unit = "percent", .group = "data", .fio = "dedupe_working_set_percentage", .flags = MEASURES,
     .help = "with data_dedupe: duplicates drawn from a working set of this percent of the region's blocks (0: one)",
     .dflt = "0 (every duplicate is one block)",
     .range = "0..100",
     .doc = "with `data_dedupe`: the working set is `W` = P % of the region's blocks (the first target's length / "
            "`bs`, at least 1) distinct blocks; each job's first `W` blocks that are not duplicates are the set's, "
            "and every duplicate is one of the set's `W`, drawn at random (fio's `dedupe_mode=working_set`). So of "
            "`N` blocks a job writes, about `data_dedupe` % repeat an earlier one once it has written `W` of its own "
            "(fio: the share converges). 0: every duplicate is the run's one base block"},
    {KEY("data_dedupe_global", K_BOOL, data_dedupe_global, 0, 1),
     .group = "data", .fio = "dedupe_global", .flags = MEASURES,
     .help = "with data_dedupe_set: one working set shared by all jobs (and the group's workloads that set it)",
     .dflt = "0",
     .range = "bool",
     .doc = "with `data_dedupe_set`: the jobs share one working set of `W` blocks, each writing its `1/n` of it "
            "first (n: the run's jobs, and in `nvb_run_groups` the jobs of every workload of the group that sets "
            "this key, which share the set when they have the same `seed` and `bs`), and duplicates drawn from "
            "all of it, as fio's `dedupe_global`: a job's own blocks dedupe less, all jobs' together at "
            "`data_dedupe`. 0: each job its own set"},
    {KEY("seed", K_U64, seed, 0, UINT64_MAX),
     .group = "data", .fio = "randseed", .flags = FIO_AS_IS,
     .help = "seed of offsets and data",
     .dflt = "7959657617677615105",
     .range = "u64",
     .doc = "seed of offsets, the read/write mix and data; same seed, same sequence"},
    {KEY("rate_iops", K_U64, rate_iops, 0, UINT64_MAX),
     .unit = "I/Os per second", .group = "rate", .fio = "rate_iops", .flags = MEASURES,
     .help = "IOPS cap over all jobs (0: none)",
     .dflt = "0",
     .doc = "I/Os per second over all jobs, 0: none (each job takes `rate_iops / jobs`)"},
    {KEY("rate_period", K_DURATION, rate_period_ns, 0, 86400ull * NS_PER_S), .echo = "rate_period_s",
     .unit = "seconds", .group = "rate", .flags = MEASURES,
     .help = "the period rate_iops counts its I/Os over (0: one second): rate_iops=3 rate_period=10s is 0.3 I/Os/s",
     .dflt = "0 (one second)", .range = "0 .. 1 day",
     .doc = "`rate_iops` I/Os per this period, for rates that are not a whole number of I/Os a second (fio's "
             "`rate` in bytes per second, exitwhat's 300 bytes/s of 4 KiB blocks); the result's `rate.target_iops` "
             "is then the rate per second, rounded down"},
    {KEY("rate_mode", K_ENUM, rate_mode, 0, 0), .names = rate_mode_names,
     .group = "rate", .flags = MEASURES,
     .help = "with rate_iops: open (each I/O starts on a schedule, latency from its intended start) or closed "
              "(an I/O waits for a free slot before it is stamped: coordinated omission)",
     .dflt = "`open`",
     .range = "`open`, `closed`",
     .doc = "with `rate_iops`: `open` gives every I/O an intended start on a schedule, submits it then "
             "whatever is in flight (up to `qd`; beyond, it waits for a slot and that wait counts) and counts "
             "its latency from the intended start; `closed` stamps an I/O when a free slot lets it go (a "
             "stall then hides the waiting behind it: coordinated omission). The result's `rate` object says "
             "which ran and how well the schedule was kept ([json-schema.md](json-schema.md#rate))"},
    {KEY("rate_process", K_ENUM, rate_process, 0, 0), .names = rate_process_names,
     .group = "rate", .fio = "rate_process",
     .help = "open-loop arrivals: uniform (evenly spaced) or poisson (exponential gaps, seeded by seed)",
     .dflt = "`uniform`",
     .range = "`uniform`, `poisson`",
     .doc = "the rate's arrivals, open or closed loop: evenly spaced (the first one interval after the "
             "start, so no window holds more than the rate), or a Poisson process of the same mean rate "
             "(exponential gaps, seeded from `seed`); `rate.gap_cv` in the result shows the arrivals as "
             "submitted (about 1 for poisson). An open loop arrives on time: the job sleeps until shortly "
             "before an intended start (by as much as its timed waits have been ending late, at most a "
             "quarter of the mean gap and 200 us) and spins the rest, reaping as it goes; the time spun is "
             "`rate.spin_ns`. What lateness is left is `rate.late_*`, apart from the wait for a free slot, "
             "`rate.queue_full_*` (a stall behind `fault.delay` lands there)"},
    {KEY("cpus", K_CPULIST, cpus, 0, 0),
     .group = "workload", .fio = "cpus_allowed",
     .help = "CPU list jobs are pinned to, round robin; local: the CPUs of the target's NUMA node",
     .dflt = "`\"\"`",
     .range = "list such as `0-3,6`, or `local`",
     .doc = "pin job i to the i-th listed CPU, round robin; `local`: the CPUs of the first target's "
             "device's NUMA node, its buffers bound there (a one-node machine's node when sysfs names none; "
             "not pinned, with a warning, when the node is unknown; docs/cpu.md)"},
    {KEY("allow_destructive", K_BOOL, allow_destructive, 0, 1),
     .group = "safety",
     .help = "permit writes to block devices",
     .dflt = "0",
     .range = "bool",
     .doc = "permit writes to a block device (refused with `-EPERM` otherwise, naming what would be "
             "destroyed). A target in use (mounted, held by dm/md, swap device or swap file, backing a loop "
             "device in use or backed by a device in use, or a partition or alias of one that is) is refused "
             "with `-EBUSY` whatever this says ([devices.md](devices.md))"},
    {KEY("target_mode", K_ENUM, target_mode, 0, 0), .names = tmode_names,
     .group = "workload",
     .help = "shared: every job drives every target; split: targets divided among jobs",
     .dflt = "`shared`",
     .range = "`shared`, `split`",
     .doc = "shared: every job drives every target; split: targets dealt out among jobs"},
    {KEY("seq_start", K_ENUM, seq_start, 0, 0), .names = seq_start_names,
     .group = "workload",
     .help = "where sequential jobs sharing a target start: staggered over the region, or all at its start (same)",
     .dflt = "`staggered`",
     .range = "`staggered`, `same`",
     .doc = "staggered: job i of n starts at i/n of the region (each still covers it all); same: every job "
            "starts at the region's start, as fio's clones of a sequential job do (fio's `numjobs` without "
            "`offset_increment`). `same` with `verify=1` and writes by more than one job is refused: the jobs "
            "would write the same blocks"},
    {KEY("seq_stride", K_SSIZE, seq_stride, 0, 0),
     .unit = "bytes", .group = "region", .flags = MEASURES,
     .help = "sequential I/O: bytes from one I/O's end to the next one's start (negative: backwards)",
     .dflt = "0",
     .range = "-4E..4E (bytes, with units: -8k, 112k)",
     .doc = "a sequential job's next I/O starts this many bytes after the previous one's end (fio's "
            "`rw=read:N`, `rw_sequencer=sequential`); a negative stride steps back. Past the region's end a "
            "positive stride starts again at the region's start; before its start a negative one starts again "
            "at the region's end plus the stride, and a job's first I/O is at the region's start, as fio's. "
            "Only with a sequential `rw`, without `bssplit`; with `verify=1` a multiple of `bs`, each job striding through "
            "its own slice of the region (see [Offset patterns](#offset-patterns))"},
    {KEY("blockalign", K_SIZE, blockalign, 0, 1ull << 40),
     .unit = "bytes", .group = "region", .fio = "blockalign", .flags = MEASURES,
     .help = "random offsets of a bssplit at multiples of this (0: its smallest size)",
     .dflt = "0",
     .range = "bytes",
     .doc = "random offsets of a `bssplit` are multiples of this (fio's `blockalign`); 0: the split's smallest "
            "size, fio's default. Without a split only 0 or `bs` (a random I/O of one size is a whole block of "
            "`bs`); with `random_map=1` only the smallest size"},
    {KEY("zone_size", K_SIZE, zone_size, 0, UINT64_MAX),
     .unit = "bytes", .group = "region", .fio = "zonesize", .flags = MEASURES,
     .help = "zone_mode=none: sequential I/O in zones of this many bytes; zone_mode=zbd: an emulated zone's size",
     .dflt = "0",
     .range = "bytes; with `zone_mode=zbd` 512 or more, at least `bs`",
     .doc = "with `zone_mode=none`, sequential I/O in zones (fio's `zonemode=strided`): this many bytes in a zone "
            "of `zone_range` bytes, then the next zone starts `zone_range + zone_skip` bytes further; past the "
            "region's end back at its start. 0: no zones. Only with a sequential `rw`, without `bssplit` and "
            "`verify=1`. With `zone_mode=zbd`, the size of each emulated zone: the region's offset must be a "
            "multiple of it (zones start at offset 0 of the target), and only its whole zones are used"},
    {KEY("zone_range", K_SIZE, zone_range, 0, UINT64_MAX),
     .unit = "bytes", .group = "region", .fio = "zonerange", .flags = MEASURES,
     .help = "sequential I/O in zones: the zone's length (0: zone_size)",
     .dflt = "0",
     .range = "bytes",
     .doc = "a zone's length with `zone_size`: I/O past it starts again at the zone's start; 0 means "
            "`zone_size`, as fio's"},
    {KEY("zone_skip", K_SIZE, zone_skip, 0, UINT64_MAX),
     .unit = "bytes", .group = "region", .fio = "zoneskip", .flags = MEASURES,
     .help = "sequential I/O in zones: bytes skipped between one zone's end and the next zone",
     .dflt = "0",
     .range = "bytes",
     .doc = "bytes between a zone's end and the next zone's start, with `zone_size`"},
    {KEY("verify", K_BOOL, verify, 0, 1),
     .group = "data", .fio = "verify", .flags = MEASURES,
     .help = "write a pattern derived from (seed, offset) and check it on read",
     .dflt = "0",
     .range = "bool",
     .doc = "every block written starts with a header (target, offset, seed, sequence, block size) and "
             "carries a CRC32C over the whole block; reads check it ([reliability.md](reliability.md)). Which "
             "reads are checked: a run that writes (`randrw`, `rw`) checks the blocks it has written itself, "
             "each against its last completed write, and counts reads of blocks it has not written yet as "
             "`verify.unchecked` (a scratch file laid out, or a target preconditioned, with `verify=1` has "
             "every block checked); a read-only run (`read`, `randread`) checks every block it reads, so its "
             "blocks must have been written that way first (`rw=write verify=1` over the region, the same "
             "`seed`, `bs`, `jobs` and target order), else they count as mismatches. With writes, each job "
             "keeps at most one I/O per block in flight and jobs sharing a target write disjoint parts of it "
             "(sequential jobs one contiguous slice each, starting where that job's read-back starts; random "
             "jobs block `i` with `i mod jobs = rank`), so no read can see half of two writes; a bit per "
             "block written (`size / bs / 8` bytes) is counted in the run's memory. A target named twice (by "
             "name, hard link or another device node) is refused. A mismatch is an error exit in the CLI and "
             "the examples, `nvbench.VerifyError` in Python, `nil, message, errno` in Lua. `bs` of at least 48"},
    {KEY("verify_readback", K_BOOL, verify_readback, 0, 1),
     .group = "data", .fio = "do_verify",
     .help = "with verify=1 and writes: each job reads back and checks the blocks it wrote once its writes end",
     .dflt = "0",
     .range = "bool",
     .doc = "with `verify=1` and writes: when a job's writes end (its share of `io_limit`, `ios`, or the "
            "`runtime`), it reads back every block it wrote in this run, once each, in offset order and `qd` "
            "at a time, and checks each against its last write, as fio's `do_verify` checks the writes its "
            "job logged. A block the job did not write (a `runtime` that ended the writes early, random "
            "writes that skipped it) is not read, so it never counts as a mismatch. The read-back comes "
            "after the measured window: its reads are in `verify.checked` and `verify.mismatches` (and "
            "`errors`), in no throughput or latency figure. A read-back after a cancel or an error does not "
            "start"},
    {KEY("verify_backlog", K_U64, verify_backlog, 0, 1u << 20),
     .unit = "writes", .group = "data", .fio = "verify_backlog", .flags = MEASURES | FIO_AS_IS,
     .help = "with verify=1 and writes: every N completed writes the job reads back and checks those N blocks",
     .dflt = "0 (none)",
     .range = "0..1048576",
     .doc = "with `verify=1` and writes: once a job has N writes completed since its last check, it stops "
            "submitting, lets what is in flight complete, reads back the blocks those writes wrote (`qd` at a "
            "time) and checks each against its last write, then goes on writing; when its writes end, the blocks "
            "written since the last check are checked too, as fio's `verify_backlog` does. The checks take time "
            "in the measured window (the writes' figures include it); their reads are in `verify.checked` and "
            "`verify.mismatches` (and `errors`), in no throughput or latency figure. 8 bytes per N in memory"},
    {KEY("verify_pattern", K_STRING, verify_pattern, 0, 0),
     .group = "data", .fio = "verify_pattern", .flags = MEASURES,
     .help = "with verify=1: each block's payload repeats these bytes (0x and hex digits) in place of random data",
     .dflt = "`\"\"` (random data)",
     .range = "`0x` and 2 to 62 hex digits (an even count), or `\"\"`",
     .doc = "with `verify=1`: each verification block keeps its header and CRC32C, and the bytes after the header "
            "repeat the pattern (its byte `i mod length` at the block's byte `i`, the bytes in the order written: "
            "`0xaa555aa5` is aa 55 5a a5), as fio's `verify_pattern` lays out a hex pattern; a read checks the "
            "header, the CRC and every byte of the pattern. Blocks written with a pattern are read back with "
            "the same pattern. Needs `verify=1`"},
    {KEY("continue_on_error", K_BOOL, continue_on_error, 0, 1),
     .group = "errors", .fio = "continue_on_error",
     .help = "count I/O errors and go on instead of stopping",
     .dflt = "0",
     .range = "bool",
     .doc = "count failed I/Os and go on; by default the first one stops the run with its errno"},
    {KEY("continue_errnos", K_STRING, continue_errnos, 0, 0),
     .group = "errors", .flags = MEASURES,
     .help = "with continue_on_error: go on after these errnos only, a ':' list (EIO:EILSEQ); \"\": after any",
     .dflt = "\"\" (any errno)",
     .doc = "with `continue_on_error=1`, the errnos the run goes on after (names or numbers, `:` between); any "
             "other failed I/O stops it as without `continue_on_error` (fio's `ignore_error` list, and its default "
             "EIO and EILSEQ)"},
    /* Block-size mixes and think time (core/bsmix.h, core/loopmix.h). */
    {KEY("bssplit", K_BSSPLIT, bssplit, 0, 0),
     .unit = "bytes", .group = "workload", .fio = "bssplit", .flags = MEASURES,
     .help = "block sizes with percentages, fio's syntax: 4k/50:64k/30:128k/20, or READLIST,WRITELIST (unset: "
              "bs)",
     .dflt = "`\"\"` (unset: every I/O is `bs`)",
     .range = "up to 64 sizes per direction, 1 .. 1G each",
     .doc = "a block-size mix, fio's `bssplit` syntax: `4k/50:64k/30:128k/20` (size/percent, integer "
             "percentages summing to 100); `READLIST,WRITELIST` gives reads and writes their own "
             "(`2k/50:4k/50,4k/90:8k/10`), one list applies to both, an empty list leaves that direction to "
             "`bs` (`,64k/100`). A size without a percentage shares what the others leave evenly "
             "(`4k/10:8k:64k/50:16k:32k`: 14, 13, 13, the first ones one more when it does not divide), as "
             "fio does; percentages above 100 in sum, below 100 with none left blank, a size twice, or a "
             "third (trim) list are refused naming the key and the value. Each I/O draws its size from a "
             "100-entry table (one random number and one load: "
             "[benchmarks.md](benchmarks.md#block-size-mixes-and-think-time)). Random offsets are multiples "
             "of the direction's smallest size (fio's `blockalign` default, its minimum block size) where the "
             "drawn size fits in the region; sequential ones (`read`, `write`, `rw`) follow the previous I/O "
             "of the target directly and start over at the region's start when the next size would pass its "
             "end. Buffers are sized for the largest size, the memory estimate too; with `direct=1` every "
             "size must be a multiple of the logical block size and the largest must fit every region. Not "
             "with `verify=1` (a verification block has one size): refused naming the keys. With `io_limit` "
             "the bytes are a budget: each job gets its share in whole units of the smallest size and, once a "
             "drawn size no longer fits what is left, takes the largest smaller size of the split that does, "
             "ending when none fits; so a split whose sizes are multiples of its smallest moves exactly "
             "`io_limit` bytes (rounded down to that unit), any other at most the smallest size less per job "
             "(fio too picks a size that fits what is left). `precondition` writes `bs` passes without the "
             "mix. The result counts the I/Os by size per direction (`bs_counts`, "
             "[json-schema.md](json-schema.md))"},
    {KEY("ioprio_class", K_UINT, ioprio_class, 0, 3),
     .group = "workload", .fio = "prioclass", .flags = MEASURES | FIO_AS_IS,
     .help = "the I/O priority class of every job's I/O: 1 real time, 2 best effort, 3 idle (0: the default)",
     .dflt = "0",
     .range = "0 .. 3 (the kernel's classes)",
     .doc = "each job's thread gets this I/O priority class (Linux `ioprio_set`) before its engine starts, "
             "so its I/O carries it on every engine (io_uring also puts it in each request, for a submitting "
             "thread of the kernel's with `io_uring.sqpoll`); the device's I/O scheduler (bfq, mq-deadline) "
             "acts on it. Real time needs CAP_SYS_ADMIN or CAP_SYS_NICE: without, the run fails saying so. "
             "With `ioprio` but class 0: best effort (fio's `prioclass`). The result's `engine_used.ioprio` says "
             "which was set. Elsewhere than Linux refused"},
    {KEY("ioprio", K_UINT, ioprio, 0, 7),
     .group = "workload", .fio = "prio", .flags = MEASURES | FIO_AS_IS,
     .help = "the I/O priority level within ioprio_class, 0 (highest) to 7",
     .dflt = "0",
     .doc = "the level within `ioprio_class` (fio's `prio`); both 0: the job's I/O keeps the thread's default "
             "priority (fio too sets none then, unless `prio=0` is written out)"},
    {KEY("cmdprio_pct", K_UINT, cmdprio_pct, 0, 100),
     .unit = "percent", .group = "workload", .fio = "cmdprio_percentage", .flags = MEASURES,
     .help = "percent of the I/Os that get the priority cmdprio_class/cmdprio instead of the job's",
     .dflt = "0",
     .range = "0 .. 100",
     .doc = "each I/O is drawn (one generator per job, from `seed`): this percent get the priority "
             "`cmdprio_class`/`cmdprio` in the request itself, the others the job's (`ioprio_class`, "
             "`ioprio`, or none); io_uring and libaio only (the engines whose requests carry a priority), "
             "refused with the others (`engine_used.cmdprio` in the result). Latency is reported over all I/Os, "
             "not split by priority"},
    {KEY("cmdprio_class", K_UINT, cmdprio_class, 0, 3),
     .group = "workload", .fio = "cmdprio_class", .flags = MEASURES,
     .help = "the class of cmdprio_pct's I/Os: 1 real time (also for 0, the default), 2 best effort, 3 idle",
     .dflt = "0 (real time)",
     .range = "0 .. 3"},
    {KEY("cmdprio", K_UINT, cmdprio, 0, 7),
     .group = "workload", .fio = "cmdprio", .flags = MEASURES,
     .help = "the level of cmdprio_pct's I/Os within cmdprio_class, 0 (highest) to 7", .dflt = "0"},
    {KEY("cmdprio_bssplit", K_STRING, cmdprio_bssplit, 0, 0),
     .group = "workload", .fio = "cmdprio_bssplit", .flags = MEASURES,
     .help = "priorities by I/O size: READS[,WRITES] lists of SIZE/PCT (at cmdprio_class/cmdprio) or "
             "SIZE/PCT/CLASS/LEVEL[/HINT], e.g. 64k/100:1m/0 or 64k/25/1/1:64k/75/3/2 (fio's syntax)",
     .dflt = "none", .doc = "of the I/Os of each listed size, PCT percent carry that priority (one draw per I/O; "
             "a size's entries add up to at most 100; HINT 1-7: a Command Duration Limits descriptor), the others "
             "the job's (fio's `cmdprio_bssplit`); io_uring and libaio only; not with `cmdprio_pct`"},
    {KEY("flow", K_UINT, flow, 0, 1000),
     .group = "timing", .fio = "flow", .flags = MEASURES | FIO_AS_IS,
     .help = "weight in flow control between jobs sharing a flow_id: their I/O counts keep to the ratio of "
              "their weights (0: none)",
     .dflt = "0",
     .range = "0 .. 1000 (fio's range)",
     .doc = "token-based flow control between the jobs of a run, and of the groups of one step "
             "(`nvb_run_groups`, the jobs of a fio job file running together), that share a `flow_id`: a job "
             "issues an I/O only while its share of the I/Os the flow has issued so far is at most its share of "
             "the flow's weight (each of `jobs` counts as one job of this weight), so the I/O counts keep to "
             "the ratio of the weights, and the faster jobs wait for the slower (fio's `flow`). A job held back reaps what it has in flight "
             "and then sleeps `flow_sleep`; a job that ends leaves the flow, its I/Os and its weight no longer "
             "count. The precondition runs without it"},
    {KEY("flow_id", K_UINT, flow_id, 0, 4294967295u),
     .group = "timing", .fio = "flow_id", .flags = MEASURES | FIO_AS_IS,
     .help = "the flow a job with flow > 0 belongs to",
     .dflt = "0",
     .doc = "jobs (and groups of one step) with `flow` set and the same `flow_id` share one flow"},
    {KEY("exitall", K_ENUM, exitall, 0, 0), .names = exitall_names,
     .group = "timing", .fio = "exitall", .flags = MEASURES,
     .help = "when the first of this workload's jobs ends, stop: off, group (its jobs and the step's groups of "
              "its exitall_group), step (every group of the step)",
     .dflt = "`off`", .range = "`off`, `group`, `step`",
     .doc = "the end of this workload's first job (its bound reached, or an error) stops the others as their "
             "runtime's end would: `group` its own jobs and, in `nvb_run_groups`, the step's groups with its "
             "`exitall_group`; `step` every group of the step (fio's `exitall` with `exit_what=group` or "
             "`stonewall`). A group so stopped says so in its warnings; its figures cover the run up to then"},
    {KEY("exitall_group", K_UINT, exitall_group, 0, 4294967295u),
     .group = "timing", .flags = MEASURES,
     .help = "exitall=group: the groups of a step that stop together share this number",
     .dflt = "0", .doc = "with `exitall=group`: the step's groups of this number stop with it (fio's reporting "
                         "group: `new_group`)"},
    {KEY("flow_sleep", K_USEC, flow_sleep_ns, 0, 3600ull * NS_PER_S), .echo = "flow_sleep_s",
     .unit = "microseconds", .group = "timing", .fio = "flow_sleep", .flags = MEASURES | FIO_AS_IS,
     .help = "how long a job held back by its flow sleeps before it tries again (0: it yields the CPU)",
     .dflt = "0",
     .range = "0 .. 1h; a bare number is microseconds (fio's unit), or `250us`, `2ms`",
     .doc = "a job held back by its `flow` first reaps what it has in flight, then sleeps this long and "
             "tries again (fio's `flow_sleep`); 0 yields the CPU and tries again at once (fio spins)"},
    {KEY("thinktime", K_USEC, thinktime_ns, 0, 3600ull * NS_PER_S), .echo = "thinktime_s",
     .unit = "microseconds", .group = "timing", .fio = "thinktime", .flags = MEASURES,
     .help = "pause after every thinktime_blocks I/Os have completed: microseconds as fio's, or with a unit "
              "(2ms)",
     .dflt = "0",
     .range = "0 .. 1h; a bare number is microseconds (fio's unit), or `250us`, `2ms`, `1s`",
     .doc = "after every `thinktime_blocks` I/Os of a job have completed, the job issues nothing for this "
             "long (fio's `thinktime` with `thinktime_blocks_type=complete`, its default). The job issues at "
             "most `thinktime_blocks` I/Os, waits for all of them, then sleeps: so `qd` above "
             "`thinktime_blocks` acts as `thinktime_blocks`, as in fio. Slept, not spun (fio's "
             "`thinktime_spin` has no equivalent here; the OS timer's slack of some tens of microseconds adds "
             "to short think times). Think time counts in `duration_s`, so IOPS and bandwidth are those of "
             "the application modelled, pauses included. With `rate_iops` and `rate_mode=open` the schedule "
             "pauses with the job: the intended starts after a think move later by the time slept, so the "
             "pause is neither lag nor latency and the rate holds between thinks (fio by default catches up "
             "after a think instead; this is its `rate_ign_think=1`); with `rate_mode=closed` its schedule "
             "moves the same way. A think is cut short at the end of the window or a stop. Not applied in the "
             "`precondition` phase"},
    {KEY("thinktime_blocks", K_UINT, thinktime_blocks, 1, 1u << 30),
     .unit = "I/Os", .group = "timing", .fio = "thinktime_blocks", .flags = MEASURES | FIO_AS_IS,
     .help = "I/Os between think times",
     .dflt = "1",
     .range = "1 .. 2^30",
     .doc = "I/Os between think times (fio's `thinktime_blocks`); without `thinktime` it does nothing"},
    {KEY("submit_batch", K_UINT, submit_batch, 0, 16384),
     .unit = "I/Os", .group = "workload", .fio = "iodepth_batch_submit", .flags = MEASURES | FIO_AS_IS,
     .help = "most I/Os queued per submission (0: qd)",
     .dflt = "0",
     .range = "0..16384",
     .doc = "most I/Os handed to the engine per submit call, 0: `qd`. Below the free slots, the loop makes "
             "as many calls as it takes to fill every free slot before it waits for completions "
             "(`submit_batch=1`: one call per I/O, the queue kept at `qd`, as fio's default "
             "`iodepth_batch_submit=1`); the result's `submissions` says the batch, what a slat covers and "
             "the depth kept ([engines.md](engines.md#batching-and-slat-against-fio))"},
    {KEY("complete_batch", K_UINT, complete_batch, 1, 16384),
     .unit = "I/Os", .group = "workload", .fio = "iodepth_batch_complete_min", .flags = FIO_AS_IS,
     .help = "completions to wait for when the queue is full",
     .dflt = "1",
     .range = "1..16384",
     .doc = "completions to wait for when the queue is full"},
    {KEY("name", K_STRING, name, 0, 0),
     .group = "workload", .fio = "name",
     .help = "a label carried into the result",
     .dflt = "`\"\"`",
     .range = "up to 63 chars",
     .doc = "label copied into the result"},
    {KEY("lat_include_errors", K_BOOL, lat_include_errors, 0, 1),
     .group = "errors",
     .help = "failed I/Os count in the latency histograms too",
     .dflt = "0",
     .range = "bool",
     .doc = "failed I/Os' latency goes into the histograms too (`lat_hist.count` is then `ios` + that "
             "direction's errors)"},
    {KEY("io_timeout", K_DURATION, io_timeout_ns, 0, 86400ull * NS_PER_S), .echo = "io_timeout_s",
     .unit = "seconds", .group = "safety",
     .help = "watchdog: a job with I/O in flight and no completion for this long stops the run (0: wait "
              "forever)",
     .dflt = "60s",
     .range = "duration, 0: off",
     .doc = "the watchdog: an I/O in flight for this long (the job looks at the age of each in-flight I/O "
             "every `io_timeout`/8, at most every 100 ms), or a job with I/O in flight and no completion for "
             "this long, stops the run with `-ETIMEDOUT` and a partial result whose error names the I/O "
             "(target, offset) or says how many were in flight; the I/Os that still complete are taken first. "
             "Waits in the asynchronous engines last at most 100 ms at a time (or `io_timeout` when shorter), "
             "so that the watchdog and stop requests are noticed. I/Os still in the kernel are abandoned: "
             "their buffers stay allocated until the process exits (a warning says how many), since the "
             "device may still write into them. A synchronous engine (`psync`, `wsync`) blocked inside one "
             "read or write cannot be interrupted by the library; IOPOLL rings poll in the kernel without the "
             "timeout ([reliability.md](reliability.md))"},
    /* Fault injection around any engine (core/fault.h). */
    {KEY("fault.rate", K_PROB, fault_rate, 0, 0),
     .unit = "probability", .group = "fault",
     .help = "probability that an I/O fails with fault.errno (0.001, 1/1000, 0.1%)",
     .dflt = "0",
     .range = "probability",
     .doc = "fail this share of I/Os with `fault.errno` without handing them to the engine (the device is "
             "not touched). Probabilities: `0.001`, `1/1000`, `0.1%`"},
    {KEY("fault.errno", K_ERRNO, fault_errno, 0, 0),
     .group = "fault",
     .help = "errno of injected failures, by name (EIO) or number",
     .dflt = "`EIO`",
     .range = "name or 1..255",
     .doc = "errno of injected failures (`ENOSPC`, `61`)"},
    {KEY("fault.short", K_PROB, fault_short, 0, 0),
     .unit = "probability", .group = "fault",
     .help = "probability of a short transfer (half the length)",
     .dflt = "0",
     .range = "probability",
     .doc = "cut this share of transfers to half their length (kept a multiple of the logical block size "
             "with `direct=1`; below that the engine's answer is cut instead). A short write leaves the block "
             "half written, as a real one would"},
    {KEY("fault.delay", K_DURATION, fault_delay_ns, 0, 10ull * NS_PER_S), .echo = "fault.delay_s",
     .unit = "seconds", .group = "fault",
     .help = "completion delay added to delayed I/Os",
     .dflt = "0",
     .range = "up to 10s",
     .doc = "hold a completion back this long after the engine reported it"},
    {KEY("fault.delay_rate", K_PROB, fault_delay_rate, 0, 0),
     .unit = "probability", .group = "fault",
     .help = "probability that an I/O is delayed by fault.delay",
     .dflt = "1",
     .range = "probability",
     .doc = "share of I/Os delayed by `fault.delay`"},
    {KEY("fault.seed", K_U64, fault_seed, 0, UINT64_MAX),
     .group = "fault",
     .help = "seed of the fault decisions (default: from seed)",
     .dflt = "from `seed`",
     .range = "u64",
     .doc = "seed of the fault decisions; per job, the same seed fails the same I/Os on every engine"},
    /* Preconditioning and steady state, SNIA PTS style (docs/steady-state.md). */
    {KEY("precondition", K_UINT, precondition, 0, 1000),
     .unit = "passes", .group = "steady state",
     .help = "sequential full-region write passes over each target before the measured run, not counted (0: "
              "none; random: one pass of random writes with planned invalidation)",
     .dflt = "0",
     .range = "0..1000, `random`",
     .doc = "before the measured run, this many sequential write passes over each target's whole region (one "
             "job per target, `bs` the larger of 128k and `bs`, or `bs` with `verify=1`; the workload's "
             "engine, engine options and `qd`), SNIA PTS style. A phase of its own: its bytes and duration "
             "are in the result's `precondition` object, never in the figures. It writes: a read workload "
             "with `precondition` needs `allow_destructive=1` on a block device and is refused on a target in "
             "use exactly as a write is ([steady-state.md](steady-state.md)). `precondition=random` is short for "
             "`precondition=1` with `precondition.mode=random`; a number sets `precondition.mode=seq`"},
    {KEY("precondition.mode", K_ENUM, precond_mode, 0, 0), .names = precond_names, .echo = "precondition_mode",
     .group = "steady state",
     .help = "how precondition writes: seq (sequential passes) or random (planned invalidation, fio's sprandom)",
     .dflt = "`seq`",
     .range = "`seq`, `random`",
     .doc = "`random`: one pass of `bs` random writes over each target with planned invalidation (the "
             "`sprandom.*` keys shape it, as for `sprandom=1`), bringing a drive to its random-write steady "
             "state in about one pass of its physical size; only with `precondition=1`. The result's "
             "`precondition` object then has `regions` and `rewrites` ([steady-state.md](steady-state.md))"},
    {KEY("sprandom", K_BOOL, sprandom, 0, 1), .echo = "sprandom.enabled",
     .group = "steady state", .fio = "sprandom", .flags = MEASURES | FIO_AS_IS,
     .help = "randwrite offsets follow the planned-invalidation sequence (fio's sprandom)",
     .dflt = "0",
     .range = "bool",
     .doc = "the measured `rw=randwrite` writes the planned-invalidation sequence: every block of the "
             "region once in a random order, plus rewrites planned per region, in all the region's length "
             "x (1 + `sprandom.op`) rounded down to `bs` (fio's sprandom; its I/O count is the plan's, as "
             "fio's io_size becomes that length); one job, one target, no `io_limit`, `ios` or `bssplit` "
             "([steady-state.md](steady-state.md))"},
    {KEY("sprandom.op", K_PROB, spr_op, 0, 0),
     .group = "steady state", .fio = "spr_op", .flags = MEASURES | FIO_AS_IS,
     .help = "over-provisioning of the drive, above 0 and below 1, for the sprandom plan",
     .dflt = "0.15",
     .range = "(0, 1)",
     .doc = "the drive's over-provisioning (spare over logical capacity) as its maker states it: the "
             "plan writes the logical size x (1 + op) and invalidates as a drive with that spare does at "
             "steady state"},
    {KEY("sprandom.regions", K_UINT, spr_regions, 2, NVB__SPR_MAX_REGIONS),
     .group = "steady state", .fio = "spr_num_regions", .flags = MEASURES | FIO_AS_IS,
     .help = "regions of the sprandom plan (more: finer steps of validity, less memory)",
     .dflt = "100",
     .range = "2..1000000",
     .doc = "the regions the plan's writes are cut into, each with its own share of invalidated blocks; "
             "the generator keeps the picks of two regions in memory (8 bytes each)"},
    {KEY("sprandom.cache", K_SIZE, spr_cache, 0, UINT64_MAX),
     .unit = "bytes", .group = "steady state", .fio = "spr_cs", .flags = MEASURES | FIO_AS_IS,
     .help = "the drive's write cache: a region's rewrites go at the end of the next region (0: none)",
     .dflt = "0",
     .range = "size",
     .doc = "the drive's write cache as its maker states it: when set, a region's rewrites come at the end "
             "of the next region instead of its start, and the plan is refused unless every rewrite comes "
             "at least this many bytes of other writes after the block it overwrites (so the cache cannot "
             "absorb both)"},
    {KEY("ss", K_ENUM, ss_metric, 0, 0), .names = ss_names, .echo = "ss.metric",
     .group = "steady state", .fio = "steadystate",
     .help = "steady state judged on: off, iops, bw or lat",
     .dflt = "`off`",
     .range = "`off`, `iops`, `bw`, `lat`",
     .doc = "judge steady state over the time series on this metric (per round: IOPS, bytes/s, or mean "
             "latency of both directions); the result's `steady_state` object says whether and when it was "
             "reached ([steady-state.md](steady-state.md))"},
    {KEY("ss.window", K_DURATION, ss_window_ns, 0, 30ull * 86400 * NS_PER_S), .echo = "ss.window_s",
     .unit = "seconds", .group = "steady state", .fio = "steadystate_duration",
     .help = "steady-state window: its rounds are the intervals in it (0: 5 intervals)",
     .dflt = "0",
     .range = "duration, 0: 5 intervals",
     .doc = "the window of rounds judged; a round is one time-series interval (`interval`), so the window "
             "holds `ss.window / interval` rounds (rounded down, 3 .. 100000)"},
    {KEY("ss.excursion", K_PCT, ss_excursion, 0, 0), .echo = "ss.excursion_pct",
     .unit = "percent", .group = "steady state",
     .help = "steady when max - min of the window's rounds is within this percent of their mean",
     .dflt = "20",
     .range = "percent 0..100 (`20`, `12.5`, `20%`)",
     .doc = "steady when max - min of the window's rounds is at most this share of their mean (SNIA PTS: 20)"},
    {KEY("ss.slope", K_PCT, ss_slope, 0, 0), .echo = "ss.slope_pct",
     .unit = "percent", .group = "steady state",
     .help = "... and the least-squares line's excursion over the window is within this percent of the mean",
     .dflt = "10",
     .range = "percent 0..100",
     .doc = "... and the least-squares line over the window rises or falls by at most this share of the mean "
             "across the window (SNIA PTS: 10)"},
    {KEY("ss.stop", K_BOOL, ss_stop, 0, 1),
     .group = "steady state",
     .help = "end the run when steady state is reached",
     .dflt = "0",
     .range = "bool",
     .doc = "end the run at the first steady window (needs `ss`); the usual figures are then the whole run "
             "up to that point, the window's mean is in `steady_state.mean`"},
};
const size_t nvb__nkeys = sizeof nvb__keys / sizeof nvb__keys[0];

NVB_API const char *nvb_workload_key(size_t i)
{
    return i < nvb__nkeys ? nvb__keys[i].name : NULL;
}
