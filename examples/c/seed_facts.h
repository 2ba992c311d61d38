/*
 * seed_facts: what seed_matrix writes into each result besides the
 * library's figures, and its --json file. Included by seed_matrix.c only
 * (the program stays one file to build: cc seed_matrix.c $(pkg-config
 * --cflags --libs nvbench)); its functions are static.
 *
 * The facts a reader of a results file needs to trust its stack label go
 * into the result's engine_used (a map of strings the library's parser
 * reads back as it is): "os" (the OS and its build), "cpu_model"; the
 * logical CPU count is the result's cpu.ncpus. With --stack, "stack" is
 * the stack the user stated, "stack_source" is "stated" and
 * "stack_detected" keeps what the library found (on Windows the engines
 * record "stack", "stack_source" = "detected" or "none", the disk's
 * "disk_model" and "disk_driver" themselves).
 */
#ifndef SEED_FACTS_H
#define SEED_FACTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvbench.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <sys/utsname.h>
#endif

/* engine_used values are at most 95 bytes (the library's loader refuses more) */
#define SEED_VAL 96

static struct {
    char os[SEED_VAL], cpu_model[SEED_VAL], stack[32];
} g_facts;

static int seed_stack_valid(const char *stack)
{
    return !strcmp(stack, "windows_native") || !strcmp(stack, "windows_non_native");
}

/* printable ASCII but quotes and backslashes (a JSON string as it is),
 * spaces collapsed, at most SEED_VAL - 1 bytes */
static void clean(char *out, const char *in)
{
    size_t o = 0;
    for (; *in && o < SEED_VAL - 1; in++) {
        char c = *in >= 0x20 && *in < 0x7f && *in != '"' && *in != '\\' ? *in : ' ';
        if (c == ' ' && (o == 0 || out[o - 1] == ' '))
            continue;
        out[o++] = c;
    }
    while (o && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
}

#ifdef _WIN32
static int reg_text(HKEY root, const wchar_t *key, const wchar_t *name, char *out, size_t len)
{
    wchar_t w[256];
    DWORD n = sizeof w;
    if (RegGetValueW(root, key, name, RRF_RT_REG_SZ, NULL, w, &n) != ERROR_SUCCESS)
        return -1;
    return WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)len, NULL, NULL) > 0 ? 0 : -1;
}

static void read_facts(char *os, char *cpu)
{
    static const wchar_t cv[] = L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion";
    char product[128] = "Windows", display[64] = "", build[32] = "?", text[2 * SEED_VAL];
    DWORD ubr = 0, n = sizeof ubr;
    reg_text(HKEY_LOCAL_MACHINE, cv, L"ProductName", product, sizeof product);
    reg_text(HKEY_LOCAL_MACHINE, cv, L"DisplayVersion", display, sizeof display);
    reg_text(HKEY_LOCAL_MACHINE, cv, L"CurrentBuild", build, sizeof build);
    int have_ubr = RegGetValueW(HKEY_LOCAL_MACHINE, cv, L"UBR", RRF_RT_REG_DWORD, NULL, &ubr, &n) == ERROR_SUCCESS;
    snprintf(text, sizeof text, "%s %s (build %s%s%lu)", product, display, build, have_ubr ? "." : "",
             have_ubr ? (unsigned long)ubr : 0ul);
    if (!have_ubr) /* no update revision: the build alone */
        snprintf(text, sizeof text, "%s %s (build %s)", product, display, build);
    clean(os, text);
    char model[SEED_VAL] = "";
    reg_text(HKEY_LOCAL_MACHINE, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0", L"ProcessorNameString",
             model, sizeof model);
    clean(cpu, model);
}
#else
/* The value of "key" in a "key<sep>value" line of a text file. */
static void file_value(const char *path, const char *key, char sep, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    char line[512];
    out[0] = '\0';
    while (f && fgets(line, sizeof line, f)) {
        char *s = strchr(line, sep);
        if (!s || strncmp(line, key, strlen(key)) || strspn(line + strlen(key), " \t") != (size_t)(s - line) - strlen(key))
            continue;
        s += 1 + strspn(s + 1, " \t\"");
        s[strcspn(s, "\"\n")] = '\0';
        snprintf(out, len, "%s", s);
        break;
    }
    if (f)
        fclose(f);
}

static void read_facts(char *os, char *cpu)
{
    char distro[128], text[384], model[SEED_VAL];
    struct utsname u;
    file_value("/etc/os-release", "PRETTY_NAME", '=', distro, sizeof distro);
    if (uname(&u) == 0)
        snprintf(text, sizeof text, "%s, %s %s", distro[0] ? distro : u.sysname, u.sysname, u.release);
    else
        snprintf(text, sizeof text, "%s", distro);
    clean(os, text);
    file_value("/proc/cpuinfo", "model name", ':', model, sizeof model);
    clean(cpu, model);
}
#endif

