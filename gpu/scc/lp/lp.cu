/*
 * lp.cu - the label-propagation SCC engine (engine.h), after the description
 * of ECL-SCC (Alabandi, Sands, Biros & Burtscher, SC'23), with asynchronous
 * peeling (gpu/scc/peel) first and between phases; for the MEC goal the
 * interleaved scheme (eager removal of leaving choices inside the SCC
 * computation, INTERLEAVE of Bansal & Singh 2025).
 *
 * prepare: flags, counts, the transpose; peel to a fixpoint; the edge list
 *          of what is left (the live edges between different states).
 * phase:   every live state starts with in = out = itself (one 8-byte pair
 *          a state: both labels in one load); one persistent kernel raises,
 *          over the edge list, in[v] to in[u] and out[u] to out[v] for every
 *          edge (u, v), with one-hop compression (in[in[u]], out[out[v]])
 *          and the representatives' labels too (out[in[u]], in[out[v]]:
 *          relax()), by atomicMax where the plain read says it grows, each
 *          block sweeping its share of the edges up to `sweeps` times in a
 *          pass until a sweep changes nothing (__syncthreads_or), passes
 *          separated by grid barriers until a pass changes nothing (the list
 *          ascending and descending in turn, so that chains numbered in
 *          exploration order go far both ways).
 *          Then in[v] is the largest state that
 *          reaches v, out[v] the largest v reaches, and in[v] == out[v] iff v
 *          is in the SCC of that state; states of different (in, out) pairs
 *          are in different SCCs.
 *   SCC goal: edges between different pairs stop counting (peel_cut), states
 *          with in == out are done (component in[v]), peeling removes what
 *          the cut made trivial, the edge list keeps the edges inside a pair;
 *          a phase that finishes every live state skips the cut, the peeling
 *          and the compaction (count_unfinished).
 *   MEC goal: choices with an edge between different pairs are disabled
 *          (peel_cut), peeling removes what that makes leave; an SCC (in ==
 *          out) none of whose states lost a choice or left is a MEC (FMSD
 *          Lemma 2); the edge list keeps the edges of enabled choices.
 * until no live state is left.  Every phase finishes at least the SCC of the
 * largest live state (the smallest in a phase of mirrored labels, below) or
 * takes a choice away, so it terminates.
 *
 * Which end of the order names the labels (gpu_lp_label_order): by default
 * the phases alternate, the smallest state in odd phases and the largest in
 * even ones, so that the second phase finishes the SCCs at the other end of
 * what the first one left.  The labels stay largest-wins: a phase of the
 * smallest state propagates mirrored ids (s ^ ~0: the largest mirrored id is
 * the smallest state), so one kernel serves both.  The models arrive in
 * breadth-first order (PRISM's and Storm's exploration), where the largest
 * ids lie deep in the graph; the smallest first finished leader7's big SCC
 * (73,294 states) in the first phase instead of 6,279 states, left classes
 * whose peeling removed 1.46M states in 30 levels instead of 1.37M in 37 and
 * 95k in 35 more, and ended in 2 phases instead of 3 (a sequential
 * simulation, confirmed on the GPU: 45 levels of peeling in all instead of
 * 87).  The lent H100, 2026-11-25, resident ms, 3 runs (bench/RESULTS.md):
 * largest in every phase against alternate, labels equal to Tarjan's:
 * leader7 5.30-5.63 -> 4.39-4.69, coin6_4 12.1-13.9 -> 9.9-10.3, phil7
 * 8.5-9.7 -> 5.6-7.4, wlan6_2500 121-122 -> 115 (its one phase 1,242-1,363
 * passes -> 10-11), leader8 33.9-37.3 -> 35.1-37.5.  The smallest in every
 * phase: leader7 4.3-5.0, but coin6_4 14.5-19.1 (its second phase 42-62
 * passes against 7-25); both pairs at once (16 bytes a state, a class per
 * pair of pairs): leader7 5.6-7.4, coin6_4 23-28, the passes 1.4x dearer.
 */
#include <cooperative_groups.h>
#include <cub/cub.cuh>

