/* cli_io.c - a command's document and messages to the process's streams
 * (the CLI) or into buffers (the library): cli_io.h. */
#include "sim/cli/cli_io.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_io_free(cli_io *io)
{
    sb_free(&io->out);
    sb_free(&io->warn);
    free(io->mem);
    io->mem = NULL;
}

static int code_or(const ddio_err *e, int dflt)
{
    return e->exit_code ? e->exit_code : dflt;
}

int cli_io_fail(cli_io *io, const char *cmd, const ddio_err *e)
{
    if (!io)
        return cli_fail(cmd, e);
    snprintf(io->err, sizeof io->err, "%s", e->msg);
    return code_or(e, DDIO_EXIT_IO);
}

int cli_io_value_error(cli_io *io, const char *cmd, const ddio_err *e)
{
    if (!io)
        return cli_value_error(cmd, e);
    snprintf(io->err, sizeof io->err, "%s", e->msg);
    return code_or(e, DDIO_EXIT_USAGE);
}

int cli_io_parse_outcome(cli_io *io, const char *cmd, int parse_rc, const char *help, const ddio_err *e)
{
    if (!io)
        return cli_parse_outcome(cmd, parse_rc, help, e);
    switch (parse_rc) {
    case 0: return -1;
    case CLI_OPT_HELP:
        sb_printf(&io->out, "%s", help);
        return DDIO_EXIT_OK;
    default:   /* a usage mistake or a bad value: both exit 2 */
        snprintf(io->err, sizeof io->err, "%s", e->msg);
        return code_or(e, DDIO_EXIT_USAGE);
    }
}

int cli_io_config_finish(cli_io *io, const char *cmd, const char *help, int parse_rc, const ddio_config_args *a,
                         ddio_config *out, ddio_err *e)
{
    if (!io)
        return cli_config_finish(cmd, help, parse_rc, a, out, e);
    int rc = cli_io_parse_outcome(io, cmd, parse_rc, help, e);
    if (rc >= 0)
        return rc;
    if (ddio_config_resolve(a, out, NULL, e) != 0)
        return cli_io_value_error(io, cmd, e);
    return -1;
}

/* One message: "ddiosim CMD: TEXT" on stderr, or TEXT into buf[cap] (sb
 * NULL) or appended to sb as a line. */
static void message(cli_io *io, strbuf *sb, char *buf, size_t cap, const char *cmd, const char *fmt, va_list ap)
{
    char line[sizeof io->err];
    vsnprintf(line, sizeof line, fmt, ap);
    if (!io)
        fprintf(stderr, "ddiosim %s: %s\n", cmd, line);
    else if (sb)
        sb_printf(sb, "%s\n", line);
    else
        snprintf(buf, cap, "%s", line);
}

void cli_io_error(cli_io *io, const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message(io, NULL, io ? io->err : NULL, io ? sizeof io->err : 0, cmd, fmt, ap);
    va_end(ap);
}

void cli_io_warn(cli_io *io, const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message(io, io ? &io->warn : NULL, NULL, 0, cmd, fmt, ap);
    va_end(ap);
}

int cli_io_write(cli_io *io, const char *path, const char *text, ddio_err *e)
{
    if (!io)
        return cli_write_output(path, text, e);
    sb_printf(&io->out, "%s", text);
    return 0;
}

int cli_io_open(cli_io *io, ddio_outfile *o, const char *path, ddio_err *e)
{
    if (!io)
        return ddio_outfile_open(o, path, e);
    memset(o, 0, sizeof *o);
    o->f = open_memstream(&io->mem, &io->mem_len);
    return o->f ? 0 : ddio_errf(e, DDIO_EXIT_IO, "out of memory");
}

int cli_io_commit(cli_io *io, ddio_outfile *o, ddio_err *e)
{
    if (!io)
        return ddio_outfile_commit(o, e);
    int bad = ferror(o->f);
    fclose(o->f);   /* sets io->mem, io->mem_len */
    o->f = NULL;
    if (bad || !io->mem)
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    sb_printf(&io->out, "%s", io->mem);
    free(io->mem);
    io->mem = NULL;
    return 0;
}

void cli_io_abort(cli_io *io, ddio_outfile *o)
{
    if (!io) {
        ddio_outfile_abort(o);
        return;
    }
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    free(io->mem);
    io->mem = NULL;
}

int cli_io_tty(const cli_io *io)
{
    return !io && isatty(2);
}
