/*
 * reach_vi.cu - Prob0/Prob1 and interval / value iteration on the GPU
 * (reach_vi.h; Berger 2014, chapter 3; the algorithms of ref/reach.h).
 */
#include <cub/cub.cuh>
#include <math.h>
#include <math_constants.h>
#include <memory>
#include <new>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "graph.h"
#include "hugepages.h"
#include "launch.h"
#include "mec.h"
#include "mec/mec_live.h"
#include "memory.h"
#include "model.h"
#include "parallel.h"
#include "reach_compact.cuh"
#include "reach_pi.h"
#include "reach_vi.h"
#include "ref.h"
#include "timer.h"
#include "worklist.h"

using gpu::device_array;
using gpu::grid_for;
using gpu::thread_count;
using gpu::thread_index;

/* ---- Prob0 / Prob1 by backward search ----------------------------------------- */

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

static __device__ __forceinline__ bool bit_set(uint32_t *bits, uint64_t k)
{
    uint32_t mask = 1u << (k & 31);
    return atomicOr(&bits[k >> 5], mask) & mask; /* whether it was set before */
}

/* The states with in[s] into the level list (order irrelevant). */
static __global__ void prob01_seed(uint64_t n, const uint32_t *__restrict__ in, uint32_t *level, unsigned *count)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        if (in[s])
            level[atomicAdd(count, 1u)] = (uint32_t)s;
}

/* What a closure's search reads and writes (device pointers of prob01_device). */
struct prob01_search {
    const uint64_t *first;
    const uint32_t *source, *choice;
    const uint8_t *allowed;
    uint32_t *in, *remaining, *choice_bits;
    int mode;
};

/* The predecessors s[j] of a state through its transpose entries e + j
 * (those below end, j < kJoinBatch) that join `in` by the rule of the
 * closure's mode, each state at most once: bit j of the result (they are
 * then marked in).  The loads, then the atomics of the rule, of the whole
 * batch are in flight together: one predecessor at a time, each pushed on
 * its own, coin6_4's Prob0/Prob1 took 62-64 ms for Pmin and 87-94 ms for
 * Pmax, against 49-51 and 71-81 ms (drained, H100).  A state that two
 * choices of one batch bring to JOIN_ALL's count 0 has it taken once more;
 * the count is this closure's and read no more. */
constexpr int kJoinBatch = 8;
static __device__ __forceinline__ unsigned join_batch(const prob01_search &P, uint64_t e, uint64_t end,
                                                      uint32_t (&s)[kJoinBatch])
{
    uint32_t k[kJoinBatch];
    bool may[kJoinBatch];
    gpu::load_transpose_batch(P.source, P.choice, e, end, s, k, may);
#pragma unroll
    for (int j = 0; j < kJoinBatch; j++)
        may[j] = may[j] && P.allowed[s[j]] && !*(volatile uint32_t *)&P.in[s[j]];
    unsigned joined = 0;
    if (P.mode == JOIN_ALL) {
#pragma unroll
        for (int j = 0; j < kJoinBatch; j++)
            may[j] = may[j] && !bit_set(P.choice_bits, k[j]);
#pragma unroll
        for (int j = 0; j < kJoinBatch; j++)
            if (may[j] && atomicSub(&P.remaining[s[j]], 1u) == 1u)
                joined |= 1u << j;
    } else {
#pragma unroll
        for (int j = 0; j < kJoinBatch; j++)
            if (may[j] && (P.mode != JOIN_INSIDE || (P.choice_bits[k[j] >> 5] >> (k[j] & 31) & 1u)) &&
                atomicExch(&P.in[s[j]], 1u) == 0u)
                joined |= 1u << j;
    }
#pragma unroll
    for (int j = 0; j < kJoinBatch; j++)
        if (joined >> j & 1u)
            P.in[s[j]] = 1u;
    return joined;
}

/* One level of the backward search: the predecessors of the level's states
 * that join go to next. */
static __global__ void prob01_expand(prob01_search P, const uint32_t *__restrict__ level, unsigned size,
                                     uint32_t *next, unsigned *count)
{
    for (uint64_t i = thread_index(); i < size; i += thread_count()) {
        const uint32_t v = level[i];
        const uint64_t end = P.first[v + 1];
        for (uint64_t e = P.first[v]; e < end; e += kJoinBatch) {
            uint32_t s[kJoinBatch];
            const unsigned joined = join_batch(P, e, end, s);
#pragma unroll
            for (int j = 0; j < kJoinBatch; j++)
                if (joined >> j & 1u)
                    next[atomicAdd(count, 1u)] = s[j];
        }
    }
}

/* The whole search asynchronously: each state taken from the worklist
 * pushes the predecessors that join (grid: all blocks resident), a batch's
 * together. */
static __global__ void __launch_bounds__(256) prob01_drain(prob01_search P, gpu::worklist q)
{
    gpu::worklist_drain(q, [&](uint32_t v, const gpu::push_target &out) {
        const uint64_t end = P.first[v + 1];
        for (uint64_t e = P.first[v]; e < end; e += kJoinBatch) {
            uint32_t s[kJoinBatch];
            gpu::worklist_push_batch(out, s, join_batch(P, e, end, s));
        }
    });
}

/* JOIN_INSIDE: bit k set when every successor of choice k is in u. */
static __global__ void prob01_stays(uint64_t c, const uint64_t *__restrict__ ct, const uint32_t *__restrict__ tg,
                                    const uint32_t *__restrict__ u, uint32_t *choice_bits)
{
    for (uint64_t w = thread_index(); w < c / 32 + 1; w += thread_count()) {
        uint32_t word = 0;
        for (uint64_t k = w * 32; k < c && k < w * 32 + 32; k++) {
            bool stays = true;
            for (uint64_t j = ct[k]; j < ct[k + 1] && stays; j++)
                stays = u[tg[j]] != 0;
            word |= (uint32_t)stays << (k & 31);
        }
        choice_bits[w] = word;
    }
}

/* JOIN_ALL: each state's count of choices. */
static __global__ void prob01_count_choices(uint64_t n, const uint64_t *__restrict__ sc, uint32_t *remaining)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        remaining[s] = (uint32_t)(sc[s + 1] - sc[s]);
}

/* in := target (as 0/1 words). */
static __global__ void prob01_from_flags(uint64_t n, const uint8_t *__restrict__ flags, int negate, uint32_t *in)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        in[s] = negate ? !flags[s] : flags[s] != 0;
}

/* Prob1E's outer step: u := u and in; counter[1] set when u shrank. */
static __global__ void prob01_shrink(uint64_t n, const uint32_t *__restrict__ in, uint32_t *u, unsigned *changed)
{
    int shrank = 0;
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        if (u[s] && !in[s]) {
            u[s] = 0;
            shrank = 1;
        }
    if (__syncthreads_or(shrank) && threadIdx.x == 0)
        *changed = 1;
}

/* A set of words as host bytes. */
static __global__ void prob01_to_bytes(uint64_t n, const uint32_t *__restrict__ set, uint8_t *bytes)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        bytes[s] = set[s] != 0;
}

/* allowed[s]: not a target, not avoided (avoid NULL: none), with a choice
 * (as ref_reach_prob01). */
static __global__ void prob01_allowed(uint64_t n, const uint64_t *__restrict__ sc, const uint8_t *__restrict__ target,
                                      const uint8_t *__restrict__ avoid, uint8_t *allowed)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        allowed[s] = !target[s] && !(avoid && avoid[s]) && sc[s + 1] > sc[s];
}

/*
 * Prob1E by the MEC quotient (Pmax = 1), one search instead of the nested
 * fixpoint: with r = Prob0A's complement (the states from which some
 * scheduler reaches the target, the targets among them), collapse each MEC
 * of the sub-MDP of r minus the targets into one node whose choices are its
 * states' choices that leave it.  Apart from the targets and the states
 * outside r, that quotient has no end component, so under every scheduler
 * a run ends in one of them with probability 1, and Pmax = 1 exactly where
 * some scheduler never enters a state outside r: the states outside
 * Prob1E are the least set B holding the states outside r and every node
 * (not a target) each of whose choices has a successor in B (de Alfaro
 * 1997, ch. 3; Baier & Katoen, ch. 10.6: Pmax is preserved by the MEC
 * quotient).  A backward search: a choice counts once, at its first
 * transition into B (its bit), a node joins B when its count of leaving
 * choices reaches 0, and a MEC joins with all its states at once.  The MECs
 * found are those of the maybe states too (each MEC lies wholly in Prob1E
 * or wholly outside), so gpu-vi's interval iteration needs no second
 * decomposition.
 */
struct quotient_search {
    const uint64_t *first;           /* the transpose (with each entry's choice) */
    const uint32_t *source, *choice;
    const uint8_t *live;             /* r minus the targets: the states that may join B */
    const uint32_t *mec;             /* smallest state of the MEC, GPU_MEC_NONE */
    const uint32_t *member_first, *member_end, *members; /* MEC m's states: members[member_first[m] ..
                                                              member_end[m]) */
    uint32_t *bad, *remaining, *choice_bits; /* B; leaving choices not yet hit, per node; hit or inside a MEC */
};

/* live[s] = s in r (bad, as the JOIN_ANY closure left it) and not a target. */
static __global__ void quotient_live(uint64_t n, const uint32_t *__restrict__ r, const uint8_t *__restrict__ target,
                                     uint8_t *live)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        live[s] = r[s] && !target[s];
}

/* Each live state's choices: one whose successors all lie in its MEC is
 * inside it (its bit set: it never counts); the others are counted for the
 * state's node (its MEC, else itself). */
static __global__ void quotient_choices(uint64_t n, const uint64_t *__restrict__ sc, const uint64_t *__restrict__ ct,
                                        const uint32_t *__restrict__ tg, const uint8_t *__restrict__ live,
                                        const uint32_t *__restrict__ mec, uint32_t *remaining, uint32_t *choice_bits)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        if (!live[s])
            continue;
        const uint32_t m = mec[s];
        unsigned leaving = 0;
        for (uint64_t k = sc[s]; k < sc[s + 1]; k++) {
            bool inside = m != GPU_MEC_NONE;
            for (uint64_t j = ct[k]; j < ct[k + 1] && inside; j++)
                inside = mec[tg[j]] == m;
            if (inside)
                bit_set(choice_bits, k);
            else
                leaving++;
        }
        if (leaving)
            atomicAdd(&remaining[m == GPU_MEC_NONE ? s : m], leaving);
    }
}

/* Where each MEC's states lie in the sorted members (key: the MEC). */
static __global__ void quotient_members(uint64_t n, const uint32_t *__restrict__ key, uint32_t *member_first,
                                        uint32_t *member_end)
{
    for (uint64_t i = thread_index(); i < n; i += thread_count()) {
        const uint32_t m = key[i];
        if (m == GPU_MEC_NONE)
            continue;
        if (i == 0 || key[i - 1] != m)
            member_first[m] = (uint32_t)i;
        if (i + 1 == n || key[i + 1] != m)
            member_end[m] = (uint32_t)(i + 1);
    }
}

static __global__ void iota(uint64_t n, uint32_t *x)
{
    for (uint64_t i = thread_index(); i < n; i += thread_count())
        x[i] = (uint32_t)i;
}

/* B's seeds, in place of r: the states outside r, and (never in a model
 * whose r is right: such a node reaches no target) a live node without a
 * leaving choice. */
static __global__ void quotient_seed(uint64_t n, const uint8_t *__restrict__ live, const uint32_t *__restrict__ mec,
                                     const uint32_t *__restrict__ remaining, uint32_t *bad)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        bad[s] = !bad[s] || (live[s] && remaining[mec[s] == GPU_MEC_NONE ? s : mec[s]] == 0);
}

