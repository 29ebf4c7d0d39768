/*
 * sweep.cu - the sweep classes of the iteration (sweep.h): each maybe
 * slot's level by a breadth-first search backwards from the fixed states on
 * the device, a stable radix sort by class, the system rebuilt in that
 * order.
 */
#include <cub/cub.cuh>

#include "cuda_check.h"
#include "launch.h"
#include "sweep.h"

using gpu::grid_for;
using gpu::thread_count;
using gpu::thread_index;

#define VI_NO_LEVEL UINT32_MAX

/* Each maybe successor t of maybe slot i (branches and deterministic
 * choice words), f(i, t); returns whether i has a fixed successor (slot nm
 * or more: the fixed slots and the zero slot). */
template <typename F> static __device__ __forceinline__ bool for_successors(const vi_view &v, uint64_t i, F f)
{
    bool fixed = false;
    for (uint32_t k = v.state_first[i]; k < v.state_first[i + 1]; k++) {
        const uint32_t word = v.choice[k];
        if (word & VI_DETERMINISTIC) {
            const uint32_t t = word & VI_SLOT_MASK;
            if (t < v.nm)
                f(t);
            else
                fixed = true;
            continue;
        }
        for (uint32_t j = word;; j++) {
            const uint32_t tt = v.target[j], t = tt & VI_SLOT_MASK;
            if (t < v.nm)
                f(t);
            else
                fixed = true;
            if (tt & VI_LAST_BRANCH)
                break;
        }
    }
    return fixed;
}

/* The first level and the predecessors' counts: level[i] = 1 where near[i]
 * (a transition into a fixed state, also one the compaction dropped) or a
 * successor is fixed, those slots the frontier of level 1 (*size); else no
 * level yet; count[t] += the edges into maybe slot t. */
static __global__ void levels_seed(vi_view v, const uint8_t *near, uint32_t *level, uint32_t *count,
                                   uint32_t *frontier, unsigned *size)
{
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        const bool fixed = for_successors(v, i, [&](uint32_t t) { atomicAdd(&count[t], 1u); });
        const bool seed = near[i] || fixed;
        level[i] = seed ? 1u : VI_NO_LEVEL;
        if (seed)
            frontier[atomicAdd(size, 1u)] = (uint32_t)i;
    }
}

/* The predecessors' lists: source[first[t] ..) the maybe slots with an
 * edge into t (cursor: zeros, the places taken so far). */
static __global__ void levels_fill(vi_view v, const uint32_t *first, uint32_t *cursor, uint32_t *source)
{
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count())
        for_successors(v, i, [&](uint32_t t) { source[first[t] + atomicAdd(&cursor[t], 1u)] = (uint32_t)i; });
}

/* Level `step` + 1 of the search: the slots of the frontier (size[step %
 * 3] of them) give their predecessors without a level the next one, pushed
 * to next (size[(step + 1) % 3]); size[(step + 2) % 3], the frontier's
 * before, is cleared for the level after.  The host reads no level's size:
 * the grid strides over whatever the frontier holds. */
static __global__ void levels_expand(const uint32_t *first, const uint32_t *source, uint32_t *level,
                                     const uint32_t *frontier, uint32_t *next, unsigned *size, unsigned step)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        size[(step + 2) % 3] = 0;
    const unsigned count = size[step % 3];
    for (uint64_t x = thread_index(); x < count; x += thread_count()) {
        const uint32_t t = frontier[x], l = level[t] + 1;
        for (uint32_t e = first[t]; e < first[t + 1]; e++) {
            const uint32_t i = source[e];
            if (level[i] == VI_NO_LEVEL && atomicCAS(&level[i], VI_NO_LEVEL, l) == VI_NO_LEVEL)
                next[atomicAdd(&size[(step + 1) % 3], 1u)] = i;
        }
    }
}

/* The levels launched between two host reads of the frontier's size. */
constexpr unsigned kLevelBatch = 32;

/* The levels of the maybe slots of v into w.level: 1 + the length of the
 * shortest path to a fixed state (or near it), VI_NO_LEVEL where none
 * leads; *rounds += the levels searched, rounded up to a multiple of
 * kLevelBatch.  The fixpoint of Bellman-Ford's rounds over the choice
 * words, in O(nm + mc + mb) work: wlan.6's 1,500-odd rounds over every slot
 * took most of the sweep classes' time.  edges: mc + mb, below 2^32 (a
 * predecessor at most a choice word and a branch); the predecessors' lists
 * and the second frontier are freed on return. */
