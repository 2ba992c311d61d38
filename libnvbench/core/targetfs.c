/*
 * Targets that are not storage: a file under /sys or /proc is a kernel
 * attribute (a "write benchmark" of read_ahead_kb sets it), and a file
 * created under /dev is memory posing as the device it is named like. The
 * file system under the path decides (platform: nvb__fs_kind), not how the
 * path is spelled: a symlink elsewhere, or a devtmpfs mounted elsewhere, is
 * seen through.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/targetfs.h"
#include "util/util.h" /* ESTALE where the C library lacks it */

#ifdef _WIN32
#define IS_SEP(c) ((c) == '/' || (c) == '\\')
#else
#define IS_SEP(c) ((c) == '/')
#endif

/* The nearest directory above path that exists ("." for a bare name, "/"
 * at the top), in dir; its kind, or -errno when none can be examined. */
static int nearest_dir(const char *path, char *dir, size_t len, char *fs, size_t fslen)
{
    if (strlen(path) >= len)
        return -ENAMETOOLONG;
    snprintf(dir, len, "%s", path);
    for (;;) {
        size_t n = strlen(dir);
        while (n > 1 && IS_SEP(dir[n - 1])) /* trailing separators */
            dir[--n] = 0;
        while (n > 0 && !IS_SEP(dir[n - 1]))
            n--;
        if (n == 0) {
            snprintf(dir, len, ".");
        } else {
            while (n > 1 && IS_SEP(dir[n - 1]))
                n--;
            dir[n] = 0;
        }
        int kind = nvb__fs_kind(dir, NULL, NULL, fs, fslen);
        if (kind != -ENOENT && kind != -ENOTDIR)
            return kind;
        if (!strcmp(dir, ".") || !strcmp(dir, "/"))
            return kind;
    }
}

#define FAIL(code, ...) (snprintf(err, errlen, __VA_ARGS__), (code))

int nvb__target_fs_check(const char *path, int found, const struct nvb__target_info *ti, char *err,
                         size_t errlen)
{
    char fs[128] = "";
    if (found == 0) {
        uint64_t id_dev = 0, id_ino = 0;
        int kind = nvb__fs_kind(path, &id_dev, &id_ino, fs, sizeof fs);
        if (kind == -ENOENT || (kind >= 0 && ti->id_ino && id_ino && (id_dev != ti->id_dev || id_ino != ti->id_ino)))
            return FAIL(-ESTALE, "target '%s' changed while it was being examined (it names something else "
                        "now); refusing to run on something that was not checked", path);
        if (kind == NVB__FS_KERNEL)
            return FAIL(-EINVAL, "target '%s' is on %s, not storage: a benchmark would read or set the "
                        "kernel's state there, so nvbench neither reads nor writes it", path, fs);
        if (kind == NVB__FS_DEVICES && ti->kind == NVB__T_FILE)
            return FAIL(-ENODEV, "target '%s' is a regular file on %s, where the kernel puts device nodes: "
                        "it is not the device it is named like, and it is memory, not storage (is the device "
                        "missing? an earlier run may have left the file)", path, fs);
        if (kind == NVB__FS_DEVICES && ti->kind == NVB__T_DIR)
            return FAIL(-EINVAL, "target '%s' is a directory on %s, where the kernel puts device nodes: a "
                        "scratch file there would be memory, not storage", path, fs);
        return 0;
    }
    if (found != -ENOENT)
        return 0;
    char dir[4200];
    int kind = nearest_dir(path, dir, sizeof dir, fs, sizeof fs);
    if (kind == NVB__FS_DEVICES)
        return FAIL(-ENOENT, "target '%s' does not exist: no such device ('%s' is on %s, where the kernel "
                    "puts device nodes; nvbench never creates a file there)", path, dir, fs);
    if (kind == NVB__FS_KERNEL)
        return FAIL(-ENOENT, "target '%s' does not exist, and it cannot be created: '%s' is on %s, not storage",
                    path, dir, fs);
    return 0;
}
