/*
 * The run's hold on its targets, Windows half (devices/hold.h; the Linux
 * half is devices/hold.c, what both share devices/hold_common.c).
 *
 * Planning judged each target by its name and recorded its identity
 * (nvb__target_info: a file's volume serial number and file id, a disk's
 * device number). Before anything is created or written:
 *
 *  1. each target is opened once by name, sharing read and write but not
 *     delete: while the run holds it, the name can be neither renamed,
 *     replaced nor deleted (Windows refuses with a sharing violation);
 *  2. the handle's identity (nvb__win_identity) must be the one planning
 *     judged, or the run is refused (-ESTALE);
 *  3. it is locked with a byte-range lock (LockFileEx, failing at once):
 *     exclusive for a run that writes (trims and precondition included),
 *     shared for one that verifies, none for plain reads; another run's
 *     conflicting lock gives -EBUSY. Windows byte-range locks are
 *     mandatory (a locked range refuses other handles' reads and writes),
 *     so the lock is one byte at offset 2^63 - 2 (NVB__WIN_HOLD_LOCK_OFF),
 *     where no data can be: file offsets are signed 64-bit numbers and no
 *     file or disk reaches 8 EiB. Windows does not say which process holds
 *     a byte-range lock: each locking run leaves a named record of its
 *     process id (record_holder), so the refusal names it ("pid 1234
 *     (run_workload.exe)") where the holder runs in this session, and
 *     otherwise says Windows does not tell. A device that refuses
 *     byte-range locks (a raw disk may) is held without one: the guard's
 *     rules (devices/win/devices.c) still apply to it;
 *  4. the handle stays open until the run ends. Jobs open their own
 *     handles through it (ReOpenFile, nvb__win_reopen), not through the
 *     name, and each is checked to be the same file or device (should
 *     ReOpenFile fail, as it might for a raw device, the name is opened
 *     and must give the held file or device, else -ESTALE).
 *
 * Once per target before the run, never per I/O.
 */
#include "devices/hold.h"
#include "nvbench.h"
#include "platform/platform.h"
#include "platform/win/win.h"
#include "util/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <winioctl.h>

/* The one locked byte: beyond any data (see above). */
#define NVB__WIN_HOLD_LOCK_OFF (UINT64_C(0x7fffffffffffffff) - 1)

static const char *const who_unknown = "Windows does not say which process";

/* Windows keeps no owner with a byte-range lock that another process can
 * read, so a run that locks a target also leaves a small named record of
 * its process id, keyed by the target's identity, in the session's
 * namespace (Local\): a loser reads it to name the holder. It lives as
 * long as a holder keeps it open (the hold's claim_fd) and is only ever
 * words in a message: a stale or forged one names a process that is
 * checked to be running, or nothing. */
static void record_name(const struct nvb__hold *h, wchar_t *out, size_t n)
{
    swprintf(out, n, L"Local\\nvbench-hold-%d-%llx-%llx-%llx", h->kind, (unsigned long long)h->id_dev,
             (unsigned long long)h->id_ino, (unsigned long long)h->id_rdev);
}

static void record_holder(struct nvb__hold *h)
{
    wchar_t name[128];
    record_name(h, name, 128);
    HANDLE m = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, sizeof(DWORD), name);
    if (!m)
        return; /* only the message loses the name */
    DWORD *pid = MapViewOfFile(m, FILE_MAP_WRITE, 0, 0, sizeof(DWORD));
    if (pid) {
        *pid = GetCurrentProcessId();
        UnmapViewOfFile(pid);
    }
    h->claim_fd = nvb__win_fd(m);
}

/* "pid 1234 (run_workload.exe)" of the recorded holder when it runs, else
 * who_unknown. */
static void find_holder(const struct nvb__hold *h, char *out, size_t len)
{
    snprintf(out, len, "%s", who_unknown);
    wchar_t name[128];
    record_name(h, name, 128);
    HANDLE m = OpenFileMappingW(FILE_MAP_READ, FALSE, name);
    if (!m)
        return;
    DWORD *rec = MapViewOfFile(m, FILE_MAP_READ, 0, 0, sizeof(DWORD));
    DWORD pid = rec ? *rec : 0;
    if (rec)
        UnmapViewOfFile(rec);
    CloseHandle(m);
    HANDLE p = pid ? OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid) : NULL;
    if (!p)
        return;
    wchar_t img[MAX_PATH];
    DWORD n = MAX_PATH, code = 0;
    int alive = GetExitCodeProcess(p, &code) && code == STILL_ACTIVE;
    char exe[MAX_PATH] = "?";
    if (QueryFullProcessImageNameW(p, 0, img, &n)) {
        const wchar_t *base = wcsrchr(img, L'\\');
        nvb__win_narrow(base ? base + 1 : img, exe, sizeof exe);
    }
    CloseHandle(p);
    if (alive)
        snprintf(out, len, "pid %lu (%s)%s", (unsigned long)pid, exe,
                 pid == GetCurrentProcessId() ? ", this process" : "");
}

