/* Threads, locks and CPU affinity (Windows: Win32 threads, SRW locks,
 * condition variables). */
#include "platform/platform.h"
#include "platform/win/win.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct nvb__thread {
    HANDLE h;
    void *(*fn)(void *);
    void *arg;
};
struct nvb__mutex {
    SRWLOCK l;
};
struct nvb__cond {
    CONDITION_VARIABLE c;
};

static DWORD WINAPI trampoline(LPVOID p)
{
    struct nvb__thread *t = p;
    t->fn(t->arg);
    return 0;
}

/* SetThreadDescription is Windows 10 1607 and later: looked up at run
 * time so the library still loads on older systems.
 * The name is what debuggers, ETW traces and the thread rows of a result
 * show. Naming is cosmetic: a failure is not reported. */
typedef HRESULT(WINAPI *set_desc_fn)(HANDLE, PCWSTR);

static void name_thread(HANDLE h, const char *name)
{
    HMODULE k32 = GetModuleHandleW(L"kernel32.dll");
    set_desc_fn set = k32 ? (set_desc_fn)(void (*)(void))GetProcAddress(k32, "SetThreadDescription") : NULL;
    if (!set)
        return;
    wchar_t *w = nvb__win_wide(name);
    if (w) {
        set(h, w);
        free(w);
    }
}

int nvb__thread_start(struct nvb__thread **t, void *(*fn)(void *), void *arg, const char *name)
{
    struct nvb__thread *th = calloc(1, sizeof(*th));
    if (!th)
        return -ENOMEM;
    th->fn = fn;
    th->arg = arg;
    /* Created suspended so the name is in place before the thread runs.
     * Windows delivers Ctrl-C on a thread of its own, never on these, so
     * there is no signal mask to manage as on Linux. */
    th->h = CreateThread(NULL, 0, trampoline, th, CREATE_SUSPENDED, NULL);
    if (!th->h) {
        int e = nvb__win_errno(GetLastError());
        free(th);
        return e;
    }
    if (name && *name)
        name_thread(th->h, name);
    ResumeThread(th->h);
    *t = th;
    return 0;
}

void nvb__thread_join(struct nvb__thread *t)
{
    if (!t)
        return;
    WaitForSingleObject(t->h, INFINITE);
    CloseHandle(t->h);
    free(t);
}

/* CPU n counts across processor groups in group order, as nvb__ncpus()
 * and the per-CPU rows of the CPU sample do. A machine with more than 64
 * logical CPUs has several groups (the seed machine's 512 have 8), and
 * SetThreadAffinityMask can only choose within the thread's current
 * group: SetThreadGroupAffinity (Windows 7+) moves it to the right one. */
void nvb__thread_precise_timers(void)
{
    /* waits are in milliseconds there (engines) or the system's timer
     * resolution: nothing per thread to tighten */
}

int nvb__thread_pin(int cpu)
{
    if (cpu < 0)
        return -EINVAL;
    WORD groups = GetActiveProcessorGroupCount();
    int base = 0;
    for (WORD g = 0; g < groups; g++) {
        int n = (int)GetActiveProcessorCount(g);
        if (cpu < base + n) {
            GROUP_AFFINITY ga;
            memset(&ga, 0, sizeof ga);
            ga.Group = g;
            ga.Mask = (KAFFINITY)1 << (cpu - base);
            if (!SetThreadGroupAffinity(GetCurrentThread(), &ga, NULL))
                return nvb__win_errno(GetLastError());
            return 0;
        }
        base += n;
    }
    return -EINVAL;
}

long nvb__thread_id(void)
{
    return (long)GetCurrentThreadId();
}

int nvb__mutex_new(struct nvb__mutex **m)
{
    struct nvb__mutex *mx = malloc(sizeof(*mx));
    if (!mx)
        return -ENOMEM;
    InitializeSRWLock(&mx->l);
    *m = mx;
    return 0;
}

void nvb__mutex_free(struct nvb__mutex *m)
{
    free(m); /* an SRW lock needs no destruction */
}

void nvb__mutex_lock(struct nvb__mutex *m)
{
    AcquireSRWLockExclusive(&m->l);
}

void nvb__mutex_unlock(struct nvb__mutex *m)
{
    ReleaseSRWLockExclusive(&m->l);
}

int nvb__cond_new(struct nvb__cond **c)
{
    struct nvb__cond *cv = malloc(sizeof(*cv));
    if (!cv)
        return -ENOMEM;
    InitializeConditionVariable(&cv->c);
    *c = cv;
    return 0;
}

void nvb__cond_free(struct nvb__cond *c)
{
    free(c);
}

void nvb__cond_signal_all(struct nvb__cond *c)
{
    WakeAllConditionVariable(&c->c);
}

/* The timeout is relative and in milliseconds: rounded up so a wait for
 * less than 1 ms does not spin, and capped below INFINITE. Callers
 * re-check their predicate (spurious wake-ups happen here too). */
void nvb__cond_wait(struct nvb__cond *c, struct nvb__mutex *m, uint64_t ns)
{
    DWORD ms = INFINITE;
    if (ns) {
        uint64_t v = (ns + 999999u) / 1000000u;
        ms = v >= INFINITE ? INFINITE - 1 : (DWORD)v;
    }
    SleepConditionVariableSRW(&c->c, &m->l, ms, 0);
}

int nvb__ncpus(void)
{
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n > 0 ? (int)n : 1;
}
