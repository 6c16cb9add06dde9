#include "sim/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_fail(const ddio_err *e)
{
    fprintf(stderr, "ddiosim: %s\n", e->msg);
    return e->exit_code ? e->exit_code : DDIO_EXIT_IO;
}

int cli_value_error(const char *cmd, const ddio_err *e)
{
    fprintf(stderr, "ddiosim %s: %s\n", cmd, e->msg);
    return e->exit_code ? e->exit_code : DDIO_EXIT_USAGE;
}

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "ddiosim %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s", usage);
    return DDIO_EXIT_USAGE;
}

const char *cli_out_path(const char *path)
{
    return path && strcmp(path, "-") != 0 ? path : NULL;
}

int cli_write_output(const char *path, const char *text, ddio_err *e)
{
    ddio_outfile o;
    if (ddio_outfile_open(&o, cli_out_path(path), e) != 0)
        return -1;
    fputs(text, o.f);   /* a failed write sets the error flag commit reports */
    return ddio_outfile_commit(&o, e);
}

void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = sb->cap - sb->len;
        va_start(ap, fmt);
        int n = vsnprintf(sb->data ? sb->data + sb->len : NULL, sb->data ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            abort();
        if (sb->data && (size_t)n < room) {
            sb->len += (size_t)n;
            return;
        }
        size_t cap = sb->cap ? sb->cap * 2 : 256;
        while (cap < sb->len + (size_t)n + 1)
            cap *= 2;
        char *d = realloc(sb->data, cap);
        if (!d)
            abort();
        sb->data = d;
        sb->cap = cap;
    }
}

void sb_free(strbuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

int cli_common_option(int c, char **argv, cli_common *cc, ddio_err *e)
{
    switch (c) {
    case CLI_OPT_FORMAT:
        return cli_parse_format(optarg, &cc->fmt, e) ? CLI_OPT_BAD_VALUE : CLI_OPT_DONE;
    case 'o':
        cc->out = optarg;
        return CLI_OPT_DONE;
    case 'h':
        return CLI_OPT_HELP;
    case ':':
        ddio_errf(e, DDIO_EXIT_USAGE, "option '%s' needs a value", argv[optind - 1]);
        return CLI_OPT_USAGE;
    default:
        ddio_errf(e, DDIO_EXIT_USAGE, "unknown option '%s'", argv[optind - 1]);
        return CLI_OPT_USAGE;
    }
}

int cli_config_option(int c, int base, ddio_config_args *a, ddio_err *e)
{
    if (c < base || c >= base + DDIO_CFG_NOPTS)
        return 0;
    return ddio_config_args_add(a, (enum ddio_cfg_opt)(c - base), optarg, e) != 0 ? -1 : 1;
}

int cli_config_finish(const char *cmd, const char *usage_head, int parse_rc, const ddio_config_args *a,
                      ddio_config *out, ddio_err *e)
{
    if (parse_rc == 1) {
        printf("%s%s", usage_head, ddio_config_usage());
        return DDIO_EXIT_OK;
    }
    if (parse_rc == CLI_OPT_USAGE) {
        strbuf sb = {0};
        sb_printf(&sb, "%s%s", usage_head, ddio_config_usage());
        int rc = cli_usage_error(cmd, sb.data, "%s", e->msg);
        sb_free(&sb);
        return rc;
    }
    if (parse_rc != 0)
        return cli_value_error(cmd, e);   /* CLI_OPT_BAD_VALUE */
    if (ddio_config_resolve(a, out, NULL, e) != 0)
        return cli_value_error(cmd, e);   /* a bad value, file or field: one line */
    return -1;
}

int cli_parse_format(const char *s, enum output_format *out, ddio_err *e)
{
    if (strcmp(s, "json") == 0)
        *out = FMT_JSON;
    else if (strcmp(s, "table") == 0)
        *out = FMT_TABLE;
    else
        return ddio_errf(e, DDIO_EXIT_USAGE, "--format: '%s' is not one of json, table", s);
    return 0;
}