/* The search for B over the worklist: each state taken hits the choices
 * into it; a node whose last leaving choice is hit joins B, a MEC with all
 * its states (one thread pushes them, one atomic for the slots). */
static __global__ void __launch_bounds__(256) quotient_drain(quotient_search P, gpu::worklist q)
{
    gpu::worklist_drain(q, [&](uint32_t v, const gpu::push_target &out) {
        for (uint64_t e = P.first[v]; e < P.first[v + 1]; e++) {
            const uint32_t s = P.source[e];
            if (!P.live[s] || *(volatile uint32_t *)&P.bad[s] || bit_set(P.choice_bits, P.choice[e]))
                continue;
            const uint32_t m = P.mec[s];
            if (atomicSub(&P.remaining[m == GPU_MEC_NONE ? s : m], 1u) != 1u)
                continue;
            if (m == GPU_MEC_NONE) {
                P.bad[s] = 1;
                gpu::worklist_push(out, s);
                continue;
            }
            const uint32_t b = P.member_first[m], end = P.member_end[m];
            for (uint32_t i = b; i < end; i++)
                P.bad[P.members[i]] = 1;
            const unsigned long long at = atomicAdd(out.count, (unsigned long long)(end - b));
            for (uint32_t i = b; i < end; i++)
                *(volatile uint32_t *)&out.at[at + (i - b)] = P.members[i];
        }
    });
}

/* The closure of d.in (as set before) by mode; *sweeps counts its levels
 * (by levels) or 1 (drained). */
static int closure(prob01_device &d, int mode, uint64_t *sweeps, csr_status *status)
{
    const uint64_t n = d.n;
    if (mode == JOIN_ALL) {
        prob01_count_choices<<<grid_for(n, 256), 256>>>(n, d.sc, d.remaining);
        CUDA_TRY_LAUNCH();
        CUDA_TRY(cudaMemsetAsync(d.choice_bits, 0, (d.c / 32 + 1) * sizeof(uint32_t)));
    }
    if (d.drain_grid) /* the slots past the seeds must read as empty */
        CUDA_TRY(cudaMemsetAsync(d.level, 0xff, n * sizeof(uint32_t)));
    CUDA_TRY(cudaMemsetAsync(d.counter, 0, sizeof(unsigned)));
    prob01_seed<<<grid_for(n, 256), 256>>>(n, d.in, d.level, d.counter);
    CUDA_TRY_LAUNCH();
    unsigned size = 0;
    CUDA_TRY(cudaMemcpy(&size, d.counter, sizeof size, cudaMemcpyDeviceToHost));
    const prob01_search P = {d.tr.first, d.tr.source, d.tr.choice, d.allowed, d.in, d.remaining, d.choice_bits, mode};
    if (d.drain_grid) {
        if (size) {
            unsigned long long c[gpu::WL_WORDS] = {};
            c[gpu::WL_TAIL] = size;
            CUDA_TRY(cudaMemcpyAsync(d.queue_counters, c, sizeof c, cudaMemcpyHostToDevice));
            prob01_drain<<<d.drain_grid, 256>>>(P, gpu::worklist{d.level, d.queue_counters, n});
            CUDA_TRY_LAUNCH();
        }
        (*sweeps)++;
        return CSR_OK;
    }
    uint32_t *level = d.level, *next = d.next;
    while (size) {
        CUDA_TRY(cudaMemsetAsync(d.counter, 0, sizeof(unsigned)));
        prob01_expand<<<grid_for(size, 256), 256>>>(P, level, size, next, d.counter);
        CUDA_TRY_LAUNCH();
        CUDA_TRY(cudaMemcpy(&size, d.counter, sizeof size, cudaMemcpyDeviceToHost));
        uint32_t *swap = level;
        level = next;
        next = swap;
        (*sweeps)++;
    }
    return CSR_OK;
}

/* A device set (words) to host bytes. */
static int set_to_host(prob01_device &d, const uint32_t *set, uint8_t *host, csr_status *status)
{
    prob01_to_bytes<<<grid_for(d.n, 256), 256>>>(d.n, set, d.bytes);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaMemcpy(host, d.bytes, d.n, cudaMemcpyDeviceToHost));
    return CSR_OK;
}

/* Prob1E by the MEC quotient (quotient_search above).  Before: d.in = r.
 * After: d.in = B (the states outside Prob1E); mec_host (u32[n]): the MEC
 * ids of r minus the targets (GPU_MEC_NONE elsewhere).  Device memory:
 * mec_decompose_live's, then 25n bytes and CUB's sort space.  Errors:
 * CSR_ERR_NOMEM (device memory, the drain cannot be resident, or 2^31
 * states or more: the caller then takes the nested fixpoint), CSR_ERR_DEVICE. */
