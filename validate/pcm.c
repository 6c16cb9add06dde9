/* pcm.c - reader of Intel PCM's `pcm-pcie -e -csv` output: the LLC hits and
 * misses of one DMA opcode on one socket, summed over a whole run.
 *
 * The layout, as intel/pcm prints it (src/pcm-pcie.h,
 * LegacyPlatform::printHeader and printSocketScopeEvents): every sample
 * starts with a header naming the opcodes,
 *
 *     Skt,PCIRdCur,RFO,CRd,DRd,ItoM,PRd,WiL            Skylake, Cascade Lake
 *     Skt,PCIRdCur,ItoM,ItoMCacheNear,UCRdF,WiL        Ice Lake (Sapphire
 *                                                      Rapids adds WCiL,WCiLF)
 *
 * (with -B two more columns, "PCIe Rd (B)" and "PCIe Wr (B)"), then, per
 * socket, three rows whose last field has the filter glued to it:
 *
 *     0,5263,81,0,0,392005,0,122(Total)
 *     0,1042,17,0,0,88311,0,122(Miss)
 *     0,4221,64,0,0,303694,0,0(Hit)
 *
 * Only -e prints the (Miss) and (Hit) rows; without it each socket has one
 * unsuffixed total row, which is rejected (the hit rate needs the split).
 * Pre-2020 PCM named the read column PCIeRdCur and put a tab before the
 * suffix; a fork used in DDIO studies adds a leading "time" column (-t).
 * Columns are looked up by name in each header, so all of these read alike.
 *
 * Recent PCM prints its event legend on stdout before the first header, and
 * a capture with 2>&1 adds the CPU banner: everything before the first
 * header is skipped.  After it, a line that is neither a header, a row nor
 * blank is an error naming the line, rather than silently changing sums. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "sim/common/infile.h"
#include "validate/measure.h"
#include "validate/text.h"

#define PCM_MAX_FIELDS 64

/* The current sample's header: where the socket and the opcode are. */
typedef struct pcm_header {
    unsigned long line;             /* 0 until the first header */
    size_t nfields, skt, col;
    char col_name[VD_NAME_LEN];     /* the header's spelling of the opcode */
} pcm_header;

/* The requested socket's rows in the current sample. */
typedef struct pcm_sample {
    unsigned long hit_line, miss_line;  /* 0: row not seen */
    uint64_t hit, miss;
} pcm_sample;

enum pcm_filter { PCM_TOTAL, PCM_MISS, PCM_HIT };


/* A header is a line with a field "Skt" (the fork's -t puts "time" first). */
static int is_header(const char *s)
{
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (strncmp(s, "Skt", 3) == 0) {
            const char *p = s + 3;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == ',' || *p == '\0')
                return 1;
        }
        s = strchr(s, ',');
        if (!s)
            return 0;
        s++;
    }
}

/* A decimal count: digits only, no sign, fits in 64 bits. */
static int parse_count(const char *s, uint64_t *v)
{
    if (!*s)
        return -1;
    uint64_t x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

/* Does header field `h` hold the opcode the caller calls `want`?  PCIRdCur
 * was PCIeRdCur before 2020; the paper's RFO (partial write) is
 * ItoMCacheNear from Ice Lake on, whose header has no RFO column. */
static int column_is(const char *h, const char *want)
{
    if (strcmp(h, want) == 0)
        return 1;
    int rdcur = strcmp(want, "PCIRdCur") == 0 || strcmp(want, "PCIeRdCur") == 0;
    if (rdcur && (strcmp(h, "PCIRdCur") == 0 || strcmp(h, "PCIeRdCur") == 0))
        return 1;
    return strcmp(want, "RFO") == 0 && strcmp(h, "ItoMCacheNear") == 0;
}

/* Take a header line's fields as the layout of the rows that follow. */
static int header_open(pcm_header *h, char **f, size_t n, const char *column, const char *path,
                       unsigned long line, ddio_err *e)
{
    if (n > PCM_MAX_FIELDS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%lu: header has %zu columns, more than %d", path,
                         line, n, PCM_MAX_FIELDS);
    size_t skt = n, col = n;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(f[i], "Skt") == 0)
            skt = i;
        else if (col == n && column_is(f[i], column))
            col = i;
    }
    if (col == n) {
        char list[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < n && used < sizeof list; i++) {
            int w = snprintf(list + used, sizeof list - used, "%s%s", i ? "," : "", f[i]);
            used += w > 0 ? (size_t)w : 0;
        }
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%lu: no column '%s' in the pcm-pcie header (%s)",
                         path, line, column, list);
    }
    h->line = line;
    h->nfields = n;
    h->skt = skt;
    h->col = col;
    snprintf(h->col_name, sizeof h->col_name, "%s", f[col]);
    return 0;
}

