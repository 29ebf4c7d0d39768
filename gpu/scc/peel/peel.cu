/*
 * peel.cu - asynchronous peeling and its MEC form (peel.h).
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "cuda_check.h"
#include "launch.h"
#include "peel.h"

namespace gpu {

namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 256;      /* the asynchronous drain and the grid-stride kernels */
constexpr int kLevelThreads = 512; /* the drain by levels */
constexpr unsigned long long kNarrowLevel = 4096; /* a level this small is narrow */
constexpr unsigned long long kNarrowRun = 32;     /* narrow levels in a row that go by levels still */
constexpr uint32_t kNone = UINT32_MAX;

__device__ __forceinline__ uint32_t load_cg(const uint32_t *p) { return __ldcg(p); }

/* The class of s (0 without classes), loaded once a state, and whether a
 * neighbour w of a state of class own counts for it (is in that class). */
__device__ __forceinline__ uint64_t class_of(const peel_params &p, uint64_t s) { return p.cls ? p.cls[s] : 0; }
__device__ __forceinline__ bool in_class(const peel_params &p, uint64_t own, uint32_t w)
{
    return !p.cls || p.cls[w] == own;
}

__device__ __forceinline__ void mark_changed(const peel_params &p, uint32_t s)
{
    if (p.labels) {
        uint2 l = __ldcg(&p.labels[s]);
        if (l.x == l.y)
            p.changed[l.x ^ p.label_mirror] = 1;
    }
}

/* State w became removable: the thread that claims it pushes it at once, so
 * that a waiting thread removes it while this one finishes its own removal
 * (following the chain itself instead, after the rest of its removal, made
 * every link of a deep chain cost a whole removal: wlan6_2500's SCC peeling
 * 0.145 -> 0.117 s, its MEC peeling 0.197 -> 0.119 s, H200, issue 13). */
__device__ __forceinline__ void make_ready(const peel_params &p, const push_target &out, uint32_t w)
{
    if (atomicCAS(&p.flag[w], kLive, kQueued) == kLive)
        worklist_push(out, w);
}

/* make_ready for a batch: the states v[j] whose count reached 0 (old[j] ==
 * 1) that this thread claims, pushed together (worklist_push_batch). */
template <int N>
__device__ __forceinline__ void make_ready_batch(const peel_params &p, const push_target &out, const uint32_t (&v)[N],
                                                 const unsigned (&old)[N])
{
    unsigned claimed = 0;
#pragma unroll
    for (int j = 0; j < N; j++)
        if (old[j] == 1u && atomicCAS(&p.flag[v[j]], kLive, kQueued) == kLive)
            claimed |= 1u << j;
    worklist_push_batch(out, v, claimed);
}

/* kParts (peel_foreign): an edge into a copy of another part's state goes
 * to its owner's in-count, in the outbox or in place (the copy is never
 * ready here). */
__device__ __forceinline__ void take_off_foreign(const peel_params &p, uint32_t w)
{
    const uint64_t k = w - p.foreign.first;
    if (p.foreign.outbox)
        atomicAdd(&p.foreign.outbox[k], 1u);
    else if (p.flag[w] != kRemoved)
        atomicSub_system(p.foreign.owner_in_left[p.foreign.owner[k]] + p.foreign.owner_index[k], 1u);
}

/* Neighbours are visited in batches of kBatch: their loads, then their
 * atomics, are in flight together, so a state of many neighbours costs a few
 * round trips to memory instead of a few per neighbour (the removals on the
 * critical path of a deep DAG are made of these). */
constexpr int kBatch = 8;

/* Take one off in_left of the successors fwd[0..nf) of s and, kBoth, one
 * off out_left of its predecessors rev[0..nr) (those other than s, of s's
 * class); a count reaching 0 makes that state ready.  kBatch of each list go
 * in one round of loads and atomics, so a removal costs ceil(max(nf, nr) /
 * kBatch) rounds of dependent memory operations instead of those of both
 * lists one after the other.  Measured with make_ready_batch's pushes (H100,
 * leader7 after its first phase, 1.37M states in 30 levels by levels): 1.58
 * -> 1.05 ms, of which the pushes made most; the combined rounds alone moved
 * nothing beyond the noise.  (Loading a batch's classes in a loop of their
 * own before its atomics made wlan6_2500's SCCs 16 % slower and nothing
 * faster.)  kParts: a successor that is a foreign copy goes to
 * take_off_foreign, and own in-counts are taken off by atomics of system
 * scope (other GPUs take off the same ones in place). */
