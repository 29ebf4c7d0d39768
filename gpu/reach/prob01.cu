/*
 * prob01.cu - Prob0/Prob1 on the GPU (resident.h): backward searches over
 * the resident model's transpose, Prob1E by the MEC quotient, and the MECs
 * of the maybe states on the resident model.
 */
#include <cub/cub.cuh>
#include <memory>
#include <new>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "launch.h"
#include "mec/mec_live.h"
#include "reach_gpu.h"
#include "resident.h"
#include "worklist.h"

using gpu::grid_for;
using gpu::thread_count;
using gpu::thread_index;

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
    TRY(gpu::mec_decompose_live(mo, d.model, live, nullptr, mec, ms, status));
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

/* The maybe flags of the classes in place: 1 where cls == REACH_MAYBE. */
static __global__ void maybe_live(uint64_t n, uint8_t *cls)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        cls[s] = cls[s] == REACH_MAYBE;
}

/* resident_prob01 with h, host scratch of n bytes. */
static int prob01_run(prob01_device &d, const reach_query *q, uint8_t *cls, uint64_t *sweeps, uint8_t *h,
                      const gpu_mec_options *mo, gpu_mec_stats *ms, uint32_t *mec_host, csr_status *status)
{
    const uint64_t n = d.n, c = d.c;
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
            if (!d.drain_grid)
                return CSR_ERR_NOMEM; /* the quotient's search is drained: the caller takes the steps apart */
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

int resident_open(const csr_model *m, int levels, resident_model **out, csr_status *status)
{
    *out = nullptr;
    resident_model *r = new (std::nothrow) resident_model;
    if (!r)
        return CSR_ERR_NOMEM;
    const uint64_t n = m->num_states, c = m->num_choices, t = m->num_transitions;
    int rc = gpu::plan_and_allocate(r->arena, [&](gpu::arena &a) { r->d.plan(a, n, c, t); }, &r->bytes, status);
    if (!rc) {
        r->d.drain_grid = levels ? 0 : gpu::resident_blocks((const void *)prob01_drain, 256, 0);
        rc = r->d.model.upload(m, status);
    }
    if (!rc)
        rc = r->d.tr.build(n, r->d.sc, r->d.ct, r->d.tg, status);
    if (!rc) {
        cudaError_t e = cudaStreamSynchronize(0); /* this thread's default stream */
        if (e != cudaSuccess)
            rc = csr_fail(status, CSR_ERR_DEVICE, "uploading the model: %s", cudaGetErrorString(e));
    }
    if (rc) {
        delete r;
        return rc;
    }
    *out = r;
    return CSR_OK;
}

void resident_close(resident_model *r)
{
    delete r;
}

int resident_prob01(resident_model &r, const reach_query *q, uint8_t *cls, uint64_t *sweeps,
                    const gpu_mec_options *mo, gpu_mec_stats *ms, uint32_t *mec_host, csr_status *status)
{
    if (mec_host && !q->maximize)
        return csr_fail(status, CSR_ERR_USAGE, "resident_prob01: the maybe MECs of a maximising query only");
    uint8_t *h = (uint8_t *)malloc(r.d.n ? r.d.n : 1);
    int rc = h ? prob01_run(r.d, q, cls, sweeps, h, mo, ms, mec_host, status) : CSR_ERR_NOMEM;
    if (!rc && mec_host)
        for (uint64_t s = 0; s < r.d.n; s++)
            if (cls[s] != REACH_MAYBE)
                mec_host[s] = GPU_MEC_NONE;
    free(h);
    return rc;
}

/* enabled[k] = 1 where zero[k] (the choice's reward is 0), else 0. */
static __global__ void zero_reward_enabled(uint64_t c, const uint8_t *zero, uint32_t *enabled)
{
    for (uint64_t k = thread_index(); k < c; k += thread_count())
        enabled[k] = zero[k];
}

int resident_maybe_mecs(resident_model &r, const uint8_t *cls, const double *choice_reward, const gpu_mec_options *mo,
                        gpu_mec_stats *ms, uint32_t *mec_host, csr_status *status)
{
    prob01_device &d = r.d;
    const uint64_t n = d.n, c = d.c;
    uint32_t *mec = nullptr, *enabled = nullptr;
    uint8_t *zero = nullptr;
    gpu::arena arena;
    TRY(gpu::plan_and_allocate(arena,
                               [&](gpu::arena &a) {
                                   mec = a.take<uint32_t>(n);
                                   if (choice_reward) {
                                       enabled = a.take<uint32_t>(c);
                                       zero = a.take<uint8_t>(c);
                                   }
                               },
                               NULL, status));
    if (choice_reward) { /* the zero-reward choices: c bytes up, widened there */
        std::unique_ptr<uint8_t[]> h(new (std::nothrow) uint8_t[c ? c : 1]);
        if (!h)
            return csr_fail(status, CSR_ERR_NOMEM, "%llu bytes of host memory", (unsigned long long)c);
        for (uint64_t k = 0; k < c; k++)
            h[k] = choice_reward[k] == 0.0;
        CUDA_TRY(cudaMemcpy(zero, h.get(), c, cudaMemcpyHostToDevice));
        zero_reward_enabled<<<grid_for(c, 256), 256>>>(c, zero, enabled);
        CUDA_TRY_LAUNCH();
    }
    CUDA_TRY(cudaMemcpy(d.bytes, cls, n, cudaMemcpyHostToDevice));
    maybe_live<<<grid_for(n, 256), 256>>>(n, d.bytes);
    CUDA_TRY_LAUNCH();
    TRY(gpu::mec_decompose_live(mo, d.model, d.bytes, enabled, mec, ms, status));
    CUDA_TRY(cudaMemcpy(mec_host, mec, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    return CSR_OK;
}

int gpu_reach_prob01(const csr_model *m, const reach_query *q, int levels, uint8_t *cls, uint64_t *sweeps,
                     csr_status *status)
{
    resident_model *r = nullptr;
    *sweeps = 0;
    int rc = resident_open(m, levels, &r, status);
    if (!rc)
        rc = resident_prob01(*r, q, cls, sweeps, NULL, NULL, NULL, status);
    resident_close(r);
    return rc;
}