static int prob1e_quotient(prob01_device &d, const gpu_mec_options *mo, uint64_t *sweeps, gpu_mec_stats *ms,
                           uint32_t *mec_host, csr_status *status)
{
    const uint64_t n = d.n;
    if (!d.drain_grid || n > (uint64_t)INT32_MAX) /* CUB's sort below counts items in an int */
        return CSR_ERR_NOMEM;
    uint8_t *live = nullptr;
    uint32_t *mec = nullptr, *key = nullptr, *members = nullptr, *index = nullptr, *member_first = nullptr,
             *member_end = nullptr;
    void *sort_temp = nullptr;
    size_t sort_bytes = 0;
    gpu::arena arena;
    TRY(gpu::plan_and_allocate(arena,
                               [&](gpu::arena &a) {
                                   live = a.take<uint8_t>(n);
                                   mec = a.take<uint32_t>(n);
                                   key = a.take<uint32_t>(n);
                                   members = a.take<uint32_t>(n);
                                   index = a.take<uint32_t>(n);
                                   member_first = a.take<uint32_t>(n);
                                   member_end = a.take<uint32_t>(n);
                                   sort_bytes = 0;
                                   cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, mec, key, index, members,
                                                                   (int)n);
                                   sort_temp = a.take<unsigned char>(sort_bytes);
                               },
                               NULL, status));
    quotient_live<<<grid_for(n, 256), 256>>>(n, d.in, d.target, live);
    CUDA_TRY_LAUNCH();
    TRY(gpu::mec_decompose_live(mo, d.model, live, mec, ms, status));
    CUDA_TRY(cudaMemsetAsync(d.remaining, 0, n * sizeof(uint32_t)));
    CUDA_TRY(cudaMemsetAsync(d.choice_bits, 0, (d.c / 32 + 1) * sizeof(uint32_t)));
    quotient_choices<<<grid_for(n, 256), 256>>>(n, d.sc, d.ct, d.tg, live, mec, d.remaining, d.choice_bits);
    CUDA_TRY_LAUNCH();
    iota<<<grid_for(n, 256), 256>>>(n, index);
    CUDA_TRY_LAUNCH();
    size_t bytes = sort_bytes;
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(sort_temp, bytes, mec, key, index, members, (int)n));
    quotient_members<<<grid_for(n, 256), 256>>>(n, key, member_first, member_end);
    CUDA_TRY_LAUNCH();
    quotient_seed<<<grid_for(n, 256), 256>>>(n, live, mec, d.remaining, d.in);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaMemsetAsync(d.level, 0xff, n * sizeof(uint32_t))); /* the slots past the seeds read as empty */
    CUDA_TRY(cudaMemsetAsync(d.counter, 0, sizeof(unsigned)));
    prob01_seed<<<grid_for(n, 256), 256>>>(n, d.in, d.level, d.counter);
    CUDA_TRY_LAUNCH();
    unsigned size = 0;
    CUDA_TRY(cudaMemcpy(&size, d.counter, sizeof size, cudaMemcpyDeviceToHost));
    if (size) {
        unsigned long long c[gpu::WL_WORDS] = {};
        c[gpu::WL_TAIL] = size;
        CUDA_TRY(cudaMemcpyAsync(d.queue_counters, c, sizeof c, cudaMemcpyHostToDevice));
        const quotient_search P = {d.tr.first, d.tr.source, d.tr.choice, live,       mec,
                                   member_first, member_end, members,   d.in,        d.remaining,
                                   d.choice_bits};
        quotient_drain<<<d.drain_grid, 256>>>(P, gpu::worklist{d.level, d.queue_counters, n});
        CUDA_TRY_LAUNCH();
    }
    (*sweeps)++;
    CUDA_TRY(cudaMemcpy(mec_host, mec, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    return CSR_OK;
}

/* h: host scratch of n bytes.  mec_host (u32[n], maximising queries only;
 * NULL: the nested fixpoint): Prob1E by the MEC quotient, and the MEC ids
 * of r minus the targets into mec_host (mo: how they are found). */
static int prob01_run(const csr_model *m, const reach_query *q, int levels, uint8_t *cls, uint64_t *sweeps,
                      uint8_t *h, const gpu_mec_options *mo, gpu_mec_stats *ms, uint32_t *mec_host,
                      csr_status *status)
{
    const uint64_t n = m->num_states, c = m->num_choices, t = m->num_transitions;
    prob01_device d;
    gpu::arena arena;
    TRY(gpu::plan_and_allocate(arena, [&](gpu::arena &a) { d.plan(a, n, c, t); }, NULL, status));
    d.drain_grid = levels ? 0 : gpu::resident_blocks((const void *)prob01_drain, 256, 0);
    TRY(d.model.upload(m, status));
    TRY(d.tr.build(n, d.sc, d.ct, d.tg, status));
    CUDA_TRY(cudaMemcpy(d.target, q->target, n, cudaMemcpyHostToDevice));
    if (q->avoid)
        CUDA_TRY(cudaMemcpy(d.bytes, q->avoid, n, cudaMemcpyHostToDevice));
    prob01_allowed<<<grid_for(n, 256), 256>>>(n, d.sc, d.target, q->avoid ? d.bytes : NULL, d.allowed);
    CUDA_TRY_LAUNCH();
    prob01_from_flags<<<grid_for(n, 256), 256>>>(n, d.target, 0, d.in);
    CUDA_TRY_LAUNCH();
    uint8_t *r = cls; /* host copy of the first set */
    if (q->maximize) {
        /* Prob0A's complement r (some scheduler reaches the target), then
         * Prob1E by the nested fixpoint: u := r; repeat in := the states
         * with a choice inside u that enters in (from the targets); u := u
         * and in; until u is unchanged. */
        TRY(closure(d, JOIN_ANY, sweeps, status));
        TRY(set_to_host(d, d.in, r, status));
        if (mec_host) {
            TRY(prob1e_quotient(d, mo, sweeps, ms, mec_host, status));
            TRY(set_to_host(d, d.in, h, status)); /* B */
            for (uint64_t s = 0; s < n; s++)
                cls[s] = !r[s] ? REACH_NO : h[s] ? REACH_MAYBE : REACH_YES;
            return CSR_OK;
        }
        CUDA_TRY(cudaMemcpy(d.u, d.in, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
        for (;;) {
            prob01_stays<<<grid_for(c / 32 + 1, 256), 256>>>(c, d.ct, d.tg, d.u, d.choice_bits);
            CUDA_TRY_LAUNCH();
            prob01_from_flags<<<grid_for(n, 256), 256>>>(n, d.target, 0, d.in);
            CUDA_TRY_LAUNCH();
            TRY(closure(d, JOIN_INSIDE, sweeps, status));
            CUDA_TRY(cudaMemsetAsync(d.counter + 1, 0, sizeof(unsigned)));
            prob01_shrink<<<grid_for(n, 256), 256>>>(n, d.in, d.u, d.counter + 1);
            CUDA_TRY_LAUNCH();
            unsigned shrank = 0;
            CUDA_TRY(cudaMemcpy(&shrank, d.counter + 1, sizeof shrank, cudaMemcpyDeviceToHost));
            if (!shrank)
                break;
        }
        TRY(set_to_host(d, d.u, h, status));
        for (uint64_t s = 0; s < n; s++)
            cls[s] = h[s] ? REACH_YES : r[s] ? REACH_MAYBE : REACH_NO;
    } else {
        /* Prob0E's complement r (every scheduler reaches the target with
         * positive probability: every choice enters r), then Prob1A's
         * complement: the states that can enter a Prob0E state through
         * non-targets. */
        TRY(closure(d, JOIN_ALL, sweeps, status));
        TRY(set_to_host(d, d.in, r, status));
        prob01_from_flags<<<grid_for(n, 256), 256>>>(n, d.bytes, 1, d.in); /* d.bytes still holds r */
        CUDA_TRY_LAUNCH();
        for (uint64_t s = 0; s < n; s++)
            h[s] = !q->target[s];
        CUDA_TRY(cudaMemcpy(d.allowed, h, n, cudaMemcpyHostToDevice));
        TRY(closure(d, JOIN_ANY, sweeps, status));
        TRY(set_to_host(d, d.in, h, status));
        for (uint64_t s = 0; s < n; s++)
            cls[s] = !r[s] ? REACH_NO : !h[s] ? REACH_YES : REACH_MAYBE;
    }
    return CSR_OK;
}

int gpu_reach_prob01(const csr_model *m, const reach_query *q, int levels, uint8_t *cls, uint64_t *sweeps,
                     csr_status *status)
{
    const uint64_t n = m->num_states ? m->num_states : 1;
    uint8_t *h = (uint8_t *)malloc(n);
    *sweeps = 0;
    int rc = h ? prob01_run(m, q, levels, cls, sweeps, h, NULL, NULL, NULL, status) : CSR_ERR_NOMEM;
    free(h);
    return rc;
}

int gpu_reach_prob01_mecs(const csr_model *m, const reach_query *q, const gpu_mec_options *mo, uint8_t *cls,
                          uint64_t *maybe_mec, uint64_t *sweeps, gpu_mec_stats *ms, csr_status *status)
{
    const uint64_t n = m->num_states ? m->num_states : 1;
    *sweeps = 0;
    if (!q->maximize)
        return csr_fail(status, CSR_ERR_USAGE, "gpu_reach_prob01_mecs: a maximising query only");
    uint8_t *h = (uint8_t *)malloc(n);
    uint32_t *ids = (uint32_t *)malloc(n * sizeof *ids);
    int rc = h && ids ? prob01_run(m, q, 0, cls, sweeps, h, mo, ms, ids, status) : CSR_ERR_NOMEM;
    if (!rc)
        for (uint64_t s = 0; s < m->num_states; s++)
            maybe_mec[s] = cls[s] == REACH_MAYBE && ids[s] != GPU_MEC_NONE ? ids[s] : REF_NONE;
    free(h);
    free(ids);
    return rc;
}

/* ---- the maybe subsystem, compacted on the host ------------------------------ */


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

/* Open-addressing set of probabilities (bit patterns; UINT64_MAX empty: no
 * probability in (0, 1] has that pattern) with a u16 index each, and the
 * values in the order inserted.  It starts small and grows fourfold when a
 * quarter full (PRISM's models have a handful of values: a table sized for
 * VI_DICTIONARY_MAX in every task cost coin6_4's compaction some 10 ms of
 * page faults and merging on 16 threads). */
struct prob_hash {
    uint64_t *keys = nullptr;
    uint16_t *index = nullptr;
    double *values = nullptr; /* [count] in insertion order */
    uint64_t slots = 0, count = 0;
    bool full = false; /* more than VI_DICTIONARY_MAX distinct values offered */
    ~prob_hash() { release(); }
    void release()
    {
        free(keys);
        free(index);
        free(values);
        keys = nullptr;
        index = nullptr;
        values = nullptr;
    }
    bool init() { return resize(64); }
    bool resize(uint64_t want)
    {
        uint64_t *k = (uint64_t *)malloc(want * sizeof(uint64_t));
        uint16_t *ix = (uint16_t *)malloc(want * sizeof(uint16_t));
        double *v = (double *)realloc(values, (want / 4 + 1) * sizeof(double));
        if (!k || !ix || !v) {
            free(k);
            free(ix);
            if (v)
                values = v;
            return false;
        }
        values = v;
        memset(k, 0xff, want * sizeof(uint64_t));
        uint64_t *old_keys = keys;
        uint16_t *old_index = index;
        const uint64_t old_slots = slots;
        keys = k;
        index = ix;
        slots = want;
        for (uint64_t h = 0; h < old_slots; h++)
            if (old_keys[h] != UINT64_MAX) {
                uint64_t at = probe(old_keys[h]);
                keys[at] = old_keys[h];
                index[at] = old_index[h];
            }
        free(old_keys);
        free(old_index);
        return true;
    }
    /* The slot holding bits, or the empty one where it would go. */
    uint64_t probe(uint64_t bits) const
    {
        for (uint64_t h = (bits * 0x9E3779B97F4A7C15ull) >> 40;; h++) {
            uint64_t at = h & (slots - 1);
            if (keys[at] == bits || keys[at] == UINT64_MAX)
                return at;
        }
    }
    static uint64_t bits_of(double p)
    {
        uint64_t bits;
        memcpy(&bits, &p, sizeof bits);
        return bits;
    }
    /* Insert p (table: where a new value goes, or NULL); its index, -1 when
     * full, -2 when out of memory. */
    long insert(double p, double *table)
    {
        const uint64_t bits = bits_of(p);
        uint64_t at = probe(bits);
        if (keys[at] == bits)
            return index[at];
        if (count == VI_DICTIONARY_MAX) {
            full = true;
            return -1;
        }
        if (4 * (count + 1) > slots) {
            if (!resize(4 * slots))
                return -2;
            at = probe(bits);
        }
        keys[at] = bits;
        index[at] = (uint16_t)count;
        values[count] = p;
        if (table)
            table[count] = p;
        return (long)count++;
    }
    /* The index of a value inserted before. */
    uint16_t find(double p) const { return index[probe(bits_of(p))]; }
};

/* One task of the parallel compaction: the model's states [first, last). */
struct compact_task {
    const reach_system *y;
    const double *lower, *upper;
    compact_system *cs;
    uint32_t *slot_of;
    uint8_t *needed;
    const prob_hash *global; /* pass 2: the merged dictionary (NULL: none) */
    uint64_t first, last;
    uint64_t choices, branches; /* pass 1: counts; pass 2: where this task's start */
    uint64_t maybe, kept;       /* pass 1: maybe states; slots: fixed states kept; then the slot of each's first */
    prob_hash local;            /* pass 1: the distinct probabilities seen */
    bool nomem;
    bool inexact; /* pass 1: a kept branch enters a fixed state whose bounds differ */
};

/* Whether the branch into t is kept (its successor is not a fixed state of bounds 0). */
static inline bool branch_kept(const reach_system *y, const double *lower, const double *upper, uint32_t t)
{
    return !y->fixed[t] || lower[t] != 0.0 || upper[t] != 0.0;
}

/* Pass 1: count choices and branches, mark the fixed successors kept,
 * collect the distinct probabilities. */
static void *compact_count(void *arg)
{
    compact_task *k = (compact_task *)arg;
    const reach_system *y = k->y;
    k->choices = k->branches = k->maybe = 0;
    k->nomem = !k->local.init();
    k->inexact = false;
    double last_p = -1.0; /* the value inserted last: most branches repeat it */
    for (uint64_t s = k->first; s < k->last; s++) {
        if (y->fixed[s])
            continue;
        k->maybe++;
        for (uint64_t c = y->state_choices[s]; c < y->state_choices[s + 1]; c++) {
            uint64_t kept = 0;
            double only = 0.0;
            for (uint64_t j = y->choice_transitions[c]; j < y->choice_transitions[c + 1]; j++) {
                uint32_t t = y->targets[j];
                if (!branch_kept(y, k->lower, k->upper, t))
                    continue;
                if (y->fixed[t]) {
                    __atomic_store_n(&k->needed[t], 1, __ATOMIC_RELAXED);
                    k->inexact = k->inexact || k->lower[t] != k->upper[t];
                }
                kept++;
                only = y->probabilities[j];
                if (only != last_p && !k->nomem && !k->local.full) {
                    k->nomem = k->local.insert(only, NULL) == -2;
                    last_p = only;
                }
            }
            k->choices++;
            if (!k->cs->words || !(kept == 0 || (kept == 1 && only == 1.0)))
                k->branches += kept;
        }
    }
    return NULL;
}

/* Slots of the maybe states of this task's range (from k->maybe, its
 * first), and the fixed states kept among them counted into k->kept. */
static void *compact_maybe_slots(void *arg)
{
    compact_task *k = (compact_task *)arg;
    const reach_system *y = k->y;
    uint64_t slot = k->maybe, kept = 0;
    for (uint64_t s = k->first; s < k->last; s++) {
        if (!y->fixed[s])
            k->slot_of[s] = (uint32_t)slot++;
        else
            kept += k->needed[s];
    }
    k->kept = kept;
    return NULL;
}

/* Slots of the kept fixed states of this task's range (from k->kept, its
 * first), with their model states and bounds. */
static void *compact_fixed_slots(void *arg)
{
    compact_task *k = (compact_task *)arg;
    uint64_t slot = k->kept;
    for (uint64_t s = k->first; s < k->last; s++)
        if (k->needed[s]) {
            k->slot_of[s] = (uint32_t)slot;
            k->cs->slot_state[slot] = (uint32_t)s;
            k->cs->bounds[slot] = vi_bounds{k->lower[s], k->upper[s]};
            slot++;
        }
    return NULL;
}

/* Pass 2: fill this task's slots, choices and branches. */
static void *compact_fill(void *arg)
{
    compact_task *k = (compact_task *)arg;
    const reach_system *y = k->y;
    compact_system *cs = k->cs;
    const uint32_t zero = (uint32_t)(cs->nm + cs->nf);
    uint64_t kc = k->choices, kb = k->branches;
    double last_p = -1.0; /* the value looked up last, and its index */
    uint16_t last_index = 0;
    for (uint64_t s = k->first; s < k->last; s++) {
        if (y->fixed[s])
            continue;
        uint32_t i = k->slot_of[s];
        cs->slot_state[i] = (uint32_t)s;
        cs->bounds[i] = vi_bounds{k->lower[s], k->upper[s]};
        if (cs->mec)
            cs->mec[i] = y->mec[s];
        cs->state_first[i] = (uint32_t)kc;
        uint8_t near = 0; /* a transition into a fixed state, kept or not */
        for (uint64_t c = y->state_choices[s]; c < y->state_choices[s + 1]; c++, kc++) {
            if (cs->leaving)
                cs->leaving[kc] = y->leaving[c];
            if (cs->reward)
                cs->reward[kc] = y->choice_reward[c];
            uint64_t kept = 0, last_kept = 0;
            for (uint64_t j = y->choice_transitions[c]; j < y->choice_transitions[c + 1]; j++) {
                near |= y->fixed[y->targets[j]];
                if (branch_kept(y, k->lower, k->upper, y->targets[j])) {
                    kept++;
                    last_kept = j;
                }
            }
            if (cs->words && kept == 0) {
                cs->choice[kc] = VI_DETERMINISTIC | zero;
                continue;
            }
            if (cs->words && kept == 1 && y->probabilities[last_kept] == 1.0) {
                cs->choice[kc] = VI_DETERMINISTIC | k->slot_of[y->targets[last_kept]];
                continue;
            }
            cs->choice[kc] = (uint32_t)kb;
            for (uint64_t j = y->choice_transitions[c]; j < y->choice_transitions[c + 1]; j++) {
                uint32_t t = y->targets[j];
                if (!branch_kept(y, k->lower, k->upper, t))
                    continue;
                double p = y->probabilities[j];
                cs->target[kb] = k->slot_of[t] | (cs->words && j == last_kept ? VI_LAST_BRANCH : 0u);
                if (k->global) {
                    if (p != last_p) {
                        last_index = k->global->find(p);
                        last_p = p;
                    }
                    cs->prob_index[kb] = last_index;
                } else
                    cs->prob[kb] = p;
                kb++;
            }
        }
        cs->near_fixed[i] = near;
    }
    return NULL;
}

/* cs from system y and its bounds (f64[n] each), with choice words unless
 * rows; slot_of: scratch u32[n], needed: scratch u8[n].  Parallel over
 * ranges of states (parallel.h; CSR_TEST_GRAIN makes small systems take
 * that path too).  Errors: CSR_ERR_NOMEM, CSR_ERR_TOO_LARGE. */
static int compact_build(const reach_system *y, const double *lower, const double *upper, bool mecs, bool rows,
                         compact_system *cs, uint32_t *slot_of, uint8_t *needed, csr_status *status)
{
    const uint64_t n = y->num_states;
    cs->words = !rows;
    const char *test_max = getenv("CSR_TEST_VI_DICTIONARY_MAX"); /* the f64 path on models with few probabilities */
    if (test_max && strtoull(test_max, NULL, 10) < VI_DICTIONARY_MAX)
        cs->dictionary_max = strtoull(test_max, NULL, 10);
    memset(needed, 0, n);
    const unsigned tasks = parallel_tasks(y->num_transitions, parallel_grain(1u << 18));
    compact_task *task = new (std::nothrow) compact_task[tasks];
    if (!task)
        return CSR_ERR_NOMEM;
    for (unsigned i = 0; i < tasks; i++) {
        task[i].y = y;
        task[i].lower = lower;
        task[i].upper = upper;
        task[i].cs = cs;
        task[i].slot_of = slot_of;
        task[i].needed = needed;
        task[i].global = NULL;
        task[i].first = n * i / tasks;
        task[i].last = n * (i + 1) / tasks;
    }
    parallel_run(compact_count, task, sizeof *task, tasks);
    uint64_t nm = 0;
    for (unsigned i = 0; i < tasks; i++) {
        const uint64_t count = task[i].maybe;
        task[i].maybe = nm;
        nm += count;
    }
    cs->nm = nm;
    parallel_run(compact_maybe_slots, task, sizeof *task, tasks);
    uint64_t mc = 0, mb = 0;
    prob_hash global;
    bool dictionary = global.init();
    cs->table = (double *)malloc(VI_DICTIONARY_MAX * sizeof(double));
    dictionary = dictionary && cs->table;
    for (unsigned i = 0; i < tasks; i++) {
        uint64_t c = task[i].choices, b = task[i].branches;
        task[i].choices = mc;
        task[i].branches = mb;
        mc += c;
        mb += b;
        dictionary = dictionary && !task[i].nomem && !task[i].local.full;
        cs->fixed_exact = cs->fixed_exact && !task[i].inexact;
        for (uint64_t h = 0; dictionary && h < task[i].local.count; h++)
            dictionary = global.insert(task[i].local.values[h], cs->table) >= 0;
        task[i].local.release();
    }
    dictionary = dictionary && global.count <= cs->dictionary_max;
    int rc = CSR_OK;
    if (mc >= UINT32_MAX || mb >= VI_LAST_BRANCH)
        rc = csr_fail(status, CSR_ERR_TOO_LARGE,
                      "%llu choices and %llu transitions of maybe states: the GPU solver takes fewer than 2^32 "
                      "and 2^31", (unsigned long long)mc, (unsigned long long)mb);
    uint64_t nf = 0;
    for (unsigned i = 0; i < tasks; i++) {
        const uint64_t count = task[i].kept;
        task[i].kept = nm + nf;
        nf += count;
    }
    cs->nf = nf;
    cs->mc = mc;
    cs->mb = mb;
    cs->np = dictionary ? global.count : 0;
    cs->dictionary = dictionary;
    const uint64_t slots = nm + nf + 1;
    if (!rc) {
        cs->slot_state = (uint32_t *)malloc(slots * sizeof(uint32_t));
        cs->state_first = (uint32_t *)malloc((nm + 1) * sizeof(uint32_t));
        cs->choice = (uint32_t *)malloc((mc + 1) * sizeof(uint32_t));
        cs->target = (uint32_t *)malloc((mb ? mb : 1) * sizeof(uint32_t));
        if (dictionary)
            cs->prob_index = (uint16_t *)malloc((mb ? mb : 1) * sizeof(uint16_t));
        else
            cs->prob = (double *)malloc((mb ? mb : 1) * sizeof(double));
        cs->bounds = (vi_bounds *)malloc(slots * sizeof(vi_bounds));
        cs->near_fixed = (uint8_t *)malloc(nm ? nm : 1);
        if (mecs) {
            cs->mec = (uint32_t *)malloc((nm ? nm : 1) * sizeof(uint32_t));
            cs->leaving = (uint8_t *)malloc(mc ? mc : 1);
        }
        if (y->choice_reward)
            cs->reward = (double *)malloc((mc ? mc : 1) * sizeof(double));
        void *large[] = {cs->slot_state, cs->state_first, cs->choice, cs->target, cs->prob_index, cs->prob,
                         cs->bounds, cs->mec, cs->leaving, cs->reward};
        const uint64_t large_bytes[] = {4 * slots, 4 * (nm + 1), 4 * (mc + 1), 4 * mb, 2 * mb, 8 * mb, 16 * slots,
                                        4 * nm, mc, 8 * mc};
        for (size_t i = 0; i < sizeof large / sizeof *large; i++) /* filled by all tasks at once: fewer faults */
            if (large[i])
                advise_huge_pages(large[i], large_bytes[i]);
        if (!cs->slot_state || !cs->state_first || !cs->choice || !cs->target ||
            (dictionary ? !cs->prob_index : !cs->prob) || !cs->bounds || !cs->near_fixed ||
            (mecs && (!cs->mec || !cs->leaving)) || (y->choice_reward && !cs->reward))
            rc = CSR_ERR_NOMEM;
    }
    if (!rc) {
        parallel_run(compact_fixed_slots, task, sizeof *task, tasks);
        cs->slot_state[nm + nf] = UINT32_MAX;
        cs->bounds[nm + nf] = vi_bounds{0.0, 0.0};
        for (unsigned i = 0; i < tasks; i++)
            task[i].global = dictionary ? &global : NULL;
        parallel_run(compact_fill, task, sizeof *task, tasks);
        cs->state_first[nm] = (uint32_t)mc;
        cs->choice[mc] = (uint32_t)mb;
    }
    delete[] task;
    return rc;
}

/* ---- iteration kernels --------------------------------------------------------- */

/* Convergence is read by the host after every VI_BATCH-th iteration (and the
 * last): the iterations between run as one CUDA graph, no host round trip. */
#define VI_BATCH 16
#define VI_THREADS 256



static __device__ __forceinline__ double better(double a, double b, int maximize)
{
    return maximize ? fmax(a, b) : fmin(a, b);
}


static __device__ __forceinline__ double change(double newer, double older, int relative)
{
    double d = fabs(newer - older);
    return relative && d > 0.0 ? d / fmax(newer, older) : d;
}

/* The G-lane group of this thread in a grid-stride loop over nm states, and
 * the loop's trip count, the same for every lane of the grid: the shuffles
 * of best_choices need every lane of a warp, so idle groups loop too. */
template <int G> struct state_groups {
    uint64_t groups, first, trips;
    unsigned lane;
    __device__ explicit state_groups(uint64_t nm)
        : groups(thread_count() / G), first(thread_index() / G), trips((nm + groups - 1) / groups),
          lane(threadIdx.x % G)
    {
    }
};

/* sl += p * (t's lower bound) and, with BOTH, su += p * (its upper bound):
 * both from one 16-byte load. */
template <bool BOTH>
static __device__ __forceinline__ void add_successor(const vi_view &v, uint32_t t, double p, double &sl, double &su)
{
    if (BOTH) {
        const vi_bounds b = v.bounds[t];
        sl += p * b.lower;
        su += p * b.upper;
    } else {
        sl += p * v.bounds[t].lower;
    }
}

/* The best over the choices [kb, ke) of one state of sum p * lower[target]
 * (best_l, every choice) and, with BOTH, of sum p * upper[target] (best_u,
 * only the choices that leave the state's MEC when in_mec), by a group of G
 * lanes: lanes over choices (ROWS = false; choice words) or over each
 * choice's branches (ROWS = true; first branches), each choice's reward
 * added (expected rewards).  No choice gives -1 (max) or 2 (min; infinity
 * for rewards).  Every lane of the
 * warp must call it (shuffles); an idle group passes an empty range. */
template <int G, bool ROWS, bool BOTH>
static __device__ __forceinline__ void best_choices(const vi_view &v, uint32_t kb, uint32_t ke, unsigned lane,
                                                    bool in_mec, double &best_l, double &best_u)
{
    const int mx = v.maximize;
    best_l = best_u = mx ? -1.0 : v.reward ? CUDART_INF : 2.0;
    if (ROWS) {
        for (uint32_t k = kb; k < ke; k++) {
            double sl = 0.0, su = 0.0;
            for (uint32_t j = v.choice[k] + lane; j < v.choice[k + 1]; j += G) {
                add_successor<BOTH>(v, v.target[j], branch_prob(v, j), sl, su);
            }
            for (int o = G / 2; o > 0; o /= 2) {
                sl += __shfl_xor_sync(0xffffffffu, sl, o, G);
                if (BOTH)
                    su += __shfl_xor_sync(0xffffffffu, su, o, G);
            }
            if (v.reward) {
                sl += v.reward[k];
                su += v.reward[k];
            }
            best_l = better(best_l, sl, mx);
            if (BOTH && (!in_mec || v.leaving[k]))
                best_u = better(best_u, su, mx);
        }
    } else {
#pragma unroll 2
        for (uint32_t k = kb + lane; k < ke; k += G) {
            const uint32_t word = v.choice[k];
            double sl = v.reward ? v.reward[k] : 0.0, su = sl;
            if (word & VI_DETERMINISTIC) {
                add_successor<BOTH>(v, word & VI_SLOT_MASK, 1.0, sl, su); /* 1.0 * x is x */
            } else {
                for (uint32_t j = word;; j++) {
                    const uint32_t tt = v.target[j];
                    add_successor<BOTH>(v, tt & VI_SLOT_MASK, branch_prob(v, j), sl, su);
                    if (tt & VI_LAST_BRANCH)
                        break;
                }
            }
            best_l = better(best_l, sl, mx);
            if (BOTH && (!in_mec || v.leaving[k]))
                best_u = better(best_u, su, mx);
        }
        for (int o = G / 2; o > 0; o /= 2) {
            best_l = better(best_l, __shfl_xor_sync(0xffffffffu, best_l, o, G), mx);
            if (BOTH)
                best_u = better(best_u, __shfl_xor_sync(0xffffffffu, best_u, o, G), mx);
        }
    }
}

struct max_of {
    __device__ __forceinline__ double operator()(double a, double b) const { return fmax(a, b); }
};

/* The block's largest difference and whether a bound changed into the
 * iteration's vi_check: one atomic per block.  Every thread must call it. */
static __device__ __forceinline__ void report_block(vi_check *check, double difference, int changed,
                                                    unsigned flags = 0)
{
    using reduce = cub::BlockReduce<double, VI_THREADS>;
    __shared__ typename reduce::TempStorage temp;
    double d = reduce(temp).Reduce(difference, max_of());
    int any = __syncthreads_or(changed);
    int rose = __syncthreads_or(flags & VI_UPPER_ROSE), crossed = __syncthreads_or(flags & VI_UPPER_CROSSED);
    if (threadIdx.x == 0) {
        if (d > 0.0)
            atomicMax(&check->difference_bits, (unsigned long long)__double_as_longlong(d));
        if (any)
            check->changed = 1;
        if (rose || crossed)
            atomicOr(&check->flags, (rose ? VI_UPPER_ROSE : 0u) | (crossed ? VI_UPPER_CROSSED : 0u));
    }
}

/* Clears the next iteration's vi_check (one thread of the grid). */
static __device__ __forceinline__ void clear_next(const vi_view &v, int parity)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        v.check[parity ^ 1].difference_bits = 0;
        v.check[parity ^ 1].changed = 0;
        v.check[parity ^ 1].flags = 0;
    }
}

/* Interval iteration's upper bound of maybe slot i from b (its best choice's
 * value, or its MEC's best leaving one) and its lower bound l: u = min(u,
 * b), at least l (below l only by rounding, or by a guess of optimistic
 * value iteration that was too low: VI_UPPER_CROSSED); VI_UPPER_ROSE when
 * b > u (u is not a pre-fixpoint yet).  Returns u - l as a difference. */
static __device__ __forceinline__ double upper_update(const vi_view &v, uint64_t i, double b, double l, int &changed,
                                                      unsigned &flags)
{
    double u = v.bounds[i].upper, nu = fmin(u, b);
    if (b > u)
        flags |= VI_UPPER_ROSE;
    if (nu < l) {
        flags |= VI_UPPER_CROSSED;
        nu = l;
    }
    if (nu != u) {
        v.bounds[i].upper = nu;
        changed = 1;
    }
    return change(nu, l, v.relative);
}

/* One step for the maybe slots [first, first + count) (a sweep class)
 * from one read of each one's choices (Berger's SpMV and per-state
 * reduction, fused).  Interval iteration (II): both
 * bounds, the lower keeping the larger of old and new, the upper the
 * smaller (both operators are monotone, so each stays sound); a state of a
 * MEC offers its best leaving upper bound to its MEC's maximum (ii_mec_step
 * takes it).  Plain value iteration from below (!II): the value, its change
 * the difference. */
template <int G, bool ROWS, bool II>
static __global__ void __launch_bounds__(VI_THREADS, 6) iteration_step(vi_view v, int parity, uint32_t first,
                                                                       uint32_t count)
{
    clear_next(v, parity);
    unsigned long long *mec_best = II && v.mec ? v.mec_best + (parity ? v.num_mecs : 0) : NULL;
    const state_groups<G> sg(count);
    double difference = 0.0;
    int changed = 0;
    unsigned flags = 0;
    for (uint64_t trip = 0; trip < sg.trips; trip++) {
        const uint64_t local = sg.first + trip * sg.groups;
        const bool active = local < count;
        const uint64_t i = first + local;
        uint32_t m = II && active && v.mec ? v.mec[i] : REACH_NO_MEC;
        double bl, bu;
        best_choices<G, ROWS, II>(v, active ? v.state_first[i] : 0, active ? v.state_first[i + 1] : 0, sg.lane,
                                  m != REACH_NO_MEC, bl, bu);
        if (!active || sg.lane != 0)
            continue;
        double l = v.bounds[i].lower;
        if (!II) {
            if (bl != l) {
                v.bounds[i].lower = bl;
                changed = 1;
            }
            difference = fmax(difference, change(bl, l, v.relative));
            continue;
        }
        double nl = bl > l ? bl : l;
        if (nl != l) {
            v.bounds[i].lower = nl;
            changed = 1;
        }
        if (m != REACH_NO_MEC) {
            if (bu >= 0.0)
                atomicMax(&mec_best[m], (unsigned long long)__double_as_longlong(bu));
            continue;
        }
        difference = fmax(difference, upper_update(v, i, bu, nl, changed, flags));
    }
    report_block(v.check + parity, difference, changed, flags);
}

/* The states of MECs take their MEC's best leaving upper bound (the MEC
 * quotient of interval iteration for Pmax); the other parity's maxima are
 * cleared for the next iteration. */
static __global__ void ii_mec_step(vi_view v, int parity)
{
    const unsigned long long *best = v.mec_best + (parity ? v.num_mecs : 0);
    unsigned long long *next = v.mec_best + (parity ? 0 : v.num_mecs);
    for (uint64_t m = thread_index(); m < v.num_mecs; m += thread_count())
        next[m] = 0;
    double difference = 0.0;
    int changed = 0;
    unsigned flags = 0;
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        uint32_t m = v.mec[i];
        if (m == REACH_NO_MEC)
            continue;
        double b = __longlong_as_double((long long)best[m]);
        difference = fmax(difference, upper_update(v, i, b, v.bounds[i].lower, changed, flags));
    }
    report_block(v.check + parity, difference, changed, flags);
}

