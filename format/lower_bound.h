/*
 * lower_bound.h - binary search in an ascending array of state ids
 * (internal: the format library and ref/).
 */
#ifndef LOWER_BOUND_H
#define LOWER_BOUND_H

#include <stdint.h>

/* The first index i in [lo, hi) with a[i] >= key (hi if none); a[lo..hi)
 * ascending.  O(log(hi - lo)). */
static inline uint64_t lower_bound_u32(const uint32_t *a, uint64_t lo, uint64_t hi, uint64_t key)
{
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
