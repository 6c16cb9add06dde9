/* rss.h - Receive Side Scaling as NICs do it: Toeplitz hash + indirection table.
 *
 * The hash follows Microsoft's RSS specification ("RSS hashing functions"):
 * every set bit of the input, scanned from the most significant bit of the
 * first byte, XORs in the 32 key bits starting at that bit position.  Inputs
 * are in network order: IPv4 2-tuple = src IP, dst IP (8 bytes); 4-tuple =
 * src IP, dst IP, src port, dst port (12 bytes); IPv6 the same with 16-byte
 * addresses (32 and 36 bytes), which needs a 40-byte key: key bits past the
 * end of a shorter key count as zeros.  The queue is
 * reta[hash & (reta_size - 1)], the low bits as Intel NICs index the RETA;
 * the default RETA is entry i = i mod queues, as DPDK programs it. */
#ifndef DDIOSIM_TRACES_RSS_H
#define DDIOSIM_TRACES_RSS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/common/err.h"

#define RSS_KEY_MIN 16          /* a 4-tuple (12 bytes) needs 12 + 4 key bytes */
#define RSS_KEY_MAX 128
#define RSS_RETA_MAX 4096
#define RSS_QUEUES_MAX 4096
#define RSS_DEFAULT_KEY_LEN 40
#define RSS_DEFAULT_RETA 128
#define RSS_INPUT_MAX 36        /* the longest input: an IPv6 4-tuple */
#define RSS_KEY_IPV6 (RSS_INPUT_MAX + 4)   /* the key an IPv6 4-tuple needs in full */

/* The 40-byte key of the Microsoft verification suite (6d5a56da...01fa),
 * also the default of many drivers. */
extern const uint8_t rss_default_key[RSS_DEFAULT_KEY_LEN];

typedef struct rss {
    uint8_t key[RSS_KEY_MAX];
    size_t key_len;
    uint32_t queues, reta_size;
    uint16_t reta[RSS_RETA_MAX];
    /* tab[i][v]: the hash contribution of byte value v at input position i
     * (the hash is linear over XOR), so an IPv4 4-tuple costs 12 lookups. */
    uint32_t tab[RSS_INPUT_MAX][256];
} rss;

/* key NULL: the default key.  reta_size a power of two in [1, RSS_RETA_MAX],
 * queues in [1, reta_size]. */
int rss_init(rss *r, const uint8_t *key, size_t key_len, uint32_t queues, uint32_t reta_size, ddio_err *e);

/* Bit-by-bit Toeplitz hash of n bytes; key_len must be >= n + 4. */
uint32_t rss_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *in, size_t n);

/* Addresses and ports in host byte order. */
uint32_t rss_hash_ipv4(const rss *r, uint32_t src_ip, uint32_t dst_ip);
uint32_t rss_hash_ipv4_l4(const rss *r, uint32_t src_ip, uint32_t dst_ip, uint16_t src_port, uint16_t dst_port);
/* IPv6: addresses of 16 bytes in network order, ports in host byte order. */
uint32_t rss_hash_ipv6(const rss *r, const uint8_t src[16], const uint8_t dst[16]);
uint32_t rss_hash_ipv6_l4(const rss *r, const uint8_t src[16], const uint8_t dst[16], uint16_t src_port,
                          uint16_t dst_port);

static inline uint32_t rss_reta_index(const rss *r, uint32_t hash) { return hash & (r->reta_size - 1); }
static inline uint32_t rss_queue(const rss *r, uint32_t hash) { return r->reta[rss_reta_index(r, hash)]; }

/* Parse a key given as hex digits, optionally "0x"-prefixed and/or with ':'
 * between bytes (ethtool's form); `what` names the option in errors. */
int rss_parse_key(const char *s, uint8_t *key, size_t *key_len, const char *what, ddio_err *e);

#endif
