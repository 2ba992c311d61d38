/*
 * Platform interface (internal). Everything that differs between operating
 * systems lives behind these functions: threads, clocks, CPU sampling, file
 * opening and target facts. platform/unix/ implements them for Linux and
 * platform/win/ for Windows; CMake builds one of the two. Code under core/
 * must not include OS headers for these concerns; an engine is itself OS
 * code (io_uring.c, iocp.c) and includes its OS's headers, but takes time,
 * threads and files from here.
 */
#ifndef NVB_PLATFORM_H
#define NVB_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* ---- clocks ---- */
/* Monotonic time in ns: the invariant TSC calibrated against
 * CLOCK_MONOTONIC once per process where the CPU has one (x86-64 Linux),
 * else CLOCK_MONOTONIC through the vDSO (no system call); QPC on Windows.
 * Only differences of its values mean anything. */
uint64_t nvb__now_ns(void);
/* Which: "tsc", "clock_monotonic" or "qpc" (static storage). */
const char *nvb__clock_source(void);
/* The clock's calibration, copied into a hot loop so that it reads the
 * clock without a call (nvb__clk_now): the same values nvb__now_ns gives,
 * where the loop keeps its own registers across the read. tsc 0: every
 * read is nvb__now_ns. */
struct nvb__clk {
    uint64_t tsc0, ns0, mult;
    int      tsc;
};
struct nvb__clk nvb__clock_get(void);
static inline __attribute__((always_inline)) uint64_t nvb__clk_now(const struct nvb__clk *k)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_expect(k->tsc, 1)) {
        const uint64_t t = __builtin_ia32_rdtsc();
        const uint64_t dt = t > k->tsc0 ? t - k->tsc0 : 0; /* as nvb__now_ns */
        return k->ns0 + (uint64_t)(((unsigned __int128)dt * k->mult) >> 32);
    }
#endif
    return nvb__now_ns();
}
/* Wall-clock time in ns since the Unix epoch. */
uint64_t nvb__wall_ns(void);
/* Sleep for ns (interruptible by nothing; short sleeps may return early). */
void nvb__sleep_ns(uint64_t ns);
/* The calling thread's I/O priority (ioprio_set: class << 13 | level).
 * 0, or negative errno (-EPERM: the real-time class needs CAP_SYS_ADMIN or
 * CAP_SYS_NICE; -ENOTSUP: no such thing on this OS). */
int nvb__ioprio_set(unsigned value);
/* Give the CPU to another runnable thread, if any (a waiter that spins). */
void nvb__yield(void);

/* ---- threads ---- */
struct nvb__thread;
struct nvb__mutex;
struct nvb__cond;
int  nvb__thread_start(struct nvb__thread **t, void *(*fn)(void *), void *arg, const char *name);
void nvb__thread_join(struct nvb__thread *t);
/* Pin the calling thread to one CPU. 0 or negative errno. */
int  nvb__thread_pin(int cpu);
/* Timed waits of the calling thread end as close to their deadline as the
 * OS allows (Linux: timer slack 1 ns instead of 50 us): an open-loop rate
 * counts latency from intended starts, so a late wake-up would count as
 * the device's. Best effort; nothing on Windows. */
void nvb__thread_precise_timers(void);
/* Kernel thread id of the calling thread (for the CPU breakdown). */
long nvb__thread_id(void);
int  nvb__mutex_new(struct nvb__mutex **m);
void nvb__mutex_free(struct nvb__mutex *m);
void nvb__mutex_lock(struct nvb__mutex *m);
void nvb__mutex_unlock(struct nvb__mutex *m);
int  nvb__cond_new(struct nvb__cond **c);
void nvb__cond_free(struct nvb__cond *c);
void nvb__cond_signal_all(struct nvb__cond *c);
/* Wait with m held; returns after a signal or when ns elapsed (0 = forever). */
void nvb__cond_wait(struct nvb__cond *c, struct nvb__mutex *m, uint64_t ns);
/* Number of online CPUs. */
int  nvb__ncpus(void);

