/*
 * Targets, scratch files and pre-filling (Windows).
 *
 * Every target is opened with FILE_FLAG_OVERLAPPED: positional I/O on
 * Windows is an OVERLAPPED structure with an offset in any case, and an
 * overlapped handle serves the synchronous engine (wsync waits on each
 * I/O) as well as iocp and ioring. direct=1 adds FILE_FLAG_NO_BUFFERING,
 * as fio's direct=1 does on Windows (not FILE_FLAG_WRITE_THROUGH, which
 * would add FUA writes that O_DIRECT on Linux does not).
 */
#include "platform/platform.h"
#include "platform/common.h"
#include "platform/win/win.h"
#include "platform/winfmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <winioctl.h>

/* The most one WriteFile is asked for (its length is a DWORD). */
#define WRITE_MAX (1u << 20)
#define DEFAULT_LBS 512u
#define SHARE_ALL (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)

static HANDLE open_w(const char *path, DWORD access, DWORD disp, DWORD flags, int *err)
{
    wchar_t *w = nvb__win_wide(path);
    if (!w) {
        *err = -EINVAL;
        return INVALID_HANDLE_VALUE;
    }
    HANDLE h = CreateFileW(w, access, SHARE_ALL, NULL, disp, flags, NULL);
    if (h == INVALID_HANDLE_VALUE)
        *err = nvb__win_errno(GetLastError());
    free(w);
    return h;
}

/* The attributes of a file or directory. 0 or -errno. */
static int path_attrs(const char *path, WIN32_FILE_ATTRIBUTE_DATA *fa)
{
    wchar_t *w = nvb__win_wide(path);
    if (!w)
        return -EINVAL;
    DWORD e = GetFileAttributesExW(w, GetFileExInfoStandard, fa) ? ERROR_SUCCESS : GetLastError();
    free(w);
    return nvb__win_errno(e);
}

/* Sector sizes of a disk or volume handle: the storage stack's alignment
 * descriptor, else the drive geometry, else 512. */
static void device_sectors(HANDLE h, uint32_t *lbs, uint32_t *pbs)
{
    uint8_t q[12], out[64];
    DWORD got = 0;
    struct nvb__win_storage s;
    nvb__win_storage_init(&s);
    nvb__win_property_query(q, sizeof q, NVB__WIN_PROP_ALIGNMENT);
    if (DeviceIoControl(h, IOCTL_STORAGE_QUERY_PROPERTY, q, sizeof q, out, sizeof out, &got, NULL) &&
        nvb__win_parse_property(NVB__WIN_PROP_ALIGNMENT, out, got, &s) == 0) {
        *lbs = s.lbs;
        *pbs = s.pbs;
        return;
    }
    DISK_GEOMETRY_EX g;
    if (DeviceIoControl(h, IOCTL_DISK_GET_DRIVE_GEOMETRY_EX, NULL, 0, &g, sizeof g, &got, NULL) &&
        g.Geometry.BytesPerSector >= 512) {
        *lbs = *pbs = g.Geometry.BytesPerSector;
        return;
    }
    *lbs = *pbs = DEFAULT_LBS;
}

/* IOCTL_DISK_GET_LENGTH_INFO needs read access, which a query handle
 * (access 0, all that a user who is not an administrator gets on a raw
 * disk) lacks; the drive geometry's DiskSize needs none. */
int nvb__win_device_size(HANDLE h, uint64_t *size)
{
    GET_LENGTH_INFORMATION gl;
    DWORD got = 0;
    if (DeviceIoControl(h, IOCTL_DISK_GET_LENGTH_INFO, NULL, 0, &gl, sizeof gl, &got, NULL)) {
        *size = (uint64_t)gl.Length.QuadPart;
        return 0;
    }
    DWORD err = GetLastError();
    DISK_GEOMETRY_EX g;
    if (DeviceIoControl(h, IOCTL_DISK_GET_DRIVE_GEOMETRY_EX, NULL, 0, &g, sizeof g, &got, NULL)) {
        *size = (uint64_t)g.DiskSize.QuadPart;
        return 0;
    }
    return nvb__win_errno(err);
}

