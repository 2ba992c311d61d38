/*
 * Windows platform internals shared by the files of platform/win and the
 * Windows engines (engines/wsync.c, iocp.c, ioring.c). Never included on Linux.
 */
#ifndef NVB_PLATFORM_WIN_H
#define NVB_PLATFORM_WIN_H

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <stddef.h>
#include <stdint.h>

/* The platform interface passes targets as int descriptors. On Windows a
 * descriptor IS the HANDLE value: Windows guarantees that kernel handles
 * carry only 32 significant bits (so 32- and 64-bit processes can share
 * them, "Interprocess Communication Between 32-bit and 64-bit
 * Applications"), and handle values are small positive multiples of 4. So
 * the conversion is exact both ways and needs no table (no global state). */
static inline int nvb__win_fd(HANDLE h) { return (int)(intptr_t)h; }
static inline HANDLE nvb__win_handle(int fd) { return (HANDLE)(intptr_t)fd; }
/* An engine's ctx->wait_ns as a wait in milliseconds (rounded up); 0 is
 * INFINITE. */
static inline DWORD nvb__win_wait_ms(uint64_t ns) { return ns ? (DWORD)((ns + 999999) / 1000000) : INFINITE; }

/* GetLastError() value to a negative errno. */
int nvb__win_errno(DWORD err);

/* UTF-8 to a malloc'd UTF-16 string; NULL when out of memory or invalid. */
wchar_t *nvb__win_wide(const char *utf8);
/* UTF-16 to UTF-8 into out (truncated, NUL-terminated). */
void nvb__win_narrow(const wchar_t *w, char *out, size_t len);

/* Is path a raw device (\\.\PhysicalDriveN, \\.\C:, \\?\Volume{...} with
 * no trailing component)? */
int nvb__win_is_device_path(const char *path);

/* Which storage stack serves the disk(s) behind an open target handle:
 * writes "windows_native" (NVMeDisk.sys), "windows_non_native"
 * (disk.sys over a Storport miniport such as stornvme), "windows_other"
 * (disk.sys over a non-NVMe bus) or "unknown", and in detail what was
 * found or why it could not be found, with the first disk's driver and
 * model for the record. Never fails. (platform/win/stack.c) */
struct nvb__win_stack {
    char stack[32];   /* the verdict above */
    char detail[96];  /* the disk(s) and driver(s) found, or why none */
    char driver[64];  /* the first disk's function driver (service), or "" */
    char driver_version[32]; /* its DriverVersion from the registry, or "" */
    char model[64];   /* the first disk's product id, or "" */
};
void nvb__win_stack_of(HANDLE h, struct nvb__win_stack *out);

/* The storage property descriptors of a disk handle (device, adapter,
 * alignment, seek penalty), each parsed when its query succeeds. Returns
 * how many succeeded; *first_err is the GetLastError() of the first that
 * failed (0 when none did). (platform/win/stack.c) */
struct nvb__win_storage;
int nvb__win_disk_query(HANDLE h, struct nvb__win_storage *s, DWORD *first_err);
/* NVMe Identify Controller of a disk handle into buf (4096 bytes) through
 * the protocol-specific property query. 0 or negative errno. */
int nvb__win_nvme_identify_ctrl(HANDLE h, uint8_t *buf);
/* The disk numbers (\\.\PhysicalDriveN) under an open handle: the disk
 * itself, the disks of a volume, or those of the volume a file is on.
 * Returns the count (at most max) or negative errno. */
int nvb__win_disks_of(HANDLE h, DWORD *nums, int max);
/* The service (driver) of disk number n's device node, via SetupDi:
 * "disk", "nvmedisk", ... 0 or negative errno (-ENOENT: no such disk
 * among the present disk interfaces). */
int nvb__win_disk_service(DWORD n, char *svc, size_t len);
/* The same, and the installed driver's version into ver ("" when it
 * cannot be read; ver may be NULL). */
int nvb__win_disk_driver(DWORD n, char *svc, size_t len, char *ver, size_t verlen);

/* Size in bytes of a disk or volume handle, also for a query handle
 * (access 0). 0 or negative errno. (platform/win/file.c) */
int nvb__win_device_size(HANDLE h, uint64_t *size);

/* The kind and identity of an open handle, as nvb__target_info records
 * them and the run's hold checks them (devices/win/hold.c). device: the
 * handle was opened by a device name (nvb__win_is_device_path), so only a
 * device's identity is asked (a volume handle may answer file queries too).
 * A file or directory: kind NVB__T_FILE or NVB__T_DIR, size, id_dev its volume's
 * serial number, id_ino and id_rdev the low and high 64 bits of its file
 * id (FileIdInfo: 128 bits on ReFS; before Windows 8 the 32-bit serial and
 * the 64-bit file index); a disk or partition: kind NVB__T_BLOCK, id_rdev
 * NVB__WIN_DEVNUM of IOCTL_STORAGE_GET_DEVICE_NUMBER where Windows gives
 * one (0 for a volume: it may span disks). 0 (always, with device) or
 * -errno. Touches only the
 * kind, size and identity fields of *ti.
 * (platform/win/file.c) */
struct nvb__target_info;
int nvb__win_identity(HANDLE h, int device, struct nvb__target_info *ti);
/* A device's identity in one number: its type (FILE_DEVICE_DISK: never 0),
 * number (N of \\.\PhysicalDriveN) and partition (0: the whole disk). */
#define NVB__WIN_DEVNUM(type, num, part) \
    (((uint64_t)((type) & 0xffffu) << 48) | ((uint64_t)(num) << 16) | ((uint64_t)(part) & 0xffffu))
/* A job's own handle to the file or device `held` is open on, through that
 * handle (ReOpenFile), never through a name: flags NVB__O_WRITE,
 * NVB__O_DIRECT as for nvb__target_open. fd or -errno. (platform/win/file.c) */
int nvb__win_reopen(HANDLE held, int flags);

/* Running under wine (ntdll exports wine_get_version)? */
int nvb__win_is_wine(void);

#endif
