/*
 * CPU accounting sources (Windows).
 *
 *  - The whole machine: per-CPU idle/kernel/user/DPC/interrupt times from
 *    NtQuerySystemInformation(SystemProcessorPerformanceInformation),
 *    looked up in ntdll at run time (it has no import library entry in
 *    mingw's SDK we want to depend on, and Microsoft documents it as
 *    subject to change); per processor group through
 *    NtQuerySystemInformationEx where the machine has more than one group.
 *    When neither works, GetSystemTimes gives the totals alone.
 *    Both report kernel time INCLUDING idle time: busy = kernel - idle +
 *    user, which is what Task Manager and the published table's "Total CPU
 *    Usage" show. The mapping into struct nvb__cpu_times is
 *    nvb__win_cpu_times() (platform/winfmt.c), so core/cpu.c computes the
 *    same figures as on Linux.
 *  - The process: GetProcessTimes, GetProcessMemoryInfo.
 *  - Threads: a Toolhelp snapshot of this process's threads, then
 *    GetThreadTimes on each (100 ns units, advanced at the clock tick).
 */
#include "platform/platform.h"
#include "platform/common.h"
#include "platform/win/win.h"
#include "platform/winfmt.h"

#include <errno.h>
#include <psapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tlhelp32.h>

#define SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION_CLASS 8

/* SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION, as winternl.h declares it
 * (with the two fields it calls Reserved1[2] named). */
struct sppi {
    LARGE_INTEGER IdleTime, KernelTime, UserTime, DpcTime, InterruptTime;
    ULONG InterruptCount;
};
_Static_assert(sizeof(struct sppi) == 48, "SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION is 48 bytes");

typedef LONG(WINAPI *ntqsi_fn)(ULONG, PVOID, ULONG, PULONG);
typedef LONG(WINAPI *ntqsiex_fn)(ULONG, PVOID, ULONG, PVOID, ULONG, PULONG);

static uint64_t li(LARGE_INTEGER v) { return v.QuadPart > 0 ? (uint64_t)v.QuadPart : 0; }
static uint64_t ft100(FILETIME f) { return ((uint64_t)f.dwHighDateTime << 32) | f.dwLowDateTime; }

/* Rows of one processor group into s->cpu[base..]. Returns the count or
 * -1 on failure. */
static int query_group(ntqsi_fn q, ntqsiex_fn qex, WORD group, int multi, struct nvb__sys_sample *s, int base,
                       int room)
{
    ULONG len = (ULONG)((size_t)room * sizeof(struct sppi)), got = 0;
    struct sppi *buf = malloc(len ? len : sizeof(struct sppi));
    if (!buf)
        return -1;
    LONG st;
    if (multi && qex) {
        USHORT g = group;
        st = qex(SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION_CLASS, &g, sizeof g, buf, len, &got);
    } else {
        st = q(SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION_CLASS, buf, len, &got);
    }
    if (st < 0) {
        free(buf);
        return -1;
    }
    int n = (int)(got / sizeof(struct sppi));
    if (n > room)
        n = room;
    for (int i = 0; i < n; i++) {
        nvb__win_cpu_times(li(buf[i].IdleTime), li(buf[i].KernelTime), li(buf[i].UserTime), li(buf[i].DpcTime),
                           li(buf[i].InterruptTime), &s->cpu[base + i]);
        s->cpu_id[base + i] = base + i;
    }
    free(buf);
    return n;
}

static int per_cpu(struct nvb__sys_sample *s)
{
    HMODULE nt = GetModuleHandleW(L"ntdll.dll");
    if (!nt)
        return -ENOTSUP;
    ntqsi_fn q = (ntqsi_fn)(void (*)(void))GetProcAddress(nt, "NtQuerySystemInformation");
    ntqsiex_fn qex = (ntqsiex_fn)(void (*)(void))GetProcAddress(nt, "NtQuerySystemInformationEx");
    if (!q)
        return -ENOTSUP;
    WORD groups = GetActiveProcessorGroupCount();
    int total = (int)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    if (total <= 0)
        return -ENOTSUP;
    /* One group: the plain call returns every CPU. More: it returns only
     * the caller's group, so ask group by group. */
    if (groups > 1 && !qex)
        return -ENOTSUP;
    s->cpu = calloc((size_t)total, sizeof(*s->cpu));
    s->cpu_id = calloc((size_t)total, sizeof(*s->cpu_id));
    if (!s->cpu || !s->cpu_id)
        return -ENOMEM;
    int r = 0;
    for (WORD g = 0; g < (groups ? groups : 1) && r < total; g++) {
        int room = groups > 1 ? (int)GetActiveProcessorCount(g) : total;
        if (room > total - r)
            room = total - r;
        int n = query_group(q, qex, g, groups > 1, s, r, room);
        if (n < 0)
            return -EIO;
        r += n;
    }
    if (r == 0)
        return -EIO;
    s->ncpu = r;
    memset(&s->total, 0, sizeof s->total);
    for (int i = 0; i < r; i++) {
        s->total.user += s->cpu[i].user;
        s->total.system += s->cpu[i].system;
        s->total.idle += s->cpu[i].idle;
        s->total.irq += s->cpu[i].irq;
        s->total.softirq += s->cpu[i].softirq;
    }
    return 0;
}

