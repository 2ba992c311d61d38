/*
 * The file system a target is on, where that file system is no storage:
 * a window onto the kernel (sysfs, procfs, ...), or the directory where the
 * kernel puts device nodes (devtmpfs). statfs(2) tells the first by its
 * magic number; devtmpfs answers with tmpfs's number, so the mount table
 * tells it by the file system's device number.
 */
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Older <linux/magic.h> lack some of these; the numbers are the kernel's ABI. */
#ifndef SYSFS_MAGIC
#define SYSFS_MAGIC 0x62656572
#endif
#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif
#ifndef DEBUGFS_MAGIC
#define DEBUGFS_MAGIC 0x64626720
#endif
#ifndef CONFIGFS_MAGIC
#define CONFIGFS_MAGIC 0x62656570
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif
#ifndef SECURITYFS_MAGIC
#define SECURITYFS_MAGIC 0x73636673
#endif
#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif
#ifndef PSTOREFS_MAGIC
#define PSTOREFS_MAGIC 0x6165676C
#endif
#ifndef EFIVARFS_MAGIC
#define EFIVARFS_MAGIC 0xde5e81e4
#endif
#ifndef FUSE_CTL_SUPER_MAGIC
#define FUSE_CTL_SUPER_MAGIC 0x65735543
#endif
#ifndef HUGETLBFS_MAGIC
#define HUGETLBFS_MAGIC 0x958458f6
#endif
#ifndef MQUEUE_MAGIC
#define MQUEUE_MAGIC 0x19800202
#endif
#ifndef SELINUX_MAGIC
#define SELINUX_MAGIC 0xf97cff8c
#endif
#ifndef SMACK_MAGIC
#define SMACK_MAGIC 0x43415d53
#endif
#ifndef DEVPTS_SUPER_MAGIC
#define DEVPTS_SUPER_MAGIC 0x1cd1
#endif
#ifndef BINFMTFS_MAGIC
#define BINFMTFS_MAGIC 0x42494e4d
#endif
#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif
#ifndef RDTGROUP_SUPER_MAGIC
#define RDTGROUP_SUPER_MAGIC 0x7655821
#endif
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* Kernel interfaces: a file there is an attribute, a control or a view of
 * memory, not storage, and a "benchmark" of it reads or sets the kernel's
 * state (hugetlbfs is memory, and only mmap writes it). */
static const struct {
    unsigned long magic;
    const char *name;
} not_storage[] = {
    {SYSFS_MAGIC, "sysfs"},
    {PROC_SUPER_MAGIC, "procfs"},
    {DEBUGFS_MAGIC, "debugfs"},
    {CONFIGFS_MAGIC, "configfs"},
    {CGROUP_SUPER_MAGIC, "cgroup"},
    {CGROUP2_SUPER_MAGIC, "cgroup2"},
    {TRACEFS_MAGIC, "tracefs"},
    {SECURITYFS_MAGIC, "securityfs"},
    {BPF_FS_MAGIC, "bpf"},
    {PSTOREFS_MAGIC, "pstore"},
    {EFIVARFS_MAGIC, "efivarfs"},
    {FUSE_CTL_SUPER_MAGIC, "fusectl"},
    {HUGETLBFS_MAGIC, "hugetlbfs"},
    {MQUEUE_MAGIC, "mqueue"},
    {SELINUX_MAGIC, "selinuxfs"},
    {SMACK_MAGIC, "smackfs"},
    {DEVPTS_SUPER_MAGIC, "devpts"},
    {BINFMTFS_MAGIC, "binfmt_misc"},
    {NSFS_MAGIC, "nsfs"},
    {RDTGROUP_SUPER_MAGIC, "resctrl"},
};

/* Is the file system with device number dev devtmpfs, or the tmpfs a
 * container mounts on /dev for its device nodes? */
static int device_directory(dev_t dev, char *name, size_t len)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return 0;
    char line[4096], mm[32];
    snprintf(mm, sizeof mm, "%u:%u", major(dev), minor(dev));
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        /* id parent maj:min root point options [optional...] - fstype source super */
        char fmm[32], point[1024];
        if (sscanf(line, "%*s %*s %31s %*s %1023s", fmm, point) != 2 || strcmp(fmm, mm))
            continue;
        const char *dash = strstr(line, " - ");
        char fstype[64];
        if (!dash || sscanf(dash + 3, "%63s", fstype) != 1)
            continue;
        if (!strcmp(fstype, "devtmpfs")) {
            snprintf(name, len, "devtmpfs");
            found = 1;
        } else if (!strcmp(point, "/dev")) {
            snprintf(name, len, "the %s mounted on /dev", fstype);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

int nvb__fs_kind(const char *path, uint64_t *id_dev, uint64_t *id_ino, char *name, size_t len)
{
    /* One resolution of the name for both answers (O_PATH opens nothing:
     * no FIFO blocks, no device is touched), so that the file system is
     * the one of the file the caller examined, or the identity says not. */
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct statfs sf;
    struct stat st;
    if (fstatfs(fd, &sf) != 0 || fstat(fd, &st) != 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    close(fd);
    if (id_dev)
        *id_dev = (uint64_t)st.st_dev;
    if (id_ino)
        *id_ino = (uint64_t)st.st_ino;
    for (size_t i = 0; i < sizeof not_storage / sizeof not_storage[0]; i++)
        if ((unsigned long)sf.f_type == not_storage[i].magic) {
            snprintf(name, len, "%s", not_storage[i].name);
            return NVB__FS_KERNEL;
        }
    if ((unsigned long)sf.f_type == TMPFS_MAGIC && device_directory(st.st_dev, name, len))
        return NVB__FS_DEVICES;
    return NVB__FS_STORAGE;
}
