/* fields.h - the field-descriptor engine behind the config structs.
 *
 * A struct is described once, as a table of fields (JSON path, type, offset,
 * range, power-of-two flag, enum names, documentation).  The same table
 * drives: loading from JSON (unknown keys, wrong types, duplicate keys),
 * setting a field from command-line text, printing JSON and tables, and
 * comparing two structs.  Every per-field check (type, integer, range, power
 * of two, enum name, hex mask) lives in one place here, so `"rx_ring": 1000`
 * and `--rx-ring 1000` fail with the same words.
 *
 * Checks between fields live in the struct's own validator, which reports
 * through cfg_fail() so the message names the file or the override that set
 * one of the fields involved. */
#ifndef DDIOSIM_CONFIGS_FIELDS_H
#define DDIOSIM_CONFIGS_FIELDS_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/common/err.h"

enum cfg_type {
    CFG_U32,        /* uint32_t, JSON integer */
    CFG_U64,        /* uint64_t, JSON integer (<= 2^53) */
    CFG_F64,        /* double */
    CFG_BOOL,       /* bool */
    CFG_ENUM,       /* an enum (int-sized), JSON string from `names` */
    CFG_STR,        /* char[size] */
    CFG_MASK,       /* uint64_t, JSON string "0x600" */
    CFG_ARRAY,      /* elements described by `elem`, count in a uint32_t */
};

enum {
    CFG_POW2 = 1,       /* a power of two (0 still allowed with CFG_ZERO_OK) */
    CFG_REQUIRED = 2,   /* array elements: the key must be given */
    CFG_ZERO_OK = 4,    /* 0 is allowed besides [lo, hi] (off / auto) */
    CFG_NONEMPTY = 8,   /* strings */
};

typedef struct cfg_table cfg_table;

typedef struct cfg_field {
    const char *path;           /* dotted JSON path, "" for a scalar array element */
    enum cfg_type type;
    size_t off;                 /* offsetof the member */
    size_t msize;               /* sizeof the member (checked against the type) */
    double lo, hi;              /* numbers: inclusive range; arrays: element count range */
    unsigned flags;
    const char *const *names;   /* CFG_ENUM: names by value, NULL-terminated */
    /* CFG_STR, optional: 0 when the text is allowed, else -1 and what is
     * wrong in msg (a name from an open family, e.g. a replacement policy). */
    int (*check)(const char *s, char *msg, size_t cap);
    const cfg_table *elem;      /* CFG_ARRAY: element table */
    size_t count_off;           /* CFG_ARRAY: offsetof the uint32_t count */
    const char *doc;            /* what it is, unit, default source (docs and help) */
} cfg_field;

struct cfg_table {
    const char *what;           /* "machine", "workload", "access segment"... */
    const cfg_field *f;
    size_t n;
    size_t obj_size;            /* sizeof the struct (array elements) */
    void (*init)(void *obj);    /* defaults of a new array element (NULL: zero) */
};

/* Member offset and size for a table row: CFG_AT(ddio_machine, llc.ways). */
#define CFG_AT(st, member) offsetof(st, member), sizeof(((st *)0)->member)

/* Structural self-check of a table (sizes match types, paths unique, enum
 * names present); for tests.  Returns 0 or -1 with e filled. */
int cfg_table_check(const cfg_table *t, ddio_err *e);

/* Index of the field with exactly this path (array indices like "[3]" are
 * ignored), or -1. */
int cfg_index(const cfg_table *t, const char *path);

/* Load the keys of JSON object `json` into `obj` (which holds defaults).
 * set[i] = 1 for each top-level field given (set may be NULL).  Errors:
 * "FILE: path: ...".  Duplicate keys are cfg_parse_text's to refuse. */
int cfg_from_json(const cfg_table *t, void *obj, const cJSON *json, const char *file, uint8_t *set,
                  ddio_err *e);

/* Set field `f` of `obj` from command-line text; on error `msg` holds the
 * reason without any prefix ("1000 is not a power of two"). */
int cfg_set_text(const cfg_field *f, void *obj, const char *text, char *msg, size_t cap);

/* JSON object of all fields, in table order (caller owns). */
cJSON *cfg_to_json(const cfg_table *t, const void *obj);

/* Value of a scalar field as text (masks in hex, enums by name). */
void cfg_format(const cfg_field *f, const void *obj, char *buf, size_t cap);

/* Call fn for every value, array elements included, with its display path
 * ("access[1].op"), its text and the index of its top-level field. */
typedef void (*cfg_row_fn)(void *ud, const char *path, const char *value, int field);
void cfg_walk(const cfg_table *t, const void *obj, const char *dprefix, int top, cfg_row_fn fn, void *ud);

/* 0 if equal field by field, else 1 and the first differing path. */
int cfg_diff(const cfg_table *t, const void *a, const void *b, char *path, size_t cap);

/* JSON nested deeper than this is refused (docs/configs.md): a config file
 * nests four levels; cJSON itself gives up at 1000 without saying why. */
#define CFG_JSON_MAX_DEPTH 64

/* Parse JSON text; a syntax error becomes "FILE: line L, column C: ...",
 * and so do what cJSON would let through or word badly: a string that is
 * not valid UTF-8 or holds a control character (\u0000 included), a
 * number beyond a double's range (1e999), nesting deeper than
 * CFG_JSON_MAX_DEPTH; a key given twice in one object is
 * "FILE: json.path: duplicate key". */
cJSON *cfg_parse_text(const char *text, size_t len, const char *file, ddio_err *e);

/* Who set each field of a struct, for error attribution. */
typedef struct cfg_ctx {
    const cfg_table *t;
    const char *file;           /* where values not set by an option came from */
    const char *const *src;     /* per field: the option that set it, or NULL; may be NULL */
} cfg_ctx;

/* Fail with `fmt` about the fields in `paths` (comma separated, the first is
 * the one reported).  If one of them was set by an option the message is
 * "OPTION: ...", else "FILE: firstpath: ...".  Returns -1. */
int cfg_fail(const cfg_ctx *c, ddio_err *e, const char *paths, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The option that set one of `paths` in c, or NULL. */
const char *cfg_src_of(const cfg_ctx *c, const char *paths);

/* CAT-style checks of a way mask against an LLC of `ways` ways, writing the
 * reason to msg: selects no way, wider than the LLC, (contiguous) not a
 * contiguous run.  Returns 0 if fine. */
int cfg_check_mask(uint64_t mask, uint32_t ways, int contiguous, char *msg, size_t cap);

#endif
