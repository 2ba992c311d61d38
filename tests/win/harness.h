/*
 * A tiny assertion harness for the Windows tests (Check is not built for
 * mingw). Each test program is a main() calling T_RUN(test) for each case:
 * a failed check prints file:line and the expression and the run goes on;
 * the program exits 1 when any check failed, 77 (CTest's skip) when
 * T_SKIP was called before any check failed, else 0. The last line is
 * "N passed, N failed" so CI sees a result.
 */
#ifndef NVB_TEST_WIN_HARNESS_H
#define NVB_TEST_WIN_HARNESS_H

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_checks, t_failed, t_cases, t_case_failed, t_cur_failed;

#define T_CHECK(cond)                                                                              \
    do {                                                                                           \
        t_checks++;                                                                                \
        if (!(cond)) {                                                                             \
            t_failed++;                                                                            \
            t_cur_failed++;                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define T_CHECK_MSG(cond, ...)                                                                     \
    do {                                                                                           \
        t_checks++;                                                                                \
        if (!(cond)) {                                                                             \
            t_failed++;                                                                            \
            t_cur_failed++;                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define T_EQ(a, b)                                                                                 \
    do {                                                                                           \
        long long t_a = (long long)(a), t_b = (long long)(b);                                      \
        T_CHECK_MSG(t_a == t_b, "%lld != %lld", t_a, t_b);                                         \
    } while (0)

#define T_RUN(fn)                                                                                  \
    do {                                                                                           \
        t_cases++;                                                                                 \
        t_cur_failed = 0;                                                                          \
        fprintf(stderr, "-- %s\n", #fn);                                                           \
        fn();                                                                                      \
        if (t_cur_failed)                                                                          \
            t_case_failed++;                                                                       \
    } while (0)

/* Skip the whole program (nothing can be tested here). */
#define T_SKIP(...)                                                                                \
    do {                                                                                           \
        fprintf(stderr, "SKIP: ");                                                                 \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        printf("0 passed, 0 failed, 1 skipped\n");                                                 \
        exit(t_failed ? 1 : 77);                                                                   \
    } while (0)

static inline int t_done(void)
{
    printf("%d passed, %d failed\n", t_cases - t_case_failed, t_case_failed);
    fprintf(stderr, "%d checks, %d failed\n", t_checks, t_failed);
    return t_failed ? 1 : 0;
}

/* Under wine, performance and the alignment rules of unbuffered I/O are
 * not those of Windows: tests that assert them skip those checks. */
static inline int t_is_wine(void)
{
    HMODULE nt = GetModuleHandleW(L"ntdll.dll");
    return nt && GetProcAddress(nt, "wine_get_version") != NULL;
}

/* A fresh directory for this test under NVB_TEST_TMP (or the temp dir). */
static inline void t_tmpdir(const char *name, char *out, size_t len)
{
    const char *base = getenv("NVB_TEST_TMP");
    char tmp[MAX_PATH];
    if (!base || !*base) {
        GetTempPathA(sizeof tmp, tmp);
        base = tmp;
    }
    snprintf(out, len, "%s\\nvb-%s-%lu", base, name, (unsigned long)GetCurrentProcessId());
    CreateDirectoryA(out, NULL);
}

#endif
