/* Small helpers shared by the Check suites. */
#ifndef NVB_TESTUTIL_H
#define NVB_TESTUTIL_H
#include <check.h>
#include <stdint.h>
#include <stddef.h>

/* Directory for test files (NVB_TEST_TMP, else /tmp). */
const char *tu_tmpdir(void);
/* Create a file of `size` bytes of pseudo-random data under tu_tmpdir();
 * returns a malloc'd path. Aborts the test program on failure. */
char *tu_scratch(const char *name, uint64_t size);
/* Create an empty directory under tu_tmpdir(); returns a malloc'd path. */
char *tu_mkdtemp(const char *prefix);
/* The same under /tmp, mode 0755: for tests that drop to an unprivileged
 * user, who may not be able to enter the build tree (a checkout under a
 * 0700 directory such as mktemp -d makes). */
char *tu_mkdtemp_public(const char *prefix);
/* Print why to stderr and exit 77 (CTest: skipped). */
void tu_skip(const char *why) __attribute__((noreturn));
int tu_is_root(void);
/* Run a shell command (printf-style), its output discarded; its exit
 * status, or -1 when it did not exit. */
/* Note s in the first empty slot of a cleanup list of n names. */
void tu_remember(char (*list)[256], int n, const char *s);
int tu_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Attach backing (a file or a device) as a loop device (losetup -f
 * --show): 0 with its name in dev, or -1 with dev "". */
int tu_losetup(const char *backing, char *dev, size_t len);
/* Count directory entries (excluding . and ..). */
int tu_count_entries(const char *dir);

/* Through the public API, failing the running Check test on the way: */
struct nvb_workload;
struct nvb_result;
/* A workload from key/value pairs (NULL-terminated) and targets
 * (NULL-terminated; either may be NULL); a refused pair fails the test
 * with the library's message. */
struct nvb_workload *tu_workload(const char *const *kv, const char *const *targets);
/* Run w; the test fails unless the run completed (0). */
struct nvb_result *tu_run_ok(const struct nvb_workload *w);
/* Run a suite (CK_NORMAL) and free its runner: the number of failed tests. */
int tu_run_suite(Suite *s);
/* A figure by path (nvb_result_get); the test fails when there is none. */
double tu_get(const struct nvb_result *r, const char *path);
/* The strict reader refuses text (a result's JSON, edited) naming key in
 * its message; the test fails otherwise. */
void tu_refused_naming(const char *text, const char *key);
/* text with its first from replaced by to (malloc'd, the caller frees it);
 * the test fails when from is not in text. */
char *tu_edited(const char *text, const char *from, const char *to);
/* nvb_run refuses w with an error naming each of the NULL-terminated
 * needles; returns nvb_run's code for the caller to check further. */
int tu_run_refused(const struct nvb_workload *w, const char *const *needles);
/* A checksum of the whole of path's bytes (FNV-1a, 64 bits), to compare a
 * victim before and after: the test fails when path cannot be opened. */
uint64_t tu_file_sum(const char *path);
/* The first n bytes of path (malloc'd; the test fails when it cannot read
 * them all), and whether n bytes at p are all zero (1) or not (0). */
unsigned char *tu_read_head(const char *path, size_t n);
int tu_all_zero(const unsigned char *p, size_t n);
/* Under valgrind or ASan, where the resident set is mostly the tool's
 * shadow memory (a peak RSS would measure the tool): 1, else 0. */
int tu_under_memory_tool(void);
#endif