/* Optimistic value iteration's guess (Hartmanns & Kaminski, CAV 2020): the
 * upper bound of every maybe state from its lower bound, u = l (1 + eps)
 * (relative) or l + eps (absolute), at most 1 for probabilities. */
static __global__ void ovi_guess(vi_view v, double eps)
{
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        double l = v.bounds[i].lower;
        v.bounds[i].upper = fmin(v.reward ? CUDART_INF : 1.0, v.relative ? l * (1.0 + eps) : l + eps);
    }
}

/* ---- sweep classes: a Gauss-Seidel order for the parallel iteration ------------ */

#define VI_NO_LEVEL UINT32_MAX

static __device__ __forceinline__ uint32_t slot_level(const vi_view &v, const uint32_t *level, uint32_t t)
{
    return t >= v.nm ? 0u : level[t];
}

/* One round of the levels over the choice words, in place: level[i] = 1 +
 * the least level of a successor of maybe slot i (fixed slots and the zero
 * slot: 0), if smaller (Bellman-Ford from sweep_seed's: when a round
 * changes nothing, level[i] is the length of the shortest path from i to a
 * fixed state).  *changed = 1 if a level fell.  Racy reads of level only
 * delay a fall to the next round. */
static __global__ void sweep_levels(vi_view v, uint32_t *level, unsigned *changed)
{
    int any = 0;
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        uint32_t best = VI_NO_LEVEL;
        for (uint32_t k = v.state_first[i]; k < v.state_first[i + 1]; k++) {
            const uint32_t word = v.choice[k];
            if (word & VI_DETERMINISTIC) {
                best = min(best, slot_level(v, level, word & VI_SLOT_MASK));
                continue;
            }
            for (uint32_t j = word;; j++) {
                const uint32_t tt = v.target[j];
                best = min(best, slot_level(v, level, tt & VI_SLOT_MASK));
                if (tt & VI_LAST_BRANCH)
                    break;
            }
        }
        if (best != VI_NO_LEVEL && best + 1 < level[i]) {
            level[i] = best + 1;
            any = 1;
        }
    }
    if (__syncthreads_or(any) && threadIdx.x == 0)
        *changed = 1;
}