/* ---- host ---- */
/* Name of this machine (gethostname), NUL-terminated, truncated to len.
 * 0 or negative errno; buf is "" on failure. */
int  nvb__hostname(char *buf, size_t len);

/* ---- CPU sampling ---- */
/* System-wide CPU time counters in ns, one row per CPU plus the total. */
struct nvb__cpu_times {
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal, guest, guest_nice;
};
struct nvb__sys_sample {
    int ncpu;                     /* rows in cpu[] */
    struct nvb__cpu_times total;
    struct nvb__cpu_times *cpu;   /* malloc'd by the sampler; one row per online CPU, /proc/stat order */
    int *cpu_id;                  /* CPU number of each row */
    uint64_t tick_ns;             /* the counters' resolution: they grow in steps of this (Linux: 1 s / USER_HZ) */
};
/* 0 or negative errno (-ENOTSUP where there is no such facility). */
int  nvb__sys_sample(struct nvb__sys_sample *s);
void nvb__sys_sample_free(struct nvb__sys_sample *s);
/* The same from a recorded tree: root/proc/stat (Linux; -ENOTSUP on
 * Windows), root NULL for the live system. */
int  nvb__sys_sample_at(const char *root, struct nvb__sys_sample *s);
/* Whether the per-kind counters (irq, softirq, iowait, steal) are the
 * kernel's own: 1, or 0 with why filled (Windows). */
int  nvb__sys_kinds(char *why, size_t len);
/* The kinds a sample's counters do not hold on this platform, as bits by
 * the order user, nice, system, irq, softirq, iowait, steal, idle (the
 * result's): 0 on Linux; Windows keeps no iowait or steal, and without its
 * per-CPU rows no interrupt or DPC time either. */
enum { NVB__KB_IRQ = 1u << 3, NVB__KB_SOFTIRQ = 1u << 4, NVB__KB_IOWAIT = 1u << 5, NVB__KB_STEAL = 1u << 6 };
unsigned nvb__sys_kinds_missing(const struct nvb__sys_sample *s);
/* A small procfs/sysfs text file, root + rel (root NULL: the live system),
 * trailing newlines and spaces cut, NUL-terminated and truncated to len.
 * Its length, or negative errno (-ENOTSUP on Windows). */
int  nvb__text_read(const char *root, const char *rel, char *buf, size_t len);
/* Why a figure core reads from Linux's procfs and sysfs is not read on this
 * platform, as "unavailable: <reason>" (the result's null_reason), or NULL
 * where it is read (Linux). what: "interrupts", "placement", "environment"
 * or "energy"; another word gets the general reason. Under 160 characters. */
const char *nvb__procfs_unavailable(const char *what);
/* The platform's environment facts that are not procfs/sysfs files
 * (Windows: the power plan, the native NVMe stack's opt-in), each through
 * fn: its key, its value (NULL when it could not be read: why says why, as
 * "unavailable: ...") and where it was read. None on Linux. */
typedef void (*nvb__os_fact_fn)(void *arg, const char *key, const char *value, const char *source,
                                const char *why);
void nvb__os_facts(nvb__os_fact_fn fn, void *arg);
/* The last component of the symbolic link root + rel (sysfs' device
 * links: the controller of a block device). 0 or negative errno. */
int  nvb__link_base(const char *root, const char *rel, char *out, size_t len);
/* This process's threads whose name starts with prefix (NULL: all): id,
 * name and the CPU each last ran on, up to max. Their number, or negative
 * errno (-ENOTSUP on Windows). */
struct nvb__thread_place {
    long tid;
    int  cpu;
    char name[32];
    long migrations;   /* moves between CPUs since the thread started (se.nr_migrations), -1 unknown */
};
int  nvb__thread_places(const char *prefix, struct nvb__thread_place *out, int max);
/* The CPUs this process may run on, as a list ("0-3,8"). 0 or negative errno. */
int  nvb__affinity_list(char *buf, size_t len);

