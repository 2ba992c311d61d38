/* Data verification blocks and CRC32C: see verify.h. */
#include "core/verify.h"

#include <errno.h>
#include <string.h>

#include "util/rand.h"

static const uint32_t crc_table[256] = {
    0x00000000, 0xf26b8303, 0xe13b70f7, 0x1350f3f4, 0xc79a971f, 0x35f1141c, 0x26a1e7e8, 0xd4ca64eb,
    0x8ad958cf, 0x78b2dbcc, 0x6be22838, 0x9989ab3b, 0x4d43cfd0, 0xbf284cd3, 0xac78bf27, 0x5e133c24,
    0x105ec76f, 0xe235446c, 0xf165b798, 0x030e349b, 0xd7c45070, 0x25afd373, 0x36ff2087, 0xc494a384,
    0x9a879fa0, 0x68ec1ca3, 0x7bbcef57, 0x89d76c54, 0x5d1d08bf, 0xaf768bbc, 0xbc267848, 0x4e4dfb4b,
    0x20bd8ede, 0xd2d60ddd, 0xc186fe29, 0x33ed7d2a, 0xe72719c1, 0x154c9ac2, 0x061c6936, 0xf477ea35,
    0xaa64d611, 0x580f5512, 0x4b5fa6e6, 0xb93425e5, 0x6dfe410e, 0x9f95c20d, 0x8cc531f9, 0x7eaeb2fa,
    0x30e349b1, 0xc288cab2, 0xd1d83946, 0x23b3ba45, 0xf779deae, 0x05125dad, 0x1642ae59, 0xe4292d5a,
    0xba3a117e, 0x4851927d, 0x5b016189, 0xa96ae28a, 0x7da08661, 0x8fcb0562, 0x9c9bf696, 0x6ef07595,
    0x417b1dbc, 0xb3109ebf, 0xa0406d4b, 0x522bee48, 0x86e18aa3, 0x748a09a0, 0x67dafa54, 0x95b17957,
    0xcba24573, 0x39c9c670, 0x2a993584, 0xd8f2b687, 0x0c38d26c, 0xfe53516f, 0xed03a29b, 0x1f682198,
    0x5125dad3, 0xa34e59d0, 0xb01eaa24, 0x42752927, 0x96bf4dcc, 0x64d4cecf, 0x77843d3b, 0x85efbe38,
    0xdbfc821c, 0x2997011f, 0x3ac7f2eb, 0xc8ac71e8, 0x1c661503, 0xee0d9600, 0xfd5d65f4, 0x0f36e6f7,
    0x61c69362, 0x93ad1061, 0x80fde395, 0x72966096, 0xa65c047d, 0x5437877e, 0x4767748a, 0xb50cf789,
    0xeb1fcbad, 0x197448ae, 0x0a24bb5a, 0xf84f3859, 0x2c855cb2, 0xdeeedfb1, 0xcdbe2c45, 0x3fd5af46,
    0x7198540d, 0x83f3d70e, 0x90a324fa, 0x62c8a7f9, 0xb602c312, 0x44694011, 0x5739b3e5, 0xa55230e6,
    0xfb410cc2, 0x092a8fc1, 0x1a7a7c35, 0xe811ff36, 0x3cdb9bdd, 0xceb018de, 0xdde0eb2a, 0x2f8b6829,
    0x82f63b78, 0x709db87b, 0x63cd4b8f, 0x91a6c88c, 0x456cac67, 0xb7072f64, 0xa457dc90, 0x563c5f93,
    0x082f63b7, 0xfa44e0b4, 0xe9141340, 0x1b7f9043, 0xcfb5f4a8, 0x3dde77ab, 0x2e8e845f, 0xdce5075c,
    0x92a8fc17, 0x60c37f14, 0x73938ce0, 0x81f80fe3, 0x55326b08, 0xa759e80b, 0xb4091bff, 0x466298fc,
    0x1871a4d8, 0xea1a27db, 0xf94ad42f, 0x0b21572c, 0xdfeb33c7, 0x2d80b0c4, 0x3ed04330, 0xccbbc033,
    0xa24bb5a6, 0x502036a5, 0x4370c551, 0xb11b4652, 0x65d122b9, 0x97baa1ba, 0x84ea524e, 0x7681d14d,
    0x2892ed69, 0xdaf96e6a, 0xc9a99d9e, 0x3bc21e9d, 0xef087a76, 0x1d63f975, 0x0e330a81, 0xfc588982,
    0xb21572c9, 0x407ef1ca, 0x532e023e, 0xa145813d, 0x758fe5d6, 0x87e466d5, 0x94b49521, 0x66df1622,
    0x38cc2a06, 0xcaa7a905, 0xd9f75af1, 0x2b9cd9f2, 0xff56bd19, 0x0d3d3e1a, 0x1e6dcdee, 0xec064eed,
    0xc38d26c4, 0x31e6a5c7, 0x22b65633, 0xd0ddd530, 0x0417b1db, 0xf67c32d8, 0xe52cc12c, 0x1747422f,
    0x49547e0b, 0xbb3ffd08, 0xa86f0efc, 0x5a048dff, 0x8ecee914, 0x7ca56a17, 0x6ff599e3, 0x9d9e1ae0,
    0xd3d3e1ab, 0x21b862a8, 0x32e8915c, 0xc083125f, 0x144976b4, 0xe622f5b7, 0xf5720643, 0x07198540,
    0x590ab964, 0xab613a67, 0xb831c993, 0x4a5a4a90, 0x9e902e7b, 0x6cfbad78, 0x7fab5e8c, 0x8dc0dd8f,
    0xe330a81a, 0x115b2b19, 0x020bd8ed, 0xf0605bee, 0x24aa3f05, 0xd6c1bc06, 0xc5914ff2, 0x37faccf1,
    0x69e9f0d5, 0x9b8273d6, 0x88d28022, 0x7ab90321, 0xae7367ca, 0x5c18e4c9, 0x4f48173d, 0xbd23943e,
    0xf36e6f75, 0x0105ec76, 0x12551f82, 0xe03e9c81, 0x34f4f86a, 0xc69f7b69, 0xd5cf889d, 0x27a40b9e,
    0x79b737ba, 0x8bdcb4b9, 0x988c474d, 0x6ae7c44e, 0xbe2da0a5, 0x4c4623a6, 0x5f16d052, 0xad7d5351,
};