/* The first levels: 1 where near[i] (a transition into a fixed state,
 * also one the compaction dropped), else none yet. */
static __global__ void sweep_seed(uint64_t nm, const uint8_t *near, uint32_t *level)
{
    for (uint64_t i = thread_index(); i < nm; i += thread_count())
        level[i] = near[i] ? 1u : VI_NO_LEVEL;
}

/* Each maybe slot's class key, (level - 1) mod classes (no level: the last
 * class), and level[i] replaced by i: the values the sort carries along. */
static __global__ void sweep_keys(uint64_t nm, unsigned classes, uint32_t *level_then_slot, uint8_t *key)
{
    for (uint64_t i = thread_index(); i < nm; i += thread_count()) {
        const uint32_t l = level_then_slot[i];
        key[i] = (uint8_t)(l == VI_NO_LEVEL ? classes - 1 : (l - 1) % classes);
        level_then_slot[i] = (uint32_t)i;
    }
}

/* first[c] = where class c begins in the sorted keys (classes without
 * slots keep what was there). */
static __global__ void sweep_bounds(uint64_t nm, const uint8_t *sorted, uint32_t *first)
{
    for (uint64_t p = thread_index(); p < nm; p += thread_count())
        if (p == 0 || sorted[p] != sorted[p - 1])
            first[sorted[p]] = (uint32_t)p;
}

/* The slots renumbered by class: new slot p is old slot order[p]. */
static __device__ __forceinline__ uint32_t renumbered(uint64_t nm, const uint32_t *new_slot, uint32_t t)
{
    return t < nm ? new_slot[t] : t;
}

/* new_slot[order[p]] = p, and count[p] the choices of new slot p. */
static __global__ void renumber_slots(vi_view v, const uint32_t *order, uint32_t *new_slot, uint32_t *count)
{
    for (uint64_t p = thread_index(); p < v.nm; p += thread_count()) {
        const uint32_t i = order[p];
        new_slot[i] = (uint32_t)p;
        count[p] = v.state_first[i + 1] - v.state_first[i];
    }
}

/* count[k'] the branches of new choice k' (0: a deterministic choice word). */
static __global__ void renumber_count_branches(vi_view v, const uint32_t *order, const uint32_t *new_first,
                                               uint32_t *count)
{
    for (uint64_t p = thread_index(); p < v.nm; p += thread_count()) {
        const uint32_t i = order[p];
        uint32_t nk = new_first[p];
        for (uint32_t k = v.state_first[i]; k < v.state_first[i + 1]; k++, nk++) {
            const uint32_t word = v.choice[k];
            uint32_t n = 0;
            if (!(word & VI_DETERMINISTIC))
                for (uint32_t j = word;; j++) {
                    n++;
                    if (v.target[j] & VI_LAST_BRANCH)
                        break;
                }
            count[nk] = n;
        }
    }
}

/* The renumbered system (choice words) into out, from v and the new
 * offsets: each new slot's bounds and MEC, its choices (leaving flags,
 * rewards) and their branches, successors renumbered. */
static __global__ void renumber_fill(vi_view v, const uint32_t *order, const uint32_t *new_slot,
                                     const uint32_t *new_branch, vi_view out)
{
    const uint64_t nm = v.nm;
    for (uint64_t p = thread_index(); p < nm; p += thread_count()) {
        const uint32_t i = order[p];
        out.bounds[p] = v.bounds[i];
        if (out.mec)
            ((uint32_t *)out.mec)[p] = v.mec[i];
        uint32_t nk = out.state_first[p];
        for (uint32_t k = v.state_first[i]; k < v.state_first[i + 1]; k++, nk++) {
            if (out.leaving)
                ((uint8_t *)out.leaving)[nk] = v.leaving[k];
            if (out.reward)
                ((double *)out.reward)[nk] = v.reward[k];
            const uint32_t word = v.choice[k];
            if (word & VI_DETERMINISTIC) {
                ((uint32_t *)out.choice)[nk] = VI_DETERMINISTIC | renumbered(nm, new_slot, word & VI_SLOT_MASK);
                continue;
            }
            uint32_t b = new_branch[nk];
            ((uint32_t *)out.choice)[nk] = b;
            for (uint32_t j = word;; j++, b++) {
                const uint32_t tt = v.target[j];
                ((uint32_t *)out.target)[b] = renumbered(nm, new_slot, tt & VI_SLOT_MASK) | (tt & VI_LAST_BRANCH);
                if (out.prob_index)
                    ((uint16_t *)out.prob_index)[b] = v.prob_index[j];
                else
                    ((double *)out.prob)[b] = v.prob[j];
                if (tt & VI_LAST_BRANCH)
                    break;
            }
        }
    }
}

uint64_t gpu_free_memory(void)
{
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return 0;
    return free_b;
}

