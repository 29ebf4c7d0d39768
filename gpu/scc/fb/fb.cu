/*
 * fb.cu - the forward-backward SCC engine (engine.h): FBT and BFBT of Wijs,
 * Katoen & Bosnacki, "Efficient GPU algorithms for parallel decomposition of
 * graphs into strongly connected and maximal end components", FMSD 2016:
 * Algorithm 1 (FBT), Algorithm 2 and section 5.2 (BFBT, bounded globally),
 * Algorithm 3 (BFS sweeps over all states, frontier in per-state marks),
 * Algorithm 4 (a block-local cache), section 5.1 (the interleaved segments of
 * restructured input; the transpose on the GPU when it fits, else the
 * backward search scans the forward CSR), Algorithm 6 (pivot selection by
 * racing atomicCAS into a hash table, with warp aggregation).  All regions of
 * a recursion level are searched at once (the phases: fb_phases.cuh).
 *
 * The round logic exists once, as a machine of steps: each step is one
 * grid-wide phase (a trimming sweep or level, a pivot-selection pass, a
 * search sweep, the split) that adds to two grid-wide counters; advance()
 * reads them and chooses the next step, on the device or on the host alike.
 * Two drivers run it (gunrock's prepare / while not converged / finalize):
 * one cooperative kernel with a grid barrier between steps (the default), or
 * one launch per step with the host reading the counters back (the
 * article's way, --host-loop).
 *
 * Differences from the article, all in data layout: the bookkeeping is kept
 * in separate byte and key arrays instead of the three highest bits of the
 * offsets and results words, so states are addressed with all 32 bits; the
 * pivot hash table is its own array (12 bytes a slot, twice the active
 * states); offsets are 64-bit; trimming ignores self-loops (trim_sweep).
 */
#include <chrono>
#include <cooperative_groups.h>
#include <cub/cub.cuh>

#include "cuda_check.h"
#include "engine.h"
#include "fb_phases.cuh"
#include "peel.h"
#include "timer.h"

