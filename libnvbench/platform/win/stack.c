/*
 * Which storage stack serves a target (Windows).
 *
 * Windows Server 2025 has two stacks for an NVMe disk: the classic one,
 * where disk.sys (class driver) sends SCSI requests to Storport and the
 * stornvme miniport translates them into NVMe commands, and the native
 * one, where NVMeDisk.sys sends NVMe requests straight to StorMQ. The two
 * are told apart by the function driver (service) of the disk's device
 * node: "disk" or "nvmedisk". A target that is a file is traced through
 * its volume to the disk(s) holding that volume.
 *
 * Everything here is diagnostic: a failure leaves the stack "unknown" and
 * says why; it never fails a run.
 */
#include "platform/win/win.h"
#include "platform/winfmt.h"

#include <errno.h>
#include <setupapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <winioctl.h>

#ifdef _WIN32
/* The portable parsers read these structures by offset: check the
 * offsets they assume against the SDK's declarations. */
#include <stddef.h>
_Static_assert(offsetof(STORAGE_DEVICE_DESCRIPTOR, VendorIdOffset) == 12, "layout");
_Static_assert(offsetof(STORAGE_DEVICE_DESCRIPTOR, SerialNumberOffset) == 24, "layout");
_Static_assert(offsetof(STORAGE_DEVICE_DESCRIPTOR, BusType) == 28, "layout");
_Static_assert(offsetof(STORAGE_ADAPTER_DESCRIPTOR, AlignmentMask) == 16, "layout");
_Static_assert(offsetof(STORAGE_ADAPTER_DESCRIPTOR, BusType) == 24, "layout");
_Static_assert(offsetof(STORAGE_ADAPTER_DESCRIPTOR, BusMajorVersion) == 26, "layout");
_Static_assert(offsetof(STORAGE_ACCESS_ALIGNMENT_DESCRIPTOR, BytesPerLogicalSector) == 16, "layout");
_Static_assert(offsetof(STORAGE_ACCESS_ALIGNMENT_DESCRIPTOR, BytesOffsetForSectorAlignment) == 24, "layout");
_Static_assert(offsetof(DEVICE_SEEK_PENALTY_DESCRIPTOR, IncursSeekPenalty) == 8, "layout");
_Static_assert(sizeof(STORAGE_PROTOCOL_SPECIFIC_DATA) == 40, "layout");
_Static_assert(offsetof(STORAGE_PROTOCOL_SPECIFIC_DATA, ProtocolDataOffset) == 16, "layout");
_Static_assert(offsetof(STORAGE_PROTOCOL_DATA_DESCRIPTOR, ProtocolSpecificData) == 8, "layout");
_Static_assert(offsetof(STORAGE_PROPERTY_QUERY, AdditionalParameters) == 8, "layout");
_Static_assert((int)StorageAccessAlignmentProperty == (int)NVB__WIN_PROP_ALIGNMENT, "property id");
_Static_assert((int)StorageDeviceSeekPenaltyProperty == (int)NVB__WIN_PROP_SEEK_PENALTY, "property id");
_Static_assert((int)StorageAdapterProtocolSpecificProperty == (int)NVB__WIN_PROP_ADAPTER_PROTOCOL, "property id");
_Static_assert((int)StorageDeviceProtocolSpecificProperty == (int)NVB__WIN_PROP_DEVICE_PROTOCOL, "property id");
_Static_assert((int)BusTypeNvme == (int)NVB__WIN_BUS_NVME, "bus type");
#endif

static int query(HANDLE h, uint32_t id, uint8_t *out, DWORD outlen, DWORD *got)
{
    uint8_t q[12];
    nvb__win_property_query(q, sizeof q, id);
    *got = 0;
    return DeviceIoControl(h, IOCTL_STORAGE_QUERY_PROPERTY, q, sizeof q, out, outlen, got, NULL) ? 0 : -1;
}

int nvb__win_disk_query(HANDLE h, struct nvb__win_storage *s, DWORD *first_err)
{
    static const uint32_t ids[] = { NVB__WIN_PROP_DEVICE, NVB__WIN_PROP_ADAPTER, NVB__WIN_PROP_ALIGNMENT,
                                    NVB__WIN_PROP_SEEK_PENALTY };
    uint8_t buf[1024];
    int ok = 0;
    *first_err = 0;
    nvb__win_storage_init(s);
    for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        DWORD got;
        if (query(h, ids[i], buf, sizeof buf, &got) == 0 && nvb__win_parse_property(ids[i], buf, got, s) == 0) {
            ok++;
        } else if (!*first_err) {
            *first_err = GetLastError();
            if (!*first_err)
                *first_err = ERROR_INVALID_DATA;
        }
    }
    return ok;
}

