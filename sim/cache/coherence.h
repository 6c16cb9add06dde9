/* coherence.h - the paper's Table 1 as data: where a cache line goes on each
 * request, for the non-inclusive (Skylake) and inclusive (Broadwell) LLC.
 *
 * This table, with the few rules around it below (which column a line is
 * in; the L2 hit; the state of a new L2 or LLC copy; what is a hit), is the
 * single source of truth for line movement.  The cache hierarchy (hier.c,
 * and the fast paths derived from it, hier_fast.c and hier_run.c) executes
 * it on every access and the Markov model (sim/markov) builds its access
 * and eviction matrices from it; neither keeps a copy.
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

/* Where a copy of a line is: an L2, one of the LLC's way groups, or only in
 * memory (the paper's physical states; hier.c reports it, the Markov model
 * names its states by it). */
enum hier_region { REG_L2 = 0, REG_DDIO, REG_SHARED, REG_L3, REG_MEM, REG_COUNT };

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
    LLC_WRITE_MEM,  /* DDIO off: the request writes the line to memory; any LLC copy is invalidated */
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

/* DDIO off: the PCIe write rows (full, partial) that replace Table 1's
 * when the LLC has no DDIO ways (coh_lookup_io). */
extern const coh_cell coh_noddio_table[HIER_MODE_COUNT][2][COL_COUNT];

/* The cell for (mode, request, column), or NULL out of range.  Inline: the
 * hierarchy looks a cell up on every access. */
static inline const coh_cell *coh_lookup(enum hier_mode mode, enum coh_req req, enum coh_col col)
{
    if ((unsigned)mode >= HIER_MODE_COUNT || (unsigned)req >= REQ_COUNT || (unsigned)col >= COL_COUNT)
        return NULL;
    return &coh_table[mode][req][col];
}

/* DDIO off (no DDIO ways, `ddio` 0; docs/cache-model.md "DDIO off"): an
 * inbound PCIe write does not allocate in the LLC.  The IIO issues a
 * non-allocating write (the uncore's PCIWiLF / PCIWiL): every cached copy
 * (LLC, L2) is invalidated and the line is written to memory, one line
 * write per request whatever the copy's state (a dirty copy's data is
 * overwritten, or merged into a partial write), no line read.  It is a miss
 * wherever the line was (coh_cell_hit).  PCIe reads and core requests keep
 * Table 1's rows: a read is served from a cached copy and never allocates.
 * With DDIO ways, Table 1 itself (coh_lookup).  The cell for (mode, `ddio`,
 * request, column), NULL out of range. */
static inline const coh_cell *coh_lookup_io(enum hier_mode mode, int ddio, enum coh_req req, enum coh_col col)
{
    if (ddio || (req != REQ_PCIE_WR_FULL && req != REQ_PCIE_WR_PART))
        return coh_lookup(mode, req, col);
    if ((unsigned)mode >= HIER_MODE_COUNT || (unsigned)col >= COL_COUNT)
        return NULL;
    return &coh_noddio_table[mode][req - REQ_PCIE_WR_FULL][col];
}

/* ------------------------------------------------------------ rules around the table
 *
 * Table 1 says what a request does to a line in a given column; the rules
 * below say which column a line is in and what happens where the table is
 * silent (docs/cache-model.md, "Table 1 and the choices around it").  Both
 * engines call them: the hierarchy (hier.c, hier_fast.c, hier_run.c) on
 * every access, the Markov model (sim/markov) when it builds its matrices.
 * Inline and pure for the hierarchy's fast paths, where the request is
 * often a constant and they fold away: a fast path calls them rather than
 * writing a rule out again. */

/* The column of an LLC copy in the ways of `region` (REG_DDIO, REG_L3,
 * REG_SHARED); COL_MEM for REG_MEM (no LLC copy).  REG_L2 is not an LLC
 * region: COL_MEM.  A table: the hierarchy's general path looks it up on
 * every access. */
static inline enum coh_col coh_region_col(enum hier_region region)
{
    static const uint8_t col[REG_COUNT] = {
        [REG_L2] = COL_MEM, [REG_DDIO] = COL_DDIO, [REG_SHARED] = COL_SHARED, [REG_L3] = COL_L3, [REG_MEM] = COL_MEM,
    };
    return (enum coh_col)col[region];
}

/* The column of an L2 copy in state `l2` (ST_S, ST_E or ST_M). */
static inline enum coh_col coh_l2_col(enum coh_state l2)
{
    return l2 == ST_S ? COL_L2_S : COL_L2_EM;
}

/* The column of a line whose LLC copy is in the ways of `llc` (REG_MEM:
 * none) and whose L2 copy is in state `l2` (ST_I: none; E and M alike):
 * an L2 copy in E or M first (inclusive: an L2 copy in any state, its LLC
 * copy always exists), else the LLC copy's region, else an L2 copy in S,
 * else memory. */
