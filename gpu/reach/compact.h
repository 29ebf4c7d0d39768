/*
 * compact.h - the maybe subsystem of a reachability query compacted on the
 * host for the GPU (internal to gpu/reach/; compact.cu): the layout that
 * iterate.cu uploads and that system.cuh's vi_view reads on the device.
 */
#ifndef GPU_REACH_COMPACT_H
#define GPU_REACH_COMPACT_H

#include <stdint.h>
#include <stdlib.h>

#include "csr.h"
#include "reach.h"
#include "system.cuh"

/* Probabilities become a dictionary (u16 index per branch, a table of the
 * distinct values) when a system has at most this many distinct ones:
 * PRISM's models have a handful (coin6_4's maybe states: 2), which cuts a
 * branch from 12 to 6 bytes.  Otherwise every branch keeps its f64. */
#define VI_DICTIONARY_MAX 65536u

/*
 * The system as the iteration kernels read it.  Slots [0, nm) are the maybe
 * states (fixed[s] == 0) in the model's order; slots [nm, nm + nf) the fixed
 * successors whose bounds are not both 0, with their bounds, never written;
 * slot nm + nf is 0 (the successor of a choice whose branches all lead to
 * states of bounds 0).  Branches into fixed states with l = u = 0 add nothing
 * and are dropped (in the whole system: every transition into a Prob0
 * state).  Two layouts of the choices: choice words (above; words = true),
 * read by the kernels whose lanes take whole choices, or, for long choices
 * (a warp per choice), choice[k] the first branch of choice k (CSR, mc + 1
 * entries).  Offsets are u32: 2^32 choices or 2^31 kept branches or more are
 * CSR_ERR_TOO_LARGE.
 */
struct compact_system {
    uint64_t nm = 0, nf = 0, mc = 0, mb = 0, np = 0; /* maybe slots, fixed slots, choices, branches, probabilities */
    uint64_t dictionary_max = VI_DICTIONARY_MAX;     /* the tests lower it (CSR_TEST_VI_DICTIONARY_MAX) */
    bool dictionary = false, words = false;
    bool fixed_exact = true; /* every kept fixed slot has lower == upper (REACH_PI may run) */
    uint32_t *slot_state = nullptr;  /* [slots()] the model's state of each slot (UINT32_MAX: the zero slot) */
    uint32_t *state_first = nullptr; /* [nm + 1] first choice of each maybe slot */
    uint32_t *choice = nullptr;      /* [mc + 1] choice words, or first branches */
    uint32_t *target = nullptr;      /* [mb] the successor's slot (| VI_LAST_BRANCH with words) */
    uint16_t *prob_index = nullptr;  /* [mb] index into table (dictionary) */
    double *prob = nullptr;          /* [mb] each branch's probability (no dictionary) */
    double *table = nullptr;         /* [np] the distinct probabilities (dictionary) */
    uint32_t *mec = nullptr;         /* [nm] MEC of each maybe slot or REACH_NO_MEC (Pmax II) */
    uint8_t *leaving = nullptr;      /* [mc] whether the choice leaves its state's MEC (Pmax II) */
    double *reward = nullptr;        /* [mc] each choice's reward (expected rewards), NULL: probabilities */
    uint8_t *near_fixed = nullptr;   /* [nm] whether a transition of the slot's state enters a fixed state
                                        (dropped or not): level 1 of the sweep classes */
    vi_bounds *bounds = nullptr;     /* [slots()] */
    uint64_t slots() const { return nm + nf + 1; }
    compact_system() = default;
    compact_system(const compact_system &) = delete;
    compact_system &operator=(const compact_system &) = delete;
    ~compact_system()
    {
        void *all[] = {slot_state, state_first, choice, target, prob_index, prob, table, mec, leaving, reward,
                       near_fixed, bounds};
        for (void *p : all)
            free(p);
    }
};

/*
 * cs from system y and its bounds (f64[n] each), with choice words unless
 * rows, and the MEC arrays when mecs; slot_of: scratch u32[n], needed:
 * scratch u8[n].  Parallel over ranges of states (format/parallel.h;
 * CSR_TEST_GRAIN makes small systems take that path too).  Errors:
 * CSR_ERR_NOMEM, CSR_ERR_TOO_LARGE (status says so).
 */
int compact_build(const reach_system *y, const double *lower, const double *upper, bool mecs, bool rows,
                  compact_system *cs, uint32_t *slot_of, uint8_t *needed, csr_status *status);

#endif