template <bool kBoth, bool kParts = false>
__device__ __forceinline__ void take_off(const peel_params &p, const push_target &out, uint32_t s,
                                         const uint32_t *__restrict__ fwd, uint64_t nf,
                                         const uint32_t *__restrict__ rev = nullptr, uint64_t nr = 0)
{
    constexpr int kWidth = kBoth ? 2 * kBatch : kBatch;
    const uint64_t own = class_of(p, s);
    for (uint64_t b = 0; b < nf || (kBoth && b < nr); b += kBatch) {
        uint32_t v[kWidth];
        unsigned old[kWidth];
#pragma unroll
        for (int j = 0; j < kBatch; j++) {
            v[j] = b + j < nf ? fwd[b + j] : s;
            if (kBoth)
                v[kBatch + j] = b + j < nr ? rev[b + j] : s;
        }
#pragma unroll
        for (int j = 0; j < kWidth; j++) {
            const bool counts = v[j] != s && in_class(p, own, v[j]);
            if (kParts && j < kBatch && v[j] >= p.foreign.first) {
                if (counts)
                    take_off_foreign(p, v[j]);
                old[j] = 0u;
                continue;
            }
            if (kParts && j < kBatch) /* peer: other GPUs take off the same in-counts */
                old[j] = counts ? atomicSub_system(&p.in_left[v[j]], 1u) : 0u;
            else
                old[j] = counts ? atomicSub(j < kBatch ? &p.in_left[v[j]] : &p.out_left[v[j]], 1u) : 0u;
        }
        make_ready_batch(p, out, v, old);
    }
}

/* MEC goal: disable choice k of state owner (once), with its transitions. */
__device__ __forceinline__ void disable_choice(const peel_params &p, const push_target &out, uint64_t k,
                                               uint32_t owner, unsigned long long *disabled)
{
    if (atomicExch(&p.enabled[k], 0u) == 0u)
        return;
    (*disabled)++;
    if (atomicSub(&p.choices_left[owner], 1u) == 1u)
        make_ready(p, out, owner);
    mark_changed(p, owner);
    const uint64_t first = p.choice_transitions[k], last = p.choice_transitions[k + 1];
    uint32_t leaving = 0;
    for (uint64_t i = first; i < last; i++)
        leaving += p.targets[i] != owner;
    take_off<false>(p, out, owner, p.targets + first, last - first);
    if (leaving && atomicSub(&p.out_left[owner], leaving) == leaving)
        make_ready(p, out, owner);
}

