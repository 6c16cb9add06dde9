/* ip.c - classify an IPv4 or IPv6 packet and take its 5-tuple (ip.h). */
#include "traces/ip.h"

#include <string.h>

enum { IPPROTO_TCP_ = 6, IPPROTO_UDP_ = 17 };
enum { IP4_HLEN = 20, IP6_HLEN = 40, IP6_EXT_MIN = 8, IP6_FRAG_HLEN = 8 };
enum { NH_HOPOPT = 0, NH_ROUTING = 43, NH_FRAGMENT = 44, NH_DSTOPTS = 60 };
/* Where a packet stands in fragmentation. */
enum { FRAG_NONE, FRAG_FIRST, FRAG_LATER };

static inline uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The upper layer, p->proto, starting l4 bytes into the IP packet: room
 * bytes of the packet were captured, len it has by its length fields
 * (UINT32_MAX: unknown).  The same rules for both IP versions. */
static void parse_l4(const uint8_t *ip, uint32_t l4, uint32_t room, uint32_t len, int frag, trace_pkt *p)
{
    if (frag == FRAG_LATER) {
        /* A later fragment carries no L4 header: no 5-tuple. */
        p->cls = TRACE_FRAGMENT;
        return;
    }
    if (p->proto != IPPROTO_TCP_ && p->proto != IPPROTO_UDP_) {
        p->has_tuple = 1;
        p->cls = frag ? TRACE_FRAGMENT : TRACE_NOT_TCP_UDP;
        return;
    }
    /* Ports are the first 4 bytes of both TCP and UDP. */
    if (room < l4 + 4 || len < l4 + 4) {
        p->cls = frag ? TRACE_FRAGMENT : TRACE_TRUNCATED;
        return;
    }
    p->src_port = be16(ip + l4);
    p->dst_port = be16(ip + l4 + 2);
    p->has_tuple = 1;
    p->cls = frag ? TRACE_FRAGMENT : TRACE_OK;
}

void trace_parse_ipv4(const uint8_t *ip, uint32_t room, trace_pkt *p)
{
    if (room < IP4_HLEN) {
        p->cls = TRACE_TRUNCATED;
        return;
    }
    uint32_t ihl = (uint32_t)(ip[0] & 0x0f) * 4;
    uint32_t tot = be16(ip + 2);
    if (ihl < IP4_HLEN || tot < ihl) {
        p->cls = TRACE_BAD_IPV4;
        return;
    }
    p->proto = ip[9];
    p->src_ip = be32(ip + 12);
    p->dst_ip = be32(ip + 16);
    uint16_t frag = be16(ip + 6);
    int later = (frag & 0x1fff) != 0, more = (frag & 0x2000) != 0;
    parse_l4(ip, ihl, room, tot, later ? FRAG_LATER : more ? FRAG_FIRST : FRAG_NONE, p);
}

static int ip6_is_ext(uint8_t nh)
{
    return nh == NH_HOPOPT || nh == NH_ROUTING || nh == NH_FRAGMENT || nh == NH_DSTOPTS;
}

/* Walk the extension headers from *o (the fixed header's next header in
 * *nh) to the upper layer.  Returns TRACE_OK with *o, *nh and *frag set, or
 * the class of a header cut by the capture or beyond the payload length. */
static int ip6_walk(const uint8_t *ip, uint32_t room, uint32_t len, uint32_t *o, uint8_t *nh, int *frag)
{
    while (ip6_is_ext(*nh)) {
        uint32_t at = *o;
        if (len < at + IP6_EXT_MIN)
            return TRACE_BAD_IPV6;
        if (room < at + 2)
            return TRACE_TRUNCATED;
        uint32_t hl = *nh == NH_FRAGMENT ? IP6_FRAG_HLEN : ((uint32_t)ip[at + 1] + 1) * 8;
        if (len < at + hl)
            return TRACE_BAD_IPV6;
        if (room < at + hl)
            return TRACE_TRUNCATED;
        int is_frag = *nh == NH_FRAGMENT;
        *nh = ip[at];
        *o = at + hl;
        if (is_frag) {
            uint16_t off_m = be16(ip + at + 2);
            if (off_m & 0xfff8) {
                /* What follows a later fragment's header is payload. */
                *frag = FRAG_LATER;
                return TRACE_OK;
            }
            if (off_m & 1)
                *frag = FRAG_FIRST;
        }
    }
    return TRACE_OK;
}

void trace_parse_ipv6(const uint8_t *ip, uint32_t room, trace_pkt *p)
{
    if (room < IP6_HLEN) {
        p->cls = TRACE_TRUNCATED;
        return;
    }
    uint32_t plen = be16(ip + 4);
    uint32_t len = plen ? IP6_HLEN + plen : UINT32_MAX;   /* 0: jumbogram, BIG TCP (ip.h) */
    p->ipv6 = 1;
    memcpy(p->src6, ip + 8, 16);
    memcpy(p->dst6, ip + 24, 16);
    uint32_t o = IP6_HLEN;
    uint8_t nh = ip[6];
    int frag = FRAG_NONE;
    int c = ip6_walk(ip, room, len, &o, &nh, &frag);
    if (c != TRACE_OK) {
        p->cls = (enum trace_class)c;
        return;
    }
    p->proto = nh;
    parse_l4(ip, o, room, len, frag, p);
}
