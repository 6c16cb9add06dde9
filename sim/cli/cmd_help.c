/* cmd_help.c - `ddiosim help [TOPIC]`: what the terms of the output mean
 * (regions, hit rates, bounds, queues, validate's accuracy figures) and
 * where the data files are.  The definitions follow docs/cache-model.md,
 * docs/simulator.md, docs/model.md and docs/validation.md; the man page
 * (docs/ddiosim.1) points here rather than repeating them. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sim/cli/cli.h"
#include "sim/common/datadir.h"

typedef struct help_topic {
    const char *name;
    const char *aliases;        /* other words that lead here, space-separated */
    const char *summary;
    const char *text;
} help_topic;

static const help_topic topics[] = {
    {"regions", "l3* l3 ddio shared l2 memory occupancy llc",
     "DDIO, Shared and L3* ways of the LLC; L2; memory",
     "Where a cache line can be (simulate's \"LLC occupancy\", predict --explain's\n"
     "columns).  The LLC's ways are split by the way a line sits in, as in Wang,\n"
     "Xu, Wu, \"Understanding I/O Direct Cache Access Performance for End Host\n"
     "Networking\" (SIGMETRICS 2022):\n"
     "\n"
     "  DDIO     the ways the NIC's writes allocate into (machine.ddio_mask, the\n"
     "           IIO_LLC_WAYS register; two leftmost ways by default, 0x600 of 11).\n"
     "           None (--no-ddio, --ddio-mask 0x0): DDIO off, the NIC's writes\n"
     "           go to memory and invalidate every cached copy; its reads are\n"
     "           served from a cached copy and allocate nothing.\n"
     "  Shared   the ways that hold a line also kept by an L2: a NIC read of a\n"
     "           line modified in an L2 leaves a Shared copy plus an L2 copy in\n"
     "           state S (machine.shared_mask, 0x3 on Skylake; none on an\n"
     "           inclusive LLC such as Broadwell's).\n"
     "  L3*      every other way: in a non-inclusive LLC (Skylake) the lines that\n"
     "           L2s evict land here, in the core's CAT ways; the paper's name.\n"
     "           An inclusive LLC (Broadwell) calls this region L3: lines the\n"
     "           cores read from memory.\n"
     "  L2       a core's private cache; E/M (exclusive or modified) or S.\n"
     "           \"Shared+L2(S)\" is a line with both copies.\n"
     "  Memory   in no cache.\n"
     "\n"
     "A line's region is the way it is in: an L2 victim placed in a DDIO way\n"
     "(CAT masks overlapping the DDIO ways) counts as DDIO.\n"},
    {"hit-rates", "hit-rate hits itom rfo pcirdcur itomcachenear cpu-first descriptors with-descriptors pcie "
     "pcie-write pcie-read pcie-write-hit pcie-read-hit cpu-first-hit",
     "PCIe write (ItoM, RFO) and read (PCIRdCur), CPU first, descriptors",
     "Hit rates are hits / accesses over the measured interval (after warm-up).\n"
     "\n"
     "  PCIe write   the NIC's DMA writes of received packet data.  A full 64 B line\n"
     "               is an ItoM request (\"full\"), a partial one (the last line of\n"
     "               most frames) an RFO (\"partial\"; ItoMCacheNear on Ice Lake and\n"
     "               later).  A miss allocates in the DDIO ways.  With DDIO off\n"
     "               (--no-ddio) every write is a miss and goes to memory.\n"
     "  PCIe read    the NIC's reads of packets to transmit: PCIRdCur.  A miss does\n"
     "               not allocate.\n"
     "               A PCIe request hits when the line is anywhere in the hierarchy,\n"
     "               an L2 included (the uncore counts snoop-filter hits).\n"
     "  CPU first    the core's first access to each received packet (the first\n"
     "               line the workload touches): a hit when an L2 or the LLC has it.\n"
     "\n"
     "These count the packet buffers' data lines, which is what the Markov model\n"
     "predicts.  \"with descriptors\" counts also the RX / TX descriptor and\n"
     "completion lines the NIC writes and reads, which is what the uncore\n"
     "counters see (--no-desc leaves those lines out of the run).  validate\n"
     "compares the simulator as the counters count: ItoM = every full-line\n"
     "write, completions included; PCIRdCur = every read, descriptors included.\n"},
    {"bounds", "bound lower upper mean estimate lru bip qlru model markov",
     "the model's LRU and BIP / QLRU bounds, their mean, its estimate",
     "The Markov model (predict; simulate's \"Markov model\" line; validate's model\n"
     "column) solves its chain twice, with two LLC replacement policies:\n"
     "\n"
     "  lower   LRU (the paper's Eq. 2).\n"
     "  upper   BIP, or QLRU when the machine's LLC policy is srrip, qlru, drrip,\n"
     "          a QLRU_... variant or a duel of them (Eq. 3; predict --upper\n"
     "          chooses): policies that resist thrashing and keep more of a\n"
     "          large ring.  The QLRU bound is the same for every variant.\n"
     "  mean    (lower + upper) / 2, the figure the paper reports.\n"
     "  estimate  the model's prediction, which validate compares: the machine's\n"
     "          llc.model_estimate, by default (policy) the lower bound when the\n"
     "          LLC policy is lru (the LRU chain is then the policy the simulator\n"
     "          runs), the mean otherwise.\n"
     "\n"
     "The paper brackets the LLC's real, unpublished policy between the two.\n"
     "L2 is LRU in both.  \"a / b\" figures (memory, footprint) are lower / upper.\n"
     "The bounds hold for the model's assumptions: lines mapped to sets uniformly\n"
     "at random, a steady state, and the mean queue lengths it is given.  The\n"
     "simulator runs the machine's own policy (llc.policy) on its set mapping\n"
     "with queues that fluctuate, so its figure may fall outside [lower, upper]:\n"
     "simulate's \"Markov model\" line shows the model's bounds for the queue\n"
     "lengths that run measured, to compare.\n"},
    {"queues", "queue rx rx-replenish replenish tx tx-recycle recycle sw-queue idle ring mempool",
     "RX replenish, RX, TX, TX recycle, sw queue, idle",
     "The paper's logical queues: where a packet buffer is in its cycle.  Figures\n"
     "are mean buffers per core over the measured interval (predict: estimated\n"
     "by the queueing estimate, given with --queues, or simulated with\n"
     "--from-sim).\n"
     "\n"
     "  RX replenish  empty buffers posted on the RX ring, waiting for a packet.\n"
     "  RX            received packets (DMA in flight or done) the core's rx_burst\n"
     "                has not taken yet.\n"
     "  sw queue      packets in the software queue in front of the TX ring\n"
     "                (FastClick's; workload.driver.sw_tx_queue).\n"
     "  TX            packets on the TX ring until the NIC has sent them.\n"
     "  TX recycle    sent buffers the driver has not freed yet (it frees them at\n"
     "                a later tx_burst).\n"
     "  idle          buffers in the mempool (predict).\n"
     "\n"
     "The longer a buffer waits between two accesses, the more other lines pass\n"
     "through the cache meanwhile: the PCIe write hit rate falls with the wait\n"
     "from the NIC's read of a buffer to its next write (TX recycle, idle,\n"
     "RX replenish), CPU first with the wait in RX, the PCIe read with the\n"
     "wait in sw queue and TX.  validate shows RX/RX replenish/TX/TX recycle.\n"},
    {"accuracy", "validate mae bias in-bounds max err error measured sd",
     "validate's err, MAE, max, bias and in bounds",
     "validate compares each engine with hit rates measured on real servers.\n"
     "\n"
     "  measured (sd, n)  the mean over the runs of a point, their standard\n"
     "                    deviation and the number of runs.\n"
     "  err               predicted - measured, in percentage points (the model's\n"
     "                    prediction is its estimate: ddiosim help bounds).\n"
     "  MAE               mean absolute error: the mean of |err| over the points.\n"
     "  max               the largest |err|.\n"
     "  bias              the mean of err: negative = the engine predicts fewer\n"
     "                    hits than the hardware had.\n"
     "  in bounds         points whose measured mean lies within the model's\n"
     "                    [LRU, BIP] bounds.\n"
     "\n"
     "write is the ItoM hit rate, read the PCIRdCur one (ddiosim help hit-rates).\n"},
    {"memory", "footprint dram bandwidth write-backs",
     "memory traffic per packet and the I/O footprint",
     "  memory        bytes read from and written back to memory per packet (cache\n"
     "                lines x line size over the measured interval), and the\n"
     "                resulting bandwidth: reads are misses that fetch a line (a\n"
     "                full-line ItoM write fetches nothing), writes are dirty\n"
     "                lines evicted.\n"
     "  I/O footprint predict: packet buffer lines held in the caches, in MiB.\n"
     "\n"
     "predict's \"a / b\" pairs are the lower / upper bound.\n"},
    {"files", "data paths install datadir configs traces environment",
     "where the machine, workload, trace and experiment files are found",
     "Names such as --machine skylake-6132 are looked up in\n"
     "$DDIOSIM_CONFIG_DIR/machines (if set), then in the data directory's\n"
     "configs/machines (workloads alike).  The data directory holds configs/,\n"
     "traces/samples (the default trace) and validate/data (the experiments\n"
     "validate runs); it is the first of\n"
     "\n"
     "  $DDIOSIM_DATA_DIR           if set;\n"
     "  BINDIR/../share/ddiosim     an installed binary (cmake --install);\n"
     "  BINDIR/..                   a binary built in SRC/build/;\n"
     "\n"
     "where BINDIR is the directory of the running binary.\n"},
};
#define NTOPICS (sizeof topics / sizeof topics[0])

