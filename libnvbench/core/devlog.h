/*
 * What the device did during a run (devlog.c): the NVMe SMART / Health
 * Information log (log page 02h) read before and after the run, as fields
 * by the specification's names. And what the machine's energy counters
 * said (energy.c). Both are built on every OS; the reads they need are
 * Linux only (devices/nvme_smart.c, powercap in sysfs).
 */
#ifndef NVB_CORE_DEVLOG_H
#define NVB_CORE_DEVLOG_H

#include <stddef.h>
#include <stdint.h>

#include "devices/facts.h" /* NVB__SMART_LOG_LEN, the read */

/* The fields of the health log nvbench keeps, the one list of them: in the
 * order results write them, X(ID, name, byte offset, width, flags, unit,
 * meaning), by the NVMe base specification's names in snake case; flags
 * (figures.h) 0, or for a field results written before it lack,
 * NVB__FF_OLD | NVB__FF_OPT | NVB__FF_NZ (absent when 0, so those results
 * read and write back as they were). From it come the
 * NVB__SM_ID indices below, the log page's reading (devlog.c), the rows of
 * device_log's before, after and delta (figures.c), and so their schema
 * (docs/result.schema.json) and the table of docs/device.md. 128-bit
 * counters are kept in 64 bits, saturated (a device would need 9.4e24 bytes
 * to pass it). */
#define NVB__SMART_FIELDS(X) \
    X(CRITICAL_WARNING, "critical_warning", 0, 1, 0, "bits", "Critical Warning (bit 1: the temperature beyond a threshold)") \
    X(TEMPERATURE_K, "temperature_k", 1, 2, 0, "kelvin", "Composite Temperature") \
    X(AVAILABLE_SPARE, "available_spare", 3, 1, 0, "percent", "Available Spare") \
    X(AVAILABLE_SPARE_THRESHOLD, "available_spare_threshold", 4, 1, 0, "percent", "Available Spare Threshold") \
    X(PERCENTAGE_USED, "percentage_used", 5, 1, 0, "percent", "Percentage Used (of the rated endurance)") \
    X(DATA_UNITS_READ, "data_units_read", 32, 16, 0, "1000 x 512 bytes", "Data Units Read (rounded up by the device)") \
    X(DATA_UNITS_WRITTEN, "data_units_written", 48, 16, 0, "1000 x 512 bytes", "Data Units Written (rounded up by the device)") \
    X(HOST_READ_COMMANDS, "host_read_commands", 64, 16, 0, "commands", "Host Read Commands") \
    X(HOST_WRITE_COMMANDS, "host_write_commands", 80, 16, 0, "commands", "Host Write Commands") \
    X(CONTROLLER_BUSY_TIME, "controller_busy_time", 96, 16, 0, "minutes", "Controller Busy Time") \
    X(POWER_CYCLES, "power_cycles", 112, 16, 0, "count", "Power Cycles") \
    X(POWER_ON_HOURS, "power_on_hours", 128, 16, 0, "hours", "Power On Hours") \
    X(UNSAFE_SHUTDOWNS, "unsafe_shutdowns", 144, 16, 0, "count", "Unsafe Shutdowns") \
    X(MEDIA_ERRORS, "media_errors", 160, 16, 0, "count", "Media and Data Integrity Errors") \
    X(ERROR_LOG_ENTRIES, "error_information_log_entries", 176, 16, 0, "count", "Number of Error Information Log Entries") \
    X(WARNING_TEMPERATURE_TIME, "warning_composite_temperature_time", 192, 4, 0, "minutes", "Warning Composite Temperature Time") \
    X(CRITICAL_TEMPERATURE_TIME, "critical_composite_temperature_time", 196, 4, 0, "minutes", "Critical Composite Temperature Time") \
    X(THERMAL_MGMT_1_TRANSITIONS, "thermal_management_temperature_1_transition_count", 216, 4, 0, "count", "Thermal Management Temperature 1 Transition Count (light throttling)") \
    X(THERMAL_MGMT_2_TRANSITIONS, "thermal_management_temperature_2_transition_count", 220, 4, 0, "count", "Thermal Management Temperature 2 Transition Count (heavy throttling)") \
    X(THERMAL_MGMT_1_TIME, "thermal_management_temperature_1_total_time", 224, 4, 0, "seconds", "Total Time For Thermal Management Temperature 1") \
    X(THERMAL_MGMT_2_TIME, "thermal_management_temperature_2_total_time", 228, 4, 0, "seconds", "Total Time For Thermal Management Temperature 2")