/* Process CPU (all threads, including kernel threads the process owns such
 * as io_uring's io-wq and SQPOLL workers). */
struct nvb__proc_sample {
    uint64_t user_ns, sys_ns;
    long     minflt, majflt, nvcsw, nivcsw;
    long     maxrss_kib;
};
int nvb__proc_sample(struct nvb__proc_sample *p);

/* Per-thread CPU of this process. */
struct nvb__thread_cpu {
    long     tid;
    char     name[32];
    uint64_t user_ns, sys_ns;   /* from the kernel's tick accounting */
    uint64_t run_ns;            /* precise on-CPU time when available, else user+sys */
};
/* Fills a malloc'd array in *out; returns the count or negative errno. */
int nvb__threads_sample(struct nvb__thread_cpu **out);

/* ---- device utilisation ---- */
/* The block device that I/O to path reaches (the device itself for a block
 * device node, the file system's device for a file) and its io_ticks: the
 * milliseconds it had at least one I/O in flight, all processes' I/O
 * (Linux: /sys/dev/block/MAJ:MIN/stat, field 10). Its kernel name goes in
 * name. 0, or negative errno with a reason in why (-ENODEV: no block device
 * under the path, e.g. tmpfs; -ENOTSUP: not measured on this OS). */
int nvb__disk_io_ticks(const char *path, char *name, size_t namelen, uint64_t *ticks_ms, char *why, size_t whylen);

/* ---- files and targets ---- */
enum nvb__target_kind { NVB__T_FILE = 1, NVB__T_BLOCK, NVB__T_DIR, NVB__T_CHAR, NVB__T_OTHER };
struct nvb__target_info {
    enum nvb__target_kind kind;
    uint64_t size;               /* bytes (file size or device capacity) */
    uint32_t lbs;                /* logical block size / direct I/O alignment */
    uint32_t pbs;                /* physical block size when known */
    uint32_t mem_align;          /* buffer alignment for direct I/O */
    char     dev[64];            /* kernel name of the block device ("loop0"), or "" */
    uint64_t id_dev, id_ino, id_rdev; /* identity (st_dev, st_ino, st_rdev); 0 where unknown */
};
/* stat-like facts. 0 or negative errno (-ENOENT, -EACCES, ...). */
int nvb__target_info(const char *path, struct nvb__target_info *ti);
/* Read the whole of path, a regular file of at most max bytes, into a
 * malloc'd NUL-terminated *buf (*len bytes, NUL bytes kept). Anything else
 * is refused without blocking on it (stat before open, then a non-blocking
 * open and fstat): -EINVAL with *what naming it ("a FIFO", "a directory",
 * ...). -EFBIG when it holds more than max bytes, or -errno. */
int nvb__file_read_regular(const char *path, size_t max, char **buf, size_t *len, const char **what);
/* Can this process open path for reading (and writing)? 0 or -errno. */
int nvb__target_access(const char *path, int write);
/* Open for I/O. flags: NVB__O_WRITE, NVB__O_DIRECT. fd or -errno. */
#define NVB__O_WRITE  1
#define NVB__O_DIRECT 2
int  nvb__target_open(const char *path, int flags);
void nvb__target_close(int fd);
/* Create a uniquely and recognisably named scratch file in dir, sized
 * `size`. path receives its name. 0 or -errno. */
int  nvb__scratch_create(const char *dir, uint64_t size, char *path, size_t path_len);
int  nvb__scratch_remove(const char *path);
/* Create the file path, which must not exist (never through a symlink),
 * sized `size`; *ti (optional) gets its kind, size and identity from the
 * creating descriptor. 0, -EEXIST, or -errno. */