int nvb__win_nvme_identify_ctrl(HANDLE h, uint8_t *out)
{
    uint8_t *buf = malloc(NVB__WIN_NVME_QUERY_LEN);
    if (!buf)
        return -ENOMEM;
    DWORD len = (DWORD)nvb__win_nvme_identify_query(buf, NVB__WIN_NVME_QUERY_LEN, 1, 0), got = 0;
    int rc = 0;
    if (!DeviceIoControl(h, IOCTL_STORAGE_QUERY_PROPERTY, buf, len, buf, len, &got, NULL)) {
        rc = nvb__win_errno(GetLastError());
    } else {
        const uint8_t *d;
        size_t dl;
        rc = nvb__win_protocol_data(buf, got, &d, &dl);
        if (rc == 0) {
            memset(out, 0, 4096);
            memcpy(out, d, dl < 4096 ? dl : 4096);
        }
    }
    free(buf);
    return rc;
}

static int volume_disks(HANDLE v, DWORD *nums, int max)
{
    /* One extent for a simple volume; spanned and striped volumes have
     * more: ask with room for 32. */
    size_t len = sizeof(VOLUME_DISK_EXTENTS) + 31 * sizeof(DISK_EXTENT);
    VOLUME_DISK_EXTENTS *ext = malloc(len);
    if (!ext)
        return -ENOMEM;
    DWORD got = 0;
    int n = 0;
    if (!DeviceIoControl(v, IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS, NULL, 0, ext, (DWORD)len, &got, NULL)) {
        n = nvb__win_errno(GetLastError());
    } else {
        for (DWORD i = 0; i < ext->NumberOfDiskExtents && n < max; i++) {
            int dup = 0;
            for (int k = 0; k < n; k++)
                dup |= nums[k] == ext->Extents[i].DiskNumber;
            if (!dup)
                nums[n++] = ext->Extents[i].DiskNumber;
        }
    }
    free(ext);
    return n;
}