#define NVB__SM_ENUM(id, name, at, width, flags, unit, doc) NVB__SM_##id,
enum { NVB__SMART_FIELDS(NVB__SM_ENUM) NVB__SM_N };
#undef NVB__SM_ENUM
/* One data unit: 1000 units of 512 bytes (the spec's definition). */
#define NVB__SMART_DATA_UNIT 512000ull

/* The field's JSON name, or NULL past the end. */
const char *nvb__smart_name(unsigned i);
/* A little-endian counter of width bytes at p, saturated at 2^64 - 1. Pure. */
uint64_t nvb__le_sat(const uint8_t *p, unsigned width);
/* Parse a health log page (at least 512 bytes) into v[NVB__SM_N].
 * 0 or -EINVAL (too short). Pure. */
int nvb__smart_parse(const uint8_t *buf, size_t len, uint64_t *v);

/* The figures of a Power Measurement log page (LID 25h) nvbench uses
 * (devlog_power.c). */
struct nvb__pmlog {
    unsigned gen;              /* PMGN: the measurement's generation (a restart changes it) */
    unsigned pma;              /* PMA: bit 0 enabled, bit 2 estimated, bits 15:12 the type */
    uint32_t count;            /* PMC: interval measurements since the start */
    double   avg_w;            /* AIPWR: their average, in watts */
    double   step_w;           /* one step of AIPWR's value at its scale (0.01 or 0.0001 W) */
};

struct nvb__devlog {           /* per target, in struct nvb__tstat */
    int      state;            /* 0: absent (not read; a result from before it); 1: read; 2: unavailable */
    char     reason[160];      /* state 2: why */
    char     node[64];         /* the node the log was read through */
    uint32_t warn_temp_k;      /* the composite temperature's over threshold (Get Features 04h), 0 unknown */
    uint64_t before[NVB__SM_N], after[NVB__SM_N];
    /* The power state before and after (state 1 only): pw 0 absent (a
     * result from before it), 1 read, 2 unavailable (pw_reason). */
    int      pw;
    char     pw_reason[160];
    unsigned ps_before, ps_after;
    double   max_w;            /* the state after's maximum power, 0 unknown */
    double   psd_w[32];        /* each state's maximum power (Identify Controller, read once; 0 unknown) */
    /* Media writes (devlog_media.c) before and after (state 1 only): ms 0
     * absent (a result from before it), 1 read, 2 unavailable (ms_reason). */
    int      ms;
    char     ms_reason[200];
    int      ms_src;           /* NVB__MEDIA_EG or NVB__MEDIA_OCP */
    uint32_t endgid;           /* NVB__MEDIA_EG: the endurance group */
    uint64_t media_before, media_after; /* bytes written to the media (saturated) */
    /* The controller's power measurement (devlog_power.c), beside the power
     * state (pw 1 only): pm_w the NVM subsystem's average power over the
     * pm_n interval measurements that ended between the two reads; 0 when
     * not measured, pm_reason then says why (read back as it was written). */
    double   pm_w;
    uint32_t pm_n;
    char     pm_reason[200];
    struct nvb__pmlog pm_before; /* the Power Measurement log before the run */
};

/* Identify Controller and Identify Namespace of a devlog's node, read once
 * before the run (devlog.c) for the readers that need them (power
 * measurement's support, media writes' source): ok 0, why then says why. */
struct nvb__devids {
    uint8_t ctrl[4096], ns[4096];
    int     ok;      /* both read */
    int     ctrl_ok; /* Identify Controller read (Identify Namespace may have failed) */
    char    why[160];
};

/* device_log.power.measured_reason as results had it before nvbench read the
 * power measurement log (they read and write back as they were). */
#define NVB__POWER_NOT_MEASURED "nvbench reads the power state and its maximum power; it does not read a device's " \
    "power measurement (none of the devices it was tested on reports one)"

/* The controller's power measurement (devlog_power.c): the NVMe Power
 * Measurement log (LID 25h), where Identify Controller says the controller
 * supports it (CTRATT bit 21). The length of the page's fixed part. */
#define NVB__PM_LOG_LEN 64
/* Whether Identify Controller (4096 bytes) says power measurement is
 * supported; 0 with why when not. Pure. */
int nvb__pm_supported(const uint8_t *id_ctrl, char *why, size_t whylen);
/* A Power Measurement log page of len bytes into *out: 0, or -EINVAL with
 * why (too short, no average reported, a reserved scale). Pure. */
int nvb__pm_parse(const uint8_t *buf, size_t len, struct nvb__pmlog *out, char *why, size_t whylen);
/* The average power over the interval measurements that ended between two
 * readings b and a of one measurement, into *w and their count into *n:
 * 0, or -1 with why (stopped, restarted, no interval ended, another type
 * than the NVM subsystem's total power, too coarse an average). Pure. */
