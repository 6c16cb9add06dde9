/* plot.c - draw the validation figure with gnuplot (validate/plot.h).
 *
 * The data go to a private temporary folder as gnuplot data blocks (one
 * block per series value), the script beside them; gnuplot writes the
 * figure to a temporary file beside `out`, renamed into place only when
 * gnuplot succeeded, so a failed plot leaves nothing behind. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "validate/plot.h"

static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
                                     "#17becf"};
#define N_COLORS (sizeof colors / sizeof colors[0])

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Run gnuplot with `args` (NULL-terminated, args[0] = "gnuplot"), its
 * output to `log`.  Returns its exit status, or -1 when it could not run. */
static int run_gnuplot(char *const args[], const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *f = fopen(log, "w");
        if (f) {
            dup2(fileno(f), 1);
            dup2(fileno(f), 2);
        }
        execvp(args[0], args);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int vd_plot_check(const char *out, ddio_err *e)
{
    if (!ends_with(out, ".svg") && !ends_with(out, ".png"))
        return ddio_errf(e, DDIO_EXIT_USAGE, "--plot %s: the file name must end in .svg or .png", out);
    if (strpbrk(out, "'\n\r\\"))   /* it is quoted in gnuplot's script */
        return ddio_errf(e, DDIO_EXIT_USAGE, "--plot: the file name may not hold a quote, backslash or newline");
    char log[] = "/tmp/ddiosim-gnuplot-XXXXXX";
    int fd = mkstemp(log);
    if (fd < 0)
        return ddio_errf(e, DDIO_EXIT_IO, "--plot: cannot create a temporary file: %s", strerror(errno));
    close(fd);
    char *args[] = {"gnuplot", "--version", NULL};
    int st = run_gnuplot(args, log);
    unlink(log);
    if (st != 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--plot: gnuplot does not run (install it: scripts/install-deps.sh)");
    return 0;
}

/* The x value of point i of experiment x (its index + 1 when the
 * experiment varies no single parameter). */
static double x_of(const vd_experiment *x, size_t i)
{
    const vd_param *p = x->x_param[0] ? vd_point_param(&x->point[i], x->x_param) : NULL;
    return p ? p->value : (double)(i + 1);
}

static double series_of(const vd_experiment *x, size_t i)
{
    const vd_param *p = x->series_param[0] ? vd_point_param(&x->point[i], x->series_param) : NULL;
    return p ? p->value : 0;
}

static void nan_or(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, " NaN");
    else
        fprintf(f, " %.6g", 100 * v);
}

/* Write experiment x's data for metric m to `path`, one block per series
 * value (blocks separated by two blank lines); returns the block count and
 * their series values in sv. */
static int write_data(const vd_set *s, size_t x, size_t first, int m, FILE *f, double *sv, int max_sv)
{
    const vd_experiment *e = &s->exp[x];
    int nb = 0;
    for (size_t i = 0; i < e->n; i++) {
        double v = series_of(e, i);
        if (i == 0 || v != series_of(e, i - 1)) {
            if (nb == max_sv)
                break;
            if (nb)
                fprintf(f, "\n\n");
            sv[nb++] = v;
        }
        const vd_point *p = &e->point[i];
        const vd_outcome *o = &s->out[first + i];
        if (!p->has[m])
            continue;
        fprintf(f, "%.10g", x_of(e, i));
        nan_or(f, p->m[m].mean);
        nan_or(f, p->m[m].sd);
        int sim = !o->failed && (s->engines & VD_ENGINE_SIM), mod = !o->failed && (s->engines & VD_ENGINE_MODEL);
        nan_or(f, sim ? o->sim[m] : NAN);
        nan_or(f, mod ? o->model_est[m] : NAN);
        nan_or(f, mod ? o->model_lower[m] : NAN);
        nan_or(f, mod ? o->model_upper[m] : NAN);
        fprintf(f, "\n");
    }
    return ferror(f) ? -1 : nb;
}

/* One panel's plot command. */
static void panel(FILE *g, const vd_set *s, size_t x, int m, const char *data, const double *sv, int nb)
{
    const vd_experiment *e = &s->exp[x];
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < e->n; i++) {
        lo = fmin(lo, x_of(e, i));
        hi = fmax(hi, x_of(e, i));
    }
    fprintf(g, "set title \"%s: PCIe %s hit rate\"\n", e->name, m == VD_PCIE_WRITE_HIT ? "write (ItoM)" : "read (PCIRdCur)");
    fprintf(g, "set xlabel \"%s\"\n", e->x_param[0] ? e->x_param : "point");
    fprintf(g, "%s\n", lo > 0 && hi / lo >= 8 ? "set logscale x 2" : "unset logscale x");
    double pad = lo > 0 && hi / lo >= 8 ? 0 : (hi - lo) * 0.05 + (hi == lo);
    if (lo > 0 && hi / lo >= 8)
        fprintf(g, "set xrange [%g:%g]\n", lo / 1.2, hi * 1.2);
    else
        fprintf(g, "set xrange [%g:%g]\n", lo - pad, hi + pad);
    int sim = s->engines & VD_ENGINE_SIM, mod = s->engines & VD_ENGINE_MODEL;
    /* The styles once, in black; each series value once, on its measured points. */
    fprintf(g, "plot NaN with yerrorbars pt 7 ps 0.6 lc rgb 'black' title 'measured (mean, sd)'");
    if (sim)
        fprintf(g, ", NaN with linespoints pt 6 lw 1.5 lc rgb 'black' title 'simulator'");
    if (mod)
        fprintf(g, ", NaN with lines dt 2 lw 1.5 lc rgb 'black' title 'model, LRU..BIP band'");
    for (int b = 0; b < nb; b++) {
        const char *c = colors[b % N_COLORS];
        char name[64] = "";
        if (e->series_param[0])
            snprintf(name, sizeof name, "title '%s=%g'", e->series_param, sv[b]);
        else
            snprintf(name, sizeof name, "notitle");
        fprintf(g, ", \\\n     ");
        if (mod)
            fprintf(g, "%s index %d using 1:6:7 with filledcurves fc rgb '%s' fs transparent solid 0.15 "
                       "notitle, %s index %d using 1:5 with lines dt 2 lw 1.5 lc rgb '%s' notitle, ",
                    data, b, c, data, b, c);
        if (sim)
            fprintf(g, "%s index %d using 1:4 with linespoints pt 6 lw 1.5 lc rgb '%s' notitle, ", data, b, c);
        fprintf(g, "%s index %d using 1:2:3 with yerrorbars pt 7 ps 0.6 lc rgb '%s' %s", data, b, c, name);
    }
    fprintf(g, "\n");
}

