/*
 * Devices on Windows: the physical disks (\\.\PhysicalDriveN) with what
 * the storage property queries, NVMe Identify and the disk's driver say,
 * and the destructive-write guard for raw disk and volume targets.
 *
 * The public functions keep their Linux signatures; sysfs_root has no
 * meaning here and must be NULL. A disk's JSON object is flat except for
 * "nvme" and "volumes" (see docs/windows.md); nvb_device_get answers the
 * top-level keys.
 */
#include "util/json.h"
#include "util/util.h"
#include "devices/facts.h"
#include "nvbench.h"
#include "platform/platform.h"
#include "platform/win/win.h"
#include "platform/winfmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <winioctl.h>

#define MAX_DISKS 128
#define MAX_VOLS 16

struct wvol {
    char name[64];              /* \\?\Volume{GUID}\ */
    char mounts[160];           /* "C:\", comma-separated, "" when not mounted */
};

struct nvb_device {
    int      number;
    char     name[32], path[48];
    uint64_t size;
    int      have_size;
    struct nvb__win_storage st;
    DWORD    query_err;         /* first property query that failed, 0 none */
    int      have_ctrl;
    struct nvb__win_nvme_ctrl ctrl;
    char     driver[64];
    char     driver_why[64];
    unsigned npart;             /* partitions with a type (layout), -1 unknown */
    int      have_layout;
    unsigned nvol;
    struct wvol vol[MAX_VOLS];
};

