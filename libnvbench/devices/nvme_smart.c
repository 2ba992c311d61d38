/*
 * The NVMe SMART / Health Information log (Get Log Page, LID 02h) and the
 * composite temperature's over threshold (Get Features, FID 04h), through
 * the same admin passthrough ioctl Identify uses (nvme_id.c). The log is
 * the controller's (NSID FFFFFFFFh): every namespace's I/O, any process's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/nvme_ioctl.h>

#include "nvbench.h"
#include "devices/facts.h"
#include "devices/nvme_ns.h"

#define NVME_ADMIN_GET_LOG_PAGE 0x02
#define NVME_ADMIN_GET_FEATURES 0x0a
#define NVME_LOG_SMART 0x02
#define NVME_LOG_ENDURANCE 0x09
#define NVME_FEAT_TEMP_THRESH 0x04
#define NVME_FEAT_POWER_MGMT 0x02
#define NVME_ADMIN_IDENTIFY 0x06
#define NVME_CNS_CTRL 0x01

/* Get Features (SEL 0: current) of feature fid: 0 with its result, or -errno / -EIO. */
static int get_feature(int fd, unsigned fid, uint32_t *result)
{
    struct nvme_admin_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.opcode = NVME_ADMIN_GET_FEATURES;
    cmd.cdw10 = fid;
    cmd.timeout_ms = 5000;
    int rc = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
    if (rc != 0)
        return rc < 0 ? -errno : -EIO;
    *result = cmd.result;
    return 0;
}

/* node opened read-only: the descriptor, or -errno with why. */
static int open_node(const char *node, char *why, size_t whylen)
{
    int fd = open(node, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = -errno;
        snprintf(why, whylen, "cannot open %s: %s", node, nvb_strerror(e));
        return e;
    }
    return fd;
}

/* An admin command reading len bytes into buf: 0, -errno, or -EIO (the
 * controller refused with a status). */
static int admin_read(int fd, unsigned opcode, uint32_t nsid, uint32_t cdw10, uint32_t cdw11, uint8_t *buf,
                      uint32_t len)
{
    struct nvme_admin_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    memset(buf, 0, len);
    cmd.opcode = (uint8_t)opcode;
    cmd.nsid = nsid;
    cmd.addr = (uint64_t)(uintptr_t)buf;
    cmd.data_len = len;
    cmd.cdw10 = cdw10;
    cmd.cdw11 = cdw11;
    cmd.timeout_ms = 5000;
    int rc = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
    if (rc < 0)
        return -errno;
    return rc > 0 ? -EIO : 0;
}

/* Get Log Page lid (its Log Specific Identifier lsi in CDW11 31:16) for
 * nsid, len bytes (a multiple of 4). CDW10: NUMDL (0's based dwords) in
 * 31:16, LID in 7:0. */
static int get_log(int fd, unsigned lid, unsigned lsi, uint32_t nsid, uint8_t *buf, uint32_t len)
{
    return admin_read(fd, NVME_ADMIN_GET_LOG_PAGE, nsid, ((len / 4 - 1) << 16) | lid, lsi << 16, buf, len);
}

/* Identify Controller (CNS 01h) into id (4096 bytes). */
static int identify_ctrl(int fd, uint8_t *id)
{
    return admin_read(fd, NVME_ADMIN_IDENTIFY, 0, NVME_CNS_CTRL, 0, id, 4096);
}

int nvb__nvme_smart_log(int fd, uint8_t *buf, uint32_t *thr_k)
{
    *thr_k = 0;
    int rc = get_log(fd, NVME_LOG_SMART, 0, 0xffffffffu, buf, NVB__SMART_LOG_LEN);
    if (rc < 0)
        return rc;
    /* The over threshold of the composite temperature (TMPSEL 0, THSEL 0):
     * optional for the caller, so a refusal only leaves it unknown. */
    uint32_t res;
    if (get_feature(fd, NVME_FEAT_TEMP_THRESH, &res) == 0) /* CDW11 0: TMPSEL 0, THSEL 0 */
        *thr_k = res & 0xffff;
    return 0;
}

int nvb__nvme_smart_read(const char *node, uint8_t *buf, uint32_t *thr_k, char *why, size_t whylen)
{
    int fd = open_node(node, why, whylen);
    if (fd < 0)
        return fd;
    int id = ioctl(fd, NVME_IOCTL_ID);
    if (id < 0 && (errno == ENOTTY || errno == EINVAL)) {
        close(fd);
        snprintf(why, whylen, "%s is not an NVMe namespace: the health log is NVMe's", node);
        return -ENOTTY;
    }
    int rc = nvb__nvme_smart_log(fd, buf, thr_k);
    close(fd);
    if (rc < 0)
        snprintf(why, whylen, "%s: Get Log Page (health, 02h) failed: %s%s", node, nvb_strerror(rc),
                 rc == -EACCES || rc == -EPERM ? " (the admin passthrough needs CAP_SYS_ADMIN)" : "");
    return rc;
}

double nvb__psd_max_w(const uint8_t *id, unsigned ps)
{
    if (ps > 31 || ps > id[263]) /* NPSS: the last supported state, 0's based */
        return 0;
    const uint8_t *d = id + 2048 + 32 * ps;
    unsigned mp = (unsigned)d[0] | (unsigned)d[1] << 8;
    return mp * ((d[3] & 1) ? 0.0001 : 0.01); /* MXPS: the scale of MP */
}

int nvb__nvme_power_read(const char *node, unsigned *ps, char *why, size_t whylen)
{
    *ps = 0;
    int fd = open_node(node, why, whylen);
    if (fd < 0)
        return fd;
    uint32_t res = 0;
    int rc = get_feature(fd, NVME_FEAT_POWER_MGMT, &res);
    if (rc < 0) {
        close(fd);
        snprintf(why, whylen, "%s: Get Features (power management, 02h) failed: %s", node, nvb_strerror(rc));
        return rc;
    }
    *ps = res & 0x1f;
    close(fd);
    return 0;
}

int nvb__nvme_media_ids(const char *node, uint8_t *id_ctrl, uint8_t *id_ns, int *ctrl_ok, char *why,
                        size_t whylen)
{
    *ctrl_ok = 0;
    int fd = open_node(node, why, whylen);
    if (fd < 0)
        return fd;
    int nsid = nvb__nvme_nsid(fd), rc = identify_ctrl(fd, id_ctrl);
    *ctrl_ok = rc == 0;
    if (rc == 0)
        rc = nsid < 0 ? nsid : nvb__nvme_identify_ns(fd, nsid, id_ns, 4096);
    close(fd);
    if (rc < 0)
        snprintf(why, whylen, "%s: Identify failed: %s", node, nvb_strerror(rc));
    return rc;
}

int nvb__nvme_log_read(const char *node, unsigned lid, unsigned lsi, uint8_t *buf, size_t len, char *why,
                       size_t whylen)
{
    int fd = open_node(node, why, whylen);
    if (fd < 0)
        return fd;
    /* the endurance group log is not per namespace (NSID 0); OCP's is the controller's */
    int rc = get_log(fd, lid, lsi, lid == NVME_LOG_ENDURANCE ? 0 : 0xffffffffu, buf, (uint32_t)len);
    close(fd);
    if (rc < 0)
        snprintf(why, whylen, "Get Log Page (%02Xh) failed: %s", lid, nvb_strerror(rc));
    return rc;
}
