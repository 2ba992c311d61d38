/* A target that does not exist, with size set: the run creates it as a
 * file (as fio does), lays it out without holes, keeps it, and never
 * writes through anything that appears at the name meanwhile. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvbench.h"
#include "testutil.h"

static char *path_in(const char *dir, const char *name)
{
    char *p;
    ck_assert_int_gt(asprintf(&p, "%s/%s", dir, name), 0);
    return p;
}

static int has_warning(const struct nvb_result *r, const char *needle)
{
    for (size_t i = 0; i < nvb_result_warning_count(r); i++)
        if (strstr(nvb_result_warning(r, i), needle))
            return 1;
    return 0;
}

/* No holes: SEEK_HOLE finds the first hole at the end of the file. */
static void assert_no_holes(const char *path, off_t size)
{
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(lseek(fd, 0, SEEK_HOLE), size);
    close(fd);
}

START_TEST(created_laid_out_and_kept)
{
    char *dir = tu_mkdtemp("create");
    char *file = path_in(dir, "new.dat");
    struct nvb_workload *w = tu_workload(
        (const char *[]){"engine", "psync", "rw", "randread", "bs", "4k", "size", "1M", "offset", "64k",
                         "ios", "200", NULL},
        (const char *[]){file, NULL});
    ck_assert_int_eq(nvb_workload_validate(w), 0);
    ck_assert_int_eq(tu_count_entries(dir), 0); /* validating creates nothing */
    struct nvb_result *r = tu_run_ok(w);
    ck_assert_uint_eq(nvb_result_ios(r, NVB_READ), 200);
    struct stat st;
    ck_assert_int_eq(stat(file, &st), 0); /* kept after the run */
    ck_assert(S_ISREG(st.st_mode));
    ck_assert_int_eq(st.st_size, 64 * 1024 + 1024 * 1024); /* offset + size */
    assert_no_holes(file, st.st_size);
    ck_assert_double_eq(tu_get(r, "per_target.0.allocated_pct"), 100);
    ck_assert_double_eq(tu_get(r, "per_target.0.region_offset"), 64 * 1024);
    ck_assert_double_eq(tu_get(r, "per_target.0.region_size"), 1024 * 1024);
    ck_assert_msg(has_warning(r, "did not exist: this run created it"), "the creation is told");
    char *json;
    ck_assert_int_eq(nvb_result_json(r, &json), 0);
    ck_assert_ptr_nonnull(strstr(json, "\"kind\":\"file\""));
    nvb_free(json);
    nvb_result_free(r);
    /* a second run finds it and uses it as it is: no creation, no warning */
    r = tu_run_ok(w);
    ck_assert(!has_warning(r, "did not exist"));
    nvb_result_free(r);
    nvb_workload_free(w);
    unlink(file);
    rmdir(dir);
    free(file);
    free(dir);
}
END_TEST

