/*
 * fiojob.c - the one reader of fio job files (include/nvbench.h,
 * docs/fio-jobs.md). Python, Lua and C programs read job files through it;
 * the mapping of options to workload keys stays in the bindings.
 *
 * Lines are read as fio 3.33 reads them: split at '\n' only, blanks dropped
 * at the front, blanks and control characters at the end, and a ';' or a
 * '#' anywhere starts a comment. Two readers that each split lines their
 * own way once disagreed on '\v' (Python's splitlines() broke a comment
 * there and ran the filename= hidden in it): there is one now.
 *
 * Phases: read a file (bounded, regular files only), cut it into lines,
 * strip each line, then a section header, an include or an option; ${}
 * expansion for the last two; at the end, the stonewall of each job.
 */
#include "nvbench.h"
#include "platform/platform.h"
#include "util/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#define strcasecmp _stricmp
#else
#include <strings.h>
#include <unistd.h>
#endif

struct fj_opt {
    char    *key;
    char    *val;      /* NULL: a bare flag */
    unsigned file;     /* where it was set (index into files), for messages */
    unsigned line;
};

struct fj_sect {
    char          *name;
    struct fj_opt *opt;
    size_t         n, cap;
    int            stonewall;
};

struct nvb_fiojob {
    struct fj_sect *job;
    size_t          njob, capjob;
    char          **files; /* every file read, for "file:line" */
    size_t          nfiles, capfiles;
};

/* One read: the handle being filled and what bounds it. */
struct reader {
    struct nvb_fiojob *f;
    const char *const *envp;
    struct fj_sect     glob;     /* the global options so far */
    struct fj_sect    *cur;      /* the section lines go to, NULL before the first */
    size_t             bytes;    /* read so far, every file */
    size_t             includes; /* followed so far */
    size_t             sections;
    size_t             total;    /* options kept, every job */
    char              *why;
    size_t             why_len;
};

/* C locale classes, whatever the process locale says: fio's isspace() and
 * iscntrl() in the "C" locale fio runs in. */
static int blank(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static int cntrl(unsigned char c) { return c < 0x20 || c == 0x7f; }
static int word(unsigned char c)
{
    return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c >= 0x80;
}

/* Text from the file quoted in a message: control characters as \xNN (a
 * terminal never obeys an escape sequence from a job file), cut at 160
 * bytes. */
static const char *esc(const char *s, char *out, size_t len)
{
    size_t o = 0;
    for (; *s && o + 8 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (o >= 160) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (cntrl(c))
            o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    out[o] = 0;
    return out;
}

static int fail(struct reader *r, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct reader *r, int rc, const char *fmt, ...)
{
    if (r->why && r->why_len && !r->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->why, r->why_len, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* "file:line: " of a place, escaped. */
static const char *where(const struct reader *r, unsigned file, unsigned line, char *buf, size_t len)
{
    char e[200];
    snprintf(buf, len, "%s:%u", esc(r->f->files[file], e, sizeof e), line);
    return buf;
}

/* ------------------------------------------------------------------ sections and options */

static void sect_clear(struct fj_sect *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->opt[i].key);
        free(s->opt[i].val);
    }
    free(s->opt);
    free(s->name);
    memset(s, 0, sizeof *s);
}

/* filename= adds files, as in fio (each line, in [global] or the job, adds
 * its files to the ones before it: fio 3.33 wrote g1, f1 and f2 for a
 * [global] filename=g1 and a job's filename=f1 and filename=f2): the
 * values joined as one ':' list. A value that is not kept whole would be
 * a job run on other files than the ones named. */
static char *joined(const char *old, const char *val)
{
    if (!old || !*old || !val || !*val)
        return val ? nvb__strdup(val) : NULL;
    char *v = malloc(strlen(old) + strlen(val) + 2);
    if (v)
        sprintf(v, "%s:%s", old, val);
    return v;
}

/* Set key in s: a later value replaces an earlier one in its place, but
 * for filename (joined). */
static int sect_set(struct reader *r, struct fj_sect *s, const char *key, const char *val, unsigned file,
                    unsigned line)
{
    char w[240];
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->opt[i].key, key) == 0) {
            char *v = strcmp(key, "filename") == 0 ? joined(s->opt[i].val, val) : val ? nvb__strdup(val) : NULL;
            if (val && !v)
                return -ENOMEM;
            if (strlen(v ? v : "") > NVB_FIOJOB_MAX_LINE) {
                free(v);
                return fail(r, -E2BIG, "%s: filename= lines adding up to more than %d bytes (the line limit)",
                            where(r, file, line, w, sizeof w), NVB_FIOJOB_MAX_LINE);
            }
            free(s->opt[i].val);
            s->opt[i].val = v;
            s->opt[i].file = file;
            s->opt[i].line = line;
            return 0;
        }
    }
    if (s->n >= NVB_FIOJOB_MAX_OPTIONS)
        return fail(r, -E2BIG, "%s: more than %d distinct options in one section (the options limit)",
                    where(r, file, line, w, sizeof w), NVB_FIOJOB_MAX_OPTIONS);
    if (r->total >= NVB_FIOJOB_MAX_TOTAL)
        return fail(r, -E2BIG, "%s: more than %d options over all jobs, global ones counted in each (the total options limit)",
                    where(r, file, line, w, sizeof w), NVB_FIOJOB_MAX_TOTAL);
    if (nvb__grow(&s->opt, &s->cap, s->n, sizeof *s->opt, 16) < 0)
        return -ENOMEM;
    struct fj_opt *o = &s->opt[s->n];
    o->key = nvb__strdup(key);
    o->val = val ? nvb__strdup(val) : NULL;
    if (!o->key || (val && !o->val)) {
        free(o->key);
        free(o->val);
        return -ENOMEM;
    }
    o->file = file;
    o->line = line;
    s->n++;
    r->total++;
    return 0;
}