int nvb__win_disks_of(HANDLE h, DWORD *nums, int max)
{
    if (max <= 0)
        return 0;
    STORAGE_DEVICE_NUMBER sdn;
    DWORD got = 0;
    if (DeviceIoControl(h, IOCTL_STORAGE_GET_DEVICE_NUMBER, NULL, 0, &sdn, sizeof sdn, &got, NULL) &&
        sdn.DeviceType == FILE_DEVICE_DISK && sdn.PartitionNumber == 0) {
        nums[0] = sdn.DeviceNumber;
        return 1;
    }
    int n = volume_disks(h, nums, max);
    if (n > 0)
        return n;
    /* A file: \\?\Volume{GUID}\path -> the volume \\?\Volume{GUID}. */
    wchar_t path[1024];
    DWORD l = GetFinalPathNameByHandleW(h, path, 1024, VOLUME_NAME_GUID);
    if (l == 0 || l >= 1024)
        return nvb__win_errno(GetLastError());
    wchar_t *brace = wcschr(path, L'}');
    if (!brace)
        return -ENODEV;
    brace[1] = L'\0';
    HANDLE v = CreateFileW(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    if (v == INVALID_HANDLE_VALUE)
        return nvb__win_errno(GetLastError());
    n = volume_disks(v, nums, max);
    CloseHandle(v);
    return n;
}

/* GUID_DEVINTERFACE_DISK, spelled out so no uuid library is needed. */
static const GUID disk_iface = { 0x53f56307, 0xb6bf, 0x11d0, { 0x94, 0xf2, 0x00, 0xa0, 0xc9, 0x1e, 0xfb, 0x8b } };

int nvb__win_disk_service(DWORD want, char *svc, size_t len)
{
    return nvb__win_disk_driver(want, svc, len, NULL, 0);
}

/* The version of the driver installed for a device node: its driver key
 * (SPDRP_DRIVER, "{class}\\NNNN") under the Class key holds DriverVersion.
 * "" when it cannot be read (diagnostic only). */
static void driver_version(HDEVINFO set, SP_DEVINFO_DATA *dev, char *ver, size_t len)
{
    wchar_t drv[160], key[240], v[64];
    DWORD type = 0, n = sizeof v;
    ver[0] = '\0';
    if (!SetupDiGetDeviceRegistryPropertyW(set, dev, SPDRP_DRIVER, &type, (BYTE *)drv, sizeof drv - sizeof(wchar_t),
                                           NULL))
        return;
    drv[159] = 0;
    swprintf(key, 240, L"SYSTEM\\CurrentControlSet\\Control\\Class\\%ls", drv);
    if (RegGetValueW(HKEY_LOCAL_MACHINE, key, L"DriverVersion", RRF_RT_REG_SZ, NULL, v, &n) == ERROR_SUCCESS)
        nvb__win_narrow(v, ver, len);
}

int nvb__win_disk_driver(DWORD want, char *svc, size_t len, char *ver, size_t verlen)
{
    svc[0] = '\0';
    if (ver && verlen)
        ver[0] = '\0';
    HDEVINFO set = SetupDiGetClassDevsW(&disk_iface, NULL, NULL, DIGCF_PRESENT | DIGCF_DEVICEINTERFACE);
    if (set == INVALID_HANDLE_VALUE)
        return nvb__win_errno(GetLastError());
    int rc = -ENOENT;
    SP_DEVICE_INTERFACE_DATA ifd;
    memset(&ifd, 0, sizeof ifd);
    ifd.cbSize = sizeof ifd;
    for (DWORD i = 0; rc == -ENOENT && SetupDiEnumDeviceInterfaces(set, NULL, &disk_iface, i, &ifd); i++) {
        DWORD need = 0;
        SetupDiGetDeviceInterfaceDetailW(set, &ifd, NULL, 0, &need, NULL);
        if (need < sizeof(SP_DEVICE_INTERFACE_DETAIL_DATA_W))
            continue;
        SP_DEVICE_INTERFACE_DETAIL_DATA_W *det = malloc(need);
        if (!det) {
            rc = -ENOMEM;
            break;
        }
        det->cbSize = sizeof *det;
        SP_DEVINFO_DATA dev;
        memset(&dev, 0, sizeof dev);
        dev.cbSize = sizeof dev;
        if (SetupDiGetDeviceInterfaceDetailW(set, &ifd, det, need, NULL, &dev)) {
            HANDLE h = CreateFileW(det->DevicePath, 0, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0,
                                   NULL);
            if (h != INVALID_HANDLE_VALUE) {
                STORAGE_DEVICE_NUMBER sdn;
                DWORD got = 0;
                if (DeviceIoControl(h, IOCTL_STORAGE_GET_DEVICE_NUMBER, NULL, 0, &sdn, sizeof sdn, &got, NULL) &&
                    sdn.DeviceNumber == want) {
                    wchar_t name[128];
                    DWORD type = 0;
                    if (SetupDiGetDeviceRegistryPropertyW(set, &dev, SPDRP_SERVICE, &type, (BYTE *)name,
                                                          sizeof name - sizeof(wchar_t), NULL)) {
                        name[127] = 0;
                        nvb__win_narrow(name, svc, len);
                        if (ver && verlen)
                            driver_version(set, &dev, ver, verlen);
                        rc = 0;
                    } else {
                        rc = nvb__win_errno(GetLastError());
                    }
                }
                CloseHandle(h);
            }
        }
        free(det);
    }
    SetupDiDestroyDeviceInfoList(set);
    return rc;
}

/* The product id of disk number n (the device descriptor), or "". */
static void disk_model(DWORD n, char *out, size_t len)
{
    wchar_t path[48];
    out[0] = '\0';
    swprintf(path, 48, L"\\\\.\\PhysicalDrive%lu", (unsigned long)n);
    HANDLE h = CreateFileW(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return;
    struct nvb__win_storage st;
    DWORD err;
    if (nvb__win_disk_query(h, &st, &err) > 0 && st.have_device)
        snprintf(out, len, "%s", st.product);
    CloseHandle(h);
}

void nvb__win_stack_of(HANDLE h, struct nvb__win_stack *out)
{
    char *stack = out->stack, *detail = out->detail;
    size_t stack_len = sizeof out->stack, detail_len = sizeof out->detail;
    snprintf(stack, stack_len, "unknown");
    detail[0] = out->driver[0] = out->driver_version[0] = out->model[0] = '\0';
    DWORD disks[16];
    int n = nvb__win_disks_of(h, disks, 16);
    if (n <= 0) {
        snprintf(detail, detail_len, "no disk found under the target: %s",
                 n == 0 ? "no extents" : n == -ENOTSUP ? "the volume does not report its disks" : "query failed");
        return;
    }
    disk_model(disks[0], out->model, sizeof out->model);
    const char *verdict = NULL;
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        char svc[64], ver[32];
        int rc = nvb__win_disk_driver(disks[i], svc, sizeof svc, ver, sizeof ver);
        const char *s = rc == 0 ? nvb__win_stack_name(svc) : "unknown";
        if (i == 0 && rc == 0) {
            snprintf(out->driver, sizeof out->driver, "%s", svc);
            snprintf(out->driver_version, sizeof out->driver_version, "%s", ver);
        }
        if (used < detail_len) {
            int w = snprintf(detail + used, detail_len - used, "%sPhysicalDrive%lu: %s%s", i ? ", " : "",
                             (unsigned long)disks[i], rc == 0 ? "driver " : "driver not found",
                             rc == 0 ? svc : "");
            if (w > 0)
                used += (size_t)w;
        }
        if (!verdict)
            verdict = s;
        else if (strcmp(verdict, s))
            verdict = "mixed";
    }
    snprintf(stack, stack_len, "%s", verdict ? verdict : "unknown");
}