/* Volumes with a part on disk n, and where they are mounted. */
static void volumes_of(struct nvb_device *d)
{
    wchar_t vname[MAX_PATH];
    HANDLE f = FindFirstVolumeW(vname, MAX_PATH);
    if (f == INVALID_HANDLE_VALUE)
        return;
    do {
        size_t l = wcslen(vname);
        if (l < 2 || vname[l - 1] != L'\\')
            continue;
        vname[l - 1] = 0; /* the device, not its root directory */
        HANDLE v = CreateFileW(vname, 0, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
        vname[l - 1] = L'\\';
        if (v == INVALID_HANDLE_VALUE)
            continue;
        DWORD disks[32];
        int n = nvb__win_disks_of(v, disks, 32);
        CloseHandle(v);
        int here = 0;
        for (int i = 0; i < n; i++)
            here |= disks[i] == (DWORD)d->number;
        if (!here || d->nvol >= MAX_VOLS)
            continue;
        struct wvol *w = &d->vol[d->nvol++];
        nvb__win_narrow(vname, w->name, sizeof w->name);
        wchar_t paths[512];
        DWORD got = 0;
        w->mounts[0] = 0;
        if (GetVolumePathNamesForVolumeNameW(vname, paths, 512, &got)) {
            size_t used = 0;
            for (wchar_t *p = paths; *p && used < sizeof w->mounts; p += wcslen(p) + 1) {
                char one[64];
                nvb__win_narrow(p, one, sizeof one);
                int k = snprintf(w->mounts + used, sizeof w->mounts - used, "%s%s", used ? "," : "", one);
                if (k > 0)
                    used += (size_t)k;
            }
        }
    } while (FindNextVolumeW(f, vname, MAX_PATH));
    FindVolumeClose(f);
}

static int disk_read(int n, struct nvb_device *d, int want_volumes)
{
    memset(d, 0, sizeof *d);
    d->number = n;
    snprintf(d->name, sizeof d->name, "PhysicalDrive%d", n);
    snprintf(d->path, sizeof d->path, "\\\\.\\PhysicalDrive%d", n);
    wchar_t wp[48];
    swprintf(wp, 48, L"\\\\.\\PhysicalDrive%d", n);
    /* Access 0: queries only, no administrator rights needed. */
    HANDLE h = CreateFileW(wp, 0, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return nvb__win_errno(GetLastError());
    DWORD got = 0;
    d->have_size = nvb__win_device_size(h, &d->size) == 0;
    nvb__win_disk_query(h, &d->st, &d->query_err);
    if (d->st.bus_type == NVB__WIN_BUS_NVME || d->st.adapter_bus_type == NVB__WIN_BUS_NVME) {
        uint8_t *id = malloc(4096);
        if (id && nvb__win_nvme_identify_ctrl(h, id) == 0 && nvb__win_parse_nvme_ctrl(id, 4096, &d->ctrl) == 0)
            d->have_ctrl = 1;
        free(id);
    }
    /* Partitions: a layout of 4 KiB holds 30+ entries. */
    size_t ll = 4096;
    DRIVE_LAYOUT_INFORMATION_EX *lay = malloc(ll);
    if (lay && DeviceIoControl(h, IOCTL_DISK_GET_DRIVE_LAYOUT_EX, NULL, 0, lay, (DWORD)ll, &got, NULL)) {
        d->have_layout = 1;
        for (DWORD i = 0; i < lay->PartitionCount; i++)
            if (lay->PartitionEntry[i].PartitionLength.QuadPart > 0)
                d->npart++;
    }
    free(lay);
    CloseHandle(h);
    int rc = nvb__win_disk_service((DWORD)n, d->driver, sizeof d->driver);
    if (rc < 0)
        snprintf(d->driver_why, sizeof d->driver_why, "%s",
                 rc == -ENOENT ? "not among the disk interfaces SetupDi lists" : nvb_strerror(rc));
    if (want_volumes)
        volumes_of(d);
    return 0;
}

static void disk_json(const struct nvb_device *d, struct nvb__buf *b)
{
    const struct nvb__win_storage *s = &d->st;
    nvb__buf_puts(b, "{\"name\":");
    nvb__json_write_str(b, d->name);
    nvb__buf_puts(b, ",\"path\":");
    nvb__json_write_str(b, d->path);
    nvb__buf_puts(b, ",\"kind\":");
    nvb__json_write_str(b, s->have_device ? nvb__win_bus_name(s->bus_type) : "unknown");
    if (d->have_size)
        nvb__buf_printf(b, ",\"size\":%llu", (unsigned long long)d->size);
    else
        nvb__buf_puts(b, ",\"size\":null");
    if (s->have_alignment)
        nvb__buf_printf(b, ",\"lbs\":%u,\"pbs\":%u", s->lbs, s->pbs);
    else
        nvb__buf_puts(b, ",\"lbs\":null,\"pbs\":null");
    nvb__buf_puts(b, ",\"vendor\":");
    nvb__json_write_str(b, s->vendor);
    nvb__buf_puts(b, ",\"model\":");
    nvb__json_write_str(b, d->have_ctrl && d->ctrl.model[0] ? d->ctrl.model : s->product);
    nvb__buf_puts(b, ",\"serial\":");
    nvb__json_write_str(b, d->have_ctrl && d->ctrl.serial[0] ? d->ctrl.serial : s->serial);
    nvb__buf_puts(b, ",\"firmware_rev\":");
    nvb__json_write_str(b, d->have_ctrl && d->ctrl.firmware[0] ? d->ctrl.firmware : s->revision);
    nvb__buf_puts(b, ",\"bus\":");
    nvb__json_write_str(b, s->have_device ? nvb__win_bus_name(s->bus_type) : "unknown");
    if (s->seek_penalty >= 0)
        nvb__buf_printf(b, ",\"rotational\":%d", s->seek_penalty);
    else
        nvb__buf_puts(b, ",\"rotational\":null");
    if (s->have_adapter)
        nvb__buf_printf(b, ",\"max_transfer\":%u,\"mem_align\":%u", s->max_transfer, s->alignment_mask + 1);
    else
        nvb__buf_puts(b, ",\"max_transfer\":null,\"mem_align\":null");
    nvb__buf_puts(b, ",\"removable\":");
    nvb__buf_puts(b, s->have_device ? (s->removable ? "true" : "false") : "null");
    nvb__buf_puts(b, ",\"driver\":");
    if (d->driver[0])
        nvb__json_write_str(b, d->driver);
    else
        nvb__buf_puts(b, "null");
    nvb__buf_puts(b, ",\"stack\":");
    nvb__json_write_str(b, nvb__win_stack_name(d->driver));
    nvb__buf_puts(b, ",\"why\":");
    char why[192] = "";
    if (d->query_err)
        snprintf(why, sizeof why, "storage property query failed (Windows error %lu)", (unsigned long)d->query_err);
    if (d->driver_why[0])
        snprintf(why + strlen(why), sizeof why - strlen(why), "%sdriver: %s", why[0] ? "; " : "", d->driver_why);
    nvb__json_write_str(b, why);
    if (d->have_layout)
        nvb__buf_printf(b, ",\"partitions\":%u", d->npart);
    else
        nvb__buf_puts(b, ",\"partitions\":null");
    nvb__buf_puts(b, ",\"nvme\":");
    if (d->have_ctrl) {
        nvb__buf_printf(b, "{\"vid\":%u,\"model\":", d->ctrl.vid);
        nvb__json_write_str(b, d->ctrl.model);
        nvb__buf_puts(b, ",\"serial\":");
        nvb__json_write_str(b, d->ctrl.serial);
        nvb__buf_puts(b, ",\"firmware_rev\":");
        nvb__json_write_str(b, d->ctrl.firmware);
        nvb__buf_printf(b, ",\"namespaces\":%u}", d->ctrl.nn);
    } else {
        nvb__buf_puts(b, "null");
    }
    nvb__buf_puts(b, ",\"volumes\":[");
    for (unsigned i = 0; i < d->nvol; i++) {
        nvb__buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
        nvb__json_write_str(b, d->vol[i].name);
        nvb__buf_puts(b, ",\"mount_points\":");
        nvb__json_write_str(b, d->vol[i].mounts);
        nvb__buf_puts(b, "}");
    }
    nvb__buf_puts(b, "]}");
}

NVB_API int nvb_device_enumerate(const char *sysfs_root, nvb_device_fn fn, void *arg)
{
    if (!fn)
        return -EINVAL;
    if (sysfs_root && *sysfs_root)
        return -ENOENT; /* recorded sysfs trees are a Linux notion */
    struct nvb_device *d = malloc(sizeof *d);
    if (!d)
        return -ENOMEM;
    int count = 0, rc = 0, misses = 0;
    /* Disk numbers are dense from 0 but may have holes after a removal:
     * stop after 16 missing numbers in a row. */
    for (int n = 0; n < MAX_DISKS && misses < 16; n++) {
        if (disk_read(n, d, 1) < 0) {
            misses++;
            continue;
        }
        misses = 0;
        count++;
        int r = fn(d, arg);
        if (r) {
            rc = r;
            break;
        }
    }
    free(d);
    return rc ? rc : count;
}

static int add_json(const struct nvb_device *d, void *arg)
{
    struct nvb__buf *b = arg;
    if (b->len > 1)
        nvb__buf_puts(b, ",");
    disk_json(d, b);
    return 0;
}

NVB_API int nvb_devices_json(const char *sysfs_root, char **json)
{
    if (!json)
        return -EINVAL;
    struct nvb__buf b = { 0 };
    nvb__buf_puts(&b, "[");
    int rc = nvb_device_enumerate(sysfs_root, add_json, &b);
    if (rc < 0) {
        free(b.s);
        return rc;
    }
    nvb__buf_puts(&b, "]");
    return nvb__buf_take(&b, json);
}

/* The disk number a \\.\PhysicalDriveN path names, else -1. */
static int drive_number(const char *path)
{
    static const char pfx[] = "\\\\.\\physicaldrive";
    size_t n = sizeof pfx - 1;
    if (strlen(path) <= n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char c = path[i];
        if (c == '/')
            c = '\\';
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != pfx[i])
            return -1;
    }
    char *end;
    long v = strtol(path + n, &end, 10);
    return *end || v < 0 || v >= 100000 ? -1 : (int)v;
}

NVB_API int nvb_device_json(const char *path, char **json)
{
    if (!json || !path || !*path)
        return -EINVAL;
    int n = drive_number(path);
    if (n < 0)
        return -ENODEV;
    struct nvb_device *d = malloc(sizeof *d);
    if (!d)
        return -ENOMEM;
    int rc = disk_read(n, d, 1);
    if (rc == 0) {
        struct nvb__buf b = { 0 };
        disk_json(d, &b);
        rc = nvb__buf_take(&b, json);
    }
    free(d);
    return rc;
}

/* A top-level field: its JSON text from the disk's object, strings
 * unquoted. Objects/arrays come back as JSON. */
NVB_API int nvb_device_get(const struct nvb_device *dev, const char *key, char *buf, size_t len)
{
    if (!dev || !key || !buf || !len)
        return -EINVAL;
    struct nvb__buf b = { 0 };
    disk_json(dev, &b);
    if (b.oom || !b.s) {
        free(b.s);
        return -ENOMEM;
    }
    char pat[80];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    /* Keys are unique and never appear inside the nested objects at the top level's
     * depth; search at depth 1 only. */
    int depth = 0, instr = 0, rc = -ENOENT;
    size_t pl = strlen(pat);
    for (size_t i = 0; b.s[i]; i++) {
        char c = b.s[i];
        if (instr) {
            if (c == '\\')
                i++;
            else if (c == '"')
                instr = 0;
            continue;
        }
        if (depth == 1 && c == '"' && !strncmp(b.s + i, pat, pl)) {
            const char *v = b.s + i + pl, *e = v;
            int d2 = 0, s2 = 0;
            for (; *e; e++) {
                if (s2) {
                    if (*e == '\\')
                        e++;
                    else if (*e == '"')
                        s2 = 0;
                    continue;
                }
                if (*e == '"')
                    s2 = 1;
                else if (*e == '{' || *e == '[')
                    d2++;
                else if (*e == '}' || *e == ']') {
                    if (d2 == 0)
                        break;
                    d2--;
                } else if (*e == ',' && d2 == 0)
                    break;
            }
            size_t n = (size_t)(e - v);
            if (n == 4 && !strncmp(v, "null", 4)) {
                rc = -ENODATA;
            } else {
                if (n >= 2 && v[0] == '"') { /* unquote (escapes kept: names carry none in practice) */
                    v++;
                    n -= 2;
                }
                if (n + 1 > len) {
                    rc = -ENOSPC;
                } else {
                    memcpy(buf, v, n);
                    buf[n] = 0;
                    rc = (int)n;
                }
            }
            break;
        }
        if (c == '"')
            instr = 1;
        else if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']')
            depth--;
    }
    free(b.s);
    return rc;
}

