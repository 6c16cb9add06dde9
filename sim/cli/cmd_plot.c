/* cmd_plot.c - `ddiosim plot`: draw one metric of a sweep's CSV results
 * against a parameter, with gnuplot (sim/explore/sweep.h, sw_plot). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/explore/sweep.h"

static const char usage[] =
    "usage: ddiosim plot RESULTS.csv --x PARAM --y METRIC -o OUT.svg|OUT.png [options]\n"
    "\n"
    "Draw a column of a `ddiosim sweep` CSV file against one of its parameters\n"
    "with gnuplot (docs/sweep.md): hit rates in %, the model's bounds as a band.\n"
    "\n"
    "  --x PARAM          the parameter on the x axis (log2 scale when it spans 8x)\n"
    "  --y METRIC         the column drawn (model_pcie_write_hit_frac, sim_mem_gbyte_s,\n"
    "                     ...; the names of older versions too)\n"
    "  --series PARAM     a line per value of PARAM\n"
    "  --heatmap PARAM    instead: METRIC as colour over PARAM (y) and --x\n"
    "  --where PARAM=V    only the points where PARAM is V; repeatable (any other\n"
    "                     parameter must be the same on every point drawn)\n"
    "  -o, --output FILE  the figure, .svg, .png or .pdf (written whole or not at all)\n"
    "  -h, --help         this help\n"
    "\n"
    "RESULTS.csv: a regular file of at most 64 MiB; a last row cut short (no end\n"
    "of line) is left out, with a warning.  Names and values are drawn as text,\n"
    "never run; one with a control character is refused.\n";

enum { O_X = 300, O_Y, O_SERIES, O_HEATMAP, O_WHERE };

static int parse(int argc, char **argv, sw_plot_opts *o, const char **in, const char **out, ddio_err *e)
{
    static const struct option longopts[] = {
        {"x", required_argument, 0, O_X},           {"y", required_argument, 0, O_Y},
        {"series", required_argument, 0, O_SERIES}, {"heatmap", required_argument, 0, O_HEATMAP},
        {"where", required_argument, 0, O_WHERE},   {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},              {0, 0, 0, 0},
    };
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': return 1;
        case 'o': *out = optarg; break;
        case O_X: o->x = optarg; break;
        case O_Y: o->y = optarg; break;
        case O_SERIES: o->series = optarg; break;
        case O_HEATMAP: o->heatmap = optarg; break;
        case O_WHERE:
            if (o->n_where >= SW_PLOT_MAX_WHERE)
                return ddio_errf(e, DDIO_EXIT_USAGE, "--where: at most %d", SW_PLOT_MAX_WHERE), -2;
            o->where[o->n_where++] = optarg;
            break;
        case ':': return ddio_errf(e, DDIO_EXIT_USAGE, "option '%s' needs a value", argv[optind - 1]), -2;
        default: return ddio_errf(e, DDIO_EXIT_USAGE, "unknown option '%s'", argv[optind - 1]), -2;
        }
    }
    if (optind < argc)
        *in = argv[optind++];
    if (optind < argc)
        return ddio_errf(e, DDIO_EXIT_USAGE, "unexpected argument '%s'", argv[optind]), -2;
    if (!*in)
        return ddio_errf(e, DDIO_EXIT_USAGE, "the results file is required"), -2;
    if (!o->x || !o->y)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--x and --y are required"), -2;
    if (!*out)
        return ddio_errf(e, DDIO_EXIT_USAGE, "-o is required (the figure, .svg, .png or .pdf)"), -2;
    if (o->series && o->heatmap)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--series and --heatmap do not go together"), -2;
    return 0;
}

int cmd_plot(int argc, char **argv)
{
    ddio_err e = {0};
    sw_plot_opts o;
    memset(&o, 0, sizeof o);
    const char *in = NULL, *out = NULL;
    int rc = cli_parse_outcome("plot", parse(argc, argv, &o, &in, &out, &e), usage, &e);
    if (rc >= 0)
        return rc;
    ddio_file_arg outs[] = {{"-o", out}, {0}};
    if (ddio_outfile_check(outs, (ddio_file_arg[]){{"results", in}, {0}}, &e) != 0)
        return cli_fail("plot", &e);
    ddio_err warn = {0};
    if (sw_plot(in, &o, "-o", out, &warn, &e) != 0)
        return cli_fail("plot", &e);   /* an error is the one line */
    if (warn.msg[0])
        fprintf(stderr, "ddiosim plot: warning: %s\n", warn.msg);
    return 0;
}
