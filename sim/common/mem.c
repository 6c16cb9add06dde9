#define _DEFAULT_SOURCE 1   /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "sim/common/mem.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

/* Small tables come from malloc; large ones are mmap'ed directly: glibc's
 * aligned_alloc does not hand out ranges the kernel will back with huge
 * pages, but an madvise'd anonymous mapping is. */
void *ddio_table_alloc(size_t size)
{
    if (size < HUGE_PAGE) {
        void *p = aligned_alloc(64, (size + 63) & ~(size_t)63);
        if (p)
            __builtin_memset(p, 0, size);
        return p;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE);   /* a hint: failure is harmless */
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
        munmap(p, size);
}
