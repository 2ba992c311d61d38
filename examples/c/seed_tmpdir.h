/*
 * seed_tmpdir: the temporary directory seed_matrix lays its one scratch file
 * out in, named as `nvbench matrix` names its own (bindings/python/nvbench/
 * _scratch.py): nvbench-matrix-<pid>-<8 of [a-z0-9]> under $TMPDIR or /tmp.
 * A seed_matrix killed outright (SIGKILL, the OOM killer) leaves it, with a
 * scratch file of --size bytes; the pid in the name lets the next matrix,
 * this program's or nvbench's, tell a dead owner's directory from a live
 * one's and remove it. Included by seed_matrix.c only; POSIX only (Windows
 * keeps its own name under %TEMP%).
 */
#ifndef SEED_TMPDIR_H
#define SEED_TMPDIR_H

#ifndef _WIN32
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEED_TMP_PREFIX "nvbench-matrix-"

static const char *seed_tmp_parent(void)
{
    const char *t = getenv("TMPDIR");
    return t && t[0] == '/' ? t : "/tmp";
}

/* The pid in an exact nvbench-matrix-<pid>-<8 of [a-z0-9_]> name, or -1. */
static long seed_tmp_pid(const char *name)
{
    size_t np = strlen(SEED_TMP_PREFIX);
    if (strncmp(name, SEED_TMP_PREFIX, np))
        return -1;
    const char *p = name + np;
    long pid = 0;
    int nd = 0;
    for (; *p >= '0' && *p <= '9'; p++, nd++) {
        if (nd >= 10 || (nd == 0 && *p == '0'))
            return -1;
        pid = pid * 10 + (*p - '0');
    }
    if (nd == 0 || *p++ != '-' || pid <= 0 || pid > INT_MAX || strlen(p) != 8)
        return -1;
    for (; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return -1;
    return pid;
}

/* Remove the directories in the parent that matrices whose process is gone
 * left behind, by the rule nvbench's own sweep uses: the exact name, a pid
 * not ours that does not exist here, a real directory (not a symlink)
 * owned by this user holding nothing but a regular file named "scratch".
 * Anything else stays. The number removed. */
static unsigned seed_tmp_sweep(void)
{
    const char *parent = seed_tmp_parent();
    DIR *d = opendir(parent);
    if (!d)
        return 0;
    unsigned removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = seed_tmp_pid(e->d_name);
        if (pid < 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char dir[PATH_MAX], inner[PATH_MAX + 16];
        struct stat st;
        snprintf(dir, sizeof dir, "%s/%s", parent, e->d_name);
        if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
            continue;
        DIR *in = opendir(dir);
        if (!in)
            continue;
        int other = 0, has_scratch = 0;
        struct dirent *f;
        while ((f = readdir(in)))
            if (strcmp(f->d_name, ".") && strcmp(f->d_name, ".."))
                *(strcmp(f->d_name, "scratch") ? &other : &has_scratch) = 1;
        closedir(in);
        snprintf(inner, sizeof inner, "%s/scratch", dir);
        if (other || (has_scratch && (lstat(inner, &st) != 0 || !S_ISREG(st.st_mode))))
            continue;
        if ((!has_scratch || unlink(inner) == 0) && rmdir(dir) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

/* Make the directory (mode 0700) and its path in out. 0 or -errno. */
static int seed_tmp_make(char *out, size_t len)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = -EEXIST;
    for (int tries = 0; tries < 100 && rc == -EEXIST; tries++) {
        unsigned char r[8];
        char tail[9];
        if (read(fd, r, sizeof r) != (ssize_t)sizeof r) {
            rc = -EIO;
            break;
        }
        for (int i = 0; i < 8; i++)
            tail[i] = chars[r[i] % (sizeof chars - 1)];
        tail[8] = 0;
        if (snprintf(out, len, "%s/%s%ld-%s", seed_tmp_parent(), SEED_TMP_PREFIX, (long)getpid(), tail) >= (int)len) {
            rc = -ENAMETOOLONG;
            break;
        }
        rc = mkdir(out, 0700) == 0 ? 0 : -errno;
    }
    close(fd);
    return rc;
}
#endif /* !_WIN32 */

#endif