START_TEST(refused_without_size_or_directory)
{
    char *dir = tu_mkdtemp("create");
    char *file = path_in(dir, "missing.dat");
    char *deep = path_in(dir, "no-such-dir/missing.dat");
    struct {
        const char *target, *size, *needle;
    } cases[] = {
        {file, NULL, "set size to have the run create it"},
        {deep, "1M", "cannot be created"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct nvb_workload *w = tu_workload((const char *[]){"engine", "psync", "rw", "write", "ios", "10",
                                                              cases[i].size ? "size" : NULL, cases[i].size, NULL},
                                             (const char *[]){cases[i].target, NULL});
        struct nvb_result *r = NULL;
        ck_assert_int_eq(nvb_run(w, NULL, &r), -ENOENT);
        ck_assert_msg(strstr(nvb_result_error(r), cases[i].needle), "%s", nvb_result_error(r));
        ck_assert_msg(strstr(nvb_result_error(r), cases[i].target), "names the target: %s", nvb_result_error(r));
        nvb_result_free(r);
        nvb_workload_free(w);
    }
    ck_assert_int_eq(tu_count_entries(dir), 0); /* nothing was written */
    rmdir(dir);
    free(deep);
    free(file);
    free(dir);
}
END_TEST

/* The log message just before the file is made: a symlink to a victim
 * (or a cancellation) is put there deterministically. */
struct interloper {
    const char *link, *victim;
    struct nvb_cancel *cancel;
    const char *moved_in; /* renamed over link when the run logs its error, before it cleans up */
};

static void interlope(int level, const char *msg, void *arg)
{
    struct interloper *x = arg;
    if (level == 0 && x->moved_in) {
        ck_assert_int_eq(rename(x->moved_in, x->link), 0);
        x->moved_in = NULL;
    }
    if (!strstr(msg, "creating target"))
        return;
    if (x->victim)
        ck_assert_int_eq(symlink(x->victim, x->link), 0);
    if (x->cancel)
        nvb_cancel_request(x->cancel);
}

/* A psync run of 16 4k I/Os (rw) on target, created with size; its log to
 * log(arg), cancel (or NULL) its handle. Its rc, the result in *r. */
static int run_logged(const char *rw, const char *size, const char *target, void (*log)(int, const char *, void *),
                      void *arg, struct nvb_cancel *cancel, struct nvb_result **r)
{
    struct nvb_workload *w = tu_workload(
        (const char *[]){"engine", "psync", "rw", rw, "bs", "4k", "size", size, "ios", "16", NULL},
        (const char *[]){target, NULL});
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.log = log;
    o.log_arg = arg;
    o.cancel = cancel;
    int rc = nvb_run(w, &o, r);
    nvb_workload_free(w);
    return rc;
}

START_TEST(symlink_put_there_meanwhile_is_not_followed)
{
    char *dir = tu_mkdtemp("create");
    char *file = path_in(dir, "new.dat");
    char *victim = tu_scratch("create-victim", 64 * 1024);
    struct stat before, after;
    ck_assert_int_eq(stat(victim, &before), 0);
    struct interloper x = {.link = file, .victim = victim};
    struct nvb_result *r = NULL;
    ck_assert_int_eq(run_logged("write", "64k", file, interlope, &x, NULL, &r), -EEXIST);
    ck_assert_msg(strstr(nvb_result_error(r), "appeared after it was found missing"), "%s", nvb_result_error(r));
    nvb_result_free(r);
    ck_assert_int_eq(stat(victim, &after), 0);
    ck_assert_int_eq(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    ck_assert_int_eq(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
    struct stat ls;
    ck_assert_int_eq(lstat(file, &ls), 0); /* the link is left as it was, not removed */
    ck_assert(S_ISLNK(ls.st_mode));
    unlink(file);
    unlink(victim);
    rmdir(dir);
    free(victim);
    free(file);
    free(dir);
}
END_TEST

/* A run of `file` (missing, size set) cancelled when it logs "creating
 * target" (so during its layout); moved_in, when given, is renamed over the
 * file when the run logs its error, before its clean-up. */
static void run_cancelled_create(const char *file, const char *moved_in)
{
    struct nvb_cancel *c;
    ck_assert_int_eq(nvb_cancel_new(&c), 0);
    struct interloper x = {.link = file, .cancel = c, .moved_in = moved_in};
    struct nvb_workload *w = tu_workload(
        (const char *[]){"engine", "psync", "rw", "randread", "bs", "4k", "size", "8M", "ios", "16", NULL},
        (const char *[]){file, NULL});
    struct nvb_run_opts o = NVB_RUN_OPTS_INIT;
    o.log = interlope;
    o.log_arg = &x;
    o.cancel = c;
    struct nvb_result *r = NULL;
    ck_assert_int_eq(nvb_run(w, &o, &r), -ECANCELED);
    ck_assert(nvb_result_cancelled(r));
    ck_assert_ptr_null(x.moved_in); /* the rename, if any, happened before the clean-up */
    nvb_result_free(r);
    nvb_workload_free(w);
    nvb_cancel_free(c);
}

/* Cancelled during its layout, the half-made file is removed; but only the
 * file the run made: a file moved to its name meanwhile (renamed over it
 * after the layout stopped, before the clean-up) is someone else's and
 * stays, contents and all. */
START_TEST(cancelled_layout_removes_only_what_it_made)
{
    char *dir = tu_mkdtemp("create");
    char *file = path_in(dir, "new.dat");
    run_cancelled_create(file, NULL);
    ck_assert_int_eq(tu_count_entries(dir), 0); /* a half-made file is removed */
    char *other = path_in(dir, "other.dat");
    FILE *f = fopen(other, "w");
    ck_assert_ptr_nonnull(f);
    fputs("not the run's", f);
    fclose(f);
    struct stat before, after;
    ck_assert_int_eq(stat(other, &before), 0);
    run_cancelled_create(file, other);
    ck_assert_int_eq(stat(file, &after), 0); /* still there: not the run's to remove */
    ck_assert_uint_eq(after.st_ino, before.st_ino);
    ck_assert_int_eq(after.st_size, 13);
    ck_assert_int_eq(tu_count_entries(dir), 1);
    unlink(file);
    rmdir(dir);
    free(other);
    free(file);
    free(dir);
}
END_TEST

/* The same when a directory on the way changes: the target's parent is a
 * symlink, flipped before the clean-up to a directory where a user's file
 * has the same name. That file is not the one made, and stays. */
/* A dangling symlink named as a target with size: refused at planning as
 * one, naming where it points; nothing is created through it, and the link
 * stays (it said "appeared after it was found missing" at creation). */
START_TEST(dangling_symlink_is_named_not_followed)
{
    char *dir = tu_mkdtemp("create");
    char *link = path_in(dir, "link.dat"), *dest = path_in(dir, "dest.dat");
    ck_assert_int_eq(symlink(dest, link), 0);
    struct nvb_result *r = NULL;
    ck_assert_int_eq(run_logged("write", "64k", link, NULL, NULL, NULL, &r), -ENOENT);
    const char *e = nvb_result_error(r);
    ck_assert_msg(strstr(e, "dangling symlink") && strstr(e, dest), "%s", e);
    nvb_result_free(r);
    struct stat st;
    ck_assert_int_ne(stat(dest, &st), 0);
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_eq(tu_sh("rm -rf '%s'", dir), 0);
    free(link), free(dest), free(dir);
}
END_TEST

struct parent_flip {
    struct nvb_cancel *cancel;
    const char *link, *to, *tmp;
    int flipped;
};

static void flip_parent(int level, const char *msg, void *arg)
{
    struct parent_flip *x = arg;
    if (strstr(msg, "creating target"))
        nvb_cancel_request(x->cancel);
    if (level == 0 && !x->flipped) {
        x->flipped = 1;
        ck_assert_int_eq(symlink(x->to, x->tmp), 0);
        ck_assert_int_eq(rename(x->tmp, x->link), 0);
    }
}

START_TEST(cancelled_layout_spares_a_flipped_parent)
{
    char *dir = tu_mkdtemp("create");
    char *a = path_in(dir, "a"), *b = path_in(dir, "b"), *lnk = path_in(dir, "lnk"), *tmp = path_in(dir, "lnk.tmp");
    ck_assert_int_eq(mkdir(a, 0755), 0);
    ck_assert_int_eq(mkdir(b, 0755), 0);
    ck_assert_int_eq(symlink(a, lnk), 0);
    char *target = path_in(lnk, "new.dat"), *victim = path_in(b, "new.dat");
    ck_assert_int_eq(tu_sh("printf 'a user file' > '%s'", victim), 0);
    struct stat before, after;
    ck_assert_int_eq(stat(victim, &before), 0);
    struct parent_flip x = {.link = lnk, .to = b, .tmp = tmp};
    ck_assert_int_eq(nvb_cancel_new(&x.cancel), 0);
    struct nvb_result *r = NULL;
    ck_assert_int_eq(run_logged("randread", "8M", target, flip_parent, &x, x.cancel, &r), -ECANCELED);
    nvb_result_free(r);
    ck_assert_msg(x.flipped, "no error was logged before the clean-up");
    ck_assert_msg(stat(victim, &after) == 0, "the user's file at the flipped name was removed");
    ck_assert_uint_eq(after.st_ino, before.st_ino);
    ck_assert_int_eq(after.st_size, before.st_size);
    nvb_cancel_free(x.cancel);
    ck_assert_int_eq(tu_sh("rm -rf '%s'", dir), 0);
    free(a), free(b), free(lnk), free(tmp), free(target), free(victim), free(dir);
}
END_TEST

/* What a cancelled layout's result and log say: the created target removed
 * (not "leaves it in place"), and called a created target, never a scratch
 * file (the run's private file in a directory target). */
struct told {
    struct nvb_cancel *cancel;
    char log[8192];
};

static void tell(int level, const char *msg, void *arg)
{
    struct told *x = arg;
    (void)level;
    if (strstr(msg, "creating target"))
        nvb_cancel_request(x->cancel);
    size_t n = strlen(x->log);
    snprintf(x->log + n, sizeof x->log - n, "%s\n", msg);
}

START_TEST(cancelled_layout_says_what_became_of_it)
{
    char *dir = tu_mkdtemp("create");
    char *file = path_in(dir, "new.dat");
    struct told x = {0};
    ck_assert_int_eq(nvb_cancel_new(&x.cancel), 0);
    struct nvb_result *r = NULL;
    ck_assert_int_eq(run_logged("randread", "8M", file, tell, &x, x.cancel, &r), -ECANCELED);
    ck_assert_int_eq(tu_count_entries(dir), 0);
    ck_assert_msg(has_warning(r, "created it and removed it again"), "%s", x.log);
    ck_assert_msg(!has_warning(r, "leaves it in place"), "%s", x.log);
    ck_assert_msg(!strstr(nvb_result_error(r), "scratch file"), "%s", nvb_result_error(r));
    ck_assert_msg(strstr(nvb_result_error(r), "the target this run created"), "%s", nvb_result_error(r));
    ck_assert_msg(!strstr(x.log, "scratch file") && !strstr(x.log, "leaves it in place"), "%s", x.log);
    ck_assert_msg(strstr(x.log, "removed it again"), "the log tells it too: %s", x.log);
    nvb_result_free(r);
    /* laid out in full, it is kept, and said to be */
    ck_assert_int_eq(run_logged("randread", "1M", file, NULL, NULL, NULL, &r), 0);
    ck_assert(has_warning(r, "leaves it in place"));
    ck_assert(!has_warning(r, "removed it again"));
    nvb_result_free(r);
    unlink(file);
    rmdir(dir);
    nvb_cancel_free(x.cancel);
    free(file);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("create");
    TCase *tc = tcase_create("create");
    tcase_add_test(tc, created_laid_out_and_kept);
    tcase_add_test(tc, refused_without_size_or_directory);
    tcase_add_test(tc, symlink_put_there_meanwhile_is_not_followed);
    tcase_add_test(tc, dangling_symlink_is_named_not_followed);
    tcase_add_test(tc, cancelled_layout_removes_only_what_it_made);
    tcase_add_test(tc, cancelled_layout_spares_a_flipped_parent);
    tcase_add_test(tc, cancelled_layout_says_what_became_of_it);
    suite_add_tcase(s, tc);
    return tu_run_suite(s) ? 1 : 0;
}