/* Remove s (claimed: kQueued); kParts: s of a part (SCC goal, no choices). */
template <peel_goal G, bool kParts = false>
__device__ void remove_state(const peel_params &p, const push_target &out, uint32_t s, unsigned long long *disabled)
{
    const uint64_t rb = p.rfirst[s], re = p.rfirst[s + 1];
    if constexpr (kParts) {
        p.component[s] = s;
        p.flag[s] = kRemoved;
        take_off<true, true>(p, out, s, p.targets + p.row[s], p.row[s + 1] - p.row[s], p.rsource + rb, re - rb);
        return;
    }
    if (G == PEEL_SCCS) {
        p.component[s] = s;
        p.flag[s] = kRemoved;
        if (!p.enabled) {
            take_off<true>(p, out, s, p.targets + p.row[s], p.row[s + 1] - p.row[s], p.rsource + rb, re - rb);
            return;
        }
        for (uint64_t k = p.state_choices[s]; k < p.state_choices[s + 1]; k++)
            if (p.enabled[k])
                take_off<false>(p, out, s, p.targets + p.choice_transitions[k],
                                p.choice_transitions[k + 1] - p.choice_transitions[k]);
        const uint64_t own = class_of(p, s);
        for (uint64_t b = rb; b < re; b += kBatch) {
            uint32_t q[kBatch], k[kBatch];
            unsigned old[kBatch];
            bool on[kBatch];
            load_transpose_batch(p.rsource, p.rchoice, b, re, q, k, on);
#pragma unroll
            for (int j = 0; j < kBatch; j++)
                q[j] = on[j] && p.enabled[k[j]] ? q[j] : s;
#pragma unroll
            for (int j = 0; j < kBatch; j++)
                old[j] = q[j] != s && in_class(p, own, q[j]) ? atomicSub(&p.out_left[q[j]], 1u) : 0u;
            make_ready_batch(p, out, q, old);
        }
        return;
    }
    /* MEC goal.  The choices of other states into s first (checked in
     * batches): on an attractor chain they free the next state, so they come
     * before the rest of s's removal. */
    mark_changed(p, s);
    p.flag[s] = kRemoved;
    for (uint64_t b = rb; b < re; b += kBatch) {
        uint32_t q[kBatch], k[kBatch];
        bool on[kBatch];
        load_transpose_batch(p.rsource, p.rchoice, b, re, q, k, on);
#pragma unroll
        for (int j = 0; j < kBatch; j++)
            on[j] = on[j] && q[j] != s && load_cg(&p.enabled[k[j]]);
#pragma unroll
        for (int j = 0; j < kBatch; j++)
            if (on[j])
                disable_choice(p, out, k[j], q[j], disabled);
    }
    /* A MEC {s} iff an enabled choice stays at s (none of those is disabled
     * before s itself is removed: only choices with a transition to another
     * state are, and the loop above skips s's own). */
    bool stays = false;
    for (uint64_t k = p.state_choices[s]; k < p.state_choices[s + 1] && !stays; k++) {
        if (!load_cg(&p.enabled[k]))
            continue;
        bool all = true;
        for (uint64_t i = p.choice_transitions[k]; i < p.choice_transitions[k + 1] && all; i++)
            all = p.targets[i] == s;
        stays = all;
    }
    p.component[s] = stays ? s : kNone;
    for (uint64_t k = p.state_choices[s]; k < p.state_choices[s + 1]; k++)
        if (load_cg(&p.enabled[k]))
            disable_choice(p, out, k, s, disabled);
}

/* ---- counting and seeding ---------------------------------------------- */

/* SCC goal: each live state's out-count and its successors' in-counts, a
 * state a group of kRowLanes lanes (model.h). */
static __global__ void count_sccs(peel_params p)
{
    const auto group = row_group();
    for (uint64_t s = group_index(); s < p.n; s += group_count()) {
        if (p.flag[s] != kLive)
            continue;
        uint32_t out = 0;
        const uint64_t own = class_of(p, s);
        for (uint64_t i = p.row[s] + group.thread_rank(); i < p.row[s + 1]; i += kRowLanes) {
            if (p.enabled && !p.enabled[choice_of(p.state_choices, p.choice_transitions, s, i)])
                continue;
            const uint32_t w = p.targets[i];
            if (w != s && p.flag[w] == kLive && in_class(p, own, w)) {
                out++;
                atomicAdd(&p.in_left[w], 1u);
            }
        }
        out = cg::reduce(group, out, cg::plus<uint32_t>());
        if (group.thread_rank() == 0)
            p.out_left[s] = out;
    }
}

/* MEC goal, before counting: a choice with a transition out of the live
 * states of its state's class can be in no end component of the subsystem. */
static __global__ void disable_leaving(peel_params p)
{
    const auto group = row_group();
    for (uint64_t s = group_index(); s < p.n; s += group_count()) {
        if (p.flag[s] != kLive) {
            /* A state outside the subsystem has no choice in it.  Left
             * enabled, a removal that disables such a choice would take its
             * transitions off the in-counts of live targets, which
             * count_mecs never counted (only live states' choices are):
             * live states would leave too early. */
            for (uint64_t k = p.state_choices[s] + group.thread_rank(); k < p.state_choices[s + 1]; k += kRowLanes)
                p.enabled[k] = 0;
            continue;
        }
        const uint64_t own = class_of(p, s);
        for (uint64_t i = p.row[s] + group.thread_rank(); i < p.row[s + 1]; i += kRowLanes) {
            const uint32_t w = p.targets[i];
            if (p.flag[w] != kLive || !in_class(p, own, w))
                p.enabled[choice_of(p.state_choices, p.choice_transitions, s, i)] = 0;
        }
    }
}

/* MEC goal: each live state's enabled choices and the transitions of those
 * to other states (out-count, and the targets' in-counts), a state a group
 * of kRowLanes lanes (model.h). */