static int refuse_locked(const struct nvb__hold *h, char *msg, size_t len)
{
    char who[MAX_PATH + 64];
    find_holder(h, who, sizeof who);
    return nvb__hold_refuse_locked(h, who, msg, len);
}

static int same_id(const struct nvb__target_info *a, int kind, uint64_t dev, uint64_t ino, uint64_t rdev)
{
    if ((int)a->kind != kind)
        return 0;
    if (kind == NVB__T_FILE)
        return a->id_dev == dev && a->id_ino == ino && a->id_rdev == rdev;
    return a->id_rdev == rdev;
}

static void describe(char *out, size_t len, int kind, uint64_t dev, uint64_t ino, uint64_t rdev)
{
    char fid[40];
    if (rdev && (kind == NVB__T_FILE || kind == NVB__T_DIR))
        snprintf(fid, sizeof fid, "%llx%016llx", (unsigned long long)rdev, (unsigned long long)ino);
    else
        snprintf(fid, sizeof fid, "%llx", (unsigned long long)ino);
    unsigned type = (unsigned)(rdev >> 48), num = (unsigned)((rdev >> 16) & 0xffffffffu), part = (unsigned)(rdev & 0xffff);
    if (kind == NVB__T_FILE || kind == NVB__T_DIR)
        snprintf(out, len, "%s (volume serial %llx, file id %s)", kind == NVB__T_FILE ? "a regular file" : "a directory",
                 (unsigned long long)dev, fid);
    else if (kind == NVB__T_BLOCK && !rdev)
        snprintf(out, len, "a volume or device Windows gives no number for");
    else if (kind == NVB__T_BLOCK && type == FILE_DEVICE_DISK && part)
        snprintf(out, len, "partition %u of disk %u", part, num);
    else if (kind == NVB__T_BLOCK && type == FILE_DEVICE_DISK)
        snprintf(out, len, "disk %u (\\\\.\\PhysicalDrive%u)", num, num);
    else if (kind == NVB__T_BLOCK)
        snprintf(out, len, "device %u of type %u", num, type);
    else
        snprintf(out, len, "something that is neither a file nor a disk");
}

static int refuse_changed(const struct nvb__hold *h, const struct nvb__target_info *now, char *msg, size_t len)
{
    char was[128], is[128];
    describe(was, sizeof was, h->kind, h->id_dev, h->id_ino, h->id_rdev);
    describe(is, sizeof is, now->kind, now->id_dev, now->id_ino, now->id_rdev);
    return nvb__hold_refuse_changed(h, was, is, msg, len);
}

/* Byte-range lock of the hold's byte: 0, -EBUSY (another handle has a
 * conflicting lock), or -errno (-ENOTSUP: the device has no such locks). */
static int lock_byte(HANDLE h, int exclusive)
{
    OVERLAPPED ov;
    memset(&ov, 0, sizeof ov);
    ov.Offset = (DWORD)NVB__WIN_HOLD_LOCK_OFF;
    ov.OffsetHigh = (DWORD)(NVB__WIN_HOLD_LOCK_OFF >> 32);
    DWORD fl = LOCKFILE_FAIL_IMMEDIATELY | (exclusive ? LOCKFILE_EXCLUSIVE_LOCK : 0);
    if (LockFileEx(h, fl, 0, 1, 0, &ov))
        return 0;
    DWORD e = GetLastError();
    return e == ERROR_LOCK_VIOLATION ? -EBUSY : nvb__win_errno(e);
}

static void unlock_byte(HANDLE h)
{
    OVERLAPPED ov;
    memset(&ov, 0, sizeof ov);
    ov.Offset = (DWORD)NVB__WIN_HOLD_LOCK_OFF;
    ov.OffsetHigh = (DWORD)(NVB__WIN_HOLD_LOCK_OFF >> 32);
    UnlockFileEx(h, 0, 1, 0, &ov);
}

