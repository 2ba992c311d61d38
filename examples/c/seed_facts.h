/*
 * seed_facts: what seed_matrix writes into each result besides the
 * library's figures, and its --json file.
 *
 * The facts a reader of a results file needs to trust its stack label go
 * into the result's engine_used (a map of strings the library's parser
 * reads back as it is): "os" (the OS and its build), "cpu_model"; the
 * logical CPU count is the result's cpu.ncpus. With --stack, "stack" is
 * the stack the user stated, "stack_source" is "stated" and
 * "stack_detected" keeps what the library found (on Windows the engines
 * record "stack", "stack_source" = "detected" or "none", the disk's
 * "disk_model" and "disk_driver" themselves).
 */
#ifndef SEED_FACTS_H
#define SEED_FACTS_H

#include <stdio.h>

/* The stacks --stack may state (the published comparison's Windows columns). */
int seed_stack_valid(const char *stack);

/* Reads the machine's facts once; stack: the stated stack or NULL. */
void seed_facts_init(const char *stack);

/* The result's JSON with the facts put into its engine_used; NULL with a
 * message in why when the text is not the library's result. Free with free(). */
char *seed_facts_apply(const char *json, char *why, size_t why_len);

/* The --json file: {"results": [ ... ]}, one result per run, written as
 * the runs end, so that an interrupted matrix leaves the runs made. */
FILE *seed_json_open(const char *path);
int seed_json_add(FILE *f, const char *result_json);
int seed_json_close(FILE *f);

#endif
