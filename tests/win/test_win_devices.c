/* Windows discovery and the destructive-write guard. Under wine there are
 * no physical disks to see (SetupDi lists none, property queries fail):
 * the checks that need one are skipped there. */
#include "harness.h"

#include <errno.h>

#include <nvbench.h>

#include "devices/devices.h"

static int count_cb(const struct nvb_device *d, void *arg)
{
    char buf[256];
    int rc = nvb_device_get(d, "name", buf, sizeof buf);
    T_CHECK(rc > 0 && !strncmp(buf, "PhysicalDrive", 13));
    rc = nvb_device_get(d, "stack", buf, sizeof buf);
    T_CHECK(rc > 0);
    fprintf(stderr, "   disk: stack %s\n", rc > 0 ? buf : "?");
    T_EQ(nvb_device_get(d, "no_such_key", buf, sizeof buf), -ENOENT);
    T_EQ(nvb_device_get(d, "name", buf, 3), -ENOSPC);
    (*(int *)arg)++;
    return 0;
}

static void test_enumerate(void)
{
    char *json = NULL;
    T_EQ(nvb_devices_json(NULL, &json), 0);
    T_CHECK(json && json[0] == '[' && json[strlen(json) - 1] == ']');
    fprintf(stderr, "   devices: %.300s\n", json ? json : "");
    nvb_free(json);
    int n = 0;
    int rc = nvb_device_enumerate(NULL, count_cb, &n);
    T_EQ(rc, n);
    T_EQ(nvb_device_enumerate("/sys", count_cb, &n), -ENOENT);
    T_EQ(nvb_device_json("C:\\\\not-a-disk", &json), -ENODEV);
    if (!t_is_wine())
        T_CHECK_MSG(n > 0, "no physical disk found on Windows");
}

static void test_guard(void)
{
    struct nvb__tdev f;
    char msg[512];
    /* a volume is never written raw */
    T_EQ(nvb__device_check("\\\\.\\C:", 1, 1, "randwrite", &f, msg, sizeof msg), -EBUSY);
    T_CHECK(strstr(msg, "allow_destructive") != NULL);
    T_EQ(nvb__device_check("\\\\.\\C:", 0, 0, "randread", &f, msg, sizeof msg), 0);
    /* files are not devices */
    T_EQ(nvb__device_check("C:\\file.dat", 1, 0, "randwrite", &f, msg, sizeof msg), 0);
    T_EQ(f.valid, 0);
    /* a disk that does not exist: opening it will say so */
    T_EQ(nvb__device_check("\\\\.\\PhysicalDrive97", 1, 0, "randwrite", &f, msg, sizeof msg), 0);
    if (t_is_wine())
        return;
    /* the system disk holds C: */
    int rc = nvb__device_check("\\\\.\\PhysicalDrive0", 1, 1, "randwrite", &f, msg, sizeof msg);
    T_CHECK_MSG(rc == -EBUSY, "PhysicalDrive0: %d %s", rc, msg);
    T_EQ(nvb__device_check("\\\\.\\PhysicalDrive0", 0, 0, "randread", &f, msg, sizeof msg), 0);
    T_EQ(f.valid, 1);
    T_CHECK(f.lbs >= 512);
}

int main(void)
{
    fprintf(stderr, "wine: %s\n", t_is_wine() ? "yes" : "no");
    T_RUN(test_enumerate);
    T_RUN(test_guard);
    return t_done();
}