static int section(struct reader *r, const char *line, size_t len, unsigned file, unsigned n, int nested)
{
    char w[240], e[200];
    if (nested)
        return fail(r, -EINVAL, "%s: a section '%s' in an included file (fio refuses it too: an include adds options to the section that includes it)",
                    where(r, file, n, w, sizeof w), esc(line, e, sizeof e));
    const char *a = line + 1, *b = line + len - 1;
    if (len < 2 || *b != ']')
        return fail(r, -EINVAL, "%s: a section header is '[name]', not '%s'", where(r, file, n, w, sizeof w),
                    esc(line, e, sizeof e));
    while (a < b && blank((unsigned char)*a))
        a++;
    while (b > a && blank((unsigned char)b[-1]))
        b--;
    if (a == b)
        return fail(r, -EINVAL, "%s: a section header is '[name]', not '%s'", where(r, file, n, w, sizeof w),
                    esc(line, e, sizeof e));
    if (++r->sections > NVB_FIOJOB_MAX_SECTIONS)
        return fail(r, -E2BIG, "%s: more than %d sections (the sections limit)", where(r, file, n, w, sizeof w),
                    NVB_FIOJOB_MAX_SECTIONS);
    /* fio: a section whose name starts with "global" is a global one */
    if ((size_t)(b - a) >= 6 && memcmp(a, "global", 6) == 0) {
        r->cur = &r->glob;
        return 0;
    }
    struct nvb_fiojob *f = r->f;
    if (nvb__grow(&f->job, &f->capjob, f->njob, sizeof *f->job, 8) < 0)
        return -ENOMEM;
    struct fj_sect *s = &f->job[f->njob];
    memset(s, 0, sizeof *s);
    s->name = malloc((size_t)(b - a) + 1);
    if (!s->name)
        return -ENOMEM;
    memcpy(s->name, a, (size_t)(b - a));
    s->name[b - a] = 0;
    f->njob++;
    r->cur = s;
    for (size_t i = 0; i < r->glob.n; i++) {
        const struct fj_opt *o = &r->glob.opt[i];
        int rc = sect_set(r, s, o->key, o->val, o->file, o->line);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------ ${} expansion */

static const char *env_get(const struct reader *r, const char *name)
{
    if (!r->envp)
        return getenv(name);
    size_t n = strlen(name);
    for (const char *const *e = r->envp; *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static long long reserved(int which)
{
#ifdef _WIN32
    if (which == 0)
        return nvb__ncpus();
    if (which == 1)
        return 4096;
    return (long long)(nvb__mem_total() >> 20);
#else
    if (which == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n > 0 ? n : 1;
    }
    long pg = sysconf(_SC_PAGESIZE);
    if (which == 1)
        return pg;
    long pages = sysconf(_SC_PHYS_PAGES);
    return pg > 0 && pages > 0 ? (long long)((unsigned long long)pg * (unsigned long long)pages >> 20) : 0;
#endif
}

/* line with ${NAME} and fio's reserved words replaced, into out (at most
 * NVB_FIOJOB_MAX_LINE bytes). One pass: a value is not expanded again. */
static int expand(struct reader *r, const char *line, char *out, unsigned file, unsigned n)
{
    static const char *const words[] = {"ncpus", "pagesize", "mb_memory"};
    char w[240], e[200];
    size_t o = 0;
    for (const char *p = line; *p;) {
        const char *val = NULL;
        char num[32];
        size_t skip = 1;
        if (p[0] == '$' && p[1] == '(')
            return fail(r, -EINVAL, "%s: arithmetic '$(...)' is not supported", where(r, file, n, w, sizeof w));
        if (p[0] == '$' && p[1] == '{' && strchr(p + 2, '}')) {
            const char *end = strchr(p + 2, '}');
            char name[NVB_FIOJOB_MAX_LINE];
            memcpy(name, p + 2, (size_t)(end - p - 2));
            name[end - p - 2] = 0;
            val = env_get(r, name);
            if (!val)
                return fail(r, -EINVAL, "%s: environment variable '%s' is not set", where(r, file, n, w, sizeof w),
                            esc(name, e, sizeof e));
            skip = (size_t)(end - p) + 1;
        } else if (p[0] == '$') {
            for (int i = 0; i < 3; i++) {
                size_t l = strlen(words[i]);
                if (strncmp(p + 1, words[i], l) == 0 && !word((unsigned char)p[1 + l])) {
                    snprintf(num, sizeof num, "%lld", reserved(i));
                    val = num;
                    skip = 1 + l;
                    break;
                }
            }
        }
        size_t add = val ? strlen(val) : 1;
        if (o + add > NVB_FIOJOB_MAX_LINE)
            return fail(r, -E2BIG, "%s: longer than %d bytes after ${} expansion (the line limit)",
                        where(r, file, n, w, sizeof w), NVB_FIOJOB_MAX_LINE);
        memcpy(out + o, val ? val : p, add);
        o += add;
        p += skip;
    }
    out[o] = 0;
    return 0;
}

/* ------------------------------------------------------------------ files and lines */

static int read_file(struct reader *r, const char *path, unsigned depth, unsigned from, unsigned from_line);

static int add_file(struct nvb_fiojob *f, const char *path)
{
    if (nvb__grow(&f->files, &f->capfiles, f->nfiles, sizeof *f->files, 4) < 0)
        return -ENOMEM;
    if (!(f->files[f->nfiles] = nvb__strdup(path)))
        return -ENOMEM;
    return (int)f->nfiles++;
}

/* include NAME, relative to the directory of the including file. */
static int include(struct reader *r, const char *name, unsigned depth, unsigned file, unsigned n)
{
    char w[240], e[200];
    if (!*name)
        return fail(r, -EINVAL, "%s: include needs a file name", where(r, file, n, w, sizeof w));
    if (depth + 1 > NVB_FIOJOB_MAX_DEPTH)
        return fail(r, -E2BIG, "%s: include '%s': includes nested more than %d deep (the include depth limit)",
                    where(r, file, n, w, sizeof w), esc(name, e, sizeof e), NVB_FIOJOB_MAX_DEPTH);
    if (++r->includes > NVB_FIOJOB_MAX_INCLUDES)
        return fail(r, -E2BIG, "%s: include '%s': more than %d includes in all (the include count limit)",
                    where(r, file, n, w, sizeof w), esc(name, e, sizeof e), NVB_FIOJOB_MAX_INCLUDES);
    const char *base = r->f->files[file];
    const char *slash = strrchr(base, '/');
#ifdef _WIN32
    const char *bs = strrchr(base, '\\');
    if (bs && (!slash || bs > slash))
        slash = bs;
    int absolute = name[0] == '/' || name[0] == '\\' || (name[0] && name[1] == ':');
#else
    int absolute = name[0] == '/';
#endif
    size_t dl = absolute || !slash ? 0 : (size_t)(slash - base) + 1;
    char *full = malloc(dl + strlen(name) + 1);
    if (!full)
        return -ENOMEM;
    memcpy(full, base, dl);
    strcpy(full + dl, name);
    int rc = read_file(r, full, depth + 1, file, n);
    free(full);
    return rc;
}

/* One line (NUL-terminated, stripped, not empty) of file. */
static int line(struct reader *r, char *text, size_t len, unsigned depth, unsigned file, unsigned n)
{
    char w[240], e[200];
    if (text[0] == '[')
        return section(r, text, len, file, n, depth > 0);
    if (!r->cur)
        return fail(r, -EINVAL, "%s: option '%s' before the first section", where(r, file, n, w, sizeof w),
                    esc(text, e, sizeof e));
    char *x = malloc(NVB_FIOJOB_MAX_LINE + 1);
    if (!x)
        return -ENOMEM;
    int rc = expand(r, text, x, file, n);
    if (rc == 0 && strncmp(x, "include", 7) == 0 && blank((unsigned char)x[7])) {
        char *a = x + 7;
        while (blank((unsigned char)*a))
            a++;
        rc = include(r, a, depth, file, n);
    } else if (rc == 0) {
        /* key=value, blanks around both dropped; a bare key is a flag */
        char *eq = strchr(x, '='), *v = NULL, *k = x, *ke = eq ? eq : x + strlen(x);
        while (ke > k && blank((unsigned char)ke[-1]))
            ke--;
        *ke = 0;
        if (eq) {
            v = eq + 1;
            while (blank((unsigned char)*v))
                v++;
            char *ve = v + strlen(v);
            while (ve > v && blank((unsigned char)ve[-1]))
                ve--;
            *ve = 0;
        }
        if (!*k)
            rc = fail(r, -EINVAL, "%s: '%s' has no option name before '='", where(r, file, n, w, sizeof w),
                      esc(text, e, sizeof e));
        else
            rc = sect_set(r, r->cur, k, v, file, n);
    }
    free(x);
    return rc;
}

static int read_file(struct reader *r, const char *path, unsigned depth, unsigned from, unsigned from_line)
{
    char w[240];
    char *buf = NULL;
    size_t len = 0;
    const char *what = NULL;
    size_t left = NVB_FIOJOB_MAX_BYTES - r->bytes;
    int rc = nvb__file_read_regular(path, left, &buf, &len, &what);
    if (rc < 0) {
        const char *at = depth ? where(r, from, from_line, w, sizeof w) : NULL;
        char p[200];
        esc(path, p, sizeof p);
        if (rc == -EFBIG)
            return fail(r, -E2BIG, "%s%s%s: the job file and its includes hold more than %u bytes (the size limit)",
                        at ? at : "", at ? ": include " : "", p, (unsigned)NVB_FIOJOB_MAX_BYTES);
        if (rc == -EINVAL && what)
            return fail(r, -EINVAL, "%s%s%s is %s, not a regular file: not read", at ? at : "",
                        at ? ": include " : "", p, what);
        return fail(r, rc, "%s%s%s: %s", at ? at : "", at ? ": include " : "", p, strerror(-rc));
    }
    r->bytes += len;
    int idx = add_file(r->f, path);
    if (idx < 0) {
        free(buf);
        return idx;
    }
    unsigned file = (unsigned)idx, n = 0;
    for (char *p = buf, *end = buf + len; p < end && rc == 0;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *le = nl ? nl : end, *next = nl ? nl + 1 : end;
        n++;
        if ((size_t)(le - p) > NVB_FIOJOB_MAX_LINE) {
            rc = fail(r, -E2BIG, "%s: a line longer than %d bytes (the line limit)", where(r, file, n, w, sizeof w),
                      NVB_FIOJOB_MAX_LINE);
            break;
        }
        /* the first ';' or '#' starts a comment */
        char *c = p;
        while (c < le && *c != ';' && *c != '#')
            c++;
        if (memchr(p, 0, (size_t)(c - p))) {
            rc = fail(r, -EINVAL, "%s: the line contains a NUL byte (\\x00) outside a comment",
                      where(r, file, n, w, sizeof w));
            break;
        }
        while (p < c && blank((unsigned char)*p))
            p++;
        while (c > p && (blank((unsigned char)c[-1]) || cntrl((unsigned char)c[-1])))
            c--;
        if (c > p) {
            *c = 0;
            rc = line(r, p, (size_t)(c - p), depth, file, n);
        }
        p = next;
    }
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------ stonewall */

static int truth(const char *v, int *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no", "off"};
    if (!v) {
        *out = 1;
        return 0;
    }
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
        if (strcasecmp(v, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    }
    return -EINVAL;
}

static int stonewalls(struct reader *r)
{
    char w[240], e[200];
    for (size_t j = 0; j < r->f->njob; j++) {
        struct fj_sect *s = &r->f->job[j];
        for (size_t i = 0; i < s->n && !s->stonewall; i++) {
            const struct fj_opt *o = &s->opt[i];
            int t;
            if (strcmp(o->key, "stonewall") != 0 && strcmp(o->key, "wait_for_previous") != 0)
                continue;
            if (truth(o->val, &t) < 0)
                return fail(r, -EINVAL, "%s: %s='%s' is not a boolean (0 or 1)", where(r, o->file, o->line, w, sizeof w),
                            o->key, esc(o->val, e, sizeof e));
            s->stonewall = t;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ API */

void nvb_fiojob_free(struct nvb_fiojob *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->njob; i++)
        sect_clear(&f->job[i]);
    free(f->job);
    for (size_t i = 0; i < f->nfiles; i++)
        free(f->files[i]);
    free(f->files);
    free(f);
}

int nvb_fiojob_read(const char *path, const char *const *envp, struct nvb_fiojob **out, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = 0;
    if (out)
        *out = NULL;
    struct reader r = {.envp = envp, .why = why, .why_len = why_len};
    if (!path || !out || !*path) {
        fail(&r, -EINVAL, "no job file named");
        return -EINVAL;
    }
    if (!(r.f = calloc(1, sizeof *r.f)))
        return fail(&r, -ENOMEM, "out of memory reading a job file");
    int rc = read_file(&r, path, 0, 0, 0);
    if (rc == 0 && r.f->njob == 0) {
        char e[200];
        rc = fail(&r, -EINVAL, "%s: no job section", esc(path, e, sizeof e));
    }
    if (rc == 0)
        rc = stonewalls(&r);
    sect_clear(&r.glob);
    if (rc < 0) {
        if (rc == -ENOMEM)
            fail(&r, rc, "out of memory reading a job file");
        nvb_fiojob_free(r.f);
        return rc;
    }
    *out = r.f;
    return 0;
}

size_t nvb_fiojob_jobs(const struct nvb_fiojob *f) { return f ? f->njob : 0; }

const char *nvb_fiojob_name(const struct nvb_fiojob *f, size_t job)
{
    return f && job < f->njob ? f->job[job].name : NULL;
}

int nvb_fiojob_stonewall(const struct nvb_fiojob *f, size_t job)
{
    return f && job < f->njob ? f->job[job].stonewall : -EINVAL;
}

size_t nvb_fiojob_options(const struct nvb_fiojob *f, size_t job)
{
    return f && job < f->njob ? f->job[job].n : 0;
}

const char *nvb_fiojob_option(const struct nvb_fiojob *f, size_t job, size_t k, const char **value)
{
    if (value)
        *value = NULL;
    if (!f || job >= f->njob || k >= f->job[job].n)
        return NULL;
    if (value)
        *value = f->job[job].opt[k].val;
    return f->job[job].opt[k].key;
}
