/* pcap_fast.c - plain classic pcap records without libpcap (pcap_fast.h). */
#include "traces/pcap_fast.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum {
    REC_HDR = 16,                 /* ts_sec, ts_frac, incl_len, orig_len: 32 bits each */
    BUF_BYTES = 1 << 20,          /* one fread per MiB of the file */
    /* libpcap's max_snaplen_for_dlt for every link type the reader takes
     * (MAXIMUM_SNAPLEN): a longer record is an error there, whatever the
     * file's snap length says. */
    MAX_CAPLEN = 262144,
};

struct pcap_fast {
    FILE *f;
    uint32_t plain_max;           /* a record this long or shorter is plain: min(snapshot, MAX_CAPLEN) */
    int nsec;
    uint8_t *buf;
    size_t len, pos;              /* bytes in buf, the next record's start in it */
    uint64_t off;                 /* the file offset of buf[pos] */
    size_t cap;                   /* buf's size: BUF_BYTES, or a smaller file's rest, and one plain record at least */
    int eof;                      /* fread met the end of the file (or an error: ferror) */
};

pcap_fast *pcap_fast_open(FILE *f, uint64_t off, uint32_t snapshot, int nsec, uint64_t size)
{
    pcap_fast *x = calloc(1, sizeof *x);
    const uint32_t plain_max = snapshot < MAX_CAPLEN ? snapshot : MAX_CAPLEN;
    size_t cap = size > off && size - off < BUF_BYTES ? (size_t)(size - off) : BUF_BYTES;
    if (cap < (size_t)plain_max + REC_HDR)
        cap = (size_t)plain_max + REC_HDR;   /* a whole plain record always fits */
    uint8_t *b = x ? malloc(cap) : NULL;
    if (!b) {
        free(x);
        return NULL;
    }
    *x = (pcap_fast){.f = f, .plain_max = plain_max, .nsec = nsec, .buf = b, .off = off, .cap = cap};
    return x;
}

/* At least `need` bytes from pos, reading more after moving what is left
 * to the front; 0 when the file ends first (or a read fails). */
static int have(pcap_fast *x, size_t need)
{
    if (x->len - x->pos >= need)
        return 1;
    assert(need <= x->cap);
    memmove(x->buf, x->buf + x->pos, x->len - x->pos);
    x->len -= x->pos;
    x->pos = 0;
    while (!x->eof && x->len < need) {
        size_t got = fread(x->buf + x->len, 1, x->cap - x->len, x->f);
        x->len += got;
        if (got == 0)
            x->eof = 1;
    }
    return x->len >= need;
}

static inline uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);   /* the host's byte order: the file's (not swapped) */
    return v;
}

/* Hand the record at off back to libpcap: the stream at its start, its
 * error flag cleared (a failed read is then libpcap's to meet again; left
 * set, a later short read at the true end would be taken for an error). */
static int give_back(pcap_fast *x, int *seek_failed)
{
    clearerr(x->f);
    *seek_failed = x->off > (uint64_t)LONG_MAX || fseek(x->f, (long)x->off, SEEK_SET) != 0;
    return -1;
}

int pcap_fast_next(pcap_fast *x, pcap_fast_rec *out, int *seek_failed)
{
    *seek_failed = 0;
    if (!have(x, REC_HDR)) {
        /* libpcap: EOF when no header byte is left, else its error. */
        if (x->len == x->pos && !ferror(x->f))
            return 0;
        return give_back(x, seek_failed);
    }
    const uint8_t *h = x->buf + x->pos;
    const uint32_t incl = rd32(h + 8);
    if (incl > x->plain_max || !have(x, REC_HDR + (size_t)incl))   /* cut, refused, or cut by the end */
        return give_back(x, seek_failed);
    h = x->buf + x->pos;   /* have() may have moved it */
    /* pcap_next_packet: the fields are bpf_int32 in the file's header. */
    out->ts_sec = (int32_t)rd32(h);
    out->ts_frac = (int64_t)(int32_t)rd32(h + 4) * (x->nsec ? 1 : 1000);
    out->caplen = incl;
    out->len = rd32(h + 12);
    out->data = h + REC_HDR;
    out->off = x->off;
    x->pos += REC_HDR + incl;
    x->off += REC_HDR + incl;
    return 1;
}

void pcap_fast_close(pcap_fast *x)
{
    if (!x)
        return;
    free(x->buf);
    free(x);
}