static int device_info(const char *path, struct nvb__target_info *ti)
{
    int err = 0;
    /* Access 0: a query handle, which needs no administrator rights. */
    HANDLE h = open_w(path, 0, OPEN_EXISTING, 0, &err);
    if (h == INVALID_HANDLE_VALUE)
        return err;
    int rc = nvb__win_device_size(h, &ti->size);
    if (rc == 0) {
        device_sectors(h, &ti->lbs, &ti->pbs);
        ti->mem_align = ti->lbs;
    }
    CloseHandle(h);
    if (rc < 0)
        return rc;
    ti->kind = NVB__T_BLOCK;
    const char *base = path + 4; /* after \\.\ */
    snprintf(ti->dev, sizeof ti->dev, "%s", base);
    return 0;
}

/* FILE_STORAGE_INFO (Windows 8+) gives the sector sizes of the volume a
 * file lives on, as unbuffered I/O on it must respect them. */
static void file_sectors(const char *path, uint32_t *lbs, uint32_t *pbs)
{
    int err;
    *lbs = *pbs = 0;
    HANDLE h = open_w(path, 0, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, &err);
    if (h == INVALID_HANDLE_VALUE)
        return;
    FILE_STORAGE_INFO si;
    memset(&si, 0, sizeof si);
    if (GetFileInformationByHandleEx(h, FileStorageInfo, &si, sizeof si) && si.LogicalBytesPerSector >= 512) {
        *lbs = si.LogicalBytesPerSector;
        *pbs = si.PhysicalBytesPerSectorForPerformance >= *lbs ? si.PhysicalBytesPerSectorForPerformance : *lbs;
    }
    CloseHandle(h);
    if (*lbs)
        return;
    /* The volume root's sector size. */
    wchar_t *w = nvb__win_wide(path);
    wchar_t root[MAX_PATH + 1];
    DWORD spc, bps, fc, tc;
    if (w && GetVolumePathNameW(w, root, MAX_PATH) && GetDiskFreeSpaceW(root, &spc, &bps, &fc, &tc) && bps >= 512)
        *lbs = *pbs = bps;
    free(w);
}

int nvb__target_info(const char *path, struct nvb__target_info *ti)
{
    memset(ti, 0, sizeof(*ti));
    if (!path || !*path)
        return -ENOENT;
    if (nvb__win_is_device_path(path))
        return device_info(path, ti);
    WIN32_FILE_ATTRIBUTE_DATA fa;
    int rc = path_attrs(path, &fa);
    if (rc < 0)
        return rc;
    ti->lbs = DEFAULT_LBS;
    ti->mem_align = DEFAULT_LBS;
    uint32_t lbs, pbs;
    file_sectors(path, &lbs, &pbs);
    if (lbs) {
        ti->lbs = lbs;
        ti->pbs = pbs;
        ti->mem_align = lbs;
    }
    if (fa.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) {
        ti->kind = NVB__T_DIR;
        return 0;
    }
    ti->kind = NVB__T_FILE;
    ti->size = ((uint64_t)fa.nFileSizeHigh << 32) | fa.nFileSizeLow;
    return 0;
}

/* Asked by opening, which on Windows has no side effects for files,
 * directories and disks (unlike a FIFO or tape on Linux). Opening a
 * directory with FILE_ADD_FILE access is the permission to create the
 * scratch file in it. */
