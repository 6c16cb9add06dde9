/* pcap_fast.h - the plain records of a classic pcap file read without
 * libpcap (private to traces/pcap.c): a record libpcap would hand over as
 * it is on disk (its captured bytes within the snap length and within
 * libpcap's 262 144-byte maximum, complete, in the host's byte order) is
 * read from a buffer of up to 1 MiB (or one record), no call per record
 * into stdio or libpcap; any other record (cut to the snap length,
 * refused as too long, cut off by the end of the file, a read error) is
 * left to libpcap, the stream put back at its start (pcap_fast_next
 * returns -1), so that what a reader returns and every error it reports
 * are libpcap's.
 *
 * The records it hands over are exactly libpcap's for those files
 * (pcap_next_ex with PCAP_TSTAMP_PRECISION_NANO): the lengths as
 * written, the seconds and the fraction as signed 32-bit fields, the
 * fraction times 1000 in a microsecond file.  traces_pcap tests compare
 * both readers record by record on every sample and corpus capture. */
#ifndef DDIOSIM_TRACES_PCAP_FAST_H
#define DDIOSIM_TRACES_PCAP_FAST_H

#include <stdint.h>
#include <stdio.h>

typedef struct pcap_fast pcap_fast;

/* One record as pcap_next_ex gives it. */
typedef struct pcap_fast_rec {
    int64_t ts_sec, ts_frac;    /* seconds; nanoseconds (or 1000 x a microsecond file's field) */
    uint32_t caplen, len;
    const uint8_t *data;        /* caplen bytes, valid until the next pcap_fast_next */
    uint64_t off;               /* where the record starts in the file */
} pcap_fast_rec;

/* A reader of the classic pcap stream f, positioned at offset `off` (just
 * past the file header), whose records libpcap reads in the host's byte
 * order (not swapped), version 2.4, with snap length `snapshot`
 * (pcap_snapshot); `nsec` 1 for a nanosecond file; `size` the file's
 * bytes when known (a smaller buffer for a small file), else 0.  f stays
 * the caller's (libpcap's); it must be seekable.  NULL when out of
 * memory: libpcap then reads every record. */
pcap_fast *pcap_fast_open(FILE *f, uint64_t off, uint32_t snapshot, int nsec, uint64_t size);
/* The next record: 1 and *out; 0 at the end of the file (where libpcap
 * finds it too); -1: a record that is not plain, or a read that failed:
 * f is put back at that record's start (or the reader could not seek it:
 * *seek_failed 1) for libpcap to read from there. */
int pcap_fast_next(pcap_fast *x, pcap_fast_rec *out, int *seek_failed);
void pcap_fast_close(pcap_fast *x);

#endif
