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

/* The fields of the health log nvbench keeps, in this order (devlog.c's
 * table gives each its name, offset and width). 128-bit counters are kept
 * in 64 bits, saturated (a device would need 9.4e24 bytes to pass it). */
enum {
    NVB__SM_CRITICAL_WARNING, NVB__SM_TEMPERATURE_K, NVB__SM_AVAILABLE_SPARE,
    NVB__SM_AVAILABLE_SPARE_THRESHOLD, NVB__SM_PERCENTAGE_USED,
    NVB__SM_DATA_UNITS_READ, NVB__SM_DATA_UNITS_WRITTEN,
    NVB__SM_HOST_READ_COMMANDS, NVB__SM_HOST_WRITE_COMMANDS,
    NVB__SM_CONTROLLER_BUSY_TIME, NVB__SM_POWER_CYCLES, NVB__SM_POWER_ON_HOURS,
    NVB__SM_UNSAFE_SHUTDOWNS, NVB__SM_MEDIA_ERRORS, NVB__SM_ERROR_LOG_ENTRIES,
    NVB__SM_WARNING_TEMPERATURE_TIME, NVB__SM_CRITICAL_TEMPERATURE_TIME,
    NVB__SM_THERMAL_MGMT_1_TRANSITIONS, NVB__SM_THERMAL_MGMT_2_TRANSITIONS,
    NVB__SM_THERMAL_MGMT_1_TIME, NVB__SM_THERMAL_MGMT_2_TIME,
    NVB__SM_N
};
/* One data unit: 1000 units of 512 bytes (the spec's definition). */
#define NVB__SMART_DATA_UNIT 512000ull

/* The field's JSON name, or NULL past the end. */
const char *nvb__smart_name(unsigned i);
/* Parse a health log page (at least 512 bytes) into v[NVB__SM_N].
 * 0 or -EINVAL (too short). Pure. */
int nvb__smart_parse(const uint8_t *buf, size_t len, uint64_t *v);

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
};

/* device_log.power.measured_reason: why there is no measured power. */
#define NVB__POWER_NOT_MEASURED "nvbench reads the power state and its maximum power; it does not read a device's " \
    "power measurement (none of the devices it was tested on reports one)"

struct nvb__tstat;
struct nvb_result;
struct nvb__buf;
/* The log before the run, for every target of res (reason where none). */
void nvb__devlog_begin(struct nvb_result *res, int no_io);
/* The log after the run; warnings into res (temperature, throttling, media errors). */
void nvb__devlog_end(struct nvb_result *res);
/* Target t's warnings from its before and after (pure: the end's second half). */
void nvb__devlog_warnings(struct nvb_result *res, unsigned t);
/* The target's "device_log" object as JSON text (malloc'd), or NULL when
 * there is none to write (state 0, or out of memory). */
char *nvb__devlog_json(const struct nvb_result *r, const struct nvb__tstat *ts);
struct nvb__jv;
/* Reads "device_log" of a per_target entry back (absent: state 0).
 * 0 or -EINVAL with why. */
int nvb__devlog_load(const struct nvb__jv *target, struct nvb__devlog *d, char *why, size_t whylen);

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
