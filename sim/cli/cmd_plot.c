/* cmd_plot.c - `ddiosim plot`: draw one metric of a sweep's CSV results
 * against a parameter, with gnuplot (sim/explore/sweep.h, sw_plot). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/explore/sweep.h"
#include "validate/plot.h"

static const char usage[] =
    "usage: ddiosim plot RESULTS.csv --x PARAM --y METRIC -o OUT.svg|OUT.png|OUT.pdf [options]\n"
    "\n"
    "Draw a column of a `ddiosim sweep` CSV file against one of its parameters\n"
    "with gnuplot (docs/sweep.md): hit rates in %, the model's bounds as a band,\n"
    "the axes in words with their units.\n"
    "\n"
    "  --x PARAM          the parameter on the x axis (log2 scale when it spans 8x)\n"
    "  --y METRIC         the column drawn (model_pcie_write_hit_frac, sim_mem_gbyte_s,\n"
    "                     ...; the names of older versions too)\n"
    "  --series PARAM     a line per value of PARAM\n"
    "  --heatmap PARAM    instead: METRIC as colour over PARAM (y) and --x\n"
    "  --where PARAM=V    only the points where PARAM is V; repeatable (any other\n"
    "                     parameter must be the same on every point drawn)\n"
    "  -o, --output FILE  the figure, .svg, .png or .pdf (written whole or not at all)\n"
    "  --title T          a title above the figure (default: none)\n"
    "  --xlabel T         the x axis label (default: --x in words, e.g. \"RX ring\n"
    "                     (descriptors)\")\n"
    "  --ylabel T         the y axis label (default: --y in words, e.g. \"PCIe write\n"
    "                     hit, model (%)\"; the --heatmap parameter on a heat map)\n"
    "  --size WxH         whole pixels for .svg and .png (default 960x600), inches\n"
    "                     for .pdf (default 9.6x6)\n"
    "  --font-size N      points, 4 to 72 (default 11 for .svg, 10 for .png, .pdf)\n"
    "  --script F         also save the gnuplot script as F and its data beside it\n"
    "                     (F with the extension .dat): `gnuplot F` draws the\n"
    "                     figure again, to edit it by hand\n"
    "  -h, --help         this help\n"
    "\n"
    "RESULTS.csv: a regular file of at most 64 MiB; a last row cut short (no end\n"
    "of line) is left out, with a warning.  Names, values, titles and labels are\n"
    "drawn as text, never run; one with a control character is refused.\n";

enum { O_X = 300, O_Y, O_SERIES, O_HEATMAP, O_WHERE, O_TITLE, O_XLABEL, O_YLABEL, O_SIZE, O_FONT, O_SCRIPT };

#define OPT_NAME_LEN 32

/* What the command line asked for; each option's name as the user typed
 * it ("-o", "--output", "--out"), for its messages. */
typedef struct plot_args {
    sw_plot_opts o;
    const char *in, *out, *script, *size, *font;
    char out_opt[OPT_NAME_LEN], script_opt[OPT_NAME_LEN], size_opt[OPT_NAME_LEN], font_opt[OPT_NAME_LEN];
} plot_args;

/* The name of the option getopt_long just took with its value `arg`: the
 * word before the value, or the word holding both ("--output=F", "-oF"). */
static void typed(char **argv, const char *arg, char *buf)
{
    const char *w = argv[optind - 1];
    size_t n = strlen(w);
    if (arg == w)
        w = argv[optind - 2], n = strlen(w);
    else if (w[1] == '-')
        n = strcspn(w, "=");
    else
        n = 2;
    snprintf(buf, OPT_NAME_LEN, "%.*s", (int)n, w);
}