int nvb__target_access(const char *path, int want_write)
{
    int err = 0;
    WIN32_FILE_ATTRIBUTE_DATA fa;
    int rc = path_attrs(path, &fa);
    HANDLE h;
    if (nvb__win_is_device_path(path))
        h = open_w(path, GENERIC_READ | (want_write ? GENERIC_WRITE : 0), OPEN_EXISTING, 0, &err);
    else if (rc < 0)
        return rc;
    else if (fa.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
        h = open_w(path, FILE_ADD_FILE | FILE_TRAVERSE, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, &err);
    else if (want_write && (fa.dwFileAttributes & FILE_ATTRIBUTE_READONLY))
        return -EACCES;
    else
        h = open_w(path, GENERIC_READ | (want_write ? GENERIC_WRITE : 0), OPEN_EXISTING, 0, &err);
    if (h == INVALID_HANDLE_VALUE)
        return err;
    CloseHandle(h);
    return 0;
}

int nvb__target_open(const char *path, int flags)
{
    int err = 0;
    DWORD access = GENERIC_READ | ((flags & NVB__O_WRITE) ? GENERIC_WRITE : 0);
    DWORD fl = FILE_FLAG_OVERLAPPED | ((flags & NVB__O_DIRECT) ? FILE_FLAG_NO_BUFFERING : 0);
    HANDLE h = open_w(path, access, OPEN_EXISTING, fl, &err);
    if (h == INVALID_HANDLE_VALUE)
        return err;
    int fd = nvb__win_fd(h);
    if (fd <= 0) { /* cannot happen: handles are small positive values */
        CloseHandle(h);
        return -EMFILE;
    }
    return fd;
}

void nvb__target_close(int fd)
{
    if (fd > 0)
        CloseHandle(nvb__win_handle(fd));
}

/* Unique enough: O_EXCL's analogue CREATE_NEW catches a collision. */
static uint64_t scratch_random(void)
{
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    uint64_t r = (uint64_t)c.QuadPart * 0x9e3779b97f4a7c15ull;
    r ^= (uint64_t)GetCurrentProcessId() << 32 ^ (uint64_t)GetCurrentThreadId() << 16;
    r ^= (uint64_t)(uintptr_t)&c;
    r ^= r >> 31;
    return r * 0xbf58476d1ce4e5b9ull;
}

/* Real data, not FILE_ATTRIBUTE_TEMPORARY: the memory manager keeps such
 * a file's pages in memory when it can, and the run must reach the disk.
 * A new file (CREATE_NEW: never an existing one), sized. */
static int create_new(const char *path, uint64_t size)
{
    if (size > (uint64_t)INT64_MAX)
        return -EFBIG;
    int err = 0;
    HANDLE h = open_w(path, GENERIC_READ | GENERIC_WRITE, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, &err);
    if (h == INVALID_HANDLE_VALUE)
        return err;
    int rc = 0;
    if (size > 0) {
        /* Sets the end of file; NTFS allocates the clusters (reads past
         * the valid data length return zeros until nvb__fill_file writes). */
        FILE_END_OF_FILE_INFO eof;
        eof.EndOfFile.QuadPart = (LONGLONG)size;
        if (!SetFileInformationByHandle(h, FileEndOfFileInfo, &eof, sizeof eof))
            rc = nvb__win_errno(GetLastError());
    }
    CloseHandle(h);
    if (rc < 0)
        nvb__scratch_remove(path);
    return rc;
}

int nvb__file_create(const char *path, uint64_t size, struct nvb__target_info *ti)
{
    int rc = create_new(path, size);
    if (rc == 0 && ti) { /* no identity on Windows (the fields stay 0, as in nvb__target_info) */
        memset(ti, 0, sizeof *ti);
        ti->kind = NVB__T_FILE;
        ti->size = size;
    }
    return rc;
}

int nvb__scratch_create(const char *dir, uint64_t size, char *path, size_t path_len)
{
    if (size > (uint64_t)INT64_MAX)
        return -EFBIG;
    size_t dl = strlen(dir);
    const char *sep = dl && (dir[dl - 1] == '\\' || dir[dl - 1] == '/') ? "" : "\\";
    int rc = -EEXIST;
    for (int attempt = 0; attempt < 16 && rc == -EEXIST; attempt++) {
        int n = snprintf(path, path_len, "%s%s.nvbench-scratch-%lu-%016llx.tmp", dir, sep,
                         (unsigned long)GetCurrentProcessId(), (unsigned long long)scratch_random());
        if (n < 0 || (size_t)n >= path_len) {
            if (path_len)
                path[0] = '\0';
            return -ENAMETOOLONG;
        }
        rc = create_new(path, size);
    }
    return rc;
}

/* ".nvbench-scratch-<pid>-<16 hex digits>.tmp", exactly; the pid or -1. */
static long scratch_pid(const wchar_t *name)
{
    static const wchar_t pre[] = L".nvbench-scratch-";
    size_t pl = sizeof pre / sizeof pre[0] - 1;
    if (wcsncmp(name, pre, pl))
        return -1;
    const wchar_t *p = name + pl;
    long pid = 0;
    int nd = 0;
    for (; *p >= L'0' && *p <= L'9'; p++, nd++) {
        if (nd >= 10 || (nd == 0 && *p == L'0'))
            return -1;
        pid = pid * 10 + (*p - L'0');
    }
    if (nd == 0 || *p++ != L'-' || pid <= 0)
        return -1;
    for (int i = 0; i < 16; i++, p++)
        if (!((*p >= L'0' && *p <= L'9') || (*p >= L'a' && *p <= L'f')))
            return -1;
    return wcscmp(p, L".tmp") ? -1 : pid;
}

/* Does process pid still run? Unknown counts as yes: only a file whose
 * process is certainly gone is removed. */
static int pid_alive(DWORD pid)
{
    HANDLE p = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
    if (!p)
        return GetLastError() != ERROR_INVALID_PARAMETER; /* no such process */
    DWORD code = 0;
    int alive = !GetExitCodeProcess(p, &code) || code == STILL_ACTIVE;
    CloseHandle(p);
    return alive;
}

/* A scratch file whose process is gone was left by a run killed outright.
 * Files another process still has open cannot be deleted and stay. */
int nvb__scratch_clean_stale(const char *dir, unsigned *removed)
{
    *removed = 0;
    size_t dl = strlen(dir);
    const char *sep = dl && (dir[dl - 1] == '\\' || dir[dl - 1] == '/') ? "" : "\\";
    char pat[4200];
    if (snprintf(pat, sizeof pat, "%s%s.nvbench-scratch-*.tmp", dir, sep) >= (int)sizeof pat)
        return -ENAMETOOLONG;
    wchar_t *w = nvb__win_wide(pat);
    if (!w)
        return -EINVAL;
    WIN32_FIND_DATAW fd;
    HANDLE f = FindFirstFileW(w, &fd);
    free(w);
    if (f == INVALID_HANDLE_VALUE) {
        DWORD e = GetLastError();
        return e == ERROR_FILE_NOT_FOUND ? 0 : nvb__win_errno(e);
    }
    do {
        long pid = scratch_pid(fd.cFileName);
        if (pid < 0 || (DWORD)pid == GetCurrentProcessId() || pid_alive((DWORD)pid))
            continue;
        if (fd.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT))
            continue;
        char name[MAX_PATH * 3], full[4200];
        nvb__win_narrow(fd.cFileName, name, sizeof name);
        if (snprintf(full, sizeof full, "%s%s%s", dir, sep, name) >= (int)sizeof full)
            continue;
        if (nvb__scratch_remove(full) == 0)
            (*removed)++;
    } while (FindNextFileW(f, &fd));
    FindClose(f);
    return 0;
}