int nvb__pm_window(const struct nvb__pmlog *b, const struct nvb__pmlog *a, double *w, uint32_t *n, char *why,
                   size_t whylen);
/* Read before (ids: the node's Identify pages) and after the run (ids
 * NULL) for d's node: pm_w and pm_n, or pm_reason. */
void nvb__pm_read(struct nvb__devlog *d, const struct nvb__devids *ids);

struct nvb__tstat;
struct nvb_result;
struct nvb__buf;
/* The log before the run, for every target of res (reason where none). */
void nvb__devlog_begin(struct nvb_result *res, int no_io);
/* The log after the run; warnings into res (temperature, throttling, media errors). */
void nvb__devlog_end(struct nvb_result *res);
/* Target t's warnings from its before and after (pure: the end's second half). */
void nvb__devlog_warnings(struct nvb_result *res, unsigned t);
/* What device_log's writer derives from a target's log (figures.c's
 * NVB__FS_DEVLOG rows of type NVB__FT_DERIV, and its delta's rows): each
 * ratio NaN where it is null, reason why they are (NULL when they are not),
 * each field's after - before. Written and read as the table of figures
 * says (NVB__FS_DEVLOG, _HEALTH, _HEALTHD, _DEVPOWER). */
struct nvb__devlog_derived {
    double      dev_w, dev_r, cmds; /* device_bytes_per_host_byte, device_read_..., host_commands_per_io */
    const char *reason;             /* derived_reason */
    int64_t     delta[NVB__SM_N];
    double      waf;                /* write_amplification: NaN where null */
    const char *waf_reason;         /* why it is null (NULL when it is not) */
};
void nvb__devlog_derive(const struct nvb_result *r, const struct nvb__tstat *ts, struct nvb__devlog_derived *out);

/* Media writes (devlog_media.c): where a controller reports the bytes its
 * media took, the Endurance Group Information log (LID 09h, Media Units
 * Written) or OCP's SMART / Health Information Extended log (LID C0h,
 * Physical Media Units Written, its GUID checked). */
enum { NVB__MEDIA_EG = 1, NVB__MEDIA_OCP = 2 };
#define NVB__MEDIA_LOG_LEN 512
/* The source's name in results ("endurance_group_log", "ocp_smart_extended_log"),
 * NULL for another; and back: the source, 0 for another name. */
const char *nvb__media_source_name(int src);
int nvb__media_source(const char *name);
/* The endurance group a namespace is in, from Identify Controller (CTRATT
 * bit 4: the controller supports endurance groups) and Identify Namespace
 * (ENDGID); 0 with why when there is none. Pure. */
unsigned nvb__media_endgid(const uint8_t *id_ctrl, const uint8_t *id_ns, char *why, size_t whylen);
/* The bytes written to the media from a log page of source src, len bytes:
 * 0, or -EINVAL with why (too short, another log's GUID, an unknown source). Pure. */
int nvb__media_parse(int src, const uint8_t *buf, size_t len, uint64_t *bytes, char *why, size_t whylen);
/* Read before (ids: the node's Identify pages, to choose the source) and
 * after the run (ids NULL: d->ms 1, the same source); d->ms 2 with the
 * reason when not available. */
void nvb__media_read(struct nvb__devlog *d, const struct nvb__devids *ids);

/* RAPL package energy over the run (energy.c). */
struct nvb__energy {
    int      state;            /* 0: absent; 1: measured; 2: unavailable */
    char     reason[160];
    char     source[32];       /* "rapl" */
    unsigned domains;          /* packages summed */
    double   joules;
};
/* A reading of every package domain under root (a powercap tree, normally
 * /sys/class/powercap): the energy counters in microjoules and their
 * ranges. 0, or -errno with why. */
#define NVB__RAPL_MAX 16
#define NVB__POWERCAP_ROOT "/sys/class/powercap"
struct nvb__rapl {
    unsigned n;
    uint64_t uj[NVB__RAPL_MAX], range_uj[NVB__RAPL_MAX];
    char     name[NVB__RAPL_MAX][32];
};
int  nvb__rapl_read(const char *root, struct nvb__rapl *out, char *why, size_t whylen);
/* Joules between two readings of the same domains (each counter may wrap
 * once at its range). -1 when they do not match. */
double nvb__rapl_joules(const struct nvb__rapl *a, const struct nvb__rapl *b);
void nvb__energy_begin(struct nvb_result *res, const char *root, struct nvb__rapl *r0);
void nvb__energy_end(struct nvb_result *res, const char *root, const struct nvb__rapl *r0);
/* Written and read as the table of figures says (figures.c, NVB__FS_ENERGY). */

/* The read itself is devices/nvme_smart.c's (devices/facts.h, Linux). */

#endif