static uint32_t crc_sw(uint32_t crc, const unsigned char *p, size_t len)
{
    while (len--)
        crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_HW_CRC 1
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const unsigned char *p, size_t len)
{
    uint64_t c = crc;
    while (len && ((uintptr_t)p & 7)) {
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
        len--;
    }
    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
        p += 8;
        len -= 8;
    }
    while (len--)
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    return (uint32_t)c;
}
#endif

uint32_t nvb__crc32c(uint32_t crc, const void *buf, size_t len)
{
    crc = ~crc;
#ifdef HAVE_HW_CRC
    /* libgcc initialises the CPU model before main: a plain read here */
    if (__builtin_cpu_supports("sse4.2"))
        return ~crc_hw(crc, buf, len);
#endif
    return ~crc_sw(crc, buf, len);
}

static const unsigned char MAGIC[8] = {'N', 'V', 'B', 'v', 'r', 'f', 'y', '1'};
#define FORMAT 1u
#define CRC_OFF 44u

/* Little-endian fields: a plain copy where the CPU is little-endian. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define LE64(v) __builtin_bswap64(v)
#define LE32(v) __builtin_bswap32(v)
#else
#define LE64(v) (v)
#define LE32(v) (v)
#endif

static inline void put64(unsigned char *p, uint64_t v)
{
    v = LE64(v);
    memcpy(p, &v, 8);
}

static inline void put32(unsigned char *p, uint32_t v)
{
    v = LE32(v);
    memcpy(p, &v, 4);
}

static inline uint64_t get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return LE64(v);
}

static inline uint32_t get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return LE32(v);
}

static uint64_t payload_seed(uint64_t seed, uint32_t target, uint64_t off, uint64_t seq)
{
    uint64_t s = seed ^ 0x7665726966790001ull;
    s = nvb__splitmix64(&s) ^ ((uint64_t)target * 0xd1b54a32d192ed03ull);
    s = nvb__splitmix64(&s) ^ off;
    s = nvb__splitmix64(&s) ^ seq;
    return s;
}

/* The CRC of a block with its CRC field read as zero. */
static uint32_t block_crc(const unsigned char *b, uint32_t len)
{
    static const unsigned char zero[4];
    uint32_t c = nvb__crc32c(0, b, CRC_OFF);
    c = nvb__crc32c(c, zero, 4);
    return nvb__crc32c(c, b + NVB__VHDR_SIZE, len - NVB__VHDR_SIZE);
}

int nvb__vpat_parse(const char *text, struct nvb__vpat *out)
{
    memset(out, 0, sizeof *out);
    if (!*text)
        return 0;
    size_t n = strlen(text);
    if (n < 4 || n % 2 || n - 2 > 2 * sizeof out->b || text[0] != '0' || (text[1] | 0x20) != 'x')
        return -EINVAL;
    for (size_t i = 2; i < n; i += 2) {
        int v = 0;
        for (size_t k = i; k < i + 2; k++) {
            const char c = (char)(text[k] | 0x20);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
                return -EINVAL;
            v = v * 16 + (c <= '9' ? c - '0' : c - 'a' + 10);
        }
        out->b[out->len++] = (unsigned char)v;
    }
    return 0;
}

/* The payload of a block of pattern pat: byte i is the pattern's i mod its
 * length, counted from the block's start. */