#include "cuda_check.h"
#include "engine.h"
#include "launch.h"
#include "peel.h"
#include "timer.h"

namespace gpu {

namespace {

namespace cg = cooperative_groups;
constexpr int kThreads = 256;
constexpr int kPropagateThreads = 512;
constexpr uint32_t kNone = UINT32_MAX;

/* counters_: the propagation's ring; the edges kept and the live states
 * (adjacent: one read brings both); the passes; the unfinished states */
enum { C_RING = 0, C_SELECTED = 3, C_REMAINING = 4, C_PASSES = 5, C_UNFINISHED = 6, C_COUNT = 8 };

static __global__ void init_states(uint64_t n, const uint8_t *__restrict__ live, const uint32_t *__restrict__ region,
                                   uint32_t *__restrict__ flag, uint32_t *__restrict__ component,
                                   uint32_t *__restrict__ in_left, uint64_t *__restrict__ cls)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        flag[s] = !live || live[s] ? kLive : kRemoved;
        component[s] = kNone;
        in_left[s] = 0;
        if (cls)
            cls[s] = region ? region[s] : 0;
    }
}

static __global__ void init_enabled(uint64_t c, const uint32_t *__restrict__ given, uint32_t *__restrict__ enabled)
{
    for (uint64_t k = thread_index(); k < c; k += thread_count())
        enabled[k] = !given || given[k] ? 1u : 0u;
}

static __global__ void edge_counts(uint64_t n, const uint32_t *__restrict__ flag, const uint32_t *__restrict__ out_left,
                                   unsigned long long *__restrict__ count)
{
    for (uint64_t s = thread_index(); s <= n; s += thread_count())
        count[s] = s < n && flag[s] == kLive ? out_left[s] : 0;
}

/* The live edges between different states of the live states, at the
 * offsets of the scan of their out-counts: SCC goal, of enabled choices
 * (enabled NULL: all) to live states of the same class; MEC goal, of enabled
 * choices (their targets are all live), with the choice.  A state a group of
 * kRowLanes lanes over its row (model.h), the kept edges of each step of the
 * group placed by a ballot: a warp writes runs of consecutive edges. */
static __global__ void write_edges(peel_params p, const uint64_t *__restrict__ first, uint2 *__restrict__ edges,
                                   uint32_t *__restrict__ edge_choice)
{
    const auto group = row_group();
    const unsigned lane = group.thread_rank();
    for (uint64_t s = group_index(); s < p.n; s += group_count()) {
        if (p.flag[s] != kLive)
            continue;
        uint64_t at = first[s];
        for (uint64_t base = p.row[s]; base < p.row[s + 1]; base += kRowLanes) {
            const uint64_t i = base + lane;
            bool keep = false;
            uint32_t w = 0, k = 0;
            if (i < p.row[s + 1]) {
                w = p.targets[i];
                keep = w != s;
                if (keep && (p.enabled || edge_choice)) {
                    k = (uint32_t)choice_of(p.state_choices, p.choice_transitions, s, i);
                    keep = !p.enabled || p.enabled[k];
                }
                if (keep && !edge_choice)
                    keep = p.flag[w] == kLive && (!p.cls || p.cls[w] == p.cls[s]);
            }
            const unsigned kept = group.ballot(keep);
            if (keep) {
                const uint64_t e = at + __popc(kept & ((1u << lane) - 1));
                edges[e] = make_uint2((uint32_t)s, w);
                if (edge_choice)
                    edge_choice[e] = k;
            }
            at += __popc(kept);
        }
    }
}

/* The label of state s is s ^ mirror, and label l names state l ^ mirror
 * (mirror 0: the largest state wins; ~0: the smallest). */
static __global__ void init_labels(uint64_t n, const uint32_t *__restrict__ flag, uint2 *__restrict__ labels,
                                   uint32_t mirror)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        if (flag[s] == kLive)
            labels[s] = make_uint2((uint32_t)s ^ mirror, (uint32_t)s ^ mirror);
}

/* Raise the label word `word` (2s: in of s, 2s + 1: out of s) to value, where
 * `seen` is a value read from it before (stale at worst: the atomic decides);
 * whether it grew. */