namespace gpu {
namespace fb {

namespace {

namespace cg = cooperative_groups;
constexpr int kThreads = 256;

enum step : int {
    TRIM_COUNT,       /* queue trimming: count each state's in- and out-transitions in its region */
    TRIM_SEED,        /* queue the states with a count of 0 */
    TRIM_LEVEL,       /* trim one level of the queue, queue the next */
    TRIM_MARK,        /* the trimmed states leave their regions */
    SWEEP_CLEAR,      /* sweep trimming without a transpose: clear has_in */
    SWEEP_MARK_IN,    /* ... mark the states with an in-transition from their region */
    SWEEP_TRIM,       /* one trimming sweep over all states */
    COUNT_ACTIVE,     /* the states left in some region */
    PIVOT_CLEAR,      /* empty the pivot table */
    PIVOT_CANDIDATES, /* the J sets race first (FMSD 5.3) */
    PIVOT_CLAIM,      /* every active state races for its region's slot (Algorithm 6) */
    PIVOT_LOOKUP,     /* every state learns its pivot; pivots start both searches */
    SEARCH,           /* one forward (and, hybrid, backward) search sweep */
    SEARCH_BACKWARD,  /* not hybrid: the backward sweep */
    CLASSIFY,         /* SCCs found, the other states into their parts' regions */
    DONE
};

enum { TIME_TRIM, TIME_PIVOT, TIME_SEARCH, TIME_KINDS };

struct round_params {
    device_graph g;
    uint64_t *key;
    uint32_t *scc, *pivot;
    uint8_t *fw, *bw, *has_in; /* has_in: without a transpose */
    uint64_t *slot_key;
    uint32_t *slot_pivot;
    trim_queue_args tq;
    const uint8_t *candidate; /* J: pivot candidates of the first round, or NULL */
    int hybrid, bounding, aggregate, cache_iterations, queue_trim;
};

struct control {
    int step;
    int first_round, cur, fw_live, bw_live, bound, fw_grew;
    unsigned long long level_size, mask;
    unsigned long long trimmed, trim_sweeps, search_sweeps, rounds;
};

__host__ __device__ inline int sweep_start(const round_params &P) { return P.has_in ? SWEEP_CLEAR : SWEEP_TRIM; }
__host__ __device__ inline int round_start(const round_params &P) { return P.queue_trim ? TRIM_COUNT : sweep_start(P); }

__host__ __device__ inline int time_kind(int s)
{
    return s <= COUNT_ACTIVE ? TIME_TRIM : s <= PIVOT_LOOKUP ? TIME_PIVOT : TIME_SEARCH;
}

__host__ __device__ inline control start(const round_params &P)
{
    control c = {};
    c.step = round_start(P);
    c.first_round = 1;
    return c;
}

__host__ __device__ inline void finish_search_sweep(control &c, const round_params &P, bool fw_grew, bool bw_grew)
{
    c.search_sweeps++;
    c.fw_live = c.fw_live && fw_grew;
    c.bw_live = c.bw_live && bw_grew;
    if (!c.fw_live && !c.bw_live) {
        c.step = CLASSIFY;
        return;
    }
    /* BFBT, globally (section 5.2): one search has ended in every region; the
     * other goes on only inside what it reached. */
    if (P.bounding && !c.bound && c.fw_live != c.bw_live)
        c.bound = c.fw_live ? 2 : 1;
    c.step = SEARCH;
}

/* The next step after c.step, from the step's two grid-wide counters. */
__host__ __device__ inline void advance(control &c, const round_params &P, const unsigned long long got[2])
{
    switch (c.step) {
    case TRIM_COUNT: c.step = TRIM_SEED; break;
    case TRIM_SEED:
    case TRIM_LEVEL:
        if (c.step == TRIM_LEVEL)
            c.trim_sweeps++;
        c.trimmed += got[0];
        c.cur = c.step == TRIM_SEED ? 0 : c.cur ^ 1;
        c.level_size = got[0];
        c.step = got[0] ? TRIM_LEVEL : TRIM_MARK;
        break;
    case TRIM_MARK: c.step = sweep_start(P); break;
    case SWEEP_CLEAR: c.step = SWEEP_MARK_IN; break;
    case SWEEP_MARK_IN: c.step = SWEEP_TRIM; break;
    case SWEEP_TRIM:
        c.trimmed += got[0];
        c.trim_sweeps++;
        c.step = got[0] ? sweep_start(P) : COUNT_ACTIVE;
        break;
    case COUNT_ACTIVE:
        if (!got[0]) {
            c.step = DONE;
            break;
        }
        c.mask = 63; /* a table of twice the active states */
        while (c.mask + 1 < 2 * got[0])
            c.mask = c.mask * 2 + 1;
        c.step = PIVOT_CLEAR;
        break;
    case PIVOT_CLEAR: c.step = P.candidate && c.first_round ? PIVOT_CANDIDATES : PIVOT_CLAIM; break;
    case PIVOT_CANDIDATES: c.step = PIVOT_CLAIM; break;
    case PIVOT_CLAIM: c.step = PIVOT_LOOKUP; break;
    case PIVOT_LOOKUP:
        c.first_round = 0;
        c.rounds++;
        c.fw_live = c.bw_live = 1;
        c.bound = 0;
        c.step = SEARCH;
        break;
    case SEARCH:
        if (!P.hybrid) {
            c.fw_grew = got[0] != 0;
            c.step = SEARCH_BACKWARD;
        } else {
            finish_search_sweep(c, P, got[0] != 0, got[1] != 0);
        }
        break;
    case SEARCH_BACKWARD: finish_search_sweep(c, P, c.fw_grew != 0, got[1] != 0); break;
    case CLASSIFY: c.step = round_start(P); break;
    default: c.step = DONE; break;
    }
}

__device__ __forceinline__ void add(unsigned long long *out, int which, unsigned long long v)
{
    if (v)
        atomicAdd(&out[which], v);
}

/* One level of trimming over queues: each state of the level takes one off
 * the in-count of its successors and the out-count of its predecessors in
 * its region; a count reaching 0 queues that state for the next level. */
__device__ void trim_level(const round_params &P, int cur, unsigned long long level_size, unsigned long long *size)
{
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
}

/* The backward half of a search sweep: over the transpose, or pulled over the forward CSR. */
__device__ __forceinline__ void search_backward(const round_params &P, const search_args &a, bool grew[2])
{
    if (P.g.rrow)
        search_sweep(P.g, a, false, true, grew, P.cache_iterations);
    else
        search_sweep_backward_pull(P.g, a, grew);
}

/* The work of step c.step, by every thread of the grid; counts into out[0..1]. */
__device__ void step_work(const round_params &P, const control &c, unsigned long long *out)
{
    const uint64_t n = P.g.n;
    search_args a = {P.key, P.pivot, P.fw, P.bw, c.bound == 2 ? P.bw : nullptr, c.bound == 1 ? P.fw : nullptr};
    bool grew[2] = {false, false};
    switch (c.step) {
    case TRIM_COUNT: trim_count(P.g, P.key, P.tq); break;
    case TRIM_SEED:
        for (uint64_t u = thread_index(); u < n; u += thread_count())
            if (P.key[u] != kDone && (P.tq.in_left[u] == 0 || P.tq.out_left[u] == 0))
                trim_enqueue((uint32_t)u, P.tq, P.tq.queue[0], &out[0]);
        break;
    case TRIM_LEVEL: trim_level(P, c.cur, c.level_size, &out[0]); break;
    case TRIM_MARK:
        for (uint64_t u = thread_index(); u < n; u += thread_count())
            if (P.key[u] != kDone && P.tq.gone[u]) {
                P.key[u] = kDone;
                P.scc[u] = (uint32_t)u;
            }
        break;
    case SWEEP_CLEAR: clear_bytes(P.has_in, n); break;
    case SWEEP_MARK_IN: trim_mark_in(P.g, P.key, P.has_in); break;
    case SWEEP_TRIM: add(out, 0, trim_sweep(P.g, P.key, P.scc, P.has_in)); break;
    case COUNT_ACTIVE: add(out, 0, count_active(P.key, n)); break;
    case PIVOT_CLEAR:
        for (uint64_t h = thread_index(); h <= c.mask; h += thread_count())
            P.slot_key[h] = kEmptySlot;
        break;
    case PIVOT_CANDIDATES:
        pivot_claim(P.key, n, P.slot_key, P.slot_pivot, c.mask, P.aggregate, P.candidate);
        break;
    case PIVOT_CLAIM: pivot_claim(P.key, n, P.slot_key, P.slot_pivot, c.mask, P.aggregate, nullptr); break;
    case PIVOT_LOOKUP: pivot_lookup(P.key, n, P.slot_key, P.slot_pivot, c.mask, P.pivot, P.fw, P.bw); break;
    case SEARCH:
        if (P.hybrid && P.g.rrow) {
            search_sweep(P.g, a, c.fw_live, c.bw_live, grew, P.cache_iterations);
        } else {
            if (c.fw_live)
                search_sweep(P.g, a, true, false, grew, P.cache_iterations);
            if (P.hybrid && c.bw_live)
                search_backward(P, a, grew);
        }
        add(out, 0, grew[0]);
        add(out, 1, grew[1]);
        break;
    case SEARCH_BACKWARD:
        if (c.bw_live)
            search_backward(P, a, grew);
        add(out, 1, grew[1]);
        break;
    case CLASSIFY: classify(n, P.key, P.pivot, P.fw, P.bw, P.scc, c.bound); break;
    default: break;
    }
}

__device__ __forceinline__ uint64_t now_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

enum { R_RING = 0, R_COUNTS = 6, R_TIMES = 10, R_TOTAL = 13 }; /* counters: ring, control counts, step times */

/* The persistent driver: every step, then a grid barrier.  Grid-wide
 * counters go through a ring of three slots of two: slot s+1 is cleared
 * during step s, after its last readers (step s-2) passed the barrier of
 * step s-1 and before its writers (step s+1) pass the barrier of step s. */
static __global__ void __launch_bounds__(kThreads) all_steps(round_params P, unsigned long long *counters)
{
    cg::grid_group grid = cg::this_grid();
    const bool leader = grid.thread_rank() == 0;
    control c = start(P);
    uint64_t t0 = now_ns();
    for (uint64_t s = 0; c.step != DONE; s++) {
        unsigned long long *slot = counters + R_RING + s % 3 * 2;
        if (leader) {
            counters[R_RING + (s + 1) % 3 * 2] = 0;
            counters[R_RING + (s + 1) % 3 * 2 + 1] = 0;
        }
        step_work(P, c, slot);
        grid.sync();
        unsigned long long got[2] = {*(volatile unsigned long long *)&slot[0], *(volatile unsigned long long *)&slot[1]};
        const int kind = time_kind(c.step);
        advance(c, P, got);
        if (leader) {
            uint64_t t1 = now_ns();
            counters[R_TIMES + kind] += t1 - t0;
            t0 = t1;
        }
    }
    if (leader) {
        counters[R_COUNTS + 0] = c.trimmed;
        counters[R_COUNTS + 1] = c.trim_sweeps;
        counters[R_COUNTS + 2] = c.search_sweeps;
        counters[R_COUNTS + 3] = c.rounds;
    }
}

/* The host-driven driver's step: one launch. */
static __global__ void __launch_bounds__(kThreads) one_step(round_params P, control c, unsigned long long *out)
{
    step_work(P, c, out);
}

static __global__ void init_regions(uint64_t n, const uint8_t *__restrict__ live, const uint32_t *__restrict__ region,
                                    uint64_t *__restrict__ key, uint32_t *__restrict__ component,
                                    uint32_t *__restrict__ flag, uint32_t *__restrict__ in_left,
                                    uint64_t *__restrict__ cls)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        bool in = !live || live[s];
        key[s] = in ? (region ? (uint64_t)region[s] << 2 : 0) : kDone; /* low bits 0: no part of a split */
        component[s] = kNoComponent;
        if (flag) {
            flag[s] = in ? kLive : kRemoved;
            in_left[s] = 0;
            cls[s] = region ? region[s] : 0;
        }
    }
}

/* After peeling: the removed states leave their regions. */
static __global__ void leave_peeled(uint64_t n, const uint32_t *__restrict__ flag, uint64_t *__restrict__ key)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        if (flag[s] == kRemoved)
            key[s] = kDone;
}

