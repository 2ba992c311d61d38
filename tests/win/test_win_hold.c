/* The run's hold on its targets on Windows (devices/win/hold.c): the
 * identity planning records and the hold checks, the locks between runs
 * in one process and in two, readers never blocked, a name swapped
 * between planning and opening refused, a name that cannot be swapped
 * while a run holds it, and jobs opened through the held handle. */
#include "harness.h"

#include <errno.h>
#include <stdint.h>

#include <nvbench.h>

#include "devices/facts.h"
#include "platform/platform.h"
#include "platform/win/win.h"
#include "util/util.h"

static char g_dir[MAX_PATH];

static void path_in(char *out, size_t len, const char *name) { snprintf(out, len, "%s\\%s", g_dir, name); }

/* The same name spelled with '/' for every '\\'. */
static void slashed(char *out, size_t len, const char *path)
{
    snprintf(out, len, "%s", path);
    for (char *p = out; *p; p++)
        if (*p == '\\')
            *p = '/';
}

/* The test's files and directories (one level), then the directory
 * itself: each test leaves its files for this. */
static void clear_dir(const char *dir)
{
    char pat[MAX_PATH], p[MAX_PATH];
    snprintf(pat, sizeof pat, "%s\\*", dir);
    WIN32_FIND_DATAA fd;
    HANDLE h = FindFirstFileA(pat, &fd);
    if (h != INVALID_HANDLE_VALUE) {
        do {
            snprintf(p, sizeof p, "%s\\%s", dir, fd.cFileName);
            if (!(fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
                DeleteFileA(p);
            else if (strcmp(fd.cFileName, ".") && strcmp(fd.cFileName, ".."))
                RemoveDirectoryA(p);
        } while (FindNextFileA(h, &fd));
        FindClose(h);
    }
    RemoveDirectoryA(dir);
}

/* A file of n bytes of a pattern that depends on seed. */
static void make_file(const char *path, size_t n, unsigned seed)
{
    FILE *f = fopen(path, "wb");
    T_CHECK_MSG(f != NULL, "cannot create %s", path);
    if (!f)
        return;
    for (size_t i = 0; i < n; i++)
        fputc((int)((i * 131 + seed * 7919 + (i >> 12)) & 0xff), f);
    fclose(f);
}

/* A sum of the whole file (FNV-1a over 64 KiB reads), 0 when it cannot
 * be read. */
static uint64_t sum_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    static unsigned char buf[65536];
    uint64_t h = 1469598103934665603ull;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 1099511628211ull;
    fclose(f);
    return h;
}

struct outcome {
    int rc;
    char msg[1024];
    double mismatches;
};

/* One run of kv on target; its rc, error text and verify mismatches. */
static struct outcome run(const char *const *kv, const char *target, const struct nvb_run_opts *o)
{
    struct outcome out = { .rc = -1, .mismatches = -1 };
    struct nvb_workload *w = NULL;
    T_EQ(nvb_workload_new(&w), 0);
    for (int i = 0; kv[i]; i += 2)
        T_CHECK_MSG(nvb_workload_set(w, kv[i], kv[i + 1]) == 0, "%s=%s: %s", kv[i], kv[i + 1], nvb_workload_error(w));
    T_EQ(nvb_workload_add_target(w, target), 0);
    struct nvb_result *r = NULL;
    out.rc = nvb_run(w, o, &r);
    snprintf(out.msg, sizeof out.msg, "%s", r ? nvb_result_error(r) : nvb_strerror(out.rc));
    if (r && nvb_result_get(r, "verify.mismatches", &out.mismatches) != 0)
        out.mismatches = -1;
    nvb_result_free(r);
    nvb_workload_free(w);
    return out;
}

/* Verification blocks over the whole file (what a run with verify=1
 * reads back; the same seed and bs). */
static void lay_verify_blocks(const char *path)
{
    const char *const kw[] = { "engine", "wsync", "rw", "write", "bs", "4k", "verify", "1", NULL };
    struct outcome prep = run(kw, path, NULL);
    T_CHECK_MSG(prep.rc == 0 && prep.mismatches == 0, "laying out verification blocks: %s", prep.msg);
}

static void expect_refused(const struct outcome *o, int rc, const char *const *words)
{
    T_CHECK_MSG(o->rc == rc, "rc %d, expected %d: %s", o->rc, rc, o->msg);
    for (int i = 0; words[i]; i++)
        T_CHECK_MSG(strstr(o->msg, words[i]) != NULL, "'%s' not in: %s", words[i], o->msg);
}

static const char *const k_writer[] = { "engine", "wsync", "rw", "randwrite", "bs", "4k", "ios", "16", NULL };
static const char *const k_prewriter[] = { "engine", "wsync", "rw", "randread", "bs", "4k", "ios", "16",
                                           "precondition", "1", NULL };
static const char *const k_verifier[] = { "engine", "wsync", "rw", "randread", "bs", "4k", "ios", "16", "verify", "1",
                                          NULL };
static const char *const k_reader[] = { "engine", "iocp", "rw", "randread", "bs", "4k", "ios", "64", NULL };
/* The refusal of a run another run holds in process pid: it names it. */
static void expect_busy(const struct outcome *o, DWORD pid)
{
    char who[48];
    snprintf(who, sizeof who, "(pid %lu (test_win_hold.exe)%s", (unsigned long)pid,
             pid == GetCurrentProcessId() ? ", this process)" : ")");
    const char *const words[] = { "in use by another run", who, NULL };
    expect_refused(o, -EBUSY, words);
}

/* ---- identity: what planning records ---- */

static void test_identity(void)
{
    char a[MAX_PATH], b[MAX_PATH], c[MAX_PATH], alias[MAX_PATH];
    path_in(a, sizeof a, "id-a.dat");
    path_in(b, sizeof b, "id-b.dat");
    path_in(c, sizeof c, "id-c.dat");
    make_file(a, 4096, 1);
    make_file(b, 4096, 1);
    struct nvb__target_info ta, tb, tt, tc, td;
    T_EQ(nvb__target_info(a, &ta), 0);
    T_EQ(nvb__target_info(b, &tb), 0);
    T_EQ(ta.kind, NVB__T_FILE);
    T_CHECK_MSG(ta.id_dev != 0 || ta.id_ino != 0, "no identity recorded for a file");
    T_CHECK_MSG(ta.id_ino != tb.id_ino || ta.id_rdev != tb.id_rdev, "two files with one identity");
    T_EQ(ta.id_dev, tb.id_dev); /* one volume */
    /* another spelling of the same name: the same file */
    slashed(alias, sizeof alias, a);
    T_EQ(nvb__target_info(alias, &tt), 0);
    T_CHECK(tt.id_dev == ta.id_dev && tt.id_ino == ta.id_ino && tt.id_rdev == ta.id_rdev);
    /* a created file: the creating handle's identity is what the name finds */
    DeleteFileA(c);
    T_EQ(nvb__file_create(c, 8192, &tc), 0);
    T_EQ(nvb__target_info(c, &td), 0);
    T_CHECK(tc.id_ino != 0 || tc.id_dev != 0);
    T_CHECK(tc.id_dev == td.id_dev && tc.id_ino == td.id_ino && tc.id_rdev == td.id_rdev);
    /* a directory is a directory */
    T_EQ(nvb__target_info(g_dir, &td), 0);
    T_EQ(td.kind, NVB__T_DIR);
}

/* ---- the hold itself, below the runner ---- */

static void hold_of(struct nvb__hold *h, const char *path, int level)
{
    struct nvb__target_info ti;
    memset(h, 0, sizeof *h);
    T_EQ(nvb__target_info(path, &ti), 0);
    h->path = h->file = path;
    h->kind = (int)ti.kind;
    h->id_dev = ti.id_dev;
    h->id_ino = ti.id_ino;
    h->id_rdev = ti.id_rdev;
    h->level = level;
}

static void test_hold_levels(void)
{
    char f[MAX_PATH], other[MAX_PATH];
    path_in(f, sizeof f, "levels.dat");
    path_in(other, sizeof other, "levels-other.dat");
    make_file(f, 65536, 2);
    make_file(other, 65536, 3);
    char msg[1024];
    struct nvb__hold w1, w2, v1, v2, r1;
    hold_of(&w1, f, NVB__HOLD_WRITE);
    hold_of(&w2, f, NVB__HOLD_WRITE);
    hold_of(&v1, f, NVB__HOLD_VERIFY);
    hold_of(&v2, f, NVB__HOLD_VERIFY);
    hold_of(&r1, f, NVB__HOLD_READ);
    /* a writer excludes writers and verifiers, never readers */
    T_EQ(nvb__hold_take(&w1, 1, msg, sizeof msg), 0);
    T_EQ(nvb__hold_take(&w2, 1, msg, sizeof msg), -EBUSY);
    T_CHECK_MSG(strstr(msg, "in use by another run (pid ") && strstr(msg, ", this process)"), "%s", msg);
    T_EQ(w2.fd, -1); /* nothing stays held after a refusal */
    T_EQ(nvb__hold_take(&v1, 1, msg, sizeof msg), -EBUSY);
    T_EQ(nvb__hold_take(&r1, 1, msg, sizeof msg), 0);
    /* the lock is outside the data: another handle reads and writes them */
    int fd = nvb__hold_reopen(&r1, NVB__O_WRITE);
    T_CHECK_MSG(fd > 0, "reopen through the held handle: %d", fd);
    if (fd > 0) {
        HANDLE h = nvb__win_handle(fd);
        char buf[4096];
        OVERLAPPED ov;
        memset(&ov, 0, sizeof ov);
        ov.Offset = 61440;
        ov.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
        DWORD got = 0;
        BOOL ok = ReadFile(h, buf, sizeof buf, NULL, &ov) || GetLastError() == ERROR_IO_PENDING;
        T_CHECK_MSG(ok && GetOverlappedResult(h, &ov, &got, TRUE) && got == sizeof buf, "read beside the lock failed");
        CloseHandle(ov.hEvent);
        nvb__target_close(fd);
    }
    nvb__hold_release(&r1, 1);
    nvb__hold_release(&w1, 1);
    /* verifiers share */
    T_EQ(nvb__hold_take(&v1, 1, msg, sizeof msg), 0);
    T_EQ(nvb__hold_take(&v2, 1, msg, sizeof msg), 0);
    T_EQ(nvb__hold_take(&w2, 1, msg, sizeof msg), -EBUSY);
    /* a shared hold (a target named twice, a group reading another's) is
     * the same lock, not a second one */
    struct nvb__hold s;
    memset(&s, 0, sizeof s);
    T_EQ(nvb__hold_share(&v1, &s), 0);
    T_CHECK(s.fd > 0 && s.fd != v1.fd);
    nvb__hold_release(&v1, 1);
    nvb__hold_release(&v2, 1);
    T_EQ(nvb__hold_take(&w2, 1, msg, sizeof msg), -EBUSY); /* the shared handle still holds it */
    nvb__hold_release(&s, 1);
    T_EQ(nvb__hold_take(&w2, 1, msg, sizeof msg), 0);
    /* the probe of another run's lock */
    T_EQ(nvb__lock_holder(f, f, NVB__HOLD_READ, msg, sizeof msg), -EBUSY);
    T_EQ(nvb__lock_holder(other, other, NVB__HOLD_WRITE, msg, sizeof msg), 0);
    nvb__hold_release(&w2, 1);
    T_EQ(nvb__lock_holder(f, f, NVB__HOLD_WRITE, msg, sizeof msg), 0);
    /* a hard link is the same file under another name: the same lock */
    char link[MAX_PATH];
    path_in(link, sizeof link, "levels-link.dat");
    if (CreateHardLinkA(link, f, NULL)) {
        struct nvb__hold l;
        hold_of(&l, link, NVB__HOLD_WRITE);
        T_EQ(l.id_ino, w2.id_ino);
        T_EQ(nvb__hold_take(&w2, 1, msg, sizeof msg), 0);
        T_EQ(nvb__hold_take(&l, 1, msg, sizeof msg), -EBUSY);
        nvb__hold_release(&w2, 1);
    } else {
        fprintf(stderr, "   no hard links here (%lu): that case not run\n", GetLastError());
    }
    /* a lock on the hold's byte (2^63 - 2) that no run recorded: refused,
     * saying Windows does not tell whose it is */
    HANDLE raw = CreateFileA(other, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    OVERLAPPED ov;
    memset(&ov, 0, sizeof ov);
    ov.Offset = 0xfffffffeu;
    ov.OffsetHigh = 0x7fffffffu;
    T_CHECK(LockFileEx(raw, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ov));
    struct nvb__hold u;
    hold_of(&u, other, NVB__HOLD_VERIFY);
    T_EQ(nvb__hold_take(&u, 1, msg, sizeof msg), -EBUSY);
    T_CHECK_MSG(strstr(msg, "in use by another run (Windows does not say which process)"), "%s", msg);
    CloseHandle(raw);
    T_EQ(nvb__hold_take(&u, 1, msg, sizeof msg), 0); /* the lock went with the handle */
    nvb__hold_release(&u, 1);
    /* the judged identity is what is checked: another file's is refused */
    struct nvb__hold x;
    hold_of(&x, other, NVB__HOLD_WRITE);
    x.path = x.file = f;
    T_EQ(nvb__hold_take(&x, 1, msg, sizeof msg), -ESTALE);
    T_CHECK_MSG(strstr(msg, "changed between planning and opening"), "%s", msg);
    T_EQ(x.fd, -1);
}

static void test_name_pinned(void)
{
    /* While held, the name can be neither renamed, replaced nor deleted;
     * jobs' handles come through the held one. */
    char f[MAX_PATH], aside[MAX_PATH], other[MAX_PATH];
    path_in(f, sizeof f, "pinned.dat");
    path_in(aside, sizeof aside, "pinned-aside.dat");
    path_in(other, sizeof other, "pinned-other.dat");
    make_file(f, 65536, 4);
    make_file(other, 65536, 5);
    char msg[1024];
    struct nvb__hold h;
    hold_of(&h, f, NVB__HOLD_READ);
    T_EQ(nvb__hold_take(&h, 1, msg, sizeof msg), 0);
    T_CHECK_MSG(!MoveFileExA(f, aside, 0), "a held target was renamed");
    T_CHECK_MSG(!MoveFileExA(other, f, MOVEFILE_REPLACE_EXISTING), "a held target was replaced");
    T_CHECK_MSG(!DeleteFileA(f), "a held target was deleted");
    int fd = nvb__hold_reopen(&h, NVB__O_WRITE | NVB__O_DIRECT);
    T_CHECK_MSG(fd > 0, "reopen: %d", fd);
    struct nvb__target_info a, b;
    T_EQ(nvb__win_identity(nvb__win_handle(fd), 0, &a), 0);
    T_EQ(nvb__target_info(f, &b), 0);
    T_CHECK(a.id_dev == b.id_dev && a.id_ino == b.id_ino && a.id_rdev == b.id_rdev);
    nvb__target_close(fd);
    nvb__hold_release(&h, 1);
    T_CHECK_MSG(MoveFileExA(f, aside, 0), "not renamed once let go: %lu", GetLastError());
}

/* ---- two runs in one process ---- */

#define MAX_SECOND 4
/* What the first run's poll does once: each of kv[] on the target, then
 * (when aside is set) tries to rename the target under the first run. */
struct second {
    const char *target, *aside;
    const char *const *kv[MAX_SECOND + 1];
    struct outcome out[MAX_SECOND];
    DWORD rename_err;
    int done;
};

static int second_runs(void *arg)
{
    struct second *s = arg;
    if (!s->done) {
        s->done = 1;
        for (int i = 0; s->kv[i]; i++)
            s->out[i] = run(s->kv[i], s->target, NULL);
        if (s->aside)
            s->rename_err = MoveFileExA(s->target, s->aside, 0) ? 0 : GetLastError();
    }
    return 1; /* end the first run */
}

/* The first run, kv on s->target, polling second_runs every millisecond:
 * it ends cancelled by that poll with no mismatch. */
static void first_run(const char *const *kv, struct second *s)
{
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.poll = second_runs;
    o.poll_arg = s;
    o.poll_ms = 1;
    struct outcome first = run(kv, s->target, &o);
    T_CHECK_MSG(s->done, "the first run never polled");
    T_CHECK_MSG(first.rc == -ECANCELED, "first run: rc %d: %s", first.rc, first.msg);
    T_EQ(first.mismatches, 0);
}

static void test_two_runs_one_process(void)
{
    char f[MAX_PATH], aside[MAX_PATH];
    path_in(f, sizeof f, "two.dat");
    path_in(aside, sizeof aside, "two-aside.dat");
    make_file(f, 4 << 20, 6);
    lay_verify_blocks(f);
    /* the first run writes and verifies what it wrote: another writer's
     * data would show as mismatches */
    const char *const kv[] = { "engine", "iocp", "rw", "randrw", "bs", "4k", "qd", "4", "verify", "1", "runtime",
                               "60s", NULL };
    struct second s = { .target = f, .aside = aside, .kv = { k_writer, k_prewriter, k_verifier, k_reader, NULL } };
    first_run(kv, &s);
    for (int i = 0; i < 3; i++)
        expect_busy(&s.out[i], GetCurrentProcessId());
    T_CHECK_MSG(s.out[3].rc == 0, "a plain read was blocked: %s", s.out[3].msg);
    T_CHECK_MSG(s.rename_err != 0, "the held target was renamed during the run");
    T_CHECK(GetFileAttributesA(aside) == INVALID_FILE_ATTRIBUTES);
}

static void test_verifier_first(void)
{
    /* a verifying run holds a shared lock: writers are refused, another
     * verifier and readers are not */
    char f[MAX_PATH];
    path_in(f, sizeof f, "verify.dat");
    make_file(f, 1 << 20, 7);
    lay_verify_blocks(f);
    uint64_t before = sum_file(f);
    const char *const kv[] = { "engine", "wsync", "rw", "randread", "bs", "4k", "verify", "1", "runtime", "60s", NULL };
    struct second s = { .target = f, .kv = { k_writer, k_verifier, k_reader, NULL } };
    first_run(kv, &s);
    expect_busy(&s.out[0], GetCurrentProcessId());
    T_CHECK_MSG(s.out[1].rc == 0, "a second verifier was refused: %s", s.out[1].msg);
    T_EQ(s.out[1].mismatches, 0);
    T_CHECK_MSG(s.out[2].rc == 0, "a plain read was blocked: %s", s.out[2].msg);
    T_CHECK_MSG(sum_file(f) == before, "the file changed under a verifying run");
}

/* ---- a name swapped between planning and opening ---- */

struct swap {
    const char *target, *aside, *other; /* other NULL: a directory takes the name */
    int done;
};

/* The runner logs "opening N targets" at debug level after planning
 * judged the names, just before the hold opens them. */
static void swap_in_log(int level, const char *msg, void *arg)
{
    struct swap *s = arg;
    if (level != 3 || strncmp(msg, "opening ", 8) || s->done)
        return;
    s->done = 1;
    T_CHECK_MSG(MoveFileExA(s->target, s->aside, 0), "rename: %lu", GetLastError());
    if (s->other)
        T_CHECK_MSG(MoveFileExA(s->other, s->target, 0), "rename: %lu", GetLastError());
    else
        T_CHECK_MSG(CreateDirectoryA(s->target, NULL), "mkdir: %lu", GetLastError());
}

static void test_swapped_before_open(void)
{
    char f[MAX_PATH], aside[MAX_PATH], other[MAX_PATH];
    path_in(f, sizeof f, "swap.dat");
    path_in(aside, sizeof aside, "swap-judged.dat");
    path_in(other, sizeof other, "swap-new.dat");
    make_file(f, 1 << 20, 8);
    make_file(other, 1 << 20, 9);
    uint64_t judged = sum_file(f), fresh = sum_file(other);
    struct swap s = { f, aside, other, 0 };
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.log = swap_in_log;
    o.log_arg = &s;
    struct outcome out = run(k_writer, f, &o);
    T_CHECK_MSG(s.done, "the hold did not log before opening");
    const char *const words[] = { "changed between planning and opening", "a regular file (volume serial", NULL };
    expect_refused(&out, -ESTALE, words);
    T_CHECK_MSG(sum_file(f) == fresh, "the file swapped in was written");
    T_CHECK_MSG(sum_file(aside) == judged, "the refused run wrote the judged file");
    /* a directory in its place: refused the same way, saying so */
    DeleteFileA(f);
    MoveFileExA(aside, f, 0);
    struct swap d = { f, aside, NULL, 0 };
    o.log_arg = &d;
    out = run(k_prewriter, f, &o);
    T_CHECK_MSG(d.done, "the hold did not log before opening");
    const char *const wd[] = { "changed between planning and opening", "is now a directory", NULL };
    expect_refused(&out, -ESTALE, wd);
    T_CHECK_MSG(sum_file(aside) == judged, "the refused run wrote the judged file");
}

/* ---- two processes ---- */

#define CHILD_ARG "--hold-child"

/* The child: a writing, verifying run on argv[2] until the event named
 * argv[4] is set; it creates argv[3] once it runs. Exit 0 when it ended
 * as asked with no mismatch. */
struct child {
    const char *ready;
    HANDLE stop;
    int told;
};

static int child_poll(void *arg)
{
    struct child *c = arg;
    if (!c->told) {
        c->told = 1;
        FILE *f = fopen(c->ready, "wb");
        if (f)
            fclose(f);
    }
    return WaitForSingleObject(c->stop, 0) == WAIT_OBJECT_0;
}

static int child_main(char **argv)
{
    struct child c = { argv[3], OpenEventA(SYNCHRONIZE, FALSE, argv[4]), 0 };
    if (!c.stop)
        return 3;
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.poll = child_poll;
    o.poll_arg = &c;
    o.poll_ms = 5;
    const char *const kv[] = { "engine", "iocp", "rw", "randrw", "bs", "4k", "qd", "4", "verify", "1", "runtime",
                               "120s", NULL };
    struct outcome out = run(kv, argv[2], &o);
    fprintf(stderr, "   child: rc %d, mismatches %g%s%s\n", out.rc, out.mismatches, out.rc ? ": " : "",
            out.rc ? out.msg : "");
    return out.rc == -ECANCELED && out.mismatches == 0 && !t_failed ? 0 : 1;
}

static void test_two_processes(void)
{
    char f[MAX_PATH], ready[MAX_PATH], ev[64], exe[MAX_PATH], cmd[4 * MAX_PATH];
    path_in(f, sizeof f, "proc.dat");
    path_in(ready, sizeof ready, "proc.ready");
    DeleteFileA(ready);
    make_file(f, 4 << 20, 10);
    lay_verify_blocks(f);
    snprintf(ev, sizeof ev, "nvb-hold-test-%lu", (unsigned long)GetCurrentProcessId());
    HANDLE stop = CreateEventA(NULL, TRUE, FALSE, ev);
    T_CHECK(stop != NULL);
    GetModuleFileNameA(NULL, exe, sizeof exe);
    snprintf(cmd, sizeof cmd, "\"%s\" %s \"%s\" \"%s\" %s", exe, CHILD_ARG, f, ready, ev);
    STARTUPINFOA si;
    PROCESS_INFORMATION pi;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    if (!CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
        T_CHECK_MSG(0, "CreateProcess: %lu", GetLastError());
        return;
    }
    /* the child runs until told: wait until it says it runs, bounded
     * generously (a slow, shared machine) */
    int up = 0;
    for (int i = 0; i < 6000 && !up; i++) {
        up = GetFileAttributesA(ready) != INVALID_FILE_ATTRIBUTES;
        if (!up && WaitForSingleObject(pi.hProcess, 10) == WAIT_OBJECT_0)
            break;
    }
    T_CHECK_MSG(up, "the child never ran");
    if (up) {
        struct outcome wr = run(k_writer, f, NULL), ve = run(k_verifier, f, NULL), rd = run(k_reader, f, NULL);
        expect_busy(&wr, pi.dwProcessId);
        expect_busy(&ve, pi.dwProcessId);
        T_CHECK_MSG(rd.rc == 0, "a plain read was blocked: %s", rd.msg);
        T_CHECK_MSG(!DeleteFileA(f), "the target another process holds was deleted");
    }
    SetEvent(stop);
    DWORD code = 99;
    T_EQ(WaitForSingleObject(pi.hProcess, 120000), WAIT_OBJECT_0);
    GetExitCodeProcess(pi.hProcess, &code);
    T_CHECK_MSG(code == 0, "the child's run: exit %lu (its data not intact, or it did not end as asked)", code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    CloseHandle(stop);
    /* let go once the child ended: a writer runs now */
    struct outcome after = run(k_writer, f, NULL);
    T_CHECK_MSG(after.rc == 0, "a writer after the child ended: %s", after.msg);
}

/* ---- job groups: one target is one identity ---- */

static struct nvb_workload *group(const char *name, const char *rw, const char *target)
{
    struct nvb_workload *w = NULL;
    T_EQ(nvb_workload_new(&w), 0);
    T_EQ(nvb_workload_set(w, "engine", "wsync"), 0);
    T_EQ(nvb_workload_set(w, "rw", rw), 0);
    T_EQ(nvb_workload_set(w, "bs", "4k"), 0);
    T_EQ(nvb_workload_set(w, "ios", "64"), 0);
    T_EQ(nvb_workload_set(w, "name", name), 0);
    T_EQ(nvb_workload_add_target(w, target), 0);
    return w;
}

static int run_pair(struct nvb_workload *a, struct nvb_workload *b, char *msg, size_t len)
{
    const struct nvb_workload *ws[] = { a, b };
    struct nvb_result *r = NULL;
    int rc = nvb_run_groups(ws, 2, NULL, &r);
    snprintf(msg, len, "%s", r ? nvb_result_error(r) : nvb_strerror(rc));
    nvb_result_free(r);
    nvb_workload_free(a);
    nvb_workload_free(b);
    return rc;
}

static void test_groups(void)
{
    char f[MAX_PATH], g[MAX_PATH], msg[1024];
    path_in(f, sizeof f, "group-f.dat");
    path_in(g, sizeof g, "group-g.dat");
    make_file(f, 1 << 20, 11);
    make_file(g, 1 << 20, 12);
    /* two files are two targets: both groups write */
    int rc = run_pair(group("w1", "randwrite", f), group("w2", "randwrite", g), msg, sizeof msg);
    T_CHECK_MSG(rc == 0, "two groups writing two files: %d %s", rc, msg);
    /* one file written by both: they share the first one's hold (as fio's
     * jobs of one file); with verify on one refused, naming both */
    rc = run_pair(group("w1", "randwrite", f), group("w2", "write", f), msg, sizeof msg);
    T_CHECK_MSG(rc == 0, "two groups writing one file: %d %s", rc, msg);
    struct nvb_workload *v = group("w2", "write", f);
    T_EQ(nvb_workload_set(v, "verify", "1"), 0);
    rc = run_pair(group("w1", "randwrite", f), v, msg, sizeof msg);
    T_EQ(rc, -EBUSY);
    T_CHECK_MSG(strstr(msg, "'w1'") && strstr(msg, "'w2'"), "%s", msg);
    /* a reader beside a writer on one file shares the writer's hold */
    rc = run_pair(group("w", "randwrite", f), group("r", "randread", f), msg, sizeof msg);
    T_CHECK_MSG(rc == 0, "a reading group beside a writing one: %d %s", rc, msg);
    /* one run naming one file twice, the second time spelled with '/':
     * one identity, so a reading run shares one hold, and a writing run
     * is refused before anything opens (its jobs would write one block as
     * two targets) */
    char alias[MAX_PATH];
    slashed(alias, sizeof alias, f);
    struct nvb_workload *w = group("twice", "randread", f);
    T_EQ(nvb_workload_add_target(w, alias), 0);
    struct nvb_result *r = NULL;
    rc = nvb_run(w, NULL, &r);
    T_CHECK_MSG(rc == 0, "one file named twice, read: %d %s", rc, r ? nvb_result_error(r) : "");
    nvb_result_free(r);
    nvb_workload_free(w);
    w = group("twice", "randwrite", f);
    T_EQ(nvb_workload_add_target(w, alias), 0);
    r = NULL;
    rc = nvb_run(w, NULL, &r);
    T_CHECK_MSG(rc == -EINVAL && strstr(nvb_result_error(r), "same file"), "one file named twice, written: %d %s",
                rc, r ? nvb_result_error(r) : "");
    nvb_result_free(r);
    nvb_workload_free(w);
}

/* ---- a created target and a scratch file: held, then let go ---- */

static int cancel_now(void *arg)
{
    (void)arg;
    return 1;
}

static void test_created_and_scratch(void)
{
    char f[MAX_PATH], sub[MAX_PATH], pat[MAX_PATH];
    path_in(f, sizeof f, "created.dat");
    path_in(sub, sizeof sub, "scratch");
    DeleteFileA(f);
    CreateDirectoryA(sub, NULL);
    const char *const kv[] = { "engine", "wsync", "rw", "randwrite", "bs", "4k", "ios", "64", "size", "1M", NULL };
    struct outcome c = run(kv, f, NULL);
    T_CHECK_MSG(c.rc == 0, "created target: %s", c.msg);
    T_CHECK_MSG(DeleteFileA(f), "the created target is still held after the run: %lu", GetLastError());
    /* cancelled during its layout: the half-made file (checked to be the one
     * made, then deleted through that handle) is removed */
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.poll = cancel_now;
    o.poll_ms = 1;
    const char *const big[] = { "engine", "wsync", "rw", "randwrite", "bs", "4k", "ios", "64", "size", "16M", NULL };
    struct outcome x = run(big, f, &o);
    T_CHECK_MSG(x.rc == -ECANCELED, "a created target cancelled in its layout: rc %d (%s)", x.rc, x.msg);
    T_CHECK_MSG(GetFileAttributesA(f) == INVALID_FILE_ATTRIBUTES, "the half-made created target was left behind");
    struct outcome d = run(kv, sub, NULL);
    T_CHECK_MSG(d.rc == 0, "scratch: %s", d.msg);
    snprintf(pat, sizeof pat, "%s\\.nvbench-scratch-*", sub);
    WIN32_FIND_DATAA fd;
    HANDLE h = FindFirstFileA(pat, &fd);
    T_CHECK_MSG(h == INVALID_HANDLE_VALUE, "a scratch file was left behind: %s", fd.cFileName);
    if (h != INVALID_HANDLE_VALUE)
        FindClose(h);
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], CHILD_ARG))
        return child_main(argv);
    t_tmpdir("hold", g_dir, sizeof g_dir);
    T_RUN(test_identity);
    T_RUN(test_hold_levels);
    T_RUN(test_name_pinned);
    T_RUN(test_two_runs_one_process);
    T_RUN(test_verifier_first);
    T_RUN(test_swapped_before_open);
    T_RUN(test_two_processes);
    T_RUN(test_groups);
    T_RUN(test_created_and_scratch);
    clear_dir(g_dir);
    return t_done();
}