int nvb__scratch_remove(const char *path)
{
    wchar_t *w = nvb__win_wide(path);
    if (!w)
        return -EINVAL;
    BOOL ok = DeleteFileW(w);
    DWORD e = GetLastError();
    free(w);
    return ok ? 0 : nvb__win_errno(e);
}

int nvb__file_remove_created(const char *path, const struct nvb__target_info *ti)
{
    (void)ti; /* no identity on Windows (nvb__file_create) */
    return nvb__scratch_remove(path);
}

/* One positional write on an overlapped handle, waited for. */
static int write_at(HANDLE h, HANDLE ev, const char *src, DWORD len, uint64_t off, DWORD *done)
{
    OVERLAPPED ov;
    memset(&ov, 0, sizeof ov);
    ov.Offset = (DWORD)off;
    ov.OffsetHigh = (DWORD)(off >> 32);
    ov.hEvent = ev;
    *done = 0;
    if (!WriteFile(h, src, len, NULL, &ov) && GetLastError() != ERROR_IO_PENDING)
        return nvb__win_errno(GetLastError());
    if (!GetOverlappedResult(h, &ov, done, TRUE))
        return nvb__win_errno(GetLastError());
    return 0;
}

/* Write all of [src, src+len) at off. An unbuffered handle refuses a
 * piece that is not a whole number of sectors (a file size that is not a
 * multiple of the block size leaves a short tail) with
 * ERROR_INVALID_PARAMETER: that piece goes through a buffered handle to
 * the same file (ReOpenFile), as the Linux side drops O_DIRECT. */