__device__ __forceinline__ bool raise(uint32_t *words, uint64_t word, uint32_t seen, uint32_t value)
{
    if (value <= seen)
        return false;
    return atomicMax(&words[word], value) < value;
}

/* Relax one edge v -> w (see the file comment).  Every label names a state
 * of the phase's graph: in[s] one that reaches s, out[s] one that s reaches.
 * With a = labels[v] and b = labels[w], the state a.x reaches v and the
 * state b.y is reached from w, so in = max(in[v], in[in[v]]) reaches v and w,
 * and out = max(out[w], out[out[w]]) is reached from v and w (the one-hop
 * compression).  Raised: in of w and v, out of v and w, and the
 * representatives' own labels: out[a.x] (a.x reaches v -> w -> out) and
 * in[b.y] (in reaches v -> w -> b.y), which every state of the same label
 * reads as its compression hop (also raising out[b.x] and in[a.y], one more
 * read each, took more time than it saved on leader7 and coin6_4).  Every
 * value raised is a true ancestor or descendant, so
 * the labels never pass the largest one, and a pass that raises nothing
 * leaves in[w] >= in[v] and out[v] >= out[w] on every edge: the fixpoint.
 * through_l1: the labels loaded through L1 (possibly stale), else through L2.
 * mirror: as in init_labels (a.x names state a.x ^ mirror). */
__device__ __forceinline__ bool relax(uint2 *labels, uint32_t v, uint32_t w, uint32_t mirror, bool through_l1)
{
    uint32_t *words = reinterpret_cast<uint32_t *>(labels);
    const auto load = [labels, through_l1](uint32_t s) { return through_l1 ? labels[s] : __ldcg(&labels[s]); };
    const uint2 a = load(v), b = load(w);
    const uint32_t in_state = a.x ^ mirror, out_state = b.y ^ mirror;
    const uint2 ra = in_state != v ? load(in_state) : a;
    const uint2 rb = out_state != w ? load(out_state) : b;
    const uint32_t in = a.x > ra.x ? a.x : ra.x;
    const uint32_t out = b.y > rb.y ? b.y : rb.y;
    bool changed = raise(words, 2 * (uint64_t)w, b.x, in);
    changed |= raise(words, 2 * (uint64_t)v + 1, a.y, out);
    changed |= raise(words, 2 * (uint64_t)v, a.x, in);
    changed |= raise(words, 2 * (uint64_t)w + 1, b.y, out);
    if (in_state != v)
        changed |= raise(words, 2 * (uint64_t)in_state + 1, ra.y, out);
    if (out_state != w)
        changed |= raise(words, 2 * (uint64_t)out_state, rb.x, in);
    return changed;
}

struct propagate_params {
    const uint2 *edges;
    uint64_t ne;
    uint2 *labels;
    unsigned long long *counters; /* C_RING.. (3 slots, zero on entry), C_PASSES */
    int sweeps;
};

/* All passes of a phase in one cooperative kernel (see the file comment).
 * In a pass each block sweeps its share of the edges (grid-stride: its
 * kPropagateThreads edges of every grid's width; the whole list, ascending
 * in even passes and descending in odd ones, so that chains numbered in exploration
 * order go far both ways) up to P.sweeps times, until a sweep changes
 * nothing in the block.  The first sweep of a pass loads the labels through
 * L2 (__ldcg: what other blocks raised), the later ones through L1 (what
 * this block raised and, stale at worst, the rest: a stale label is smaller
 * and only raises less).  A pass that changes nothing read every label fresh
 * in its one sweep, so the fixpoint test holds.  Against the kernel before,
 * which iterated each tile of 512 edges up to 16 times with fresh loads
 * (the lent H100, 2026-11-25, resident ms, old and new in one call, labels
 * equal to Tarjan's and the basic algorithm's; bench/RESULTS.md):
 *   SCCs: leader7 6.3-6.8 -> 5.6-5.8, phil7 10.9-11.3 -> 8.6-9.7, coin6_4
 *         12.6-13.3 -> 12.3-13.4, leader8 36-38 -> 37-43, wlan6_2500 122 -> 124;
 *   MECs: leader7 8.3-8.7 -> 7.2-7.5, phil7 11.8-13.4 -> 9.6-10.3, coin6_4
 *         14.2-15.5 -> 14.7-17.3, leader8 49-51 -> 50-51.
 * (ncu, leader7: the propagation 3.5 -> 2.4 ms.)  On leader7 and coin6_4,
 * SCCs: 3 sweeps 5.2-6.1 and 14.0-16.1 ms; 16 (ECL-SCC's way: its share until
 * it stops changing) 5.5-6.6 and 19.2-21.1; 2 sweeps both through L2 5.7-6.5
 * and 12.1-14.1.  Four blocks an SM (32 registers, no spills). */
