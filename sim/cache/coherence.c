/* coherence.c - Table 1 of Wang, Xu, Wu, "Understanding I/O Direct Cache
 * Access Performance for End Host Networking" (SIGMETRICS 2022) as a data
 * table.  The rules around it (the column of a line, the L2 hit, the state
 * of a new L2 or LLC copy, what is a hit) are inline functions in
 * coherence.h, for the hierarchy's fast paths.
 *
 * Choices where the paper is silent are documented in docs/cache-model.md
 * ("Table 1 and the choices around it"). */
#include "sim/cache/coherence.h"

#include <stddef.h>

#define CELL(llc_, st_, l2_, mem_, label_) {1, (llc_), (st_), (l2_), (mem_), (label_)}
#define EMPTY {0, LLC_KEEP, ST_I, L2_KEEP, 0, ""}

/*                 DDIO(M)        L3*(M)          Shared(M)          L2(E/M)                L2(S)                Memory(I) */
const coh_cell coh_table[HIER_MODE_COUNT][REQ_COUNT][COL_COUNT] = {
    [HIER_NONINCLUSIVE] = {
        /* A PCIe write invalidates any L2 copy and leaves the line modified in
         * the LLC: in place if it is there, else in the DDIO ways.  ItoM never
         * reads memory; a partial write (RFO) must fetch the rest of the line. */
        [REQ_PCIE_WR_FULL] = {
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "-"),
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "-"),
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "-"),
            CELL(LLC_TO_DDIO, ST_M, L2_DROP, 0, "DDIO(M)"),
            CELL(LLC_TO_DDIO, ST_M, L2_DROP, 0, "DDIO(M)"),
            CELL(LLC_TO_DDIO, ST_M, L2_KEEP, 0, "DDIO(M)"),
        },
        [REQ_PCIE_WR_PART] = {
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "-"),
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "-"),
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "-"),
            CELL(LLC_TO_DDIO, ST_M, L2_DROP, 0, "DDIO(M)"),
            CELL(LLC_TO_DDIO, ST_M, L2_DROP, 0, "DDIO(M)"),
            CELL(LLC_TO_DDIO, ST_M, L2_KEEP, 1, "DDIO(M)"),
        },
        /* PCIe read of an L2 E/M line leaves an S copy in L2 and puts the
         * (possibly dirty) data in the Shared ways.  A read of an L2(S)-only
         * line is served from L2 but the paper observed a concurrent memory
         * read (Section 3.4.2), so it is counted.  A miss does not allocate. */
        [REQ_PCIE_RD] = {
            CELL(LLC_KEEP, ST_M, L2_KEEP, 0, "-"),
            CELL(LLC_KEEP, ST_M, L2_KEEP, 0, "-"),
            CELL(LLC_KEEP, ST_M, L2_KEEP, 0, "-"),
            CELL(LLC_TO_SHARED, ST_M, L2_TO_S, 0, "Shared(M) + L2(S)"),
            CELL(LLC_KEEP, ST_I, L2_KEEP, 1, "L2(S)"),
            CELL(LLC_KEEP, ST_I, L2_KEEP, 1, "-"),
        },
        /* A core access moves the line out of the LLC into its L2. */
        [REQ_CORE_RD] = {
            CELL(LLC_DROP, ST_I, L2_TO_EM, 0, "L2(E/M)"),
            CELL(LLC_DROP, ST_I, L2_TO_EM, 0, "L2(E/M)"),
            CELL(LLC_DROP, ST_I, L2_TO_EM, 0, "L2(E/M)"),
            EMPTY,
            EMPTY,
            CELL(LLC_KEEP, ST_I, L2_TO_S, 1, "L2(S)"),
        },
        [REQ_CORE_WR] = {
            CELL(LLC_DROP, ST_I, L2_TO_EM, 0, "L2(E/M)"),
            CELL(LLC_DROP, ST_I, L2_TO_EM, 0, "L2(E/M)"),
            CELL(LLC_DROP, ST_I, L2_TO_EM, 0, "L2(E/M)"),
            EMPTY,
            EMPTY,
            CELL(LLC_KEEP, ST_I, L2_TO_E, 1, "L2(E)"),
        },
        /* An LLC victim goes to memory; an L2 E/M victim goes to the core's
         * L3* ways; an L2 S victim is dropped silently. */
        [REQ_EVICT] = {
            CELL(LLC_TO_MEM, ST_I, L2_KEEP, 0, "Memory(I)"),
            CELL(LLC_TO_MEM, ST_I, L2_KEEP, 0, "Memory(I)"),
            CELL(LLC_TO_MEM, ST_I, L2_KEEP, 0, "Memory(I)"),
            CELL(LLC_TO_CORE, ST_M, L2_DROP, 0, "L3*(M)"),
            CELL(LLC_KEEP, ST_I, L2_DROP, 0, "- (dropped)"),
            EMPTY,
        },
    },
    [HIER_INCLUSIVE] = {
        /* Inclusive LLC: lines never move once inserted.  L2 columns describe
         * an L2 copy of an LLC line.  There are no Shared ways. */
        [REQ_PCIE_WR_FULL] = {
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "-"),
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "-"),
            EMPTY,
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "X"),
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "X"),
            CELL(LLC_TO_DDIO, ST_M, L2_KEEP, 0, "DDIO(M)"),
        },
        [REQ_PCIE_WR_PART] = {
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "-"),
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "-"),
            EMPTY,
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "X"),
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "X"),
            CELL(LLC_TO_DDIO, ST_M, L2_KEEP, 1, "DDIO(M)"),
        },
        /* llc_state ST_I means "unchanged" for LLC_KEEP rows: a PCIe read does
         * not change the LLC copy except to absorb dirty data from L2. */
        [REQ_PCIE_RD] = {
            CELL(LLC_KEEP, ST_I, L2_KEEP, 0, "-"),
            CELL(LLC_KEEP, ST_I, L2_KEEP, 0, "-"),
            EMPTY,
            CELL(LLC_KEEP, ST_I, L2_DROP, 0, "X"),
            CELL(LLC_KEEP, ST_I, L2_DROP, 0, "X"),
            CELL(LLC_KEEP, ST_I, L2_KEEP, 1, "Memory(I)"),
        },
        [REQ_CORE_RD] = {
            CELL(LLC_KEEP, ST_I, L2_TO_EM, 0, "- + L2(E/M)"),
            CELL(LLC_KEEP, ST_I, L2_TO_EM, 0, "- + L2(E/M)"),
            EMPTY,
            EMPTY,
            EMPTY,
            CELL(LLC_TO_CORE, ST_E, L2_TO_E, 1, "L3(E) + L2(E)"),
        },
        [REQ_CORE_WR] = {
            CELL(LLC_KEEP, ST_I, L2_TO_EM, 0, "- + L2(E/M)"),
            CELL(LLC_KEEP, ST_I, L2_TO_EM, 0, "- + L2(E/M)"),
            EMPTY,
            EMPTY,
            EMPTY,
            CELL(LLC_TO_CORE, ST_E, L2_TO_M, 1, "L3(E) + L2(M)"),
        },
        /* An LLC victim goes to memory (its L2 copy is back-invalidated); an
         * L2 E/M victim is written into its LLC copy; an L2 S victim is dropped. */
        [REQ_EVICT] = {
            CELL(LLC_TO_MEM, ST_I, L2_DROP, 0, "Memory(I)"),
            CELL(LLC_TO_MEM, ST_I, L2_DROP, 0, "Memory(I)"),
            EMPTY,
            CELL(LLC_KEEP, ST_M, L2_DROP, 0, "L3(M)"),
            CELL(LLC_KEEP, ST_I, L2_DROP, 0, "X"),
            EMPTY,
        },
    },
};

