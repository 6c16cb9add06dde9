/* sweep_out.c - a sweep's results file: its header, one whole line per
 * point, and what a resumed sweep finds in a file it started
 * (sim/explore/sweep.h, "results files"). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "sim/explore/sweep.h"
#include "validate/text.h"


const char *sw_engine_word(int engines)
{
    return engines == RUNNER_ENGINE_SIM ? "sim" : engines == RUNNER_ENGINE_MODEL ? "model" : "both";
}

uint64_t sw_run_hash(const sw_spec *s, const runner_opts *o)
{
    uint64_t h = s->hash ^ s->config_hash;
    h *= 0x100000001B3ull;
    char t[64];
    snprintf(t, sizeof t, "%d/%llu/%llu/%d", o->engines, (unsigned long long)o->packets, (unsigned long long)o->seed,
             o->model_max_iter);
    for (const char *c = t;; c++) {
        h ^= (unsigned char)*c;
        h *= 0x100000001B3ull;
        if (!*c)
            break;
    }
    for (int i = 0; i < o->n_sets; i++)
        for (const char *c = o->sets[i];; c++) {
            h ^= (unsigned char)*c;
            h *= 0x100000001B3ull;
            if (!*c)
                break;
        }
    return h;
}

/* The region columns of the simulator's cache occupancy. */
static const char *const region_col[REG_COUNT] = {"l2", "ddio", "shared", "l3", NULL};

/* The engines' output columns, each after a comma. */
static void result_columns(const runner_opts *o, vd_buf *b)
{
    if (o->engines & RUNNER_ENGINE_SIM) {
        vd_bprintf(b, ",sim_pcie_write_hit_frac,sim_pcie_read_hit_frac,sim_pcie_write_partial_hit_frac,"
               "sim_data_write_hit_frac,sim_data_read_hit_frac,sim_throughput_gbps,sim_drop_frac");
        for (int q = 0; q < Q_COUNT; q++)
            vd_bprintf(b, ",sim_q_%s", lqueue_name((enum lqueue)q));
        vd_bprintf(b, ",sim_mem_read_bytes_per_pkt,sim_mem_write_bytes_per_pkt,sim_mem_gbyte_s,sim_mem_write_gbyte_s");
        for (int g = 0; g < REG_COUNT; g++)
            if (region_col[g])
                vd_bprintf(b, ",sim_lines_%s", region_col[g]);
    }
    if (o->engines & RUNNER_ENGINE_MODEL) {
        vd_bprintf(b, ",model_pcie_write_hit_frac,model_pcie_write_hit_frac_lower,model_pcie_write_hit_frac_upper,"
               "model_pcie_read_hit_frac,model_pcie_read_hit_frac_lower,model_pcie_read_hit_frac_upper,"
               "model_throughput_gbps,model_drop_frac");
        for (int q = 0; q < Q_COUNT; q++)
            vd_bprintf(b, ",model_q_%s", lqueue_name((enum lqueue)q));
        vd_bprintf(b, ",model_mem_read_bytes_per_pkt,model_mem_write_bytes_per_pkt,model_mem_gbyte_s,model_mem_write_gbyte_s,"
               "model_footprint_bytes");
    }
}

static void param_columns(const sw_spec *s, vd_buf *b)
{
    for (uint32_t i = 0; i < s->n_fixed; i++)
        vd_bprintf(b, ",%s", s->fixed[i].name);
    for (uint32_t i = 0; i < s->n_axes; i++)
        vd_bprintf(b, ",%s", s->axis[i].name);
}

static void columns(const sw_spec *s, const runner_opts *o, vd_buf *b)
{
    vd_bprintf(b, "id");
    param_columns(s, b);
    vd_bprintf(b, ",status,error");
    result_columns(o, b);
}

/* NPF's --single-output layout (npf/pipeline/export_pandas.py: pandas'
 * to_csv with index_label "index"): index, build, test_index, the
 * variables, the results, run_index.  Status and error are results here. */
static void npf_columns(const sw_spec *s, const runner_opts *o, vd_buf *b)
{
    vd_bprintf(b, "index,build,test_index");
    param_columns(s, b);
    result_columns(o, b);
    vd_bprintf(b, ",status,error,run_index");
}

