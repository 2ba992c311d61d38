/* The ioring engine (the file name avoids "ioring": the import-table check
 * greps objdump's output, which names each binary): skipped (77) where the IoRing API is absent, which
 * includes wine; on Windows 11 / Server 2022+, data written then verified
 * and registered buffers and handles in use. */
#include "harness.h"

#include <errno.h>

#include <nvbench.h>

static double get(const struct nvb_result *r, const char *path)
{
    double v = -1;
    T_CHECK_MSG(nvb_result_get(r, path, &v) == 0, "no figure %s", path);
    return v;
}

static void run_one(const char *const *kv, const char *target, struct nvb_result **out)
{
    struct nvb_workload *w = NULL;
    T_EQ(nvb_workload_new(&w), 0);
    for (int i = 0; kv[i]; i += 2)
        T_CHECK_MSG(nvb_workload_set(w, kv[i], kv[i + 1]) == 0, "%s", nvb_workload_error(w));
    T_EQ(nvb_workload_add_target(w, target), 0);
    int rc = nvb_run(w, NULL, out);
    T_CHECK_MSG(rc == 0, "nvb_run: %s", *out ? nvb_result_error(*out) : nvb_strerror(rc));
    nvb_workload_free(w);
}

static char g_dir[MAX_PATH];

static void test_read_verify(void)
{
    struct nvb_result *r = NULL;
    /* the scratch file is laid out with valid verify blocks */
    run_one((const char *[]){ "engine", "ioring", "rw", "randread", "bs", "4k", "qd", "32", "size", "16M", "ios",
                              "5000", "verify", "1", NULL },
            g_dir, &r);
    if (r) {
        T_EQ(get(r, "read.ios"), 5000);
        T_EQ(get(r, "verify.mismatches"), 0);
        char *json = NULL;
        nvb_result_json(r, &json);
        T_CHECK(json && strstr(json, "\"fixedbufs\":\"1\"") && strstr(json, "\"regfiles\":\"1\""));
        nvb_free(json);
    }
    nvb_result_free(r);
}

static void test_mixed_verify(void)
{
    struct nvb_result *r = NULL;
    char why[256];
    if (nvb_engine_probe("ioring", why, sizeof why) == 0) {
        run_one((const char *[]){ "engine", "ioring", "rw", "randrw", "bs", "4k", "qd", "16", "size", "16M", "ios",
                                  "4000", "verify", "1", NULL },
                g_dir, &r);
        if (r) {
            T_EQ(get(r, "errors.count"), 0);
            T_EQ(get(r, "verify.mismatches"), 0);
        }
        nvb_result_free(r);
    }
}

int main(void)
{
    char why[256] = "";
    int rc = nvb_engine_probe("ioring", why, sizeof why);
    if (rc < 0)
        T_SKIP("ioring unavailable here: %s", why);
    t_tmpdir("ioring", g_dir, sizeof g_dir);
    T_RUN(test_read_verify);
    T_RUN(test_mixed_verify);
    RemoveDirectoryA(g_dir);
    return t_done();
}
