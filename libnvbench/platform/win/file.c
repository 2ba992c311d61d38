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
#include "util/util.h" /* ESTALE where the C library lacks it */

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
        /* its identity where Windows gives one (a disk, a partition) */
        struct nvb__target_info id;
        if (nvb__win_identity(h, 1, &id) == 0)
            ti->id_rdev = id.id_rdev;
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
 * file lives on, as unbuffered I/O on it must respect them; else the
 * volume root's sector size; else 0. */
static void file_sectors(HANDLE h, const char *path, uint32_t *lbs, uint32_t *pbs)
{
    *lbs = *pbs = 0;
    FILE_STORAGE_INFO si;
    memset(&si, 0, sizeof si);
    if (GetFileInformationByHandleEx(h, FileStorageInfo, &si, sizeof si) && si.LogicalBytesPerSector >= 512) {
        *lbs = si.LogicalBytesPerSector;
        *pbs = si.PhysicalBytesPerSectorForPerformance >= *lbs ? si.PhysicalBytesPerSectorForPerformance : *lbs;
        return;
    }
    wchar_t *w = nvb__win_wide(path);
    wchar_t root[MAX_PATH + 1];
    DWORD spc, bps, fc, tc;
    if (w && GetVolumePathNameW(w, root, MAX_PATH) && GetDiskFreeSpaceW(root, &spc, &bps, &fc, &tc) && bps >= 512)
        *lbs = *pbs = bps;
    free(w);
}