/* The figure's gnuplot commands (after its terminal and output): the data
 * of every panel as a datablock ($eXmM, one block per series value), then
 * the panels. */
static char *body_of(const vd_set *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *g = open_memstream(&text, &len);
    if (!g)
        return NULL;
    int rows = (int)s->n_exp, rc = 0;
    fprintf(g, "set datafile missing 'NaN'\nset key bottom left font ',7' spacing 0.9\nset grid\n"
               "set ylabel 'hit rate (%%)'\nset yrange [0:105]\n");
    double sv[64][2][N_COLORS];
    int nb[64][2];
    size_t first = 0;
    for (size_t x = 0; x < s->n_exp && x < 64 && rc == 0; x++) {
        for (int m = 0; m < 2 && rc == 0; m++) {
            fprintf(g, "$e%zum%d << EOD\n", x, m);
            nb[x][m] = write_data(s, x, first, m, g, sv[x][m], (int)N_COLORS);
            rc = nb[x][m] < 0;
            fprintf(g, "EOD\n");
        }
        first += s->exp[x].n;
    }
    fprintf(g, "set multiplot layout %d,2\n", rows);
    for (size_t x = 0; x < s->n_exp && x < 64 && rc == 0; x++)
        for (int m = 0; m < 2; m++) {
            char data[32];
            snprintf(data, sizeof data, "$e%zum%d", x, m);
            panel(g, s, x, m, data, sv[x][m], nb[x][m]);
        }
    fprintf(g, "unset multiplot\n");
    if (fclose(g) != 0 || rc) {
        free(text);
        return NULL;
    }
    return text;
}