/* ---- the destructive-write guard and a target's device facts ---- */

int nvb__device_check(const char *path, int writes, int allow, const char *what, struct nvb__tdev *facts,
                      char *msg, size_t len)
{
    memset(facts, 0, sizeof *facts);
    msg[0] = 0;
    if (!nvb__win_is_device_path(path))
        return 0;
    int n = drive_number(path);
    if (n < 0) {
        /* A volume (\\.\C:, \\?\Volume{...}): a file system lives on it. */
        if (writes) {
            snprintf(msg, len, "target '%s' is a volume: writing to it (rw=%s) would corrupt its file system, and "
                     "no option overrides this (not even allow_destructive=1); use a file or directory on it",
                     path, what);
            return -EBUSY;
        }
        return 0;
    }
    struct nvb_device *d = malloc(sizeof *d);
    if (!d)
        return -ENOMEM;
    int rc = disk_read(n, d, writes);
    if (rc < 0) {
        free(d);
        return 0; /* opening it for I/O will say why */
    }
    facts->valid = 1;
    snprintf(facts->name, sizeof facts->name, "%s", d->name);
    snprintf(facts->kind, sizeof facts->kind, "%s", d->st.have_device ? nvb__win_bus_name(d->st.bus_type) : "disk");
    snprintf(facts->model, sizeof facts->model, "%s", d->have_ctrl ? d->ctrl.model : d->st.product);
    snprintf(facts->serial, sizeof facts->serial, "%s", d->have_ctrl ? d->ctrl.serial : d->st.serial);
    facts->lbs = d->st.lbs;
    facts->pbs = d->st.pbs;
    snprintf(facts->iu_source, sizeof facts->iu_source, "unknown");
    if (writes) {
        char mounted[512] = "";
        size_t used = 0;
        for (unsigned i = 0; i < d->nvol; i++)
            if (d->vol[i].mounts[0] && used < sizeof mounted) {
                int k = snprintf(mounted + used, sizeof mounted - used, "%s%s", used ? ", " : "", d->vol[i].mounts);
                if (k > 0)
                    used += (size_t)k;
            }
        if (mounted[0]) {
            snprintf(msg, len, "target '%s' is in use: it holds mounted volumes (%s); writing to it would corrupt "
                     "that, and no option overrides this (not even allow_destructive=1)", path, mounted);
            rc = -EBUSY;
        } else if (!allow) {
            char des[96];
            if (d->have_layout && d->npart)
                snprintf(des, sizeof des, "its %u partition%s", d->npart, d->npart == 1 ? "" : "s");
            else
                snprintf(des, sizeof des, "whatever it holds%s", d->have_layout ? " (no partitions)" : "");
            snprintf(msg, len, "target '%s' is a block device: writing to it (rw=%s) destroys %s; "
                     "set allow_destructive=1 to permit it", path, what, des);
            rc = -EPERM;
        }
    }
    free(d);
    return rc;
}

/* A regular-file target of a run that writes: Windows itself refuses to
 * open the files it uses that way (the paging file, a mounted VHD) with a
 * sharing violation, which the hold reports (devices/win/hold.c). */
int nvb__file_check(const char *path, char *msg, size_t len)
{
    (void)path;
    (void)len;
    msg[0] = 0;
    return 0;
}

/* Windows stacks no loop devices and has no partitions nvbench names: a
 * target lies on itself only. */
void nvb__stack_layers(int file, uint64_t dev, uint64_t ino, uint64_t rdev, const char *name,
                       struct nvb__layers *out)
{
    memset(out, 0, sizeof *out);
    out->n = 1;
    out->l[0].file = file;
    out->l[0].dev = dev;
    out->l[0].ino = ino;
    out->l[0].rdev = rdev;
    snprintf(out->l[0].name, sizeof out->l[0].name, "%s", name);
}
