/*
 * iterate.cu - interval, optimistic and plain value iteration of the
 * compacted maybe system on the GPU (reach_gpu.h, gpu_reach_iterate; Berger
 * 2014, chapter 3; the algorithms of ref/reach_ref.h): the step kernels,
 * their launches captured as CUDA graphs, the host loop with optimistic
 * value iteration's guesses, and certified policy iteration (pi.h) first
 * where it applies.
 *
 * Mapping (Berger section 3.5, generalised): the choices of a state are
 * handled by a group of G threads; with short choices (fewer than 8 branches
 * on average) each thread takes whole choices and the group reduces max/min
 * by warp shuffles, G the power of two at or above the average choices per
 * maybe state but no larger than the device's resident threads allow for
 * every maybe state at once (G = 1 on coin6_4's 740k maybe states); with
 * long choices a warp takes each choice's branches (Berger's warp per row)
 * and sums by shuffles.  Interval iteration updates both bounds from one
 * read of a state's choices, in place (monotone, so sound); for Pmax each
 * MEC's upper bound is the atomic maximum over its states' leaving choices.
 * Each iteration reduces its largest difference and whether any bound
 * changed per block into a device word; VI_BATCH iterations run as one CUDA
 * graph and the host reads the word after them (the bounds only tighten, so
 * the extra iterations cost time, never soundness; value iteration may run
 * up to VI_BATCH - 1 iterations past the first that met its rule).  A whole
 * iteration that changes no bound while the difference is above epsilon is
 * CSR_ERR_STALLED.  Gauss-Seidel by sweep classes: sweep.h.  Device memory
 * 4(nm + 1) + 4(mc + 1) + 6 or 12 per kept branch + 16 per slot (+ 4nm + mc
 * + 16 per MEC for Pmax), with sweep classes about as much again, kept in
 * the engine's workspace across systems.
 */
#include <math.h>
#include <math_constants.h>
#include <memory>
#include <new>
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "cuda_check.h"
#include "reach_gpu.h"
#include "graph.h"
#include "hugepages.h"
#include "launch.h"
#include "parallel.h"
#include "pi.h"
#include "resident.h"
#include "sweep.h"
#include "timer.h"
#include "workspace.h"

using gpu::grid_for;
using gpu::thread_count;
using gpu::thread_index;

/* ---- iteration kernels --------------------------------------------------------- */

/* Convergence is read by the host after every VI_BATCH-th iteration (and the
 * last): the iterations between run as one CUDA graph, no host round trip. */
#define VI_BATCH 16
/* Iterations of optimistic value iteration on an expected reward before
 * certified policy iteration takes over (as the CPU's cores: check/reach_topological.c) */
#define GPU_REACH_OVI_FIRST 4096

/* GPU_REACH_OVI_FIRST, or CSR_TEST_OVI_FIRST's value where set (the tests'
 * hand-over after a few iterations; 0: policy iteration first) */
static uint64_t ovi_first_limit(void)
{
    const char *test = getenv("CSR_TEST_OVI_FIRST");
    return test ? strtoull(test, NULL, 10) : GPU_REACH_OVI_FIRST;
}



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

/* Branches of a choice whose successors' bounds are loaded at once
 * (add_branches) where a lane takes a whole state (G = 1); groups of more
 * lanes take one at a time (batched, their interval step spills up to 168
 * bytes of its 40 registers: consensus.4's and firewire's iterations 1-5%
 * slower). */
#define VI_BRANCH_BATCH 4

/*
 * sl (and, with BOTH, su) += p * the successor's bounds over the branches of
 * a choice, from branch j_first to the one marked VI_LAST_BRANCH, BATCH at a
 * time: the batch's targets read ahead (none past the mb branches), every
 * live successor's bounds loaded before the first is summed, so a long
 * choice waits for one memory latency a batch instead of one a branch (a
 * warp waits for its longest choice; wlan's backoff choices have 32 or 64
 * branches).  The sums in branch order, as one at a time.
 */
