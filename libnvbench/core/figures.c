/*
 * The table of the result's figures (figures.h): each row a key of one of
 * the objects it covers, in the order the writer writes them. The writer
 * (result.c), the reader (result_load.c), docs/result.schema.json and the
 * tables of docs/json-schema.md follow it; tools/gen_figures.py writes the
 * last two from nvb__figs_json() and tests/scripts/test_figures_current.sh
 * fails when they are not what it writes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/figures.h"
#include "core/internal.h"
#include "util/json.h"

const char *const nvb__fig_sec_names[NVB__FS_COUNT] = {"dir", "target", "errors", "verify",
                                                        "vmismatch", "precondition", "thread", "submissions",
                                                        "rate", "host", "fault", "faultdir", "hostdir", "total", "run", "end",
                                                        "lat", "hist", "cpu", "hostcpu", "ss", "device", "pcache", "ts", "tsdir", "head", "energy",
                                                        "devlog", "health", "healthd", "devpower", "devmedia"};
const char *const nvb__fig_type_names[] = {"u64", "u32", "long", "double", "bool", "string", "string",
                                           "rate", "gib_rate", "mean", "dirsum", "sum", "num", "derived", "i64", "part"};
const char *const nvb__fig_merge_names[] = {"sum", "max", "recomputed", "histogram", "none", "each", "or",
                                            "first", "agree", "absent"};

/* A row: section, key, type, merge, flags, where, schema, unit, doc. */
#define ROW(sec, key, type, merge, flags, st, member, schema, unit, doc) \
    {NVB__FS_##sec, NVB__FT_##type, NVB__FM_##merge, flags, key, offsetof(st, member), \
     sizeof(((st *)0)->member), 0, schema, unit, doc}