/* The first line of gnuplot's log, for the error message. */
static void first_line(const char *log, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    while (fgets(buf, (int)cap, f))
        if (strspn(buf, " \t\r\n") != strlen(buf))
            break;
    buf[strcspn(buf, "\r\n")] = '\0';
    fclose(f);
}

int vd_gnuplot(const char *body, int width, int height, const char *out, ddio_err *e)
{
    if (vd_plot_check(out, e) != 0)
        return -1;
    char dir[] = "/tmp/ddiosim-plot-XXXXXX";
    if (!mkdtemp(dir))
        return ddio_errf(e, DDIO_EXIT_IO, "cannot create a temporary folder: %s", strerror(errno));
    size_t n = strlen(out);
    char *tmp = malloc(n + 16);
    char script[600], log[600];
    snprintf(script, sizeof script, "%s/plot.gp", dir);
    snprintf(log, sizeof log, "%s/gnuplot.log", dir);
    int rc = 0, fd = -1;
    if (!tmp) {
        rc = ddio_errf(e, DDIO_EXIT_IO, "out of memory");
        goto out;
    }
    snprintf(tmp, n + 16, "%s.tmpXXXXXX", out);
    if ((fd = mkstemp(tmp)) < 0) {
        rc = ddio_errf(e, DDIO_EXIT_IO, "%s: %s", out, strerror(errno));
        free(tmp);
        tmp = NULL;
        goto out;
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    close(fd);
    FILE *g = fopen(script, "w");
    if (!g) {
        rc = ddio_errf(e, DDIO_EXIT_IO, "cannot write the plot script in %s", dir);
        goto out;
    }
    int png = ends_with(out, ".png");
    fprintf(g, "set terminal %s size %d,%d%s\n", png ? "pngcairo" : "svg", width, height,
            png ? " noenhanced font 'sans,10'" : " noenhanced font 'sans,11' background rgb 'white'");
    fprintf(g, "set output '%s'\n%s\nunset output\n", tmp, body);
    int bad = ferror(g);
    if (fclose(g) != 0 || bad) {
        rc = ddio_errf(e, DDIO_EXIT_IO, "cannot write the plot script in %s", dir);
        goto out;
    }
    char *args[] = {"gnuplot", script, NULL};
    int st = run_gnuplot(args, log);
    if (st != 0) {
        char line[300];
        first_line(log, line, sizeof line);
        rc = ddio_errf(e, DDIO_EXIT_IO, "gnuplot failed (status %d)%s%s", st, line[0] ? ": " : "", line);
    } else if (rename(tmp, out) != 0) {
        rc = ddio_errf(e, DDIO_EXIT_IO, "%s: %s", out, strerror(errno));
    }
out:
    if (tmp) {
        if (rc != 0)
            unlink(tmp);
        free(tmp);
    }
    unlink(script);
    unlink(log);
    rmdir(dir);
    return rc;
}

int vd_plot(const vd_set *s, const char *out, ddio_err *e)
{
    if (vd_plot_check(out, e) != 0)
        return -1;
    if (s->n_exp > 64)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--plot: at most 64 experiments in one figure");
    char *body = body_of(s);
    if (!body)
        return ddio_errf(e, DDIO_EXIT_IO, "--plot: out of memory");
    int rc = vd_gnuplot(body, 1200, 380 * (int)s->n_exp, out, e);
    free(body);
    return rc;
}