static inline enum coh_col coh_col_of(enum hier_mode mode, enum hier_region llc, enum coh_state l2)
{
    if (l2 == ST_I)     /* first: the hierarchy's most frequent case */
        return coh_region_col(llc);
    if (l2 != ST_S || mode == HIER_INCLUSIVE)
        return coh_l2_col(l2);
    return llc != REG_MEM ? coh_region_col(llc) : COL_L2_S;
}

/* The L2 hit (Table 1's empty cells: a core request for a line in its own
 * L2, docs/cache-model.md choice 5): the state of the L2 copy afterwards.
 * A write makes it M (an S copy is upgraded); a read leaves it. */
static inline enum coh_state coh_l2_hit_state(enum coh_req req, enum coh_state l2)
{
    return req == REQ_CORE_WR ? ST_M : l2;
}

/* The L2 hit, continued: 1 when it takes the line's LLC copy.  A write to
 * an S copy in a non-inclusive hierarchy takes the Shared copy (and its
 * dirt) to the writer; an inclusive LLC keeps its (stale) copy. */
static inline int coh_l2_hit_takes_llc(enum hier_mode mode, enum coh_req req, enum coh_state l2)
{
    return req == REQ_CORE_WR && l2 == ST_S && mode == HIER_NONINCLUSIVE;
}

/* The state of the L2 copy a core request leaves when its own L2 missed
 * (the cell's L2 action `l2`): L2_TO_S -> S, L2_TO_E -> E, L2_TO_M -> M,
 * L2_TO_EM -> M if the data is `dirty` and the LLC gives it up
 * (non-inclusive), else E (inclusive: the LLC copy keeps the dirt, choice
 * 7).  Then the store completes after the RFO: a write leaves M (choice
 * 2).  ST_I for an action that leaves no L2 copy (L2_KEEP, L2_DROP). */
static inline enum coh_state coh_core_fill_state(enum hier_mode mode, enum coh_req req, enum coh_l2 l2, int dirty)
{
    if (l2 == L2_KEEP || l2 == L2_DROP)
        return ST_I;
    if (req == REQ_CORE_WR)
        return ST_M;
    switch (l2) {
    case L2_TO_S: return ST_S;
    case L2_TO_M: return ST_M;
    case L2_TO_EM: return dirty && mode == HIER_NONINCLUSIVE ? ST_M : ST_E;
    default: return ST_E;   /* L2_TO_E */
    }
}

/* Whether a request hits (choice 10): the line was in the hierarchy before
 * it, in an L2 (any core's) or in the LLC; only in memory, a miss.  (The
 * uncore counts snoop-filter hits, L2-only lines, as hits.) */
static inline int coh_col_hit(enum coh_col col)
{
    return col != COL_MEM;
}

/* Whether a request whose cell is `cell` hits a line in column `col`: a
 * cached line (coh_col_hit), unless the cell writes the line to memory past
 * the caches (LLC_WRITE_MEM, DDIO off): then it misses wherever it was. */
static inline int coh_cell_hit(const coh_cell *cell, enum coh_col col)
{
    return cell->llc != LLC_WRITE_MEM && coh_col_hit(col);
}

/* The lines a request whose cell is `cell` writes to memory itself (not
 * counting the write-backs of the victims it causes): 1 for LLC_WRITE_MEM
 * (DDIO off), else 0. */
static inline int coh_cell_mem_writes(const coh_cell *cell)
{
    return cell->llc == LLC_WRITE_MEM;
}

/* The state of an LLC copy that a request's LLC_KEEP cell leaves where it
 * is: M when the request writes it (a PCIe write: ItoM, RFO) or the line
 * is dirty (`old` M: the copy's own state, or the dirt of an L2 copy the
 * cell drops into it), else `old` as it was. */
static inline enum coh_state coh_keep_state(enum coh_req req, enum coh_state old)
{
    return req == REQ_PCIE_WR_FULL || req == REQ_PCIE_WR_PART || old == ST_M ? ST_M : old;
}

/* The state of a new LLC copy (choice 1, dirty tracking): M when its data
 * differs from memory (`dirty`: a PCIe or core write since it was read,
 * or dirt it takes over), else E, where Table 1 prints M. */
static inline enum coh_state coh_llc_fill_state(int dirty)
{
    return dirty ? ST_M : ST_E;
}

const char *coh_req_name(enum coh_req req);     /* "ItoM", "RFO(PCIe)", "PCIRdCur", "DRd", "RFO", "Evict" */
const char *coh_col_name(enum coh_col col);
const char *hier_mode_name(enum hier_mode mode);

#endif