/* The graph of the enabled choices of the live states: count[s] = their
 * transitions, then, after the scan, their targets. */
static __global__ void count_enabled(uint64_t n, const uint64_t *__restrict__ state_choices,
                                     const uint64_t *__restrict__ choice_transitions,
                                     const uint32_t *__restrict__ enabled, const uint64_t *__restrict__ key,
                                     unsigned long long *__restrict__ count)
{
    for (uint64_t s = thread_index(); s <= n; s += thread_count()) {
        unsigned long long sum = 0;
        if (s < n && key[s] != kDone)
            for (uint64_t k = state_choices[s]; k < state_choices[s + 1]; k++)
                if (enabled[k])
                    sum += choice_transitions[k + 1] - choice_transitions[k];
        count[s] = sum;
    }
}

static __global__ void copy_enabled(uint64_t n, const uint64_t *__restrict__ state_choices,
                                    const uint64_t *__restrict__ choice_transitions, const uint32_t *__restrict__ targets,
                                    const uint32_t *__restrict__ enabled, const uint64_t *__restrict__ key,
                                    const uint64_t *__restrict__ row, uint32_t *__restrict__ col)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        if (key[s] == kDone)
            continue;
        uint64_t at = row[s];
        for (uint64_t k = state_choices[s]; k < state_choices[s + 1]; k++)
            if (enabled[k])
                for (uint64_t i = choice_transitions[k]; i < choice_transitions[k + 1]; i++)
                    col[at++] = targets[i];
    }
}