template <uint32_t MIRROR> /* init_labels' mirror, known to the compiler: no spills at 32 registers */
static __global__ void __launch_bounds__(kPropagateThreads, 2048 / kPropagateThreads) propagate(propagate_params P)
{
    cg::grid_group grid = cg::this_grid();
    unsigned long long *ring = P.counters + C_RING;
    uint64_t pass = 0;
    for (;; pass++) {
        const unsigned slot = pass % 3;
        if (grid.thread_rank() == 0)
            ring[(pass + 1) % 3] = 0;
        bool block_changed = false;
        for (int sweep = 0; sweep < P.sweeps; sweep++) {
            bool changed = false;
            for (uint64_t e = grid.thread_rank(); e < P.ne; e += grid.size()) {
                const uint2 vw = P.edges[pass & 1 ? P.ne - 1 - e : e];
                changed |= relax(P.labels, vw.x, vw.y, MIRROR, sweep > 0);
            }
            if (!__syncthreads_or(changed))
                break;
            block_changed = true;
        }
        if (block_changed && threadIdx.x == 0)
            atomicAdd(&ring[slot], 1ull);
        grid.sync();
        if (*(volatile unsigned long long *)&ring[slot] == 0)
            break;
    }
    if (grid.thread_rank() == 0)
        P.counters[C_PASSES] += pass + 1;
}

/* SCC goal, after the cut: every live or queued state takes its pair as its
 * class; a live state with in == out is done (its component the state that
 * names the label: mirror as in init_labels). */
static __global__ void finish_sccs(uint64_t n, uint32_t *__restrict__ flag, const uint2 *__restrict__ labels,
                                   uint64_t *__restrict__ cls, uint32_t *__restrict__ component, uint32_t mirror)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        uint32_t f = flag[s];
        if (f == kRemoved)
            continue;
        const uint2 l = labels[s];
        cls[s] = (uint64_t)l.x << 32 | l.y;
        if (f == kLive && l.x == l.y) {
            component[s] = l.x ^ mirror;
            flag[s] = kRemoved;
        }
    }
}

/* MEC goal, after the cut and the peeling: an SCC that lost nothing is a MEC. */
static __global__ void finish_mecs(uint64_t n, uint32_t *__restrict__ flag, const uint2 *__restrict__ labels,
                                   const uint8_t *__restrict__ changed, uint32_t *__restrict__ component,
                                   uint32_t mirror)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        if (flag[s] != kLive)
            continue;
        const uint2 l = labels[s];
        if (l.x != l.y || changed[l.x ^ mirror])
            continue;
        component[s] = l.x ^ mirror;
        flag[s] = kRemoved;
    }
}

static __global__ void count_live(uint64_t n, const uint32_t *__restrict__ flag, unsigned long long *__restrict__ count)
{
    unsigned long long mine = 0;
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        mine += flag[s] == kLive;
    block_add<kThreads>(count, mine);
}

/* SCC goal, after a phase's propagation: the live states that this phase
 * does not finish (in != out); none means the phase is the last one, and
 * the cut, the peeling and the compaction after it would find nothing. */
static __global__ void count_unfinished(uint64_t n, const uint32_t *__restrict__ flag,
                                        const uint2 *__restrict__ labels, unsigned long long *__restrict__ count)
{
    unsigned long long mine = 0;
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        mine += flag[s] == kLive && labels[s].x != labels[s].y;
    block_add<kThreads>(count, mine);
}

