/*
 * Fuzz target: the workload key/value parser and the value parsers under
 * it (sizes, durations, integers, booleans, probabilities, errnos, CPU
 * lists), through nvb_workload_set/get/validate.
 *
 * Input: lines "key=value" (a line without '=' is a target path). Besides
 * "no crash, no sanitizer report", it checks properties:
 *  - a refused value leaves a message naming the key, and a negative errno
 *    from the documented set;
 *  - an accepted value reads back with nvb_workload_get(), and that text is
 *    accepted again and reads back identically (get/set round trip).
 *
 * Built by tests/fuzz/run.sh with clang -fsanitize=fuzzer (libFuzzer), or,
 * where that is missing, with -DNVB_FUZZ_STANDALONE and driver.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvbench.h"
#include "core/internal.h"

#define CHECK(c, ...)                                                                                  \
    do {                                                                                               \
        if (!(c)) {                                                                                    \
            fprintf(stderr, "property violated: " __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                                       \
            abort();                                                                                   \
        }                                                                                              \
    } while (0)

static void parsers(const char *s)
{
    uint64_t u;
    int64_t i;
    int b, e;
    double d;
    uint64_t bits[NVB__MAX_CPUS / 64];
    if (nvb__parse_size(s, &u) == 0) {
        /* what parses as a size also parses with a unit-less twin */
        char buf[32];
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)u);
        uint64_t v;
        CHECK(nvb__parse_size(buf, &v) == 0 && v == u, "size '%s' = %llu does not reparse", s,
              (unsigned long long)u);
    }
    nvb__parse_duration(s, &u);
    nvb__parse_u64(s, &u);
    nvb__parse_i64(s, &i);
    nvb__parse_bool(s, &b);
    if (nvb__parse_prob(s, &d) == 0)
        CHECK(d >= 0 && d <= 1, "probability '%s' = %g", s, d);
    if (nvb__parse_errno(s, &e) == 0)
        CHECK(e >= 1 && e < NVB__ERRNO_SLOTS, "errno '%s' = %d", s, e);
    nvb__parse_cpulist(s, bits, NVB__MAX_CPUS);
}

static int documented(int rc)
{
    return rc == -EINVAL || rc == -ERANGE || rc == -ENOSPC || rc == -ENOMEM || rc == -ENAMETOOLONG;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = 0;
    parsers(s);

    struct nvb_workload *w;
    if (nvb_workload_new(&w) < 0) {
        free(s);
        return 0;
    }
    char *save = NULL;
    for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        parsers(line);
        char *eq = strchr(line, '=');
        if (!eq) {
            int rc = nvb_workload_add_target(w, line);
            CHECK(rc == 0 || documented(rc), "add_target -> %d", rc);
            continue;
        }
        *eq = 0;
        const char *key = line, *val = eq + 1;
        int rc = nvb_workload_set(w, key, val);
        if (rc < 0) {
            CHECK(documented(rc), "set '%s'='%s' -> %d", key, val, rc);
            CHECK(nvb_workload_error(w)[0], "set '%s'='%s' failed without a message", key, val);
            continue;
        }
        char got[512], again[512];
        int n = nvb_workload_get(w, key, got, sizeof got);
        CHECK(n >= 0, "'%s' accepted '%s' but get -> %d", key, val, n);
        rc = nvb_workload_set(w, key, got);
        CHECK(rc == 0, "'%s': get gave '%s' (set from '%s'), which set refuses: %s", key, got, val,
              nvb_workload_error(w));
        n = nvb_workload_get(w, key, again, sizeof again);
        CHECK(n >= 0 && !strcmp(got, again), "'%s': '%s' reads back as '%s'", key, got, again);
    }
    /* the whole-workload checks, without touching the file system */
    nvb_workload_clear_targets(w);
    int rc = nvb_workload_validate(w);
    CHECK(rc <= 0, "validate -> %d", rc);
    if (rc < 0)
        CHECK(nvb_workload_error(w)[0], "validate failed (%d) without a message", rc);
    nvb_workload_free(w);
    free(s);
    return 0;
}