static uint64_t next_pow2(uint64_t x)
{
    uint64_t p = 64;
    while (p < x)
        p <<= 1;
    return p;
}

class fb_engine : public scc_engine {
  public:
    explicit fb_engine(const gpu_scc_options *o) : opt_(*o) {}
    const char *name() const override { return "fb"; }
    bool finds_mecs() const override { return false; }
    bool reads_transpose(scc_goal) const override { return opt_.peel == 1; } /* --peel */
    void plan(arena &a, const model_shape &s, scc_goal goal, bool choices) override;
    int decompose(const device_model &m, const scc_subsystem &sub, scc_goal goal, uint32_t *component,
                  model_transpose *transpose, gpu_scc_stats *stats, csr_status *status) override;

  private:
    gpu_scc_options opt_;
    bool decided_ = false, use_transpose_ = false, queue_trim_ = false, peel_ = false, choices_ = false;
    /* the workspace */
    uint64_t *key_ = nullptr, *slot_key_ = nullptr;
    uint32_t *pivot_ = nullptr, *slot_pivot_ = nullptr;
    uint8_t *fw_ = nullptr, *bw_ = nullptr, *has_in_ = nullptr;
    trim_queue_args tq_ = {};
    unsigned long long *counters_ = nullptr;
    /* the graph of enabled choices, the transpose of the searched graph */
    uint64_t *rest_row_ = nullptr;
    uint32_t *rest_col_ = nullptr;
    unsigned long long *rest_count_ = nullptr;
    void *scan_temp_ = nullptr;
    size_t scan_bytes_ = 0;
    graph_transpose tr_;
    /* peeling first */
    peel_buffers peel_buf_;
    uint32_t *flag_ = nullptr, *in_left_ = nullptr, *out_left_ = nullptr;
    uint64_t *cls_ = nullptr;