/* Which edges the next phase keeps: both ends live and, SCC goal, in one
 * class; MEC goal, of an enabled choice. */
static __global__ void mark_kept(const uint2 *__restrict__ edges, const uint32_t *__restrict__ edge_choice, uint64_t ne,
                                 const uint32_t *__restrict__ flag, const uint64_t *__restrict__ cls,
                                 const uint32_t *__restrict__ enabled, uint8_t *__restrict__ keep)
{
    for (uint64_t e = thread_index(); e < ne; e += thread_count()) {
        uint2 uv = edges[e];
        bool k = flag[uv.x] == kLive && flag[uv.y] == kLive;
        if (k && cls)
            k = cls[uv.x] == cls[uv.y];
        if (k && edge_choice)
            k = enabled[edge_choice[e]] != 0;
        keep[e] = k;
    }
}

class lp_engine : public scc_engine {
  public:
    explicit lp_engine(const gpu_scc_options *o) : opt_(*o)
    {
        if (opt_.sweeps <= 0)
            opt_.sweeps = 2;
    }
    const char *name() const override { return "lp"; }
    bool finds_mecs() const override { return true; }
    /* the MEC goal always peels (its attractor), the SCC goal unless --no-peel */
    bool reads_transpose(scc_goal goal) const override { return goal == scc_goal::mecs || opt_.peel != 0; }
    void plan(arena &a, const model_shape &s, scc_goal goal, bool choices) override;
    int decompose(const device_model &m, const scc_subsystem &sub, scc_goal goal, uint32_t *component,
                  model_transpose *transpose, gpu_scc_stats *stats, csr_status *status) override;

  private:
    gpu_scc_options opt_;
    uint32_t *flag_ = nullptr, *in_left_ = nullptr, *out_left_ = nullptr, *choices_left_ = nullptr;
    uint32_t *enabled_ = nullptr;
    uint2 *labels_ = nullptr; /* (in, out) of each state */
    uint64_t *cls_ = nullptr;
    uint8_t *changed_ = nullptr, *keep_ = nullptr;
    peel_buffers peel_;
    uint2 *edges_[2] = {nullptr, nullptr};
    uint32_t *edge_choice_[2] = {nullptr, nullptr};
    unsigned long long *edge_count_ = nullptr, *counters_ = nullptr;
    uint64_t *edge_first_ = nullptr;
    void *scan_temp_ = nullptr, *select_temp_ = nullptr;
    size_t scan_bytes_ = 0, select_bytes_ = 0;
    const device_model *model_ = nullptr; /* the model of the decomposition under way */
    model_transpose *transpose_ = nullptr; /* its transpose (the job's) */

    deferred_timer timer_; /* the phases' times, settled once at the end */

    int drain(const peel_params &p, peel_goal goal, csr_status *status);
    int propagate_phase(uint64_t ne, const uint2 *edges, uint32_t mirror, csr_status *status);
    int compact(peel_params &p, uint64_t *ne, unsigned long long *live, int *cur, bool mecs, csr_status *status);
    int read_edges_and_live(uint64_t *ne, unsigned long long *live, csr_status *status);
    int read_counter(int which, unsigned long long *value, csr_status *status)
    {
        CUDA_TRY(cudaMemcpy(value, counters_ + which, sizeof *value, cudaMemcpyDeviceToHost));
        return CSR_OK;
    }
};

