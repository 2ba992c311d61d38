/*
 * End-to-end protection information and metadata on NVMe passthrough
 * (core/pi.c, engines/nvme_pi.c), without a device; the commands
 * themselves run under QEMU (tests/vm: a PI namespace).
 *  - the keys: pi_chk takes fio's syntax and refuses anything else;
 *    apptag and apptag_mask take fio's hex; every key reads back;
 *  - the plan refuses the keys for every engine but nvme, naming why;
 *  - the namespace's format (Identify, built here byte by byte) against
 *    the keys: no metadata, metadata without PI, extended LBAs, REFTAG on
 *    type 3, a too small md_per_io_size, a metadata format with no key set:
 *    each refused naming the figure; what is accepted sets the command's
 *    PRACT/PRCHK bits, tags and metadata size;
 *  - a fio job file's pi_act, pi_chk, apptag, apptag_mask and
 *    md_per_io_size (fio 3.41's io_uring_cmd options) map to the keys;
 *  - the guard is CRC-16/T10-DIF (its published check value), and the PI
 *    nvbench writes lands where DPS says, big-endian.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvbench.h"
#include "core/engine.h"
#include "core/iomode.h"
#include "devices/nvme_ns.h"
#include "engines/nvme_pi.h"
#include "testutil.h"

START_TEST(keys_parse_and_read_back)
{
    struct nvb_workload *w;
    char buf[80];
    unsigned bits;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    /* fio's defaults */
    ck_assert_int_gt(nvb_workload_get(w, "apptag", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "4660");
    ck_assert_int_gt(nvb_workload_get(w, "apptag_mask", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "65535");
    ck_assert_int_eq(nvb_workload_set(w, "pi_chk", "GUARD,REFTAG,APPTAG"), 0);
    ck_assert_int_gt(nvb_workload_get(w, "pi_chk", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "GUARD,REFTAG,APPTAG");
    ck_assert_int_eq(nvb__pi_chk_parse("guard,APPTAG", &bits), 0);
    ck_assert_uint_eq(bits, NVB__PI_GUARD | NVB__PI_APPTAG);
    ck_assert_int_eq(nvb__pi_chk_parse("none", &bits), 0);
    ck_assert_uint_eq(bits, 0);
    /* refused, naming the key; the value before stays */
    ck_assert_int_eq(nvb_workload_set(w, "pi_chk", "GUARD,CRC"), -EINVAL);
    ck_assert_msg(strstr(nvb_workload_error(w), "pi_chk") && strstr(nvb_workload_error(w), "GUARD, REFTAG, APPTAG"),
                  "%s", nvb_workload_error(w));
    ck_assert_int_eq(nvb_workload_set(w, "pi_chk", "GUARD,"), -EINVAL);
    ck_assert_int_gt(nvb_workload_get(w, "pi_chk", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "GUARD,REFTAG,APPTAG");
    ck_assert_int_eq(nvb_workload_set(w, "apptag", "0xBEEF"), 0);
    ck_assert_int_gt(nvb_workload_get(w, "apptag", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "48879");
    ck_assert_int_eq(nvb_workload_set(w, "apptag", "0x10000"), -ERANGE);
    ck_assert_int_eq(nvb_workload_set(w, "apptag", "0x"), -EINVAL);
    ck_assert_int_eq(nvb_workload_set(w, "apptag", "0xg1"), -EINVAL);
    ck_assert_int_eq(nvb_workload_set(w, "md_per_io_size", "64"), 0);
    ck_assert_int_eq(nvb_workload_set(w, "pi_act", "1"), 0);
    nvb_workload_free(w);
}
END_TEST

static int validate(const char *engine, const char *key, const char *value, char *err, size_t len)
{
    struct nvb_workload *w;
    ck_assert_int_eq(nvb_workload_new(&w), 0);
    ck_assert_int_eq(nvb_workload_set(w, "engine", engine), 0);
    ck_assert_int_eq(nvb_workload_set(w, key, value), 0);
    char *path = tu_scratch("pi-validate", 1 << 20);
    ck_assert_int_eq(nvb_workload_add_target(w, path), 0);
    int rc = nvb_workload_validate(w);
    snprintf(err, len, "%s", nvb_workload_error(w));
    nvb_workload_free(w);
    unlink(path);
    free(path);
    return rc;
}

START_TEST(other_engines_refused)
{
    static const char *const engines[] = {"psync", "io_uring", "libaio", "null"};
    static const char *const kv[][2] = {{"pi_act", "1"}, {"pi_chk", "GUARD"}, {"md_per_io_size", "8"}};
    char err[512];
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
        char why[256];
        if (nvb_engine_probe(engines[i], why, sizeof why) < 0)
            continue; /* the engine's own reason comes first */
        for (size_t k = 0; k < 3; k++) {
            ck_assert_int_eq(validate(engines[i], kv[k][0], kv[k][1], err, sizeof err), -ENOTSUP);
            ck_assert_msg(strstr(err, kv[k][0]) && strstr(err, "engine nvme") && strstr(err, engines[i]), "%s",
                          err);
        }
    }
    /* not set: nothing refused */
    ck_assert_int_eq(validate("psync", "apptag", "7", err, sizeof err), 0);
}
END_TEST

/* An Identify Namespace structure: LBA format 0 of lbads/ms in use. */
static void idns(uint8_t *b, unsigned lbads, unsigned ms, unsigned dps, int extended, struct nvb__idns *id)
{
    memset(b, 0, 4096);
    b[0] = 0x00; b[1] = 0x80; /* nsze 32768 blocks */
    b[25] = 0;                /* one format */
    b[26] = extended ? 0x10 : 0;
    b[29] = (uint8_t)dps;
    b[128] = (uint8_t)ms; b[129] = (uint8_t)(ms >> 8);
    b[130] = (uint8_t)lbads;
    ck_assert_int_eq(nvb__idns_parse(b, 4096, id), 0);
    ck_assert_uint_eq(id->ms, ms);
    ck_assert_uint_eq(id->dps, dps);
    ck_assert_uint_eq(id->extended, !!extended);
}

static int plan(const struct nvb__idns *id, unsigned act, unsigned chk, uint64_t md, struct nvb__pi_fmt *f,
                char *why, size_t len)
{
    struct nvb__pi pi = {.act = act, .chk = chk, .apptag = 0x1234, .apptag_mask = 0xffff, .md_per_io = md};
    why[0] = 0;
    return nvb__nvme_pi_plan(id, &pi, 16384, f, why, len); /* I/Os up to 16 KiB */
}

START_TEST(format_checks)
{
    uint8_t *b = malloc(4096);
    struct nvb__idns id;
    struct nvb__pi_fmt f;
    char why[400];
    /* no metadata: nothing set is fine, anything set is refused */
    idns(b, 9, 0, 0, 0, &id);
    ck_assert_int_eq(plan(&id, 0, 0, 0, &f, why, sizeof why), 0);
    ck_assert_uint_eq(f.ms, 0);
    ck_assert_int_eq(plan(&id, 1, 0, 0, &f, why, sizeof why), -ENOTSUP);
    ck_assert_msg(strstr(why, "pi_act=1") && strstr(why, "without metadata"), "%s", why);
    ck_assert_int_eq(plan(&id, 0, 0, 64, &f, why, sizeof why), -ENOTSUP);
    ck_assert_msg(strstr(why, "md_per_io_size"), "%s", why);
    /* 8 bytes of metadata, PI type 1 in the last 8 bytes */
    idns(b, 9, 8, 1, 0, &id);
    ck_assert_int_eq(plan(&id, 0, 0, 0, &f, why, sizeof why), -ENOTSUP);
    ck_assert_msg(strstr(why, "md_per_io_size=256") && strstr(why, "pi_act=1"), "%s", why); /* 32 blocks x 8 */
    ck_assert_int_eq(plan(&id, 0, NVB__PI_GUARD, 255, &f, why, sizeof why), -EINVAL);
    ck_assert_msg(strstr(why, "md_per_io_size=255") && strstr(why, "32 blocks x 8 bytes = 256"), "%s", why);
    /* PRACT: the controller inserts and strips, no metadata moves */
    ck_assert_int_eq(plan(&id, 1, NVB__PI_GUARD | NVB__PI_REFTAG, 0, &f, why, sizeof why), 0);
    ck_assert_uint_eq(f.md_per_io, 0);
    ck_assert_uint_eq(f.host_gen, 0);
    ck_assert_uint_eq(f.cdw12, NVB__CDW12_PRACT | NVB__CDW12_PRCHK_GUARD | NVB__CDW12_PRCHK_REFTAG);
    ck_assert_uint_eq(f.reftag, 1);
    ck_assert_uint_eq(f.cdw15, 0xffff1234u);
    /* host-generated PI, all three checked */
    ck_assert_int_eq(plan(&id, 0, NVB__PI_GUARD | NVB__PI_APPTAG | NVB__PI_REFTAG, 256, &f, why, sizeof why), 0);
    ck_assert_uint_eq(f.md_per_io, 256);
    ck_assert_uint_eq(f.host_gen, 1);
    ck_assert_uint_eq(f.cdw12, NVB__CDW12_PRCHK_GUARD | NVB__CDW12_PRCHK_APPTAG | NVB__CDW12_PRCHK_REFTAG);
    /* type 3: no reference tag */
    idns(b, 9, 8, 3, 0, &id);
    ck_assert_int_eq(plan(&id, 1, NVB__PI_REFTAG, 0, &f, why, sizeof why), -ENOTSUP);
    ck_assert_msg(strstr(why, "type 3") && strstr(why, "REFTAG"), "%s", why);
    ck_assert_int_eq(plan(&id, 1, NVB__PI_GUARD, 0, &f, why, sizeof why), 0);
    ck_assert_uint_eq(f.reftag, 0);
    /* metadata without PI: a buffer, but nothing to insert or check */
    idns(b, 12, 16, 0, 0, &id);
    ck_assert_int_eq(plan(&id, 0, NVB__PI_GUARD, 64, &f, why, sizeof why), -ENOTSUP);
    ck_assert_msg(strstr(why, "no protection information") && strstr(why, "16 bytes"), "%s", why);
    ck_assert_int_eq(plan(&id, 0, 0, 64, &f, why, sizeof why), 0); /* 4 blocks of 4 KiB x 16 */
    ck_assert_uint_eq(f.host_gen, 0);
    ck_assert_uint_eq(f.md_per_io, 64);
    /* 16 bytes with PI: PRACT still moves the other 8 */
    idns(b, 12, 16, 1 | 8, 0, &id);
    ck_assert_int_eq(plan(&id, 1, 0, 0, &f, why, sizeof why), -EINVAL);
    ck_assert_msg(strstr(why, "4 blocks x 16 bytes = 64"), "%s", why);
    ck_assert_int_eq(plan(&id, 1, 0, 64, &f, why, sizeof why), 0);
    ck_assert_uint_eq(f.first, 1);
    /* extended LBAs */
    idns(b, 9, 8, 1, 1, &id);
    ck_assert_int_eq(plan(&id, 1, 0, 0, &f, why, sizeof why), -ENOTSUP);
    ck_assert_msg(strstr(why, "extended LBAs"), "%s", why);
    free(b);
}
END_TEST

START_TEST(guard_and_tuple)
{
    /* CRC-16/T10-DIF's check value (the CRC catalogue's "123456789") */
    ck_assert_uint_eq(nvb__crc_t10dif(0, "123456789", 9), 0xd0db);
    ck_assert_uint_eq(nvb__crc_t10dif(nvb__crc_t10dif(0, "1234", 4), "56789", 5), 0xd0db);
    uint8_t data[2 * 512], md[2 * 16];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 7 + 1);
    struct nvb__pi_fmt f = {.lba_size = 512, .ms = 16, .type = 1, .first = 0, .cdw15 = 0xffffbeefu};
    nvb__nvme_pi_fill(&f, data, 2, 0x100000005ull, md);
    for (int k = 0; k < 2; k++) {
        const uint8_t *t = md + k * 16 + 8; /* the last 8 bytes */
        uint16_t g = nvb__crc_t10dif(0, data + k * 512, 512);
        ck_assert_uint_eq(t[0], g >> 8);
        ck_assert_uint_eq(t[1], g & 0xff);
        ck_assert_uint_eq(t[2], 0xbe);
        ck_assert_uint_eq(t[3], 0xef);
        ck_assert_uint_eq(t[4], 0);
        ck_assert_uint_eq(t[5], 0);
        ck_assert_uint_eq(t[6], 0);
        ck_assert_uint_eq(t[7], 5 + k); /* the LBA's low 32 bits */
        for (int z = 0; z < 8; z++)
            ck_assert_uint_eq(md[k * 16 + z], 0);
    }
    f.first = 1;
    nvb__nvme_pi_fill(&f, data, 1, 9, md);
    ck_assert_uint_eq(md[7], 9);
    ck_assert_uint_eq(md[15], 0);
}
END_TEST

START_TEST(fio_job_maps)
{
    char *dir = tu_mkdtemp("pi-fio"), path[600], why[1024];
    snprintf(path, sizeof path, "%s/pi.fio", dir);
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    fputs("[pi]\nioengine=io_uring_cmd\ncmd_type=nvme\nfilename=/dev/ng0n1\nrw=randwrite\nbs=4k\nsize=1m\n"
          "pi_act=0\npi_chk=GUARD,REFTAG,APPTAG\napptag=0x8888\napptag_mask=0xFFFF\nmd_per_io_size=64\n", fp);
    fclose(fp);
    struct nvb_fiojob *f = NULL;
    struct nvb_fiomap *m = NULL;
    int rc = nvb_fiojob_read(path, NULL, &f, why, sizeof why);
    if (rc == 0)
        rc = nvb_fiomap_new(f, path, 0, &m, why, sizeof why);
    nvb_fiojob_free(f);
    ck_assert_msg(rc == 0 && m, "%d %s", rc, why);
    static const char *const want[][2] = {{"engine", "nvme"}, {"pi_act", "0"}, {"pi_chk", "GUARD,REFTAG,APPTAG"},
                                          {"apptag", "0x8888"}, {"apptag_mask", "0xFFFF"}, {"md_per_io_size", "64"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *got = NULL;
        for (size_t k = 0; k < nvb_fiomap_count(m, 0, NVB_FIOMAP_KEYS); k++) {
            const char *v, *n = nvb_fiomap_item(m, 0, NVB_FIOMAP_KEYS, k, &v, NULL);
            if (!strcmp(n, want[i][0]))
                got = v;
        }
        ck_assert_msg(got && !strcmp(got, want[i][1]), "%s: %s", want[i][0], got ? got : "(none)");
        /* and the workload takes the value as mapped */
        struct nvb_workload *w;
        ck_assert_int_eq(nvb_workload_new(&w), 0);
        ck_assert_msg(nvb_workload_set(w, want[i][0], got) == 0, "%s", nvb_workload_error(w));
        nvb_workload_free(w);
    }
    nvb_fiomap_free(m);
    unlink(path);
    rmdir(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pi");
    TCase *tc = tcase_create("pi");
    tcase_add_test(tc, keys_parse_and_read_back);
    tcase_add_test(tc, other_engines_refused);
    tcase_add_test(tc, format_checks);
    tcase_add_test(tc, guard_and_tuple);
    tcase_add_test(tc, fio_job_maps);
    suite_add_tcase(s, tc);
    int failed = tu_run_suite(s);
    return failed ? 1 : 0;
}