/* ---- the host loop -------------------------------------------------------------- */

/* Device buffers of the iteration, kept across the calls of one context (the
 * groups of the split): they grow, never shrink, and are freed by
 * gpu_reach_release. */
struct vi_workspace {
    device_array<uint32_t> state_first, choice, target, mec;
    device_array<uint16_t> prob_index;
    device_array<double> prob, reward;
    device_array<vi_bounds> bounds;
    device_array<uint8_t> leaving;
    device_array<unsigned long long> mec_best;
    device_array<vi_check> check;
    /* the sweep classes (sweep_order) and the renumbering by them
     * (sweep_renumber): the new arrays, swapped with those above */
    device_array<uint32_t> level, order, class_first, count, branch_first;
    device_array<uint8_t> key, sorted_key, scratch;
    device_array<uint32_t> state_first2, choice2, target2, mec2;
    device_array<uint16_t> prob_index2;
    device_array<double> prob2, reward2;
    device_array<vi_bounds> bounds2;
    device_array<uint8_t> leaving2;
    cudaStream_t stream = nullptr;
    ~vi_workspace()
    {
        if (stream)
            cudaStreamDestroy(stream);
    }
    uint64_t bytes() const
    {
        return state_first.bytes + choice.bytes + target.bytes + mec.bytes + prob_index.bytes + prob.bytes +
               bounds.bytes + reward.bytes + leaving.bytes + mec_best.bytes + check.bytes + level.bytes + order.bytes +
               class_first.bytes + count.bytes + branch_first.bytes + key.bytes + sorted_key.bytes + scratch.bytes +
               state_first2.bytes + choice2.bytes + target2.bytes + mec2.bytes + prob_index2.bytes + prob2.bytes +
               reward2.bytes + bounds2.bytes + leaving2.bytes;
    }
};

/* d holds at least count elements (a larger old buffer is kept). */
template <typename T> static int grow(device_array<T> &d, uint64_t count, csr_status *status)
{
    if (d.p && d.bytes >= (count ? count : 1) * sizeof(T))
        return CSR_OK;
    return d.alloc(count, NULL, status);
}

/* Blocks of VI_THREADS for kernel over items threads: what the device holds
 * at once (the occupancy calculator: the step kernels are bounded to 40
 * registers, 6 blocks per SM, so fewer than SMs * maxThreadsPerSM /
 * VI_THREADS blocks are resident, and a grid of that many would run in
 * waves: 48 registers and 8 blocks per SM cost coin6_4 1.6 waves), no more
 * than the items need. */
static unsigned iteration_blocks(const void *kernel, uint64_t items)
{
    unsigned need = grid_for(items, VI_THREADS);
    unsigned resident = gpu::resident_blocks(kernel, VI_THREADS, need);
    return resident ? resident : need;
}

/* The sweep classes of an iteration, on the host: class c the entries
 * [first[c], first[c + 1]) of the order. */
struct vi_sweep {
    unsigned classes;
    uint32_t first[GPU_REACH_MAX_SWEEP_CLASSES + 1];
};

/* One iteration's launches on stream s: a step a non-empty sweep class, one
 * after the other (Gauss-Seidel across classes), then the MECs' maxima. */
template <int G, bool ROWS>
static cudaError_t iteration_launch(const vi_view &v, const vi_sweep &sw, int ii, int parity, cudaStream_t s)
{
    const void *kernel =
        ii ? (const void *)iteration_step<G, ROWS, true> : (const void *)iteration_step<G, ROWS, false>;
    cudaError_t e = cudaSuccess;
    for (unsigned c = 0; c < sw.classes && e == cudaSuccess; c++) {
        const uint32_t first = sw.first[c], count = sw.first[c + 1] - first;
        if (!count)
            continue;
        const unsigned blocks = iteration_blocks(kernel, (uint64_t)count * G);
        if (ii)
            iteration_step<G, ROWS, true><<<blocks, VI_THREADS, 0, s>>>(v, parity, first, count);
        else
            iteration_step<G, ROWS, false><<<blocks, VI_THREADS, 0, s>>>(v, parity, first, count);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess && ii && v.mec) {
        ii_mec_step<<<iteration_blocks((const void *)ii_mec_step, v.nm > v.num_mecs ? v.nm : v.num_mecs),
                      VI_THREADS, 0, s>>>(v, parity);
        e = cudaGetLastError();
    }
    return e;
}

typedef cudaError_t (*iteration_launcher)(const vi_view &, const vi_sweep &, int, int, cudaStream_t);

static iteration_launcher pick_launcher(int g, bool rows)
{
    if (rows)
        return iteration_launch<32, true>;
    switch (g) {
    case 1: return iteration_launch<1, false>;
    case 2: return iteration_launch<2, false>;
    case 4: return iteration_launch<4, false>;
    case 8: return iteration_launch<8, false>;
    case 16: return iteration_launch<16, false>;
    default: return iteration_launch<32, false>;
    }
}

/* VI_BATCH iterations (parities 0, 1, 0, ...) captured as one graph. */
static int capture_batch(iteration_launcher launch, const vi_view &v, const vi_sweep &sw, int ii, cudaStream_t s,
                         gpu::cuda_graph *g, csr_status *status)
{
    return g->capture(
        s,
        [&]() -> int {
            for (int j = 0; j < VI_BATCH; j++)
                CUDA_TRY(launch(v, sw, ii, j & 1, s));
            return CSR_OK;
        },
        status);
}

/*
 * The sweep classes of the uploaded system v (choice words; classes > 1)
 * on the device: the levels seeded from near_fixed (host, u8[nm]), rounds
 * of sweep_levels until no level falls (coin6_4: 142 rounds for 73
 * levels), sweep_keys, a stable radix sort of the maybe slots by key (CUB,
 * the two-call pattern) into w.order (position p: the slot that becomes p),
 * and where each class begins into sw.  The order is a heuristic: any order
 * is sound.  Device memory 10 nm + 4 (classes + 2) bytes and CUB's sort
 * space, kept in w.  *rounds: the rounds of sweep_levels, added.
 */
static int sweep_order(const vi_view &v, const uint8_t *near_fixed, unsigned classes, vi_workspace &w,
                       cudaStream_t s, vi_sweep *sw, uint64_t *rounds, csr_status *status)
{
    const uint64_t nm = v.nm;
    TRY(grow(w.level, nm, status));
    TRY(grow(w.order, nm, status));
    TRY(grow(w.key, nm, status));
    TRY(grow(w.sorted_key, nm, status));
    TRY(grow(w.class_first, classes + 2, status)); /* and the changed flag */
    int bits = 1;
    while ((1u << bits) < classes)
        bits++;
    size_t space = 0;
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, space, w.key.p, w.sorted_key.p, w.level.p, w.order.p, (int)nm,
                                             0, bits, s));
    TRY(grow(w.scratch, space, status));
    unsigned *changed = w.class_first.p + classes + 1;
    const unsigned blocks = grid_for(nm, VI_THREADS);
    CUDA_TRY(cudaMemcpyAsync(w.key.p, near_fixed, nm, cudaMemcpyHostToDevice, s));
    sweep_seed<<<blocks, VI_THREADS, 0, s>>>(nm, w.key.p, w.level.p);
    CUDA_TRY_LAUNCH();
    for (unsigned fell = 1; fell;) {
        CUDA_TRY(cudaMemsetAsync(changed, 0, sizeof *changed, s));
        sweep_levels<<<blocks, VI_THREADS, 0, s>>>(v, w.level.p, changed);
        CUDA_TRY_LAUNCH();
        CUDA_TRY(cudaMemcpyAsync(&fell, changed, sizeof fell, cudaMemcpyDeviceToHost, s));
        CUDA_TRY(cudaStreamSynchronize(s));
        ++*rounds;
    }
    sweep_keys<<<blocks, VI_THREADS, 0, s>>>(nm, classes, w.level.p, w.key.p);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(w.scratch.p, space, w.key.p, w.sorted_key.p, w.level.p, w.order.p,
                                             (int)nm, 0, bits, s));
    CUDA_TRY(cudaMemsetAsync(w.class_first.p, 0xff, (classes + 1) * sizeof(uint32_t), s));
    sweep_bounds<<<blocks, VI_THREADS, 0, s>>>(nm, w.sorted_key.p, w.class_first.p);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaMemcpyAsync(sw->first, w.class_first.p, classes * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
    sw->classes = classes;
    sw->first[classes] = (uint32_t)nm;
    for (unsigned c = classes; c-- > 0;) /* an empty class begins where the next does */
        if (sw->first[c] == UINT32_MAX)
            sw->first[c] = sw->first[c + 1];
    return CSR_OK;
}

template <typename T> static void swap_arrays(device_array<T> &a, device_array<T> &b)
{
    std::swap(a.p, b.p);
    std::swap(a.bytes, b.bytes);
}

/* Device bytes sweep_order and sweep_renumber take beyond the system's. */
static uint64_t sweep_bytes(const compact_system &cs, bool mecs)
{
    const uint64_t nm = cs.nm, mc = cs.mc, mb = cs.mb;
    return 4 * (nm + 1) + 4 * (mc + 1) + 4 * mb + (cs.dictionary ? 2 : 8) * mb + 16 * cs.slots() +
           (mecs ? 4 * nm + mc : 0) + (cs.reward ? 8 * mc : 0) /* the new arrays */
           + 4 * ((nm > mc ? nm : mc) + 1) + 4 * (mc + 1)     /* count, branch_first */
           + 10 * nm + 4 * (GPU_REACH_MAX_SWEEP_CLASSES + 2)  /* level, order, keys */
           + (1u << 20);                                      /* CUB's space, about */
}

/*
 * The uploaded system (choice words) renumbered by w.order (new slot p is
 * old slot order[p]), so that each sweep class is a range of slots read as
 * the iteration reads the slots, in order (the order through an index
 * instead cost coin6_4 13 us an iteration of 43): new choice and branch
 * offsets by two exclusive scans (CUB), then renumber_fill; the new arrays
 * are swapped in and v points at them.  The fixed slots keep their numbers.
 */
