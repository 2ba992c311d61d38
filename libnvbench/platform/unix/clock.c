/* Clocks and sleeping (Linux). */
#include "platform/platform.h"

#include <errno.h>
#include <time.h>

static uint64_t ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * UINT64_C(1000000000) + (uint64_t)ts->tv_nsec;
}

/* clock_gettime on these clocks is served by the vDSO: no system call, so it
 * is cheap enough for per-I/O time stamps. It cannot fail for these clock
 * ids, hence no error path. */
uint64_t nvb__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts_ns(&ts);
}

uint64_t nvb__wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts_ns(&ts);
}

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
