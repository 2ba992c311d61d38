/*
 * run_workload: run one workload and print its JSON result on stdout.
 *
 *   run_workload KEY=VALUE... TARGET...
 *   run_workload engine=io_uring rw=randread bs=4k qd=32 runtime=2s /dev/nvme0n1
 *
 * Errors go to stderr with the library's message. Exit status: 0 success,
 * 2 bad input, 1 run failure (an I/O error, or with verify=1 a block read
 * back that did not match: data is bad, as fio exits 1), 130 interrupted (SIGINT) or 143 terminated
 * (SIGTERM): 128 + the signal, as a shell reports a process the signal
 * killed, but after a clean stop (the partial result is still printed, the
 * scratch file removed).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvbench.h>

#include "example_print.h"
#include "example_signals.h"

static struct nvb_cancel *g_cancel;
static volatile sig_atomic_t g_signal; /* the first signal that cancelled the run */

static void on_signal(int sig)
{
    if (!g_signal)
        g_signal = sig;
    nvb_cancel_request(g_cancel); /* async-signal-safe */
}

static int is_input_error(int rc)
{
    return rc == -EINVAL || rc == -ENOENT || rc == -EACCES || rc == -EPERM || rc == -ERANGE ||
           rc == -ENOTSUP || rc == -EBUSY || rc == -ENAMETOOLONG;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: %s KEY=VALUE... TARGET...\n", argv[0]);
        return 2;
    }
    struct nvb_workload *w;
    int rc = nvb_workload_new(&w);
    if (rc < 0) {
        example_fprintf(stderr, "run_workload: %s\n", nvb_strerror(rc));
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (eq && argv[i][0] != '/' && argv[i][0] != '.') {
            *eq = 0;
            rc = nvb_workload_set(w, argv[i], eq + 1);
            *eq = '=';
        } else {
            rc = nvb_workload_add_target(w, argv[i]);
        }
        if (rc < 0) {
            example_fprintf(stderr, "run_workload: %s\n", nvb_workload_error(w));
            nvb_workload_free(w);
            return 2;
        }
    }
    if (nvb_cancel_new(&g_cancel) < 0) {
        nvb_workload_free(w);
        return 1;
    }
    example_catch_signals(on_signal);

    struct nvb_run_opts opts = NVB_RUN_OPTS_INIT;
    opts.cancel = g_cancel;
    struct nvb_result *r = NULL;
    rc = nvb_run(w, &opts, &r);
    int status = 0;
    if (rc < 0) {
        example_fprintf(stderr, "run_workload: %s\n", r ? nvb_result_error(r) : nvb_strerror(rc));
        status = rc == -ECANCELED ? 128 + (g_signal ? (int)g_signal : SIGINT) : is_input_error(rc) ? 2 : 1;
    }
    /* The result of a run that started (complete, cancelled, stopped at an
     * I/O error or by the watchdog) is printed, partial figures and all; a
     * refused workload prints nothing on stdout. */
    if (r && !is_input_error(rc)) {
        char *json = NULL;
        if (nvb_result_json(r, &json) == 0) {
            fputs(json, stdout);
            nvb_free(json);
        } else {
            example_fprintf(stderr, "run_workload: out of memory formatting the result\n");
            status = 1;
        }
        /* every warning the library knows, to the person, once */
        for (size_t i = 0; i < nvb_result_warning_count(r); i++)
            example_fprintf(stderr, "run_workload: warning: %s\n", nvb_result_warning(r, i));
        /* bad data is a failure, after the result that describes it */
        double bad = 0;
        if (nvb_result_get(r, "verify.mismatches", &bad) == 0 && bad > 0) {
            example_fprintf(stderr, "run_workload: verify failed: %.0f blocks read did not match what was written\n", bad);
            if (!status)
                status = 1;
        }
    }
    nvb_result_free(r);
    nvb_workload_free(w);
    nvb_cancel_free(g_cancel);
    return status;
}
