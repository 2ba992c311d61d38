/* Windows data formats (libnvbench/platform/winfmt.c), portable parsers
 * tested on canned buffers laid out as Windows returns them: storage
 * property descriptors, the NVMe pass-through query and its answer, the
 * stack a disk's driver names, and Windows CPU times mapped so that
 * core/cpu.c computes "Total CPU Usage" as Task Manager does. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/engine.h"
#include "nvbench.h"
#include "platform/winfmt.h"

#ifndef EPROTO
#define EPROTO 71
#endif

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* A STORAGE_DEVICE_DESCRIPTOR as a Samsung NVMe disk behind stornvme
 * reports it: bus type NVMe, the strings after the fixed part, the
 * product space-padded as SCSI INQUIRY data is. */
static size_t device_desc(uint8_t *b, size_t cap, uint32_t bus, const char *vendor, const char *product,
                          const char *rev, const char *serial)
{
    memset(b, 0, cap);
    put32(b, 40);          /* Version: sizeof */
    b[8] = 0;              /* DeviceType: direct access */
    b[10] = 0;             /* RemovableMedia */
    b[11] = 1;             /* CommandQueueing */
    put32(b + 28, bus);
    size_t off = 40;
    const char *s[4] = { vendor, product, rev, serial };
    for (int i = 0; i < 4; i++) {
        if (!s[i]) {
            put32(b + 12 + 4 * i, 0);
            continue;
        }
        put32(b + 12 + 4 * i, (uint32_t)off);
        memcpy(b + off, s[i], strlen(s[i]) + 1);
        off += strlen(s[i]) + 1;
    }
    put32(b + 4, (uint32_t)off); /* Size: the whole descriptor */
    return off;
}

START_TEST(device_descriptor_nvme)
{
    uint8_t b[256];
    size_t n = device_desc(b, sizeof b, 0x11, "NVMe    ", "Samsung SSD 980 PRO 1TB                 ", "5B2QGXA7",
                           "0025_3852_1150_1234.");
    struct nvb__win_storage s;
    nvb__win_storage_init(&s);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_DEVICE, b, n, &s), 0);
    ck_assert_int_eq(s.have_device, 1);
    ck_assert_uint_eq(s.bus_type, NVB__WIN_BUS_NVME);
    ck_assert_str_eq(nvb__win_bus_name(s.bus_type), "nvme");
    ck_assert_str_eq(s.vendor, "NVMe");
    ck_assert_str_eq(s.product, "Samsung SSD 980 PRO 1TB");
    ck_assert_str_eq(s.revision, "5B2QGXA7");
    ck_assert_str_eq(s.serial, "0025_3852_1150_1234.");
    ck_assert_int_eq(s.command_queueing, 1);
    ck_assert_int_eq(s.removable, 0);
    ck_assert_int_eq(s.seek_penalty, -1); /* not asked yet */
}
END_TEST

START_TEST(device_descriptor_absent_and_truncated)
{
    uint8_t b[256];
    /* A SATA disk with no vendor string (offset 0) and no serial */
    size_t n = device_desc(b, sizeof b, 0x0b, NULL, "ST4000NM0035-1V4107", "TN03", NULL);
    struct nvb__win_storage s;
    nvb__win_storage_init(&s);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_DEVICE, b, n, &s), 0);
    ck_assert_str_eq(s.vendor, "");
    ck_assert_str_eq(s.serial, "");
    ck_assert_str_eq(nvb__win_bus_name(s.bus_type), "sata");

    /* The caller's buffer held only part: strings past it are not read,
     * a string cut by the end stops there. */
    n = device_desc(b, sizeof b, 0x11, "NVMe", "Model Name", "1.0", "SERIAL123");
    size_t cut = get32(b + 16) + 5; /* inside the product string */
    nvb__win_storage_init(&s);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_DEVICE, b, cut, &s), 0);
    ck_assert_str_eq(s.vendor, "NVMe");
    ck_assert_str_eq(s.product, "Model");
    ck_assert_str_eq(s.serial, "");

    /* Only the 8-byte header (a size query): too short to parse */
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_DEVICE, b, 8, &s), -EINVAL);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_DEVICE, b, 4, &s), -EINVAL);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_DEVICE, NULL, 100, &s), -EINVAL);
    /* A Size smaller than the fixed part is another structure */
    put32(b + 4, 16);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_DEVICE, b, n, &s), -EPROTO);
    (void)n;
}
END_TEST