int  nvb__file_create(const char *path, uint64_t size, struct nvb__target_info *ti);
/* path itself is a symbolic link: what it points to in buf (NUL-ended,
 * cut to len), its length returned; -EINVAL when path is no link, -errno. */
int  nvb__symlink_target(const char *path, char *buf, size_t len);
/* Remove the file nvb__file_create made at path, given the identity it
 * returned: only while path still names that file (not a file or a symlink
 * put there since), so that nothing the run did not create is removed.
 * 0, -ESTALE (path names something else now: left alone) or -errno.
 * Windows: the same, by volume serial and file id, deleting through the
 * handle checked (the name alone where the identity is unknown). */
int  nvb__file_remove_created(const char *path, const struct nvb__target_info *ti);
/* Write the whole region [0,size) of fd through ordinary writes (so reads
 * later hit allocated blocks, not holes). buf is a page-aligned, bs-sized
 * buffer to write repeatedly. 0 or -errno. Checks *cancel between chunks. */
int  nvb__fill_file(int fd, uint64_t size, const void *buf, size_t buf_len, const volatile int *cancel);
/* The same, with the content of each chunk of chunk_len bytes (the last may
 * be shorter) written by gen(arg, chunk, offset, len) into a page-aligned
 * buffer, and stop(arg) (optional) asked before each chunk: nonzero ends
 * the fill with -ECANCELED. 0 or -errno. */
int  nvb__fill_file_cb(int fd, uint64_t size, size_t chunk_len,
                       void (*gen)(void *arg, void *chunk, uint64_t off, size_t len), int (*stop)(void *arg),
                       void *arg);
/* Remove the scratch files in dir that runs killed outright left behind:
 * names of the exact nvb__scratch_create() pattern whose process no longer
 * exists, regular files owned by this user. *removed counts them. 0 or
 * -errno (dir unreadable). */
int  nvb__scratch_clean_stale(const char *dir, unsigned *removed);

/* ---- the file system under a path (platform/unix/fskind.c) ----
 * Whether path (which must exist; a symlink is followed) is on storage:
 * NVB__FS_KERNEL for a window onto the kernel (sysfs, procfs, debugfs,
 * configfs, cgroup, tracefs, ...), NVB__FS_DEVICES for the directory of
 * device nodes (devtmpfs, or the tmpfs a container mounts on /dev), with
 * name set to the file system's name; NVB__FS_STORAGE otherwise, and
 * always on Windows (its volumes hold no such thing). *id_dev, *id_ino
 * (optional): the identity of what path named when its file system was
 * read (0 on Windows), for the caller to compare with what it examined.
 * -errno if path cannot be examined. */
enum { NVB__FS_STORAGE = 0, NVB__FS_KERNEL = 1, NVB__FS_DEVICES = 2 };
int  nvb__fs_kind(const char *path, uint64_t *id_dev, uint64_t *id_ino, char *name, size_t len);

/* ---- page cache and allocation of a target (platform/unix/cache.c) ----
 * fd: a descriptor of a regular file or block device, read access is
 * enough. On Windows none of this is available: -ENOTSUP. */
/* Write back the dirty pages of [off, off+len) (len 0: to the end), then
 * drop the cached ones. 0 or -errno. */
int  nvb__cache_drop(int fd, uint64_t off, uint64_t len);
/* Bytes of [off, off+len) in the page cache (*resident) out of the bytes
 * looked at (*examined: all of them, or evenly spaced windows of a huge
 * region when the kernel lacks cachestat(2)). 0, -EPERM (the kernel tells
 * only processes that own or may write the file), or -errno. */
int  nvb__cache_resident(int fd, uint64_t off, uint64_t len, uint64_t *resident, uint64_t *examined);
/* The same by mincore(2) alone, the fallback of kernels before 6.5. */
int  nvb__cache_resident_mincore(int fd, uint64_t off, uint64_t len, uint64_t *resident, uint64_t *examined);
/* Bytes of [off, off+len) of a regular file that are allocated data, not
 * holes (SEEK_DATA/SEEK_HOLE; extents allocated but never written count as
 * holes where the file system says so). 0 or -errno. */