int nvb__win_identity(HANDLE h, int device, struct nvb__target_info *ti)
{
    ti->id_dev = ti->id_ino = ti->id_rdev = 0;
    BY_HANDLE_FILE_INFORMATION bh;
    if (!device && GetFileInformationByHandle(h, &bh)) {
        ti->kind = (bh.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? NVB__T_DIR : NVB__T_FILE;
        ti->size = ((uint64_t)bh.nFileSizeHigh << 32) | bh.nFileSizeLow;
        FILE_ID_INFO fi;
        if (GetFileInformationByHandleEx(h, FileIdInfo, &fi, sizeof fi)) {
            uint64_t lo, hi;
            memcpy(&lo, fi.FileId.Identifier, 8);
            memcpy(&hi, fi.FileId.Identifier + 8, 8);
            ti->id_dev = (uint64_t)fi.VolumeSerialNumber;
            ti->id_ino = lo;
            ti->id_rdev = hi;
        } else { /* before Windows 8 / Server 2012: a 32-bit serial, a 64-bit index */
            ti->id_dev = bh.dwVolumeSerialNumber;
            ti->id_ino = ((uint64_t)bh.nFileIndexHigh << 32) | bh.nFileIndexLow;
        }
        return 0;
    }
    DWORD err = GetLastError();
    if (!device && GetFileType(h) != FILE_TYPE_DISK)
        return nvb__win_errno(err);
    /* a disk, a partition or a volume (a device name is one whatever its
     * handle answers): a number where Windows gives one, not for a volume
     * (it may span disks) */
    STORAGE_DEVICE_NUMBER sdn;
    DWORD got = 0;
    ti->kind = NVB__T_BLOCK;
    if (DeviceIoControl(h, IOCTL_STORAGE_GET_DEVICE_NUMBER, NULL, 0, &sdn, sizeof sdn, &got, NULL))
        ti->id_rdev = NVB__WIN_DEVNUM(sdn.DeviceType, sdn.DeviceNumber, sdn.PartitionNumber);
    return 0;
}

int nvb__target_info(const char *path, struct nvb__target_info *ti)
{
    memset(ti, 0, sizeof(*ti));
    if (!path || !*path)
        return -ENOENT;
    if (nvb__win_is_device_path(path))
        return device_info(path, ti);
    /* One handle (access 0: no sharing conflict, no rights needed beyond
     * seeing it) for the kind, size and identity of one and the same file,
     * as the run's hold will find it again (devices/win/hold.c). */
    int err = 0;
    HANDLE h = open_w(path, 0, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, &err);
    if (h == INVALID_HANDLE_VALUE)
        return err;
    int rc = nvb__win_identity(h, 0, ti);
    uint32_t lbs = 0, pbs = 0;
    if (rc == 0)
        file_sectors(h, path, &lbs, &pbs);
    CloseHandle(h);
    if (rc < 0)
        return rc;
    if (ti->kind != NVB__T_FILE && ti->kind != NVB__T_DIR) {
        /* A name without the device prefix that opens a disk (a link to
         * one): the guard judges device names only, so planning refuses
         * it as neither a file, a device name nor a directory. */
        ti->kind = NVB__T_OTHER;
        return 0;
    }
    ti->lbs = lbs ? lbs : DEFAULT_LBS;
    ti->pbs = lbs ? pbs : 0;
    ti->mem_align = ti->lbs;
    if (ti->kind == NVB__T_DIR)
        ti->size = 0;
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

/* What a job's handle asks for (NVB__O_WRITE, NVB__O_DIRECT). */
static DWORD open_access(int flags) { return GENERIC_READ | ((flags & NVB__O_WRITE) ? GENERIC_WRITE : 0); }
static DWORD open_flags(int flags)
{
    return FILE_FLAG_OVERLAPPED | ((flags & NVB__O_DIRECT) ? FILE_FLAG_NO_BUFFERING : 0);
}

static int handle_fd(HANDLE h)
{
    int fd = nvb__win_fd(h);
    if (fd <= 0) { /* cannot happen: handles are small positive values */
        CloseHandle(h);
        return -EMFILE;
    }
    return fd;
}

int nvb__target_open(const char *path, int flags)
{
    int err = 0;
    HANDLE h = open_w(path, open_access(flags), OPEN_EXISTING, open_flags(flags), &err);
    return h == INVALID_HANDLE_VALUE ? err : handle_fd(h);
}

int nvb__win_reopen(HANDLE held, int flags)
{
    HANDLE h = ReOpenFile(held, open_access(flags), SHARE_ALL, open_flags(flags));
    return h == INVALID_HANDLE_VALUE ? nvb__win_errno(GetLastError()) : handle_fd(h);
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
static int create_new(const char *path, uint64_t size, struct nvb__target_info *ti)
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
    if (rc == 0 && ti) { /* the identity of what was created, not of what the name finds later */
        memset(ti, 0, sizeof *ti);
        rc = nvb__win_identity(h, 0, ti);
        ti->kind = NVB__T_FILE;
        ti->size = size;
    }
    CloseHandle(h);
    if (rc < 0)
        nvb__scratch_remove(path);
    return rc;
}

int nvb__file_create(const char *path, uint64_t size, struct nvb__target_info *ti)
{
    return create_new(path, size, ti);
}

/* A reparse point is not followed by nvb__file_create (CREATE_NEW fails
 * on it): what it points to is not read here. */
int nvb__symlink_target(const char *path, char *buf, size_t len)
{
    (void)path;
    if (len)
        buf[0] = 0;
    return -EINVAL;
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
        rc = create_new(path, size, NULL);
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
    if (!ti->id_dev && !ti->id_ino && !ti->id_rdev) /* identity unknown: the name is all there is */
        return nvb__scratch_remove(path);
    /* Open the name itself (a link is not followed), check it is the file
     * the run made, and delete it through that very handle: whatever was
     * renamed over the name meanwhile is someone else's and stays. */
    int err = 0;
    HANDLE h = open_w(path, DELETE, OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, &err);
    if (h == INVALID_HANDLE_VALUE)
        return err;
    struct nvb__target_info now;
    int rc = nvb__win_identity(h, 0, &now);
    if (rc == 0 && (now.kind != NVB__T_FILE || now.id_dev != ti->id_dev || now.id_ino != ti->id_ino ||
                    now.id_rdev != ti->id_rdev))
        rc = -ESTALE;
    if (rc == 0) {
        FILE_DISPOSITION_INFO del = {TRUE};
        if (!SetFileInformationByHandle(h, FileDispositionInfo, &del, sizeof del))
            rc = nvb__win_errno(GetLastError());
    }
    CloseHandle(h);
    return rc;
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

/* Job files: a regular file read whole. A named pipe or a device path
 * (\\.\...) is refused before it is opened. */
int nvb__file_read_regular(const char *path, size_t max, char **buf, size_t *len, const char **what)
{
    *buf = NULL;
    *len = 0;
    *what = NULL;
    if (nvb__win_is_device_path(path)) {
        *what = "a device";
        return -EINVAL;
    }
    DWORD attr = GetFileAttributesA(path);
    if (attr == INVALID_FILE_ATTRIBUTES)
        return -ENOENT;
    if (attr & FILE_ATTRIBUTE_DIRECTORY) {
        *what = "a directory";
        return -EINVAL;
    }
    HANDLE h = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return -EACCES;
    int rc = 0;
    char *b = NULL;
    BY_HANDLE_FILE_INFORMATION fi;
    uint64_t size = 0;
    if (GetFileType(h) != FILE_TYPE_DISK || !GetFileInformationByHandle(h, &fi) ||
        (fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
        *what = "not a regular file";
        rc = -EINVAL;
    } else if ((size = ((uint64_t)fi.nFileSizeHigh << 32) | fi.nFileSizeLow) > max) {
        rc = -EFBIG;
    } else if (!(b = malloc((size_t)size + 1))) {
        rc = -ENOMEM;
    } else {
        DWORD got = 0;
        size_t n = 0, want = (size_t)size;
        while (n < want && ReadFile(h, b + n, (DWORD)(want - n > 1u << 30 ? 1u << 30 : want - n), &got, NULL) && got)
            n += got;
        if (n < want) {
            rc = -EIO;
        } else {
            b[n] = 0;
            *buf = b;
            *len = n;
            b = NULL;
        }
    }
    free(b);
    CloseHandle(h);
    return rc;
}

/* A Windows volume holds no kernel interface files and no device nodes:
 * every path is storage as far as a target goes (\\.\ names are devices
 * themselves, never created). */
int nvb__fs_kind(const char *path, uint64_t *id_dev, uint64_t *id_ino, char *name, size_t len)
{
    (void)path;
    if (id_dev)
        *id_dev = 0;
    if (id_ino)
        *id_ino = 0;
    if (len)
        name[0] = 0;
    return NVB__FS_STORAGE;
}