static __global__ void count_mecs(peel_params p)
{
    const auto group = row_group();
    for (uint64_t s = group_index(); s < p.n; s += group_count()) {
        if (p.flag[s] != kLive)
            continue;
        uint32_t out = 0, choices = 0;
        for (uint64_t k = p.state_choices[s] + group.thread_rank(); k < p.state_choices[s + 1]; k += kRowLanes)
            choices += p.enabled[k] != 0;
        for (uint64_t i = p.row[s] + group.thread_rank(); i < p.row[s + 1]; i += kRowLanes) {
            const uint32_t w = p.targets[i];
            if (w != s && p.enabled[choice_of(p.state_choices, p.choice_transitions, s, i)]) {
                out++;
                atomicAdd(&p.in_left[w], 1u);
            }
        }
        out = cg::reduce(group, out, cg::plus<uint32_t>());
        choices = cg::reduce(group, choices, cg::plus<uint32_t>());
        if (group.thread_rank() == 0) {
            p.out_left[s] = out;
            p.choices_left[s] = choices;
        }
    }
}

template <peel_goal G> static __global__ void seed(peel_params p)
{
    const push_target out = worklist_tail(p.queue);
    for (uint64_t s = thread_index(); s < p.n; s += thread_count()) {
        if (p.flag[s] != kLive)
            continue;
        if (p.in_left[s] == 0 || p.out_left[s] == 0 || (G == PEEL_MECS && p.choices_left[s] == 0))
            if (atomicCAS(&p.flag[s], kLive, kQueued) == kLive)
                worklist_push(out, (uint32_t)s);
    }
}

__device__ __forceinline__ void add_stats(const peel_params &p, unsigned long long removed, unsigned long long disabled)
{
    if (removed)
        atomicAdd(&p.stats[0], removed);
    if (disabled)
        atomicAdd(&p.stats[1], disabled);
}

/* The asynchronous drain: every thread takes an item and removes it (what
 * that frees is pushed), until the worklist is drained. */
template <peel_goal G, bool kParts>
static __global__ void __launch_bounds__(kThreads) drain_async(peel_params p)
{
    unsigned long long removed = 0, disabled = 0;
    worklist_drain(p.queue, [&](uint32_t s, const push_target &out) {
        removed++;
        remove_state<G, kParts>(p, out, s, &disabled);
    });
    add_stats(p, removed, disabled);
}

/* The drain by levels, one cooperative kernel, while levels are wide or
 * have been narrow for fewer than kNarrowRun levels in a row; the rest goes
 * to the asynchronous drain launched after it.  Level 0 is
 * the slots [head, tail) pushed before the launch; level k + 1 the states
 * that removing level k made removable, written after level k's slots and
 * counted on ring[(k + 1) % 3] (ring[k % 3] is read at the start of level
 * k, and ring[(k + 2) % 3] reset during it, when nobody reads or writes it;
 * the host zeroes the ring before the launch).  A wide level keeps every
 * thread busy with one removal and costs one grid barrier: far more removals
 * a second than the asynchronous drain, whose threads wait on slots (coin6_4
 * MECs: 0.023 s against 0.041 s).  Once kNarrowRun levels in a row have had
 * at most kNarrowLevel states each (a deep chain of few states a level:
 * wlan6_2500 has about 16,600 levels, where a barrier per level costs 40
 * times the asynchronous drain), the kernel stops and leaves the next level
 * to the asynchronous drain as its queue: head = done = its first slot, tail
 * its end, drained when it is empty.  The run matters where the work starts
 * narrow and widens: an MEC attractor from a few seeds, which the first
 * narrow level handed whole to the asynchronous drain, whose claims and done
 * counts on one counter each remove fewer states a second than the levels
 * (leader7's MECs by the interleaved scheme, 2.1M states: 10.5 ms
 * asynchronous, 7.8 ms by levels, ncu).  The lent H100, 2026-11-25, resident
 * ms with runs of 0 (until then) and 32, labels equal: gpu-mec --scheme
 * interleave leader7 10.3-10.5 -> 7.8-8.1, coin6_4 19.3-19.6 -> 13.4-13.8;
 * gpu-scc and the round-based MECs unchanged; wlan6_2500, whose chains pay
 * the 32 barriers, gpu-scc 125.6-125.9 -> 126.1-126.4, its MECs (interleaved)
 * 109.2-112.0 -> 112.4-113.8 (every level by levels instead: 665 ms and
 * 6.2 s; a run of 16 left leader7 at 10.4-10.5; bench/RESULTS.md). */