START_TEST(device_descriptor_hostile_offsets)
{
    uint8_t b[64];
    memset(b, 0, sizeof b);
    put32(b, 40);
    put32(b + 4, 0xffffffffu);   /* claims 4 GiB */
    put32(b + 12, 60);           /* inside, but unterminated to the end */
    put32(b + 16, 0x7fffffffu);  /* far outside */
    memset(b + 60, 'A', 4);
    b[62] = 0x01;                /* a control byte */
    struct nvb__win_storage s;
    nvb__win_storage_init(&s);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_DEVICE, b, sizeof b, &s), 0);
    ck_assert_str_eq(s.vendor, "AA?A");
    ck_assert_str_eq(s.product, "");
}
END_TEST

START_TEST(adapter_descriptor)
{
    uint8_t b[32];
    memset(b, 0, sizeof b);
    put32(b, 32);
    put32(b + 4, 32);
    put32(b + 8, 128 * 1024);    /* MaximumTransferLength */
    put32(b + 12, 33);           /* MaximumPhysicalPages */
    put32(b + 16, 3);            /* AlignmentMask: DWORD alignment */
    b[22] = 1;                   /* CommandQueueing */
    b[24] = 0x11;                /* BusType: a BYTE here */
    put16(b + 26, 1);            /* NVMe 1.4 */
    put16(b + 28, 4);
    b[30] = 1;                   /* SrbType: STORAGE_REQUEST_BLOCK */
    struct nvb__win_storage s;
    nvb__win_storage_init(&s);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_ADAPTER, b, sizeof b, &s), 0);
    ck_assert_uint_eq(s.max_transfer, 131072);
    ck_assert_uint_eq(s.alignment_mask, 3);
    ck_assert_uint_eq(s.adapter_bus_type, NVB__WIN_BUS_NVME);
    ck_assert_uint_eq(s.bus_major, 1);
    ck_assert_uint_eq(s.bus_minor, 4);
    /* before Windows 8 the structure ended at 30 bytes: still parsed */
    put32(b + 4, 30);
    nvb__win_storage_init(&s);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_ADAPTER, b, 30, &s), 0);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_ADAPTER, b, 20, &s), -EINVAL);
}
END_TEST

START_TEST(alignment_descriptor)
{
    uint8_t b[28];
    memset(b, 0, sizeof b);
    put32(b, 28);
    put32(b + 4, 28);
    put32(b + 8, 64);            /* BytesPerCacheLine */
    put32(b + 16, 512);          /* logical: 512e */
    put32(b + 20, 4096);         /* physical */
    struct nvb__win_storage s;
    nvb__win_storage_init(&s);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_ALIGNMENT, b, sizeof b, &s), 0);
    ck_assert_uint_eq(s.lbs, 512);
    ck_assert_uint_eq(s.pbs, 4096);
    ck_assert_uint_eq(s.align_offset, 0);
    /* 4Kn */
    put32(b + 16, 4096);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_ALIGNMENT, b, sizeof b, &s), 0);
    ck_assert_uint_eq(s.lbs, 4096);
    /* nonsense sector sizes are refused, not believed */
    put32(b + 16, 520);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_ALIGNMENT, b, sizeof b, &s), -EINVAL);
    put32(b + 16, 4096);
    put32(b + 20, 512);          /* physical below logical */
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_ALIGNMENT, b, sizeof b, &s), -EINVAL);
    put32(b + 20, 0);            /* unknown physical: take the logical */
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_ALIGNMENT, b, sizeof b, &s), 0);
    ck_assert_uint_eq(s.pbs, 4096);
}
END_TEST

