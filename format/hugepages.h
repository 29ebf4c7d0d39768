/*
 * hugepages.h - a hint for large arrays (internal to the format library).
 */
#ifndef HUGEPAGES_H
#define HUGEPAGES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

/* Ask for transparent huge pages on the 2 MiB-aligned part of [p, p+bytes):
 * first touch of a large array then takes 512 times fewer page faults.  Only a
 * hint: the kernel may ignore it, and nothing depends on it. */
static inline void advise_huge_pages(void *p, size_t bytes)
{
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (bytes < 2 * huge)
        return;
    uintptr_t begin = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t end = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (end > begin)
        madvise((void *)begin, end - begin, MADV_HUGEPAGE);
}

#endif