static int parse(int argc, char **argv, plot_args *a, ddio_err *e)
{
    static const struct option longopts[] = {
        {"x", required_argument, 0, O_X},           {"y", required_argument, 0, O_Y},
        {"series", required_argument, 0, O_SERIES}, {"heatmap", required_argument, 0, O_HEATMAP},
        {"where", required_argument, 0, O_WHERE},   {"output", required_argument, 0, 'o'},
        {"title", required_argument, 0, O_TITLE},   {"xlabel", required_argument, 0, O_XLABEL},
        {"ylabel", required_argument, 0, O_YLABEL}, {"size", required_argument, 0, O_SIZE},
        {"font-size", required_argument, 0, O_FONT}, {"script", required_argument, 0, O_SCRIPT},
        {"help", no_argument, 0, 'h'},              {0, 0, 0, 0},
    };
    sw_plot_opts *o = &a->o;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': return 1;
        case 'o': a->out = optarg, typed(argv, optarg, a->out_opt); break;
        case O_X: o->x = optarg; break;
        case O_Y: o->y = optarg; break;
        case O_SERIES: o->series = optarg; break;
        case O_HEATMAP: o->heatmap = optarg; break;
        case O_TITLE: o->title = optarg; break;
        case O_XLABEL: o->xlabel = optarg; break;
        case O_YLABEL: o->ylabel = optarg; break;
        case O_SIZE: a->size = optarg, typed(argv, optarg, a->size_opt); break;
        case O_FONT: a->font = optarg, typed(argv, optarg, a->font_opt); break;
        case O_SCRIPT: a->script = optarg, typed(argv, optarg, a->script_opt); break;
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
        a->in = argv[optind++];
    if (optind < argc)
        return ddio_errf(e, DDIO_EXIT_USAGE, "unexpected argument '%s'", argv[optind]), -2;
    if (!a->in)
        return ddio_errf(e, DDIO_EXIT_USAGE, "the results file is required"), -2;
    if (!o->x || !o->y)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--x and --y are required"), -2;
    if (!a->out)
        return ddio_errf(e, DDIO_EXIT_USAGE, "-o/--output is required (the figure, .svg, .png or .pdf)"), -2;
    if (o->series && o->heatmap)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--series and --heatmap do not go together"), -2;
    return 0;
}

/* The figure's file, size and script from the options: 0, or -1 with e
 * filled (a bad --size or --font-size; exit 2). */
static int figure_out(const plot_args *a, vd_fig_out *f, ddio_err *e)
{
    *f = (vd_fig_out){.opt = a->out_opt, .path = a->out, .script_opt = a->script_opt, .script = a->script};
    if (vd_plot_check(a->out_opt, a->out, e) != 0)
        return -1;
    char dat[4096] = "x";
    if (a->script)
        vd_fig_data_path(a->script, dat, sizeof dat);
    if (!dat[0])
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s %s: its data file (the name with .dat) would be itself: name it F.gp",
                         a->script_opt, a->script);
    if (a->size && vd_fig_size_parse(a->size_opt, a->size, a->out, &f->width, &f->height, e) != 0)
        return -1;
    return a->font ? vd_fig_font_parse(a->font_opt, a->font, &f->font_pt, e) : 0;
}

int cmd_plot(int argc, char **argv)
{
    ddio_err e = {0};
    plot_args a;
    memset(&a, 0, sizeof a);
    int rc = cli_parse_outcome("plot", parse(argc, argv, &a, &e), usage, &e);
    if (rc >= 0)
        return rc;
    vd_fig_out f;
    if (figure_out(&a, &f, &e) != 0)
        return cli_value_error("plot", &e);
    char dat[4096] = "";
    if (a.script)
        vd_fig_data_path(a.script, dat, sizeof dat);
    ddio_file_arg outs[] = {{a.out_opt, a.out}, {a.script_opt, a.script}, {a.script_opt, dat[0] ? dat : NULL}, {0}};
    if (ddio_outfile_check(outs, (ddio_file_arg[]){{"results", a.in}, {0}}, &e) != 0)
        return cli_fail("plot", &e);
    ddio_err warn = {0};
    if (sw_plot(a.in, &a.o, &f, &warn, &e) != 0)
        return cli_fail("plot", &e);   /* an error is the one line */
    if (warn.msg[0])
        fprintf(stderr, "ddiosim plot: warning: %s\n", warn.msg);
    return 0;
}