START_TEST(seek_penalty_descriptor)
{
    uint8_t b[12] = { 12, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0 };
    struct nvb__win_storage s;
    nvb__win_storage_init(&s);
    ck_assert_int_eq(s.seek_penalty, -1);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_SEEK_PENALTY, b, sizeof b, &s), 0);
    ck_assert_int_eq(s.seek_penalty, 0); /* solid state */
    b[8] = 1;
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_SEEK_PENALTY, b, sizeof b, &s), 0);
    ck_assert_int_eq(s.seek_penalty, 1);
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_SEEK_PENALTY, b, 8, &s), -EINVAL);
    /* a property without a parser here is refused, s untouched */
    ck_assert_int_eq(nvb__win_parse_property(NVB__WIN_PROP_DEVICE_PROTOCOL, b, sizeof b, &s), -EINVAL);
    ck_assert_int_eq(s.seek_penalty, 1);
    ck_assert_int_eq(s.have_device, 0);
}
END_TEST

START_TEST(property_query)
{
    uint8_t q[12];
    memset(q, 0xee, sizeof q);
    ck_assert_uint_eq(nvb__win_property_query(q, sizeof q, NVB__WIN_PROP_ALIGNMENT), 12);
    ck_assert_uint_eq(get32(q), 6);
    ck_assert_uint_eq(get32(q + 4), 0); /* PropertyStandardQuery */
    ck_assert_uint_eq(get32(q + 8), 0);
    ck_assert_uint_eq(nvb__win_property_query(q, 8, 0), 0);
}
END_TEST

/* The buffer Windows hands back for an NVMe Identify query: the 8-byte
 * descriptor header, STORAGE_PROTOCOL_SPECIFIC_DATA, then the data at
 * ProtocolDataOffset from the start of that structure. */
START_TEST(nvme_identify_query_and_answer)
{
    uint8_t *b = calloc(1, NVB__WIN_NVME_QUERY_LEN);
    ck_assert_uint_eq(nvb__win_nvme_identify_query(b, NVB__WIN_NVME_QUERY_LEN, 1, 0), NVB__WIN_NVME_QUERY_LEN);
    ck_assert_uint_eq(get32(b), NVB__WIN_PROP_ADAPTER_PROTOCOL);
    ck_assert_uint_eq(get32(b + 8), 3);       /* ProtocolTypeNvme */
    ck_assert_uint_eq(get32(b + 12), 1);      /* NVMeDataTypeIdentify */
    ck_assert_uint_eq(get32(b + 16), 1);      /* CNS: controller */
    ck_assert_uint_eq(get32(b + 24), 40);     /* ProtocolDataOffset */
    ck_assert_uint_eq(get32(b + 28), 4096);   /* ProtocolDataLength */
    ck_assert_uint_eq(nvb__win_nvme_identify_query(b, 100, 1, 0), 0);
    uint8_t *q = calloc(1, NVB__WIN_NVME_QUERY_LEN);
    nvb__win_nvme_identify_query(q, NVB__WIN_NVME_QUERY_LEN, 0, 7);
    ck_assert_uint_eq(get32(q), NVB__WIN_PROP_DEVICE_PROTOCOL);
    ck_assert_uint_eq(get32(q + 20), 7);      /* nsid */
    free(q);

    /* the answer: Version/Size replace PropertyId/QueryType */
    put32(b, 48);
    put32(b + 4, 48);
    uint8_t *id = b + 8 + 40;
    put16(id, 0x144d);                                  /* VID: Samsung */
    memcpy(id + 4, "S5GXNF0R123456      ", 20);         /* SN */
    memcpy(id + 24, "Samsung SSD 980 PRO 1TB                 ", 40);
    memcpy(id + 64, "5B2QGXA7", 8);
    id[77] = 9;                                         /* MDTS */
    put32(id + 516, 1);                                 /* NN */
    const uint8_t *d;
    size_t dl;
    ck_assert_int_eq(nvb__win_protocol_data(b, NVB__WIN_NVME_QUERY_LEN, &d, &dl), 0);
    ck_assert_ptr_eq(d, id);
    ck_assert_uint_eq(dl, 4096);
    struct nvb__win_nvme_ctrl c;
    ck_assert_int_eq(nvb__win_parse_nvme_ctrl(d, dl, &c), 0);
    ck_assert_uint_eq(c.vid, 0x144d);
    ck_assert_str_eq(c.serial, "S5GXNF0R123456");
    ck_assert_str_eq(c.model, "Samsung SSD 980 PRO 1TB");
    ck_assert_str_eq(c.firmware, "5B2QGXA7");
    ck_assert_uint_eq(c.mdts, 9);
    ck_assert_uint_eq(c.nn, 1);

    /* the data would run past what was returned */
    ck_assert_int_eq(nvb__win_protocol_data(b, NVB__WIN_NVME_QUERY_LEN - 1, &d, &dl), -EINVAL);
    put32(b + 8 + 16, 8);    /* an offset inside the header */
    ck_assert_int_eq(nvb__win_protocol_data(b, NVB__WIN_NVME_QUERY_LEN, &d, &dl), -EINVAL);
    put32(b + 8 + 16, 40);
    put32(b + 8, 2);         /* ProtocolTypeAta: not ours */
    ck_assert_int_eq(nvb__win_protocol_data(b, NVB__WIN_NVME_QUERY_LEN, &d, &dl), -EPROTO);
    ck_assert_int_eq(nvb__win_protocol_data(b, 20, &d, &dl), -EINVAL);
    ck_assert_int_eq(nvb__win_parse_nvme_ctrl(id, 100, &c), -EINVAL);
    free(b);
}
END_TEST

