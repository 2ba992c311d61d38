/*
 * nvbench.h - the public C ABI of libnvbench.
 *
 * Conventions that hold for every function below:
 *  - Functions that can fail return 0 (or a count) on success and a negative
 *    errno on failure; nvb_strerror() turns it into text.
 *  - Objects with state are opaque handles with exactly one destroy function.
 *    Constructors return int and fill an out-parameter.
 *  - The library keeps no global state: distinct handles may be used from
 *    distinct threads at the same time. One handle must not be used from two
 *    threads at once unless its function says so.
 *  - The library never prints, never calls exit() and never touches signal
 *    dispositions.
 *
 * This header compiles as C99 (-pedantic) and as C++.
 */
#ifndef NVBENCH_H
#define NVBENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(NVB_BUILDING_DLL)
#define NVB_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define NVB_API __attribute__((visibility("default")))
#else
#define NVB_API
#endif

#define NVB_VERSION_MAJOR 0
#define NVB_VERSION_MINOR 1
#define NVB_VERSION_PATCH 0

/* Version of the JSON result schema emitted by nvb_result_json(). */
#define NVB_SCHEMA_VERSION "nvbench.result/1"

struct nvb_workload;
struct nvb_result;
struct nvb_cancel;

/* Direction of an I/O, for the typed result getters. NVB_TRIM: discards
 * (rw=trim, randtrim); struct nvb_progress counts reads and writes only. */
enum nvb_dir { NVB_READ = 0, NVB_WRITE = 1, NVB_TRIM = 2 };

/* ------------------------------------------------------------------ */
/* Library                                                              */
/* ------------------------------------------------------------------ */

/* "MAJOR.MINOR.PATCH" of the library actually loaded. Static string. */
NVB_API const char *nvb_version(void);

/* Text for a negative errno returned by this library (e.g. -EINVAL).
 * Returns a static string; never NULL. Thread-safe. */
NVB_API const char *nvb_strerror(int err);

/* Release memory the library handed to the caller (nvb_result_json()). */
NVB_API void nvb_free(void *p);

/* ------------------------------------------------------------------ */
/* Engines                                                              */
/* ------------------------------------------------------------------ */

/* Number of engines this library knows (compiled in or not). */
NVB_API int nvb_engine_count(void);

/* Name of engine i (0 <= i < nvb_engine_count()), or NULL. Static string. */
NVB_API const char *nvb_engine_name(int i);

/* Does `engine` work here? Returns 0 when it does, -ENOENT for an unknown
 * name, -ENOTSUP (or another negative errno) when it does not; in that case
 * a reason is written to why (NUL-terminated, truncated to why_len) when why
 * is not NULL. The answer is computed once per process and cached; the call
 * is thread-safe. */
NVB_API int nvb_engine_probe(const char *engine, char *why, size_t why_len);

/* ------------------------------------------------------------------ */
/* Workloads                                                            */
/* ------------------------------------------------------------------ */

/* Create a workload with default settings (rw=randread, bs=4k, qd=1,
 * jobs=1, engine=psync, direct=1, runtime=5s, ...: see docs/api.md).
 * Returns 0, or -EINVAL (out NULL), -ENOMEM. The caller owns *out and
 * releases it with nvb_workload_free(). */
NVB_API int nvb_workload_new(struct nvb_workload **out);

/* Release a workload. NULL is allowed. */
NVB_API void nvb_workload_free(struct nvb_workload *w);

/* Set one key. Values are strings: sizes "4k", "1M", "2G" (binary units),
 * durations "500ms", "2s", "1m", booleans "0"/"1". Engine-specific keys are
 * namespaced ("io_uring.sqpoll"). The value is checked at once; on failure
 * the workload is unchanged and nvb_workload_error() names the key and the
 * value. Returns 0, -EINVAL (unknown key or malformed value), -ERANGE
 * (value out of range), -ENOSPC (too many engine options), -ENOMEM. */
NVB_API int nvb_workload_set(struct nvb_workload *w, const char *key, const char *value);

/* Current value of a key as a string, written into buf. Returns the length,
 * -ENOENT for an unknown key, -ENOSPC when buf is too small. */
NVB_API int nvb_workload_get(const struct nvb_workload *w, const char *key, char *buf, size_t len);

/* Append a target: a regular file, a block device, or a directory in which
 * the run creates (and afterwards deletes) a scratch file of `size` bytes;
 * a path that does not exist, with `size` set, is created by the run as a
 * file and kept (docs/api.md). The path is checked at run time, not here. Returns 0, -EINVAL (empty),
 * -ENAMETOOLONG, -ENOMEM. */
NVB_API int nvb_workload_add_target(struct nvb_workload *w, const char *path);

/* Remove every target. */
NVB_API void nvb_workload_clear_targets(struct nvb_workload *w);

/* Check the whole workload, including its targets (existence, permission,
 * block size alignment, the destructive-write guard), without creating or
 * writing anything. Returns 0 or the negative errno nvb_run() would return;
 * nvb_workload_error() then says why. */
NVB_API int nvb_workload_validate(struct nvb_workload *w);

/* Message describing the last failure of nvb_workload_set(),
 * nvb_workload_add_target() or nvb_workload_validate() on w, naming the key
 * and the value; "" when there was none. Valid until the next call on w. */
NVB_API const char *nvb_workload_error(const struct nvb_workload *w);

/* A new workload from the "workload" object of a result's JSON (len bytes
 * of text, e.g. json.dumps(result["workload"])): every key at the value it
 * had when the run was made, as nvb_workload_get() shows it, with its
 * targets and engine options, so that running it runs that workload again.
 * Each member of the object is read under the echo name the key table
 * gives it ("runtime_s" is runtime in seconds, {"ss":{"metric":...}} is
 * ss, {"fault":{"delay_s":...}} is fault.delay); null leaves a key to the
 * library, a missing member leaves it at its default (an echo of an older
 * version). Since 0.4. Returns 0, -EINVAL (json or out NULL, not JSON, not
 * an object, a member that is no key of this library or whose value it
 * refuses; why, NUL-terminated and cut at why_len, may be NULL, names the
 * member and the value), -ERANGE (a value out of its key's range), -ENOMEM.
 * *out is NULL on failure; free it with nvb_workload_free(). Thread-safe. */
NVB_API int nvb_workload_from_json(const char *json, size_t len, struct nvb_workload **out, char *why,
                                   size_t why_len);