void lp_engine::plan(arena &a, const model_shape &s, scc_goal goal, bool)
{
    const bool mecs = goal == scc_goal::mecs;
    const uint64_t n_ = s.n, c_ = s.c, t_ = s.t;
    flag_ = a.take<uint32_t>(n_);
    in_left_ = a.take<uint32_t>(n_);
    out_left_ = a.take<uint32_t>(n_);
    labels_ = a.take<uint2>(n_);
    choices_left_ = mecs ? a.take<uint32_t>(n_) : nullptr;
    enabled_ = mecs ? a.take<uint32_t>(c_) : nullptr;
    changed_ = mecs ? a.take<uint8_t>(n_) : nullptr;
    cls_ = a.take<uint64_t>(n_);
    peel_.plan(a, n_);
    for (int i = 0; i < 2; i++) {
        edges_[i] = a.take<uint2>(t_);
        edge_choice_[i] = mecs ? a.take<uint32_t>(t_) : nullptr;
    }
    keep_ = a.take<uint8_t>(t_);
    edge_count_ = a.take<unsigned long long>(n_ + 1);
    edge_first_ = a.take<uint64_t>(n_ + 1);
    counters_ = a.take<unsigned long long>(C_COUNT);
    scan_bytes_ = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes_, edge_count_, (unsigned long long *)edge_first_, n_ + 1);
    scan_temp_ = a.take<unsigned char>(scan_bytes_);
    size_t bytes_edges = 0, bytes_choices = 0;
    cub::DeviceSelect::Flagged(nullptr, bytes_edges, edges_[0], keep_, edges_[1], counters_ + C_SELECTED,
                               (int64_t)t_);
    if (mecs)
        cub::DeviceSelect::Flagged(nullptr, bytes_choices, edge_choice_[0], keep_, edge_choice_[1],
                                   counters_ + C_SELECTED, (int64_t)t_);
    select_bytes_ = bytes_edges > bytes_choices ? bytes_edges : bytes_choices;
    select_temp_ = a.take<unsigned char>(select_bytes_);
}

int lp_engine::propagate_phase(uint64_t ne, const uint2 *edges, uint32_t mirror, csr_status *status)
{
    if (ne == 0)
        return CSR_OK;
    CUDA_TRY(cudaMemsetAsync(counters_ + C_RING, 0, 3 * sizeof(unsigned long long)));
    propagate_params P = {edges, ne, labels_, counters_, opt_.sweeps};
    const void *kernel = mirror ? (const void *)propagate<~0u> : (const void *)propagate<0u>;
    unsigned grid = resident_blocks(kernel, kPropagateThreads, opt_.blocks > 0 ? opt_.blocks : 0);
    if (grid == 0)
        return csr_fail(status, CSR_ERR_DEVICE, "CUDA: the propagation kernel cannot be resident on this device");
    uint64_t tiles = (ne + kPropagateThreads - 1) / kPropagateThreads;
    if (grid > tiles)
        grid = (unsigned)tiles;
    void *args[] = {&P};
    CUDA_TRY(cudaLaunchCooperativeKernel(kernel, grid, kPropagateThreads, args, 0, 0));
    CUDA_TRY_LAUNCH();
    return CSR_OK;
}

/* Drain the peeling when something is queued, building the job's transpose
 * (which only peeling reads here) unless it is built: where nothing is ever
 * peeled (phil7: 9M states, 82M transitions) neither is paid for. */
int lp_engine::drain(const peel_params &p, peel_goal goal, csr_status *status)
{
    unsigned long long c[WL_DONE - WL_TAIL + 1]; /* tail .. done, one copy */
    CUDA_TRY(cudaMemcpy(c, &p.queue.counter[WL_TAIL], sizeof c, cudaMemcpyDeviceToHost));
    if (c[0] == c[WL_DONE - WL_TAIL])
        return CSR_OK;
    TRY(transpose_->build_for(*model_, status));
    return peel_drain(p, goal, opt_.peel_async ? PEEL_ASYNC : PEEL_BY_LEVELS, opt_.blocks, status);
}

/* The edges (counters_[C_SELECTED], written by the caller) and the live
 * states (counted here into counters_[C_REMAINING]) of the next phase, in one
 * read: each read waits for the device, and the next launch waits for it.
 * With the phases timed by deferred_timer, a phase waits three times (SCC
 * goal: the unfinished states, the drain's queue, this) where it waited six
 * times (the lent H100, 2026-11-25, with gpu-scc's transpose planned without
 * choices, bench/ab.sh, 7 runs, labels equal: leader7 gpu-scc 5.48-6.13 ->
 * 5.07-6.02 ms, gpu-mec 6.96-7.60 -> 6.76-7.25; coin6_4 within the noise). */
