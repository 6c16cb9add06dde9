/* mem.c - allocation of the simulator's large tables (mem.h): zeroed
 * anonymous mappings, huge pages advised where the kernel allows. */
#define _DEFAULT_SOURCE 1   /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "sim/common/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

/* The length of the mapping of a large table: whole huge pages, so that
 * none of it is left to 4 KiB pages (ddio_table_free unmaps the same). */
static size_t huge_span(size_t size)
{
    return (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

/* Small tables come from malloc; large ones are mmap'ed directly: glibc's
 * aligned_alloc does not hand out ranges the kernel will back with huge
 * pages, but an madvise'd anonymous mapping is.  The kernel backs only the
 * 2 MiB-aligned huge pages that lie wholly inside a mapping, and mmap
 * returns 4 KiB-aligned addresses: a 4.5 MiB table (the 24.75 MiB LLC's
 * set blocks) got 0, 2 or 4 MiB of huge pages from run to run, and an
 * access to a 4 KiB-page part misses the TLB.  So the mapping is over-
 * allocated by a huge page, aligned, its ends unmapped, and its length
 * rounded up to whole huge pages. */
void *ddio_table_alloc(size_t size)
{
    if (size < HUGE_PAGE) {
        void *p = aligned_alloc(64, (size + 63) & ~(size_t)63);
        if (p)
            __builtin_memset(p, 0, size);
        return p;
    }
    const size_t span = huge_span(size);
    if (span < size || span + HUGE_PAGE < span)
        return NULL;   /* size overflows */
    uint8_t *raw = mmap(NULL, span + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    const size_t head = (HUGE_PAGE - ((uintptr_t)raw & (HUGE_PAGE - 1))) & (HUGE_PAGE - 1);
    uint8_t *p = raw + head;
    if (head)
        munmap(raw, head);
    munmap(p + span, HUGE_PAGE - head);   /* at least one page: head < HUGE_PAGE */
#ifdef MADV_HUGEPAGE
    madvise(p, span, MADV_HUGEPAGE);   /* a hint: failure is harmless */
#endif
    return p;                          /* anonymous mappings are zero-filled */
}

void ddio_table_free(void *p, size_t size)
{
    if (!p)
        return;
    if (size < HUGE_PAGE)
        free(p);
    else
        munmap(p, huge_span(size));
}
