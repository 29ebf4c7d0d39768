/*
 * fb_phases.cuh - the phases of forward-backward SCC decomposition as device
 * functions over all regions at once (internal to gpu/scc/fb; fb.cu drives
 * them): trimming (FMSD section 2.2, by sweeps or over queues), pivot
 * selection (Algorithm 6), forward and backward search (Algorithms 3 and 4,
 * hybrid, bounded as in Algorithm 2), and the split into the next regions.
 *
 * A region is named by a 64-bit key: the caller's region hint << 2 at first,
 * then (pivot << 2 | part) where part says which of the pivot's parts
 * (forward only, backward only, neither) a state fell in; kDone: the state
 * takes no part.  Every function is a grid-stride loop that all threads of
 * the grid call (search_sweep also synchronises each block).
 */
#ifndef GPU_FB_PHASES_CUH
#define GPU_FB_PHASES_CUH

#include <stdint.h>

#include "csr.h"
#include "launch.h"

namespace gpu {
namespace fb {

using gpu::thread_count;
using gpu::thread_index;

constexpr uint64_t kDone = ~0ull;      /* region key of a state outside every search region */
constexpr uint64_t kEmptySlot = ~0ull; /* free slot of the pivot hash table */

/* Search marks of a state, per direction. */
constexpr uint8_t kUnreached = 0, kFrontier = 1, kExplored = 2;

/* Parts of a region after a search (the low bits of the new key). */
constexpr uint64_t kPartForward = 1, kPartBackward = 2, kPartNeither = 3;

/* The graph searched: row[n+1] offsets into col[t]; the transpose rrow/rcol
 * or NULL; the interleaved segments of restructured input (FMSD section 5.1)
 * for states [0, interleaved), or interleaved = 0. */
struct device_graph {
    const uint64_t *row;
    const uint32_t *col;
    const uint64_t *rrow;
    const uint32_t *rcol;
    uint64_t n;
    uint64_t interleaved;
    const uint64_t *seg_first;
    const uint32_t *seg_targets;
};

/* Call visit(v) for the successors v of u until it returns true.  States of
 * the interleaved prefix read their segment (FMSD section 5.1): the 32 lanes
 * of a warp, consecutive states, read consecutive words; the others read
 * their CSR row. */
template <typename Visit> __device__ __forceinline__ void for_each_successor(const device_graph &g, uint64_t u, Visit visit)
{
    if (u < g.interleaved) {
        uint64_t seg = u / CSR_SEGMENT_LANES, end = g.seg_first[seg + 1];
        for (uint64_t i = g.seg_first[seg] + u % CSR_SEGMENT_LANES; i < end; i += CSR_SEGMENT_LANES) {
            uint32_t v = g.seg_targets[i];
            if (v == CSR_SEGMENT_EMPTY || visit(v))
                return;
        }
        return;
    }
    for (uint64_t i = g.row[u]; i < g.row[u + 1]; i++)
        if (visit(g.col[i]))
            return;
}

__device__ __forceinline__ uint64_t mix_key(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* ---- trimming ----------------------------------------------------------- */

/* Without a transpose: mark the states that have an in-transition from their region. */
static __device__ void trim_mark_in(const device_graph &g, const uint64_t *__restrict__ key, uint8_t *__restrict__ has_in)
{
    for (uint64_t u = thread_index(); u < g.n; u += thread_count()) {
        uint64_t k = key[u];
        if (k == kDone)
            continue;
        for_each_successor(g, u, [&](uint32_t v) {
            if (key[v] == k && v != u)
                has_in[v] = 1;
            return false;
        });
    }
}

static __device__ void clear_bytes(uint8_t *__restrict__ p, uint64_t n)
{
    for (uint64_t u = thread_index(); u < n; u += thread_count())
        p[u] = 0;
}

/* One trimming sweep: a state with no in- or no out-transition inside its
 * region is an SCC of its own (FMSD section 2.2).  Self-loops are not
 * counted: they do not change that the state is alone in its SCC, and one-state
 * SCCs with a self-loop (the MECs of many models) are trimmed instead of
 * costing a pivot round each.  has_in: NULL to use the transpose.  Returns
 * how many states this thread trimmed. */
static __device__ unsigned long long trim_sweep(const device_graph &g, uint64_t *__restrict__ key, uint32_t *__restrict__ scc,
                                         const uint8_t *__restrict__ has_in)
{
    unsigned long long mine = 0;
    for (uint64_t u = thread_index(); u < g.n; u += thread_count()) {
        uint64_t k = key[u];
        if (k == kDone)
            continue;
        bool out = false, in;
        for_each_successor(g, u, [&](uint32_t v) { return out = key[v] == k && v != u; });
        if (has_in) {
            in = has_in[u];
        } else {
            in = false;
            for (uint64_t i = g.rrow[u]; i < g.rrow[u + 1] && !in; i++)
                in = key[g.rcol[i]] == k && g.rcol[i] != u;
        }
        if (!out || !in) {
            key[u] = kDone;
            scc[u] = (uint32_t)u;
            mine++;
        }
    }
    return mine;
}

static __device__ unsigned long long count_active(const uint64_t *__restrict__ key, uint64_t n)
{
    unsigned long long mine = 0;
    for (uint64_t u = thread_index(); u < n; u += thread_count())
        mine += key[u] != kDone;
    return mine;
}

/* ---- pivot selection (Algorithm 6) ------------------------------------- */

/* Every active state races to claim the slot of its region's key; the first
 * atomicCAS wins and its state becomes the pivot.  With aggregation, the
 * threads of a warp that share a key elect one leader (match/ffs) and only it
 * races.  The loop is warp-uniform so that every lane takes part in the vote.
 * candidate: NULL, or only flagged states race (the J sets); a slot already
 * claimed is read, not raced for, so a second pass without candidates gives
 * pivots only to the regions the first pass left without one. */
static __device__ void pivot_claim(const uint64_t *__restrict__ key, uint64_t n, uint64_t *__restrict__ slot_key,
                            uint32_t *__restrict__ slot_pivot, uint64_t mask, int aggregate,
                            const uint8_t *__restrict__ candidate)
{
    const unsigned lane = threadIdx.x & 31;
    const uint64_t warp = thread_index() >> 5, warps = thread_count() >> 5;
    for (uint64_t base = warp * 32; base < n; base += warps * 32) {
        uint64_t u = base + lane;
        uint64_t k = u < n ? key[u] : kDone;
        if (candidate && u < n && !candidate[u])
            k = kDone;
        bool racer = k != kDone;
        if (aggregate) {
            unsigned same = __match_any_sync(0xffffffffu, k);
            racer = racer && lane == (unsigned)(__ffs(same) - 1);
        }
        if (!racer)
            continue;
        uint64_t h = mix_key(k) & mask;
        for (;;) {
            unsigned long long prev = *(volatile unsigned long long *)&slot_key[h];
            if (prev == kEmptySlot)
                prev = atomicCAS((unsigned long long *)&slot_key[h], (unsigned long long)kEmptySlot,
                                 (unsigned long long)k);
            if (prev == kEmptySlot) {
                slot_pivot[h] = (uint32_t)u;
                break;
            }
            if (prev == k)
                break;
            h = (h + 1) & mask;
        }
    }
}

/* Each active state learns its region's pivot; the pivot starts both searches. */
static __device__ void pivot_lookup(const uint64_t *__restrict__ key, uint64_t n, const uint64_t *__restrict__ slot_key,
                             const uint32_t *__restrict__ slot_pivot, uint64_t mask, uint32_t *__restrict__ pivot,
                             uint8_t *__restrict__ fw, uint8_t *__restrict__ bw)
{
    for (uint64_t u = thread_index(); u < n; u += thread_count()) {
        uint64_t k = key[u];
        if (k == kDone)
            continue;
        uint64_t h = mix_key(k) & mask;
        while (slot_key[h] != k)
            h = (h + 1) & mask;
        uint32_t p = slot_pivot[h];
        pivot[u] = p;
        uint8_t start = p == (uint32_t)u ? kFrontier : kUnreached;
        fw[u] = start;
        bw[u] = start;
    }
}

/* ---- forward and backward search (Algorithm 3, hybrid, bounded) -------- */

struct search_args {
    const uint64_t *key;
    const uint32_t *pivot;
    uint8_t *fw, *bw;
    const uint8_t *fw_bound, *bw_bound; /* BFBT: explore only states reached by the other, converged search */
};

/* A block's local cache (Algorithm 4): states a block's threads add to a
 * frontier are also queued in shared memory, and the block explores them
 * itself for a few iterations before the sweep ends, so that a search goes
 * several levels deep in one sweep over the states. */
constexpr int kCacheSize = 1024;

struct block_queue {
    uint32_t *items;
    int *count;
    __device__ void push(uint32_t v)
    {
        int at = atomicAdd(count, 1);
        if (at < kCacheSize)
            items[at] = v;
    }
};

/* Explore frontier state u of one search: its successors in the region (over
 * row/col: forward on the CSR, backward on the transpose) join the frontier,
 * and the block's queue when there is one.  Returns whether it added a state. */
static __device__ bool explore_push(uint64_t u, uint32_t p, const uint64_t *__restrict__ row, const uint32_t *__restrict__ col,
                             const uint64_t *__restrict__ key, const uint32_t *__restrict__ pivot, uint8_t *__restrict__ mark,
                             block_queue *queue)
{
    mark[u] = kExplored;
    bool grew = false;
    for (uint64_t i = row[u]; i < row[u + 1]; i++) {
        uint32_t v = col[i];
        if (key[v] != kDone && pivot[v] == p && mark[v] == kUnreached) {
            mark[v] = kFrontier;
            grew = true;
            if (queue)
                queue->push(v);
        }
    }
    return grew;
}

/* Forward exploration of u: over its segment when it has one. */
static __device__ bool explore_forward(const device_graph &g, uint64_t u, uint32_t p, const uint64_t *__restrict__ key,
                                const uint32_t *__restrict__ pivot, uint8_t *__restrict__ mark, block_queue *queue)
{
    if (u >= g.interleaved)
        return explore_push(u, p, g.row, g.col, key, pivot, mark, queue);
    mark[u] = kExplored;
    bool grew = false;
    for_each_successor(g, u, [&](uint32_t v) {
        if (key[v] != kDone && pivot[v] == p && mark[v] == kUnreached) {
            mark[v] = kFrontier;
            grew = true;
            if (queue)
                queue->push(v);
        }
        return false;
    });
    return grew;
}

/* One sweep over all states, forward and/or backward (both at once is the
 * hybrid kernel), then up to cache_iterations rounds over the block's local
 * caches.  grew[0], grew[1]: whether the forward, backward search added
 * states.  Every thread of the block must call it (it synchronises the block
 * when cache_iterations > 0). */
static __device__ void search_sweep(const device_graph &g, const search_args &a, bool do_fw, bool do_bw, bool grew[2],
                             int cache_iterations)
{
    __shared__ uint32_t items[2][2][kCacheSize]; /* [direction][buffer] */
    __shared__ int counts[2][2];
    const bool cached = cache_iterations > 0;
    if (cached) {
        if (threadIdx.x < 4)
            counts[threadIdx.x >> 1][threadIdx.x & 1] = 0;
        __syncthreads();
    }
    block_queue q[2] = {{items[0][0], &counts[0][0]}, {items[1][0], &counts[1][0]}};
    for (uint64_t u = thread_index(); u < g.n; u += thread_count()) {
        if (a.key[u] == kDone)
            continue;
        uint32_t p = a.pivot[u];
        if (do_fw && a.fw[u] == kFrontier && (!a.fw_bound || a.fw_bound[u]))
            grew[0] |= explore_forward(g, u, p, a.key, a.pivot, a.fw, cached ? &q[0] : nullptr);
        if (do_bw && a.bw[u] == kFrontier && (!a.bw_bound || a.bw_bound[u]))
            grew[1] |= explore_push(u, p, g.rrow, g.rcol, a.key, a.pivot, a.bw, cached ? &q[1] : nullptr);
    }
    for (int it = 0; it < cache_iterations; it++) {
        const int cur = it & 1, nxt = cur ^ 1;
        __syncthreads();
        int have[2] = {min(counts[0][cur], kCacheSize), min(counts[1][cur], kCacheSize)};
        if (have[0] == 0 && have[1] == 0)
            break; /* the same for every thread of the block */
        if (threadIdx.x < 2)
            counts[threadIdx.x][nxt] = 0;
        __syncthreads();
        for (int dir = 0; dir < 2; dir++) {
            uint8_t *mark = dir ? a.bw : a.fw;
            const uint8_t *bound = dir ? a.bw_bound : a.fw_bound;
            block_queue next = {items[dir][nxt], &counts[dir][nxt]};
            for (int k = threadIdx.x; k < have[dir]; k += blockDim.x) {
                uint32_t v = items[dir][cur][k];
                if (mark[v] != kFrontier || (bound && !bound[v]))
                    continue;
                grew[dir] |= dir ? explore_push(v, a.pivot[v], g.rrow, g.rcol, a.key, a.pivot, a.bw, &next)
                                 : explore_forward(g, v, a.pivot[v], a.key, a.pivot, a.fw, &next);
            }
        }
    }
    if (cached)
        __syncthreads(); /* the queues are reused by the next sweep */
}

/* Backward search without a transpose: an unreached state joins when one of
 * its successors in the region has been reached (section 5.1). */
static __device__ void search_sweep_backward_pull(const device_graph &g, const search_args &a, bool grew[2])
{
    for (uint64_t u = thread_index(); u < g.n; u += thread_count()) {
        if (a.key[u] == kDone || a.bw[u] != kUnreached || (a.bw_bound && !a.bw_bound[u]))
            continue;
        uint32_t p = a.pivot[u];
        for_each_successor(g, u, [&](uint32_t v) {
            if (a.key[v] != kDone && a.pivot[v] == p && a.bw[v] != kUnreached) {
                a.bw[u] = kExplored;
                grew[1] = true;
                return true;
            }
            return false;
        });
    }
}

/* Host-driven search (the article's way): one sweep per launch; grew[0..1]
 * are set when the forward, backward search added states. */

/* After the search: F and B both -> the pivot's SCC; otherwise the state's
 * new region is its part.  bound: 0 FBT (three parts), 1 forward converged,
 * 2 backward converged (BFBT: inside / outside the converged search). */
static __device__ void classify(uint64_t n, uint64_t *__restrict__ key, const uint32_t *__restrict__ pivot,
                         const uint8_t *__restrict__ fw, const uint8_t *__restrict__ bw, uint32_t *__restrict__ scc,
                         int bound)
{
    for (uint64_t u = thread_index(); u < n; u += thread_count()) {
        if (key[u] == kDone)
            continue;
        bool f = fw[u] != kUnreached, b = bw[u] != kUnreached;
        uint64_t p = pivot[u];
        if (f && b) {
            key[u] = kDone;
            scc[u] = (uint32_t)p;
            continue;
        }
        uint64_t part;
        if (bound == 1)
            part = f ? kPartForward : kPartNeither;
        else if (bound == 2)
            part = b ? kPartBackward : kPartNeither;
        else
            part = f ? kPartForward : b ? kPartBackward : kPartNeither;
        key[u] = p << 2 | part;
    }
}

/* ---- trimming over frontier queues ------------------------------------- */

/* Trimming with counters and queues (the default of the persistent kernel
 * when the transpose is there): count each active state's transitions to and
 * from its region once, then only the states just trimmed are looked at: each
 * takes one off the in-count of its successors and the out-count of its
 * predecessors in the region, and a state whose count reaches 0 is trimmed
 * in the next level.  Each transition is touched twice per round instead of
 * once per sweep, which matters on long chains of trivial SCCs (wlan). */
struct trim_queue_args {
    uint32_t *in_left, *out_left, *gone; /* gone: 1 once trimmed this round */
    uint32_t *queue[2];
};

static __device__ void trim_count(const device_graph &g, const uint64_t *__restrict__ key, const trim_queue_args &q)
{
    for (uint64_t u = thread_index(); u < g.n; u += thread_count()) {
        uint64_t k = key[u];
        if (k == kDone)
            continue;
        uint32_t out = 0, in = 0;
        for_each_successor(g, u, [&](uint32_t v) {
            out += key[v] == k && v != u;
            return false;
        });
        for (uint64_t i = g.rrow[u]; i < g.rrow[u + 1]; i++)
            in += key[g.rcol[i]] == k && g.rcol[i] != u;
        q.out_left[u] = out;
        q.in_left[u] = in;
        q.gone[u] = 0;
    }
}

/* Trim v once its count reached 0: the thread that flips gone[v] queues it. */
__device__ __forceinline__ void trim_enqueue(uint32_t v, const trim_queue_args &q, uint32_t *next,
                                             unsigned long long *size)
{
    if (atomicExch(&q.gone[v], 1u) == 0)
        next[atomicAdd(size, 1ull)] = v;
}

} /* namespace fb */
} /* namespace gpu */

#endif