/* The workload key table, so that front doors and bindings list and
 * document keys from the library instead of keeping copies. Name of core
 * key i (0, 1, ... in the table's order, the order of a result's workload
 * echo), or NULL past the last. Engine options are listed by
 * nvb_engine_option(). Static strings; thread-safe. Since 0.4. */
NVB_API const char *nvb_workload_key(size_t i);

/* One column of the description of `key` (a core key or an engine option
 * "io_uring.sqpoll"), as a static string: "type" (how the value is parsed:
 * size, duration, duration_us, uint, u64, bool, enum, engine, cpulist,
 * string, prob, percent, errno, bssplit, distribution; an engine option's
 * int, bool or autobool), "unit" (what a bare number means: bytes,
 * seconds, microseconds, percent, ...), "group" (workload, region, timing,
 * data, rate, safety, errors, fault, steady state; engine for an engine
 * option), "fio" (fio's option of that meaning), "help" (one line, plain
 * text), "doc" (the meaning as docs/api.md states it, markdown), "range"
 * (the values taken, markdown), "default" (the default as the docs state
 * it when the value of a new workload alone would not say it), "echo" (the
 * key's name in a result's workload echo, dotted for a nested member) and
 * "measures" ("1" when two results that differ in this key measured
 * different things, else "0"). "" when the key has nothing in that column.
 * NULL for an unknown key or column. Thread-safe. Since 0.4. */
NVB_API const char *nvb_workload_key_info(const char *key, const char *field);

/* Name of column i that nvb_workload_key_info() answers ("type", "unit",
 * ...), or NULL past the last: bindings list every column without a copy
 * of the list. Static string; thread-safe. Since 0.4. */
NVB_API const char *nvb_workload_key_field(size_t i);

/* Name of option i of engine `engine` (as nvb_engine_name(engine)), without
 * the engine's prefix ("sqpoll" of io_uring: the key is "io_uring.sqpoll"),
 * or NULL past the last option or for no such engine. Static string;
 * thread-safe. Since 0.4. */
NVB_API const char *nvb_engine_option(int engine, size_t i);

/* ------------------------------------------------------------------ */
/* Cancellation                                                         */
/* ------------------------------------------------------------------ */

/* A cancellation handle: nvb_cancel_request() may be called from any
 * thread or from a signal handler (it is async-signal-safe: one atomic
 * store). A run polling the handle stops issuing I/O, drains what is in
 * flight and returns a partial result marked cancelled. */
NVB_API int  nvb_cancel_new(struct nvb_cancel **out);
NVB_API void nvb_cancel_free(struct nvb_cancel *c);
NVB_API void nvb_cancel_request(struct nvb_cancel *c);
NVB_API int  nvb_cancel_requested(const struct nvb_cancel *c);
NVB_API void nvb_cancel_reset(struct nvb_cancel *c);

/* ------------------------------------------------------------------ */
/* Running                                                              */
/* ------------------------------------------------------------------ */

/* A live snapshot handed to the progress callback at each interval. */
struct nvb_progress {
    size_t   size;          /* sizeof(struct nvb_progress) of the library */
    double   elapsed_s;     /* since the start of the measured window (negative during ramp) */
    double   total_s;       /* planned runtime (0 when bounded by io_limit/ios only) */
    uint64_t ios[2];        /* completed I/Os so far, by enum nvb_dir */
    uint64_t bytes[2];
    double   iops[2];       /* over the last interval */
    double   bw_bytes_s[2]; /* over the last interval */
    double   lat_mean_ns[2];/* over the last interval, 0 when no I/O */
    uint64_t errors;
    double   done_fraction; /* 0..1 estimate of progress */
};

/* Called on the thread that called nvb_run(). Return nonzero to cancel. */
typedef int (*nvb_progress_fn)(const struct nvb_progress *p, void *arg);

/* Log callback: the only way the library reports diagnostics as they occur.
 * level: 0 error, 1 warning, 2 info, 3 debug. */
typedef void (*nvb_log_fn)(int level, const char *msg, void *arg);

/* A time-series point (nvb_run_opts.point), since 0.4: json (len bytes, NUL-
 * terminated, valid during the call) is timeseries[]'s text for the unmerged
 * point. On nvb_run()'s thread (never an I/O loop), in order, once each, after
 * an I/O past it (or at the end). Nonzero is named in the warnings. */
typedef int (*nvb_point_fn)(const char *json, size_t len, void *arg);
/* Options for one run. Zero-initialise it and set `size` to
 * sizeof(struct nvb_run_opts) (NVB_RUN_OPTS_INIT does both): the library
 * reads only the fields that fit in `size`, so the struct can grow. */
struct nvb_run_opts {
    size_t            size;
    nvb_progress_fn   progress;     /* optional */
    void             *progress_arg;
    struct nvb_cancel *cancel;      /* optional */
    nvb_log_fn        log;          /* optional */
    void             *log_arg;
    /* Optional: called on the calling thread about every poll_ms
     * milliseconds (100 when 0) while the run is under way; return nonzero
     * to cancel. For bindings that must check their own interrupts from the
     * calling thread (Python runs signal handlers only there). */
    int             (*poll)(void *arg);
    void             *poll_arg;
    unsigned          poll_ms;
    /* Optional start barrier, for runs on several hosts that must start
     * together (examples/c/mpi_run.c calls MPI_Barrier in it). Called on
     * the calling thread exactly once per nvb_run() that receives it
     * (unless nvb_run() refuses its arguments): when every job has finished
     * its setup (targets open, scratch files laid out, engines ready), just
     * before the jobs are released into the ramp and the measured window,
     * with status 0; or, when the run failed before that point, with that
     * negative errno, so that a collective barrier never waits for a
     * process whose run has already failed. Return 0 to start; anything
     * else abandons the run, which then returns -ECANCELED with a result
     * marked cancelled (or its own failure when status was one). */
    int             (*start_barrier)(int status, void *arg);
    void             *start_barrier_arg;
    /* Optional, since 0.4: each interval's point (nvb_point_fn), before the
     * series merges any (timeseries_max); not a precondition's. Job groups:
     * each group's, its first key "group" (its name), then groups[i]'s. */
    nvb_point_fn      point;
    void             *point_arg;
};
#define NVB_RUN_OPTS_INIT { sizeof(struct nvb_run_opts), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }

/* Run a workload (opts may be NULL) and return its result in *out.
 * Blocks the calling thread; worker threads are created and joined inside.
 * The workload is only read, so one workload may be run from several
 * threads at once.
 * Returns 0 when the run completed (I/O errors, if any, are counted in the
 * result). On failure returns a negative errno: -EINVAL, -ENOENT, -EACCES,
 * -EPERM (destructive write not allowed), -EBUSY (a target in use: mounted,
 * held, swap, backing a loop device in use, or written or verified by
 * another run), -ESTALE (a target changed between planning and opening: it
 * is no longer what the guard judged), -EMFILE (more descriptors needed
 * than RLIMIT_NOFILE allows), -ENOTSUP (engine or option
 * unavailable here; an engine the kernel refuses passes the kernel's errno
 * on, e.g. -EPERM when io_uring is disabled, -ENOSYS when it is missing, and
 * nvb_result_error() names the engine), -ENOMEM, -EIO (stopped at an I/O
 * error), -ETIMEDOUT (the watchdog: an I/O unanswered for io_timeout),
 * -ECANCELED (cancelled). Even on failure *out is set when a result could
 * be built: it then carries nvb_result_error() and, for
 * -ECANCELED/-EIO/-ETIMEDOUT, the partial figures. The caller frees *out
 * with nvb_result_free() in every case. */
NVB_API int nvb_run(const struct nvb_workload *w, const struct nvb_run_opts *opts,
                    struct nvb_result **out);

/* Run n workloads at once as the job groups of one run (docs/api.md, "Job
 * groups"): each group is planned, held and set up as nvb_run() would do
 * it, then all groups' jobs are released together (one start, one call of
 * opts->start_barrier); each group ends on its own bound (runtime_s, ios)
 * and the run ends with the last one. The `name` key of each workload
 * names its group ("group0", "group1", ... when unset; names must differ).
 * A target written by one group may be read by others (they share the
 * writer's hold, so a block device is opened O_EXCL once); a target
 * written by two groups, or written by one and verified by another, is
 * refused with -EBUSY naming both groups. opts (progress: the groups'
 * figures summed; poll; cancel: every group stops) works as for nvb_run(),
 * on the calling thread. *out holds the totals, as one run that did all
 * the I/O (counts and histograms add exactly; the process CPU once, in the
 * total only), and "groups": each group's own result. Returns as nvb_run()
 * does; a group's failure is the run's, its message prefixed with the
 * group's name. Since 0.3. */
NVB_API int nvb_run_groups(const struct nvb_workload *const *ws, size_t n, const struct nvb_run_opts *opts,
                           struct nvb_result **out);

/* Plan runs to come without running them: nothing is opened for I/O,
 * created or written (as nvb_workload_validate()). ws[0..n) are split into
 * steps, run one after the other: ws[i] belongs to step steps[i] (steps
 * non-decreasing; NULL: all in one step). A step of one workload is
 * planned as nvb_run() plans it, a step of several as nvb_run_groups()
 * plans its groups: names that differ, no target written by two groups or
 * written by one and verified by another, their memory and descriptors
 * summed. A target a step would create (missing, with size) is taken as
 * existing in the steps after it, known by its path as written. So a job
 * file's last step is checked before its first one writes anything.
 * Returns 0, or the negative errno the planning of that step's run would
 * return (-EINVAL, -EBUSY, -ENOENT, -EPERM, -ENOMEM, -EMFILE, ...; -EINVAL
 * too for bad arguments or more than 1024 workloads in a step); err
 * (errlen bytes, may be NULL) then holds the message and *bad (may be
 * NULL) the index in ws of the workload it concerns. Thread safety: as
 * nvb_workload_validate(), the workloads only read. Since 0.3. */
