/*
 * Prints the table of the result's figures (libnvbench/core/figures.c) as
 * JSON, for tools/gen_figures.py, which writes docs/result.schema.json and
 * the tables of docs/json-schema.md from it. Built with the tests
 * (tests/CMakeLists.txt, nvb_figures_dump).
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/figures.h"

int main(void)
{
    char *s = NULL;
    if (nvb__figs_json(&s) < 0) {
        fputs("nvb_figures_dump: out of memory\n", stderr);
        return 1;
    }
    fputs(s, stdout);
    free(s);
    return 0;
}
