/* ip.h - classify an IPv4 or IPv6 packet and take its 5-tuple, for the
 * trace reader (pcap.h) once the link layer is stripped.
 *
 * IPv6: the fixed header, then the extension headers hop-by-hop (0),
 * routing (43), fragment (44) and destination options (60), in any order,
 * up to the upper-layer header; any other next header (TCP, UDP, ICMPv6,
 * ESP, AH, No Next Header, ...) is the protocol.  A fragment header with
 * offset 0 and M set starts a first fragment, whose ports are read when
 * present (class fragment); a non-zero offset is a later fragment: no
 * ports, no 5-tuple, and the walk stops there (what follows is payload);
 * offset 0 with M clear is an atomic fragment (RFC 6946), a whole packet.
 * Addresses are those of the fixed header (a routing header's final
 * destination is not looked for), as the RSS hash of a NIC without the
 * "IPv6 Ex" hash types reads them.  A payload length of 0 (a jumbogram,
 * RFC 2675, or a Linux BIG TCP packet) bounds nothing: the capture does. */
#ifndef DDIOSIM_TRACES_IP_H
#define DDIOSIM_TRACES_IP_H

#include <stdint.h>

#include "traces/pcap.h"

/* Fill p->cls, has_tuple, proto, ports and addresses (ipv6 set) from the
 * IP packet at ip of which `room` bytes were captured; the caller checked
 * that the version nibble is 4 (trace_parse_ipv4) or 6 (trace_parse_ipv6)
 * and cleared the tuple fields. */
void trace_parse_ipv4(const uint8_t *ip, uint32_t room, trace_pkt *p);
void trace_parse_ipv6(const uint8_t *ip, uint32_t room, trace_pkt *p);

#endif
