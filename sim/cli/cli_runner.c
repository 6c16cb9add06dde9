/* cli_runner.c - options of the commands that run many points (cli_runner.h). */
#include "sim/cli/cli_runner.h"
#include "sim/cli/cli_io.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/common/datadir.h"
#include "sim/common/parse.h"

#include "sim/explore/runner.h"
#include "configs/config.h"

int cli_jobs_default(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (int)(cpus > 1024 ? 1024 : cpus) : 1;
}

int cli_parse_engine(const char *s, int allow_sim, int *out, ddio_err *e)
{
    if (allow_sim && strcmp(s, "sim") == 0)
        *out = RUNNER_ENGINE_SIM;
    else if (strcmp(s, "model") == 0)
        *out = RUNNER_ENGINE_MODEL;
    else if (strcmp(s, "both") == 0)
        *out = RUNNER_ENGINE_BOTH;
    else
        return ddio_errf(e, DDIO_EXIT_USAGE, "--engine: '%s' is not %s", s, allow_sim ? "sim, model or both"
                                                                                     : "model or both");
    return 0;
}

void cli_run_args_default(cli_run_args *a)
{
    memset(a, 0, sizeof *a);
    a->jobs = cli_jobs_default();
    a->packets = 300000;
    a->seed = 1;
}

int cli_run_option(int c, const char *arg, cli_run_args *a, ddio_err *e)
{
    uint64_t v;
    switch (c) {
    case CLI_RUN_JOBS:
        if (ddio_parse_u64(arg, 1, 1024, &v, "--jobs", e))
            return -1;
        a->jobs = (int)v;
        return 1;
    case CLI_RUN_PACKETS:
        return ddio_parse_u64(arg, 1, UINT64_C(1) << 40, &a->packets, "--packets", e) ? -1 : 1;
    case CLI_RUN_SEED:
        return ddio_parse_u64(arg, 0, UINT64_MAX, &a->seed, "--seed", e) ? -1 : 1;
    case CLI_RUN_SET:
        if (a->n_given >= CLI_RUN_MAX_SETS)
            return ddio_errf(e, DDIO_EXIT_USAGE, "--set: at most %d", CLI_RUN_MAX_SETS);
        a->n_given++;
        a->set[a->n_set++] = arg;
        return 1;
    case CLI_RUN_OVERLAY:
        return cli_run_overlay(arg, a, e) ? -1 : 1;
    default:
        return 0;
    }
}

int cli_run_overlay(const char *path, cli_run_args *a, ddio_err *e)
{
    if (a->overlay_path)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--overlay: given twice (%s, %s): one overlay per run", a->overlay_path,
                         path);
    if (ddio_overlay_load(path, &a->overlay, e) != 0)
        return -1;
    a->overlay_path = path;
    for (uint32_t i = 0; i < a->overlay.n; i++)
        a->set[a->n_set++] = a->overlay.set[i];
    return 0;
}

runner_opts cli_run_opts(const cli_run_args *a, int engines, char *trace, size_t cap)
{
    ddio_err no_trace = {0};
    if (ddio_datapath(DDIO_DATA_SAMPLE_TRACE, trace, cap, &no_trace) != 0)
        trace[0] = '\0';
    return (runner_opts){.engines = engines, .packets = a->packets, .seed = a->seed, .jobs = a->jobs,
                         .trace = trace, .sets = a->set, .n_sets = a->n_set};
}