template <int BATCH, bool BOTH>
static __device__ __forceinline__ void add_branches(const vi_view &v, uint32_t j_first, double &sl, double &su)
{
    if constexpr (BATCH == 1) {
        for (uint32_t j = j_first;; j++) {
            const uint32_t tt = v.target[j];
            add_successor<BOTH>(v, tt & VI_SLOT_MASK, branch_prob(v, j), sl, su);
            if (tt & VI_LAST_BRANCH)
                return;
        }
    } else {
        for (uint64_t j = j_first;; j += BATCH) {
            uint32_t t[BATCH];
#pragma unroll
            for (int u = 0; u < BATCH; u++)
                t[u] = j + u < v.mb ? v.target[j + u] : VI_LAST_BRANCH;
            double lower[BATCH], upper[BATCH];
            bool live = true; /* no branch before u was the choice's last */
#pragma unroll
            for (int u = 0; u < BATCH; u++) {
                if (live) {
                    if (BOTH) {
                        const vi_bounds b = v.bounds[t[u] & VI_SLOT_MASK];
                        lower[u] = b.lower;
                        upper[u] = b.upper;
                    } else {
                        lower[u] = v.bounds[t[u] & VI_SLOT_MASK].lower;
                    }
                }
                live = live && !(t[u] & VI_LAST_BRANCH);
            }
            live = true;
#pragma unroll
            for (int u = 0; u < BATCH; u++) {
                if (live) {
                    const double p = branch_prob(v, (uint32_t)(j + u));
                    sl += p * lower[u];
                    if (BOTH)
                        su += p * upper[u];
                }
                live = live && !(t[u] & VI_LAST_BRANCH);
            }
            if (!live)
                return;
        }
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
                add_branches<G == 1 ? VI_BRANCH_BATCH : 1, BOTH>(v, word, sl, su);
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

/* The upper bounds of the maybe slots back to the a-priori one (a guess
 * that failed): 1 for probabilities, INFINITY for rewards. */
static __global__ void forget_upper(vi_view v)
{
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count())
        v.bounds[i].upper = v.reward ? CUDART_INF : 1.0;
}

/* An expected reward's maybe slots back to their a-priori bounds [0, INFINITY]. */
static __global__ void forget_bounds(vi_view v)
{
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count())
        v.bounds[i] = vi_bounds{0.0, CUDART_INF};
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

/* One task of the bounds' return: slots [first, last) of the downloaded
 * bounds into the system's lower and upper (f64[n]) by state. */
struct bounds_store_task {
    const compact_system *cs;
    const uint32_t *order; /* new slot p was slot order[p] (NULL: in order) */
    double *lower, *upper;
    bool upper_too;
    uint64_t first, last;
};

static void *bounds_store(void *arg)
{
    const bounds_store_task *k = (const bounds_store_task *)arg;
    for (uint64_t i = k->first; i < k->last; i++) {
        const uint32_t state = k->cs->slot_state[k->order ? k->order[i] : i];
        k->lower[state] = k->cs->bounds[i].lower;
        if (k->upper_too)
            k->upper[state] = k->cs->bounds[i].upper;
    }
    return NULL;
}

static int vi_run(const reach_system *y, const reach_options *o, double eps, double *lower, double *upper,
                  uint64_t *iterations, double *difference, gpu_reach_context *cx, uint32_t *slot_of,
                  uint8_t *needed)
{
    csr_status *status = cx->status;
    const int ii = o->method != REACH_VI, mecs = ii && y->mec && y->num_mecs;
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
    cx->stats.compact_s += timer.end();
    const uint64_t nm = cs.nm, slots = cs.slots();
    if (nm == 0)
        return CSR_OK;
    int g = cx->options.threads_per_state;
    if (!g) {
        const gpu::device_geometry &dg = gpu::geometry();
        double per_state = (double)cs.mc / (double)nm, resident = (double)dg.sms * (double)dg.threads_per_sm;
        g = 1;
        while (g < 32 && g < per_state && (double)nm * 2 * g <= resident)
            g *= 2;
    }
    if (rows)
        g = 32;
    cx->stats.used_threads = g;
    cx->stats.used_rows = rows;
    cx->stats.used_dictionary = cs.dictionary;
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
    if (w.bytes() > cx->stats.device_bytes)
        cx->stats.device_bytes = w.bytes();
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
    v.mb = cs.mb;
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
    cx->stats.bytes_per_iteration = 4 * (nm + 1) + 4 * (cs.mc + 1) + (cs.dictionary ? 6 : 12) * cs.mb +
                              8 * bounds * (cs.mb + cs.mc) + 16 * bounds * nm + (mecs ? 4 * nm + cs.mc + 16 * nm : 0) +
                              (cs.reward ? 8 * cs.mc : 0);
    iteration_launcher launch = pick_launcher(g, rows);
    CUDA_TRY(cudaStreamSynchronize(s));
    cx->stats.h2d_s += timer.end();
    /* certified policy iteration (pi.h) first where it applies; what it
     * leaves unsolved interval iteration takes on from its bounds.  An
     * expected reward has no a-priori upper bound: optimistic value
     * iteration guesses one, and where REACH_OVI_MAX_GUESSES guesses fail or
     * GPU_REACH_OVI_FIRST iterations pass, policy iteration (if not tried
     * yet; where it certifies nothing, once more from the a-priori bounds)
     * is the method that ends; without an upper bound the lower one is
     * all there is (CSR_ERR_NOT_CONVERGED). */
    uint64_t it = 0;
    double diff = INFINITY;
    int rc = CSR_ERR_NOT_CONVERGED;
    std::unique_ptr<uint32_t, void (*)(void *)> order(nullptr, free); /* host: new slot p was slot order[p] */
    const bool pi_fits = o->max_iterations >= reach_pi_jacobi_limit() && !mecs && !rows && cs.fixed_exact;
    bool pi_tried = false, bounded = true; /* every maybe slot has a finite upper bound (rewards: not a priori) */
    for (uint64_t i = 0; cs.reward && bounded && i < nm; i++)
        bounded = !isinf(cs.bounds[i].upper);
    /* policy iteration on the system as v has it now: whether it solved it (*done) */
    auto policy_iteration = [&](bool *done) -> int {
        timer.begin();
        uint64_t jacobi = 0;
        bool solved = false, pi_bounded = false;
        TRY(gpu_reach_pi(v, slots, o, eps, s, &jacobi, &diff, &solved, &pi_bounded, status));
        CUDA_TRY(cudaStreamSynchronize(s));
        cx->stats.pi_s += timer.end();
        it += jacobi;
        pi_tried = true;
        bounded = bounded || pi_bounded;
        *done = solved;
        return CSR_OK;
    };
    /* an expected reward without an upper bound: optimistic value iteration
     * first, policy iteration after GPU_REACH_OVI_FIRST iterations (wlan's
     * maximal expected rewards: 1,952 iterations 1.5 s on 5M states, policy
     * iteration's 16,394 products 7.4 s and no certificate; consensus's
     * expected steps: 0.33 s, policy iteration 0.13 s) */
    /* (half the iterations allowed at most, so that policy iteration has its turn under a small --max-iters) */
    const uint64_t ovi_first_its =
        ovi_first_limit() < o->max_iterations / 2 ? ovi_first_limit() : o->max_iterations / 2;
    const bool ovi_first = o->method == REACH_PI && pi_fits && cs.reward && !bounded && ovi_first_its > 0;
    if (o->method == REACH_PI && pi_fits && !ovi_first) {
        bool done;
        TRY(policy_iteration(&done));
        if (done) {
            rc = CSR_OK;
            goto download;
        }
    }
    {
    const bool ovi = ii && (o->method == REACH_OVI || !bounded); /* the method, or a reward's missing upper bound */
    bool verified = !ovi;
    /* the sweep classes; one class (the slots in order, one launch) for
     * long choices (a warp each: their rows stay in order), where the
     * renumbering does not fit the device or the memory limit, and where
     * the levels' predecessors would number 2^32 or more */
    timer.begin();
    vi_sweep sweep;
    sweep.classes = 1;
    sweep.first[0] = 0;
    sweep.first[1] = (uint32_t)nm;
    unsigned classes = cx->options.sweep_classes; /* 0: sweep_order chooses by the levels */
    classes = classes < GPU_REACH_MAX_SWEEP_CLASSES ? classes : GPU_REACH_MAX_SWEEP_CLASSES;
    const uint64_t sweep_need = sweep_bytes(cs, mecs);
    if (classes != 1 && !rows && cs.mc + cs.mb < UINT32_MAX && sweep_need < gpu_free_memory() &&
        (!cx->options.memory_limit || w.bytes() + sweep_need <= cx->options.memory_limit)) {
        order.reset((uint32_t *)malloc(nm * sizeof(uint32_t)));
        if (!order)
            return CSR_ERR_NOMEM;
        TRY(sweep_order(v, cs.near_fixed, cs.mc + cs.mb, classes, w, s, &sweep, &cx->stats.sweep_rounds, status));
        TRY(sweep_renumber(v, cs, w, s, status));
        CUDA_TRY(cudaMemcpyAsync(order.get(), w.order.p, nm * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
    }
    cx->stats.used_sweep_classes = 0;
    for (unsigned c = 0; c < sweep.classes; c++)
        cx->stats.used_sweep_classes += sweep.first[c + 1] > sweep.first[c];
    if (w.bytes() > cx->stats.device_bytes)
        cx->stats.device_bytes = w.bytes();
    CUDA_TRY(cudaStreamSynchronize(s));
    cx->stats.sweep_s += timer.end();
    timer.begin();
    gpu::cuda_graph batch, vi_batch; /* the method's iterations; optimistic VI's phase from below */
    if (o->max_iterations >= VI_BATCH) {
        TRY(capture_batch(launch, v, sweep, ii, s, &batch, status));
        if (ovi)
            TRY(capture_batch(launch, v, sweep, 0, s, &vi_batch, status));
    }
    CUDA_TRY(cudaStreamSynchronize(s));
    cx->stats.h2d_s += timer.end();
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
    uint64_t phase_start = 0, guess_at = 0, guesses = 0;
    /* optimistic value iteration in place of policy iteration has had its iterations */
    auto over_budget = [&]() { return ovi_first && !pi_tried && it >= ovi_first_its; };
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
            const bool late = over_budget();
            if (diff <= eps_vi || !h.changed || late) {
                if (++guesses > REACH_OVI_MAX_GUESSES || late) { /* they keep failing, or take too long: hand over, or give up */
                    bool done = false;
                    forget_upper<<<grid_for(nm, VI_THREADS), VI_THREADS, 0, s>>>(v);
                    CUDA_TRY_LAUNCH();
                    const bool pi_now = !pi_tried && pi_fits;
                    /* (CSR_TEST_PI_FROM_PRIORI: the tests' way to the second try below) */
                    if (pi_now && !(ovi_first && getenv("CSR_TEST_PI_FROM_PRIORI")))
                        TRY(policy_iteration(&done));
                    if (done) {
                        verified = true;
                        rc = CSR_OK;
                        break;
                    }
                    if (!bounded && pi_now && ovi_first) {
                        /* policy iteration from the guesses' lower bound certified nothing (wlan.6's
                         * num_collisions with 8 sweep classes), where from the a-priori bounds it does:
                         * once more from those, as policy iteration first would have */
                        forget_bounds<<<grid_for(nm, VI_THREADS), VI_THREADS, 0, s>>>(v);
                        CUDA_TRY_LAUNCH();
                        TRY(policy_iteration(&done));
                        if (done) {
                            verified = true;
                            rc = CSR_OK;
                            break;
                        }
                        guesses = 0; /* (bounded or not: as after policy iteration first) */
                        eps_vi = eps;
                        phase_start = it;
                        if (!bounded)
                            continue;
                    }
                    if (!bounded)
                        break; /* CSR_ERR_NOT_CONVERGED with the lower bound */
                    below = false; /* interval iteration from policy iteration's certificate */
                    verified = true;
                    continue;
                }
                ovi_guess<<<grid_for(nm, VI_THREADS), VI_THREADS, 0, s>>>(v, eps);
                CUDA_TRY_LAUNCH();
                below = false;
                guess_at = it;
                cx->stats.ovi_guesses++;
            }
            continue;
        }
        if (!verified) {
            if (!(h.flags & (VI_UPPER_ROSE | VI_UPPER_CROSSED))) {
                verified = true;
            } else if (over_budget() ||
                       reach_ovi_guess_dropped((h.flags & VI_UPPER_CROSSED) != 0, h.changed != 0, it, guess_at,
                                               phase_start)) {
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
    cx->stats.iterate_s += timer.end();
    if (!verified)
        bounded = false; /* a guess never verified is not handed back */
    }
download:
    timer.begin();
    CUDA_TRY(cudaMemcpyAsync(cs.bounds, w.bounds.p, nm * sizeof(vi_bounds), cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
    { /* scattered by state, a task per CPU (wlan.6: 0.12-0.16 s a property on one) */
        bounds_store_task task[PARALLEL_MAX_TASKS];
        const unsigned tasks = parallel_tasks(nm, parallel_grain(1u << 18));
        for (unsigned i = 0; i < tasks; i++)
            task[i] = bounds_store_task{&cs, order.get(), lower, upper, bounded || rc == CSR_OK, nm * i / tasks,
                                        nm * (i + 1) / tasks};
        parallel_run(bounds_store, task, sizeof task[0], tasks);
    }
    cx->stats.d2h_s += timer.end();
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
    /* the resident model gives way where the system would not fit beside it
     * (the engine uploads it again when a later query asks) */
    if (cx->resident && gpu_free_memory() < reach_system_bytes(y->num_states, y->num_choices, y->num_transitions)) {
        resident_close((resident_model *)cx->resident);
        cx->resident = NULL;
    }
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


