/* Clocks and sleeping (Windows). */
#include "platform/platform.h"
#include "platform/win/win.h"

#define NS_PER_SEC UINT64_C(1000000000)

/* QueryPerformanceCounter reads the invariant TSC (or the HPET on old
 * machines) in user mode on every supported Windows: cheap enough for per
 * batch time stamps. Its frequency is fixed at boot and read once per call
 * here rather than cached in a static, to keep the library free of global
 * state; QueryPerformanceFrequency is itself a user-mode read of a shared
 * page. The split avoids overflowing count * 1e9 (which a 10 MHz counter
 * would do after 58 years, a 3 GHz one after 71 days). */
uint64_t nvb__now_ns(void)
{
    LARGE_INTEGER c, f;
    QueryPerformanceCounter(&c);
    QueryPerformanceFrequency(&f);
    uint64_t cnt = (uint64_t)c.QuadPart, hz = (uint64_t)f.QuadPart;
    if (hz == 0)
        return 0;
    return cnt / hz * NS_PER_SEC + cnt % hz * NS_PER_SEC / hz;
}

const char *nvb__clock_source(void)
{
    return "qpc";
}

struct nvb__clk nvb__clock_get(void)
{
    return (struct nvb__clk){.tsc = 0}; /* QPC: every read is nvb__now_ns */
}

/* FILETIME counts 100 ns units since 1601-01-01; the Unix epoch is
 * 11644473600 s later. GetSystemTimePreciseAsFileTime (Windows 8 and
 * later) has sub-microsecond resolution where GetSystemTimeAsFileTime has
 * the timer tick's 1-16 ms. */
uint64_t nvb__wall_ns(void)
{
    FILETIME ft;
    GetSystemTimePreciseAsFileTime(&ft);
    uint64_t t = ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
    const uint64_t epoch = UINT64_C(116444736000000000);
    return t > epoch ? (t - epoch) * 100u : 0;
}

/* Sleep() has the system timer's granularity (up to 15.6 ms unless some
 * process raised the timer resolution); a high-resolution waitable timer
 * (Windows 10 1803+) sleeps to about 0.5 ms. Either way the deadline is
 * checked against the monotonic clock, so a short wake-up is completed
 * by another wait, never reported as the full sleep. */
#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif
void nvb__yield(void) { SwitchToThread(); }

void nvb__sleep_ns(uint64_t ns)
{
    if (ns == 0)
        return;
    uint64_t end = nvb__now_ns() + ns;
    HANDLE t = CreateWaitableTimerExW(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, TIMER_ALL_ACCESS);
    if (!t)
        t = CreateWaitableTimerExW(NULL, NULL, 0, TIMER_ALL_ACCESS);
    for (;;) {
        uint64_t now = nvb__now_ns();
        if (now >= end)
            break;
        uint64_t left = end - now;
        if (t) {
            LARGE_INTEGER due;
            /* negative: relative, in 100 ns units (at least one) */
            due.QuadPart = -(LONGLONG)(left / 100 ? left / 100 : 1);
            if (SetWaitableTimer(t, &due, 0, NULL, NULL, FALSE)) {
                WaitForSingleObject(t, INFINITE);
                continue;
            }
        }
        DWORD ms = (DWORD)(left / 1000000u);
        Sleep(ms ? ms : 1);
    }
    if (t)
        CloseHandle(t);
}
