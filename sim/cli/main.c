/* main.c - ddiosim entry point: dispatch to one subcommand. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/cli/cli.h"

static const ddio_cmd commands[] = {
    {"cache-replay", "replay a DineroIV-style line address trace through one cache", cmd_cache_replay},
    {"trace", "pcap traces: stats (summarise a capture), gen (synthetic fixed/imix/mawi)", cmd_trace},
    {"rss", "Toeplitz RSS hash and RX queue of an IPv4 or IPv6 flow", cmd_rss},
    {"config", "show the resolved machine and workload configuration; list known names", cmd_config},
    {"simulate", "discrete-event simulation of NIC rings, cores and caches: hit rates, queues, drops", cmd_simulate},
    {"predict", "analytical Markov model of Wang, Xu, Wu (SIGMETRICS 2022): hit-rate bounds in ms", cmd_predict},
    {"validate", "compare both engines with hit rates measured on real servers (uncore counters)", cmd_validate},
    {"calibrate", "fit machine / workload fields to measured hit rates; leave-one-experiment-out cross-validation",
     cmd_calibrate},
    {"sweep", "compute a design-space grid (ring sizes x cores x DDIO ways x ...) into a results file", cmd_sweep},
    {"plot", "draw a sweep's results with gnuplot (a metric against a parameter, series, heat map)", cmd_plot},
    {"advise", "the ring sizes / DDIO ways / cores that meet constraints (memory traffic, hit rate, drops), best first",
     cmd_advise},
    {"help", "what the terms of the output mean (L3*, CPU first, bounds, MAE ...)", cmd_help},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: ddiosim [--version] [--help] <command> [options]\n\n"
               "Predicts the Intel DDIO (DMA to last-level cache) hit rates of a packet\n"
               "processing system by trace-driven simulation and by an analytical Markov model.\n\n"
               "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nRun 'ddiosim <command> --help' for the options of one command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return DDIO_EXIT_USAGE;
    }
    /* GSL's default handler aborts the process; its errors are return
     * codes here, checked where GSL is called. */
    gsl_set_error_handler_off();
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return DDIO_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("ddiosim %s\n", DDIOSIM_VERSION);
        return DDIO_EXIT_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "ddiosim: unknown %s '%s'\n", name[0] == '-' ? "option" : "command", name);
    usage(stderr);
    return DDIO_EXIT_USAGE;
}