START_TEST(stack_from_driver)
{
    ck_assert_str_eq(nvb__win_stack_name("nvmedisk"), "windows_native");
    ck_assert_str_eq(nvb__win_stack_name("NVMeDisk"), "windows_native");
    ck_assert_str_eq(nvb__win_stack_name("disk"), "windows_non_native");
    ck_assert_str_eq(nvb__win_stack_name("Disk"), "windows_non_native");
    ck_assert_str_eq(nvb__win_stack_name("diskx"), "unknown");
    ck_assert_str_eq(nvb__win_stack_name("stornvme"), "unknown"); /* a miniport, not a disk driver */
    ck_assert_str_eq(nvb__win_stack_name(""), "unknown");
    ck_assert_str_eq(nvb__win_stack_name(NULL), "unknown");
    ck_assert_str_eq(nvb__win_bus_name(0x14), "nvmeof");
    ck_assert_str_eq(nvb__win_bus_name(0x7f), "unknown");
    ck_assert_str_eq(nvb__win_bus_name(0xffffffffu), "unknown");
}
END_TEST

/* Two GetSystemTimes-like samples (100 ns units) of a 2-CPU machine: 10 s
 * elapsed per CPU, 5 s idle in all, 3 s user. Kernel includes idle, so
 * busy = (kernel - idle) + user = 15 s of 20: 75%. */
START_TEST(cpu_times_kernel_includes_idle)
{
    struct nvb__cpu_times a, b, d;
    nvb__win_cpu_times(0, 0, 0, 0, 0, &a);
    nvb__win_cpu_times(50000000, 170000000, 30000000, 0, 0, &b);
    nvb__cpu_times_delta(&a, &b, &d);
    ck_assert_uint_eq(d.idle, 5000000000ull);
    ck_assert_uint_eq(d.user, 3000000000ull);
    ck_assert_uint_eq(d.system, 12000000000ull);
    ck_assert_uint_eq(nvb__cpu_busy(&d), 15000000000ull);
    ck_assert_uint_eq(nvb__cpu_total(&d), 20000000000ull);
    struct nvb__cpu_split s;
    nvb__cpu_split(&d, &s);
    ck_assert(fabs(s.busy - 75.0) < 1e-9);
    ck_assert(fabs(s.idle - 25.0) < 1e-9);
}
END_TEST

/* Per-CPU rows (SystemProcessorPerformanceInformation): DPC and interrupt
 * time are parts of kernel time, reported apart (softirq, irq) and not
 * counted twice. */