int lp_engine::read_edges_and_live(uint64_t *ne, unsigned long long *live, csr_status *status)
{
    CUDA_TRY(cudaMemsetAsync(counters_ + C_REMAINING, 0, sizeof(unsigned long long)));
    count_live<<<grid_for(model_->n, kThreads), kThreads>>>(model_->n, flag_, counters_ + C_REMAINING);
    CUDA_TRY_LAUNCH();
    unsigned long long c[2];
    CUDA_TRY(cudaMemcpy(c, counters_ + C_SELECTED, sizeof c, cudaMemcpyDeviceToHost));
    *ne = c[0];
    *live = c[1];
    return CSR_OK;
}

/* Keep the edges the next phase needs (*cur flips to the compacted buffer),
 * with the number of them and of the live states. */
int lp_engine::compact(peel_params &p, uint64_t *ne, unsigned long long *live, int *cur, bool mecs,
                       csr_status *status)
{
    if (*ne == 0) { /* nothing to select: none kept */
        CUDA_TRY(cudaMemsetAsync(counters_ + C_SELECTED, 0, sizeof(unsigned long long)));
    } else { /* the selection writes how many it kept */
        const int from = *cur, to = *cur ^ 1;
        mark_kept<<<grid_for(*ne, kThreads), kThreads>>>(edges_[from], mecs ? edge_choice_[from] : nullptr, *ne,
                                                         flag_, mecs ? nullptr : cls_, p.enabled, keep_);
        CUDA_TRY_LAUNCH();
        size_t bytes = select_bytes_;
        CUDA_TRY(cub::DeviceSelect::Flagged(select_temp_, bytes, edges_[from], keep_, edges_[to],
                                            counters_ + C_SELECTED, (int64_t)*ne));
        if (mecs) {
            bytes = select_bytes_;
            CUDA_TRY(cub::DeviceSelect::Flagged(select_temp_, bytes, edge_choice_[from], keep_, edge_choice_[to],
                                                counters_ + C_SELECTED, (int64_t)*ne));
        }
        *cur = to;
    }
    return read_edges_and_live(ne, live, status);
}

