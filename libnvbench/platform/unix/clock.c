/* Clocks and sleeping (Linux). */
#include "platform/platform.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

static uint64_t ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * UINT64_C(1000000000) + (uint64_t)ts->tv_nsec;
}

/* clock_gettime on these clocks is served by the vDSO: no system call, so it
 * is cheap enough for per-I/O time stamps. It cannot fail for these clock
 * ids, hence no error path. */
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts_ns(&ts);
}

/*
 * The time-stamp counter, where the CPU says it is invariant (CPUID
 * 0x80000007 EDX bit 8: it ticks at one rate in every power state, and
 * the cores' counters agree), read in a few ns where a vDSO clock_gettime
 * takes tens. It is calibrated once per process against CLOCK_MONOTONIC:
 * ns = ns0 + (tsc - tsc0) * mult / 2^32, with each end of a 10 ms interval
 * read between two CLOCK_MONOTONIC reads (the tightest of several such
 * brackets), so the rate is off by about 1e-5 at most and the clock starts
 * on CLOCK_MONOTONIC. Elsewhere, CLOCK_MONOTONIC itself. The calibration
 * is the one mutable state here: a fact of the machine computed once, as
 * the engines' probe cache is, never different between two runs.
 */
static struct {
    uint64_t tsc0, ns0, mult;
    int      tsc;            /* 1: the TSC is read */
} g_clk;
static pthread_once_t g_clk_once = PTHREAD_ONCE_INIT;
static int g_clk_ready;      /* g_clk is set (acquire/release) */

#ifdef HAVE_TSC
static int tsc_invariant(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
}

/* One TSC read and the CLOCK_MONOTONIC time it was taken at: the middle
 * of the narrowest of 16 brackets. */
static void tsc_bracket(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 16; i++) {
        const uint64_t a = mono_ns(), t = __rdtsc(), b = mono_ns();
        if (b - a < best) {
            best = b - a;
            *tsc = t;
            *ns = a + (b - a) / 2;
        }
    }
}
#endif

static void clock_calibrate(void)
{
#ifdef HAVE_TSC
    if (tsc_invariant()) {
        uint64_t t0, n0, t1, n1;
        tsc_bracket(&t0, &n0);
        nvb__sleep_ns(10000000);
        tsc_bracket(&t1, &n1);
        /* (n1 - n0) < 2^32 ns for any sleep that ends: the shift fits */
        if (t1 > t0 && n1 > n0 && n1 - n0 < (UINT64_C(1) << 31)) {
            g_clk.mult = ((n1 - n0) << 32) / (t1 - t0);
            g_clk.tsc0 = t1;
            g_clk.ns0 = n1;
            g_clk.tsc = g_clk.mult > 0;
        }
    }
#endif
    __atomic_store_n(&g_clk_ready, 1, __ATOMIC_RELEASE);
}

static void clock_ready(void)
{
    if (__builtin_expect(!__atomic_load_n(&g_clk_ready, __ATOMIC_ACQUIRE), 0))
        pthread_once(&g_clk_once, clock_calibrate);
}

uint64_t nvb__now_ns(void)
{
    clock_ready();
#ifdef HAVE_TSC
    if (__builtin_expect(g_clk.tsc, 1)) {
        const uint64_t t = __rdtsc();
        /* a core's counter a few ticks behind the calibrating one's (or
         * an earlier read) counts as no time, never as a wrap (the same
         * formula as nvb__clk_now's, platform.h) */
        const uint64_t dt = t > g_clk.tsc0 ? t - g_clk.tsc0 : 0;
        return g_clk.ns0 + (uint64_t)(((unsigned __int128)dt * g_clk.mult) >> 32);
    }
#endif
    return mono_ns();
}

struct nvb__clk nvb__clock_get(void)
{
    clock_ready();
    return (struct nvb__clk){.tsc0 = g_clk.tsc0, .ns0 = g_clk.ns0, .mult = g_clk.mult, .tsc = g_clk.tsc};
}

const char *nvb__clock_source(void)
{
    clock_ready();
    return g_clk.tsc ? "tsc" : "clock_monotonic";
}

uint64_t nvb__wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts_ns(&ts);
}

void nvb__yield(void) { sched_yield(); }

/* Sleeping to an absolute deadline makes restarts after a signal exact: a
 * relative nanosleep restarted with the remainder drifts a little each time. */
void nvb__sleep_ns(uint64_t ns)
{
    if (ns == 0)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t end = ts_ns(&ts) + ns;
    ts.tv_sec = (time_t)(end / UINT64_C(1000000000));
    ts.tv_nsec = (long)(end % UINT64_C(1000000000));
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}