NVB_API int nvb_groups_validate(const struct nvb_workload *const *ws, size_t n, const unsigned *steps, size_t *bad,
                                char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Results                                                              */
/* ------------------------------------------------------------------ */

/* Serialise as JSON (schema NVB_SCHEMA_VERSION, docs/json-schema.md).
 * *json is NUL-terminated; free it with nvb_free(). Returns 0 or -ENOMEM. */
NVB_API int nvb_result_json(const struct nvb_result *r, char **json);

/* Point i (0-based) of r's time series as the JSON text timeseries[] holds
 * (and, unmerged, the text given to nvb_run_opts.point); free *json with
 * nvb_free(). 0, -EINVAL (NULL), -ERANGE (no point i) or -ENOMEM; r is only
 * read. Since 0.4. */
NVB_API int nvb_result_point_json(const struct nvb_result *r, size_t i, char **json);

/* Release a result. NULL is allowed. */
NVB_API void nvb_result_free(struct nvb_result *r);

/* Name of the machine that ran r (gethostname()); "" for a merged result
 * (its "hosts" rows name each machine). Valid while r lives. */
NVB_API const char *nvb_result_host(const struct nvb_result *r);

/* The failure that ended the run ("" when none). Valid while r lives. */
NVB_API const char *nvb_result_error(const struct nvb_result *r);
/* Negative errno of that failure, 0 when none. */
NVB_API int nvb_result_errno(const struct nvb_result *r);
/* 1 when the run was cancelled. */
NVB_API int nvb_result_cancelled(const struct nvb_result *r);

/* The warnings of a result (the JSON's "warnings"): what makes a figure
 * mean less than its label (a synchronous engine at qd > 1, a machine that
 * was not quiet, ...). A program shows each to its user, e.g. on stderr.
 * nvb_result_warning() returns the i-th (0-based) or NULL past the end;
 * valid while r lives. Since 0.2. */
NVB_API size_t nvb_result_warning_count(const struct nvb_result *r);
NVB_API const char *nvb_result_warning(const struct nvb_result *r, size_t i);

/* Typed getters for the headline numbers. dir is enum nvb_dir. Values
 * outside the range give 0. */
NVB_API double   nvb_result_duration(const struct nvb_result *r);     /* seconds */
NVB_API uint64_t nvb_result_ios(const struct nvb_result *r, int dir);
NVB_API uint64_t nvb_result_bytes(const struct nvb_result *r, int dir);
NVB_API double   nvb_result_iops(const struct nvb_result *r, int dir);
NVB_API double   nvb_result_bw(const struct nvb_result *r, int dir);  /* bytes/s */
NVB_API double   nvb_result_lat_mean(const struct nvb_result *r, int dir); /* ns */
/* Latency percentile in ns (pct in [0,100]); never above the observed max. */
NVB_API double   nvb_result_lat_pct(const struct nvb_result *r, int dir, double pct);
NVB_API uint64_t nvb_result_errors(const struct nvb_result *r);

/* Any numeric figure of the JSON (outside "workload", which echoes the
 * input) by its dotted path, e.g. "read.iops",
 * "read.lat_ns.p99", "cpu.system_pct", "cpu.cpu_us_per_io",
 * "per_target.0.write.bytes". Returns 0 and fills *value, or -ENOENT. */
NVB_API int nvb_result_get(const struct nvb_result *r, const char *path, double *value);

/* ---- results of several hosts (docs/multihost.md) ---- */

/* Merge the results of one workload run by several hosts or processes into
 * a new result, as if one run had done all their I/O:
 *  - I/O counts and bytes, errors (by errno, by direction, short), fault
 *    and verify counts add up exactly;
 *  - latency histograms add bucket by bucket, so the merged percentiles are
 *    those of one histogram fed every sample, not averages of percentiles;
 *  - the measured window runs from the earliest window start to the latest
 *    window end by wall clock ("start_unix_ns" + "ramp_s", "end_unix_ns"),
 *    and every rate is over it: merged IOPS = all I/Os / that window;
 *  - CPU: process CPU seconds, process_cores and context switches add;
 *    system-wide percentages are the hosts' averaged weighted by their CPU
 *    counts; cpu_us_per_io = all CPU time / all I/Os;
 *  - "hosts" gets one row per input run: IOPS, bandwidth, p99, CPU per
 *    I/O, system_pct, when its first and its last job finished. An input
 *    that is itself merged contributes its rows, so merging is associative;
 *  - "per_target" is the concatenation, each target naming its host;
 *  - time series add point by point: by wall-clock interval when every
 *    input ran with align_interval=1 and the same interval, else by index;
 *  - warnings are kept, prefixed with their host; the merged result is
 *    cancelled when any input was, and carries the first input's failure
 *    (the first that is not a cancellation, when there is one).
 * Inputs come from nvb_run(), nvb_result_from_json() or an earlier merge
 * and are only read (they may be read from other threads meanwhile).
 * Returns 0, -EINVAL (out or parts NULL, n 0, a NULL part), -ENOMEM,
 * -EOVERFLOW (an I/O or byte count, or a latency histogram's count, would
 * pass 2^64 - 1: sums are never wrapped); *out is NULL on failure. The
 * caller frees *out with nvb_result_free(). */
NVB_API int nvb_result_merge(struct nvb_result **out, const struct nvb_result *const *parts, size_t n);

/* A result from its JSON (nvb_result_json(), schema NVB_SCHEMA_VERSION),
 * e.g. sent by another process: JSON(nvb_result_from_json(JSON(r))) is the
 * JSON of r, every figure the same. The text is checked strictly (RFC 8259,
 * valid UTF-8, nesting at most 64 deep, no duplicate keys) and so are the
 * figures (histogram geometry and counts, sizes of fixed fields): hostile
 * input is refused, never trusted. Thread-safe.
 * Returns 0, -EINVAL (json or out NULL, malformed, not a result of this
 * schema), -ENOMEM; *out is NULL on failure. Free *out with
 * nvb_result_free(). */
NVB_API int nvb_result_from_json(const char *json, struct nvb_result **out);

/* The same for len bytes of text (NUL bytes are refused), saying why a
 * refused text was refused in why (NUL-terminated, truncated to why_len;
 * may be NULL): the byte offset of a syntax error or the key that is
 * wrong. */
NVB_API int nvb_result_parse(const char *json, size_t len, struct nvb_result **out, char *why, size_t why_len);

/* The workload of a result (from nvb_run(), nvb_result_from_json() or a
 * merge), read back from its echo as nvb_workload_from_json() does: every
 * key as it ran. r is only read (other threads may read it meanwhile).
 * Since 0.4. Returns 0, -EINVAL (r or out NULL, an echo this library
 * cannot take: why says which member), -ENOENT (the result records no
 * workload), -ERANGE, -ENOMEM; *out is NULL on failure, else free it with
 * nvb_workload_free(). */
NVB_API int nvb_result_workload(const struct nvb_result *r, struct nvb_workload **out, char *why, size_t why_len);

/* ------------------------------------------------------------------ */
/* Devices                                                              */
/* ------------------------------------------------------------------ */

/* Block devices as an administrator sees them: size, block sizes, queue
 * settings, NVMe controllers, PCIe links and multipath, partitions,
 * holders, mounts, swap, filesystem signature, and the indirection unit
 * (preferred write granularity). The JSON shape is docs/devices.md.
 *
 * sysfs_root: NULL (or "/sys") for the running system; otherwise a
 * recorded tree, whose sibling directories proc/, dev/ and probe/ (when
 * present) stand in for /proc, /dev and the answers of libblkid and NVMe
 * Identify; no device node of the machine is opened then.
 * Device nodes are opened read-only, and only to read a signature (libblkid)
 * and NVMe Identify; what needs privileges this process lacks is reported
 * as unknown, with the reason, not as an error.
 * All of these are thread-safe (no shared state). */

/* One device, valid only during the nvb_device_enumerate() callback. */
struct nvb_device;

/* Every block device as a JSON array (NUL-terminated), in /sys/block order
 * with partitions after their disk. The caller frees *json with nvb_free().
 * Returns 0, -EINVAL (json NULL), -ENOENT (no such root, or no block/ in
 * it), -ENOTDIR, -ENAMETOOLONG, -ENOMEM. */
NVB_API int nvb_devices_json(const char *sysfs_root, char **json);

/* One device of the running system by path, as a JSON object: a block
 * device node, a symlink to one (/dev/disk/by-id/...), or an NVMe generic
 * node /dev/ngXnY (which gives its namespace nvmeXnY). The caller frees
 * *json with nvb_free(). Returns 0, -EINVAL, -ENOENT (no such path),
 * -ENODEV (not a block device or NVMe generic node, or no /sys),
 * -ENOMEM. */
NVB_API int nvb_device_json(const char *path, char **json);

/* Called once per device; return 0 to go on, anything else to stop. */
typedef int (*nvb_device_fn)(const struct nvb_device *dev, void *arg);

/* Call fn for every device (the order of nvb_devices_json()), on the
 * calling thread. Returns the number of devices visited, the nonzero value
 * fn returned to stop, or -EINVAL (fn NULL), -ENOENT, -ENOTDIR,
 * -ENAMETOOLONG, -ENOMEM. */
NVB_API int nvb_device_enumerate(const char *sysfs_root, nvb_device_fn fn, void *arg);

/* A field of dev by the dotted path of its JSON object ("name", "size",
 * "kind", "nvme.controllers.0.model", "mounts.0.mount_point"), written to
 * buf NUL-terminated: strings as they are, numbers and booleans as JSON
 * text ("4096", "true"), objects and arrays as JSON. Returns the length
 * (without the NUL), -ENOENT (no such key), -ENODATA (the value is null:
 * unknown or not applicable), -ENOSPC (buf too small; nothing written),
 * -EINVAL, -ENOMEM. Only during the callback that received dev. */
NVB_API int nvb_device_get(const struct nvb_device *dev, const char *key, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* fio job files                                                        */
/* ------------------------------------------------------------------ */

/* The one reader of fio job files (docs/fio-jobs.md): Python's and Lua's
 * nvbench.fio_job and the CLI's `run --fio` read through it, and map its
 * jobs to workloads. It reads the file as fio 3.33 does:
 *  - lines end at '\n' only ('\v', '\f' and the like are bytes of the
 *    line); blanks are stripped at the front, blanks and control
 *    characters ('\r') at the end;
 *  - a ';' or a '#' starts a comment anywhere on a line;
 *  - [name] starts a section; a section whose name starts with "global"
 *    holds options for the jobs after it;
 *  - key=value (blanks around '=' dropped) or a bare key (a flag);
 *  - include FILE (inside a section) reads FILE's lines in place, FILE
 *    relative to the including file; an included file has no sections;
 *  - ${NAME} in an option or an include is the variable's value (an unset
 *    one is an error), $ncpus, $pagesize and $mb_memory this machine's
 *    figures; $(...) is refused.
 * Bytes are kept as they are (not UTF-8 is fine); a NUL byte outside a
 * comment is refused. Every size and count is bounded (the limits below),
 * and a file that is not a regular file (a FIFO, a device, a directory) is
 * refused before it is read, without blocking on it. */
struct nvb_fiojob;

#define NVB_FIOJOB_MAX_LINE     8192        /* bytes of one line, after ${} expansion */
#define NVB_FIOJOB_MAX_BYTES    (8u << 20)  /* bytes read, the file and its includes together */
#define NVB_FIOJOB_MAX_DEPTH    8           /* includes inside includes */
#define NVB_FIOJOB_MAX_INCLUDES 256         /* include lines followed, in all */
#define NVB_FIOJOB_MAX_SECTIONS 4096        /* sections, [global] ones included */
#define NVB_FIOJOB_MAX_OPTIONS  1024        /* distinct options of one section */
#define NVB_FIOJOB_MAX_TOTAL    65536       /* options kept, over every job */

/* Read the job file at path. envp: "NAME=VALUE" strings ending with NULL,
 * the variables ${NAME} sees; NULL for the process environment (getenv).
 * On success *out holds the jobs in file order, each with the options of
 * the global sections before it, then its own (a later value of an option
 * replaces the earlier one in its place; every filename= line adds its
 * files, as in fio: the values joined with ':'). On failure why (may be NULL)
 * receives a message naming the file and line ("a.fio:3: ...") and what
 * is wrong, with the limit's name when a limit was hit (control characters
 * shown as \xNN), NUL-terminated and truncated to why_len.
 * Returns 0, -EINVAL (path or out NULL, a malformed line, an unset
 * variable, a file that is not a regular file, no job section), -E2BIG (a
 * limit above), -ENOMEM, or the negative errno of opening or reading a
 * file (-ENOENT, -EACCES, ...); *out is NULL on failure. The caller frees
 * *out with nvb_fiojob_free(). Thread-safe (reads no global state but the
 * environment when envp is NULL). */
NVB_API int nvb_fiojob_read(const char *path, const char *const *envp, struct nvb_fiojob **out, char *why,
                            size_t why_len);

/* Release a job file read by nvb_fiojob_read(). NULL is allowed. */
NVB_API void nvb_fiojob_free(struct nvb_fiojob *f);

/* The number of jobs (sections that are not global; at least 1). */
NVB_API size_t nvb_fiojob_jobs(const struct nvb_fiojob *f);

/* The section name of job i, or NULL when i is out of range. The string
 * belongs to f. */
NVB_API const char *nvb_fiojob_name(const struct nvb_fiojob *f, size_t job);

/* Does job i wait for the jobs before it (stonewall or wait_for_previous
 * set and true, in the job or a global section before it)? 1 or 0; -EINVAL
 * when i is out of range. */
NVB_API int nvb_fiojob_stonewall(const struct nvb_fiojob *f, size_t job);

/* The number of options of job i (0 when i is out of range). */
NVB_API size_t nvb_fiojob_options(const struct nvb_fiojob *f, size_t job);

/* Option k of job i in order: its name is returned and *value (may be
 * NULL) receives its value, NULL for a bare flag. NULL when out of range.
 * The strings belong to f. Distinct handles may be read from distinct
 * threads; one handle from several threads at once as well (read only). */
NVB_API const char *nvb_fiojob_option(const struct nvb_fiojob *f, size_t job, size_t k, const char **value);

/* The length a job file's target without `size` gives its job, found
 * without opening the target (stat-like facts: a FIFO is never opened, so
 * it cannot hang a reader): a regular file's size or a block device's
 * capacity in *bytes; 0 for a character device (an NVMe generic node: its
 * namespace is measured by the engine). Returns 0, -EINVAL (bad arguments,
 * or a FIFO, a socket or anything else that is not storage), -EISDIR,
 * -ENOENT, -EACCES or another -errno of stat. why (optional, whylen bytes)
 * gets a message naming the path. Thread-safe. */
NVB_API int nvb_target_length(const char *path, uint64_t *bytes, char *why, size_t whylen);

/* The one mapping of fio job files to workloads (docs/fio-jobs.md):
 * Python's and Lua's nvbench.fio_job and the CLI's `run --fio` map
 * through it. Each job of f becomes a workload (library keys, targets),
 * in steps run one after the other: a job with stonewall starts a new
 * step, the jobs of one step run at the same time, and a sequential write
 * with verify gets its read-back as a step of its own after it. An option
 * nvbench cannot honour fails the mapping with a message naming the file,
 * the section, the option and why; with NVB_FIOMAP_LENIENT it is left out
 * instead, with a warning of that workload saying what that changes (some
 * options are refused even then: their absence would change the run
 * beyond recognition). path names the file in messages. Targets without
 * `size` are measured (nvb_target_length), never opened.
 * Returns 0, -EINVAL (the message in why, control characters shown as
 * \xNN) or -ENOMEM; *out is NULL on failure, else freed by the caller
 * with nvb_fiomap_free(). Thread-safe. */
#define NVB_FIOMAP_LENIENT 1u
struct nvb_fiomap;
NVB_API int nvb_fiomap_new(const struct nvb_fiojob *f, const char *path, unsigned flags, struct nvb_fiomap **out,
                           char *why, size_t why_len);
NVB_API void nvb_fiomap_free(struct nvb_fiomap *m);

/* The number of workloads, over all steps, in order. */
NVB_API size_t nvb_fiomap_workloads(const struct nvb_fiomap *m);

/* The step of workload w (0 for the first; steps are numbered without
 * gaps), or -EINVAL when w is out of range. */
NVB_API int nvb_fiomap_step(const struct nvb_fiomap *m, size_t w);

/* The job section workload w was mapped from, NULL when out of range. */
NVB_API const char *nvb_fiomap_section(const struct nvb_fiomap *m, size_t w);

/* The lists of a workload: its library keys (value and origin: the fio
 * option it came from), its targets (files, devices, directories), its
 * warnings (a lenient mapping's drops, names changed) and the options a
 * lenient mapping left out. */
enum nvb_fiomap_list { NVB_FIOMAP_KEYS = 0, NVB_FIOMAP_TARGETS, NVB_FIOMAP_WARNINGS, NVB_FIOMAP_DROPPED };

/* The number of entries of a list of workload w (0 when out of range). */
NVB_API size_t nvb_fiomap_count(const struct nvb_fiomap *m, size_t w, enum nvb_fiomap_list list);

/* Entry k of a list of workload w, NULL when out of range. For
 * NVB_FIOMAP_KEYS the key is returned, *value and *origin (each may be
 * NULL) receive its value and the fio option it came from; for the other
 * lists they receive NULL. The strings belong to m. */
NVB_API const char *nvb_fiomap_item(const struct nvb_fiomap *m, size_t w, enum nvb_fiomap_list list, size_t k,
                                    const char **value, const char **origin);

/* A fio quantity of data in bytes, as fio 3.33 reads it: with kb_base
 * 1024 (fio's default) k/m/g/t/p (and kb, ki, ...) are powers of 1024 and
 * kib, mib, ... powers of 1000; kb_base 1000 swaps them; 0x for hex; a
 * fraction is refused (fio reads 1.5k as 1). At most 2^63 - 1.
 * 0 or -EINVAL with the reason in why. */
NVB_API int nvb_fiomap_size(const char *text, unsigned kb_base, uint64_t *bytes, char *why, size_t why_len);

/* A fio time in nanoseconds: a bare number is in unit ("s", or "us" as
 * fio's thinktime), suffixes d, h, m, s, ms/msec, us/usec, ns/nsec; a
 * fraction is allowed. At most 2^63 - 1 ns. 0 or -EINVAL with why. */
NVB_API int nvb_fiomap_time(const char *text, const char *unit, uint64_t *ns, char *why, size_t why_len);

/* ------------------------------------------------------------------ */
/* Statistics of repeated runs (docs/analysis.md)                       */
/* ------------------------------------------------------------------ */

/* The values a figure can take; its intervals are taken on its scale.
 *  NVB_DOMAIN_POSITIVE  a rate, a time, a cost (> 0): the log scale;
 *  NVB_DOMAIN_SHARE     a share of the machine in % ([0, 100]): the logit
 *                       of the fraction;
 *  NVB_DOMAIN_REAL      anything else: the figure itself. */
enum nvb_domain { NVB_DOMAIN_POSITIVE = 0, NVB_DOMAIN_SHARE = 1, NVB_DOMAIN_REAL = 2 };

/* Why an estimate has no interval (its low and high are NaN). */
enum nvb_ci_why {
    NVB_CI_OK = 0,       /* there is an interval */
    NVB_CI_NO_RUN = 1,   /* no finite value (on a side) */
    NVB_CI_FEW = 2,      /* fewer than 2 values (on a side): "n<2" */
    NVB_CI_BOUND = 3,    /* a mean on the domain's bound (every share 0 %,
                            a zero rate): the scale has no room */
    NVB_CI_SPREAD = 4    /* the spread is not finite (figures past a double) */
};

/* How an interval was taken. */
enum nvb_ci_method { NVB_CI_T = 0, NVB_CI_LOG = 1, NVB_CI_LOGIT = 2 };

/* An estimate and its two-sided confidence interval.
 *  mean interval: value = mean_a = the arithmetic mean of the n_a values
 *                 (mean_b NaN, n_b 0);
 *  ratio:         value = mean_b / mean_a, the ratio of the arithmetic means
 *                 of b (the other) and a (the baseline);
 *  difference:    value = mean_b - mean_a.
 * low/high: the interval (NaN when why != NVB_CI_OK); df: the degrees of
 * freedom of the Student-t quantile used (INFINITY when the spread is 0,
 * NaN when none); sd: the sample standard deviation of the values (mean
 * interval only; NaN below 2 values); method: enum nvb_ci_method. */
struct nvb_estimate {
    double value, low, high, df, mean_a, mean_b, sd;
    size_t n_a, n_b;
    int why, method;
};

/* P(T <= t) for Student's t with df > 0 degrees of freedom (need not be an
 * integer; INFINITY: the normal distribution), into *p. Returns 0 or
 * -EINVAL (df <= 0 or NaN, t NaN, p NULL). Thread-safe. Since 0.4. */
NVB_API int nvb_stats_t_cdf(double t, double df, double *p);

/* The two-sided Student-t critical value: P(|T| <= *t) = confidence, into
 * *t (the regularised incomplete beta, inverted by bisection: exact to
 * about 1e-10). Returns 0, -EINVAL (df <= 0 or NaN, confidence outside
 * (0, 1), t NULL) or -ERANGE (no quantile below 1e12). Thread-safe. Since 0.4. */
NVB_API int nvb_stats_t_critical(double df, double confidence, double *t);

/* The arithmetic mean of values[0..n) (non-finite values are left out: a
 * run without the figure) and a confidence interval of it in its domain
 * (enum nvb_domain): Student's t with n - 1 degrees of freedom on the
 * domain's scale, the standard error carried there by the delta method
 * (s / (sqrt(n) m) on the log scale, s / (sqrt(n) p (1 - p)) on the logit
 * one, p = m / 100), the bounds mapped back: a share's interval lies in
 * (0, 100), a rate's above 0. When there is none, out->why says why.
 * Returns 0 (also when why != NVB_CI_OK), -EINVAL (out NULL, values NULL
 * with n > 0, an unknown domain, confidence outside (0, 1)). Thread-safe.
 * Since 0.4. */
NVB_API int nvb_stats_mean_interval(const double *values, size_t n, int domain, double confidence,
                                    struct nvb_estimate *out);

/* b (the other) against a (the baseline): the ratio of their arithmetic
 * means with a confidence interval in the domain. POSITIVE and SHARE
 * figures: Welch's interval on the log scale, log(mean_b / mean_a) +-
 * t(df) sqrt(v_a + v_b), v = s^2 / (n m^2) (the delta method), df
 * Welch-Satterthwaite's, mapped back (a ratio above 0). REAL figures:
 * Welch's interval of the difference of the means, divided by mean_a and
 * added to 1. Non-finite values are left out. Returns as
 * nvb_stats_mean_interval(). Since 0.4. */
NVB_API int nvb_stats_ratio(const double *a, size_t na, const double *b, size_t nb, int domain,
                            double confidence, struct nvb_estimate *out);

/* mean(b) - mean(a) with Welch's interval (unequal variances); when both
 * spreads are 0 the interval is the difference itself. Returns as
 * nvb_stats_mean_interval(). Since 0.4. */
NVB_API int nvb_stats_difference(const double *a, size_t na, const double *b, size_t nb, double confidence,
                                 struct nvb_estimate *out);

/* A short text for enum nvb_ci_why ("n<2", ...); never NULL. Static string. */
NVB_API const char *nvb_stats_why(int why);

/* ------------------------------------------------------------------ */
/* The seed matrix and percentile ranks (one copy for every binding)    */
/* ------------------------------------------------------------------ */

/* The number of cells of the published seed matrix (docs/analysis.md): 8,
 * four workloads (random 4K, random 64K, sequential 64K, sequential 128K),
 * each read, then each write. Thread-safe. Since 0.4. */
NVB_API size_t nvb_seed_cells(void);

/* A field of seed cell i (0 .. nvb_seed_cells() - 1, in the published
 * order) into *value: field "key" ("rand4k_read"), "workload" ("rand4k"),
 * "op" ("read" or "write"), "rw" ("randread"), "bs" ("4k") or "label"
 * ("Random 4K read": the title of its block in the seed table). The string
 * is static (never freed, valid for the life of the library). Returns 0,
 * -ERANGE (i out of range) or -EINVAL (field unknown or NULL, value NULL);
 * *value is untouched on error. Thread-safe. Since 0.4. */
NVB_API int nvb_seed_cell(size_t i, const char *field, const char **value);

/* A percentile is supported when at least this many latencies lie on
 * either side of its rank (nvb_pct_supported, lat_pct_supported). */
#define NVB_PCT_TAIL 10

/* The rank (1-based) of percentile pct of count latencies: the r-th
 * smallest, r = ceil(count pct / 100) with a few ulps shaved so that a
 * decimal pct (99.9 of 1000) lands on its intended rank; pct is clamped to
 * [0, 100] (NaN: 0); at least 1, at most count (count 0: 1). The rule the
 * library's percentiles use. Thread-safe. Since 0.4. */
NVB_API uint64_t nvb_pct_rank(uint64_t count, double pct);

/* 1 when percentile pct of count latencies rests on enough samples (its
 * rank r has r >= NVB_PCT_TAIL and count - r >= NVB_PCT_TAIL), else 0: the
 * verdict a result writes into lat_pct_supported. Thread-safe. Since 0.4. */
NVB_API int nvb_pct_supported(uint64_t count, double pct);

/* The fewest latencies for which percentile pct is supported; 0 when no
 * count is (p0, p100, pct outside (0, 100) or NaN, or so close to an end
 * that no 64-bit count has the tails). Thread-safe. Since 0.4. */
NVB_API uint64_t nvb_pct_min_ios(double pct);

/* ------------------------------------------------------------------ */
/* The latency-target search (one copy for every binding)              */
/* ------------------------------------------------------------------ */

/* The highest throughput at which a latency percentile keeps a bound. The
 * caller runs the probes: nvb_search_next() names one, the caller runs it
 * and reports its figures with nvb_search_measure(), and so on until
 * nvb_search_next() returns 0. vary "qd": the depth doubles from start
 * until the bound breaks or max_qd is passed, then the last good and first
 * bad depths are bisected. vary "rate_iops": an unthrottled probe (value 0)
 * gives the ceiling, the answer when it keeps the bound; else the rate is
 * bisected between 0 and it until the bracket is narrower than rel_tol of
 * its top (midpoints rounded half up). Since 0.4. */
struct nvb_search;

/* A search for target ("p99<=1ms", "p99.9 < 500us", "mean<=200us": a
 * percentile of lat_ns, '<' or '<=', a bound with unit ns, us, ms or s)
 * varying vary ("qd" or "rate_iops"). Returns 0 and *out (free with
 * nvb_search_destroy), -EINVAL with why (NUL-terminated, cut at why_len,
 * may be NULL) naming the target or vary and what is wrong, or -ENOMEM. */
NVB_API int nvb_search_create(const char *target, const char *vary, struct nvb_search **out, char *why,
                              size_t why_len);

/* Release a search. NULL is allowed. */
NVB_API void nvb_search_destroy(struct nvb_search *s);

/* An option, before the first nvb_search_next(): "start" (first depth, 1),
 * "max_qd" (1024), "max_runs" (probes at most, 24): integers >= 1;
 * "rel_tol" (0.05): in (0, 1); "direction": "read", "write" or "" (the
 * worst direction that did I/O, the default). Returns 0, -EINVAL (unknown
 * key or bad value; nvb_search_error() names both) or -EBUSY (started). */
NVB_API int nvb_search_set(struct nvb_search *s, const char *key, const char *value);

/* The message of the last failure of s ("" when none). Belongs to s. */
NVB_API const char *nvb_search_error(const struct nvb_search *s);

/* The next probe into *value (a queue depth, or a rate in IOPS with 0 for
 * unthrottled) and 1; 0 when the search is over (found, or cut at
 * max_runs: nvb_search_cut); -EINVAL when the probe named before was not
 * measured or start is above max_qd (nvb_search_error() says which). */
NVB_API int nvb_search_next(struct nvb_search *s, double *value);

/* The figures of one direction (NVB_READ or NVB_WRITE) of the probe last
 * named: its I/Os, IOPS, the target's percentile in ns (NaN when the run
 * has none) and whether that percentile is supported (0: it rests on too
 * few latencies). Call once per direction; the first call makes the probe
 * a point (a probe never measured, e.g. cancelled, is none). The point's
 * IOPS are the sum of every direction's; its latency the worst of the
 * directions judged (the one set by "direction", or each that did I/O).
 * Returns 0 or -EINVAL (no probe named, dir unknown). */
NVB_API int nvb_search_measure(struct nvb_search *s, int dir, uint64_t ios, double iops, double lat_ns,
                               int supported);

/* The number of points (probes measured), in the order they ran. */
NVB_API size_t nvb_search_points(const struct nvb_search *s);

/* A field of point i into *value: "value" (the qd or rate, 0: unthrottled),
 * "iops", "lat_ns" (NaN: no latency), "ok" (1 when it keeps the bound),
 * "supported" (0 when its percentile rests on too few latencies). Returns
 * 0, -ERANGE (i out of range) or -EINVAL (field unknown). */
NVB_API int nvb_search_point(const struct nvb_search *s, size_t i, const char *field, double *value);

/* The answer: the index of the passing point of highest IOPS (the first of
 * equals) into *i and 0, or -ENOENT when no point keeps the bound. */
NVB_API int nvb_search_answer(const struct nvb_search *s, size_t *i);

/* 1 when the search ended at max_runs with a probe still to run, else 0. */
NVB_API int nvb_search_cut(const struct nvb_search *s);

/* The target's percentile ("p99": a static string), its bound in ns and
 * whether it is strict ('<'); bound_ns and strict may be NULL. */
NVB_API const char *nvb_search_percentile(const struct nvb_search *s, double *bound_ns, int *strict);

/* ------------------------------------------------------------------ */
/* The matrix of runs (one plan for every binding)                     */
/* ------------------------------------------------------------------ */

/* Which runs a product of workload keys (or the seed matrix) makes, in what
 * order and how often, and the column label each result is named by. The
 * caller runs them. Order: repeat outermost (drifts of the device spread
 * over every cell), then the axes in the order added, the first varying
 * slowest. Values are text (as the label shows them). Since 0.4; a handle is
 * used by one thread at a time. */
struct nvb_matrix;

/* A plan with no axis (one run) and repeat 1. 0, -EINVAL or -ENOMEM. */
NVB_API int nvb_matrix_create(struct nvb_matrix **out);

/* Release a plan. NULL is allowed. */
NVB_API void nvb_matrix_destroy(struct nvb_matrix *m);

/* The message of the last failure of m ("" when none). Belongs to m. */
NVB_API const char *nvb_matrix_error(const struct nvb_matrix *m);

/* Adds the axis key with n values (copied). Returns 0, -EINVAL (n is 0:
 * "axis 'k' is an empty list"; the key given twice) or -E2BIG (over 32). */
NVB_API int nvb_matrix_axis(struct nvb_matrix *m, const char *key, size_t n, const char *const *values);

/* Adds the axis "cell": the seed cells' keys (nvb_seed_cell) named by
 * cells, a comma-separated list of keys ("rand4k_read"), workloads
 * ("rand4k": both directions) or labels, taken in the published order
 * whatever their order here; NULL or "" for all. -EINVAL names an unknown
 * cell and lists the known ones. */
NVB_API int nvb_matrix_cells(struct nvb_matrix *m, const char *cells);

/* "repeat": how many sweeps (an integer >= 1). 0 or -EINVAL. */
NVB_API int nvb_matrix_set(struct nvb_matrix *m, const char *key, const char *value);

/* The number of runs: the product of the axes' sizes times repeat. */
NVB_API size_t nvb_matrix_runs(const struct nvb_matrix *m);

/* The number of axes and the key of axis a (NULL when out of range). */
NVB_API size_t nvb_matrix_axes(const struct nvb_matrix *m);
NVB_API const char *nvb_matrix_axis_key(const struct nvb_matrix *m, size_t axis);

/* 1 when axis a is part of the column label (more than one value, not rw,
 * bs, engine or cell), 0 when not, -ERANGE when out of range. */
NVB_API int nvb_matrix_stacked(const struct nvb_matrix *m, size_t axis);

/* Run r (0 .. runs - 1, the order to run them in): the index of axis a's
 * value, or with a == nvb_matrix_axes() its repeat (0-based), into *value.
 * 0, -ERANGE or -EINVAL. */
NVB_API int nvb_matrix_pick(const struct nvb_matrix *m, size_t run, size_t axis, size_t *value);

/* The same as the value's text (belongs to m). */
NVB_API int nvb_matrix_value(const struct nvb_matrix *m, size_t run, size_t axis, const char **value);

/* Run r's column label into buf: the "engine" axis's value, then
 * "key=value" of each stacked axis, space-separated ("io_uring qd=32");
 * "" when no axis is stacked. Returns its length, -ERANGE, -EINVAL or
 * -ENOSPC (cut at len). */
NVB_API int nvb_matrix_stack(const struct nvb_matrix *m, size_t run, char *buf, size_t len);

/* The environment that changes storage figures (docs/cpu.md), and its
 * checks with advice: {"environment": {...}, "checks": [{"severity",
 * "fact", "device", "message", "advice"}]}, as a run's result records it
 * and as `nvbench doctor` prints it. root: NULL for the live system, or a
 * recorded tree holding proc/ and sys/. targets: n paths (live: the block
 * device of each, a file's through its file system) or device names
 * (nvme0n1). Facts that cannot be read are null with their reason. The
 * caller frees *json with nvb_free(). Thread-safe. Returns 0, -EINVAL
 * (json NULL, or a NULL target), -ENOMEM. Since 0.4. */
NVB_API int nvb_environment_json(const char *root, const char *const *targets, size_t n, char **json);
#include "nvbench/value.h" /* a key's value as a number, an rw mode's op, a size as text */
#include "nvbench/seed.h"  /* the seed matrix's write cells: nvb_seed_write_keys */
#ifdef __cplusplus
}
#endif

#endif /* NVBENCH_H */