template <peel_goal G, bool kParts>
static __global__ void __launch_bounds__(kLevelThreads) drain_levels(peel_params p)
{
    cg::grid_group grid = cg::this_grid();
    unsigned long long *ring = p.queue.counter + PEEL_RING;
    unsigned long long removed = 0, disabled = 0;
    unsigned long long lo = load_relaxed(&p.queue.counter[WL_HEAD]);
    unsigned long long size = load_relaxed(&p.queue.counter[WL_TAIL]) - lo;
    unsigned long long k = 0, narrow_run = 0;
    while (size > 0 && (size > kNarrowLevel || narrow_run < kNarrowRun)) {
        narrow_run = size > kNarrowLevel ? 0 : narrow_run + 1;
        const unsigned long long hi = lo + size;
        const push_target out = {p.queue.items + hi, &ring[(k + 1) % 3]};
        if (grid.thread_rank() == 0)
            ring[(k + 2) % 3] = 0;
        for (unsigned long long i = lo + grid.thread_rank(); i < hi; i += grid.size()) {
            removed++; /* what this frees goes to the next level */
            remove_state<G, kParts>(p, out, __ldcg(&p.queue.items[i]), &disabled);
        }
        grid.sync();
        lo = hi;
        k++;
        size = load_relaxed(&ring[k % 3]);
    }
    add_stats(p, removed, disabled);
    grid.sync(); /* every block has read head and tail before they change */
    if (grid.thread_rank() == 0) {
        volatile unsigned long long *c = p.queue.counter;
        c[WL_HEAD] = c[WL_DONE] = lo;
        c[WL_TAIL] = lo + size;
        c[WL_DRAINED] = size == 0;
        p.stats[2] += k;
    }
}

__device__ __forceinline__ bool same_labels(uint2 a, uint2 b) { return a.x == b.x && a.y == b.y; }

static __global__ void cut_sccs(peel_params p, const uint2 *__restrict__ edges, uint64_t ne)
{
    const push_target out = worklist_tail(p.queue);
    for (uint64_t e = thread_index(); e < ne; e += thread_count()) {
        uint2 uv = edges[e];
        if (same_labels(p.labels[uv.x], p.labels[uv.y]))
            continue;
        const uint32_t v[2] = {uv.x, uv.y};
        const unsigned old[2] = {atomicSub(&p.out_left[uv.x], 1u), atomicSub(&p.in_left[uv.y], 1u)};
        make_ready_batch(p, out, v, old);
    }
}

static __global__ void cut_mecs(peel_params p, const uint2 *__restrict__ edges, const uint32_t *__restrict__ edge_choice,
                                uint64_t ne)
{
    const push_target out = worklist_tail(p.queue);
    unsigned long long disabled = 0;
    for (uint64_t e = thread_index(); e < ne; e += thread_count()) {
        uint2 uv = edges[e];
        if (same_labels(p.labels[uv.x], p.labels[uv.y]))
            continue;
        disable_choice(p, out, edge_choice[e], uv.x, &disabled);
    }
    if (disabled)
        atomicAdd(&p.stats[1], disabled);
}

} /* namespace */

void peel_buffers::plan(arena &a, uint64_t n)
{
    items = a.take<uint32_t>(n);
    counters = a.take<unsigned long long>(PEEL_COUNTER_WORDS);
}

int peel_buffers::reset(uint64_t n, csr_status *status, cudaStream_t stream)
{
    capacity = n;
    CUDA_TRY(cudaMemsetAsync(items, 0xff, (n ? n : 1) * sizeof(uint32_t), stream));
    CUDA_TRY(cudaMemsetAsync(counters, 0, PEEL_COUNTER_WORDS * sizeof(unsigned long long), stream));
    return CSR_OK;
}

int peel_count(const peel_params &p, peel_goal goal, csr_status *status)
{
    if (goal == PEEL_SCCS) {
        count_sccs<<<grid_for_rows(p.n, kThreads), kThreads>>>(p);
        CUDA_TRY_LAUNCH();
        return CSR_OK;
    }
    disable_leaving<<<grid_for_rows(p.n, kThreads), kThreads>>>(p);
    CUDA_TRY_LAUNCH();
    count_mecs<<<grid_for_rows(p.n, kThreads), kThreads>>>(p);
    CUDA_TRY_LAUNCH();
    return CSR_OK;
}