static int write_full(HANDLE h, HANDLE ev, HANDLE *buffered, const char *src, size_t len, uint64_t off)
{
    HANDLE use = *buffered ? *buffered : h;
    while (len > 0) {
        DWORD want = len > WRITE_MAX ? WRITE_MAX : (DWORD)len, done = 0;
        int rc = write_at(use, ev, src, want, off, &done);
        if (rc == -EINVAL && !*buffered) {
            HANDLE b = ReOpenFile(h, GENERIC_READ | GENERIC_WRITE, SHARE_ALL, FILE_FLAG_OVERLAPPED);
            if (b == INVALID_HANDLE_VALUE)
                return rc;
            *buffered = use = b;
            continue;
        }
        if (rc < 0)
            return rc;
        if (done == 0)
            return -EIO;
        src += done;
        len -= done;
        off += done;
    }
    return 0;
}

/* The Windows half of nvb__fill_file and nvb__fill_file_cb
 * (platform/fill.c): an event to wait on, and the buffered handle
 * write_full may open. */
struct nvb__fill_sink {
    HANDLE h, ev, buffered;
};

int nvb__fill_sink_open(int fd, struct nvb__fill_sink **s)
{
    struct nvb__fill_sink *k = calloc(1, sizeof *k);
    if (!k)
        return -ENOMEM;
    k->h = nvb__win_handle(fd);
    k->ev = CreateEventW(NULL, TRUE, FALSE, NULL);
    if (!k->ev) {
        int rc = nvb__win_errno(GetLastError());
        free(k);
        return rc;
    }
    *s = k;
    return 0;
}

int nvb__fill_sink_write(struct nvb__fill_sink *s, const char *src, size_t len, uint64_t off)
{
    return write_full(s->h, s->ev, &s->buffered, src, len, off);
}

/* A raw disk may refuse the flush (ERROR_INVALID_FUNCTION): nothing is
 * lost by not doing it. */
int nvb__fill_sink_close(struct nvb__fill_sink *s, int rc)
{
    CloseHandle(s->ev);
    if (s->buffered) {
        if (rc == 0 && !FlushFileBuffers(s->buffered))
            rc = nvb__win_errno(GetLastError());
        CloseHandle(s->buffered);
    }
    if (rc == 0 && !FlushFileBuffers(s->h)) {
        DWORD e = GetLastError();
        if (e != ERROR_INVALID_FUNCTION && e != ERROR_NOT_SUPPORTED && e != ERROR_ACCESS_DENIED)
            rc = nvb__win_errno(e);
    }
    free(s);
    return rc;
}