int nvb__sys_sample(struct nvb__sys_sample *s)
{
    memset(s, 0, sizeof(*s));
    int rc = per_cpu(s);
    /* The counters are in 100 ns units but advance on the clock interrupt,
     * 15.625 ms by default. */
    if (rc == 0) {
        s->tick_ns = 15625000u;
        return 0;
    }
    nvb__sys_sample_free(s);
    if (rc == -ENOMEM)
        return rc;
    /* Totals only: the per-CPU rows stay empty. */
    FILETIME idle, kern, user;
    if (!GetSystemTimes(&idle, &kern, &user))
        return -ENOTSUP;
    nvb__win_cpu_times(ft100(idle), ft100(kern), ft100(user), 0, 0, &s->total);
    s->tick_ns = 15625000u;
    return 0;
}

/* Recorded trees are /proc text: Linux's. */
int nvb__sys_sample_at(const char *root, struct nvb__sys_sample *s)
{
    if (root)
        return -ENOTSUP;
    return nvb__sys_sample(s);
}

/* The rows above hold user, kernel (less idle, interrupt and DPC time),
 * interrupt time as irq and DPC time as softirq (nvb__win_cpu_times). */
int nvb__sys_kinds(char *why, size_t len)
{
    if (why && len)
        why[0] = 0;
    return 1;
}

/* Windows keeps no iowait or steal time; GetSystemTimes' totals (when the
 * per-CPU rows cannot be had) no interrupt or DPC time either. */
unsigned nvb__sys_kinds_missing(const struct nvb__sys_sample *s)
{
    return NVB__KB_IOWAIT | NVB__KB_STEAL | (s && s->ncpu > 0 ? 0u : NVB__KB_IRQ | NVB__KB_SOFTIRQ);
}

/* Kernel and user time of every thread the process has had, exited ones
 * included, in 100 ns units. Windows keeps no count of context switches
 * per process (nvcsw/nivcsw stay 0) and does not split hard from soft
 * page faults (all go to minflt). */
int nvb__proc_sample(struct nvb__proc_sample *p)
{
    memset(p, 0, sizeof(*p));
    FILETIME c, e, k, u;
    if (!GetProcessTimes(GetCurrentProcess(), &c, &e, &k, &u))
        return nvb__win_errno(GetLastError());
    p->user_ns = ft100(u) * 100u;
    p->sys_ns = ft100(k) * 100u;
    PROCESS_MEMORY_COUNTERS pmc;
    memset(&pmc, 0, sizeof pmc);
    pmc.cb = sizeof pmc;
    if (GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof pmc)) {
        p->minflt = (long)pmc.PageFaultCount;
        p->maxrss_kib = (long)(pmc.PeakWorkingSetSize / 1024u);
    }
    return 0;
}

typedef HRESULT(WINAPI *get_desc_fn)(HANDLE, PWSTR *);

int nvb__threads_sample(struct nvb__thread_cpu **out)
{
    *out = NULL;
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
    if (snap == INVALID_HANDLE_VALUE)
        return nvb__win_errno(GetLastError());
    /* Windows 10 1607+ (and wine); without it the rows are unnamed. */
    HMODULE k32 = GetModuleHandleW(L"kernel32.dll");
    get_desc_fn get_desc = k32 ? (get_desc_fn)(void (*)(void))GetProcAddress(k32, "GetThreadDescription") : NULL;
    DWORD pid = GetCurrentProcessId();
    struct nvb__thread_cpu *arr = NULL;
    int n = 0, cap = 0;
    THREADENTRY32 te;
    memset(&te, 0, sizeof te);
    te.dwSize = sizeof te;
    for (BOOL ok = Thread32First(snap, &te); ok; ok = Thread32Next(snap, &te)) {
        if (te.dwSize < offsetof(THREADENTRY32, th32OwnerProcessID) + sizeof te.th32OwnerProcessID ||
            te.th32OwnerProcessID != pid) {
            te.dwSize = sizeof te;
            continue;
        }
        te.dwSize = sizeof te;
        /* A thread may exit between the snapshot and OpenThread: skip it. */
        HANDLE h = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, te.th32ThreadID);
        if (!h)
            continue;
        FILETIME c, e, k, u;
        if (!GetThreadTimes(h, &c, &e, &k, &u)) {
            CloseHandle(h);
            continue;
        }
        struct nvb__thread_cpu tc;
        memset(&tc, 0, sizeof tc);
        tc.tid = (long)te.th32ThreadID;
        tc.user_ns = ft100(u) * 100u;
        tc.sys_ns = ft100(k) * 100u;
        tc.run_ns = tc.user_ns + tc.sys_ns;
        if (get_desc) {
            PWSTR d = NULL;
            if (SUCCEEDED(get_desc(h, &d)) && d) {
                nvb__win_narrow(d, tc.name, sizeof tc.name);
                LocalFree(d);
            }
        }
        CloseHandle(h);
        if (nvb__thread_rows_push(&arr, &n, &cap, &tc) < 0) {
            CloseHandle(snap);
            return -ENOMEM;
        }
    }
    CloseHandle(snap);
    *out = arr;
    return n;
}