int lp_engine::decompose(const device_model &m, const scc_subsystem &sub, scc_goal goal, uint32_t *component,
                         model_transpose *transpose, gpu_scc_stats *st, csr_status *status)
{
    const bool mecs = goal == scc_goal::mecs;
    const bool peel = mecs || opt_.peel != 0; /* the MEC goal needs it: peeling is its attractor */
    const peel_goal pg = mecs ? PEEL_MECS : PEEL_SCCS;
    const uint64_t n = m.n;

    /* prepare */
    timer_.reset();
    timer_.begin();
    init_states<<<grid_for(n, kThreads), kThreads>>>(n, sub.live, sub.region, flag_, component, in_left_, cls_);
    CUDA_TRY_LAUNCH();
    uint32_t *enabled = const_cast<uint32_t *>(sub.enabled);
    if (mecs) {
        init_enabled<<<grid_for(m.c, kThreads), kThreads>>>(m.c, sub.enabled, enabled_);
        CUDA_TRY_LAUNCH();
        enabled = enabled_;
    }
    model_ = &m;
    transpose_ = transpose;
    if (peel && !transpose)
        return csr_fail(status, CSR_ERR_USAGE, "lp engine: peeling without the job's transpose");
    TRY(peel_.reset(n, status));
    CUDA_TRY(cudaMemsetAsync(counters_, 0, C_COUNT * sizeof(unsigned long long)));
    peel_params p = peel_params_of(m, transpose ? transpose->tr : graph_transpose());
    p.enabled = enabled;
    p.cls = sub.region ? cls_ : nullptr; /* MEC goal: only to disable the choices that cross regions */
    p.flag = flag_;
    p.in_left = in_left_;
    p.out_left = out_left_;
    p.choices_left = choices_left_;
    p.component = component;
    p.queue = peel_.queue();
    p.stats = peel_.stats();
    TRY(peel_count(p, pg, status));
    if (mecs)
        p.cls = nullptr;
    timer_.end(&st->prepare_s);

    /* peel */
    timer_.begin();
    if (peel) {
        TRY(peel_seed(p, pg, status));
        TRY(drain(p, pg, status));
    }
    timer_.end(&st->peel_s);

    /* the edge list of what is left, and the live states */
    timer_.begin();
    edge_counts<<<grid_for(n + 1, kThreads), kThreads>>>(n, flag_, out_left_, edge_count_);
    CUDA_TRY_LAUNCH();
    size_t bytes = scan_bytes_;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp_, bytes, edge_count_, (unsigned long long *)edge_first_, n + 1));
    int cur = 0;
    write_edges<<<grid_for_rows(n, kThreads), kThreads>>>(p, edge_first_, edges_[cur], mecs ? edge_choice_[cur] : nullptr);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaMemcpyAsync(counters_ + C_SELECTED, edge_first_ + n, sizeof(uint64_t), cudaMemcpyDeviceToDevice));
    uint64_t ne = 0;
    unsigned long long live = 0;
    TRY(read_edges_and_live(&ne, &live, status));
    timer_.end(&st->prepare_s);

    /* phases */
    for (unsigned phase = 1; live > 0; phase++) {
        st->phases++;
        const bool smallest = opt_.label_order == GPU_LP_SMALLEST || (opt_.label_order == GPU_LP_ALTERNATE && phase % 2);
        const uint32_t mirror = smallest ? ~0u : 0u;
        timer_.begin();
        init_labels<<<grid_for(n, kThreads), kThreads>>>(n, flag_, labels_, mirror);
        CUDA_TRY_LAUNCH();
        TRY(propagate_phase(ne, edges_[cur], mirror, status));
        timer_.end(&st->search_s);

        timer_.begin();
        p.labels = labels_;
        p.label_mirror = mirror;
        if (mecs) {
            CUDA_TRY(cudaMemsetAsync(changed_, 0, n));
            p.changed = changed_;
            TRY(peel_cut(p, pg, edges_[cur], edge_choice_[cur], ne, status));
            TRY(drain(p, pg, status));
            finish_mecs<<<grid_for(n, kThreads), kThreads>>>(n, flag_, labels_, changed_, component, mirror);
            CUDA_TRY_LAUNCH();
        } else {
            unsigned long long unfinished = 0;
            CUDA_TRY(cudaMemsetAsync(counters_ + C_UNFINISHED, 0, sizeof(unsigned long long)));
            count_unfinished<<<grid_for(n, kThreads), kThreads>>>(n, flag_, labels_, counters_ + C_UNFINISHED);
            CUDA_TRY_LAUNCH();
            TRY(read_counter(C_UNFINISHED, &unfinished, status));
            if (unfinished == 0) { /* the last phase: every live state is done */
                finish_sccs<<<grid_for(n, kThreads), kThreads>>>(n, flag_, labels_, cls_, component, mirror);
                CUDA_TRY_LAUNCH();
                timer_.end(&st->finish_s);
                break;
            }
            if (peel)
                TRY(peel_cut(p, pg, edges_[cur], nullptr, ne, status));
            finish_sccs<<<grid_for(n, kThreads), kThreads>>>(n, flag_, labels_, cls_, component, mirror);
            CUDA_TRY_LAUNCH();
            p.cls = cls_;
            if (peel)
                TRY(drain(p, pg, status));
        }
        p.labels = nullptr;
        p.changed = nullptr;
        TRY(compact(p, &ne, &live, &cur, mecs, status));
        timer_.end(&st->finish_s);
    }

    timer_.settle();
    unsigned long long passes = 0, peel_stats[3] = {0, 0, 0};
    TRY(read_counter(C_PASSES, &passes, status));
    CUDA_TRY(cudaMemcpy(peel_stats, peel_.stats(), sizeof peel_stats, cudaMemcpyDeviceToHost));
    st->passes += passes;
    st->peeled += peel_stats[0];
    st->removed_choices += peel_stats[1];
    st->peel_levels += peel_stats[2];
    return CSR_OK;
}

} /* namespace */

std::unique_ptr<scc_engine> make_lp_engine(const gpu_scc_options *options)
{
    return std::unique_ptr<scc_engine>(new lp_engine(options));
}

} /* namespace gpu */
