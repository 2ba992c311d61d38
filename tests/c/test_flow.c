/*
 * Flow control between jobs (core/flow.c), its rule on its own: jobs of
 * one flow, asked in turn for as many I/Os as they like, keep their
 * counts to the ratio of their weights within one I/O; none is ever shut
 * out for good; a job that leaves no longer holds the others back; jobs
 * of two flows do not hold each other back.
 */
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "testutil.h"

struct flowrig {
    struct nvb_workload w[2];
    struct plan p;
    struct run r[2];
    struct job j[2];
};

/* Two runs of one job each (two groups of a step) in flow f, weights wa, wb. */
static void rig(struct flowrig *g, struct nvb__flow *f, unsigned wa, unsigned wb)
{
    memset(g, 0, sizeof *g);
    g->p.jobs = 1;
    g->w[0].flow = wa;
    g->w[1].flow = wb;
    for (int i = 0; i < 2; i++) {
        g->r[i].w = &g->w[i];
        g->r[i].p = &g->p;
        g->r[i].jobs = &g->j[i];
        g->r[i].flow = f;
        g->j[i].run = &g->r[i];
        nvb__flow_join(&g->r[i]);
    }
}

START_TEST(counts_keep_to_the_weights)
{
    static const unsigned weights[][2] = {{3, 1}, {1, 8}, {2, 2}, {1000, 1}, {7, 5}};
    for (size_t c = 0; c < sizeof weights / sizeof *weights; c++) {
        struct nvb__flow f = {.ios = 1};
        struct flowrig g;
        rig(&g, &f, weights[c][0], weights[c][1]);
        uint64_t n[2] = {0, 0};
        for (unsigned round = 0; round < 20000; round++) {
            int i = (round * 7919u) % 3 == 0; /* an uneven order of asking */
            n[i] += nvb__flow_room(&g.j[i], 1 + round % 16);
            /* each job's share of the I/Os at most its weight's share, plus the one I/O a check lets by */
            for (int k = 0; k < 2; k++)
                ck_assert_uint_le(n[k] * (weights[c][0] + weights[c][1]),
                                  (uint64_t)weights[c][k] * (n[0] + n[1] + 1) + (weights[c][0] + weights[c][1]));
        }
        ck_assert_uint_gt(n[0], 0);
        ck_assert_uint_gt(n[1], 0);
        ck_assert_uint_eq(f.ios, 1 + n[0] + n[1]);
        for (int i = 0; i < 2; i++)
            nvb__flow_leave(&g.j[i]);
        ck_assert_uint_eq(f.ios, 1); /* as it began */
        ck_assert_uint_eq(f.weight, 0);
    }
}
END_TEST

START_TEST(a_job_that_leaves_holds_nobody_back)
{
    struct nvb__flow f = {.ios = 1};
    struct flowrig g;
    rig(&g, &f, 1, 1);
    /* 2 of the flow's 3 (it counts from 1): its half, as fio's test (held when above); then held */
    ck_assert_uint_eq(nvb__flow_room(&g.j[0], 8), 2);
    ck_assert_uint_eq(nvb__flow_room(&g.j[0], 8), 0);
    nvb__flow_leave(&g.j[1]);
    ck_assert_uint_eq(nvb__flow_room(&g.j[0], 8), 8);
    nvb__flow_leave(&g.j[0]);
}
END_TEST

START_TEST(two_flows_are_apart)
{
    struct nvb__flow f1 = {.ios = 1}, f2 = {.ios = 1};
    struct flowrig a, b;
    rig(&a, &f1, 1, 1);
    rig(&b, &f2, 1, 1);
    /* each flow's jobs are held by their partner only, not by the other flow's */
    ck_assert_uint_eq(nvb__flow_room(&b.j[0], 4), 2);
    ck_assert_uint_eq(nvb__flow_room(&b.j[1], 4), 4);
    ck_assert_uint_eq(nvb__flow_room(&a.j[0], 4), 2);
    ck_assert_uint_eq(f1.ios, 3);
    ck_assert_uint_eq(f2.ios, 7);
}
END_TEST

static Suite *flow_suite(void)
{
    Suite *s = suite_create("flow");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, counts_keep_to_the_weights);
    tcase_add_test(tc, a_job_that_leaves_holds_nobody_back);
    tcase_add_test(tc, two_flows_are_apart);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(flow_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
