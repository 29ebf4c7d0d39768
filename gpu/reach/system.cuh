/*
 * system.cuh - the maybe states' subsystem of a reachability query as the
 * GPU iterates it (internal to gpu/reach/): the view of the compacted
 * layout (compact.h builds it on the host, iterate.cu uploads it) that the
 * kernels of iterate.cu, sweep.cu and pi.cu read.
 */
#ifndef GPU_REACH_SYSTEM_CUH
#define GPU_REACH_SYSTEM_CUH

#include <stdint.h>

/* Threads a block of the iteration's and the sweep classes' kernels. */
#define VI_THREADS 256

/* The bounds of one slot side by side: an iteration reads both of a
 * successor with one 16-byte load (one 32-byte sector) instead of two loads
 * from two arrays (coin6_4: 6 successors a state). */
struct __align__(16) vi_bounds {
    double lower, upper;
};

/* Choice words: a deterministic choice (one kept branch of probability 1,
 * three in four of coin6_4's maybe choices) is its successor's slot with
 * this bit; another is the offset of its first branch, whose targets carry
 * VI_LAST_BRANCH on the last one. */
#define VI_DETERMINISTIC 0x80000000u
#define VI_LAST_BRANCH 0x80000000u
#define VI_SLOT_MASK 0x7fffffffu

/* What one iteration reports, summed over the grid: the largest difference
 * (u - l for interval iteration, the change for value iteration) as the bits
 * of a non-negative double (they order as the doubles do), and whether any
 * bound changed (a whole iteration without a change is a floating-point
 * fixpoint: CSR_ERR_STALLED).  Two slots, by the iteration's parity: each
 * iteration clears the other one for the next. */
struct vi_check {
    unsigned long long difference_bits;
    unsigned int changed;
    unsigned int flags; /* VI_UPPER_ROSE, VI_UPPER_CROSSED: what optimistic value iteration verifies */
};

/* Interval iteration's upper step found B(u)(s) > u(s) for some state s
 * (u is not yet a pre-fixpoint: not verified), or B(u)(s) < l(s) (an
 * optimistic guess below the value: crossed). */
#define VI_UPPER_ROSE 1u
#define VI_UPPER_CROSSED 2u

/* The device side of a compact_system (compact.h). */
struct vi_view {
    uint64_t nm, num_mecs;
    uint64_t mb; /* branches: target and prob_index hold mb entries */
    const uint32_t *state_first;
    const uint32_t *choice; /* choice words (lanes over choices) or first branches (ROWS) */
    const uint32_t *target;
    const uint16_t *prob_index; /* NULL: prob has one f64 per branch; else prob is the dictionary's table */
    const double *prob;
    const uint32_t *mec;    /* NULL: no MECs */
    const uint8_t *leaving; /* with mec */
    const double *reward;   /* NULL: probabilities; else each choice's reward, added to its value */
    vi_bounds *bounds; /* [slots] */
    unsigned long long *mec_best; /* 2 num_mecs: each MEC's best leaving upper bound (bits), by parity */
    vi_check *check;              /* 2 */
    int maximize, relative;
};

/* The probability of branch j. */
static __device__ __forceinline__ double branch_prob(const vi_view &v, uint32_t j)
{
    return v.prob_index ? __ldg(v.prob + v.prob_index[j]) : v.prob[j];
}

#endif
