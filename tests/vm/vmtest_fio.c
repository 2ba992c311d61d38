/*
 * vmtest fio JOBFILE [KEY=VALUE ...]: a fio job file run in the QEMU guest,
 * which has no Python, through the library's one reader and mapping
 * (nvb_fiojob_read, nvb_fiomap_new, strict) as `nvbench run --fio` does:
 * the steps planned together first (nvb_groups_validate), then run in
 * order, a step of one job through nvb_run, of several through
 * nvb_run_groups. KEY=VALUE are library keys for every job (the one a job
 * file cannot say: allow_destructive=1). `${NAME}` in the file is the
 * guest's environment, so one file in the tree names whichever node the
 * namespace got. Output: {"results": [...]}, one result per step run; a
 * refused mapping, plan or run says why on stderr and exits 2 (refused
 * before running) or 1 (a step failed: the results before it, and its
 * partial one, are still printed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvbench.h"
#include "vmtest_fio.h"

#define MAXW 16

/* Workload i of m's keys and targets, then the extra KEY=VALUE: 0, -1 a key
 * refused (nvb_workload_error says why), -2 an extra that is not KEY=VALUE. */
static int set_all(struct nvb_workload *w, const struct nvb_fiomap *m, size_t i, char **extra, int nextra)
{
    for (size_t k = 0; k < nvb_fiomap_count(m, i, NVB_FIOMAP_KEYS); k++) {
        const char *v, *key = nvb_fiomap_item(m, i, NVB_FIOMAP_KEYS, k, &v, NULL);
        if (nvb_workload_set(w, key, v) < 0)
            return -1;
    }
    for (size_t k = 0; k < nvb_fiomap_count(m, i, NVB_FIOMAP_TARGETS); k++)
        if (nvb_workload_add_target(w, nvb_fiomap_item(m, i, NVB_FIOMAP_TARGETS, k, NULL, NULL)) < 0)
            return -1;
    for (int e = 0; e < nextra; e++) {
        char kv[256], *eq;
        snprintf(kv, sizeof kv, "%s", extra[e]);
        if (!(eq = strchr(kv, '='))) {
            fprintf(stderr, "vmtest fio: %s is not KEY=VALUE\n", extra[e]);
            return -2;
        }
        *eq = 0;
        if (nvb_workload_set(w, kv, eq + 1) < 0)
            return -1;
    }
    return 0;
}

/* Run one step (ws[0..n), mapped from the job named section and those after
 * it) and print its result; 0, or 1 when it failed. */
static int run_step(struct nvb_workload **ws, size_t n, const char *section, int *first_out)
{
    struct nvb_result *r = NULL;
    int rc = n == 1 ? nvb_run(ws[0], NULL, &r) : nvb_run_groups((const struct nvb_workload *const *)ws, n, NULL, &r);
    char *json = NULL;
    if (r && nvb_result_json(r, &json) == 0) {
        printf("%s%s", *first_out ? "" : ",\n", json);
        *first_out = 0;
        nvb_free(json);
    }
    if (rc < 0)
        fprintf(stderr, "vmtest fio: the step of job %s: %s\n", section,
                r && nvb_result_error(r) ? nvb_result_error(r) : nvb_strerror(rc));
    nvb_result_free(r);
    return rc < 0;
}

int vm_fio(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: vmtest fio JOBFILE [KEY=VALUE ...]\n");
        return 2;
    }
    char why[1024];
    struct nvb_fiojob *f = NULL;
    struct nvb_fiomap *m = NULL;
    int rc = nvb_fiojob_read(argv[2], NULL, &f, why, sizeof why);
    if (rc == 0)
        rc = nvb_fiomap_new(f, argv[2], 0, &m, why, sizeof why);
    nvb_fiojob_free(f);
    if (rc < 0) {
        fprintf(stderr, "vmtest fio: %s\n", why);
        return 2;
    }
    size_t n = nvb_fiomap_workloads(m);
    struct nvb_workload *ws[MAXW] = {0};
    unsigned steps[MAXW];
    int status = n > MAXW ? 2 : 0;
    if (status)
        fprintf(stderr, "vmtest fio: %zu jobs, more than the %d this runner takes\n", n, MAXW);
    for (size_t i = 0; !status && i < n; i++) {
        steps[i] = (unsigned)nvb_fiomap_step(m, i);
        const int rc = nvb_workload_new(&ws[i]) < 0 ? -3 : set_all(ws[i], m, i, argv + 3, argc - 3);
        if (rc == -1 || rc == -3)
            fprintf(stderr, "vmtest fio: job %s: %s\n", nvb_fiomap_section(m, i),
                    rc == -1 ? nvb_workload_error(ws[i]) : "no memory");
        if (rc < 0)
            status = 2;
    }
    size_t bad = 0;
    if (!status && nvb_groups_validate((const struct nvb_workload *const *)ws, n, steps, &bad, why, sizeof why) < 0) {
        fprintf(stderr, "vmtest fio: job %s: %s\n", nvb_fiomap_section(m, bad), why);
        status = 2;
    }
    if (!status) {
        int first = 1;
        printf("{\"results\": [\n");
        for (size_t i = 0; i < n && !status;) {
            size_t j = i;
            while (j < n && steps[j] == steps[i])
                j++;
            status = run_step(ws + i, j - i, nvb_fiomap_section(m, i), &first);
            i = j;
        }
        printf("\n]}\n");
    }
    for (size_t i = 0; i < n && i < MAXW; i++)
        nvb_workload_free(ws[i]);
    nvb_fiomap_free(m);
    return status;
}
