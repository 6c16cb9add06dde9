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

int cli_out_open(cli_out *o, const char *path, ddio_err *e)
{
    memset(o, 0, sizeof *o);
    if (!path) {
        o->f = stdout;
        return 0;
    }
    size_t tl = strlen(path) + 16;
    if (!(o->tmp = malloc(tl)))
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    snprintf(o->tmp, tl, "%s.tmpXXXXXX", path);
    o->path = path;
    int fd = mkstemp(o->tmp);
    if (fd >= 0) {
        /* mkstemp creates 0600; give the file the mode a plain fopen would. */
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
        if (!(o->f = fdopen(fd, "w"))) {
            int err = errno;
            close(fd);
            unlink(o->tmp);
            errno = err;
        }
    }
    if (!o->f) {
        ddio_errf(e, DDIO_EXIT_IO, "%s: cannot create: %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    return 0;
}

int cli_out_commit(cli_out *o, ddio_err *e)
{
    if (!o->tmp) {
        if (ferror(stdout) || fflush(stdout) != 0)
            return ddio_errf(e, DDIO_EXIT_IO, "stdout: write failed: %s", strerror(errno));
        return 0;
    }
    int ok = !ferror(o->f);
    ok = fclose(o->f) == 0 && ok;
    o->f = NULL;
    int rc = 0;
    if (!ok || rename(o->tmp, o->path) != 0) {
        rc = ddio_errf(e, DDIO_EXIT_IO, "%s: write failed: %s", o->path, strerror(errno));
        unlink(o->tmp);
    }
    free(o->tmp);
    o->tmp = NULL;
    return rc;
}

void cli_out_abort(cli_out *o)
{
    if (o->tmp) {
        if (o->f)
            fclose(o->f);
        unlink(o->tmp);
        free(o->tmp);
    }
    memset(o, 0, sizeof *o);
}

int cli_write_output(const char *path, const char *text, ddio_err *e)
{
    cli_out o;
    if (cli_out_open(&o, path && strcmp(path, "-") != 0 ? path : NULL, e) != 0)
        return -1;
    /* A failed write leaves the stream's error flag, which commit reports. */
    fputs(text, o.f);
    return cli_out_commit(&o, e);
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