#define PART(sec, key, merge, flags, schema, unit, doc) \
    {NVB__FS_##sec, NVB__FT_PART, NVB__FM_##merge, flags, key, 0, 0, 0, schema, unit, doc}
/* A mean of the result's: sum over count, both in struct nvb_result. */
#define MEAN(sec, key, flags, sum, count, unit, doc) \
    {NVB__FS_##sec, NVB__FT_MEAN, NVB__FM_RECOMP, flags, key, offsetof(struct nvb_result, sum), 0, \
     offsetof(struct nvb_result, count), "?nonneg", unit, doc}

#define D(key, type, merge, flags, member, schema, unit, doc) \
    ROW(DIR, key, type, merge, flags, struct nvb__dstat, member, schema, unit, doc)
#define T(key, type, merge, flags, member, schema, unit, doc) \
    ROW(TARGET, key, type, merge, flags, struct nvb__tstat, member, schema, unit, doc)
#define R(sec, key, type, merge, flags, member, schema, unit, doc) \
    ROW(sec, key, type, merge, flags, struct nvb_result, member, schema, unit, doc)
#define M(key, type, flags, member, schema, doc) \
    ROW(VMISMATCH, key, type, EACH, flags, struct nvb__vmismatch, member, schema, "", doc)
#define P(key, type, member, schema, unit, doc) \
    ROW(PRECOND, key, type, NONE, 0, struct nvb__precond_res, member, schema, unit, doc)
#define H(key, type, member, schema, unit, doc) \
    ROW(THREAD, key, type, EACH, 0, struct nvb__thread_row, member, schema, unit, doc)

/* A figure of lat_ns (struct nvb__latfig); a percentile's key names it */
#define L(key, type, member, doc) ROW(LAT, key, type, RECOMP, 0, struct nvb__latfig, member, "nonneg", "ns", doc)
#define PCT(k, i) L("p" k, NUM, p[i], NULL)

/* A row with off2: the int that says whether it is known (NVB__FF_IF). */
#define ROW2(sec, key, type, merge, flags, st, member, off2, schema, unit, doc) \
    {NVB__FS_##sec, NVB__FT_##type, NVB__FM_##merge, flags, key, offsetof(st, member), \
     sizeof(((st *)0)->member), off2, schema, unit, doc}
#define SS(key, type, flags, member, off2, schema, unit, doc) \
    ROW2(SS, key, type, NONE, flags, struct nvb__ss_res, member, off2, schema, unit, doc)
#define DV(key, type, flags, member, schema, unit, doc) \
    ROW(DEVICE, key, type, EACH, flags, struct nvb__tdev, member, schema, unit, doc)
#define PC(key, type, flags, member, off2, schema, unit, doc) \
    ROW2(PCACHE, key, type, EACH, flags, struct nvb__tcontent, member, off2, schema, unit, doc)
#define TS(key, type, merge, flags, member, schema, unit, doc) \
    ROW(TS, key, type, merge, flags, struct nvb__tsample, member, schema, unit, doc)
/* the first direction's element of each array; moved 8 bytes a direction */
#define TD(key, type, merge, member, schema, unit, doc) \
    ROW(TSDIR, key, type, merge, 0, struct nvb__tsample, member, schema, unit, doc)
#define IF NVB__FF_IF
/* energy: a row present only when measured (NVB__FF_AV) */
#define EN(key, type, member, schema, unit, doc) \
    ROW(ENERGY, key, type, ABSENT, NVB__FF_AV, struct nvb__energy, member, schema, unit, doc)
#define NZ NVB__FF_NZ
/* device_log: a row present only when the log was read (NVB__FF_AV); its power's */
#define DL(key, type, flags, member, schema, unit, doc) \
    ROW(DEVLOG, key, type, EACH, NVB__FF_AV | (flags), struct nvb__devlog, member, schema, unit, doc)
#define DLD(key, member, doc) \
    ROW(DEVLOG, key, DERIV, EACH, NVB__FF_AV | NVB__FF_G6, struct nvb__devlog_derived, member, "?nonneg", "", doc)
#define PW(key, type, flags, member, schema, unit, doc) \
    ROW(DEVPOWER, key, type, EACH, NVB__FF_AV | (flags), struct nvb__devlog, member, schema, unit, doc)
#define MD(key, type, flags, member, schema, unit, doc) \
    ROW(DEVMEDIA, key, type, EACH, NVB__FF_AV | (flags), struct nvb__devlog, member, schema, unit, doc)
/* a field of the health log (devlog.h's list): before and after, counts; delta, differences */
#define HEALTH(id, name, at, width, flags, unit, doc) \
    {NVB__FS_HEALTH, NVB__FT_U64, NVB__FM_EACH, flags, name, NVB__SM_##id * sizeof(uint64_t), width, at, \
     "{\"type\": \"integer\", \"minimum\": 0}", unit, doc},
#define HEALTHD(id, name, at, width, flags, unit, doc) \
    {NVB__FS_HEALTHD, NVB__FT_I64, NVB__FM_EACH, flags, name, offsetof(struct nvb__devlog_derived, delta) + \
     NVB__SM_##id * sizeof(int64_t), width, at, "{\"type\": \"integer\"}", unit, doc},

/* cpu: what the result stores, what the writer derives from it */
#define C(key, type, flags, member, schema, unit, doc) ROW(CPU, key, type, RECOMP, flags, struct nvb_result, member, schema, unit, doc)
#define CD(key, member, schema, unit, doc) \
    ROW(CPU, key, DERIV, RECOMP, 0, struct nvb__cpu_derived, member, "?" schema, unit, doc)
#define HC(key, type, flags, member, schema, unit, doc) \
    ROW(HOSTCPU, key, type, EACH, flags, struct nvb__hostrow, member, schema, unit, doc)

/* A part of a rate's lag: its sum, its mean over submissions.ios, its max (ns). */
#define LAG(name, sum, max, flags, doc) \
    R(RATE, name "_sum_ns", U64, SUM, flags, sub.sum, "?count", "ns", doc), \
    MEAN(RATE, name "_mean_ns", flags, sub.sum, sub.ios, "ns", NULL), \
    R(RATE, name "_max_ns", U64, MAX, flags, sub.max, "?count", "ns", NULL)
/* the first direction's element of the array; moved 8 bytes a direction */
#define FD(key, member, doc) ROW(FAULTDIR, key, U64, SUM, 0, struct nvb_result, member[0], "count", "I/Os", doc)
#define HR(key, type, member, schema, unit, doc) \
    ROW(HOST, key, type, EACH, 0, struct nvb__hostrow, member, schema, unit, doc)
/* the first direction's element of each array; the writer and the reader
 * move the base by 8 bytes a direction */
#define HD(key, type, member, schema, unit, doc) \
    ROW(HOSTDIR, key, type, EACH, 0, struct nvb__hostrow, member[0], schema, unit, doc)
_Static_assert(sizeof(double) == sizeof(uint64_t), "hosts[]' arrays by direction: 8-byte elements");

#define OLD NVB__FF_OLD
#define OPT NVB__FF_OPT
#define TRIM NVB__FF_TRIM
#define EXT NVB__FF_EXT
#define OPEN NVB__FF_OPEN
#define CPU NVB__FF_CPU
#define TICK NVB__FF_TICK

const struct nvb__fig nvb__figs[] = {
    /* the top level's first keys (a group's object has its name before them: written by code) */
    PART(HEAD, "schema", RECOMP, 0, "{\"const\": \"" NVB_SCHEMA_VERSION "\"}", "",
         "`\"" NVB_SCHEMA_VERSION "\"`"),
    PART(HEAD, "version", RECOMP, 0, "{\"type\": \"string\", \"pattern\": \"^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$\"}", "",
         "library version that produced it, `\"MAJOR.MINOR.PATCH\"`"),
    R(HEAD, "engine", STR, AGREE, 0, engine, "{\"type\": \"string\", \"pattern\": \"^[a-z0-9_]+$\"}", "",
      "engine name as requested (`psync`, `libaio`, `io_uring`, `nvme`, `null`)"),
    PART(HEAD, "engine_used", FIRST, 0,
         "{\"type\": \"object\", \"propertyNames\": {\"pattern\": \"^[a-z0-9_]+$\"}, "
         "\"additionalProperties\": {\"type\": \"string\"}}", "",
         "what the engine actually did, string values, keys owned by the engine: io_uring "
         "`setup_flags`, `entries`, `fixedbufs`, `regfiles`, `register_ring`, `sqpoll`, `sqpoll_cpu`, "
         "`iopoll`, `nop`, `wait_min`, and `*_why` keys giving the reason for a fallback; nvme "
         "`setup_flags`, `entries`, `regfiles`, `fixedbufs`, `iopoll`, `nsid`, `lba_size` (of the "
         "first target) and `*_why`; libaio `qd`; `{}` for psync and null; on Windows "
         "([windows.md](windows.md)) every engine's `stack` (`windows_native`, `windows_non_native`, "
         "`mixed` or `unknown`), `stack_source` (`detected`, `none`; `stated` when the seed_matrix "
         "program's `--stack` set it, which adds `stack_detected`), `stack_detail`, `disk_model`, "
         "`disk_driver` and `disk_driver_version` (its DriverVersion in the registry), iocp `skip_on_success`, `batch`, ioring `version`, `entries`, "
         "`um_emulation`, `regfiles`, `fixedbufs` and `*_why`; in results saved by the seed_matrix "
         "program (`--json`) also `os` and `cpu_model`, the machine's (examples/c/seed_facts.h)"),
    PART(HEAD, "workload", FIRST, 0, "{\"oneOf\": [{\"$ref\": \"#/definitions/workload\"}, {\"$ref\": \"#/definitions/groups_workload\"}]}", "",
         "the workload that ran, every key at its effective value (below)"),

    /* the top level, from qd_effective to ramp_s (the objects around them are written by code) */
    R(RUN, "qd_effective", U32, FIRST, 0, qd_effective, "count", "I/Os",
      "I/Os in flight per job actually used: `qd`, except 1 for the synchronous psync engine and for "
      "libaio with `direct=0`, which completes buffered I/O inside `io_submit` (a warning says so; "
      "[engines.md](engines.md)); a merge of job groups has the largest of theirs"),
    R(RUN, "start_unix_ns", U64, RECOMP, 0, start_wall_ns, "count", "ns",
      "wall clock (CLOCK_REALTIME) when the jobs were released (before the ramp), ns since the epoch; "
      "merged: the earliest part's"),
    PART(RUN, "start_time", RECOMP, 0,
         "{\"type\": \"string\", \"pattern\": \"^$|^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$\"}", "",
         "the same, UTC, `YYYY-MM-DDTHH:MM:SSZ`; `\"\"` if the run never started"),
    R(RUN, "host", STR, RECOMP, OLD, host, "string", "",
      "name of the machine that ran it (gethostname); `\"\"` for a merged result"),
    PART(RUN, "end_unix_ns", RECOMP, 0, "count", "ns",
         "wall clock at the end of the measured window (`start_unix_ns` + ramp + `duration_s`); 0 if the "
         "run never started"),
    R(RUN, "first_done_unix_ns", U64, RECOMP, OLD, first_done_wall_ns, "count", "ns",
      "wall clock when the first job finished; 0 if the run never started"),
    R(RUN, "duration_s", DBL, RECOMP, 0, duration_s, "nonneg", "s",
      "the measured window: from the end of the ramp to the end of the run. A time-bounded run lasts "
      "exactly `runtime` (unless cancelled or stopped by an error); a run bounded by `ios`/`io_limit` "
      "ends at the last counted completion; a run that steady state stopped (`ss.stop=1`) ends when it "
      "stopped it. A precondition phase is never part of it"),
    R(RUN, "ramp_s", DBL, RECOMP, 0, ramp_s, "nonneg", "s",
      "warm-up before the window; I/O submitted during it is never counted, even if it completes later"),
    R(RUN, "zone_resets", U64, SUM, OLD | OPT | NZ, zone_resets, "count", "zones",
      "`zone_mode=zbd`: zones whose write pointer went back to the zone's start in the window, for a full "
      "zone, `zone_reset_frequency` or a trim (fio's `zone resets`; an empty zone's reset is not counted). "
      "Absent when 0, and in runs without zones"),

    /* the top level's last keys, from warnings on */
    PART(END, "warnings", EACH, 0, "{\"type\": \"array\", \"items\": {\"type\": \"string\", \"minLength\": 1}}", "",
         "human-readable notes (qd reduced, option ignored, noisy machine, steal time, short transfers, "
         "verify mismatches, write bs below the device's indirection unit, a closed-loop rate's "
         "coordinated omission, an open-loop schedule not kept); merged: each part's, labelled with its "
         "host or group, and the merge's own"),
    R(END, "cancelled", BOOL, OR, 0, cancelled, "bool", "",
      "`true` when stopped by `nvb_cancel_request()` or the progress or poll callback; the figures are "
      "then partial and `error` is `ECANCELED`"),
    PART(END, "error", FIRST, 0,
         "{\"oneOf\": [{\"type\": \"null\"}, {\"type\": \"object\", \"required\": [\"errno\", \"name\", \"message\"], "
         "\"additionalProperties\": false, \"properties\": {\"errno\": {\"type\": \"integer\", \"minimum\": 1}, "
         "\"name\": {\"type\": \"string\", \"pattern\": \"^E[A-Z0-9]+$\"}, \"message\": {\"type\": \"string\", "
         "\"minLength\": 1}}}]}", "",
         "`null`, or `{errno, name, message}`: the failure that ended the run, `errno` positive (e.g. 5), "
         "`name` its symbol (`\"EIO\"`), `message` the text of `nvb_result_error()`; merged: the first "
         "part's failure, a failure that is not a cancel before a cancel, labelled with its part"),
    PART(END, "clock_cost_ns", MAX, 0, "nonneg", "ns",
         "cost of one time stamp (of `clock_source`), measured before the run; each latency includes "
         "about one"),
    PART(END, "clock_source", AGREE, OLD | OPT,
         "{\"type\": [\"string\", \"null\"], \"enum\": [\"tsc\", \"clock_monotonic\", \"qpc\", \"mixed\", null]}", "",
         "the clock the time stamps read: `tsc` (x86-64 with an invariant time-stamp counter, calibrated "
         "once per process against CLOCK_MONOTONIC over 10 ms: rate within about 1e-5), "
         "`clock_monotonic` (through the vDSO), `qpc` (Windows), `mixed` (merged parts differ); absent "
         "where unknown (an older result, or a merge with one)"),
    PART(END, "hist_rel_error", RECOMP, 0, "{\"type\": \"number\", \"exclusiveMinimum\": 0, \"exclusiveMaximum\": 1}", "",
         "stated bound on the relative error of a percentile, `1/2^(sub_bits+1)` = 0.0078125"),

    /* total, hosts[].total: read + write (+ trim) */
    ROW(TOTAL, "ios", SUM, RECOMP, 0, struct nvb__total, ios, "count", "I/Os",
        "completed I/Os of read + write (+ trim) and their bytes"),
    ROW(TOTAL, "bytes", SUM, RECOMP, 0, struct nvb__total, bytes, "count", "bytes", NULL),
    ROW(TOTAL, "iops", RATE, RECOMP, 0, struct nvb__total, ios, "nonneg", "I/Os/s",
        "rates over `duration_s` (in `hosts[]`, over the host's own)"),
    ROW(TOTAL, "bw_bytes_s", RATE, RECOMP, 0, struct nvb__total, bytes, "nonneg", "bytes/s", NULL),
    ROW(TOTAL, "bw_gib_s", GIB, RECOMP, OLD | OPT, struct nvb__total, bytes, "nonneg", "GiB/s",
        "the same in GiB/s, as each direction has it (absent in results written before it)"),
    ROW(TOTAL, "lat_mean_ns", NUM, RECOMP, OLD | OPT | NVB__FF_AV, struct nvb__total, lat_mean_ns, "?nonneg", "ns",
        "mean latency of every I/O of the directions: their latency histograms' exact sums added over their "
        "counts (the mean of a mixed run, each direction weighted by its I/Os); `null` without latencies. "
        "Absent in `hosts[].total` (a host row keeps no histogram) and in results written before it"),

    /* read, write, trim: over all targets and jobs, and per target */
    D("ios", U64, SUM, 0, ios, "count", "I/Os", "completed I/Os in the window and their bytes"),
    D("bytes", U64, SUM, 0, bytes, "count", "bytes", NULL),
    D("iops", RATE, RECOMP, 0, ios, "nonneg", "I/Os/s",
      "rates over `duration_s` (per target too: the window is the run's)"),
    D("bw_bytes_s", RATE, RECOMP, 0, bytes, "nonneg", "bytes/s", NULL),
    D("bw_gib_s", GIB, RECOMP, 0, bytes, "nonneg", "GiB/s", NULL),
    PART(DIR, "bs_counts", SUM, OLD | OPT, "#bs_counts", "I/Os",
        "with `bssplit`: the completed I/Os (those of `ios`) by size, `{\"4096\": n, \"65536\": m}`, "
        "sizes in bytes ascending; the counts add up to `ios` and size x count to `bytes` exactly "
        "(the loader refuses a result where they do not); merged results add them by size (a total "
        "of job groups or hosts of which one did I/O without a split has none, as its counts would "
        "not add up; each group keeps its own). absent without a split, where every I/O is `bs` (so "
        "results of fixed `bs` read and write as before; a `null` is accepted on load). fio reports "
        "no such counts"),
    PART(DIR, "lat_ns", RECOMP, 0, "#lat_ns", "ns",
        "latency in ns: `min`, `mean`, `max`, `stddev`, `p1` `p5` `p10` `p25` `p50` `p75` `p90` "
        "`p95` `p99` `p99.5` `p99.9` `p99.99` `p99.999`"),
    PART(DIR, "slat_ns", RECOMP, 0, "?#lat_ns", "ns",
        "submission latency, the same fields: time inside the engine's submit call, for every I/O "
        "submitted to the engine in the window (known at submission, as fio counts it; none for an "
        "I/O `fault.rate` failed before the engine; `lat` and `clat` count the I/Os completed in "
        "it). `null` for engines that complete each I/O inside that call (`psync`, `wsync`): there "
        "the call *is* the I/O"),
    PART(DIR, "clat_ns", RECOMP, 0, "?#lat_ns", "ns",
        "completion latency, the same fields: from the end of the submit call to the completion"),
    PART(DIR, "lat_pct_supported", RECOMP, 0, "#lat_pct_supported", "",
        "for each percentile key of `lat_ns`: `true` when enough latencies lie on either side of it "
        "(below), `false` when it is a figure the run had too few I/Os for. It is judged on "
        "`lat_hist.count`; `clat_ns` counts the same I/Os, `slat_ns` those submitted in the window "
        "(nearly as many)"),
    PART(DIR, "lat_hist", HIST, 0, "#lat_hist", "ns",
        "the whole histograms (top level and per target); `slat_hist` is `null` when `slat_ns` is"),
    PART(DIR, "slat_hist", HIST, 0, "?#lat_hist", "ns", NULL),
    PART(DIR, "clat_hist", HIST, 0, "?#lat_hist", "ns", NULL),

    /* lat_ns, slat_ns, clat_ns: described in the direction's rows; all 0 without I/O */
    L("min", U64, min, "the least latency, exact"),
    L("mean", NUM, mean, "`lat_hist.sum / count`, exact"),
    L("max", U64, max, "the greatest, exact"),
    L("stddev", NUM, stddev, "population standard deviation, from the exact sums (below)"),
    L("p1", NUM, p[0], "percentiles from the histogram (below): the midpoint of the bucket holding rank "
      "`ceil(p/100 * count)`, clamped to `[min, max]`; `lat_pct_supported` has one flag per key here"),
    PCT("5", 1), PCT("10", 2), PCT("25", 3), PCT("50", 4), PCT("75", 5), PCT("90", 6), PCT("95", 7), PCT("99", 8),
    PCT("99.5", 9), PCT("99.9", 10), PCT("99.99", 11), PCT("99.999", 12),

    /* lat_hist, slat_hist, clat_hist: described in the direction's rows */
    PART(HIST, "sub_bits", FIRST, 0, "{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 16}", "",
         "geometry (6 and 44): values below 2^sub_bits ns get one bucket each; each power of two "
         "[2^k, 2^(k+1)) above is split into 2^sub_bits equal buckets; values at or above 2^max_bits ns "
         "(~4.9 h) share the last bucket. A result of another geometry is refused"),
    PART(HIST, "max_bits", FIRST, 0, "{\"type\": \"integer\", \"minimum\": 2, \"maximum\": 64}", "", NULL),
    PART(HIST, "rel_error", FIRST, 0, "{\"type\": \"number\", \"exclusiveMinimum\": 0, \"exclusiveMaximum\": 1}", "",
         "same as `hist_rel_error`"),
    PART(HIST, "count", SUM, 0, "count", "I/Os",
         "number of samples (= `ios`) and exact sum of latencies in ns (an integer; past 2^64 only in runs "
         "of extreme length, e.g. 78 h at 65,536 I/Os in flight: read it with a reader that keeps big "
         "integers, as Python's `json` does)"),
    PART(HIST, "sum", SUM, 0, "count", "ns", NULL),
    PART(HIST, "sumsq", SUM, 0,
         "{\"oneOf\": [{\"type\": \"string\", \"pattern\": \"^[0-9]+$\"}, {\"$ref\": \"#/definitions/nonneg\"}]}", "ns^2",
         "exact sum of squared latencies, as a **string** of decimal digits (it passes 2^64 in ordinary "
         "runs, and most JSON readers round numbers that long). Results written before it was exact hold "
         "a number (rounded once above 2^53): they load, their `stddev` is then approximate"),
    PART(HIST, "buckets", HIST, 0,
         "{\"type\": \"array\", \"items\": {\"description\": \"[bucket index, count]; only nonzero buckets, "
         "ascending index.\", \"type\": \"array\", \"minItems\": 2, \"maxItems\": 2, \"items\": [{\"type\": "
         "\"integer\", \"minimum\": 0}, {\"type\": \"integer\", \"minimum\": 1}], \"additionalItems\": false}}",
         "I/Os", "`[[index, count], ...]`: the nonzero buckets, ascending index"),

    /* per_target[] */
    T("path", STRP, EACH, 0, path, "{\"type\": \"string\", \"minLength\": 1}", "",
      "as added (`\"(null)\"`: the virtual region of the null engine without targets)"),
    PART(TARGET, "host", EACH, 0, "string", "",
         "the machine the target is on (the result's `host`; in a merged result, each target's own)"),
    PART(TARGET, "file", EACH, 0, "string", "",
         "what was opened: the scratch file for a directory target (deleted after the run)"),
    T("kind", STR, EACH, 0, kind, "{\"enum\": [\"file\", \"block\", \"dir\", \"char\", \"other\", \"scratch\"]}", "",
      "`file`, `block`, `scratch` (directory target), `dir` (a directory given to the null engine, "
      "which opens nothing), `char`, `other`"),
    T("dev", STR, EACH, 0, dev, "string", "", "kernel name of a block device (`nvme0n1`), else `\"\"`"),
    T("region_offset", U64, EACH, 0, region_off, "count", "bytes", "the byte range I/O went to"),
    T("region_size", U64, EACH, 0, region_len, "count", "bytes", NULL),
    T("logical_block_size", U32, EACH, 0, lbs, "count", "bytes", "alignment used for direct I/O, bytes"),
    T("errors", U64, EACH, 0, errors, "count", "I/Os", "failed I/Os on this target"),
    PART(TARGET, "read", EACH, 0, "#direction_target", "",
         "as above, with this target's `lat_hist` (`trim` only with trims)"),
    PART(TARGET, "write", EACH, 0, "#direction_target", "", NULL),
    PART(TARGET, "trim", EACH, TRIM, "#direction_target", "", NULL),
    PART(TARGET, "device", EACH, 0, "?#target_device", "",
         "`null`, or for a block device (or NVMe generic node) target the facts of that device (below)"),
    PART(TARGET, "page_cache", EACH, OLD | OPT, "?#page_cache", "",
         "what the page cache held of the region as the run began, after `invalidate` (below); `null` "
         "where nothing was looked at (null engine, `nvme` passthrough, which never goes through the "
         "cache)"),
    PART(TARGET, "allocated_pct", EACH, OLD | OPT, "?#percent", "%",
         "percent of the region that is allocated data rather than holes (file and scratch targets; "
         "`null` for devices and where unknown, e.g. Windows). Unwritten (fallocated) extents count "
         "as holes where the file system says so (ext4, XFS). Below 90 with reads: a `SPARSE TARGET` "
         "warning (reads of holes never reach the disk); with writes or trims: an `UNWRITTEN TARGET` "
         "warning (each write also allocates or converts an extent: a first pass, not the steady "
         "state of overwrites)"),
    PART(TARGET, "write_cache", EACH, OLD | OPT, "?#write_cache", "",
         "for file and scratch targets, what caches their writes: `fs` (the file system type), "
         "`fs_mode` (`sync`: mounted sync, every write waits for the storage; `nobarrier`: cache "
         "flushes not sent to the disk; `default`), `disk` (the block device under the file system) "
         "and `disk_mode` (its `/sys/block/X/queue/write_cache`: `write back` or `write through`); "
         "each `null` where unknown (a network or stacked file system has no disk); the object `null` "
         "for devices and on Windows. Absent in results from before it"),
    PART(TARGET, "util_dev", EACH, OLD | OPT, "string", "",
         "the device's utilisation, as fio's `disk_util`: `util_pct` is the share of the run (from "
         "the jobs' release to their end, a ramp included) in which the block device `util_dev` (the "
         "target itself, or the file system's device under a file or directory target) had at least "
         "one I/O in flight, from the difference of its `io_ticks` (Linux "
         "`/sys/dev/block/MAJ:MIN/stat`, milliseconds; every process's I/O to that device counts), "
         "clamped at 100. `null` with the reason in `util_why` where there is no figure: no block "
         "device under the file system (tmpfs, overlay, NFS), a character device (NVMe passthrough is "
         "not in `io_ticks`), the null engine, a run shorter than 0.1 s, Windows; `util_why` is "
         "`null` when measured. Results written before them have none of the three keys"),
    PART(TARGET, "util_pct", EACH, OLD | OPT, "?#percent", "%", NULL),
    PART(TARGET, "util_why", EACH, OLD | OPT, "{\"type\": [\"string\", \"null\"]}", "", NULL),
    PART(TARGET, "device_log", EACH, OLD | OPT, "#device_log", "",
         "what the device did (docs/device.md): the NVMe health log read before and after the run, its "
         "deltas and the figures derived from them; `available` false with the `reason` on other "
         "targets. Absent in results from before it"),

    /* errors */
    R(ERRORS, "count", U64, SUM, 0, errors, "count", "I/Os",
      "I/Os that failed or transferred less than `bs` in the window"),
    R(ERRORS, "short", U64, SUM, 0, short_ios, "count", "I/Os", "of those, short transfers (counted as `EIO`)"),
    PART(ERRORS, "by_errno", SUM, 0, "#by_errno", "I/Os",
         "`{\"EIO\": n, ...}`: nonzero counts by errno name; names the C library does not know appear "
         "as `E<number>`"),
    R(ERRORS, "read", U64, SUM, OLD, errors_dir[0], "count", "I/Os",
      "`errors.count` by direction (`trim` only with trims)"),
    R(ERRORS, "write", U64, SUM, OLD, errors_dir[1], "count", "I/Os", NULL),
    R(ERRORS, "trim", U64, SUM, OLD | TRIM, errors_dir[2], "count", "I/Os", NULL),

    /* verify */
    R(VERIFY, "enabled", BOOL, OR, 0, verify_enabled, "bool", "", "the workload's `verify`"),
    R(VERIFY, "checked", U64, SUM, 0, verify_checked, "count", "blocks",
      "blocks read and checked (each read is one block of `bs`; 0 with the null engine)"),
    R(VERIFY, "mismatches", U64, SUM, 0, verify_mismatches, "count", "blocks",
      "blocks that failed the check, once per read however many bytes differ"),
    R(VERIFY, "unchecked", U64, SUM, OLD | OPT, verify_unchecked, "count", "blocks",
      "reads not checked: in a run that writes, blocks this run had not written yet (a scratch "
      "file laid out, or a target preconditioned, with `verify=1` has every block checked); a "
      "read-only run checks every block and has 0. Absent in older results (read as 0)"),
    PART(VERIFY, "by_field", SUM, 0, "#verify_by_field", "blocks",
         "`mismatches` by the first thing that differed, in the order checked: `magic` (no header: "
         "zeroes, foreign data, never written), `bs` (written with another block size), `checksum` "
         "(not intact), `offset` (an intact block of another offset: misdirected or copied), `target` "
         "(of another target), `seed` (written with another seed), `data` (header and checksum agree, "
         "payload does not), `sequence` (an intact block of this offset that this run's last write to "
         "it did not leave: a lost write, or a block from before the run; checked for blocks this run "
         "wrote; absent in older results)"),
    PART(VERIFY, "first_mismatches", EACH, 0,
         "{\"type\": \"array\", \"maxItems\": 8, \"items\": {\"$ref\": \"#/definitions/vmismatch\"}}", "",
         "up to 8 `{offset, target, field, expected, found, seq}`: byte offset of the block and "
         "target index; `field` as in `by_field`; `expected` and `found` that field's values (the "
         "magic as a little-endian u64; for `checksum` the CRC computed and the CRC stored; for "
         "`data` the first differing 8-byte word; for `sequence` the job's part and its last write "
         "number, and the sequence found); `seq` the sequence the block's header claims, `(job + 1) "
         "<< 40 \\| write number`, 0 for a scratch layout or no header"),

    /* verify.first_mismatches[]: described in the row above */
    M("offset", U64, 0, offset, "count", "byte offset of the block"),
    M("target", U32, OLD, target, "count", "its target's index"),
    PART(VMISMATCH, "field", EACH, 0,
         "{\"enum\": [\"magic\", \"bs\", \"checksum\", \"offset\", \"target\", \"seed\", \"data\", \"sequence\"]}",
         "", "the first field that differed (as in `by_field`)"),
    M("expected", U64, OLD, expected, "count", "that field's value expected"),
    M("found", U64, OLD, found, "count", "and found"),
    M("seq", U64, OLD, seq, "count", "the sequence the block's header claims"),

    /* precondition */
    P("passes", U32, passes, "{\"type\": \"integer\", \"minimum\": 1}", "",
      "N: sequential write passes over each target's region (1 for `precondition=random`)"),
    P("bs", U64, bs, "{\"type\": \"integer\", \"minimum\": 1}", "bytes",
      "the size of its writes (the larger of 128 KiB and the workload's `bs`; the workload's `bs` "
      "with `verify=1` or `precondition=random`) and the I/Os in flight of its one job per target"),
    P("qd", U32, qd, "{\"type\": \"integer\", \"minimum\": 1}", "I/Os", NULL),
    P("bytes", U64, bytes, "count", "bytes",
      "bytes it wrote over all targets: `passes` x each region rounded down to a multiple of `bs` "
      "(a warning names a tail left out); `precondition=random`: each region x (1 + `sprandom.op`) "
      "rounded down to `bs`"),
    P("duration_s", DBL, duration_s, "nonneg", "s", "how long it took, and `bytes / duration_s`"),
    P("bw_bytes_s", RATE, bytes, "nonneg", "bytes/s", NULL),
    ROW(PRECOND, "regions", U64, NONE, OLD | OPT | NZ, struct nvb__precond_res, regions, "count", "",
        "`precondition=random` only (absent for sequential passes): the regions of its plan of planned "
        "invalidation"),
    ROW(PRECOND, "rewrites", U64, NONE, OLD | OPT | NZ, struct nvb__precond_res, rewrites, "count", "writes",
        "`precondition=random` only: its writes past one per block, each making an earlier copy of its block "
        "invalid (the region's length x `sprandom.op` in blocks, all targets)"),

    /* cpu: the whole machine's (/proc/stat) and the process's, over one window */
    C("system_pct", DBL, CPU, system_pct, "?percent", "%",
      "whole-system busy: user+nice+system+irq+softirq over all CPUs, from `/proc/stat` deltas read at the "
      "same edges as the process's CPU; steal is outside it; never below this process's own share "
      "(`raised_pct`); `null` when not measured (fewer than 10 ticks per CPU in the window, or `/proc/stat` "
      "unreadable: `system_null_reason` says which)"),
    C("user_pct", DBL, CPU, user_pct, "?percent", "%",
      "the parts (`user_pct` includes nice, `irq_pct` softirq); `system_pct = user_pct + sys_pct + irq_pct` "
      "and all of them with `iowait_pct`, `steal_pct` and `idle_pct` add up to 100; `null` with `system_pct`"),
    C("sys_pct", DBL, CPU, sys_pct, "?percent", "%", NULL),
    C("irq_pct", DBL, CPU, irq_pct, "?percent", "%", NULL),
    C("iowait_pct", DBL, CPU, iowait_pct, "?percent", "%", NULL),
    C("steal_pct", DBL, CPU, steal_pct, "?percent", "%", NULL),
    C("idle_pct", DBL, CPU, idle_pct, "?percent", "%", NULL),
    PART(CPU, "system_null_reason", FIRST, OLD | OPT, "{\"type\": [\"string\", \"null\"]}", "",
         "`null` when `system_pct` was measured, else why not (the tick length, `USER_HZ`, the ticks the "
         "window had and the window needed)"),
    C("tick_s", DBL, OLD | OPT | TICK, cpu_tick_s, "?nonneg", "s",
      "the resolution of the `/proc/stat` counters (`1 / USER_HZ`, 0.01 s) and how many of them per CPU the "
      "window had: one tick is `100 / ticks_per_cpu` points of a share"),
    C("ticks_per_cpu", DBL, OLD | OPT | TICK, cpu_ticks, "?nonneg", "ticks", NULL),
    C("raised_pct", DBL, OLD | OPT | CPU, cpu_raised_pct, "?percent", "%",
      "points of `system_pct` the ticks had counted idle although this process was using the CPU (its own "
      "CPU time is precise, the ticks sample one moment per CPU); `null` with `system_pct`"),
    PART(CPU, "ncpus", FIRST, 0, "count", "CPUs",
         "number of CPUs in `per_cpu_pct` (the online CPUs when `/proc/stat` could not be read)"),
    PART(CPU, "per_cpu_pct", FIRST, 0, "{\"type\": \"array\", \"items\": {\"$ref\": \"#/definitions/percent\"}}", "%",
         "busy percent per CPU, in `/proc/stat` order; empty when unavailable or `system_pct` is `null`"),
    C("process_user_s", DBL, 0, process_user_s, "nonneg", "s",
      "CPU time of this process from `getrusage(RUSAGE_SELF)`: every thread, including io_uring io-wq and "
      "SQPOLL kernel threads"),
    C("process_sys_s", DBL, 0, process_sys_s, "nonneg", "s", NULL),
    CD("process_cores", process_cores, "nonneg", "cores",
       "`(process_user_s + process_sys_s) / window_s`: the CPU over the span it was read across (matching "
       "edges); `null` when `window_s` is 0"),
    C("window_s", DBL, 0, cpu_window_s, "nonneg", "s",
      "time between the two reads of the process's CPU, taken at the edges of the measured window (before "
      "the I/O still in flight at a time-bounded end is drained): `duration_s` plus how late the threads "
      "taking them were, during which they used no CPU ([cpu-accounting.md](cpu-accounting.md#the-window)); "
      "at least `duration_s` without a ramp"),
    CD("cpu_us_per_io", cpu_us_per_io, "nonneg", "us/I/O",
       "`(process_user_s + process_sys_s) * 1e6 / total.ios`; `null` when no I/O was counted"),
    CD("iops_per_core", iops_per_core, "nonneg", "I/Os/s",
       "`total.ios / (process_user_s + process_sys_s)`: I/Os per CPU-second of the window, so "
       "`cpu_us_per_io * iops_per_core = 1e6`; `null` when either is 0"),
    ROW(CPU, "nvbench_pct", DERIV, RECOMP, OPT, struct nvb__cpu_derived, nvbench_pct, "?percent", "%",
        "this process's share of all CPUs, `100 * process_cores / ncpus`, at most `system_pct` (the rest of "
        "one tick's resolution); `null` with `system_pct`"),
    CD("background_pct", background_pct, "percent", "%",
       "`system_pct - nvbench_pct`: the machine busy with something else; `null` with `system_pct`; a "
       "warning above 10% by more than two ticks' worth (`200 / ticks_per_cpu`)"),
    C("maxrss_kib", LONG, 0, maxrss_kib, "count", "KiB", "peak resident memory of the process (its whole life)"),
    C("voluntary_ctxsw", LONG, 0, nvcsw, "count", "switches", "context switches of the process in the window"),
    C("involuntary_ctxsw", LONG, 0, nivcsw, "count", "switches", NULL),
    PART(CPU, "threads", EACH, 0, "{\"type\": \"array\", \"items\": {\"$ref\": \"#/definitions/thread\"}}", "",
         "per thread: `tid`, `name` (`nvb-job-N`, `iou-wrk-*`, `iou-sqp-*`, the caller's), `user_s`, `sys_s` "
         "(tick-based, 10 ms steps), `cpu_s` (exact on-CPU time from schedstat)"),

    /* hosts[].cpu: described in the host's row */
    HC("system_pct", DBL, NVB__FF_NEG, system_pct, "?percent", "%", "the machine's busy share (`null` unknown)"),
    HC("ncpus", U32, 0, ncpus, "count", "CPUs", "its CPUs"),
    HC("process_user_s", DBL, 0, process_user_s, "nonneg", "s", "its process's CPU time"),
    HC("process_sys_s", DBL, 0, process_sys_s, "nonneg", "s", NULL),
    HC("window_s", DBL, 0, window_s, "nonneg", "s", "the span its CPU was read across"),
    ROW(HOSTCPU, "process_cores", DERIV, EACH, 0, struct nvb__cpu_derived, process_cores, "?nonneg", "cores",
        "its CPU time over `window_s` (over the host's `duration_s` without one)"),
    ROW(HOSTCPU, "cpu_us_per_io", DERIV, EACH, 0, struct nvb__cpu_derived, cpu_us_per_io, "?nonneg", "us/I/O",
        "its CPU time per I/O; `null` without I/O"),

    /* cpu.threads[]: described in the cpu table's row */
    H("tid", LONG, tid, "count", "", "the thread's id"),
    H("name", STR, name, "string", "", "its name"),
    H("user_s", DBL, user_s, "nonneg", "s", "user time (ticks)"),
    H("sys_s", DBL, sys_s, "nonneg", "s", "system time (ticks)"),
    H("cpu_s", DBL, run_s, "nonneg", "s", "on-CPU time (schedstat)"),

    /* submissions */
    R(SUBMIT, "calls", U64, SUM, 0, sub.calls, "count", "calls",
      "calls of the engine's submit operation in the window (a call that carried only I/Os "
      "`fault.rate` failed before the engine is no call)"),
    R(SUBMIT, "ios", U64, SUM, 0, sub.ios, "count", "I/Os",
      "the I/Os they carried to the engine (`ios / calls`: the submission batch; I/Os submitted "
      "that failed or completed after the window count here too, but not those `fault.rate` failed "
      "before the engine: they are `fault.injected`); the `slat_hist` counts add up to it"),
    R(SUBMIT, "batch_max", U32, MAX, EXT | OPT, sub.batch_max, "count", "I/Os",
      "the most I/Os one call may carry (`submit_batch`, at most `qd`). This and the keys below "
      "are absent in results from before them"),
    PART(SUBMIT, "slat_scope", AGREE, EXT | OPT,
         "{\"enum\": [\"submit_call\", \"queue_only\", \"none\", \"mixed\"]}", "",
         "what an I/O's `slat_ns` times: the engine's submit call (`submit_call`), the queueing of "
         "the I/O alone, the kernel entered later in the reap call (`queue_only`: the ring engines), "
         "nothing (`none`: an engine that completes I/O inside submit); `mixed` in a merged result "
         "whose parts differ ([engines.md](engines.md))"),
    R(SUBMIT, "waits", U64, SUM, EXT | OPT, sub.waits, "count", "waits",
      "the loop's waits for completions while it was still submitting"),
    R(SUBMIT, "depth_sum", U64, SUM, EXT | OPT, sub.depth_sum, "count", "I/Os",
      "the I/Os in flight at each wait, added up, and their mean over `waits` (`qd` when every "
      "free slot was refilled before waiting; lower with a rate or think time; `null` without a "
      "wait)"),
    MEAN(SUBMIT, "depth_mean", EXT | OPT, sub.depth_sum, sub.waits, "I/Os", NULL),
    R(SUBMIT, "reaps", U64, SUM, EXT | OPT, sub.reaps, "count", "calls",
      "calls of the engine's reap operation in the window, waiting or not (`ios / reaps`: the "
      "completions one call brings back; with `waits`, how often the loop polled). Written with "
      "the keys above; 0 in a result written by a build of 2026-12-02 or 12-03 that had them and "
      "not it"),
    R(SUBMIT, "empty_reaps", U64, SUM, EXT | OLD | OPT | NZ, sub.empty_reaps, "count", "calls",
      "of the `reaps`, those that brought back no completion: a poll that found none, or a wait that a "
      "rate's schedule, a timeout or a held-back completion (`fault.delay`) ended first (system calls "
      "the loop paid for nothing). Absent when 0, and in results from before it"),

    /* rate: null without rate_iops */
    PART(RATE, "mode", FIRST, 0, "{\"enum\": [\"open\", \"closed\"]}", "",
         "`open`: every I/O has an intended start on a schedule and is submitted then, whatever is in "
         "flight (up to `qd`; beyond, it waits for a slot, and that wait counts), its latency counted "
         "from the intended start; `closed`: an I/O is stamped when a free slot lets it go, so a "
         "stall hides the waiting of the I/Os behind it (coordinated omission; a warning says so)"),
    PART(RATE, "process", FIRST, 0, "{\"enum\": [\"uniform\", \"poisson\"]}", "",
         "the schedule's arrivals: `uniform` (I/O k of a job at `k x jobs / rate_iops` s after the "
         "start, the first one interval in) or `poisson` (exponential gaps of the same mean, seeded "
         "from `seed`)"),
    R(RATE, "target_iops", U64, SUM, 0, rate_iops, "count", "I/Os/s",
      "`rate_iops` (summed over the parts of a merged result)"),
    R(RATE, "lagged_ios", U64, SUM, OPEN, sub.lagged, "?count", "I/Os",
      "I/Os submitted one interval (`jobs / rate_iops` s) or more after their intended start: the "
      "queue was full, or the job thread was late (a busy machine); a warning says how many"),
    R(RATE, "unissued_ios", U64, SUM, OPEN, sub.unissued, "?count", "I/Os",
      "I/Os due in the window that were never submitted (the queue stayed full to its end): latency "
      "the figures cannot include; a warning says so"),
    LAG("lag", lag_sum, lag_max, OPEN,
        "from intended start to the submit call, over `submissions.ios` (I/Os `fault.rate` failed "
        "before the engine are not in it; the means are `null` when no I/O reached it): what the loop "
        "and the queue added to `lat` before the engine was asked"),
    LAG("late", late_sum, late_max, OPEN | EXT | OPT,
        "the part of the lag that was the job thread's own lateness (a slot was free: the thread woke "
        "or got the CPU late); a warning says when its mean is a tenth of the mean `lat` or more "
        "(`lat` then shows the host, not the storage)"),
    LAG("queue_full", qfull_sum, qfull_max, OPEN | EXT | OPT,
        "the part of the lag spent waiting for a free slot (the queue full: from the later of the "
        "intended start and the queue filling, to the slot freed); `late_sum_ns` + "
        "`queue_full_sum_ns` = `lag_sum_ns`"),
    R(RATE, "spin_ns", U64, SUM, OPEN | EXT | OPT, sub.spin_ns, "?count", "ns",
      "time the job threads spun (polled) to arrive on an intended start instead of sleeping to it: "
      "CPU the rate costs (docs/analysis.md)"),
    R(RATE, "gaps", U64, SUM, EXT | OPT, sub.gaps, "count", "gaps",
      "the arrivals as submitted, open or closed: gaps between consecutive I/Os' submit calls (0 "
      "between I/Os of one call; every arrival of the schedule, an I/O `fault.rate` then fails "
      "included), their sum and sum of squares, and their coefficient of variation (about 1 for "
      "`poisson`, near 0 for `uniform`; `null` under 2 gaps)"),
    R(RATE, "gap_sum_ns", U64, SUM, EXT | OPT, sub.gap_sum, "count", "ns", NULL),
    R(RATE, "gap_sumsq_ns2", DBL, SUM, EXT | OPT, sub.gap_sq, "nonneg", "ns^2", NULL),
    PART(RATE, "gap_cv", RECOMP, EXT | OPT, "?nonneg", "", NULL),

    /* fault: what the fault wrapper did to the counted I/Os (injected errors are part of
     * errors.count, injected short transfers part of errors.short) */
    R(FAULT, "enabled", BOOL, OR, 0, fault_enabled, "bool", "", "a `fault.*` key asked for faults"),
    R(FAULT, "injected", DIRSUM, SUM, 0, fault_err, "count", "I/Os",
      "I/Os failed with `fault.errno` without reaching the engine: no `slat`, not in `submissions`"),
    R(FAULT, "short", DIRSUM, SUM, 0, fault_short, "count", "I/Os",
      "transfers cut short (counted in `errors.short`, as `EIO`)"),
    R(FAULT, "delayed", DIRSUM, SUM, 0, fault_delayed, "count", "I/Os",
      "completions held back by `fault.delay` (these I/Os may still have succeeded)"),
    PART(FAULT, "by_errno", SUM, 0, "#by_errno", "I/Os", "`injected` by errno name"),
    PART(FAULT, "read", SUM, 0, "#fault_direction", "",
         "`injected`, `short`, `delayed`, `by_errno` of each direction (`trim` only with trims)"),
    PART(FAULT, "write", SUM, 0, "#fault_direction", "", NULL),
    PART(FAULT, "trim", SUM, TRIM, "#fault_direction", "", NULL),
    /* fault.read, .write, .trim: described in the row above */
    FD("injected", fault_err, "I/Os failed"),
    FD("short", fault_short, "transfers cut short"),
    FD("delayed", fault_delayed, "completions held back"),
    PART(FAULTDIR, "by_errno", SUM, 0, "#by_errno", "I/Os", "`injected` by errno name"),

    /* steady_state: null when ss is off (and in a merged result) */
    PART(SS, "metric", NONE, 0, "{\"enum\": [\"iops\", \"bw\", \"lat\"]}", "",
         "`iops`, `bw` (bytes/s) or `lat` (mean latency of the round's I/Os, both directions, ns)"),
    SS("reached", BOOL, 0, reached, 0, "bool", "", "a window met both limits (`ss.excursion`, `ss.slope` in `workload.ss`)"),
    SS("stopped", BOOL, 0, stopped, 0, "bool", "", "the run ended there (`ss.stop=1`); the usual figures are the whole run up to that point"),
    SS("at_s", DBL, IF, at_s, offsetof(struct nvb__ss_res, reached), "{\"type\": [\"number\", \"null\"], \"minimum\": 0}", "s",
       "end of the first steady window, seconds since the window started (the `t_s` of its last "
       "round); `null` when not reached"),
    SS("rounds", U32, 0, rounds, 0, "{\"type\": \"integer\", \"minimum\": 1}", "rounds", "rounds in a window, and `rounds x interval`"),
    SS("window_s", DBL, 0, window_s, 0, "nonneg", "s", NULL),
    SS("mean", DBL, IF, fig.mean, offsetof(struct nvb__ss_res, judged), "{\"type\": [\"number\", \"null\"], \"minimum\": 0}", "",
       "the metric's mean over the window's rounds; `null` before a whole window existed, or when a "
       "round had no value (`lat` of a round without I/O)"),
    SS("max_excursion_pct", DBL, IF, fig.max_excursion_pct, offsetof(struct nvb__ss_res, judged), "{\"type\": [\"number\", \"null\"], \"minimum\": 0}", "%",
       "the data excursion: (max - min of the rounds) / `mean` x 100"),
    SS("slope_pct", DBL, IF, fig.slope_pct, offsetof(struct nvb__ss_res, judged), "{\"type\": [\"number\", \"null\"], \"minimum\": 0}", "%",
       "the slope excursion: how far the least-squares line over the rounds rises or falls across "
       "the window, / `mean` x 100"),

    /* per_target[].device: null unless the target is a block device (or NVMe generic node) */
    DV("name", STR, 0, name, "{\"type\": \"string\", \"minLength\": 1}", "", "kernel name (`nvme0n1`) and kind: `nvme`, `nvme-path`, `loop`, `zram`, `virtio`, `scsi`, "
      "`dm`, `md`, `partition`, `other`"),
    DV("kind", STR, 0, kind, "{\"enum\": [\"nvme\", \"nvme-path\", \"loop\", \"zram\", \"virtio\", \"scsi\", \"dm\", \"md\", \"partition\", \"other\"]}", "", NULL),
    DV("model", STR, 0, model, "string", "", "the drive's (a partition's are its disk's), `\"\"` when unknown"),
    DV("serial", STR, 0, serial, "string", "", NULL),
    DV("logical_block_size", U32, 0, lbs, "count", "bytes", "bytes, from the block layer"),
    DV("physical_block_size", U32, 0, pbs, "count", "bytes", NULL),
    DV("indirection_unit", U64, NVB__FF_ZERO, iu, "{\"oneOf\": [{\"type\": \"null\"}, {\"type\": \"integer\", \"minimum\": 1}]}", "bytes",
       "preferred write granularity in bytes (`null` unknown): NVMe Identify NPWG when the "
       "namespace reports it, else sysfs `optimal_io_size` (or `minimum_io_size` above the logical "
       "block size). A write workload whose `bs` is below it, or not a multiple of it, gets a "
       "warning: the drive rewrites whole units"),
    DV("indirection_unit_source", STR, 0, iu_source, "{\"enum\": [\"identify\", \"sysfs\", \"unknown\"]}", "", "`identify`, `sysfs` or `unknown`"),
    PART(DEVICE, "link_ceiling_gbs", EACH, 0, "{\"oneOf\": [{\"type\": \"null\"}, {\"type\": \"number\", \"exclusiveMinimum\": 0}]}", "GB/s",
         "NVMe over PCIe: the bandwidth the links allow in GB/s (10^9 bytes/s), summed over the "
         "controllers that reach the namespace; `null` when not known"),

    /* per_target[].page_cache: null where nothing was looked at */
    PC("invalidated", BOOL, 0, invalidated, 0, "bool", "", "`true` when the region was written back and its cached pages dropped before the run "
      "(`invalidate=1`, the default)"),
    PC("cached_pct", DBL, IF, cached_pct, offsetof(struct nvb__tcontent, cached_known), "?percent", "%",
       "percent of the region in the page cache just before the jobs started, measured with "
       "`direct=0` only (`null` with `direct=1`, on Windows, or when the kernel would not tell: it "
       "answers only a process that owns the file, may write it, or has `CAP_SYS_ADMIN`). Linux "
       "6.5+ counts with `cachestat(2)` over the whole region, older kernels with `mincore(2)` on a "
       "mapping of it, 1 GiB at a time. 50 or more is a warning: reads of cached pages are memory "
       "copies"),
    PC("examined_bytes", U64, IF, cached_examined, offsetof(struct nvb__tcontent, cached_known), "?count", "bytes",
       "the bytes `cached_pct` is measured over: the region, or with `mincore` on a region above 16 "
       "GiB, 64 evenly spaced windows of 256 MiB (`null` when `cached_pct` is)"),

    /* timeseries[]: a point per interval */
    TS("t_s", DBL, MAX, 0, t_s, "{\"type\": \"number\", \"exclusiveMinimum\": 0}", "s", "end of the interval, seconds since the window started"),
    TS("dt_s", DBL, MAX, 0, dt_s, "nonneg", "s", "length of the interval"),
    TS("t_unix_ns", U64, MAX, OLD, t_unix_ns, "count", "ns",
       "wall clock at the end of the interval: the tick the sample was taken for (with "
       "`align_interval=1` a multiple of `interval`, so the points of several hosts line up), or "
       "`end_unix_ns` (where the last job ended) for the final one"),
    PART(TS, "read", SUM, 0, "#sample_direction", "",
         "`ios`, `bytes` completed in the interval, `iops`, `bw_bytes_s` over `dt_s`, `lat_mean_ns` "
         "mean latency of those I/Os, `lat_sum_ns` their exact sum (an integer: each job's part is "
         "taken exactly and the parts are added in 128 bits)"),
    PART(TS, "write", SUM, 0, "#sample_direction", "", NULL),
    PART(TS, "trim", SUM, TRIM, "#sample_direction", "", NULL),
    TS("errors", U64, SUM, 0, errors, "count", "I/Os", "failed I/Os in the interval"),
    TS("system_pct", DBL, RECOMP, NVB__FF_NEG, system_pct, "?percent", "%",
       "whole-system busy over the interval (`dt_s`, the span its counters were read across), "
       "`null` when not measured: `/proc/stat` unreadable, or fewer than 10 ticks per CPU in the "
       "interval, as in a short final, partial interval "
       "([cpu-accounting.md](cpu-accounting.md#ticks-and-when-a-share-is-not-measured))"),
    PART(TS, "intervals", MAX, OPT, "{\"type\": \"integer\", \"minimum\": 2, \"maximum\": 4294967295}", "intervals",
         "present only on a point that holds several intervals: a series longer than `timeseries_max` "
         "points (default 1000) merges neighbours two by two, exactly (`ios`, `bytes`, `errors`, "
         "`lat_sum_ns` and `lat_hist` add; `system_pct` is their mean weighted by `dt_s`, `null` if a "
         "part's is), so that each point then spans the same number of intervals (the last may hold "
         "fewer); a warning says so. `t_s`, `t_unix_ns` are the last interval's end, `dt_s` the sum. "
         "Every interval still goes, as measured, to the run's point callback (`--live`, `on_point`) "
         "([history.md](history.md#live-figures))"),

    /* timeseries[].read, .write, .trim: described in the point's row above */
    TD("ios", U64, SUM, ios[0], "count", "I/Os", "completed in the interval, and their bytes"),
    TD("bytes", U64, SUM, bytes[0], "count", "bytes", NULL),
    TD("iops", RATE, RECOMP, ios[0], "nonneg", "I/Os/s", "over `dt_s`"),
    TD("bw_bytes_s", RATE, RECOMP, bytes[0], "nonneg", "bytes/s", NULL),
    PART(TSDIR, "lat_mean_ns", RECOMP, 0, "nonneg", "ns", "mean latency of those I/Os, and their exact sum"),
    PART(TSDIR, "lat_sum_ns", SUM, 0, "count", "ns", NULL),
    PART(TSDIR, "p50", RECOMP, OPT, "#interval_pct", "ns",
         "latency percentiles of the interval, from its histogram `lat_hist`: the midpoint of the "
         "bucket that holds the percentile's rank (the rank as in `lat_ns`), so within "
         "`hist_rel_error` of a latency in the interval (exact below 64 ns). The interval's exact min "
         "and max are not kept, so unlike `lat_ns` they are not clamped to them. `null` when the "
         "interval has no completion, or has no histogram"),
    PART(TSDIR, "p99", RECOMP, OPT, "#interval_pct", "ns", NULL),
    PART(TSDIR, "p99.9", RECOMP, OPT, "#interval_pct", "ns", NULL),
    PART(TSDIR, "lat_hist", HIST, OPT,
         "{\"oneOf\": [{\"type\": \"null\"}, {\"type\": \"object\", \"required\": [\"count\", "
         "\"buckets\"], \"additionalProperties\": false, \"properties\": {\"count\": {\"$ref\": "
         "\"#/definitions/count\"}, \"buckets\": {\"type\": \"array\", \"items\": {\"type\": "
         "\"array\", \"minItems\": 2, \"maxItems\": 2, \"items\": {\"type\": \"integer\", "
         "\"minimum\": 0}}}}}]}",
         "ns", "the interval's latency histogram: `count` and `buckets`, sparse `[index, count]` pairs "
         "(ascending, none empty) in the scheme of the top-level `lat_hist` (`sub_bits`, `max_bits`). "
         "The intervals' histograms add up to the run's `lat_hist` bucket by bucket exactly, and "
         "merged results add them point by point, so a merged point's percentiles are those of all "
         "its hosts' latencies. `null` when not measured (out of memory; a warning says so). Results "
         "written before them have none of these four keys, and keep none when loaded and written "
         "back. A merged point with a part that lacks them has `null` percentiles and histograms, or "
         "none of the keys when a part has none. The sampler takes them by differencing the jobs' "
         "cumulative histograms at each tick, so `count` counts the completions recorded by the tick, "
         "which can differ from `ios` (published by the jobs after each batch of completions) by a "
         "batch; over the whole series each adds up to its total"),

    /* hosts[]: a merged result's row per host */
    HR("host", STR, host, "string", "", "machine name; position in the merge (the MPI rank when merged in rank order)"),
    PART(HOST, "rank", EACH, 0, "count", "", NULL),
    HR("start_unix_ns", U64, start_unix_ns, "count", "ns", "the host's own start, ramp and measured window"),
    HR("ramp_s", DBL, ramp_s, "nonneg", "s", NULL),
    HR("duration_s", DBL, duration_s, "nonneg", "s", NULL),
    HR("first_done_unix_ns", U64, first_done_unix_ns, "count", "ns",
       "wall clock when its first and its last job finished"),
    HR("last_done_unix_ns", U64, last_done_unix_ns, "count", "ns", NULL),
    PART(HOST, "first_done_s", EACH, 0, "nonneg", "s",
         "the same in seconds since the merged window started: stragglers show here"),
    PART(HOST, "last_done_s", EACH, 0, "nonneg", "s", NULL),
    PART(HOST, "read", EACH, 0, "#host_direction", "",
         "`ios`, `bytes`, `iops` and `bw_bytes_s` over its own window, `lat_mean_ns`, `lat_p99_ns`, "
         "`lat_max_ns`"),
    PART(HOST, "write", EACH, 0, "#host_direction", "", NULL),
    PART(HOST, "trim", EACH, TRIM, "#host_direction", "", NULL),
    PART(HOST, "total", EACH, 0, "#host_total", "", "`ios`, `bytes`, `iops`, `bw_bytes_s`, `bw_gib_s` of read + write (+ trim)"),
    HR("errors", U64, errors, "count", "I/Os", "its failed I/Os"),
    PART(HOST, "cpu", EACH, 0, "#host_cpu", "",
         "`system_pct` (`null` unknown), `ncpus`, `process_user_s`, `process_sys_s`, `window_s`, "
         "`process_cores` (over `window_s`; `null` without one), `cpu_us_per_io` (`null` without I/O) "
         "of that machine"),
    HR("cancelled", BOOL, cancelled, "bool", "", "whether its run was cancelled; `null` or its failure message"),
    PART(HOST, "error", EACH, 0, "{\"type\": [\"string\", \"null\"]}", "", NULL),

    /* hosts[].read, .write, .trim: described in the row above */
    HD("ios", U64, ios, "count", "I/Os", "completed I/Os"),
    HD("bytes", U64, bytes, "count", "bytes", "their bytes"),
    HD("iops", RATE, ios, "nonneg", "I/Os/s", "over the host's own window"),
    HD("bw_bytes_s", RATE, bytes, "nonneg", "bytes/s", "over the host's own window"),
    HD("lat_mean_ns", DBL, lat_mean_ns, "nonneg", "ns", "mean latency"),
    HD("lat_p99_ns", DBL, lat_p99_ns, "nonneg", "ns", "99th percentile"),
    HD("lat_max_ns", DBL, lat_max_ns, "nonneg", "ns", "largest"),

    /* energy: {available: false, reason} when not measured; absent when not asked (groups, merges, results before it) */
    PART(ENERGY, "available", ABSENT, 0, "{\"const\": true}", "",
         "`true` when measured; `false` when not, with `reason` and no other key: no powercap driver (a VM: "
         "\"no RAPL package domain under /sys/class/powercap\"), `energy_uj` readable by root only (Linux 5.10+), "
         "another OS"),
    PART(ENERGY, "reason", ABSENT, 0, "{\"type\": \"null\"}", "", "`null` when measured, else why not"),
    EN("source", STR, source, "{\"const\": \"rapl\"}", "",
       "`rapl`: the CPU packages' counters of the kernel's powercap tree ([device.md](device.md#energy))"),
    EN("domains", U32, domains, "{\"type\": \"integer\", \"minimum\": 1}", "packages", "the package domains summed"),
    PART(ENERGY, "joules", ABSENT, NVB__FF_AV, "nonneg", "J",
       "the packages' energy over the run, ramp included: their whole draw, every process's, the CPU side only"),
    PART(ENERGY, "joules_per_io", ABSENT, NVB__FF_AV, "?nonneg", "J/I/O",
         "`joules` over the I/Os of the run (read, write, trim); `null` with a `ramp` (the counters include it) "
         "or without I/O"),
    PART(ENERGY, "watts", ABSENT, NVB__FF_AV, "?nonneg", "W", "`joules` over `duration_s`; `null` with `joules_per_io`"),

    /* per_target[].device_log: {available: false, reason} where the log was not read; absent where it
     * was not asked (results from before it) */
    PART(DEVLOG, "available", EACH, 0, "{\"const\": true}", "",
         "`true` when the health log was read before and after the run; `false` when not, with `reason` "
         "and no other key"),
    PART(DEVLOG, "reason", EACH, 0, "{\"type\": \"null\"}", "", "`null` when read, else why not"),
    DL("node", STR, 0, node, "string", "", "the node the log was read through: the target, or the namespace "
       "under a file's file system"),
    DL("warning_threshold_k", U32, NVB__FF_ZERO, warn_temp_k,
       "{\"oneOf\": [{\"type\": \"null\"}, {\"type\": \"integer\", \"minimum\": 1}]}", "K",
       "the composite temperature's over threshold (Get Features 04h); `null` when unknown"),
    PART(DEVLOG, "before", EACH, NVB__FF_AV, "#health_log", "",
         "the log's fields before and after the run ([device.md](device.md#per_targetdevice_log-the-nvme-health-log))"),
    PART(DEVLOG, "after", EACH, NVB__FF_AV, "#health_log", "", NULL),
    PART(DEVLOG, "delta", EACH, NVB__FF_AV, "#health_log_delta", "",
         "after - before of each field (a gauge such as `temperature_k` may fall)"),
    DLD("device_bytes_per_host_byte", dev_w,
        "`delta.data_units_written` x 512000 / the bytes this target's jobs wrote"),
    DLD("device_read_bytes_per_host_byte", dev_r, "the same for reads"),
    DLD("host_commands_per_io", cmds,
        "`delta` of host read + write commands / the I/Os this target's jobs completed: below 1 merged, "
        "above 1 split. The three are `null` with a `ramp` (the log counts its I/O), each when its "
        "divisor is 0"),
    PART(DEVLOG, "derived_reason", EACH, NVB__FF_AV, "{\"type\": [\"string\", \"null\"]}", "",
         "why the three are `null` (a `ramp`), else `null`"),
    PART(DEVLOG, "power", EACH, NVB__FF_AV | OLD | OPT, "#device_power", "",
         "the controller's power state (below); absent in results from before it"),
    PART(DEVLOG, "media", EACH, NVB__FF_AV | OLD | OPT, "#device_media", "",
         "the bytes the controller wrote to its media (below); absent in results from before it, as are the next two"),
    PART(DEVLOG, "write_amplification", EACH, NVB__FF_AV | OLD | OPT, "?nonneg", "",
         "the write amplification factor: `media.bytes_written` / (`delta.data_units_written` x 512000), the "
         "host's writes as the device counted them; `null` where the device reports no media writes or counted "
         "no host writes"),
    PART(DEVLOG, "write_amplification_reason", EACH, NVB__FF_AV | OLD | OPT, "{\"type\": [\"string\", \"null\"]}",
         "", "why it is `null`, else `null`"),

    /* device_log.before, .after, .delta: the health log's fields, from devlog.h's list */
    NVB__SMART_FIELDS(HEALTH)
    NVB__SMART_FIELDS(HEALTHD)

    /* device_log.power: {available: false, reason} where the power state could not be read */
    PART(DEVPOWER, "available", EACH, 0, "{\"const\": true}", "",
         "`true` when the power state was read (Get Features 02h) before and after the run; `false` when "
         "not, with `reason` and no other key"),
    PART(DEVPOWER, "reason", EACH, 0, "{\"type\": \"null\"}", "", "`null` when read, else why not"),
    PW("state_before", U32, 0, ps_before, "{\"type\": \"integer\", \"minimum\": 0, \"maximum\": 31}", "",
       "the power state before and after the run"),
    PW("state_after", U32, 0, ps_after, "{\"type\": \"integer\", \"minimum\": 0, \"maximum\": 31}", "", NULL),
    PW("max_power_w", DBL, NVB__FF_ZERO | NVB__FF_G6, max_w,
       "{\"oneOf\": [{\"type\": \"null\"}, {\"type\": \"number\", \"exclusiveMinimum\": 0}]}", "W",
       "the maximum power of the state after, from Identify Controller's power state descriptor: its "
       "ceiling, not what the device drew; `null` when the controller states none"),
    PART(DEVPOWER, "measured_w", EACH, NVB__FF_AV, "?nonneg", "W", "the NVM subsystem's average power over the `measured_intervals` interval measurements of its Power Measurement log (25h) that ended during the run; `null` with `measured_reason` where there is none ([device.md](device.md#the-devices-measured-power))"),
    PW("measured_intervals", U32, NZ | OLD | OPT, pm_n, "{\"type\": \"integer\", \"minimum\": 1}", "", NULL),
    PART(DEVPOWER, "measured_reason", EACH, NVB__FF_AV, "{\"type\": [\"string\", \"null\"]}", "", NULL),

    /* device_log.media: {available: false, reason} where the controller reports no media writes */
    PART(DEVMEDIA, "available", EACH, 0, "{\"const\": true}", "",
         "`true` when media writes were read before and after the run; `false` when not, with `reason`"),
    PART(DEVMEDIA, "reason", EACH, 0, "{\"type\": \"null\"}", "", "`null` when read, else why not"),
    PART(DEVMEDIA, "source", EACH, NVB__FF_AV, "{\"enum\": [\"endurance_group_log\", \"ocp_smart_extended_log\"]}",
         "", "the Endurance Group Information log (09h) or OCP's SMART / Health Information Extended log (C0h)"),
    MD("endurance_group", U32, NVB__FF_ZERO, endgid, "{\"oneOf\": [{\"type\": \"null\"}, {\"type\": \"integer\", "
       "\"minimum\": 1}]}", "", "the namespace's endurance group (the log's); `null` for OCP's log"),
    MD("bytes_written_before", U64, 0, media_before, "count", "bytes",
       "the media's bytes written before and after the run (09h: Media Units Written x 512000; C0h: bytes)"),
    MD("bytes_written_after", U64, 0, media_after, "count", "bytes", NULL),
    PART(DEVMEDIA, "bytes_written", EACH, NVB__FF_AV, "{\"type\": \"integer\"}", "bytes", "after - before"),
};

const size_t nvb__nfigs = sizeof nvb__figs / sizeof nvb__figs[0];

double nvb__figs_pct(const struct nvb__fig *f)
{
    return f->sec == NVB__FS_LAT && f->key[0] == 'p' ? strtod(f->key + 1, NULL) : -1;
}

void nvb__figs_lat(const struct nvb__hist *h, struct nvb__latfig *out)
{
    memset(out, 0, sizeof *out);
    if (!h || !h->count)
        return;
    out->min = h->min;
    out->max = h->max;
    out->mean = nvb__hist_mean(h);
    out->stddev = nvb__hist_stddev(h);
    for (size_t i = 0; i < nvb__nfigs; i++)
        if (nvb__figs_pct(&nvb__figs[i]) >= 0)
            *(double *)((char *)out + nvb__figs[i].off) = nvb__hist_pct(h, nvb__figs_pct(&nvb__figs[i]));
}

uint64_t nvb__figs_dirsum(const void *base, const struct nvb__fig *f, unsigned when)
{
    const uint64_t *a = (const uint64_t *)((const char *)base + f->off);
    uint64_t sum = 0;
    for (int d = 0; d < (when & NVB__FF_TRIM ? NVB__NDIR : 2); d++)
        sum += a[d];
    return sum;
}

unsigned nvb__figs_when(const struct nvb_result *r)
{
    return (r->trim ? NVB__FF_TRIM : 0) | (r->sub.ext ? NVB__FF_EXT : 0) |
           (r->rate_set && r->rate_mode == NVB__RATE_OPEN ? NVB__FF_OPEN : 0) | (r->cpu_valid ? NVB__FF_CPU : 0) |
           (r->cpu_tick_s > 0 ? NVB__FF_TICK : 0);
}

int nvb__figs_json(char **out)
{
    struct nvb__buf b = {0};
    nvb__buf_puts(&b, "[");
    for (size_t i = 0; i < nvb__nfigs; i++) {
        const struct nvb__fig *f = &nvb__figs[i];
        nvb__buf_puts(&b, i ? ",\n{\"sec\":" : "\n{\"sec\":");
        nvb__json_write_str(&b, nvb__fig_sec_names[f->sec]);
        nvb__buf_puts(&b, ",\"key\":");
        nvb__json_write_str(&b, f->key);
        nvb__buf_puts(&b, ",\"type\":");
        nvb__json_write_str(&b, nvb__fig_type_names[f->type]);
        nvb__buf_puts(&b, ",\"merge\":");
        nvb__json_write_str(&b, nvb__fig_merge_names[f->merge]);
        nvb__buf_printf(&b, ",\"trim_only\":%s,\"old\":%s,\"optional\":%s,\"ext\":%s,\"open_only\":%s",
                        f->flags & NVB__FF_TRIM ? "true" : "false", f->flags & NVB__FF_OLD ? "true" : "false",
                        f->flags & NVB__FF_OPT ? "true" : "false", f->flags & NVB__FF_EXT ? "true" : "false",
                        f->flags & NVB__FF_OPEN ? "true" : "false");
        if (f->sec == NVB__FS_HEALTH) { /* where the log page keeps it */
            nvb__buf_printf(&b, ",\"bytes\":\"%zu", f->off2);
            if (f->size > 1)
                nvb__buf_printf(&b, "-%zu", f->off2 + f->size - 1);
            nvb__buf_puts(&b, "\"");
        }
        nvb__buf_puts(&b, ",\"schema\":");
        nvb__json_write_str(&b, f->schema);
        nvb__buf_puts(&b, ",\"unit\":");
        nvb__json_write_str(&b, f->unit);
        nvb__buf_puts(&b, ",\"doc\":");
        if (f->doc)
            nvb__json_write_str(&b, f->doc);
        else
            nvb__buf_puts(&b, "null");
        nvb__buf_puts(&b, "}");
    }
    nvb__buf_puts(&b, "\n]\n");
    if (b.oom) {
        free(b.s);
        return -ENOMEM;
    }
    *out = b.s;
    return 0;
}
