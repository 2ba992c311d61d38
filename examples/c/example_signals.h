/*
 * example_signals: how the example programs let Ctrl-C and SIGTERM cancel
 * the run in progress (their handler calls nvb_cancel_request). Included
 * by run_workload.c, seed_matrix.c and mpi_run.c, each still one file to
 * build.
 */
#ifndef EXAMPLE_SIGNALS_H
#define EXAMPLE_SIGNALS_H

#include <signal.h>
#include <string.h>

static void example_catch_signals(void (*handler)(int))
{
#ifdef _WIN32
    /* The C runtime runs the handler on the console's Ctrl-C thread. */
    signal(SIGINT, handler);
    signal(SIGTERM, handler);
#else
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
#endif
}

#endif