/* End of a sample: add the socket's hits and misses if it had both rows. */
static int sample_close(pcm_sample *s, const pcm_header *h, int socket, uint64_t sum[2],
                        uint32_t *samples, const char *path, ddio_err *e)
{
    if (!s->hit_line != !s->miss_line)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "%s:%lu: the sample under this header has a (%s) row for socket %d "
                         "but no (%s) row", path, h->line, s->hit_line ? "Hit" : "Miss", socket,
                         s->hit_line ? "Miss" : "Hit");
    if (s->hit_line) {
        if (s->hit > UINT64_MAX - sum[0] || s->miss > UINT64_MAX - sum[1])
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%lu: counts overflow 64 bits", path, h->line);
        sum[0] += s->hit;
        sum[1] += s->miss;
        (*samples)++;
    }
    memset(s, 0, sizeof *s);
    return 0;
}

/* One data row: check it against the header; keep it if it is a (Hit) or
 * (Miss) row of `socket`. */
static int take_row(pcm_sample *s, const pcm_header *h, char **f, size_t n, int socket,
                    long *max_socket, const char *path, unsigned long line, ddio_err *e)
{
    if (n > PCM_MAX_FIELDS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%lu: %zu fields, but the header on line %lu has %zu",
                         path, line, n, h->line, h->nfields);
    /* The filter is glued to the last field: "122(Hit)", or "122\t(Hit)". */
    char *last = f[n - 1], *paren = strrchr(last, '(');
    enum pcm_filter filter;
    if (paren && strcmp(paren, "(Total)") == 0)
        filter = PCM_TOTAL;
    else if (paren && strcmp(paren, "(Miss)") == 0)
        filter = PCM_MISS;
    else if (paren && strcmp(paren, "(Hit)") == 0)
        filter = PCM_HIT;
    else
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         "%s:%lu: not a pcm-pcie row ending in (Total), (Miss) or (Hit) "
                         "(record with pcm-pcie -e -csv)", path, line);
    if (n != h->nfields)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%lu: %zu fields, but the header on line %lu has %zu",
                         path, line, n, h->line, h->nfields);
    *paren = '\0';
    f[n - 1] = vd_trim(last);

    uint64_t skt, v;
    if (parse_count(f[h->skt], &skt) != 0 || skt > INT_MAX)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%lu: Skt: '%s' is not a socket number", path, line,
                         f[h->skt]);
    if (parse_count(f[h->col], &v) != 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%lu: %s: '%s' is not a count", path, line,
                         h->col_name, f[h->col]);
    if ((long)skt > *max_socket)
        *max_socket = (long)skt;
    if ((int)skt != socket || filter == PCM_TOTAL)
        return 0;
    unsigned long *seen = filter == PCM_HIT ? &s->hit_line : &s->miss_line;
    if (*seen)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%lu: second (%s) row for socket %d after the header "
                         "on line %lu (first on line %lu)", path, line,
                         filter == PCM_HIT ? "Hit" : "Miss", socket, h->line, *seen);
    *seen = line;
    *(filter == PCM_HIT ? &s->hit : &s->miss) = v;
    return 0;
}

int vd_pcm_read(const char *path, const char *column, int socket, vd_counts *out, ddio_err *e)
{
    if (!column || !*column)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: no pcm-pcie column given", path);
    if (socket < 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: socket %d is negative", path, socket);
    FILE *fp = ddio_open_data(path, VD_MAX_FILE_BYTES, e);
    if (!fp)
        return -1;

    pcm_header h = {0};
    pcm_sample s = {0};
    uint64_t sum[2] = {0, 0};       /* hit, miss */
    uint32_t samples = 0;
    long max_socket = -1;
    vd_lines r = {.f = fp, .path = path};
    char *t, *f[PCM_MAX_FIELDS];
    int rc = 0;
    while ((t = vd_next_line(&r, &rc, e)) != NULL) {
        if (is_header(t)) {
            if (h.line && (rc = sample_close(&s, &h, socket, sum, &samples, path, e)) != 0)
                break;
            size_t n = vd_split_fields(t, f, PCM_MAX_FIELDS);
            if ((rc = header_open(&h, f, n, column, path, r.line, e)) != 0)
                break;
            continue;
        }
        /* Before the first header: PCM's legend and banner. */
        if (!h.line || !*t)
            continue;
        /* Old PCM (Ivy Town and earlier, -e -csv) printed this after each sample. */
        if (strcmp(t, "(Aggregate)") == 0)
            continue;
        size_t n = vd_split_fields(t, f, PCM_MAX_FIELDS);
        if ((rc = take_row(&s, &h, f, n, socket, &max_socket, path, r.line, e)) != 0)
            break;
    }
    free(r.buf);
    fclose(fp);
    if (rc != 0)
        return rc;
    if (!h.line)
        return ddio_errf(e, DDIO_EXIT_USAGE,
                         r.line ? "%s: no pcm-pcie -csv header (a line starting Skt,...)" : "%s: empty file",
                         path);
    if ((rc = sample_close(&s, &h, socket, sum, &samples, path, e)) != 0)
        return rc;
    if (samples == 0) {
        if (max_socket < 0)
            return ddio_errf(e, DDIO_EXIT_USAGE, "%s: no pcm-pcie rows", path);
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: no (Hit)/(Miss) rows for socket %d (the file has "
                         "sockets 0-%ld)", path, socket, max_socket);
    }
    out->hit = (double)sum[0];
    out->miss = (double)sum[1];
    out->samples = samples;
    return 0;
}