    int run_rounds(const round_params &P, gpu_scc_stats *st, csr_status *status);
};

void fb_engine::plan(arena &a, const model_shape &s, scc_goal, bool choices)
{
    const uint64_t n = s.n, t = s.t;
    if (!decided_) {
        /* Decided once (measuring), so that carving takes the same plan: the
         * transpose when wanted and when it fits with room to spare. */
        size_t free_bytes = 0, total_bytes = 0;
        cudaMemGetInfo(&free_bytes, &total_bytes);
        uint64_t transpose = (n + 1) * 16 + t * 4 + (64ull << 20);
        use_transpose_ = opt_.transpose && transpose < free_bytes;
        queue_trim_ = use_transpose_ && opt_.queue_trimming && opt_.persistent;
        peel_ = opt_.peel == 1;
        choices_ = choices;
        decided_ = true;
    }
    const uint64_t slots = next_pow2(2 * n);
    key_ = a.take<uint64_t>(n);
    pivot_ = a.take<uint32_t>(n);
    fw_ = a.take<uint8_t>(n);
    bw_ = a.take<uint8_t>(n);
    slot_key_ = a.take<uint64_t>(slots);
    slot_pivot_ = a.take<uint32_t>(slots);
    counters_ = a.take<unsigned long long>(R_TOTAL);
    has_in_ = use_transpose_ ? nullptr : a.take<uint8_t>(n);
    tq_ = {};
    if (queue_trim_) {
        tq_.in_left = a.take<uint32_t>(n);
        tq_.out_left = a.take<uint32_t>(n);
        tq_.gone = a.take<uint32_t>(n);
        tq_.queue[0] = a.take<uint32_t>(n);
        tq_.queue[1] = a.take<uint32_t>(n);
    }
    if (use_transpose_)
        tr_.plan(a, n, t, false);
    rest_row_ = nullptr;
    if (choices_) {
        rest_row_ = a.take<uint64_t>(n + 1);
        rest_col_ = a.take<uint32_t>(t);
        rest_count_ = a.take<unsigned long long>(n + 1);
        scan_bytes_ = 0;
        cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes_, rest_count_, (unsigned long long *)rest_row_, n + 1);
        scan_temp_ = a.take<unsigned char>(scan_bytes_);
    }
    if (peel_) {
        peel_buf_.plan(a, n);
        flag_ = a.take<uint32_t>(n);
        in_left_ = a.take<uint32_t>(n);
        out_left_ = a.take<uint32_t>(n);
        cls_ = a.take<uint64_t>(n);
    }
}

