/*
 * scc_fb.cu - SCC decomposition on the GPU: forward-backward search with
 * trimming (FBT) and its bounding variant (BFBT), after Wijs, Katoen &
 * Bosnacki, "Efficient GPU algorithms for parallel decomposition of graphs
 * into strongly connected and maximal end components", FMSD 2016:
 * Algorithm 1 (FBT), Algorithm 2 and section 5.2 (BFBT, bounded globally),
 * Algorithm 3 (BFS sweeps over all states, frontier in per-state marks),
 * Algorithm 4 (a block-local cache of newly reached states, explored within
 * the sweep for a given number of iterations),
 * section 5.1 (forward reads over the interleaved segments of restructured
 * input, coalesced across a warp),
 * Algorithm 6 (pivot selection by racing atomicCAS into a hash table, with
 * warp aggregation), section 5.1 (transpose on the GPU when it fits, else the
 * backward search scans the forward CSR).
 *
 * All regions of a recursion level are searched at once.  A region is named
 * by a 64-bit key: 0 for the whole graph, then (pivot << 2 | part) where part
 * says which of the pivot's parts (forward only, backward only, neither) the
 * state fell in.  Pivot selection hashes the keys; the first state whose
 * atomicCAS claims its key's slot is the region's pivot, and pivots name the
 * regions during the search.
 *
 * Differences from the article, all in data layout: the bookkeeping (done,
 * frontier and explored marks of both searches) is kept in separate byte and
 * key arrays instead of the three highest bits of the offsets and results
 * words, so states are addressed with all 32 bits (up to 2^32 - 2) instead of
 * 29; the pivot hash table is its own array (12 bytes a slot, twice the
 * active states) instead of the transition array; and offsets are 64-bit, so
 * transitions may exceed 2^32.  Trimming ignores self-loops (trim_sweep).
 */
#include <cooperative_groups.h>
#include <cub/cub.cuh>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "fb_internal.h"
#include "ref.h"
#include "scc_fb.h"

namespace cg = cooperative_groups;

