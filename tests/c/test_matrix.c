/*
 * The matrix of runs (core/matrix.c): the runs a product makes in the
 * documented order (repeat outermost, the first axis slowest), the seed
 * cells chosen by key, workload or label in the published order, the
 * column label of each run and the refused plans with their message.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvbench.h>

#include "testutil.h"

static struct nvb_matrix *plan(void)
{
    struct nvb_matrix *m = NULL;
    ck_assert_int_eq(nvb_matrix_create(&m), 0);
    return m;
}

static const char *value(const struct nvb_matrix *m, size_t run, size_t axis)
{
    const char *v = NULL;
    ck_assert_int_eq(nvb_matrix_value(m, run, axis, &v), 0);
    return v;
}

START_TEST(product_order_and_labels)
{
    struct nvb_matrix *m = plan();
    static const char *const rw[] = {"randread", "randwrite"}, *const qd[] = {"1", "32"},
                             *const eng[] = {"libaio", "io_uring"};
    ck_assert_int_eq(nvb_matrix_axis(m, "rw", 2, rw), 0);
    ck_assert_int_eq(nvb_matrix_axis(m, "qd", 2, qd), 0);
    ck_assert_int_eq(nvb_matrix_axis(m, "engine", 2, eng), 0);
    ck_assert_int_eq(nvb_matrix_set(m, "repeat", "2"), 0);
    ck_assert_uint_eq(nvb_matrix_runs(m), 16);
    ck_assert_uint_eq(nvb_matrix_axes(m), 3);
    ck_assert_int_eq(nvb_matrix_stacked(m, 0), 0);
    ck_assert_int_eq(nvb_matrix_stacked(m, 1), 1);
    ck_assert_int_eq(nvb_matrix_stacked(m, 2), 0);
    for (size_t r = 0; r < 16; r++) {
        size_t rep;
        ck_assert_int_eq(nvb_matrix_pick(m, r, 3, &rep), 0);
        ck_assert_uint_eq(rep, r / 8); /* repeat outermost */
        ck_assert_str_eq(value(m, r, 0), rw[(r / 4) % 2]);
        ck_assert_str_eq(value(m, r, 1), qd[(r / 2) % 2]);
        ck_assert_str_eq(value(m, r, 2), eng[r % 2]); /* the last axis fastest */
        char label[64], want[64];
        snprintf(want, sizeof want, "%s qd=%s", eng[r % 2], qd[(r / 2) % 2]);
        ck_assert_int_eq(nvb_matrix_stack(m, r, label, sizeof label), (int)strlen(want));
        ck_assert_str_eq(label, want);
    }
    char small[4];
    ck_assert_int_eq(nvb_matrix_stack(m, 0, small, sizeof small), -ENOSPC);
    ck_assert_int_eq(nvb_matrix_stack(m, 16, small, sizeof small), -ERANGE);
    nvb_matrix_destroy(m);

    /* a one-value axis renames nothing; no axis: one run, no label */
    m = plan();
    static const char *const one[] = {"8"};
    ck_assert_int_eq(nvb_matrix_axis(m, "qd", 1, one), 0);
    char label[16] = "x";
    ck_assert_uint_eq(nvb_matrix_runs(m), 1);
    ck_assert_int_eq(nvb_matrix_stack(m, 0, label, sizeof label), 0);
    ck_assert_str_eq(label, "");
    nvb_matrix_destroy(m);
}
END_TEST

START_TEST(seed_cells_chosen)
{
    struct nvb_matrix *m = plan();
    ck_assert_int_eq(nvb_matrix_cells(m, "seq128k, rand4k_read,Random 64K write,rand4k_read"), 0);
    static const char *const eng[] = {"psync", "null"};
    ck_assert_int_eq(nvb_matrix_axis(m, "engine", 2, eng), 0);
    static const char *const want[] = {"rand4k_read", "seq128k_read", "rand64k_write", "seq128k_write"};
    ck_assert_uint_eq(nvb_matrix_runs(m), 8);
    for (size_t r = 0; r < 8; r++) {
        ck_assert_str_eq(value(m, r, 0), want[r / 2]);
        ck_assert_str_eq(value(m, r, 1), eng[r % 2]);
    }
    nvb_matrix_destroy(m);
    m = plan();
    ck_assert_int_eq(nvb_matrix_cells(m, NULL), 0);
    ck_assert_uint_eq(nvb_matrix_runs(m), nvb_seed_cells());
    const char *k;
    for (size_t i = 0; i < nvb_seed_cells(); i++) {
        ck_assert_int_eq(nvb_seed_cell(i, "key", &k), 0);
        ck_assert_str_eq(value(m, i, 0), k);
    }
    ck_assert_int_eq(nvb_matrix_cells(m, "rand4k"), -EINVAL);
    ck_assert_msg(strstr(nvb_matrix_error(m), "axis 'cell' is given twice") != NULL, "%s", nvb_matrix_error(m));
    nvb_matrix_destroy(m);
    m = plan();
    ck_assert_int_eq(nvb_matrix_cells(m, "rand5k"), -EINVAL);
    ck_assert_msg(strstr(nvb_matrix_error(m), "unknown seed cell 'rand5k'") != NULL, "%s", nvb_matrix_error(m));
    ck_assert_uint_eq(nvb_matrix_axes(m), 0); /* bad input adds nothing */
    nvb_matrix_destroy(m);
}
END_TEST

START_TEST(refused_plans)
{
    struct nvb_matrix *m = plan();
    static const char *const v[] = {"1"};
    ck_assert_int_eq(nvb_matrix_axis(m, "qd", 0, v), -EINVAL);
    ck_assert_str_eq(nvb_matrix_error(m), "axis 'qd' is an empty list");
    ck_assert_int_eq(nvb_matrix_axis(m, "qd", 1, v), 0);
    ck_assert_int_eq(nvb_matrix_axis(m, "qd", 1, v), -EINVAL);
    static const char *const bad[] = {"0", "-1", "1.5", "", "x", "+2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(nvb_matrix_set(m, "repeat", bad[i]), -EINVAL);
        ck_assert_msg(strstr(nvb_matrix_error(m), "repeat must be a positive integer") != NULL, "%s",
                      nvb_matrix_error(m));
    }
    ck_assert_int_eq(nvb_matrix_set(m, "repeats", "2"), -EINVAL);
    ck_assert_uint_eq(nvb_matrix_runs(m), 1);
    size_t x;
    ck_assert_int_eq(nvb_matrix_pick(m, 1, 0, &x), -ERANGE);
    ck_assert_int_eq(nvb_matrix_pick(m, 0, 2, &x), -ERANGE);
    nvb_matrix_destroy(m);
    nvb_matrix_destroy(NULL);
}
END_TEST

static Suite *matrix_suite(void)
{
    Suite *s = suite_create("matrix");
    TCase *tc = tcase_create("matrix");
    tcase_add_test(tc, product_order_and_labels);
    tcase_add_test(tc, seed_cells_chosen);
    tcase_add_test(tc, refused_plans);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed = tu_run_suite(matrix_suite());
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
