/*
 * resident.h - the engine's model on the device for a whole run (internal
 * to gpu/reach/): the model's graph, its transpose and the sets of the
 * Prob0/Prob1 searches, planned and allocated once (gpu/common/memory.h's
 * arena: the plan is what is allocated), uploaded once; the probabilities
 * added the first time a step-bounded query needs them.  prob01.cu runs
 * Prob0/Prob1 and the MECs of the maybe states on it, bounded.cu the
 * step-bounded iteration.
 */
#ifndef GPU_REACH_RESIDENT_H
#define GPU_REACH_RESIDENT_H

#include <stdint.h>

#include "csr.h"
#include "mec.h"
#include "memory.h"
#include "model.h"
#include "reach.h"
#include "worklist.h"

/*
 * Each closure of Prob0/Prob1 is a backward search over the transpose of the
 * model (built on the GPU, with each entry's choice): every state that joins
 * visits its predecessors once, so a closure costs O(t) work.  The joined
 * states go through a worklist (gpu/common/worklist.h) drained by one
 * persistent kernel, asynchronously: a closure's result does not depend on
 * the order in which states join, and a chain of joins costs no grid barrier
 * or host round trip per link (coin6_4's Pmax: 4,894 levels took 0.20 s one
 * launch and one 4-byte read a level).  With `levels` (or where the kernel
 * cannot be resident) the search goes level by level, a launch each; a sweep
 * over all states per level cost more still (coin6_4's Prob1E: 3,350 sweeps,
 * 0.40 s).  How a predecessor s (allowed, not yet in) joins through an
 * entry of its choice k:
 *   JOIN_ANY:    at once (some transition enters `in`);
 *   JOIN_ALL:    when the last of its choices gets its first transition into
 *                `in` (a per-state count of choices still outside, a
 *                per-choice bit);
 *   JOIN_INSIDE: when k stays inside `u` (all of k's successors are in u).
 */
enum { JOIN_ANY = 0, JOIN_ALL = 1, JOIN_INSIDE = 2 };

struct prob01_device {
    uint64_t n = 0, c = 0;
    gpu::device_model model; /* the model's graph (no interleaved segments) */
    const uint64_t *sc = nullptr, *ct = nullptr; /* model's state_choices, choice_transitions */
    const uint32_t *tg = nullptr;                /* model's targets */
    gpu::graph_transpose tr;
    uint8_t *allowed = nullptr;    /* [n] may join */
    uint32_t *in = nullptr;        /* [n] joined (0/1; u32 for atomicExch) */
    uint32_t *u = nullptr;         /* [n] Prob1E: the candidate set */
    uint32_t *remaining = nullptr; /* [n] JOIN_ALL: choices without a transition into in */
    uint32_t *choice_bits = nullptr; /* [c/32 + 1] JOIN_ALL: entered; JOIN_INSIDE: stays in u */
    uint32_t *level = nullptr, *next = nullptr; /* [n] the frontier lists; level: the worklist's slots */
    unsigned *counter = nullptr;   /* [2]: the next level's size, a change flag */
    unsigned long long *queue_counters = nullptr; /* [WL_WORDS] the worklist over level */
    unsigned drain_grid = 0;       /* blocks of prob01_drain; 0: level by level */
    uint8_t *target = nullptr;     /* [n] the query's target flags */
    uint8_t *bytes = nullptr;      /* [n] u8 copy of a set for the host */
    void plan(gpu::arena &a, uint64_t n_, uint64_t c_, uint64_t t_)
    {
        n = n_;
        c = c_;
        model.plan(a, gpu::model_shape{n_, c_, t_, 0, 0});
        sc = model.state_choices;
        ct = model.choice_transitions;
        tg = model.targets;
        tr.plan(a, n, t_, true);
        allowed = a.take<uint8_t>(n);
        in = a.take<uint32_t>(n);
        u = a.take<uint32_t>(n);
        remaining = a.take<uint32_t>(n);
        choice_bits = a.take<uint32_t>(c / 32 + 1);
        level = a.take<uint32_t>(n);
        next = a.take<uint32_t>(n);
        counter = a.take<unsigned>(2);
        queue_counters = a.take<unsigned long long>(gpu::WL_WORDS);
        target = a.take<uint8_t>(n);
        bytes = a.take<uint8_t>(n);
    }
};

/* The resident model: the arena that holds d, and the probabilities. */
struct resident_model {
    prob01_device d;
    gpu::arena arena;
    gpu::device_array<double> probabilities; /* [t], once a step-bounded query asks */
    uint64_t bytes = 0;                      /* the arena's, and the probabilities' once there */
};

/*
 * The model m on the device with its transpose and the searches' sets (one
 * allocation, measured by d.plan), the drain's grid unless levels.
 * *out: a new resident_model (delete it with resident_close).  Errors:
 * CSR_ERR_NOMEM (device memory: nothing is left allocated), CSR_ERR_DEVICE.
 */
int resident_open(const csr_model *m, int levels, resident_model **out, csr_status *status);
void resident_close(resident_model *r);

/*
 * Prob0/Prob1 of q on r (the sets of ref_reach_prob01): cls u8[n]; *sweeps:
 * the searches (drained) or the levels of all searches (level by level).
 * mec_host (u32[n], maximising queries only, not level by level; NULL: the
 * nested fixpoint): Prob1E by the MEC quotient (de Alfaro 1997, ch. 3), and
 * the MEC ids of the maybe states (the smallest state, GPU_MEC_NONE
 * elsewhere) into mec_host (mo: how they are found, ms: their figures
 * added).  Device memory beyond r: the MEC decomposition's (mec_live.h) and
 * 25n bytes.  Errors: CSR_ERR_NOMEM (then take the nested fixpoint and the
 * MECs apart), CSR_ERR_DEVICE.
 */
int resident_prob01(resident_model &r, const reach_query *q, uint8_t *cls, uint64_t *sweeps,
                    const gpu_mec_options *mo, gpu_mec_stats *ms, uint32_t *mec_host, csr_status *status);

/*
 * The MECs of the maybe states (cls u8[n] == REACH_MAYBE) on r: the sub-MDP
 * of the maybe states with the choices whose successors all are and, where
 * choice_reward (host f64[c]) is given, whose reward is 0 (the zero-reward
 * MECs of Rmin and of reward bounds' epochs, as reach_maybe_graph keeps
 * them) (mec_live.h); mec_host
 * u32[n] as resident_prob01's.  Device memory beyond r: the MEC
 * decomposition's, 4n bytes and 5c with choice_reward; host memory c bytes.
 * Errors: CSR_ERR_NOMEM, CSR_ERR_DEVICE.
 */
int resident_maybe_mecs(resident_model &r, const uint8_t *cls, const double *choice_reward, const gpu_mec_options *mo,
                        gpu_mec_stats *ms, uint32_t *mec_host, csr_status *status);

/*
 * ref_reach_bounded on r (the probabilities uploaded the first time): one
 * Jacobi step a launch (a thread per state, grid-stride), the same
 * operations in the same order per state as the CPU, so the same values.
 * Device memory beyond r: 8t once, 17n per call.  Errors: CSR_ERR_NOMEM,
 * CSR_ERR_DEVICE.
 */
int resident_bounded(resident_model &r, const csr_model *m, const reach_query *q, uint64_t steps, double *values,
                     csr_status *status);

#endif
