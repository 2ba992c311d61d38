/*
 * A small mutation driver for fuzz targets, for machines without libFuzzer
 * (clang -fsanitize=fuzzer). Build the target with -DNVB_FUZZ_STANDALONE
 * and -fsanitize=address,undefined, link this file:
 *
 *   fuzzer -t SECONDS [-s SEED] [-a ARTIFACT] CORPUS_DIR_OR_FILE...
 *
 * Runs every corpus input once, then mutates random corpus inputs (bit
 * flips, byte changes, insertions, deletions, duplicated ranges, tokens of
 * the workload grammar, splices) until the time is up. On a crash the
 * sanitizer's death callback writes the input to ARTIFACT.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <sanitizer/common_interface_defs.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct unit {
    uint8_t *p;
    size_t n;
};
static struct unit *g_units;
static size_t g_nunits, g_cap;
static const uint8_t *g_cur;
static size_t g_curn;
static const char *g_artifact = "crash-input";

static void on_death(void)
{
    FILE *f = fopen(g_artifact, "wb");
    if (f) {
        fwrite(g_cur, 1, g_curn, f);
        fclose(f);
        fprintf(stderr, "driver: the input is in %s\n", g_artifact);
    }
}

static void add_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    uint8_t buf[8192];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (g_nunits == g_cap) {
        g_cap = g_cap ? 2 * g_cap : 64;
        g_units = realloc(g_units, g_cap * sizeof *g_units);
    }
    g_units[g_nunits].p = malloc(n ? n : 1);
    memcpy(g_units[g_nunits].p, buf, n);
    g_units[g_nunits++].n = n;
}

static void add_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        add_file(path);
        return;
    }
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        add_file(p);
    }
    if (d)
        closedir(d);
}

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

static const char *const tokens[] = {
    "=", "\n", "engine", "rw", "bs", "qd", "jobs", "size", "offset", "runtime", "ramp", "interval", "io_limit",
    "ios", "direct", "fill", "seed", "rate_iops", "cpus", "verify", "continue_on_error", "fault.rate",
    "fault.errno", "fault.short", "fault.delay", "fault.delay_rate", "fault.seed", "io_uring.sqpoll",
    "k", "M", "G", "T", "P", "KiB", "ms", "us", "ns", "s", "m", "h", "%", "/", ".", "-", ",", "e", "E",
    "0", "1", "9", "18446744073709551615", "18446744073709551616", "9223372036854775808", "4294967296",
    "0x10", "nan", "inf", " ", "\t", "EIO", "ENOSPC", "E255", "null", "psync", "randrw", "1e308",
};

static size_t mutate(uint8_t *b, size_t n, size_t cap)
{
    int k = 1 + (int)(rnd() % 6);
    while (k--) {
        switch (rnd() % 8) {
        case 0: if (n) b[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8)); break;
        case 1: if (n) b[rnd() % n] = (uint8_t)rnd(); break;
        case 2: if (n < cap) { size_t at = rnd() % (n + 1); memmove(b + at + 1, b + at, n - at); b[at] = (uint8_t)rnd(); n++; } break;
        case 3: if (n) { size_t at = rnd() % n; memmove(b + at, b + at + 1, n - at - 1); n--; } break;
        case 4: if (n) { size_t a = rnd() % n, l = 1 + rnd() % (n - a); if (n + l <= cap) { memmove(b + a + l, b + a, n - a); n += l; } } break;
        case 5: case 6: {
            const char *t = tokens[rnd() % (sizeof tokens / sizeof tokens[0])];
            size_t l = strlen(t), at = rnd() % (n + 1);
            if (n + l <= cap) { memmove(b + at + l, b + at, n - at); memcpy(b + at, t, l); n += l; }
            break;
        }
        case 7: if (g_nunits) { const struct unit *u = &g_units[rnd() % g_nunits]; size_t at = rnd() % (n + 1), l = u->n < cap - at ? u->n : cap - at; memcpy(b + at, u->p, l); if (at + l > n) n = at + l; } break;
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    double secs = 10;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i += 2) {
        if (i + 1 >= argc)
            break;
        if (!strcmp(argv[i], "-t"))
            secs = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "-s"))
            g_rng = strtoull(argv[i + 1], NULL, 0) | 1;
        else if (!strcmp(argv[i], "-a"))
            g_artifact = argv[i + 1];
    }
    for (; i < argc; i++)
        add_path(argv[i]);
    __sanitizer_set_death_callback(on_death);
    for (size_t u = 0; u < g_nunits; u++) {
        g_cur = g_units[u].p;
        g_curn = g_units[u].n;
        LLVMFuzzerTestOneInput(g_cur, g_curn);
    }
    static uint8_t buf[8192];
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long runs = 0;
    for (;;) {
        if ((runs & 255) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 >= secs)
                break;
        }
        size_t n = 0;
        if (g_nunits) {
            const struct unit *u = &g_units[rnd() % g_nunits];
            memcpy(buf, u->p, u->n);
            n = u->n;
        }
        n = mutate(buf, n, sizeof buf);
        g_cur = buf;
        g_curn = n;
        LLVMFuzzerTestOneInput(buf, n);
        runs++;
    }
    printf("driver: %lu mutated inputs in %.0f s, %zu corpus inputs, no crash\n", runs, secs, g_nunits);
    return 0;
}