/* ------------------------------------------------------------ experiments */

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Folders below `root` (two levels: DATA/SET/EXPERIMENT) holding an
 * experiment.json, sorted by path, into paths (malloc'ed strings). */
static int find_experiments(const char *root, int depth, char **paths, int *n, ddio_err *e)
{
    DIR *d = opendir(root);
    if (!d)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: cannot open the folder of shipped experiments", root);
    char *sub[256];
    int ns = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && ns < 256) {
        if (de->d_name[0] == '.')
            continue;
        size_t len = strlen(root) + strlen(de->d_name) + 2;
        char *p = malloc(len);
        if (!p)
            break;
        snprintf(p, len, "%s/%s", root, de->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            sub[ns++] = p;
        else
            free(p);
    }
    closedir(d);
    qsort(sub, (size_t)ns, sizeof *sub, cmp_name);
    int rc = 0;
    for (int i = 0; i < ns; i++) {
        char j[1200];
        struct stat st;
        snprintf(j, sizeof j, "%s/experiment.json", sub[i]);
        if (rc == 0 && stat(j, &st) == 0) {
            if (*n >= CLI_MAX_EXPERIMENTS)
                rc = ddio_errf(e, DDIO_EXIT_USAGE, "%s: more than %d experiments", root, CLI_MAX_EXPERIMENTS);
            else
                paths[(*n)++] = sub[i], sub[i] = NULL;
        } else if (rc == 0 && depth > 1) {
            rc = find_experiments(sub[i], depth - 1, paths, n, e);
        }
        free(sub[i]);
    }
    return rc;
}

/* No folder given twice with --measured, however spelt (d, d/, ../x/d). */
static int distinct_folders(const char *const *dir, int n, ddio_err *e)
{
    struct stat st[CLI_MAX_EXPERIMENTS];
    int ok[CLI_MAX_EXPERIMENTS];
    for (int i = 0; i < n; i++) {
        ok[i] = stat(dir[i], &st[i]) == 0;   /* a missing folder is the loader's error */
        for (int k = 0; ok[i] && k < i; k++)
            if (ok[k] && st[k].st_dev == st[i].st_dev && st[k].st_ino == st[i].st_ino)
                return ddio_errf(e, DDIO_EXIT_USAGE, "--measured %s: the same folder as --measured %s", dir[i],
                                 dir[k]);
    }
    return 0;
}

int cli_experiment_dirs(const char *const *given, int n_given, char **dirs, int *n, ddio_err *e)
{
    *n = 0;
    if (n_given > CLI_MAX_EXPERIMENTS)
        return ddio_errf(e, DDIO_EXIT_USAGE, "--measured: at most %d experiments", CLI_MAX_EXPERIMENTS);
    if (n_given > 0) {
        if (distinct_folders(given, n_given, e) != 0)
            return -1;
        for (int i = 0; i < n_given; i++) {
            if (!(dirs[i] = strdup(given[i]))) {
                for (int k = 0; k < i; k++)
                    free(dirs[k]);
                return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
            }
        }
        *n = n_given;
        return 0;
    }
    char data[DDIO_DATA_PATH_MAX];
    if (ddio_datapath(DDIO_DATA_EXPERIMENTS, data, sizeof data, e) != 0) {
        e->exit_code = e->exit_code ? e->exit_code : DDIO_EXIT_USAGE;
        return -1;
    }
    if (find_experiments(data, 2, dirs, n, e) != 0) {
        for (int k = 0; k < *n; k++)
            free(dirs[k]);
        *n = 0;
        return -1;
    }
    if (*n == 0)
        return ddio_errf(e, DDIO_EXIT_USAGE, "%s: no experiment.json found", data);
    return 0;
}

int cli_load_experiments(char *const *dirs, size_t n_exp, const runner_opts *o, struct cli_io *io, vd_experiment *exp,
                         runner_job **jobs,
                         size_t *n_points, ddio_err *e)
{
    size_t total = 0;
    *jobs = NULL;
    *n_points = 0;
    for (size_t i = 0; i < n_exp; i++) {
        if (vd_experiment_load(dirs[i], &exp[i], e) != 0)
            return -1;
        for (size_t w = 0; w < exp[i].n_warning; w++) {   /* the loader's warnings: said, not fatal */
            if (io)
                sb_printf(&io->warn, "warning: %s\n", exp[i].warning[w]);
            else
                fprintf(stderr, "ddiosim: warning: %s\n", exp[i].warning[w]);
        }
        total += exp[i].n;
    }
    *jobs = calloc(total ? total : 1, sizeof **jobs);
    ddio_config *cfg = malloc(sizeof *cfg);
    if (!*jobs || !cfg) {
        free(cfg);
        return ddio_errf(e, DDIO_EXIT_IO, "out of memory");
    }
    /* The overrides alone first: a bad one is the option's error, not a point's. */
    ddio_config_args a;
    ddio_config_args_init(&a);
    for (int i = 0; i < o->n_sets; i++)
        if (ddio_config_args_add(&a, DDIO_CFG_OPT_SET, o->sets[i], e) != 0) {
            free(cfg);
            return -1;
        }
    if (o->n_sets && ddio_config_resolve(&a, cfg, NULL, e) != 0) {
        free(cfg);
        return -1;
    }
    runner_opts ro = *o;
    ro.jobs = 1;
    size_t k = 0;
    for (size_t i = 0; i < n_exp; i++)
        for (size_t p = 0; p < exp[i].n; p++, k++) {
            runner_job *j = &(*jobs)[k];
            j->machine = exp[i].machine;
            j->workload = exp[i].workload;
            j->n_params = exp[i].point[p].n_params;
            j->param = exp[i].point[p].param;
            dsim_options d;
            char profile[32];
            ddio_err e2 = {0};
            if (runner_job_config(j, &ro, cfg, &d, profile, sizeof profile, &e2) != 0) {
                free(cfg);
                return ddio_errf(e, DDIO_EXIT_USAGE, "%s/experiment.json: point %s: %s", exp[i].dir,
                                 exp[i].point[p].where, e2.msg);
            }
        }
    free(cfg);
    *n_points = total;
    return 0;
}