/* DDIO off (coherence.h, coh_lookup_io): a PCIe write (full: PCIWiLF,
 * partial: PCIWiL) invalidates every copy and writes the line to memory.
 * The DDIO column cannot be met (there are no DDIO ways) but is filled in
 * like the others: the Markov model's state space still has the state.
 * An inclusive LLC has no Shared ways. */
#define WMEM(l2_) CELL(LLC_WRITE_MEM, ST_I, (l2_), 0, "Memory(I)")
/*                   DDIO(M)        L3*(M)         Shared(M)      L2(E/M)        L2(S)          Memory(I) */
const coh_cell coh_noddio_table[HIER_MODE_COUNT][2][COL_COUNT] = {
    [HIER_NONINCLUSIVE] = {
        {WMEM(L2_DROP), WMEM(L2_DROP), WMEM(L2_DROP), WMEM(L2_DROP), WMEM(L2_DROP), WMEM(L2_KEEP)},
        {WMEM(L2_DROP), WMEM(L2_DROP), WMEM(L2_DROP), WMEM(L2_DROP), WMEM(L2_DROP), WMEM(L2_KEEP)},
    },
    [HIER_INCLUSIVE] = {
        {WMEM(L2_DROP), WMEM(L2_DROP), EMPTY, WMEM(L2_DROP), WMEM(L2_DROP), WMEM(L2_KEEP)},
        {WMEM(L2_DROP), WMEM(L2_DROP), EMPTY, WMEM(L2_DROP), WMEM(L2_DROP), WMEM(L2_KEEP)},
    },
};

const char *coh_req_name(enum coh_req req)
{
    static const char *names[REQ_COUNT] = {"ItoM", "RFO(PCIe)", "PCIRdCur", "DRd", "RFO", "Evict"};
    return (unsigned)req < REQ_COUNT ? names[req] : "?";
}

const char *coh_col_name(enum coh_col col)
{
    static const char *names[COL_COUNT] = {"DDIO(M)", "L3*(M)", "Shared(M)", "L2(E/M)", "L2(S)", "Memory(I)"};
    return (unsigned)col < COL_COUNT ? names[col] : "?";
}

const char *hier_mode_name(enum hier_mode mode)
{
    return mode == HIER_INCLUSIVE ? "inclusive" : "non-inclusive";
}