START_TEST(cpu_times_dpc_interrupt)
{
    struct nvb__cpu_times t;
    /* 1 s total: idle 0.4, kernel 0.5 of which 0.1 DPC and 0.05 interrupt, user 0.5 */
    nvb__win_cpu_times(4000000, 9000000, 1000000, 1000000, 500000, &t);
    ck_assert_uint_eq(t.idle, 400000000ull);
    ck_assert_uint_eq(t.user, 100000000ull);
    ck_assert_uint_eq(t.softirq, 100000000ull);
    ck_assert_uint_eq(t.irq, 50000000ull);
    ck_assert_uint_eq(t.system, 350000000ull);
    ck_assert_uint_eq(nvb__cpu_busy(&t), 600000000ull); /* kernel - idle + user */
    ck_assert_uint_eq(nvb__cpu_total(&t), 1000000000ull);
    ck_assert_uint_eq(t.iowait + t.steal + t.nice + t.guest + t.guest_nice, 0);

    /* a sampling race leaves idle a tick above kernel: nothing negative */
    nvb__win_cpu_times(1000001, 1000000, 5, 3, 3, &t);
    ck_assert_uint_eq(t.system, 0);
    ck_assert_uint_eq(t.irq, 0);
    ck_assert_uint_eq(t.softirq, 0);
    ck_assert_uint_eq(t.user, 500);
}
END_TEST

/* The per-CPU rows feed nvb__cpu_fill exactly as /proc/stat's do. */
START_TEST(cpu_fill_from_windows_rows)
{
    struct nvb__cpu_times c0a, c0b, c1a, c1b;
    nvb__win_cpu_times(0, 0, 0, 0, 0, &c0a);
    nvb__win_cpu_times(0, 0, 0, 0, 0, &c1a);
    nvb__win_cpu_times(2000000, 2000000, 8000000, 0, 0, &c0b); /* 80% busy (all user) */
    nvb__win_cpu_times(9000000, 10000000, 0, 0, 0, &c1b);      /* 10% busy (kernel) */
    struct nvb__cpu_times ta = { 0 }, tb = c0b;
    tb.user += c1b.user;
    tb.system += c1b.system;
    tb.idle += c1b.idle;
    struct nvb__cpu_times ra[2] = { c0a, c1a }, rb[2] = { c0b, c1b };
    int ids[2] = { 0, 1 };
    struct nvb__sys_sample a = { 2, ta, ra, ids }, b = { 2, tb, rb, ids };
    ck_assert(fabs(nvb__cpu_busy_pct(&a, &b) - 45.0) < 1e-9);
}
END_TEST

/* The Windows engines are listed on Linux too, and say why they cannot run. */
START_TEST(windows_engines_probe_windows_only)
{
    static const char *const names[] = { "wsync", "iocp", "ioring" };
    for (unsigned i = 0; i < 3; i++) {
        char why[256] = "";
        ck_assert_int_ge(nvb__engine_index(names[i]), 0);
#ifdef _WIN32
        (void)why;
#else
        ck_assert_int_eq(nvb_engine_probe(names[i], why, sizeof why), -ENOTSUP);
        ck_assert_ptr_nonnull(strstr(why, "Windows only"));
#endif
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("win_parsers");
    TCase *t = tcase_create("descriptors");
    tcase_add_test(t, device_descriptor_nvme);
    tcase_add_test(t, device_descriptor_absent_and_truncated);
    tcase_add_test(t, device_descriptor_hostile_offsets);
    tcase_add_test(t, adapter_descriptor);
    tcase_add_test(t, alignment_descriptor);
    tcase_add_test(t, seek_penalty_descriptor);
    tcase_add_test(t, property_query);
    tcase_add_test(t, nvme_identify_query_and_answer);
    tcase_add_test(t, stack_from_driver);
    tcase_add_test(t, windows_engines_probe_windows_only);
    suite_add_tcase(s, t);
    TCase *c = tcase_create("cpu");
    tcase_add_test(c, cpu_times_kernel_includes_idle);
    tcase_add_test(c, cpu_times_dpc_interrupt);
    tcase_add_test(c, cpu_fill_from_windows_rows);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