static void pat_fill(unsigned char *b, uint32_t from, uint32_t len, const struct nvb__vpat *pat)
{
    for (uint32_t i = from; i < len; i++)
        b[i] = pat->b[i % pat->len];
}

static uint32_t pat_diff(const unsigned char *b, uint32_t from, uint32_t len, const struct nvb__vpat *pat)
{
    for (uint32_t i = from; i < len; i++)
        if (b[i] != pat->b[i % pat->len])
            return i;
    return len;
}

void nvb__vblock_fill(void *buf, uint32_t len, uint64_t seed, uint32_t target, uint64_t off, uint64_t seq)
{
    nvb__vblock_fill_pat(buf, len, seed, target, off, seq, NULL);
}

int nvb__vblock_check(const void *buf, uint32_t len, uint64_t seed, uint32_t target, uint64_t off,
                      struct nvb__vmismatch *mm)
{
    return nvb__vblock_check_pat(buf, len, seed, target, off, NULL, mm);
}

void nvb__vblock_fill_pat(void *buf, uint32_t len, uint64_t seed, uint32_t target, uint64_t off, uint64_t seq,
                          const struct nvb__vpat *pat)
{
    unsigned char *b = buf;
    memcpy(b, MAGIC, 8);
    put64(b + 8, off);
    put64(b + 16, seed);
    put64(b + 24, seq);
    put32(b + 32, target);
    put32(b + 36, len);
    put32(b + 40, FORMAT);
    if (pat && pat->len) {
        pat_fill(b, NVB__VHDR_SIZE, len, pat);
        put32(b + CRC_OFF, block_crc(b, len));
        return;
    }
    uint64_t s = payload_seed(seed, target, off, seq);
    uint32_t i = NVB__VHDR_SIZE;
    for (; i + 8 <= len; i += 8)
        put64(b + i, nvb__splitmix64(&s));
    if (i < len) {
        unsigned char last[8];
        put64(last, nvb__splitmix64(&s));
        memcpy(b + i, last, len - i);
    }
    put32(b + CRC_OFF, block_crc(b, len));
}

static int differ(struct nvb__vmismatch *mm, int field, uint64_t expected, uint64_t found)
{
    mm->field = (uint8_t)field;
    mm->expected = expected;
    mm->found = found;
    return field;
}

int nvb__vblock_check_pat(const void *buf, uint32_t len, uint64_t seed, uint32_t target, uint64_t off,
                          const struct nvb__vpat *pat, struct nvb__vmismatch *mm)
{
    const unsigned char *b = buf;
    memset(mm, 0, sizeof *mm);
    mm->offset = off;
    mm->target = target;
    if (memcmp(b, MAGIC, 8))
        return differ(mm, NVB__VF_MAGIC, get64(MAGIC), get64(b));
    mm->seq = get64(b + 24);
    if (get32(b + 36) != len)
        return differ(mm, NVB__VF_BS, len, get32(b + 36));
    uint32_t crc = block_crc(b, len);
    if (get32(b + CRC_OFF) != crc)
        return differ(mm, NVB__VF_CHECKSUM, crc, get32(b + CRC_OFF));
    if (get64(b + 8) != off)
        return differ(mm, NVB__VF_OFFSET, off, get64(b + 8));
    if (get32(b + 32) != target)
        return differ(mm, NVB__VF_TARGET, target, get32(b + 32));
    if (get64(b + 16) != seed)
        return differ(mm, NVB__VF_SEED, seed, get64(b + 16));
    if (get32(b + 40) != FORMAT)
        return differ(mm, NVB__VF_DATA, FORMAT, get32(b + 40));
    /* Belt and braces: the checksum alone misses one corruption in 2^32. */
    if (pat && pat->len) {
        uint32_t at = pat_diff(b, NVB__VHDR_SIZE, len, pat);
        return at == len ? NVB__VF_OK : differ(mm, NVB__VF_DATA, pat->b[at % pat->len], b[at]);
    }
    uint64_t s = payload_seed(seed, target, off, mm->seq);
    uint32_t i = NVB__VHDR_SIZE;
    for (; i + 8 <= len; i += 8) {
        uint64_t want = nvb__splitmix64(&s), got = get64(b + i);
        if (want != got)
            return differ(mm, NVB__VF_DATA, want, got);
    }
    if (i < len) {
        unsigned char last[8];
        put64(last, nvb__splitmix64(&s));
        if (memcmp(b + i, last, len - i))
            return differ(mm, NVB__VF_DATA, 0, 0);
    }
    return NVB__VF_OK;
}

const char *nvb__vfield_name(int f)
{
    static const char *const names[NVB__VF_COUNT] = {"ok", "magic", "bs", "checksum", "offset", "target",
                                                     "seed", "data", "sequence"};
    return f >= 0 && f < NVB__VF_COUNT ? names[f] : "?";
}
