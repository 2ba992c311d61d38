/* Small helpers shared by the Check suites. */
#ifndef NVB_TESTUTIL_H
#define NVB_TESTUTIL_H
#include <stdint.h>
#include <stddef.h>

/* Directory for test files (NVB_TEST_TMP, else /tmp). */
const char *tu_tmpdir(void);
/* Create a file of `size` bytes of pseudo-random data under tu_tmpdir();
 * returns a malloc'd path. Aborts the test program on failure. */
char *tu_scratch(const char *name, uint64_t size);
/* Create an empty directory under tu_tmpdir(); returns a malloc'd path. */
char *tu_mkdtemp(const char *prefix);
/* Print why to stderr and exit 77 (CTest: skipped). */
void tu_skip(const char *why) __attribute__((noreturn));
int tu_is_root(void);
/* Count directory entries (excluding . and ..). */
int tu_count_entries(const char *dir);
#endif