static int sweep_renumber(vi_view &v, const compact_system &cs, vi_workspace &w, cudaStream_t s, csr_status *status)
{
    const uint64_t nm = cs.nm, mc = cs.mc, mb = cs.mb, slots = cs.slots();
    const bool mecs = v.mec != NULL;
    TRY(grow(w.state_first2, nm + 1, status));
    TRY(grow(w.choice2, mc + 1, status));
    TRY(grow(w.target2, mb, status));
    TRY(grow(w.bounds2, slots, status));
    TRY(grow(w.count, (nm > mc ? nm : mc) + 1, status));
    TRY(grow(w.branch_first, mc + 1, status));
    if (cs.dictionary)
        TRY(grow(w.prob_index2, mb, status));
    else
        TRY(grow(w.prob2, mb, status));
    if (cs.reward)
        TRY(grow(w.reward2, mc, status));
    if (mecs) {
        TRY(grow(w.mec2, nm, status));
        TRY(grow(w.leaving2, mc, status));
    }
    size_t slot_space = 0, choice_space = 0;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, slot_space, w.count.p, w.state_first2.p, nm + 1, s));
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, choice_space, w.count.p, w.branch_first.p, mc + 1, s));
    TRY(grow(w.scratch, slot_space > choice_space ? slot_space : choice_space, status));
    uint32_t *new_slot = w.level.p; /* the levels are spent */
    const unsigned blocks = grid_for(nm, VI_THREADS);
    CUDA_TRY(cudaMemsetAsync(w.count.p + nm, 0, sizeof(uint32_t), s));
    renumber_slots<<<blocks, VI_THREADS, 0, s>>>(v, w.order.p, new_slot, w.count.p);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(w.scratch.p, slot_space, w.count.p, w.state_first2.p, nm + 1, s));
    CUDA_TRY(cudaMemsetAsync(w.count.p + mc, 0, sizeof(uint32_t), s));
    renumber_count_branches<<<blocks, VI_THREADS, 0, s>>>(v, w.order.p, w.state_first2.p, w.count.p);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(w.scratch.p, choice_space, w.count.p, w.branch_first.p, mc + 1, s));
    vi_view out = v;
    out.state_first = w.state_first2.p;
    out.choice = w.choice2.p;
    out.target = w.target2.p;
    out.prob_index = cs.dictionary ? w.prob_index2.p : NULL;
    out.prob = cs.dictionary ? v.prob : w.prob2.p;
    out.mec = mecs ? w.mec2.p : NULL;
    out.leaving = mecs ? w.leaving2.p : NULL;
    out.reward = cs.reward ? w.reward2.p : NULL;
    out.bounds = w.bounds2.p;
    renumber_fill<<<blocks, VI_THREADS, 0, s>>>(v, w.order.p, new_slot, w.branch_first.p, out);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaMemcpyAsync(w.bounds2.p + nm, w.bounds.p + nm, (slots - nm) * sizeof(vi_bounds),
                             cudaMemcpyDeviceToDevice, s));
    CUDA_TRY(cudaMemcpyAsync(w.choice2.p + mc, w.choice.p + mc, sizeof(uint32_t), cudaMemcpyDeviceToDevice, s));
    swap_arrays(w.state_first, w.state_first2);
    swap_arrays(w.choice, w.choice2);
    swap_arrays(w.target, w.target2);
    swap_arrays(w.bounds, w.bounds2);
    if (cs.dictionary)
        swap_arrays(w.prob_index, w.prob_index2);
    else
        swap_arrays(w.prob, w.prob2);
    if (cs.reward)
        swap_arrays(w.reward, w.reward2);
    if (mecs) {
        swap_arrays(w.mec, w.mec2);
        swap_arrays(w.leaving, w.leaving2);
    }
    v = out;
    return CSR_OK;
}

