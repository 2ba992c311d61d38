/*
 * The environment facts Windows keeps in the registry (core/explain_env.c):
 * the active power plan and whether Windows Server 2025's native NVMe stack
 * is opted into. Read with RegGetValueW only (no power-management DLL), so
 * the library imports nothing new. docs/cpu.md, "Windows".
 */
#include "platform/platform.h"
#include "platform/win/win.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>

#define SCHEMES L"SYSTEM\\CurrentControlSet\\Control\\Power\\User\\PowerSchemes"
#define SCHEMES_SRC "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Power\\User\\PowerSchemes"
#define OVERRIDES L"SYSTEM\\CurrentControlSet\\Policies\\Microsoft\\FeatureManagement\\Overrides"
/* The feature id Microsoft documents for the Server 2025 opt-in. */
#define NATIVE_NVME_ID L"1176759950"
#define OVERRIDES_SRC "HKLM\\SYSTEM\\CurrentControlSet\\Policies\\Microsoft\\FeatureManagement\\Overrides\\1176759950"

/* The built-in plans, whose friendly names are resource strings: each
 * its GUID (36 characters), then its name. */
static const char *const plans[] = {
    "381b4222-f694-41f0-9685-ff5bb260df2e Balanced",
    "8c5e7fda-e8bf-4a96-9a85-a6e23a8c635c High performance",
    "a1841308-3541-4fab-bc81-f71556f20b4a Power saver",
    "e9a42b02-d5df-448d-aa00-03f14749eb61 Ultimate Performance",
};

static LONG reg_sz(const wchar_t *key, const wchar_t *name, char *out, size_t len)
{
    wchar_t w[256];
    DWORD n = sizeof w - sizeof(wchar_t);
    out[0] = 0;
    LONG rc = RegGetValueW(HKEY_LOCAL_MACHINE, key, name, RRF_RT_REG_SZ, NULL, w, &n);
    if (rc == ERROR_SUCCESS) {
        w[255] = 0;
        nvb__win_narrow(w, out, len);
    }
    return rc;
}

static void power_plan(nvb__os_fact_fn fn, void *arg)
{
    char guid[80], name[160], v[256], why[160];
    LONG rc = reg_sz(SCHEMES, L"ActivePowerScheme", guid, sizeof guid);
    if (rc != ERROR_SUCCESS) {
        snprintf(why, sizeof why, "unavailable: the registry has no active power scheme (error %ld)", (long)rc);
        fn(arg, "power_plan", NULL, SCHEMES_SRC "\\ActivePowerScheme", why);
        return;
    }
    name[0] = 0;
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++)
        if (strlen(guid) == 36 && !_strnicmp(guid, plans[i], 36))
            snprintf(name, sizeof name, "%s", plans[i] + 37);
    if (!name[0]) {
        /* a plan of the user's: its FriendlyName, a plain string or
         * "@file,-id,Name" (the name after the last comma) */
        wchar_t key[200] = SCHEMES L"\\";
        size_t k = wcslen(key);
        for (const char *g = guid; *g && k < 199; g++)
            key[k++] = (wchar_t)(unsigned char)*g; /* a GUID is ASCII */
        key[k] = 0;
        if (reg_sz(key, L"FriendlyName", name, sizeof name) == ERROR_SUCCESS && name[0] == '@') {
            const char *c = strrchr(name, ',');
            memmove(name, c ? c + 1 : name, strlen(c ? c + 1 : name) + 1);
        }
    }
    snprintf(v, sizeof v, "%s (%s)", name[0] ? name : "unnamed", guid);
    fn(arg, "power_plan", v, SCHEMES_SRC "\\ActivePowerScheme", NULL);
}

static void native_nvme(nvb__os_fact_fn fn, void *arg)
{
    DWORD d = 0, n = sizeof d;
    char v[200];
    LONG rc = RegGetValueW(HKEY_LOCAL_MACHINE, OVERRIDES, NATIVE_NVME_ID, RRF_RT_REG_DWORD, NULL, &d, &n);
    if (rc == ERROR_FILE_NOT_FOUND) {
        fn(arg, "nvme_native_stack", "off (no feature override: the default stack, disk.sys over stornvme)",
           OVERRIDES_SRC, NULL);
        return;
    }
    if (rc != ERROR_SUCCESS) {
        snprintf(v, sizeof v, "unavailable: the feature override could not be read (error %ld)", (long)rc);
        fn(arg, "nvme_native_stack", NULL, OVERRIDES_SRC, v);
        return;
    }
    /* The opt-in takes effect after a reboot: engine_used.disk_driver says
     * which driver serves the run's disk. */
    snprintf(v, sizeof v, "%s (feature override = %lu)", d == 1 ? "on" : "off", (unsigned long)d);
    fn(arg, "nvme_native_stack", v, OVERRIDES_SRC, NULL);
}

void nvb__os_facts(nvb__os_fact_fn fn, void *arg)
{
    power_plan(fn, arg);
    native_nvme(fn, arg);
}
