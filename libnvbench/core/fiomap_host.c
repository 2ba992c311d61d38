/*
 * fiomap_host.c - fio options whose meaning depends on this machine: the
 * NUMA nodes a job runs on and places its memory on (numa_cpu_nodes,
 * numa_mem_policy), and whether a job may create its files
 * (allow_file_create). Each is honoured where nvbench does exactly what
 * fio does here, and refused naming why otherwise.
 */
#include "core/fiomap.h"
#include "core/internal.h"
#include "platform/platform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_WORDS (NVB__MAX_CPUS / 64)

/* The machine's NUMA nodes (sysfs), at most NVB__MAX_CPUS of them. */
static int online_nodes(uint64_t *nodes)
{
    char list[1024];
    memset(nodes, 0, NODE_WORDS * sizeof *nodes);
    if (nvb__text_read(NULL, "/sys/devices/system/node/online", list, sizeof list) < 0)
        return -ENOENT;
    return nvb__parse_cpulist(list, nodes, NVB__MAX_CPUS) < 0 ? -ENOENT : 0;
}

static int count_bits(const uint64_t *b)
{
    int n = 0;
    for (int i = 0; i < NODE_WORDS; i++)
        n += __builtin_popcountll(b[i]);
    return n;
}

/* The nodes of a fio node list ("0", "0-1", "0,2", "all") into want, each
 * one this machine has: fio 3.33 fails to parse a list naming a node the
 * machine lacks ("numa_parse_nodestring failed") and runs no job, so the
 * mapping fails too (lenient or not). *nnodes: the machine's node count. */
static int node_list(struct fm_job *j, const char *opt, const char *v, uint64_t *want, int *nnodes)
{
    uint64_t have[NODE_WORDS];
    char s[160];
    if (online_nodes(have) < 0)
        return fm_err(j, opt, "'%s': this machine shows no NUMA nodes (sysfs /sys/devices/system/node)", v);
    *nnodes = count_bits(have);
    if (!strcmp(v, "all")) {
        memcpy(want, have, sizeof have);
        return 0;
    }
    memset(want, 0, NODE_WORDS * sizeof *want);
    if (nvb__parse_cpulist(v, want, NVB__MAX_CPUS) < 0 || !count_bits(want))
        return fm_err(j, opt, "'%s' is not a list of NUMA nodes (0-1,3 or all)", fm_short(v, 40, s, sizeof s));
    for (int n = 0; n < NVB__MAX_CPUS; n++)
        if ((want[n / 64] >> (n % 64) & 1) && !(have[n / 64] >> (n % 64) & 1))
            return fm_err(j, opt, "'%s': node %d does not exist on this machine (it has %d node%s); fio fails to "
                                  "parse such a list and runs no job", v, n, *nnodes, *nnodes == 1 ? "" : "s");
    return 0;
}

/* numa_cpu_nodes: fio's job floats over the listed nodes' CPUs. Where
 * those are every CPU this process may use (one node, or all of them
 * listed), that is what nvbench's unpinned jobs do; a part of the machine
 * has no equivalent (nvbench pins a job to one CPU). */
int fm_numa_cpu_nodes(struct fm_job *j, const char *opt, const char *v)
{
    uint64_t want[NODE_WORDS], cpus[NODE_WORDS] = {0}, allowed[NODE_WORDS] = {0};
    char rel[96], list[4096];
    int nnodes;
    TRY(node_list(j, opt, v, want, &nnodes));
    for (int n = 0; n < NVB__MAX_CPUS; n++) {
        if (!(want[n / 64] >> (n % 64) & 1))
            continue;
        snprintf(rel, sizeof rel, "/sys/devices/system/node/node%d/cpulist", n);
        if (nvb__text_read(NULL, rel, list, sizeof list) < 0 || nvb__parse_cpulist(list, cpus, NVB__MAX_CPUS) < 0)
            return fm_err(j, opt, "'%s': sysfs gives node %d no CPU list", v, n);
    }
    int covers = nvb__affinity_list(list, sizeof list) == 0 && nvb__parse_cpulist(list, allowed, NVB__MAX_CPUS) == 0;
    for (int i = 0; covers && i < NODE_WORDS; i++)
        covers = (allowed[i] & ~cpus[i]) == 0;
    if (!covers) {
        int rc = fm_refuse(j, opt, "'%s': fio's job floats over those nodes' CPUs, a part of this machine's; nvbench "
                                   "pins job i to one CPU (give cpus_allowed=LIST with cpus_allowed_policy=split, or "
                                   "the key cpus=local)", v);
        return rc < 0 ? rc : 0; /* left out: the job floats over every CPU */
    }
    return fm_warn(j, "fio job section [%s]: numa_cpu_nodes=%s: the nodes' CPUs are all those this process may use "
                      "(%s): the job floats over them, as fio's does", j->name, v, list);
}

/* numa_mem_policy=MODE[:NODES]: with one node on the machine, every
 * policy fio can set places the buffers on it, where the kernel places
 * them anyway. On more nodes nvbench sets no policy: refused. */
int fm_numa_mem_policy(struct fm_job *j, const char *opt, const char *v)
{
    static const char *const modes[] = {"default", "prefer", "bind", "interleave", "local"};
    const char *colon = strchr(v, ':');
    size_t ml = colon ? (size_t)(colon - v) : strlen(v), i = 0;
    uint64_t want[NODE_WORDS];
    int nnodes = 0;
    while (i < sizeof modes / sizeof modes[0] && (strlen(modes[i]) != ml || strncmp(v, modes[i], ml)))
        i++;
    if (i == sizeof modes / sizeof modes[0])
        return fm_err(j, opt, "'%s': fio's modes are default, prefer:N, bind:NODES, interleave:NODES and local", v);
    if ((i == 1 || i == 2 || i == 3) != (colon != NULL))
        return fm_err(j, opt, "'%s': %.*s %s", v, (int)ml, v, colon ? "takes no nodes" : "needs nodes (MODE:NODES)");
    if (colon)
        TRY(node_list(j, opt, colon + 1, want, &nnodes));
    else if (online_nodes(want) == 0)
        nnodes = count_bits(want);
    if (nnodes != 1) {
        int rc = fm_refuse(j, opt, "'%s': nvbench sets no memory policy: its buffers stay where the kernel places "
                                   "them (this machine has %d NUMA nodes)", v, nnodes);
        return rc < 0 ? rc : 0;
    }
    return fm_warn(j, "fio job section [%s]: numa_mem_policy=%s: this machine has one NUMA node, where the job's "
                      "buffers are whatever the policy", j->name, v);
}

/* allow_file_create=0: fio opens only files that exist. nvbench creates a
 * missing file target, or a scratch file in a directory target: such a
 * target is refused; existing files and devices run as they are. */
int fm_file_create(struct fm_job *j)
{
    int t = fm_flag(j, "allow_file_create");
    TRY(t);
    if (!fm_has(j, "allow_file_create", NULL) || t)
        return 0;
    for (size_t i = 0; i < j->out.targets.n; i++) {
        struct nvb__target_info ti;
        const char *path = j->out.targets.s[i];
        int rc = nvb__target_info(path, &ti);
        if (rc < 0 || ti.kind == NVB__T_DIR)
            return fm_err(j, "allow_file_create", "is 0 and target '%s' %s: nvbench would create %s", path,
                          rc < 0 ? "does not exist" : "is a directory", rc < 0 ? "it" : "a file in it");
    }
    return 0;
}