static int vi_run(const reach_system *y, const reach_options *o, double eps, double *lower, double *upper,
                  uint64_t *iterations, double *difference, gpu_reach_context *cx, uint32_t *slot_of,
                  uint8_t *needed)
{
    csr_status *status = cx->status;
    const int ii = o->method != REACH_VI, ovi = o->method == REACH_OVI, mecs = ii && y->mec && y->num_mecs;
    *iterations = 0;
    *difference = 0.0;
    /* the mapping: long choices (8 transitions or more on average in the
     * system) get a warp each, short ones a lane each, with as many lanes
     * per state as the device holds threads at once for all maybe states
     * (more lanes than that only make each thread loop over more states one
     * after the other), at most the choices per state */
    const bool rows = y->num_transitions >= 8 * y->num_choices;
    gpu::phase_timer timer;
    timer.begin();
    compact_system cs;
    TRY(compact_build(y, lower, upper, mecs, rows, &cs, slot_of, needed, status));
    cx->compact_s += timer.end();
    const uint64_t nm = cs.nm, slots = cs.slots();
    if (nm == 0)
        return CSR_OK;
    int g = cx->threads_per_state;
    if (!g) {
        const gpu::device_geometry &dg = gpu::geometry();
        double per_state = (double)cs.mc / (double)nm, resident = (double)dg.sms * (double)dg.threads_per_sm;
        g = 1;
        while (g < 32 && g < per_state && (double)nm * 2 * g <= resident)
            g *= 2;
    }
    if (rows)
        g = 32;
    cx->used_threads = g;
    cx->used_rows = rows;
    cx->used_dictionary = cs.dictionary;
    timer.begin();
    if (!cx->workspace) {
        cx->workspace = new (std::nothrow) vi_workspace;
        if (!cx->workspace)
            return CSR_ERR_NOMEM;
    }
    vi_workspace &w = *(vi_workspace *)cx->workspace;
    if (!w.stream)
        CUDA_TRY(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
    TRY(grow(w.state_first, nm + 1, status));
    TRY(grow(w.choice, cs.mc + 1, status));
    TRY(grow(w.target, cs.mb, status));
    TRY(grow(w.bounds, slots, status));
    TRY(grow(w.check, 2, status));
    if (cs.dictionary) {
        TRY(grow(w.prob_index, cs.mb, status));
        TRY(grow(w.prob, cs.np, status));
    } else {
        TRY(grow(w.prob, cs.mb, status));
    }
    if (cs.reward)
        TRY(grow(w.reward, cs.mc, status));
    if (mecs) {
        TRY(grow(w.mec, nm, status));
        TRY(grow(w.leaving, cs.mc, status));
        TRY(grow(w.mec_best, 2 * y->num_mecs, status));
    }
    if (w.bytes() > cx->device_bytes)
        cx->device_bytes = w.bytes();
    cudaStream_t s = w.stream;
    CUDA_TRY(cudaMemcpyAsync(w.state_first.p, cs.state_first, (nm + 1) * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    CUDA_TRY(cudaMemcpyAsync(w.choice.p, cs.choice, (cs.mc + 1) * sizeof(uint32_t),
                             cudaMemcpyHostToDevice, s));
    CUDA_TRY(cudaMemcpyAsync(w.target.p, cs.target, cs.mb * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    if (cs.dictionary) {
        CUDA_TRY(cudaMemcpyAsync(w.prob_index.p, cs.prob_index, cs.mb * sizeof(uint16_t), cudaMemcpyHostToDevice, s));
        CUDA_TRY(cudaMemcpyAsync(w.prob.p, cs.table, cs.np * sizeof(double), cudaMemcpyHostToDevice, s));
    } else {
        CUDA_TRY(cudaMemcpyAsync(w.prob.p, cs.prob, cs.mb * sizeof(double), cudaMemcpyHostToDevice, s));
    }
    CUDA_TRY(cudaMemcpyAsync(w.bounds.p, cs.bounds, slots * sizeof(vi_bounds), cudaMemcpyHostToDevice, s));
    CUDA_TRY(cudaMemsetAsync(w.check.p, 0, 2 * sizeof(vi_check), s));
    if (cs.reward)
        CUDA_TRY(cudaMemcpyAsync(w.reward.p, cs.reward, cs.mc * sizeof(double), cudaMemcpyHostToDevice, s));
    if (mecs) {
        CUDA_TRY(cudaMemcpyAsync(w.mec.p, cs.mec, nm * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
        CUDA_TRY(cudaMemcpyAsync(w.leaving.p, cs.leaving, cs.mc, cudaMemcpyHostToDevice, s));
        CUDA_TRY(cudaMemsetAsync(w.mec_best.p, 0, 2 * y->num_mecs * sizeof(unsigned long long), s));
    }
    vi_view v;
    v.nm = nm;
    v.num_mecs = mecs ? y->num_mecs : 0;
    v.state_first = w.state_first.p;
    v.choice = w.choice.p;
    v.target = w.target.p;
    v.prob_index = cs.dictionary ? w.prob_index.p : NULL;
    v.prob = w.prob.p;
    v.mec = mecs ? w.mec.p : NULL;
    v.leaving = mecs ? w.leaving.p : NULL;
    v.reward = cs.reward ? w.reward.p : NULL;
    v.bounds = w.bounds.p;
    v.mec_best = mecs ? w.mec_best.p : NULL;
    v.check = w.check.p;
    v.maximize = y->maximize;
    v.relative = o->relative;
    /* per iteration: the offsets, every kept branch (slot, probability, the
     * bounds of its successor), each maybe state's bounds read and written,
     * the MEC arrays */
    const uint64_t bounds = ii ? 2 : 1;
    cx->bytes_per_iteration = 4 * (nm + 1) + 4 * (cs.mc + 1) + (cs.dictionary ? 6 : 12) * cs.mb +
                              8 * bounds * (cs.mb + cs.mc) + 16 * bounds * nm + (mecs ? 4 * nm + cs.mc + 16 * nm : 0) +
                              (cs.reward ? 8 * cs.mc : 0);
    iteration_launcher launch = pick_launcher(g, rows);
    CUDA_TRY(cudaStreamSynchronize(s));
    cx->h2d_s += timer.end();
    /* certified policy iteration (reach_pi.h) first where it applies; what it
     * leaves unsolved interval iteration takes on from its bounds */
    uint64_t it = 0;
    double diff = INFINITY;
    int rc = CSR_ERR_NOT_CONVERGED;
    std::unique_ptr<uint32_t, void (*)(void *)> order(nullptr, free); /* host: new slot p was slot order[p] */
    bool verified = !ovi;
    if (o->method == REACH_PI && o->max_iterations >= reach_pi_jacobi_limit() && !mecs && !cs.reward && !rows &&
        cs.fixed_exact) {
        timer.begin();
        bool solved = false;
        TRY(gpu_reach_pi(v, slots, o, eps, s, &it, &diff, &solved, status));
        CUDA_TRY(cudaStreamSynchronize(s));
        cx->pi_s += timer.end();
        if (solved) {
            rc = CSR_OK;
            goto download;
        }
    }
    {
    /* the sweep classes; one class (the slots in order, one launch) for
     * long choices (a warp each: their rows stay in order) and where the
     * renumbering does not fit the device or the memory limit */
    timer.begin();
    vi_sweep sweep;
    sweep.classes = 1;
    sweep.first[0] = 0;
    sweep.first[1] = (uint32_t)nm;
    unsigned classes = cx->sweep_classes ? cx->sweep_classes : GPU_REACH_SWEEP_CLASSES;
    classes = classes < GPU_REACH_MAX_SWEEP_CLASSES ? classes : GPU_REACH_MAX_SWEEP_CLASSES;
    const uint64_t sweep_need = sweep_bytes(cs, mecs);
    if (classes > 1 && !rows && sweep_need < gpu_free_memory() &&
        (!cx->memory_limit || w.bytes() + sweep_need <= cx->memory_limit)) {
        order.reset((uint32_t *)malloc(nm * sizeof(uint32_t)));
        if (!order)
            return CSR_ERR_NOMEM;
        TRY(sweep_order(v, cs.near_fixed, classes, w, s, &sweep, &cx->sweep_rounds, status));
        TRY(sweep_renumber(v, cs, w, s, status));
        CUDA_TRY(cudaMemcpyAsync(order.get(), w.order.p, nm * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
    }
    cx->used_sweep_classes = 0;
    for (unsigned c = 0; c < sweep.classes; c++)
        cx->used_sweep_classes += sweep.first[c + 1] > sweep.first[c];
    if (w.bytes() > cx->device_bytes)
        cx->device_bytes = w.bytes();
    CUDA_TRY(cudaStreamSynchronize(s));
    cx->sweep_s += timer.end();
    timer.begin();
    gpu::cuda_graph batch, vi_batch; /* the method's iterations; optimistic VI's phase from below */
    if (o->max_iterations >= VI_BATCH) {
        TRY(capture_batch(launch, v, sweep, ii, s, &batch, status));
        if (ovi)
            TRY(capture_batch(launch, v, sweep, 0, s, &vi_batch, status));
    }
    CUDA_TRY(cudaStreamSynchronize(s));
    cx->h2d_s += timer.end();
    timer.begin();
    /*
     * Optimistic value iteration (Hartmanns & Kaminski, CAV 2020): value
     * iteration from below until no value changes by more than eps_vi, then
     * a guess u = l (1 + eps) and interval iteration from (l, u): the guess
     * is verified once an iteration finds B(u) <= u in every state (u is
     * then a pre-fixpoint, above the least fixpoint that the probabilities
     * are, and stays above it), and the answer is final once verified and
     * within eps as interval iteration's.  A guess that crosses the lower
     * bound, stops changing unverified, or is not verified within as many
     * iterations as value iteration took (at least 64), is dropped: value
     * iteration goes on with eps_vi halved.  (A MEC's maximum of the parity
     * last used before value iteration may be stale for the first iteration
     * after it: larger, so the upper bound only keeps more; sound.)  The lower bound is sound throughout; an upper bound
     * never verified is not handed back (the caller keeps its own).
     */
    bool below = ovi;
    double eps_vi = eps;
    uint64_t phase_start = 0, guess_at = 0;
    while (it < o->max_iterations) {
        const int step_ii = ii && !below;
        if (o->max_iterations - it >= VI_BATCH) {
            CUDA_TRY(cudaGraphLaunch(below ? vi_batch.exec : batch.exec, s));
            it += VI_BATCH;
        } else {
            CUDA_TRY(launch(v, sweep, step_ii, (int)(it & 1), s));
            it++;
        }
        vi_check h;
        CUDA_TRY(cudaMemcpyAsync(&h, w.check.p + ((it - 1) & 1), sizeof h, cudaMemcpyDeviceToHost, s));
        CUDA_TRY(cudaStreamSynchronize(s));
        memcpy(&diff, &h.difference_bits, sizeof diff);
        if (below) {
            if (diff <= eps_vi || !h.changed) {
                ovi_guess<<<grid_for(nm, VI_THREADS), VI_THREADS, 0, s>>>(v, eps);
                CUDA_TRY_LAUNCH();
                below = false;
                guess_at = it;
                cx->ovi_guesses++;
            }
            continue;
        }
        if (!verified) {
            if (!(h.flags & (VI_UPPER_ROSE | VI_UPPER_CROSSED))) {
                verified = true;
            } else if ((h.flags & VI_UPPER_CROSSED) || !h.changed ||
                       it - guess_at > (guess_at - phase_start > 64 ? guess_at - phase_start : 64)) {
                below = true; /* the guess failed */
                eps_vi /= 2;
                phase_start = it;
                continue;
            }
        }
        if (verified && diff <= eps) {
            rc = CSR_OK;
            break;
        }
        if (!h.changed) {
            rc = CSR_ERR_STALLED;
            break;
        }
    }
    cx->iterate_s += timer.end();
    }
download:
    timer.begin();
    CUDA_TRY(cudaMemcpyAsync(cs.bounds, w.bounds.p, nm * sizeof(vi_bounds), cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
    for (uint64_t i = 0; i < nm; i++) {
        const uint32_t state = cs.slot_state[order ? order.get()[i] : i];
        lower[state] = cs.bounds[i].lower;
        if (verified)
            upper[state] = cs.bounds[i].upper;
    }
    cx->d2h_s += timer.end();
    *iterations = it;
    *difference = diff;
    return rc;
}

int gpu_reach_iterate(const reach_system *y, const reach_options *o, double eps, double *lower, double *upper,
                      uint64_t *iterations, double *difference, void *ctx)
{
    gpu_reach_context *cx = (gpu_reach_context *)ctx;
    if (y->num_states > (uint64_t)INT32_MAX)
        return csr_fail(cx->status, CSR_ERR_TOO_LARGE, "%llu states: more than the GPU solver takes",
                        (unsigned long long)y->num_states);
    uint32_t *slot_of = (uint32_t *)malloc((y->num_states ? y->num_states : 1) * sizeof(uint32_t));
    uint8_t *needed = (uint8_t *)malloc(y->num_states ? y->num_states : 1);
    if (slot_of && needed) {
        advise_huge_pages(slot_of, y->num_states * sizeof(uint32_t));
        advise_huge_pages(needed, y->num_states);
    }
    int rc = slot_of && needed ? vi_run(y, o, eps, lower, upper, iterations, difference, cx, slot_of, needed)
                               : CSR_ERR_NOMEM;
    free(slot_of);
    free(needed);
    return rc;
}

void gpu_reach_release(gpu_reach_context *cx)
{
    delete (vi_workspace *)cx->workspace;
    cx->workspace = NULL;
}

/* ---- the backend of reach_solve ---------------------------------------------- */

static int backend_prob01(const csr_model *m, const reach_query *q, uint8_t *cls, void *ctx)
{
    gpu_reach_context *cx = (gpu_reach_context *)ctx;
    int rc = gpu_reach_prob01(m, q, !cx->scc.persistent, cls, &cx->prob01_sweeps, cx->status);
    if (rc == CSR_ERR_NOMEM) { /* the model and its transpose do not fit: the same sets on the CPU */
        memset(cx->status, 0, sizeof *cx->status);
        cx->prob01_on_cpu = 1;
        rc = ref_reach_prob01(m, q, cls);
    }
    return rc;
}

static int backend_prob01_mecs(const csr_model *m, const reach_query *q, uint8_t *cls, uint64_t *maybe_mec,
                               void *ctx)
{
    gpu_reach_context *cx = (gpu_reach_context *)ctx;
    gpu_mec_options mo;
    gpu_mec_default_options(&mo);
    mo.scc = cx->scc;
    mo.scheme = cx->mec_scheme;
    gpu_mec_stats gs;
    memset(&gs, 0, sizeof gs);
    int rc = gpu_reach_prob01_mecs(m, q, &mo, cls, maybe_mec, &cx->prob01_sweeps, &gs, cx->status);
    if (gs.scheme)
        cx->mec_scheme_used = gs.scheme;
    if (rc == CSR_ERR_NOMEM) /* reach_solve takes the steps apart */
        memset(cx->status, 0, sizeof *cx->status);
    cx->prob1e_by_mecs = rc == CSR_OK;
    return rc;
}

/* ids (u32, UINT32_MAX: none) widened into wide (u64, REF_NONE: none). */
static void widen_ids(const uint32_t *ids, uint64_t *wide, uint64_t n)
{
    for (uint64_t s = 0; s < n; s++)
        wide[s] = ids[s] == UINT32_MAX ? REF_NONE : ids[s];
}

static int backend_mecs(const csr_model *g, uint64_t *mec, void *ctx)
{
    gpu_reach_context *cx = (gpu_reach_context *)ctx;
    gpu_mec_options mo;
    gpu_mec_default_options(&mo);
    mo.scc = cx->scc;
    mo.scheme = cx->mec_scheme;
    gpu_mec_stats gs;
    uint32_t *ids = (uint32_t *)malloc((g->num_states ? g->num_states : 1) * sizeof *ids);
    int rc = ids ? gpu_mec_decompose(g, &mo, ids, &gs, cx->status) : CSR_ERR_NOMEM;
    if (!rc) {
        cx->mec_scheme_used = gs.scheme;
        widen_ids(ids, mec, g->num_states);
        cx->mec_upload_s += gs.upload_s;
        cx->mec_resident_s += gs.resident_s;
        cx->mec_download_s += gs.download_s;
    }
    free(ids);
    return rc;
}

static int backend_sccs(const csr_model *m, uint64_t budget, uint64_t *scc, void *ctx)
{
    gpu_reach_context *cx = (gpu_reach_context *)ctx;
    /* the SCC contract's own plan: the model on the device and the engine's buffers */
    if (gpu_scc_bytes_needed(m, &cx->scc) > budget) {
        ref_scc_stats ss;
        return ref_scc_tarjan(m, NULL, NULL, scc, &ss);
    }
    gpu_scc_stats gs;
    uint32_t *ids = (uint32_t *)malloc((m->num_states ? m->num_states : 1) * sizeof *ids);
    int rc = ids ? gpu_scc_decompose(m, &cx->scc, ids, &gs, cx->status) : CSR_ERR_NOMEM;
    if (!rc)
        widen_ids(ids, scc, m->num_states);
    free(ids);
    return rc;
}

/* ---- step-bounded reachability ---------------------------------------------- */

/* One Jacobi step of ref_reach_bounded: y(s) = opt over s's choices of sum
 * p x(t), or x(s) where s is fixed (a target, avoided, without choices).
 * A thread per state, grid-stride. */
static __global__ void bounded_step(uint64_t n, const uint64_t *__restrict__ sc, const uint64_t *__restrict__ ct,
                                    const uint32_t *__restrict__ tg, const double *__restrict__ pr,
                                    const uint8_t *__restrict__ fixed, int maximize, const double *__restrict__ x,
                                    double *__restrict__ y)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        if (fixed[s]) {
            y[s] = x[s];
            continue;
        }
        double best = maximize ? 0.0 : 1.0;
        for (uint64_t k = sc[s]; k < sc[s + 1]; k++) {
            double sum = 0.0;
            for (uint64_t j = ct[k]; j < ct[k + 1]; j++)
                sum = __dadd_rn(sum, __dmul_rn(pr[j], x[tg[j]])); /* no fused multiply-add: the CPU's roundings */
            best = maximize ? fmax(best, sum) : fmin(best, sum);
        }
        y[s] = best;
    }
}

int gpu_reach_bounded(const csr_model *m, const reach_query *q, uint64_t steps, double *values, csr_status *status)
{
    const uint64_t n = m->num_states, c = m->num_choices, t = m->num_transitions;
    uint8_t *fixed = (uint8_t *)malloc(n ? n : 1);
    if (!fixed)
        return CSR_ERR_NOMEM;
    for (uint64_t s = 0; s < n; s++) {
        fixed[s] = q->target[s] || (q->avoid && q->avoid[s]) || m->state_choices[s + 1] == m->state_choices[s];
        values[s] = q->target[s] ? 1.0 : 0.0;
    }
    device_array<uint64_t> sc, ct;
    device_array<uint32_t> tg;
    device_array<double> pr, x, y;
    device_array<uint8_t> fx;
    int rc = CSR_OK;
    if ((rc = sc.alloc(n + 1, NULL, status)) || (rc = ct.alloc(c + 1, NULL, status)) || (rc = tg.alloc(t, NULL, status)) ||
        (rc = pr.alloc(t, NULL, status)) || (rc = x.alloc(n, NULL, status)) || (rc = y.alloc(n, NULL, status)) ||
        (rc = fx.alloc(n, NULL, status))) {
        free(fixed);
        return rc;
    }
    cudaError_t e = cudaMemcpy(sc.p, m->state_choices, (n + 1) * 8, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(ct.p, m->choice_transitions, (c + 1) * 8, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(tg.p, m->targets, t * 4, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(pr.p, m->probabilities, t * 8, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(fx.p, fixed, n, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(x.p, values, n * 8, cudaMemcpyHostToDevice);
    free(fixed);
    const unsigned blocks = grid_for(n, VI_THREADS);
    double *from = x.p, *to = y.p;
    for (uint64_t i = 0; e == cudaSuccess && i < steps; i++) {
        bounded_step<<<blocks, VI_THREADS>>>(n, sc.p, ct.p, tg.p, pr.p, fx.p, q->maximize, from, to);
        e = cudaGetLastError();
        double *swap = from;
        from = to;
        to = swap;
    }
    if (e == cudaSuccess)
        e = cudaMemcpy(values, from, n * 8, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        return csr_fail(status, CSR_ERR_DEVICE, "step-bounded iteration: %s", cudaGetErrorString(e));
    return CSR_OK;
}

static int backend_bounded(const csr_model *m, const reach_query *q, uint64_t steps, double *values, void *ctx)
{
    return gpu_reach_bounded(m, q, steps, values, ((gpu_reach_context *)ctx)->status);
}

void gpu_reach_backend(gpu_reach_context *cx, reach_backend *b)
{
    b->bounded = backend_bounded;
    b->prob01 = backend_prob01;
    b->prob01_mecs = cx->scc.persistent ? backend_prob01_mecs : NULL;
    b->mecs = backend_mecs;
    b->sccs = backend_sccs;
    b->solve = gpu_reach_iterate;
    b->ctx = cx;
    b->prob01_ctx = NULL;
}