namespace {

using fb::kDone;
using fb::phase_timer;
constexpr uint64_t kEmptySlot = ~0ull; /* free slot of the pivot hash table */
constexpr int kThreads = 256;

/* Search marks of a state, per direction. */
constexpr uint8_t kUnreached = 0, kFrontier = 1, kExplored = 2;

/* Parts of a region after a search (the low bits of the new key). */
constexpr uint64_t kPartForward = 1, kPartBackward = 2, kPartNeither = 3;

using fb::device_graph;

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

using fb::thread_count;
using fb::thread_index;

__device__ __forceinline__ uint64_t mix_key(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* ---- transpose ---------------------------------------------------------- */

static __global__ void transpose_count(device_graph g, unsigned long long *__restrict__ in_count)
{
    for (uint64_t u = thread_index(); u < g.n; u += thread_count())
        for (uint64_t i = g.row[u]; i < g.row[u + 1]; i++)
            atomicAdd(&in_count[g.col[i]], 1ull);
}

static __global__ void transpose_scatter(device_graph g, unsigned long long *__restrict__ fill,
                                         uint32_t *__restrict__ rcol)
{
    for (uint64_t u = thread_index(); u < g.n; u += thread_count())
        for (uint64_t i = g.row[u]; i < g.row[u + 1]; i++)
            rcol[atomicAdd(&fill[g.col[i]], 1ull)] = (uint32_t)u;
}

/* ---- trimming ----------------------------------------------------------- */

/* Without a transpose: mark the states that have an in-transition from their region. */
__device__ void trim_mark_in(const device_graph &g, const uint64_t *__restrict__ key, uint8_t *__restrict__ has_in)
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

__device__ void clear_bytes(uint8_t *__restrict__ p, uint64_t n)
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
__device__ unsigned long long trim_sweep(const device_graph &g, uint64_t *__restrict__ key, uint32_t *__restrict__ scc,
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

/* Host-driven trimming (the article's way): one sweep per launch. */
static __global__ void trim_mark_in_kernel(device_graph g, const uint64_t *__restrict__ key, uint8_t *__restrict__ has_in)
{
    trim_mark_in(g, key, has_in);
}

static __global__ void trim_sweep_kernel(device_graph g, uint64_t *__restrict__ key, uint32_t *__restrict__ scc,
                                         const uint8_t *__restrict__ has_in, unsigned long long *__restrict__ trimmed)
{
    unsigned long long mine = trim_sweep(g, key, scc, has_in);
    if (mine)
        atomicAdd(trimmed, mine);
}

__device__ unsigned long long count_active(const uint64_t *__restrict__ key, uint64_t n)
{
    unsigned long long mine = 0;
    for (uint64_t u = thread_index(); u < n; u += thread_count())
        mine += key[u] != kDone;
    return mine;
}

static __global__ void count_active_kernel(const uint64_t *__restrict__ key, uint64_t n,
                                           unsigned long long *__restrict__ count)
{
    unsigned long long mine = count_active(key, n);
    if (mine)
        atomicAdd(count, mine);
}

/* ---- pivot selection (Algorithm 6) ------------------------------------- */

/* Every active state races to claim the slot of its region's key; the first
 * atomicCAS wins and its state becomes the pivot.  With aggregation, the
 * threads of a warp that share a key elect one leader (match/ffs) and only it
 * races.  The loop is warp-uniform so that every lane takes part in the vote.
 * candidate: NULL, or only flagged states race (the J sets); a slot already
 * claimed is read, not raced for, so a second pass without candidates gives
 * pivots only to the regions the first pass left without one. */
__device__ void pivot_claim(const uint64_t *__restrict__ key, uint64_t n, uint64_t *__restrict__ slot_key,
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
__device__ void pivot_lookup(const uint64_t *__restrict__ key, uint64_t n, const uint64_t *__restrict__ slot_key,
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

static __global__ void pivot_claim_kernel(const uint64_t *__restrict__ key, uint64_t n, uint64_t *__restrict__ slot_key,
                                          uint32_t *__restrict__ slot_pivot, uint64_t mask, int aggregate,
                                          const uint8_t *__restrict__ candidate)
{
    pivot_claim(key, n, slot_key, slot_pivot, mask, aggregate, candidate);
}

static __global__ void pivot_lookup_kernel(const uint64_t *__restrict__ key, uint64_t n,
                                           const uint64_t *__restrict__ slot_key, const uint32_t *__restrict__ slot_pivot,
                                           uint64_t mask, uint32_t *__restrict__ pivot, uint8_t *__restrict__ fw,
                                           uint8_t *__restrict__ bw)
{
    pivot_lookup(key, n, slot_key, slot_pivot, mask, pivot, fw, bw);
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
__device__ bool explore_push(uint64_t u, uint32_t p, const uint64_t *__restrict__ row, const uint32_t *__restrict__ col,
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
__device__ bool explore_forward(const device_graph &g, uint64_t u, uint32_t p, const uint64_t *__restrict__ key,
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
__device__ void search_sweep(const device_graph &g, const search_args &a, bool do_fw, bool do_bw, bool grew[2],
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
__device__ void search_sweep_backward_pull(const device_graph &g, const search_args &a, bool grew[2])
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
static __global__ void search_sweep_kernel(device_graph g, search_args a, int do_fw, int do_bw, int pull_backward,
                                           int cache_iterations, int *__restrict__ grew)
{
    bool mine[2] = {false, false};
    if (do_fw || (do_bw && !pull_backward))
        search_sweep(g, a, do_fw, do_bw && !pull_backward, mine, cache_iterations);
    if (do_bw && pull_backward)
        search_sweep_backward_pull(g, a, mine);
    if (mine[0])
        grew[0] = 1;
    if (mine[1])
        grew[1] = 1;
}

/* After the search: F and B both -> the pivot's SCC; otherwise the state's
 * new region is its part.  bound: 0 FBT (three parts), 1 forward converged,
 * 2 backward converged (BFBT: inside / outside the converged search). */
__device__ void classify(uint64_t n, uint64_t *__restrict__ key, const uint32_t *__restrict__ pivot,
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

static __global__ void classify_kernel(uint64_t n, uint64_t *__restrict__ key, const uint32_t *__restrict__ pivot,
                                       const uint8_t *__restrict__ fw, const uint8_t *__restrict__ bw,
                                       uint32_t *__restrict__ scc, int bound)
{
    classify(n, key, pivot, fw, bw, scc, bound);
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

__device__ void trim_count(const device_graph &g, const uint64_t *__restrict__ key, const trim_queue_args &q)
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

/* ---- all rounds in one persistent kernel ------------------------------- */

__device__ __forceinline__ unsigned long long read_counter(const unsigned long long *p)
{
    return *(const volatile unsigned long long *)p;
}

__device__ __forceinline__ uint64_t now_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Grid-wide counters: a ring of three slots of two counters, one slot per
 * step (work, grid barrier, read).  Slot step+1 is cleared during step
 * `step`: its last readers finished at step-2, before the barrier of step-1,
 * and its writers start after the barrier of this step. */
struct grid_counters {
    unsigned long long *ring;
    uint64_t step;
    __device__ void begin(const cg::grid_group &grid)
    {
        if (grid.thread_rank() == 0) {
            ring[(step + 1) % 3 * 2] = 0;
            ring[(step + 1) % 3 * 2 + 1] = 0;
        }
    }
    __device__ void add(int which, unsigned long long v)
    {
        if (v)
            atomicAdd(&ring[step % 3 * 2 + which], v);
    }
    __device__ void sync_read(cg::grid_group &grid, unsigned long long got[2])
    {
        grid.sync();
        got[0] = read_counter(&ring[step % 3 * 2]);
        got[1] = read_counter(&ring[step % 3 * 2 + 1]);
        step++;
    }
};

enum { STAT_TRIMMED, STAT_TRIM_SWEEPS, STAT_SEARCH_SWEEPS, STAT_ROUNDS, STAT_TRIM_NS, STAT_PIVOT_NS, STAT_SEARCH_NS,
       STAT_COUNT };

struct round_params {
    device_graph g;
    uint64_t *key;
    uint32_t *scc, *pivot;
    uint8_t *fw, *bw, *has_in; /* has_in: without a transpose */
    uint64_t *slot_key;
    uint32_t *slot_pivot;
    int hybrid, bounding, aggregate, cache_iterations;
    int queue_trim;            /* trimming over queues (needs the transpose) */
    trim_queue_args tq;
    unsigned long long *ring;  /* 6 counters */
    unsigned long long *stats; /* STAT_COUNT */
    const uint8_t *candidate;  /* J: pivot candidates of the first round, or NULL */
};

/* The whole decomposition (Algorithm 1 for all regions at once, rounds of
 * trimming, pivot selection, search and split) in one cooperative kernel:
 * the phases are separated by grid barriers, and no round trip to the host
 * is needed.  Phase times from the global timer, read by thread 0. */
static __global__ void fb_all_rounds(round_params P)
{
    cg::grid_group grid = cg::this_grid();
    grid_counters c = {P.ring, 0};
    const bool leader = grid.thread_rank() == 0;
    const bool pull = P.g.rrow == nullptr;
    unsigned long long got[2];
    uint64_t t0 = now_ns(), t1;
    bool first_round = true;
    for (;;) {
        if (P.queue_trim) {
            /* Trimming over queues: count, seed with the states of count 0,
             * then one level per barrier until a level trims nothing. */
            trim_count(P.g, P.key, P.tq);
            grid.sync();
            c.begin(grid);
            unsigned long long *size = &P.ring[c.step % 3 * 2];
            for (uint64_t u = thread_index(); u < P.g.n; u += thread_count())
                if (P.key[u] != kDone && (P.tq.in_left[u] == 0 || P.tq.out_left[u] == 0))
                    trim_enqueue((uint32_t)u, P.tq, P.tq.queue[0], size);
            c.sync_read(grid, got);
            unsigned long long level_size = got[0], trimmed = got[0];
            for (int cur = 0; level_size; cur ^= 1) {
                c.begin(grid);
                size = &P.ring[c.step % 3 * 2];
                uint32_t *next = P.tq.queue[cur ^ 1];
                for (uint64_t i = thread_index(); i < level_size; i += thread_count()) {
                    uint32_t u = P.tq.queue[cur][i];
                    uint64_t k = P.key[u];
                    for_each_successor(P.g, u, [&](uint32_t v) {
                        if (P.key[v] == k && !P.tq.gone[v] && atomicSub(&P.tq.in_left[v], 1u) == 1u)
                            trim_enqueue(v, P.tq, next, size);
                        return false;
                    });
                    for (uint64_t e = P.g.rrow[u]; e < P.g.rrow[u + 1]; e++) {
                        uint32_t w = P.g.rcol[e];
                        if (P.key[w] == k && !P.tq.gone[w] && atomicSub(&P.tq.out_left[w], 1u) == 1u)
                            trim_enqueue(w, P.tq, next, size);
                    }
                }
                c.sync_read(grid, got);
                level_size = got[0];
                trimmed += got[0];
                if (leader)
                    P.stats[STAT_TRIM_SWEEPS]++;
            }
            for (uint64_t u = thread_index(); u < P.g.n; u += thread_count())
                if (P.key[u] != kDone && P.tq.gone[u]) {
                    P.key[u] = kDone;
                    P.scc[u] = (uint32_t)u;
                }
            grid.sync();
            if (leader)
                P.stats[STAT_TRIMMED] += trimmed;
        }
        /* Trimming by sweeps until a sweep trims nothing (after the queues: nothing left). */
        for (;;) {
            c.begin(grid);
            if (P.has_in) {
                clear_bytes(P.has_in, P.g.n);
                grid.sync();
                trim_mark_in(P.g, P.key, P.has_in);
                grid.sync();
            }
            c.add(0, trim_sweep(P.g, P.key, P.scc, P.has_in));
            c.sync_read(grid, got);
            if (leader) {
                P.stats[STAT_TRIMMED] += got[0];
                P.stats[STAT_TRIM_SWEEPS]++;
            }
            if (!got[0])
                break;
        }
        c.begin(grid);
        c.add(0, count_active(P.key, P.g.n));
        c.sync_read(grid, got);
        t1 = now_ns();
        if (leader)
            P.stats[STAT_TRIM_NS] += t1 - t0;
        t0 = t1;
        if (!got[0])
            break;

        /* Pivot selection (Algorithm 6) in a table of twice the active states. */
        uint64_t mask = 63;
        while (mask + 1 < 2 * got[0])
            mask = mask * 2 + 1;
        for (uint64_t h = thread_index(); h <= mask; h += thread_count())
            P.slot_key[h] = kEmptySlot;
        grid.sync();
        if (P.candidate && first_round) {
            pivot_claim(P.key, P.g.n, P.slot_key, P.slot_pivot, mask, P.aggregate, P.candidate);
            grid.sync();
        }
        pivot_claim(P.key, P.g.n, P.slot_key, P.slot_pivot, mask, P.aggregate, nullptr);
        grid.sync();
        pivot_lookup(P.key, P.g.n, P.slot_key, P.slot_pivot, mask, P.pivot, P.fw, P.bw);
        grid.sync();
        first_round = false;
        t1 = now_ns();
        if (leader) {
            P.stats[STAT_PIVOT_NS] += t1 - t0;
            P.stats[STAT_ROUNDS]++;
        }
        t0 = t1;

        /* Forward and backward search until neither grows; BFBT bounds the
         * one still going once the other has ended everywhere (section 5.2). */
        search_args a = {P.key, P.pivot, P.fw, P.bw, nullptr, nullptr};
        bool fw_live = true, bw_live = true;
        int bound = 0;
        for (;;) {
            c.begin(grid);
            bool grew[2] = {false, false};
            if (P.hybrid && !pull) {
                search_sweep(P.g, a, fw_live, bw_live, grew, P.cache_iterations);
            } else {
                if (fw_live)
                    search_sweep(P.g, a, true, false, grew, P.cache_iterations);
                if (!P.hybrid)
                    grid.sync();
                if (bw_live) {
                    if (pull)
                        search_sweep_backward_pull(P.g, a, grew);
                    else
                        search_sweep(P.g, a, false, true, grew, P.cache_iterations);
                }
            }
            c.add(0, grew[0]);
            c.add(1, grew[1]);
            c.sync_read(grid, got);
            if (leader)
                P.stats[STAT_SEARCH_SWEEPS]++;
            fw_live = fw_live && got[0];
            bw_live = bw_live && got[1];
            if (!fw_live && !bw_live)
                break;
            if (P.bounding && !bound && fw_live != bw_live) {
                bound = fw_live ? 2 : 1;
                if (fw_live)
                    a.fw_bound = a.bw;
                else
                    a.bw_bound = a.fw;
            }
        }
        classify(P.g.n, P.key, P.pivot, P.fw, P.bw, P.scc, bound);
        grid.sync();
        t1 = now_ns();
        if (leader)
            P.stats[STAT_SEARCH_NS] += t1 - t0;
        t0 = t1;
    }
}

/* Canonical ids: the smallest state of each component (UINT32_MAX: none). */
static __global__ void smallest_member(uint64_t n, const uint32_t *__restrict__ scc, uint32_t *__restrict__ smallest)
{
    for (uint64_t u = thread_index(); u < n; u += thread_count())
        if (scc[u] != UINT32_MAX)
            atomicMin(&smallest[scc[u]], (uint32_t)u);
}

static __global__ void rename_to_smallest(uint64_t n, uint32_t *__restrict__ scc, const uint32_t *__restrict__ smallest)
{
    for (uint64_t u = thread_index(); u < n; u += thread_count())
        if (scc[u] != UINT32_MAX)
            scc[u] = smallest[scc[u]];
}

/* ---- host side ---------------------------------------------------------- */

static uint64_t next_pow2(uint64_t x)
{
    uint64_t p = 64;
    while (p < x)
        p <<= 1;
    return p;
}

/* The article's way: one launch per sweep and phase, the host reading back
 * after each whether to go on. */
static int host_driven_rounds(device_graph g, fb::workspace &w, const gpu_scc_options *opt,
                              const uint8_t *candidate, gpu_scc_stats *st, csr_status *status)
{
    const int T = kThreads;
    const uint64_t n = g.n;
    const int pull_backward = g.rrow == nullptr;
    uint8_t *has_in = pull_backward ? w.has_in.p : nullptr;
    phase_timer timer;
    for (bool first = true;; first = false) {
        /* Trimming, iterated until nothing changes. */
        timer.begin();
        unsigned long long trimmed;
        do {
            CUDA_TRY(cudaMemset(w.counter.p, 0, sizeof(unsigned long long)));
            if (has_in) {
                CUDA_TRY(cudaMemset(has_in, 0, n));
                trim_mark_in_kernel<<<grid_for(n, T), T>>>(g, w.key.p, has_in);
                CUDA_TRY_LAUNCH();
            }
            trim_sweep_kernel<<<grid_for(n, T), T>>>(g, w.key.p, w.scc.p, has_in, w.counter.p);
            CUDA_TRY_LAUNCH();
            CUDA_TRY(cudaMemcpy(&trimmed, w.counter.p, sizeof trimmed, cudaMemcpyDeviceToHost));
            st->trimmed += trimmed;
            st->trim_sweeps++;
        } while (trimmed);
        st->trim_s += timer.end();

        /* Pivot selection in every region that is left. */
        timer.begin();
        unsigned long long active;
        CUDA_TRY(cudaMemset(w.counter.p, 0, sizeof(unsigned long long)));
        count_active_kernel<<<grid_for(n, T), T>>>(w.key.p, n, w.counter.p);
        CUDA_TRY_LAUNCH();
        CUDA_TRY(cudaMemcpy(&active, w.counter.p, sizeof active, cudaMemcpyDeviceToHost));
        if (active == 0) {
            st->pivot_s += timer.end();
            break;
        }
        st->rounds++;
        uint64_t mask = next_pow2(2 * active) - 1;
        CUDA_TRY(cudaMemset(w.slot_key.p, 0xff, (mask + 1) * sizeof(uint64_t)));
        if (candidate && first) {
            pivot_claim_kernel<<<grid_for(n, T), T>>>(w.key.p, n, w.slot_key.p, w.slot_pivot.p, mask,
                                                      opt->warp_aggregation, candidate);
            CUDA_TRY_LAUNCH();
        }
        pivot_claim_kernel<<<grid_for(n, T), T>>>(w.key.p, n, w.slot_key.p, w.slot_pivot.p, mask,
                                                  opt->warp_aggregation, nullptr);
        CUDA_TRY_LAUNCH();
        pivot_lookup_kernel<<<grid_for(n, T), T>>>(w.key.p, n, w.slot_key.p, w.slot_pivot.p, mask, w.pivot.p, w.fw.p,
                                                   w.bw.p);
        CUDA_TRY_LAUNCH();
        st->pivot_s += timer.end();

        /* Forward and backward search from every pivot at once. */
        timer.begin();
        search_args a = {w.key.p, w.pivot.p, w.fw.p, w.bw.p, nullptr, nullptr};
        int bound = 0, fw_live = 1, bw_live = 1;
        const int hybrid = opt->hybrid, bounding = opt->bounding;
        while (fw_live || bw_live) {
            CUDA_TRY(cudaMemset(w.grew.p, 0, 2 * sizeof(int)));
            if (hybrid && !pull_backward) {
                search_sweep_kernel<<<grid_for(n, T), T>>>(g, a, fw_live, bw_live, 0, opt->cache_iterations, w.grew.p);
                CUDA_TRY_LAUNCH();
            } else {
                if (fw_live) {
                    search_sweep_kernel<<<grid_for(n, T), T>>>(g, a, 1, 0, 0, opt->cache_iterations, w.grew.p);
                    CUDA_TRY_LAUNCH();
                }
                if (bw_live) {
                    search_sweep_kernel<<<grid_for(n, T), T>>>(g, a, 0, 1, pull_backward, opt->cache_iterations,
                                                               w.grew.p);
                    CUDA_TRY_LAUNCH();
                }
            }
            st->search_sweeps++;
            int grew[2];
            CUDA_TRY(cudaMemcpy(grew, w.grew.p, sizeof grew, cudaMemcpyDeviceToHost));
            fw_live = fw_live && grew[0];
            bw_live = bw_live && grew[1];
            if (bounding && !bound && fw_live != bw_live) {
                /* BFBT, globally (section 5.2): one search has ended in every
                 * region; the other goes on only inside what it reached. */
                bound = fw_live ? 2 : 1;
                if (fw_live)
                    a.fw_bound = w.bw.p;
                else
                    a.bw_bound = w.fw.p;
            }
        }
        st->search_s += timer.end();

        timer.begin();
        classify_kernel<<<grid_for(n, T), T>>>(n, w.key.p, w.pivot.p, w.fw.p, w.bw.p, w.scc.p, bound);
        CUDA_TRY_LAUNCH();
        st->pivot_s += timer.end();
    }
    return CSR_OK;
}

/* All rounds in one cooperative kernel with as many co-resident blocks as the
 * GPU holds (or opt->persistent_blocks).  Returns CSR_OK, or -1 when the
 * kernel cannot be co-resident (the caller then drives the rounds). */
static int persistent_rounds(const device_graph &g, fb::workspace &w, const gpu_scc_options *opt,
                             const uint8_t *candidate, gpu_scc_stats *st, csr_status *status)
{
    const int T = kThreads;
    int device = 0, sms = 0, per_sm = 0;
    CUDA_TRY(cudaGetDevice(&device));
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fb_all_rounds, T, 0));
    if (per_sm <= 0)
        return -1;
    unsigned grid = grid_for(g.n, T);
    if (grid > (unsigned)(sms * per_sm))
        grid = (unsigned)(sms * per_sm);
    if (opt->persistent_blocks > 0 && (unsigned)opt->persistent_blocks < grid)
        grid = (unsigned)opt->persistent_blocks; /* fewer blocks: cheaper grid barriers */
    CUDA_TRY(cudaMemset(w.ring.p, 0, 6 * sizeof(unsigned long long)));
    CUDA_TRY(cudaMemset(w.stats.p, 0, STAT_COUNT * sizeof(unsigned long long)));
    trim_queue_args tq = {nullptr, nullptr, nullptr, {nullptr, nullptr}};
    const int queue_trim = opt->queue_trimming && g.rrow && w.queue_a.p;
    if (queue_trim)
        tq = {w.in_left.p, w.out_left.p, w.gone.p, {w.queue_a.p, w.queue_b.p}};
    round_params P = {g, w.key.p, w.scc.p, w.pivot.p, w.fw.p, w.bw.p, g.rrow ? nullptr : w.has_in.p,
                      w.slot_key.p, w.slot_pivot.p, opt->hybrid, opt->bounding, opt->warp_aggregation,
                      opt->cache_iterations, queue_trim, tq, w.ring.p, w.stats.p, candidate};
    void *args[] = {&P};
    CUDA_TRY(cudaLaunchCooperativeKernel((void *)fb_all_rounds, grid, T, args, 0, 0));
    CUDA_TRY(cudaGetLastError());
    unsigned long long out[STAT_COUNT];
    CUDA_TRY(cudaMemcpy(out, w.stats.p, sizeof out, cudaMemcpyDeviceToHost));
    st->trimmed += out[STAT_TRIMMED];
    st->trim_sweeps += out[STAT_TRIM_SWEEPS];
    st->search_sweeps += out[STAT_SEARCH_SWEEPS];
    st->rounds += out[STAT_ROUNDS];
    st->trim_s += (double)out[STAT_TRIM_NS] / 1e9;
    st->pivot_s += (double)out[STAT_PIVOT_NS] / 1e9;
    st->search_s += (double)out[STAT_SEARCH_NS] / 1e9;
    return CSR_OK;
}

static __global__ void state_offsets(uint64_t n, const uint64_t *__restrict__ state_choices,
                                     const uint64_t *__restrict__ choice_transitions, uint64_t *__restrict__ row)
{
    for (uint64_t s = thread_index(); s <= n; s += thread_count())
        row[s] = choice_transitions[state_choices[s]];
}

} /* namespace */

/* ---- building blocks (fb_internal.h) ----------------------------------- */

namespace fb {

device_graph model_graph::graph(uint64_t n, uint64_t interleaved) const
{
    return device_graph{row.p, col.p, nullptr, nullptr, n, seg_first.p ? interleaved : 0, seg_first.p, seg_targets.p};
}

int upload_model_graph(const csr_model *m, model_graph &mg, uint64_t *bytes, csr_status *status)
{
    const uint64_t n = m->num_states, c = m->num_choices, t = m->num_transitions;
    int rc;
    /* Per-state transition offsets, from the choice offsets, on the GPU. */
    if ((rc = mg.row.alloc(n + 1, bytes, status)) || (rc = mg.col.alloc(t, bytes, status)) ||
        (rc = mg.state_choices.alloc(n + 1, bytes, status)) || (rc = mg.choice_transitions.alloc(c + 1, bytes, status)))
        return rc;
    CUDA_TRY(cudaMemcpy(mg.state_choices.p, m->state_choices, (n + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(mg.choice_transitions.p, m->choice_transitions, (c + 1) * sizeof(uint64_t),
                        cudaMemcpyHostToDevice));
    state_offsets<<<grid_for(n + 1, kThreads), kThreads>>>(n, mg.state_choices.p, mg.choice_transitions.p, mg.row.p);
    CUDA_TRY_LAUNCH();
    if (t)
        CUDA_TRY(cudaMemcpy(mg.col.p, m->targets, t * sizeof(uint32_t), cudaMemcpyHostToDevice));
    /* Restructured input: the interleaved segments for the forward reads. */
    if (m->segment_bound && m->interleaved_states) {
        uint64_t entries = m->segment_first[m->num_segments];
        if ((rc = mg.seg_first.alloc(m->num_segments + 1, bytes, status)) ||
            (rc = mg.seg_targets.alloc(entries, bytes, status)))
            return rc;
        CUDA_TRY(cudaMemcpy(mg.seg_first.p, m->segment_first, (m->num_segments + 1) * sizeof(uint64_t),
                            cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMemcpy(mg.seg_targets.p, m->segment_targets, entries * sizeof(uint32_t),
                            cudaMemcpyHostToDevice));
    }
    CUDA_TRY(cudaDeviceSynchronize());
    return CSR_OK;
}

uint64_t transpose_bytes(uint64_t n, uint64_t t) { return (n + 1) * 16 + t * 4 + (64u << 20); }

int transpose_alloc(transpose &tr, uint64_t n, uint64_t t, uint64_t *bytes, csr_status *status)
{
    int rc;
    if ((rc = tr.rrow.alloc(n + 1, bytes, status)) || (rc = tr.rcol.alloc(t, bytes, status)) ||
        (rc = tr.fill.alloc(n + 1, bytes, status)))
        return rc;
    tr.scan_temp_bytes = 0;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, tr.scan_temp_bytes, tr.fill.p, (unsigned long long *)tr.rrow.p,
                                           n + 1));
    return tr.scan_temp.alloc(tr.scan_temp_bytes, bytes, status);
}

int transpose_build(device_graph &g, transpose &tr, csr_status *status)
{
    const int T = kThreads;
    const uint64_t n = g.n;
    CUDA_TRY(cudaMemset(tr.fill.p, 0, (n + 1) * sizeof(unsigned long long)));
    transpose_count<<<grid_for(n, T), T>>>(g, tr.fill.p);
    CUDA_TRY_LAUNCH();
    size_t temp_bytes = tr.scan_temp_bytes;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(tr.scan_temp.p, temp_bytes, tr.fill.p, (unsigned long long *)tr.rrow.p,
                                           n + 1));
    CUDA_TRY(cudaMemcpy(tr.fill.p, tr.rrow.p, (n + 1) * sizeof(uint64_t), cudaMemcpyDeviceToDevice));
    transpose_scatter<<<grid_for(n, T), T>>>(g, tr.fill.p, tr.rcol.p);
    CUDA_TRY_LAUNCH();
    g.rrow = tr.rrow.p;
    g.rcol = tr.rcol.p;
    return CSR_OK;
}

int workspace_alloc(workspace &w, uint64_t n, int with_transpose, const gpu_scc_options *opt, uint64_t *bytes,
                    csr_status *status)
{
    int rc;
    const uint64_t slots = next_pow2(2 * n);
    w.n = n;
    if ((rc = w.key.alloc(n, bytes, status)) || (rc = w.scc.alloc(n, bytes, status)) ||
        (rc = w.pivot.alloc(n, bytes, status)) || (rc = w.fw.alloc(n, bytes, status)) ||
        (rc = w.bw.alloc(n, bytes, status)) || (rc = w.slot_key.alloc(slots, bytes, status)) ||
        (rc = w.slot_pivot.alloc(slots, bytes, status)) || (rc = w.counter.alloc(1, bytes, status)) ||
        (rc = w.ring.alloc(6, bytes, status)) || (rc = w.stats.alloc(STAT_COUNT, bytes, status)) ||
        (rc = w.grew.alloc(2, bytes, status)))
        return rc;
    if (!with_transpose)
        return w.has_in.alloc(n, bytes, status);
    if (opt->persistent && opt->queue_trimming &&
        ((rc = w.in_left.alloc(n, bytes, status)) || (rc = w.out_left.alloc(n, bytes, status)) ||
         (rc = w.gone.alloc(n, bytes, status)) || (rc = w.queue_a.alloc(n, bytes, status)) ||
         (rc = w.queue_b.alloc(n, bytes, status))))
        return rc;
    return CSR_OK;
}

int decompose(const device_graph &g, workspace &w, const gpu_scc_options *opt, const uint8_t *candidate,
              gpu_scc_stats *st, csr_status *status)
{
    if (opt->persistent) {
        int rc = persistent_rounds(g, w, opt, candidate, st, status);
        if (rc >= 0)
            return rc;
    }
    return host_driven_rounds(g, w, opt, candidate, st, status);
}

int canonical_ids(uint32_t *ids, uint32_t *smallest, uint64_t n, csr_status *status)
{
    const int T = kThreads;
    CUDA_TRY(cudaMemset(smallest, 0xff, n * sizeof(uint32_t)));
    smallest_member<<<grid_for(n, T), T>>>(n, ids, smallest);
    CUDA_TRY_LAUNCH();
    rename_to_smallest<<<grid_for(n, T), T>>>(n, ids, smallest);
    CUDA_TRY_LAUNCH();
    return CSR_OK;
}

} /* namespace fb */

/* ---- the public interface (scc_fb.h) ----------------------------------- */

extern "C" void gpu_scc_default_options(gpu_scc_options *o)
{
    o->hybrid = 1;
    o->bounding = 0;
    o->warp_aggregation = 1;
    o->transpose = 1;
    o->persistent = 1;
    o->cache_iterations = 0;
    o->queue_trimming = 1;
    o->persistent_blocks = 0;
}

extern "C" int gpu_scc_fb(const csr_model *m, const gpu_scc_options *opt, uint32_t *scc_out, gpu_scc_stats *stats,
                          csr_status *status)
{
    gpu_scc_stats st;
    memset(&st, 0, sizeof st);
    const uint64_t n = m->num_states, t = m->num_transitions;
    if (n >= UINT32_MAX - 1)
        return csr_fail(status, CSR_ERR_TOO_LARGE, "%llu states: the GPU decomposition takes at most 2^32 - 2",
                        (unsigned long long)n);
    if (n == 0) {
        if (stats)
            *stats = st;
        return CSR_OK;
    }
    fb::model_graph mg;
    fb::transpose tr;
    fb::workspace w;
    fb::device_array<uint32_t> smallest;
    phase_timer timer, whole;
    int rc;
    whole.begin();

    timer.begin();
    if ((rc = fb::upload_model_graph(m, mg, &st.device_bytes, status)))
        return rc;
    mg.state_choices.release(); /* SCCs need no choices */
    mg.choice_transitions.release();
    st.h2d_s = timer.end();
    device_graph g = mg.graph(n, m->interleaved_states);

    /* The transpose, when wanted and when it fits with room to spare. */
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    const int with_transpose = opt->transpose && fb::transpose_bytes(n, t) < free_bytes;
    if (with_transpose) {
        timer.begin();
        if ((rc = fb::transpose_alloc(tr, n, t, &st.device_bytes, status)) ||
            (rc = fb::transpose_build(g, tr, status)))
            return rc;
        tr.fill.release(); /* scratch of the build, not needed again */
        tr.scan_temp.release();
        st.used_transpose = 1;
        st.transpose_s = timer.end();
    }

    if ((rc = fb::workspace_alloc(w, n, with_transpose, opt, &st.device_bytes, status)))
        return rc;
    CUDA_TRY(cudaMemset(w.key.p, 0, n * sizeof(uint64_t))); /* one region: the whole graph */
    if ((rc = fb::decompose(g, w, opt, nullptr, &st, status)))
        return rc;

    /* Canonical ids and the way back. */
    timer.begin();
    if ((rc = smallest.alloc(n, &st.device_bytes, status)) || (rc = fb::canonical_ids(w.scc.p, smallest.p, n, status)))
        return rc;
    CUDA_TRY(cudaMemcpy(scc_out, w.scc.p, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    st.d2h_s = timer.end();
    st.total_s = whole.end();

    /* Counts, on the host. */
    for (uint64_t s = 0; s < n; s++)
        st.sccs += scc_out[s] == s;
    uint32_t *size = (uint32_t *)calloc(n, sizeof *size);
    if (size) {
        for (uint64_t s = 0; s < n; s++)
            size[scc_out[s]]++;
        for (uint64_t s = 0; s < n; s++)
            st.trivial_sccs += scc_out[s] == s && size[s] == 1 && !ref_has_self_loop(m, NULL, s);
        free(size);
    }
    if (stats)
        *stats = st;
    return CSR_OK;
}
