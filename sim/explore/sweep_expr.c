/* sweep_expr.c - the filter expressions of a sweep spec (sim/explore/sweep.h):
 * compiled once by recursive descent into a small tree, evaluated per
 * grid point. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/common/parse.h"
#include "sim/explore/sweep.h"

#define SW_EXPR_MAX_NODES 256

enum op { OP_NUM, OP_VAR, OP_NEG, OP_NOT, OP_MUL, OP_DIV, OP_MOD, OP_ADD, OP_SUB, OP_LT, OP_LE, OP_GT, OP_GE,
          OP_EQ, OP_NE, OP_AND, OP_OR };

typedef struct node {
    enum op op;
    double num;                 /* OP_NUM */
    int var;                    /* OP_VAR: index into the names */
    int a, b;                   /* operands (node indices) */
} node;

struct sw_expr {
    int root, n;
    node nd[SW_EXPR_MAX_NODES];
};

typedef struct parser {
    const char *s, *p;
    const char *const *names;
    size_t n_names;
    sw_expr *x;
    char *msg;
    size_t cap;
    int failed;
} parser;

static int fail(parser *P, const char *what)
{
    if (!P->failed)
        snprintf(P->msg, P->cap, "%s at character %d", what, (int)(P->p - P->s) + 1);
    P->failed = 1;
    return -1;
}

static int add(parser *P, node n)
{
    if (P->failed)
        return -1;
    if (P->x->n >= SW_EXPR_MAX_NODES)
        return fail(P, "expression too long");
    P->x->nd[P->x->n] = n;
    return P->x->n++;
}

static void skip(parser *P)
{
    while (isspace((unsigned char)*P->p))
        P->p++;
}

/* Consume `tok` if it is next. */
static int eat(parser *P, const char *tok)
{
    skip(P);
    size_t n = strlen(tok);
    if (strncmp(P->p, tok, n) != 0)
        return 0;
    /* "<" must not take the first half of "<=", "!" of "!=". */
    if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!' || tok[0] == '=') && P->p[1] == '=')
        return 0;
    P->p += n;
    return 1;
}

static int expr_or(parser *P);

static int primary(parser *P)
{
    skip(P);
    if (eat(P, "(")) {
        int r = expr_or(P);
        if (!eat(P, ")"))
            return fail(P, "')' expected");
        return r;
    }
    if (isdigit((unsigned char)*P->p) || *P->p == '.') {
        /* decimal only: "0x10" is not 16 */
        size_t n = ddio_decimal_len(P->p, 0);
        double v = n ? strtod(P->p, NULL) : NAN;
        if (!isfinite(v) || isalnum((unsigned char)P->p[n]) || P->p[n] == '.')
            return fail(P, "bad number");
        P->p += n;
        return add(P, (node){.op = OP_NUM, .num = v});
    }
    if (isalpha((unsigned char)*P->p) || *P->p == '_') {
        const char *b = P->p;
        while (isalnum((unsigned char)*P->p) || *P->p == '_')
            P->p++;
        size_t len = (size_t)(P->p - b);
        for (size_t i = 0; i < P->n_names; i++)
            if (strlen(P->names[i]) == len && strncmp(P->names[i], b, len) == 0)
                return add(P, (node){.op = OP_VAR, .var = (int)i});
        P->p = b;
        char what[96];
        snprintf(what, sizeof what, "'%.*s' is not a parameter of the grid", (int)(len < 40 ? len : 40), b);
        return fail(P, what);
    }
    return fail(P, *P->p ? "a number, a parameter or '(' expected" : "unexpected end");
}

static int unary(parser *P)
{
    if (eat(P, "-")) {
        int a = unary(P);
        return a < 0 ? -1 : add(P, (node){.op = OP_NEG, .a = a});
    }
    if (eat(P, "!")) {
        int a = unary(P);
        return a < 0 ? -1 : add(P, (node){.op = OP_NOT, .a = a});
    }
    return primary(P);
}

/* One precedence level: operands from `next`, operators from `toks`. */
static int level(parser *P, int (*next)(parser *), const char *const *toks, const enum op *ops)
{
    int a = next(P);
    while (a >= 0) {
        int k = -1;
        for (int i = 0; toks[i]; i++)
            if (eat(P, toks[i])) {
                k = i;
                break;
            }
        if (k < 0)
            break;
        int b = next(P);
        if (b < 0)
            return -1;
        a = add(P, (node){.op = ops[k], .a = a, .b = b});
    }
    return a;
}

static int mul(parser *P)
{
    static const char *const t[] = {"*", "/", "%", NULL};
    static const enum op o[] = {OP_MUL, OP_DIV, OP_MOD};
    return level(P, unary, t, o);
}
static int sum(parser *P)
{
    static const char *const t[] = {"+", "-", NULL};
    static const enum op o[] = {OP_ADD, OP_SUB};
    return level(P, mul, t, o);
}
static int cmp(parser *P)
{
    static const char *const t[] = {"<=", ">=", "<", ">", NULL};
    static const enum op o[] = {OP_LE, OP_GE, OP_LT, OP_GT};
    return level(P, sum, t, o);
}
static int equ(parser *P)
{
    static const char *const t[] = {"==", "!=", NULL};
    static const enum op o[] = {OP_EQ, OP_NE};
    return level(P, cmp, t, o);
}
static int expr_and(parser *P)
{
    static const char *const t[] = {"&&", NULL};
    static const enum op o[] = {OP_AND};
    return level(P, equ, t, o);
}
static int expr_or(parser *P)
{
    static const char *const t[] = {"||", NULL};
    static const enum op o[] = {OP_OR};
    return level(P, expr_and, t, o);
}

int sw_expr_compile(const char *text, const char *const *names, size_t n_names, sw_expr **out, char *msg,
                    size_t cap)
{
    *out = NULL;
    sw_expr *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(msg, cap, "out of memory");
        return -1;
    }
    parser P = {.s = text, .p = text, .names = names, .n_names = n_names, .x = x, .msg = msg, .cap = cap};
    x->root = expr_or(&P);
    skip(&P);
    if (!P.failed && *P.p)
        fail(&P, "an operator expected");
    if (P.failed) {
        free(x);
        return -1;
    }
    *out = x;
    return 0;
}

static double eval(const sw_expr *x, int i, const double *v)
{
    const node *n = &x->nd[i];
    switch (n->op) {
    case OP_NUM: return n->num;
    case OP_VAR: return v[n->var];
    case OP_NEG: return -eval(x, n->a, v);
    case OP_NOT: return eval(x, n->a, v) == 0;
    case OP_AND: return eval(x, n->a, v) != 0 && eval(x, n->b, v) != 0;
    case OP_OR: return eval(x, n->a, v) != 0 || eval(x, n->b, v) != 0;
    default: break;
    }
    double a = eval(x, n->a, v), b = eval(x, n->b, v);
    switch (n->op) {
    case OP_MUL: return a * b;
    case OP_DIV: return a / b;
    case OP_MOD: return fmod(a, b);
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    case OP_EQ: return a == b;
    case OP_NE: return a != b;
    default: return NAN;
    }
}

double sw_expr_eval(const sw_expr *x, const double *vals)
{
    return eval(x, x->root, vals);
}

void sw_expr_free(sw_expr *x)
{
    free(x);
}
