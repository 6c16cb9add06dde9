/* rss.c - Receive Side Scaling as NICs do it (rss.h): the Toeplitz hash
 * and an indirection table. */
#include "traces/rss.h"

#include <string.h>

#include "sim/common/parse.h"

const uint8_t rss_default_key[RSS_DEFAULT_KEY_LEN] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
    0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
    0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* The 32 key bits starting at bit position `bit` (bit 0 = MSB of key[0]). */
static uint32_t key_window(const uint8_t *key, size_t key_len, size_t bit)
{
    uint64_t w = 0;
    size_t byte = bit / 8;
    for (size_t i = 0; i < 5; i++)
        w = w << 8 | (byte + i < key_len ? key[byte + i] : 0);
    return (uint32_t)(w >> (8 - bit % 8));
}

uint32_t rss_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *in, size_t n)
{
    uint32_t h = 0;
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++)
            if (in[i] & (0x80 >> b))
                h ^= key_window(key, key_len, i * 8 + (size_t)b);
    return h;
}

int rss_init(rss *r, const uint8_t *key, size_t key_len, uint32_t queues, uint32_t reta_size, ddio_err *e)
{
    if (!key) {
        key = rss_default_key;
        key_len = sizeof rss_default_key;
    }
    if (key_len < RSS_KEY_MIN || key_len > RSS_KEY_MAX)
        return ddio_errf(e, DDIO_EXIT_USAGE, "RSS key of %zu bytes: need %d to %d", key_len, RSS_KEY_MIN,
                         RSS_KEY_MAX);
    if (!ddio_is_pow2(reta_size) || reta_size > RSS_RETA_MAX)
        return ddio_errf(e, DDIO_EXIT_USAGE, "RETA size %u: need a power of two in [1, %d]", reta_size,
                         RSS_RETA_MAX);
    if (queues < 1 || queues > reta_size)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "%u queues with a %u-entry RETA: need 1 to %u (more queues than entries are never used)",
                         queues, reta_size, reta_size);
    memset(r, 0, sizeof *r);
    memcpy(r->key, key, key_len);
    r->key_len = key_len;
    r->queues = queues;
    r->reta_size = reta_size;
    for (uint32_t i = 0; i < reta_size; i++)
        r->reta[i] = (uint16_t)(i % queues);
    /* tab[pos][v] = tab[pos][v without its lowest set bit] ^ that bit's
     * key window: one XOR per entry (36 positions since IPv6). */
    for (size_t pos = 0; pos < RSS_INPUT_MAX; pos++) {
        uint32_t win[8];
        for (int bit = 0; bit < 8; bit++)
            win[bit] = key_window(key, key_len, pos * 8 + (size_t)bit);
        r->tab[pos][0] = 0;
        for (unsigned v = 1; v < 256; v++) {
            int low = __builtin_ctz(v);   /* bit `low` from the LSB is bit 7 - low from the MSB */
            r->tab[pos][v] = r->tab[pos][v & (v - 1)] ^ win[7 - low];
        }
    }
    return 0;
}

static uint32_t hash_bytes(const rss *r, const uint8_t *in, size_t n)
{
    uint32_t h = 0;
    for (size_t i = 0; i < n; i++)
        h ^= r->tab[i][in[i]];
    return h;
}

static void put_be32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}

/* hash_bytes of v's four bytes in network order at input byte `pos`,
 * straight from the word (no byte array: the IPv4 hashes run once per
 * packet of a multi-core run). */
static uint32_t hash_be32(const rss *r, size_t pos, uint32_t v)
{
    return r->tab[pos][v >> 24] ^ r->tab[pos + 1][(v >> 16) & 0xff] ^ r->tab[pos + 2][(v >> 8) & 0xff] ^
           r->tab[pos + 3][v & 0xff];
}

uint32_t rss_hash_ipv4(const rss *r, uint32_t src_ip, uint32_t dst_ip)
{
    return hash_be32(r, 0, src_ip) ^ hash_be32(r, 4, dst_ip);
}

uint32_t rss_hash_ipv4_l4(const rss *r, uint32_t src_ip, uint32_t dst_ip, uint16_t src_port, uint16_t dst_port)
{
    return hash_be32(r, 0, src_ip) ^ hash_be32(r, 4, dst_ip) ^ hash_be32(r, 8, (uint32_t)src_port << 16 | dst_port);
}

uint32_t rss_hash_ipv6(const rss *r, const uint8_t src[16], const uint8_t dst[16])
{
    uint8_t in[32];
    memcpy(in, src, 16);
    memcpy(in + 16, dst, 16);
    return hash_bytes(r, in, sizeof in);
}

uint32_t rss_hash_ipv6_l4(const rss *r, const uint8_t src[16], const uint8_t dst[16], uint16_t src_port,
                          uint16_t dst_port)
{
    uint8_t in[36];
    memcpy(in, src, 16);
    memcpy(in + 16, dst, 16);
    put_be32(in + 32, (uint32_t)src_port << 16 | dst_port);
    return hash_bytes(r, in, sizeof in);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int rss_parse_key(const char *s, uint8_t *key, size_t *key_len, const char *what, ddio_err *e)
{
    const char *p = s;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    size_t n = 0;
    while (*p) {
        if (*p == ':' && n > 0 && p[1]) {
            p++;
            continue;
        }
        int hi = hexval(p[0]), lo = hi >= 0 ? hexval(p[1]) : -1;
        if (hi < 0 || lo < 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: '%s' is not a key in hexadecimal (two digits per byte)",
                             what, s);
        if (n == RSS_KEY_MAX)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: key longer than %d bytes", what, RSS_KEY_MAX);
        key[n++] = (uint8_t)(hi << 4 | lo);
        p += 2;
    }
    if (n < RSS_KEY_MIN)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: key of %zu bytes, need at least %d (12 input bytes + 4)", what,
                         n, RSS_KEY_MIN);
    *key_len = n;
    return 0;
}