char *sw_header(const sw_spec *s, const runner_opts *o, enum sw_format f)
{
    vd_buf b = {0};
    if (f == SW_JSONL) {
        vd_bprintf(&b, "{\"ddiosim_sweep\":2,\"run\":\"%016llx\",\"engine\":\"%s\",\"packets\":%llu,\"seed\":%llu}\n",
            (unsigned long long)sw_run_hash(s, o), sw_engine_word(o->engines), (unsigned long long)o->packets,
            (unsigned long long)o->seed);
    } else if (f == SW_NPF) {
        npf_columns(s, o, &b);   /* no comment line: pandas reads it as it is */
        vd_bprintf(&b, "\n");
    } else {
        columns(s, o, &b);   /* the run it belongs to: in the sidecar (sweep_meta.c) */
        vd_bprintf(&b, "\n");
    }
    if (b.oom) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

/* A number as both formats print it: "%.10g", nothing (CSV) / null (JSON)
 * when it is not finite. */
static void num(vd_buf *b, double v, int json)
{
    if (isfinite(v))
        vd_bprintf(b, json ? "%.10g" : ",%.10g", v);
    else
        vd_bprintf(b, json ? "null" : ",");
}

static void param_fields(const vd_param *p, uint32_t n, vd_buf *b)
{
    for (uint32_t i = 0; i < n; i++) {
        char t[VD_TEXT_LEN + 16];
        vd_param_format(&p[i], t, sizeof t);
        vd_bprintf(b, ",");
        vd_csv_field(b, t, 0);
    }
}

/* The engines' outputs, each after a comma (empty when failed). */
static void result_fields(const runner_opts *o, const runner_outcome *r, vd_buf *b)
{
    const int ok = !r->failed;
    if (o->engines & RUNNER_ENGINE_SIM) {
        for (int m = 0; m < VD_METRIC_COUNT; m++)
            num(b, ok ? r->sim[m] : NAN, 0);
        num(b, ok ? r->sim_data[0] : NAN, 0);
        num(b, ok ? r->sim_data[1] : NAN, 0);
        num(b, ok ? r->sim_gbps : NAN, 0);
        num(b, ok ? r->sim_drop_rate : NAN, 0);
        for (int q = 0; q < Q_COUNT; q++)
            num(b, ok ? r->sim_queue[q] : NAN, 0);
        num(b, ok ? r->sim_mem_read_bpp : NAN, 0);
        num(b, ok ? r->sim_mem_write_bpp : NAN, 0);
        num(b, ok ? r->sim_mem_gbps : NAN, 0);
        num(b, ok ? r->sim_mem_write_gbps : NAN, 0);
        for (int g = 0; g < REG_COUNT; g++)
            if (region_col[g])
                num(b, ok ? r->sim_llc_lines[g] : NAN, 0);
    }
    if (o->engines & RUNNER_ENGINE_MODEL) {
        for (int m = 0; m < 2; m++) {
            num(b, ok ? r->model_est[m] : NAN, 0);
            num(b, ok ? r->model_lower[m] : NAN, 0);
            num(b, ok ? r->model_upper[m] : NAN, 0);
        }
        num(b, ok ? r->model_gbps : NAN, 0);
        num(b, ok ? r->model_drop_rate : NAN, 0);
        for (int q = 0; q < Q_COUNT; q++)
            num(b, ok ? r->model_queue[q] : NAN, 0);
        num(b, ok ? r->model_mem_read_bpp : NAN, 0);
        num(b, ok ? r->model_mem_write_bpp : NAN, 0);
        num(b, ok ? r->model_mem_gbps : NAN, 0);
        num(b, ok ? r->model_mem_write_gbps : NAN, 0);
        num(b, ok ? r->model_footprint_bytes : NAN, 0);
    }
}

static void csv_row(const runner_opts *o, uint64_t id, const vd_param *p, uint32_t n, const runner_outcome *r,
                    vd_buf *b)
{
    vd_bprintf(b, "%016llx", (unsigned long long)id);
    param_fields(p, n, b);
    vd_bprintf(b, r->failed ? ",error," : ",ok,");
    if (r->failed)
        vd_csv_field(b, r->err.msg, 1);
    result_fields(o, r, b);
    vd_bprintf(b, "\n");
}

/* A point as NPF's --single-output row: its id as index and test_index
 * (one combination of the variables each), build "ddiosim", one run. */
static void npf_row(const runner_opts *o, uint64_t id, const vd_param *p, uint32_t n, const runner_outcome *r,
                    vd_buf *b)
{
    vd_bprintf(b, "%016llx,ddiosim,%016llx", (unsigned long long)id, (unsigned long long)id);
    param_fields(p, n, b);
    result_fields(o, r, b);
    vd_bprintf(b, r->failed ? ",error," : ",ok,");
    if (r->failed)
        vd_csv_field(b, r->err.msg, 1);
    vd_bprintf(b, ",0\n");
}

static void json_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

/* A metric's key: its name and the unit, "pcie_write_hit_frac". */
static const char *frac_key(int m, char *k, size_t cap)
{
    snprintf(k, cap, "%s_frac", vd_metric_name((enum vd_metric)m));
    return k;
}

static int jsonl_row(const runner_opts *o, uint64_t id, const vd_param *p, uint32_t n, const runner_outcome *r, vd_buf *b)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return -1;
    char t[VD_TEXT_LEN + 16], key[64];
    snprintf(t, sizeof t, "%016llx", (unsigned long long)id);
    cJSON_AddStringToObject(j, "id", t);
    cJSON *pp = cJSON_AddObjectToObject(j, "params");
    for (uint32_t i = 0; i < n; i++) {
        if (p[i].text[0])
            cJSON_AddStringToObject(pp, p[i].name, p[i].text);
        else
            cJSON_AddNumberToObject(pp, p[i].name, p[i].value);
    }
    cJSON_AddStringToObject(j, "status", r->failed ? "error" : "ok");
    if (r->failed) {
        cJSON_AddStringToObject(j, "error", r->err.msg);
    } else {
        if (o->engines & RUNNER_ENGINE_SIM) {
            cJSON *si = cJSON_AddObjectToObject(j, "sim");
            for (int m = 0; m < VD_METRIC_COUNT; m++)
                json_num(si, frac_key(m, key, sizeof key), r->sim[m]);
            json_num(si, "data_write_hit_frac", r->sim_data[0]);
            json_num(si, "data_read_hit_frac", r->sim_data[1]);
            json_num(si, "throughput_gbps", r->sim_gbps);
            json_num(si, "drop_frac", r->sim_drop_rate);
            cJSON *q = cJSON_AddObjectToObject(si, "queues");
            for (int k = 0; k < Q_COUNT; k++)
                json_num(q, lqueue_name((enum lqueue)k), r->sim_queue[k]);
            json_num(si, "mem_read_bytes_per_pkt", r->sim_mem_read_bpp);
            json_num(si, "mem_write_bytes_per_pkt", r->sim_mem_write_bpp);
            json_num(si, "mem_gbyte_s", r->sim_mem_gbps);
            json_num(si, "mem_write_gbyte_s", r->sim_mem_write_gbps);
            cJSON *l = cJSON_AddObjectToObject(si, "lines");
            for (int g = 0; g < REG_COUNT; g++)
                if (region_col[g])
                    json_num(l, region_col[g], r->sim_llc_lines[g]);
        }
        if (o->engines & RUNNER_ENGINE_MODEL) {
            cJSON *mo = cJSON_AddObjectToObject(j, "model");
            for (int m = 0; m < 2; m++) {
                cJSON *h = cJSON_AddObjectToObject(mo, frac_key(m, key, sizeof key));
                json_num(h, "estimate", r->model_est[m]);
                json_num(h, "lower", r->model_lower[m]);
                json_num(h, "upper", r->model_upper[m]);
            }
            json_num(mo, "throughput_gbps", r->model_gbps);
            json_num(mo, "drop_frac", r->model_drop_rate);
            cJSON *q = cJSON_AddObjectToObject(mo, "queues");
            for (int k = 0; k < Q_COUNT; k++)
                json_num(q, lqueue_name((enum lqueue)k), r->model_queue[k]);
            json_num(mo, "mem_read_bytes_per_pkt", r->model_mem_read_bpp);
            json_num(mo, "mem_write_bytes_per_pkt", r->model_mem_write_bpp);
            json_num(mo, "mem_gbyte_s", r->model_mem_gbps);
            json_num(mo, "mem_write_gbyte_s", r->model_mem_write_gbps);
            json_num(mo, "footprint_bytes", r->model_footprint_bytes);
        }
    }
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (!text)
        return -1;
    vd_bprintf(b, "%s\n", text);
    free(text);
    return 0;
}