static void seed_facts_init(const char *stack)
{
    read_facts(g_facts.os, g_facts.cpu_model);
    snprintf(g_facts.stack, sizeof g_facts.stack, "%s", stack ? stack : "");
}

/* A JSON string at s (its opening quote): the offset past its closing quote, or 0. */
static size_t string_end(const char *s)
{
    if (*s != '"')
        return 0;
    for (size_t i = 1; s[i]; i++) {
        if (s[i] == '\\' && s[i + 1])
            i++;
        else if (s[i] == '"')
            return i + 1;
    }
    return 0;
}

struct pair {
    const char *key, *val; /* JSON texts, quotes included */
    size_t klen, vlen;
};

static void put(struct pair *p, size_t *n, const char *key, const char *val)
{
    size_t i = 0, klen = strlen(key);
    while (i < *n && !(p[i].klen == klen + 2 && !strncmp(p[i].key + 1, key, klen)))
        i++;
    if (i == *n) {
        p[i].key = key;
        p[i].klen = 0; /* a bare name: quoted when written */
        (*n)++;
    }
    p[i].val = val;
    p[i].vlen = 0; /* a bare value: quoted when written */
}

static void emit(char *o, size_t *at, const char *text, size_t len, int quote)
{
    if (quote)
        o[(*at)++] = '"';
    memcpy(o + *at, text, len);
    *at += len;
    if (quote)
        o[(*at)++] = '"';
}

static char *seed_facts_apply(const char *json, char *why, size_t why_len)
{
    static const char anchor[] = "\"engine_used\":{";
    const char *start = strstr(json, anchor);
    struct pair p[40];
    size_t n = 0;
    if (!start) {
        snprintf(why, why_len, "no engine_used in the result");
        return NULL;
    }
    const char *s = start + strlen(anchor);
    while (*s != '}') {
        size_t k = string_end(s), v = k && s[k] == ':' ? string_end(s + k + 1) : 0;
        if (!v || n == 32 || (s[k + 1 + v] != ',' && s[k + 1 + v] != '}')) {
            snprintf(why, why_len, "engine_used is not an object of strings");
            return NULL;
        }
        p[n++] = (struct pair){s, s + k + 1, k, v};
        s += k + 1 + v + (s[k + 1 + v] == ',');
    }
    const char *end = s; /* the object's closing brace */
    char detected[SEED_VAL] = "";
    for (size_t i = 0; i < n; i++)
        if (p[i].klen == 7 && !strncmp(p[i].key, "\"stack\"", 7))
            snprintf(detected, sizeof detected, "%.*s", (int)p[i].vlen - 2, p[i].val + 1);
    put(p, &n, "os", g_facts.os);
    put(p, &n, "cpu_model", g_facts.cpu_model);
    if (g_facts.stack[0]) {
        put(p, &n, "stack_detected", detected[0] ? detected : "none");
        put(p, &n, "stack", g_facts.stack);
        put(p, &n, "stack_source", "stated");
    }
    size_t cap = strlen(json) + 1024, at = (size_t)(start - json) + strlen(anchor);
    char *o = malloc(cap);
    if (!o) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    memcpy(o, json, at);
    for (size_t i = 0; i < n; i++) {
        if (i)
            o[at++] = ',';
        emit(o, &at, p[i].key, p[i].klen ? p[i].klen : strlen(p[i].key), !p[i].klen);
        o[at++] = ':';
        emit(o, &at, p[i].val, p[i].vlen ? p[i].vlen : strlen(p[i].val), !p[i].vlen);
    }
    snprintf(o + at, cap - at, "%s", end);
    /* the library's own parser must read it back */
    struct nvb_result *check = NULL;
    if (nvb_result_parse(o, strlen(o), &check, why, why_len) < 0) {
        free(o);
        return NULL;
    }
    nvb_result_free(check);
    return o;
}

static FILE *seed_json_open(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f && fputs("{\"results\": [\n", f) < 0) {
        fclose(f);
        return NULL;
    }
    if (f)
        clearerr(f);
    return f;
}

static int g_written; /* results in the open file */

static int seed_json_add(FILE *f, const char *result_json)
{
    return fprintf(f, "%s%s", g_written++ ? ",\n" : "", result_json) < 0 ? -1 : 0;
}

static int seed_json_close(FILE *f)
{
    int bad = fputs("\n]}\n", f) < 0 || ferror(f);
    return fclose(f) || bad ? -1 : 0;
}

#endif