static void list_topics(FILE *f)
{
    fprintf(f, "usage: ddiosim help TOPIC\n\n"
               "What the terms of ddiosim's output mean.  Topics:\n");
    for (size_t i = 0; i < NTOPICS; i++)
        fprintf(f, "  %-10s %s\n", topics[i].name, topics[i].summary);
    fprintf(f, "\nThe commands and their options: ddiosim --help, ddiosim COMMAND --help.\n");
}

/* Whether `word` is one of the space-separated words of `list` (any case). */
static int in_list(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, " ");
        if (k == n && strncasecmp(p, word, n) == 0)
            return 1;
        p += k + (p[k] == ' ');
    }
    return 0;
}

/* The topic for `word`, a name or an alias in any case, spaces and
 * underscores read as '-' ("CPU first", "pcie_read_hit"). */
static const help_topic *find_topic(const char *word)
{
    char w[64];
    size_t n = 0;
    for (; word[n] && n < sizeof w - 1; n++)
        w[n] = word[n] == ' ' || word[n] == '_' ? '-' : word[n];
    w[n] = '\0';
    if (word[n])
        return NULL;
    for (size_t i = 0; i < NTOPICS; i++)
        if (strcasecmp(topics[i].name, w) == 0 || in_list(topics[i].aliases, w))
            return &topics[i];
    return NULL;
}

/* The files topic ends with where this binary finds its data now. */
static void print_datadir(void)
{
    char dir[DDIO_DATA_PATH_MAX];
    ddio_err e = {0};
    if (ddio_datadir(dir, sizeof dir, &e) == 0)
        printf("\nThis binary's data directory: %s\n", dir);
    else
        printf("\nThis binary has no data directory: %s\n", e.msg);
}

int cmd_help(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        list_topics(stdout);
        return DDIO_EXIT_OK;
    }
    if (argc > 2) {
        fprintf(stderr, "ddiosim help: one topic at a time (see ddiosim help)\n");
        return DDIO_EXIT_USAGE;
    }
    const help_topic *t = find_topic(argv[1]);
    if (!t) {
        fprintf(stderr, "ddiosim help: unknown topic '%s' (topics:", argv[1]);
        for (size_t i = 0; i < NTOPICS; i++)
            fprintf(stderr, "%s %s", i ? "," : "", topics[i].name);
        fprintf(stderr, "; a command's options: ddiosim COMMAND --help)\n");
        return DDIO_EXIT_USAGE;
    }
    fputs(t->text, stdout);
    if (strcmp(t->name, "files") == 0)
        print_datadir();
    return DDIO_EXIT_OK;
}