char *sw_row(const sw_spec *s, const runner_opts *o, enum sw_format f, uint64_t id, const vd_param *p, uint32_t n,
             const runner_outcome *r)
{
    vd_buf b = {0};
    if (f == SW_JSONL) {
        if (jsonl_row(o, id, p, n, r, &b) != 0)
            b.oom = 1;
    } else if (f == SW_NPF) {
        npf_row(o, id, p, n, r, &b);
    } else {
        csv_row(o, id, p, n, r, &b);
    }
    if (b.oom) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

/* What a JSONL row starts with, before the 16 hex digits of its id. */
static const char jsonl_id[] = "{\"id\":\"";

/* A digit of a row's id, lower-case hex as sw_row writes it; -1 for any
 * other character. */
static int id_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Whether line[0..len), a line cut by a kill, can be the start of a row:
 * 16 hex digits (after {"id":" in JSONL), then ',' (CSV) or '"' (JSONL). */
static int row_prefix(const char *line, size_t len, enum sw_format f)
{
    size_t at = 0;
    if (f == SW_JSONL) {
        at = sizeof jsonl_id - 1;
        if (strncmp(line, jsonl_id, len < at ? len : at) != 0)
            return 0;
    }
    for (size_t i = at; i < len && i < at + 16; i++)
        if (id_digit(line[i]) < 0)
            return 0;
    return len <= at + 16 || line[at + 16] == (f == SW_JSONL ? '"' : ',');
}

/* The id a complete row starts with: 16 hex digits (CSV: the first field;
 * JSONL: {"id":"..."}); -1 when the line is not a row. */
static int row_id(const char *line, size_t len, enum sw_format f, uint64_t *id)
{
    const char *p = line;
    if (f == SW_JSONL) {
        if (len < sizeof jsonl_id - 1 + 16 || strncmp(line, jsonl_id, sizeof jsonl_id - 1) != 0)
            return -1;
        p = line + sizeof jsonl_id - 1;
    } else if (len < 17 || line[16] != ',') {
        return -1;
    }
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        int d = id_digit(p[i]);
        if (d < 0)
            return -1;
        v = v << 4 | (uint64_t)d;
    }
    *id = v;
    return 0;
}

/* Whether a whole row's status is error (CSV: the field after the
 * parameters; JSONL: its "status" member). */
static int row_failed(const char *line, size_t len, enum sw_format f)
{
    static const char csv[] = ",error,\"", json[] = "\"status\":\"error\"";
    const char *pat = f == SW_JSONL ? json : csv;
    size_t n = strlen(pat);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(line + i, pat, n) == 0)
            return 1;
    return 0;
}

static int add_row(sw_done *out, uint64_t id, long long at, size_t len, int failed)
{
    if (out->n == out->cap) {
        size_t nc = out->cap ? 2 * out->cap : 1024;
        sw_row_at *g = realloc(out->row, nc * sizeof *g);
        if (!g)
            return -1;
        out->row = g;
        out->cap = nc;
    }
    out->row[out->n++] = (sw_row_at){.id = id, .offset = at, .len = len, .failed = failed};
    out->n_failed += (size_t)failed;
    return 0;
}

/* A last line without its newline: a row or a header cut by a kill, which
 * the caller cuts off; anything else is not ours to cut. */
static int cut_line(const char *path, size_t lineno, const char *line, size_t k, long long good, const char *header,
                    size_t hlen, enum sw_format f, ddio_err *e)
{
    int ours = good < (long long)hlen ? good + (long long)k <= (long long)hlen &&
                                            memcmp(line, header + good, k) == 0
                                      : row_prefix(line, k, f);
    if (ours)
        return 0;
    return ddio_errf(e, DDIO_EXIT_USAGE, "%s:%zu: not %s of a sweep results file (a cut last line that ddiosim did "
                     "not write): not resumed", path, lineno, good < (long long)hlen ? "the header" : "a row");
}

int sw_resume_scan(const char *path, const char *header, enum sw_format f, sw_done *out, ddio_err *e)
{
    memset(out, 0, sizeof *out);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return ddio_errf(e, DDIO_EXIT_IO, "%s: %s", path, strerror(errno));
    size_t hlen = strlen(header);
    char *line = NULL;
    size_t cap = 0;
    ssize_t k;
    long long good = 0;         /* bytes of whole lines so far */
    size_t lineno = 0;
    int rc = 0;
    while ((k = getline(&line, &cap, fp)) > 0) {
        lineno++;
        if (line[k - 1] != '\n') {
            rc = cut_line(path, lineno, line, (size_t)k, good, header, hlen, f, e);
            break;              /* a partial last line: cut by the caller */
        }
        if (good < (long long)hlen) {
            /* The header's lines must be exactly this run's. */
            if ((size_t)good + (size_t)k > hlen || memcmp(line, header + good, (size_t)k) != 0) {
                rc = ddio_errf(e, DDIO_EXIT_USAGE,
                               "%s:%zu: the file was started by another spec or other options (its header "
                               "differs): not resumed", path, lineno);
                break;
            }
            good += k;
            continue;
        }
        uint64_t id;
        if (row_id(line, (size_t)k, f, &id) != 0) {
            rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s:%zu: not a row of a sweep results file: not resumed", path, lineno);
            break;
        }
        if (add_row(out, id, good, (size_t)k, row_failed(line, (size_t)k, f)) != 0) {
            rc = ddio_errf(e, DDIO_EXIT_IO, "out of memory");
            break;
        }
        good += k;
    }
    free(line);
    if (rc == 0 && ferror(fp))
        rc = ddio_errf(e, DDIO_EXIT_IO, "%s: read error", path);
    fclose(fp);
    if (good < (long long)hlen)
        good = 0;   /* all of it the start of this run's header, cut by a kill: started again */
    out->good_bytes = good;
    if (rc != 0)
        sw_done_free(out);
    return rc;
}

void sw_done_free(sw_done *d)
{
    free(d->row);
    memset(d, 0, sizeof *d);
}