int  nvb__file_allocated(int fd, uint64_t off, uint64_t len, uint64_t *allocated);
/* The write caching under a regular file: its file system's type and
 * whether it caches writes ("sync": mounted sync, every write waits for the
 * storage; "nobarrier": cache flushes are not sent to the disk; "default"),
 * and the disk under it and that disk's write cache ("write back" or "write
 * through", from the kernel's queue/write_cache; "" where no disk is known:
 * a network or stacked file system). 0, or -errno / -ENOTSUP. */
struct nvb__wcache {
    char fstype[32];
    char fs_mode[16];
    char disk[64];
    char disk_mode[16];
};
int  nvb__file_write_cache(int fd, struct nvb__wcache *wc);

/* ---- memory ---- */
void *nvb__alloc_aligned(size_t align, size_t size);
void  nvb__free_aligned(void *p);
/* Ask that the pages of [p, p + len) be on NUMA node `node`, moving those
 * already touched (cpus=local's buffers); node -1: the default policy
 * again (before the memory goes back to the heap). 0, or negative errno
 * (-EINVAL: no such node; -ENOSYS/-ENOTSUP: no NUMA policy here, e.g.
 * Windows). */
int nvb__mem_bind_node(void *p, size_t len, int node);
/* The NUMA node of the (touched) page at p, or negative errno. */
int nvb__mem_node_of(const void *p);
/* The NUMA policy of the page at p ("default", "preferred", "bind", ...)
 * into name: its mode (>= 0), or negative errno (-ENOTSUP on Windows). */
int nvb__mem_policy_of(const void *p, char *name, size_t len);
/* Memory this process can have: physical memory, or less where a control
 * group limits it. Bytes; 0 when unknown. */
uint64_t nvb__mem_total(void);
/* Descriptors: the soft limit (RLIMIT_NOFILE) and how many this process
 * has open now. 0, or -ENOTSUP where there is no such limit. */
int nvb__fd_budget(uint64_t *limit, uint64_t *open_now);

/* ---- CPU event counters (platform/unix/perf.c; docs/cpu.md) ----
 * Counters of the calling thread and of every thread it (and they) start
 * after the open, kernel threads working for them included (io-wq, SQPOLL
 * workers): cycles and instructions where the CPU exposes hardware
 * counters, the task clock, context switches and CPU migrations (kernel
 * software events) otherwise too. Opened disabled; enable/disable may be
 * called from any thread of the process and apply to every counted
 * thread; a read counts the threads alive and those that exited. */
enum { NVB__PERF_CYCLES, NVB__PERF_INSTR, NVB__PERF_TASK_CLOCK, NVB__PERF_CTXSW, NVB__PERF_MIGR, NVB__PERF_N };
struct nvb__perf;
struct nvb__perf_counts {
    uint64_t v[NVB__PERF_N];
    int      have[NVB__PERF_N];   /* 1: v[] is the event's count */
    int      scaled;              /* some count was estimated from part of the window (multiplexed) */
    int      kernel;              /* the kernel's part of the threads' work is counted */
    char     hw_why[200];         /* why cycles and instructions are not counted, else "" */
};
/* 0 with *p (some event opened; the hardware ones may not be, hw_why then
 * says why in *p's reads), or negative errno with why (none could be
 * opened; -ENOTSUP on Windows). */
int  nvb__perf_open(struct nvb__perf **p, char *why, size_t len);
void nvb__perf_enable(struct nvb__perf *p, int on);
/* The counts so far. 0 or negative errno. */
int  nvb__perf_read(struct nvb__perf *p, struct nvb__perf_counts *c);
void nvb__perf_close(struct nvb__perf *p);

#endif