/* Open h->file for the hold. INVALID_HANDLE_VALUE with msg and *rc. */
static HANDLE open_held(const struct nvb__hold *h, int *rc, char *msg, size_t len)
{
    wchar_t *w = nvb__win_wide(h->file);
    if (!w) {
        *rc = -EINVAL;
        snprintf(msg, len, "target '%s': the name is not valid UTF-8", h->path);
        return INVALID_HANDLE_VALUE;
    }
    DWORD access = GENERIC_READ | (h->level == NVB__HOLD_WRITE ? GENERIC_WRITE : 0);
    HANDLE f = CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    DWORD e = GetLastError();
    free(w);
    if (f != INVALID_HANDLE_VALUE)
        return f;
    /* Gone or replaced by something that does not open this way (a
     * directory): say so when the name now finds something else. */
    struct nvb__target_info now;
    if (nvb__target_info(h->file, &now) == 0 && !same_id(&now, h->kind, h->id_dev, h->id_ino, h->id_rdev)) {
        *rc = refuse_changed(h, &now, msg, len);
        return INVALID_HANDLE_VALUE;
    }
    *rc = nvb__win_errno(e);
    if (e == ERROR_SHARING_VIOLATION)
        snprintf(msg, len, "target '%s' is in use: another program has it open and shares it with no writer or no "
                 "reader (Windows refused to open it: sharing violation)", h->path);
    else
        snprintf(msg, len, "cannot open target '%s'%s%s: %s", h->path, strcmp(h->file, h->path) ? " as " : "",
                 strcmp(h->file, h->path) ? h->file : "", nvb_strerror(*rc));
    return INVALID_HANDLE_VALUE;
}

static int take_one(struct nvb__hold *h, char *msg, size_t len)
{
    int rc = 0;
    HANDLE f = open_held(h, &rc, msg, len);
    if (f == INVALID_HANDLE_VALUE)
        return rc;
    h->fd = nvb__win_fd(f);
    struct nvb__target_info now;
    memset(&now, 0, sizeof now);
    if ((rc = nvb__win_identity(f, nvb__win_is_device_path(h->file), &now)) < 0) {
        snprintf(msg, len, "target '%s': cannot tell what was opened: %s", h->path, nvb_strerror(rc));
        return rc;
    }
    if (!same_id(&now, h->kind, h->id_dev, h->id_ino, h->id_rdev))
        return refuse_changed(h, &now, msg, len);
    if (h->level == NVB__HOLD_READ)
        return 0;
    rc = lock_byte(f, h->level == NVB__HOLD_WRITE);
    if (rc == -EBUSY)
        return refuse_locked(h, msg, len);
    if (rc == 0)
        record_holder(h);
    /* a file system without byte-range locks, or a raw device (whose
     * driver may answer with any error): held without one */
    if (rc < 0 && rc != -ENOTSUP && rc != -EINVAL && h->kind != NVB__T_BLOCK) {
        snprintf(msg, len, "target '%s': cannot lock it: %s", h->path, nvb_strerror(rc));
        return rc;
    }
    return 0;
}

NVB__HOLD_TAKE_DEFINE(take_one)

int nvb__hold_share(const struct nvb__hold *from, struct nvb__hold *to)
{
    to->claim_fd = to->alias_fd = -1;
    to->fd = -1;
    HANDLE self = GetCurrentProcess(), dup = NULL;
    if (!DuplicateHandle(self, nvb__win_handle(from->fd), self, &dup, 0, FALSE, DUPLICATE_SAME_ACCESS))
        return nvb__win_errno(GetLastError());
    to->fd = nvb__win_fd(dup);
    return 0;
}

int nvb__hold_reopen(const struct nvb__hold *h, int flags)
{
    if (h->fd < 0)
        return nvb__target_open(h->file, flags);
    HANDLE held = nvb__win_handle(h->fd);
    int fd = nvb__win_reopen(held, flags);
    /* A device that refuses to be opened relative to a handle: the name,
     * checked below to be what is held (as Linux does without /proc). */
    if (fd < 0 && fd != -ENOMEM)
        fd = nvb__target_open(h->file, flags);
    if (fd < 0)
        return fd;
    struct nvb__target_info a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int device = nvb__win_is_device_path(h->file);
    if (nvb__win_identity(nvb__win_handle(fd), device, &a) < 0 || nvb__win_identity(held, device, &b) < 0 ||
        !same_id(&a, (int)b.kind, b.id_dev, b.id_ino, b.id_rdev)) {
        nvb__target_close(fd);
        return -ESTALE;
    }
    return fd;
}

int nvb__lock_holder(const char *node, const char *path, int level, char *msg, size_t len)
{
    /* Asked by trying the conflicting lock on a handle of our own, and
     * letting it go at once. */
    wchar_t *w = nvb__win_wide(node);
    if (!w)
        return 0;
    HANDLE f = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, 0, NULL);
    free(w);
    if (f == INVALID_HANDLE_VALUE)
        return 0;
    int rc = lock_byte(f, level == NVB__HOLD_WRITE);
    if (rc == 0)
        unlock_byte(f);
    CloseHandle(f);
    if (rc != -EBUSY)
        return 0;
    struct nvb__hold h = {.path = path, .level = level};
    struct nvb__target_info ti;
    if (nvb__target_info(node, &ti) == 0) {
        h.kind = (int)ti.kind;
        h.id_dev = ti.id_dev;
        h.id_ino = ti.id_ino;
        h.id_rdev = ti.id_rdev;
    }
    return refuse_locked(&h, msg, len);
}
