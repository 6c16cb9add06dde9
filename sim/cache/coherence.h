/* coherence.h - the paper's Table 1 as data: where a cache line goes on each
 * request, for the non-inclusive (Skylake) and inclusive (Broadwell) LLC.
 *
 * This table is the single source of truth for line movement.  The cache
 * hierarchy (hier.c) executes it on every access and the Markov model
 * (sim/markov) builds its access matrices from it; neither keeps a copy.
 *
 * A line's state is described by the table column it is in *before* the
 * request (enum coh_col) and each cell says what happens to its LLC copy and
 * to its L2 copy.  Empty cells of the paper (requests that cannot meet that
 * state because another path serves them first, e.g. a core access to a line
 * already in its own L2) have `defined == 0`. */
#ifndef DDIOSIM_CACHE_COHERENCE_H
#define DDIOSIM_CACHE_COHERENCE_H

#include <stddef.h>
#include <stdint.h>

enum hier_mode {
    HIER_NONINCLUSIVE = 0,  /* Skylake-SP: lines move between L2 and the LLC */
    HIER_INCLUSIVE = 1,     /* Broadwell: the LLC holds a copy of every L2 line */
    HIER_MODE_COUNT
};

/* Requests, named after the coherence transaction they issue. */
enum coh_req {
    REQ_PCIE_WR_FULL = 0,   /* PCIe full-line write: ItoM (+ WbMtoI) */
    REQ_PCIE_WR_PART,       /* PCIe partial-line write: RFO (+ WbMtoI) */
    REQ_PCIE_RD,            /* PCIe read: PCIRdCur */
    REQ_CORE_RD,            /* core data read: DRd */
    REQ_CORE_WR,            /* core write: RFO */
    REQ_EVICT,              /* replacement victim leaving the level it is in */
    REQ_COUNT
};

/* Table 1 columns: where the line is before the request. */
enum coh_col {
    COL_DDIO = 0,   /* LLC, DDIO ways (M) */
    COL_L3,         /* LLC, L3* ways (M) */
    COL_SHARED,     /* LLC, Shared ways (M); non-inclusive only */
    COL_L2_EM,      /* L2 in E or M (non-inclusive: L2 only; inclusive: L2 copy of an LLC line) */
    COL_L2_S,       /* L2 in S */
    COL_MEM,        /* memory only (I) */
    COL_COUNT
};

/* What happens to the LLC copy. */
enum coh_llc {
    LLC_KEEP = 0,   /* '-': stays where it is (or stays absent) */
    LLC_DROP,       /* leaves the LLC (moves up to L2, or is evicted) */
    LLC_TO_DDIO,    /* allocated in the DDIO ways */
    LLC_TO_SHARED,  /* allocated in the Shared ways */
    LLC_TO_CORE,    /* allocated in the requesting core's ways (L3*, its CAT mask) */
    LLC_TO_MEM,     /* evicted to memory (written back if dirty) */
};

/* What happens to the L2 copy. */
enum coh_l2 {
    L2_KEEP = 0,    /* unchanged (or stays absent) */
    L2_DROP,        /* 'X': invalidated / dropped */
    L2_TO_S,        /* L2 holds (or keeps) an S copy */
    L2_TO_E,
    L2_TO_M,
    L2_TO_EM,       /* E or M: M if the data was dirty, else E */
};

/* Coherence / dirtiness state of a copy, MESI without F. */
enum coh_state { ST_I = 0, ST_S, ST_E, ST_M };

typedef struct coh_cell {
    uint8_t defined;    /* 0: empty cell in Table 1 */
    uint8_t llc;        /* enum coh_llc */
    uint8_t llc_state;  /* enum coh_state of the LLC copy afterwards (when it has one) */
    uint8_t l2;         /* enum coh_l2 */
    uint8_t mem_read;   /* the request reads the line from memory */
    const char *label;  /* the cell as printed in Table 1 */
} coh_cell;

/* The table itself (coherence.c); read it through coh_lookup. */
extern const coh_cell coh_table[HIER_MODE_COUNT][REQ_COUNT][COL_COUNT];

/* The cell for (mode, request, column), or NULL out of range.  Inline: the
 * hierarchy looks a cell up on every access. */
static inline const coh_cell *coh_lookup(enum hier_mode mode, enum coh_req req, enum coh_col col)
{
    if ((unsigned)mode >= HIER_MODE_COUNT || (unsigned)req >= REQ_COUNT || (unsigned)col >= COL_COUNT)
        return NULL;
    return &coh_table[mode][req][col];
}

const char *coh_req_name(enum coh_req req);     /* "ItoM", "RFO(PCIe)", "PCIRdCur", "DRd", "RFO", "Evict" */
const char *coh_col_name(enum coh_col col);
const char *hier_mode_name(enum hier_mode mode);

#endif