int peel_seed(const peel_params &p, peel_goal goal, csr_status *status)
{
    if (goal == PEEL_SCCS)
        seed<PEEL_SCCS><<<grid_for(p.n, kThreads), kThreads>>>(p);
    else
        seed<PEEL_MECS><<<grid_for(p.n, kThreads), kThreads>>>(p);
    CUDA_TRY_LAUNCH();
    return CSR_OK;
}

/* The drain kernels of a goal, with or without foreign copies. */
struct drain_kernels {
    const void *levels, *async;
};

static drain_kernels drain_kernels_for(peel_goal goal, bool parts)
{
    if (parts)
        return {(const void *)drain_levels<PEEL_SCCS, true>, (const void *)drain_async<PEEL_SCCS, true>};
    if (goal == PEEL_MECS)
        return {(const void *)drain_levels<PEEL_MECS, false>, (const void *)drain_async<PEEL_MECS, false>};
    return {(const void *)drain_levels<PEEL_SCCS, false>, (const void *)drain_async<PEEL_SCCS, false>};
}

int peel_drain(const peel_params &p, peel_goal goal, peel_schedule schedule, unsigned blocks, csr_status *status,
               cudaStream_t stream, unsigned share)
{
    const bool parts = p.foreign.outbox || p.foreign.owner_in_left;
    if (parts && goal != PEEL_SCCS)
        return csr_fail(status, CSR_ERR_DEVICE, "peeling: a part of several GPUs is peeled for its SCCs only");
    const drain_kernels k = drain_kernels_for(goal, parts);
    auto grid_of = [&](const void *kernel, int threads) {
        unsigned grid = resident_blocks(kernel, threads, blocks);
        if (blocks == 0 && share > 1 && grid > 0)
            grid = grid / share > 0 ? grid / share : 1;
        return grid;
    };
    /* head back to done: the slots claimed and left empty by the last
     * asynchronous drain are the ones the pushes since then filled */
    CUDA_TRY(cudaMemcpyAsync(&p.queue.counter[WL_HEAD], &p.queue.counter[WL_DONE], sizeof(unsigned long long),
                             cudaMemcpyDeviceToDevice, stream));
    if (schedule == PEEL_BY_LEVELS) {
        const unsigned grid = grid_of(k.levels, kLevelThreads);
        if (grid == 0)
            return csr_fail(status, CSR_ERR_DEVICE, "CUDA: the peeling kernel cannot be resident on this device");
        CUDA_TRY(cudaMemsetAsync(&p.queue.counter[PEEL_RING], 0, 3 * sizeof(unsigned long long), stream));
        peel_params arg = p;
        void *args[] = {&arg};
        CUDA_TRY(cudaLaunchCooperativeKernel(k.levels, grid, kLevelThreads, args, 0, stream));
        CUDA_TRY_LAUNCH();
    } else {
        CUDA_TRY(cudaMemsetAsync(&p.queue.counter[WL_DRAINED], 0, sizeof(unsigned long long), stream));
    }
    /* the asynchronous drain: all of it, or the narrow rest after the levels */
    const unsigned grid = grid_of(k.async, kThreads);
    if (grid == 0)
        return csr_fail(status, CSR_ERR_DEVICE, "CUDA: the peeling kernel cannot be resident on this device");
    peel_params arg = p;
    void *args[] = {&arg};
    CUDA_TRY(cudaLaunchKernel(k.async, grid, kThreads, args, 0, stream));
    CUDA_TRY_LAUNCH();
    return CSR_OK;
}

int peel_cut(const peel_params &p, peel_goal goal, const uint2 *edges, const uint32_t *edge_choice, uint64_t ne,
             csr_status *status)
{
    if (ne == 0)
        return CSR_OK;
    if (goal == PEEL_SCCS)
        cut_sccs<<<grid_for(ne, kThreads), kThreads>>>(p, edges, ne);
    else
        cut_mecs<<<grid_for(ne, kThreads), kThreads>>>(p, edges, edge_choice, ne);
    CUDA_TRY_LAUNCH();
    return CSR_OK;
}

} /* namespace gpu */