static int search_levels(const vi_view &v, const uint8_t *near_fixed, uint64_t edges, vi_workspace &w,
                         cudaStream_t s, uint64_t *rounds, csr_status *status)
{
    const uint64_t nm = v.nm;
    TRY(grow(w.count, nm + 1, status));
    TRY(grow(w.branch_first, nm + 1, status));
    TRY(grow(w.level_source, edges, status));
    TRY(grow(w.frontier, nm, status));
    uint32_t *count = w.count.p, *first = w.branch_first.p, *frontier[2] = {w.order.p, w.frontier.p};
    unsigned *size = w.class_first.p; /* 3 counters */
    size_t space = 0;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, space, count, first, nm + 1, s));
    TRY(grow(w.scratch, space, status));
    const unsigned blocks = grid_for(nm, VI_THREADS);
    CUDA_TRY(cudaMemcpyAsync(w.key.p, near_fixed, nm, cudaMemcpyHostToDevice, s));
    CUDA_TRY(cudaMemsetAsync(count, 0, (nm + 1) * sizeof(uint32_t), s));
    CUDA_TRY(cudaMemsetAsync(size, 0, 3 * sizeof(unsigned), s));
    levels_seed<<<blocks, VI_THREADS, 0, s>>>(v, w.key.p, w.level.p, count, frontier[0], size);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(w.scratch.p, space, count, first, nm + 1, s));
    CUDA_TRY(cudaMemsetAsync(count, 0, nm * sizeof(uint32_t), s));
    levels_fill<<<blocks, VI_THREADS, 0, s>>>(v, first, count, w.level_source.p);
    CUDA_TRY_LAUNCH();
    const unsigned grid = gpu::resident_blocks((const void *)levels_expand, VI_THREADS, blocks);
    for (unsigned step = 0;; step += kLevelBatch) {
        for (unsigned j = 0; j < kLevelBatch; j++)
            levels_expand<<<grid ? grid : blocks, VI_THREADS, 0, s>>>(first, w.level_source.p, w.level.p,
                                                                      frontier[(step + j) & 1],
                                                                      frontier[(step + j + 1) & 1], size, step + j);
        CUDA_TRY_LAUNCH();
        unsigned left = 0;
        CUDA_TRY(cudaMemcpyAsync(&left, size + (step + kLevelBatch) % 3, sizeof left, cudaMemcpyDeviceToHost, s));
        CUDA_TRY(cudaStreamSynchronize(s));
        *rounds += kLevelBatch;
        if (!left) {
            w.level_source.release();
            w.frontier.release();
            return CSR_OK;
        }
    }
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

unsigned sweep_classes_for(uint64_t levels)
{
    const uint64_t k = levels / GPU_REACH_LEVELS_PER_CLASS;
    return k < GPU_REACH_SWEEP_CLASSES ? GPU_REACH_SWEEP_CLASSES
           : k > GPU_REACH_AUTO_SWEEP_CLASSES ? GPU_REACH_AUTO_SWEEP_CLASSES
                                             : (unsigned)k;
}

int sweep_order(const vi_view &v, const uint8_t *near_fixed, uint64_t edges, unsigned classes, vi_workspace &w,
                cudaStream_t s, vi_sweep *sw, uint64_t *rounds, csr_status *status)
{
    const uint64_t nm = v.nm;
    TRY(grow(w.level, nm, status));
    TRY(grow(w.order, nm, status));
    TRY(grow(w.key, nm, status));
    TRY(grow(w.sorted_key, nm, status));
    TRY(grow(w.class_first, GPU_REACH_MAX_SWEEP_CLASSES + 2, status)); /* and the search's counters */
    uint64_t levels = 0;
    TRY(search_levels(v, near_fixed, edges, w, s, &levels, status));
    *rounds += levels;
    if (!classes) /* by the depth: values travel a class a launch, but each launch costs */
        classes = sweep_classes_for(levels);
    int bits = 1;
    while ((1u << bits) < classes)
        bits++;
    size_t space = 0;
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, space, w.key.p, w.sorted_key.p, w.level.p, w.order.p, (int)nm,
                                             0, bits, s));
    TRY(grow(w.scratch, space, status));
    const unsigned blocks = grid_for(nm, VI_THREADS);
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

/* Device bytes sweep_order and sweep_renumber take beyond the system's. */
uint64_t sweep_bytes(const compact_system &cs, bool mecs)
{
    const uint64_t nm = cs.nm, mc = cs.mc, mb = cs.mb;
    return 4 * (nm + 1) + 4 * (mc + 1) + 4 * mb + (cs.dictionary ? 2 : 8) * mb + 16 * cs.slots() +
           (mecs ? 4 * nm + mc : 0) + (cs.reward ? 8 * mc : 0) /* the new arrays */
           + 8 * ((nm > mc ? nm : mc) + 1)                    /* count, branch_first */
           + 10 * nm + 4 * (GPU_REACH_MAX_SWEEP_CLASSES + 2)  /* level, order, keys */
           + 4 * (mc + mb) + 4 * nm                           /* the levels' predecessors, frontier */
           + (1u << 20);                                      /* CUB's space, about */
}

int sweep_renumber(vi_view &v, const compact_system &cs, vi_workspace &w, cudaStream_t s, csr_status *status)
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

