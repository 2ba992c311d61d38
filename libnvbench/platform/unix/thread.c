/* Threads, locks and CPU affinity (Linux, pthreads). */
#include "platform/platform.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct nvb__thread {
    pthread_t t;
};
struct nvb__mutex {
    pthread_mutex_t m;
};
struct nvb__cond {
    pthread_cond_t c;
};

int nvb__thread_start(struct nvb__thread **t, void *(*fn)(void *), void *arg, const char *name)
{
    struct nvb__thread *th = malloc(sizeof(*th));
    if (!th)
        return -ENOMEM;

    /* Workers start with every signal blocked so that the application's
     * handlers (Ctrl-C to stop a run, say) run on the application's own
     * threads and never interrupt an I/O loop mid-syscall. Only the mask
     * inherited at creation is affected; dispositions are left alone. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&th->t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        free(th);
        return -rc;
    }

    /* Named from here rather than inside the thread so the name is already
     * visible (in /proc, top, perf) when this returns. The kernel limit is
     * 15 bytes; a longer name would make the call fail, so truncate. A
     * failure to name is cosmetic and not reported. */
    if (name && *name) {
        char comm[16];
        size_t n = strlen(name);
        if (n > sizeof(comm) - 1)
            n = sizeof(comm) - 1;
        memcpy(comm, name, n);
        comm[n] = '\0';
        pthread_setname_np(th->t, comm);
    }
    *t = th;
    return 0;
}

void nvb__thread_join(struct nvb__thread *t)
{
    if (!t)
        return;
    pthread_join(t->t, NULL);
    free(t);
}

/* A dynamically sized set, so CPU numbers beyond CPU_SETSIZE (1024) work. */
int nvb__thread_pin(int cpu)
{
    if (cpu < 0)
        return -EINVAL;
    cpu_set_t *set = CPU_ALLOC((size_t)cpu + 1);
    if (!set)
        return -ENOMEM;
    size_t sz = CPU_ALLOC_SIZE((size_t)cpu + 1);
    CPU_ZERO_S(sz, set);
    CPU_SET_S((size_t)cpu, sz, set);
    int rc = pthread_setaffinity_np(pthread_self(), sz, set);
    CPU_FREE(set);
    return -rc;
}

void nvb__thread_precise_timers(void)
{
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

/* gettid() only appeared in glibc 2.30; the system call works everywhere. */
long nvb__thread_id(void)
{
    return (long)syscall(SYS_gettid);
}

int nvb__mutex_new(struct nvb__mutex **m)
{
    struct nvb__mutex *mx = malloc(sizeof(*mx));
    if (!mx)
        return -ENOMEM;
    int rc = pthread_mutex_init(&mx->m, NULL);
    if (rc != 0) {
        free(mx);
        return -rc;
    }
    *m = mx;
    return 0;
}

void nvb__mutex_free(struct nvb__mutex *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->m);
    free(m);
}

void nvb__mutex_lock(struct nvb__mutex *m)
{
    pthread_mutex_lock(&m->m);
}

void nvb__mutex_unlock(struct nvb__mutex *m)
{
    pthread_mutex_unlock(&m->m);
}

/* Timed waits use CLOCK_MONOTONIC so that a wall-clock step (NTP, manual
 * date change) during a run neither cuts a wait short nor stretches it. */
int nvb__cond_new(struct nvb__cond **c)
{
    struct nvb__cond *cv = malloc(sizeof(*cv));
    if (!cv)
        return -ENOMEM;
    pthread_condattr_t attr;
    int rc = pthread_condattr_init(&attr);
    if (rc == 0) {
        rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        if (rc == 0)
            rc = pthread_cond_init(&cv->c, &attr);
        pthread_condattr_destroy(&attr);
    }
    if (rc != 0) {
        free(cv);
        return -rc;
    }
    *c = cv;
    return 0;
}

void nvb__cond_free(struct nvb__cond *c)
{
    if (!c)
        return;
    pthread_cond_destroy(&c->c);
    free(c);
}

void nvb__cond_signal_all(struct nvb__cond *c)
{
    pthread_cond_broadcast(&c->c);
}

void nvb__cond_wait(struct nvb__cond *c, struct nvb__mutex *m, uint64_t ns)
{
    if (ns == 0) {
        pthread_cond_wait(&c->c, &m->m);
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t end = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
    /* Saturate: "wait for a very long time" must not wrap into the past. */
    end = ns > UINT64_MAX / 2 - end ? UINT64_MAX / 2 : end + ns;
    ts.tv_sec = (time_t)(end / UINT64_C(1000000000));
    ts.tv_nsec = (long)(end % UINT64_C(1000000000));
    pthread_cond_timedwait(&c->c, &m->m, &ts);
}

int nvb__ncpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