int fb_engine::run_rounds(const round_params &P, gpu_scc_stats *st, csr_status *status)
{
    unsigned long long counts[R_TOTAL];
    CUDA_TRY(cudaMemsetAsync(counters_, 0, R_TOTAL * sizeof(unsigned long long)));
    unsigned grid = 0;
    if (opt_.persistent) {
        grid = resident_blocks((const void *)all_steps, kThreads, opt_.blocks > 0 ? opt_.blocks : 0);
        unsigned fill = grid_for(P.g.n, kThreads);
        if (grid > fill)
            grid = fill;
    }
    if (grid > 0) {
        void *args[] = {const_cast<round_params *>(&P), &counters_};
        CUDA_TRY(cudaLaunchCooperativeKernel((const void *)all_steps, grid, kThreads, args, 0, 0));
        CUDA_TRY_LAUNCH();
        CUDA_TRY(cudaMemcpy(counts, counters_, sizeof counts, cudaMemcpyDeviceToHost));
    } else {
        /* One launch per step, the host reading the counters after each. */
        control c = start(P);
        double times[TIME_KINDS] = {0, 0, 0};
        const unsigned blocks = grid_for(P.g.n, kThreads);
        while (c.step != DONE) {
            auto t0 = std::chrono::steady_clock::now();
            unsigned long long got[2];
            CUDA_TRY(cudaMemsetAsync(counters_, 0, 2 * sizeof(unsigned long long)));
            one_step<<<blocks, kThreads>>>(P, c, counters_);
            CUDA_TRY_LAUNCH();
            CUDA_TRY(cudaMemcpy(got, counters_, sizeof got, cudaMemcpyDeviceToHost));
            const int kind = time_kind(c.step);
            advance(c, P, got);
            times[kind] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        counts[R_COUNTS + 0] = c.trimmed;
        counts[R_COUNTS + 1] = c.trim_sweeps;
        counts[R_COUNTS + 2] = c.search_sweeps;
        counts[R_COUNTS + 3] = c.rounds;
        for (int k = 0; k < TIME_KINDS; k++)
            counts[R_TIMES + k] = (unsigned long long)(times[k] * 1e9);
    }
    st->peeled += counts[R_COUNTS + 0];
    st->passes += counts[R_COUNTS + 1] + counts[R_COUNTS + 2];
    st->phases += counts[R_COUNTS + 3];
    st->peel_s += counts[R_TIMES + TIME_TRIM] / 1e9;
    st->search_s += (counts[R_TIMES + TIME_PIVOT] + counts[R_TIMES + TIME_SEARCH]) / 1e9;
    return CSR_OK;
}

int fb_engine::decompose(const device_model &m, const scc_subsystem &sub, scc_goal, uint32_t *component,
                         model_transpose *transpose, gpu_scc_stats *st, csr_status *status)
{
    const uint64_t n = m.n;
    phase_timer timer;
    timer.begin();
    init_regions<<<grid_for(n, kThreads), kThreads>>>(n, sub.live, sub.region, key_, component, peel_ ? flag_ : nullptr,
                                                      in_left_, cls_);
    CUDA_TRY_LAUNCH();
    st->prepare_s += timer.end();

    if (peel_) {
        /* Asynchronous peeling first (gpu/scc/peel); fb gets what is left. */
        timer.begin();
        if (!transpose)
            return csr_fail(status, CSR_ERR_USAGE, "fb engine: peeling without the job's transpose");
        TRY(transpose->build_for(m, status));
        TRY(peel_buf_.reset(n, status));
        peel_params p = peel_params_of(m, transpose->tr);
        p.enabled = const_cast<uint32_t *>(sub.enabled);
        p.cls = sub.region ? cls_ : nullptr;
        p.flag = flag_;
        p.in_left = in_left_;
        p.out_left = out_left_;
        p.component = component;
        p.queue = peel_buf_.queue();
        p.stats = peel_buf_.stats();
        TRY(peel_count(p, PEEL_SCCS, status));
        TRY(peel_seed(p, PEEL_SCCS, status));
        TRY(peel_drain(p, PEEL_SCCS, opt_.peel_async ? PEEL_ASYNC : PEEL_BY_LEVELS, opt_.blocks, status));
        leave_peeled<<<grid_for(n, kThreads), kThreads>>>(n, flag_, key_);
        CUDA_TRY_LAUNCH();
        unsigned long long peel_stats[3] = {0, 0, 0};
        CUDA_TRY(cudaMemcpy(peel_stats, peel_buf_.stats(), sizeof peel_stats, cudaMemcpyDeviceToHost));
        st->peeled += peel_stats[0];
        st->peel_levels += peel_stats[2];
        st->peel_s += timer.end();
    }

    /* The searched graph: the model's (interleaved segments included), or
     * that of the enabled choices; its transpose. */
    timer.begin();
    device_graph g = {m.row, m.targets, nullptr, nullptr, n, m.interleaved, m.seg_first, m.seg_targets};
    if (sub.enabled) {
        if (!choices_)
            return csr_fail(status, CSR_ERR_USAGE, "fb engine planned without choices was given enabled choices");
        count_enabled<<<grid_for(n + 1, kThreads), kThreads>>>(n, m.state_choices, m.choice_transitions, sub.enabled,
                                                               key_, rest_count_);
        CUDA_TRY_LAUNCH();
        size_t bytes = scan_bytes_;
        CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp_, bytes, rest_count_, (unsigned long long *)rest_row_, n + 1));
        copy_enabled<<<grid_for(n, kThreads), kThreads>>>(n, m.state_choices, m.choice_transitions, m.targets,
                                                          sub.enabled, key_, rest_row_, rest_col_);
        CUDA_TRY_LAUNCH();
        g = device_graph{rest_row_, rest_col_, nullptr, nullptr, n, 0, nullptr, nullptr};
    }
    if (use_transpose_) {
        TRY(tr_.build(n, nullptr, g.row, g.col, status));
        g.rrow = tr_.first;
        g.rcol = tr_.source;
    }
    st->prepare_s += timer.end();

    round_params P = {};
    P.g = g;
    P.key = key_;
    P.scc = component;
    P.pivot = pivot_;
    P.fw = fw_;
    P.bw = bw_;
    P.has_in = g.rrow ? nullptr : has_in_;
    P.slot_key = slot_key_;
    P.slot_pivot = slot_pivot_;
    P.tq = tq_;
    P.candidate = sub.pivot_hint;
    P.hybrid = opt_.hybrid;
    P.bounding = opt_.bounding;
    P.aggregate = opt_.warp_aggregation;
    P.cache_iterations = opt_.cache_iterations;
    P.queue_trim = queue_trim_ && g.rrow;
    return run_rounds(P, st, status);
}

} /* namespace */

} /* namespace fb */

std::unique_ptr<scc_engine> make_fb_engine(const gpu_scc_options *options)
{
    return std::unique_ptr<scc_engine>(new fb::fb_engine(options));
}

} /* namespace gpu */
