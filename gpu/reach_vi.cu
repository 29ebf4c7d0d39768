/*
 * reach_vi.cu - Prob0/Prob1 and interval / value iteration on the GPU
 * (reach_vi.h; Berger 2014, chapter 3; the algorithms of ref/reach.h).
 */
#include <cub/cub.cuh>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "launch.h"
#include "mec.h"
#include "memory.h"
#include "reach_vi.h"
#include "ref.h"
#include "timer.h"

using gpu::device_array;
using gpu::grid_for;
using gpu::thread_count;
using gpu::thread_index;

/* ---- Prob0 / Prob1 sweeps ---------------------------------------------------- */

enum { JOIN_ANY = 0, JOIN_ALL = 1, JOIN_INSIDE = 2 };

/* One sweep: state s (allowed, not yet in) joins `in` when
 *   JOIN_ANY:    a transition of one of its choices enters `in`;
 *   JOIN_ALL:    every choice has a transition into `in`;
 *   JOIN_INSIDE: a choice whose successors are all in `inside` enters `in`.
 * In place: a state may see others join in the same sweep (monotone). */
static __global__ void prob01_join_sweep(uint64_t n, const uint64_t *__restrict__ sc, const uint64_t *__restrict__ ct,
                                         const uint32_t *__restrict__ tg, const uint8_t *__restrict__ allowed,
                                         const uint8_t *__restrict__ inside, uint8_t *in, int mode, int *changed)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        if (in[s] || !allowed[s])
            continue;
        int join = mode == JOIN_ALL;
        for (uint64_t k = sc[s]; k < sc[s + 1]; k++) {
            int enters = 0, stays = 1;
            for (uint64_t j = ct[k]; j < ct[k + 1]; j++) {
                uint32_t t = tg[j];
                enters |= in[t];
                if (mode == JOIN_INSIDE)
                    stays &= inside[t];
            }
            if (mode == JOIN_ALL) {
                if (!enters) {
                    join = 0;
                    break;
                }
            } else if (enters && stays) {
                join = 1;
                break;
            }
        }
        if (join) {
            in[s] = 1;
            *changed = 1;
        }
    }
}

struct prob01_device {
    device_array<uint64_t> sc, ct;
    device_array<uint32_t> tg;
    device_array<uint8_t> allowed, in, inside;
    device_array<int> changed;
};

static int closure(uint64_t n, prob01_device &d, const uint8_t *inside, int mode, uint64_t *sweeps, csr_status *status)
{
    int changed = 1;
    while (changed) {
        CUDA_TRY(cudaMemset(d.changed.p, 0, sizeof(int)));
        prob01_join_sweep<<<grid_for(n, 256), 256>>>(n, d.sc.p, d.ct.p, d.tg.p, d.allowed.p, inside, d.in.p, mode,
                                                     d.changed.p);
        CUDA_TRY_LAUNCH();
        CUDA_TRY(cudaMemcpy(&changed, d.changed.p, sizeof(int), cudaMemcpyDeviceToHost));
        (*sweeps)++;
    }
    return CSR_OK;
}

/* h, hv: host scratch of n bytes each. */
static int prob01_run(const csr_model *m, const reach_query *q, uint8_t *cls, uint64_t *sweeps, uint8_t *h,
                      uint8_t *hv, csr_status *status)
{
    const uint64_t n = m->num_states, c = m->num_choices, t = m->num_transitions;
    prob01_device d;
    int rc;
    if ((rc = d.sc.alloc(n + 1, NULL, status)) || (rc = d.ct.alloc(c + 1, NULL, status)) ||
        (rc = d.tg.alloc(t, NULL, status)) || (rc = d.allowed.alloc(n, NULL, status)) ||
        (rc = d.in.alloc(n, NULL, status)) || (rc = d.inside.alloc(n, NULL, status)) ||
        (rc = d.changed.alloc(1, NULL, status)))
        return rc;
    CUDA_TRY(cudaMemcpy(d.sc.p, m->state_choices, (n + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d.ct.p, m->choice_transitions, (c + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d.tg.p, m->targets, t * sizeof(uint32_t), cudaMemcpyHostToDevice));
    /* allowed: not a target, not avoided, with a choice (as ref_reach_prob01) */
    for (uint64_t s = 0; s < n; s++)
        h[s] = !q->target[s] && !(q->avoid && q->avoid[s]) && m->state_choices[s + 1] > m->state_choices[s];
    CUDA_TRY(cudaMemcpy(d.allowed.p, h, n, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d.in.p, q->target, n, cudaMemcpyHostToDevice));
    uint8_t *r = cls; /* host copy of the first set */
    if (q->maximize) {
        /* Prob0A, then Prob1E by the nested fixpoint (inside = u). */
        if ((rc = closure(n, d, NULL, JOIN_ANY, sweeps, status)))
            return rc;
        CUDA_TRY(cudaMemcpy(r, d.in.p, n, cudaMemcpyDeviceToHost));
        CUDA_TRY(cudaMemcpy(d.inside.p, d.in.p, n, cudaMemcpyDeviceToDevice));
        uint8_t *u = h;
        memcpy(u, r, n);
        for (;;) {
            CUDA_TRY(cudaMemcpy(d.in.p, q->target, n, cudaMemcpyHostToDevice));
            if ((rc = closure(n, d, d.inside.p, JOIN_INSIDE, sweeps, status)))
                return rc;
            /* u := v within u (a state joins only through a choice inside u,
             * and targets are in u) */
            CUDA_TRY(cudaMemcpy(hv, d.in.p, n, cudaMemcpyDeviceToHost));
            int same = 1;
            for (uint64_t s = 0; s < n; s++) {
                uint8_t x = hv[s] && u[s];
                if (x != u[s])
                    same = 0;
                u[s] = x;
            }
            if (same)
                break;
            CUDA_TRY(cudaMemcpy(d.inside.p, u, n, cudaMemcpyHostToDevice));
        }
        for (uint64_t s = 0; s < n; s++)
            cls[s] = u[s] ? REACH_YES : r[s] ? REACH_MAYBE : REACH_NO;
    } else {
        /* Prob0E (every choice enters r), then Prob1A: states that can enter
         * a Prob0E state through non-targets. */
        if ((rc = closure(n, d, NULL, JOIN_ALL, sweeps, status)))
            return rc;
        CUDA_TRY(cudaMemcpy(r, d.in.p, n, cudaMemcpyDeviceToHost));
        for (uint64_t s = 0; s < n; s++)
            h[s] = !r[s];
        CUDA_TRY(cudaMemcpy(d.in.p, h, n, cudaMemcpyHostToDevice));
        for (uint64_t s = 0; s < n; s++)
            h[s] = !q->target[s];
        CUDA_TRY(cudaMemcpy(d.allowed.p, h, n, cudaMemcpyHostToDevice));
        if ((rc = closure(n, d, NULL, JOIN_ANY, sweeps, status)))
            return rc;
        CUDA_TRY(cudaMemcpy(h, d.in.p, n, cudaMemcpyDeviceToHost));
        for (uint64_t s = 0; s < n; s++)
            cls[s] = !r[s] ? REACH_NO : !h[s] ? REACH_YES : REACH_MAYBE;
    }
    return CSR_OK;
}

int gpu_reach_prob01(const csr_model *m, const reach_query *q, uint8_t *cls, uint64_t *sweeps, csr_status *status)
{
    const uint64_t n = m->num_states ? m->num_states : 1;
    uint8_t *h = (uint8_t *)malloc(n), *hv = (uint8_t *)malloc(n);
    *sweeps = 0;
    int rc = h && hv ? prob01_run(m, q, cls, sweeps, h, hv, status) : CSR_ERR_NOMEM;
    free(h);
    free(hv);
    return rc;
}

/* ---- iteration ---------------------------------------------------------------- */

/* Convergence is checked after every VI_CHECK_EVERY-th iteration (and the last). */
#define VI_CHECK_EVERY 8

/* Values are in [0, 1]: as u64 bit patterns they order as the doubles do, so
 * a MEC's maximum is an atomicMax on the bits. */
static __device__ __forceinline__ double better(double a, double b, int maximize)
{
    return maximize ? fmax(a, b) : fmin(a, b);
}

/* Best sum p * x[target] over the choices of s (those with leaving[k] when
 * leaving is given), choices [kb, ke), by a group of G lanes: lanes over
 * choices (ROWS = false) or over each choice's transitions (ROWS = true).
 * none: no choice counted.  Every lane of the warp must call it (shuffles);
 * an idle group passes an empty range. */
template <int G, bool ROWS>
static __device__ __forceinline__ double best_over_choices(uint64_t kb, uint64_t ke, unsigned lane,
                                                           const uint64_t *__restrict__ ct,
                                                           const uint32_t *__restrict__ tg,
                                                           const double *__restrict__ pr, const double *x,
                                                           const uint8_t *__restrict__ leaving, int maximize,
                                                           double none)
{
    double best = none;
    if (ROWS) {
        for (uint64_t k = kb; k < ke; k++) {
            if (leaving && !leaving[k])
                continue;
            double sum = 0.0;
            for (uint64_t j = ct[k] + lane; j < ct[k + 1]; j += G)
                sum += pr[j] * x[tg[j]];
            for (int o = G / 2; o > 0; o /= 2)
                sum += __shfl_xor_sync(0xffffffffu, sum, o, G);
            best = better(best, sum, maximize);
        }
    } else {
        for (uint64_t k = kb + lane; k < ke; k += G) {
            if (leaving && !leaving[k])
                continue;
            double sum = 0.0;
            for (uint64_t j = ct[k]; j < ct[k + 1]; j++)
                sum += pr[j] * x[tg[j]];
            best = better(best, sum, maximize);
        }
        for (int o = G / 2; o > 0; o /= 2)
            best = better(best, __shfl_xor_sync(0xffffffffu, best, o, G), maximize);
    }
    return best;
}

/* The G-lane group of this thread in a grid-stride loop over nm states, and
 * the loop's trip count, the same for every lane of the grid: the shuffles
 * of best_over_choices need every lane of a warp, so idle groups loop too. */
template <int G> struct state_groups {
    uint64_t groups, first, trips;
    unsigned lane;
    __device__ explicit state_groups(uint64_t nm)
        : groups(thread_count() / G), first(thread_index() / G), trips((nm + groups - 1) / groups),
          lane(threadIdx.x % G)
    {
    }
};

static __device__ __forceinline__ double change(double newer, double older, int relative)
{
    double d = fabs(newer - older);
    return relative && d > 0.0 ? d / fmax(newer, older) : d;
}

/* The lower bound (or value iteration's value) of every maybe state: x(s) =
 * opt over choices; interval iteration keeps it monotone (max with the old
 * bound), value iteration records the change in diff. */
template <int G, bool ROWS>
static __global__ void vi_lower_step(uint64_t nm, const uint32_t *__restrict__ maybe, const uint64_t *__restrict__ sc,
                                     const uint64_t *__restrict__ ct, const uint32_t *__restrict__ tg,
                                     const double *__restrict__ pr, double *x, double *diff, int maximize, int ii,
                                     int relative)
{
    const state_groups<G> sg(nm);
    for (uint64_t trip = 0; trip < sg.trips; trip++) {
        uint64_t i = sg.first + trip * sg.groups;
        bool active = i < nm;
        uint64_t s = active ? maybe[i] : 0;
        double b = best_over_choices<G, ROWS>(active ? sc[s] : 0, active ? sc[s + 1] : 0, sg.lane, ct, tg, pr, x,
                                              NULL, maximize, maximize ? -1.0 : 2.0);
        if (active && sg.lane == 0) {
            double old = x[s];
            if (ii) {
                if (b > old)
                    x[s] = b;
            } else {
                diff[i] = change(b, old, relative);
                x[s] = b;
            }
        }
    }
}

/* The upper bound: states outside MECs as the lower bound (min with the old
 * bound, at least the lower bound); states of a MEC offer the best of their
 * leaving choices to their MEC's maximum (mec_best, as bits). */
template <int G, bool ROWS>
static __global__ void vi_upper_step(uint64_t nm, const uint32_t *__restrict__ maybe, const uint64_t *__restrict__ sc,
                                     const uint64_t *__restrict__ ct, const uint32_t *__restrict__ tg,
                                     const double *__restrict__ pr, const double *__restrict__ lower, double *upper,
                                     const uint32_t *__restrict__ mec, const uint8_t *__restrict__ leaving,
                                     unsigned long long *mec_best, double *diff, int maximize, int relative)
{
    const state_groups<G> sg(nm);
    for (uint64_t trip = 0; trip < sg.trips; trip++) {
        uint64_t i = sg.first + trip * sg.groups;
        bool active = i < nm;
        uint64_t s = active ? maybe[i] : 0;
        uint32_t m = active && mec ? mec[s] : REACH_NO_MEC;
        double b = best_over_choices<G, ROWS>(active ? sc[s] : 0, active ? sc[s + 1] : 0, sg.lane, ct, tg, pr, upper,
                                              m != REACH_NO_MEC ? leaving : NULL, maximize, maximize ? -1.0 : 2.0);
        if (!active || sg.lane != 0)
            continue;
        if (m != REACH_NO_MEC) {
            if (b >= 0.0)
                atomicMax(&mec_best[m], (unsigned long long)__double_as_longlong(b));
            continue;
        }
        double u = fmin(upper[s], b), l = lower[s];
        if (u < l)
            u = l; /* rounding only */
        upper[s] = u;
        diff[i] = change(u, l, relative);
    }
}

/* MEC states take their MEC's maximum; the other buffer is cleared for the
 * next iteration. */
static __global__ void vi_mec_finalize(uint64_t nm, const uint32_t *__restrict__ maybe, const uint32_t *__restrict__ mec,
                                       const unsigned long long *__restrict__ mec_best,
                                       unsigned long long *mec_best_next, uint64_t num_mecs,
                                       const double *__restrict__ lower, double *upper, double *diff, int relative)
{
    for (uint64_t i = thread_index(); i < num_mecs; i += thread_count())
        mec_best_next[i] = 0;
    for (uint64_t i = thread_index(); i < nm; i += thread_count()) {
        uint32_t s = maybe[i], m = mec[s];
        if (m == REACH_NO_MEC)
            continue;
        double u = fmin(upper[s], __longlong_as_double((long long)mec_best[m])), l = lower[s];
        if (u < l)
            u = l;
        upper[s] = u;
        diff[i] = change(u, l, relative);
    }
}

uint64_t gpu_free_memory(void)
{
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return 0;
    return free_b;
}

struct vi_device {
    device_array<uint64_t> sc, ct;
    device_array<uint32_t> tg, maybe, mec;
    device_array<double> pr, lower, upper, diff, result;
    device_array<uint8_t> leaving, cub_temp;
    device_array<unsigned long long> mec_best;
};

/* One iteration's launches for a mapping. */
template <int G, bool ROWS>
static int vi_launch(const vi_device &d, uint64_t nm, const reach_system *y, int ii, int relative, int parity,
                     csr_status *status)
{
    const int threads = 256;
    unsigned blocks = grid_for(nm * G, threads);
    vi_lower_step<G, ROWS><<<blocks, threads>>>(nm, d.maybe.p, d.sc.p, d.ct.p, d.tg.p, d.pr.p, d.lower.p, d.diff.p,
                                                y->maximize, ii, relative);
    CUDA_TRY_LAUNCH();
    if (!ii)
        return CSR_OK;
    const int mecs = d.mec.p != NULL;
    unsigned long long *cur = mecs ? d.mec_best.p + (parity ? y->num_mecs : 0) : NULL;
    unsigned long long *next = mecs ? d.mec_best.p + (parity ? 0 : y->num_mecs) : NULL;
    vi_upper_step<G, ROWS><<<blocks, threads>>>(nm, d.maybe.p, d.sc.p, d.ct.p, d.tg.p, d.pr.p, d.lower.p, d.upper.p,
                                                d.mec.p, d.leaving.p, cur, d.diff.p, y->maximize, relative);
    CUDA_TRY_LAUNCH();
    if (mecs) {
        vi_mec_finalize<<<grid_for(nm > y->num_mecs ? nm : y->num_mecs, threads), threads>>>(
            nm, d.maybe.p, d.mec.p, cur, next, y->num_mecs, d.lower.p, d.upper.p, d.diff.p, relative);
        CUDA_TRY_LAUNCH();
    }
    return CSR_OK;
}

typedef int (*vi_launcher)(const vi_device &, uint64_t, const reach_system *, int, int, int, csr_status *);

static vi_launcher pick_launcher(int g, bool rows)
{
    if (rows)
        return vi_launch<32, true>;
    switch (g) {
    case 1: return vi_launch<1, false>;
    case 2: return vi_launch<2, false>;
    case 4: return vi_launch<4, false>;
    case 8: return vi_launch<8, false>;
    case 16: return vi_launch<16, false>;
    default: return vi_launch<32, false>;
    }
}

/* h_maybe: host scratch of n entries. */
static int vi_run(const reach_system *y, const reach_options *o, double eps, double *lower, double *upper,
                  uint64_t *iterations, double *difference, gpu_reach_context *cx, uint32_t *h_maybe)
{
    csr_status *status = cx->status;
    const uint64_t n = y->num_states, c = y->num_choices, t = y->num_transitions;
    const int ii = o->method == REACH_II, mecs = ii && y->mec && y->num_mecs;
    uint64_t nm = 0, maybe_choices = 0, maybe_transitions = 0;
    for (uint64_t s = 0; s < n; s++)
        if (!y->fixed[s]) {
            h_maybe[nm++] = (uint32_t)s;
            maybe_choices += y->state_choices[s + 1] - y->state_choices[s];
            maybe_transitions += y->choice_transitions[y->state_choices[s + 1]] -
                                 y->choice_transitions[y->state_choices[s]];
        }
    *iterations = 0;
    *difference = 0.0;
    if (nm == 0)
        return CSR_OK;
    /* the mapping: long choices get a warp each, short ones a lane each */
    bool rows = maybe_transitions >= 8 * maybe_choices;
    int g = cx->threads_per_state;
    if (!g) {
        double per_state = (double)maybe_choices / (double)nm;
        g = 1;
        while (g < 32 && g < per_state)
            g *= 2;
    }
    if (rows)
        g = 32;
    cx->used_threads = g;
    cx->used_rows = rows;
    gpu::phase_timer timer;
    timer.begin();
    vi_device d;
    uint64_t bytes = 0;
    size_t temp_bytes = 0;
    int rc;
    if ((rc = d.sc.alloc(n + 1, &bytes, status)) || (rc = d.ct.alloc(c + 1, &bytes, status)) ||
        (rc = d.tg.alloc(t, &bytes, status)) || (rc = d.pr.alloc(t, &bytes, status)) ||
        (rc = d.lower.alloc(n, &bytes, status)) || (rc = d.upper.alloc(n, &bytes, status)) ||
        (rc = d.maybe.alloc(nm, &bytes, status)) || (rc = d.diff.alloc(nm, &bytes, status)) ||
        (rc = d.result.alloc(1, &bytes, status)))
        return rc;
    if (mecs) {
        if ((rc = d.mec.alloc(n, &bytes, status)) || (rc = d.leaving.alloc(c, &bytes, status)) ||
            (rc = d.mec_best.alloc(2 * y->num_mecs, &bytes, status)))
            return rc;
        CUDA_TRY(cudaMemcpy(d.mec.p, y->mec, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMemcpy(d.leaving.p, y->leaving, c, cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMemset(d.mec_best.p, 0, 2 * y->num_mecs * sizeof(unsigned long long)));
    }
    CUDA_TRY(cub::DeviceReduce::Max(NULL, temp_bytes, d.diff.p, d.result.p, (int)nm));
    if ((rc = d.cub_temp.alloc(temp_bytes, &bytes, status)))
        return rc;
    if (bytes > cx->device_bytes)
        cx->device_bytes = bytes;
    CUDA_TRY(cudaMemcpy(d.sc.p, y->state_choices, (n + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d.ct.p, y->choice_transitions, (c + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d.tg.p, y->targets, t * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d.pr.p, y->probabilities, t * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d.lower.p, lower, n * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d.upper.p, upper, n * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(d.maybe.p, h_maybe, nm * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemset(d.diff.p, 0, nm * sizeof(double)));
    /* per iteration, each bound: offsets and every transition of the maybe
     * states (index, probability, one value), the maybe list, the states' values */
    cx->bytes_per_iteration = (uint64_t)(ii ? 2 : 1) * (16 * nm + 8 * maybe_choices + 20 * maybe_transitions + 12 * nm);
    cx->h2d_s += timer.end();
    timer.begin();
    vi_launcher launch = pick_launcher(g, rows);
    uint64_t it = 0;
    double diff = INFINITY;
    rc = CSR_ERR_NOT_CONVERGED;
    while (it < o->max_iterations) {
        int r = launch(d, nm, y, ii, o->relative, (int)(it & 1), status);
        if (r)
            return r;
        it++;
        /* the bounds only tighten: checking every few iterations costs at most
         * a few more, and saves the reduction and the round trip to the host */
        if (it % VI_CHECK_EVERY && it < o->max_iterations)
            continue;
        CUDA_TRY(cub::DeviceReduce::Max(d.cub_temp.p, temp_bytes, d.diff.p, d.result.p, (int)nm));
        CUDA_TRY(cudaMemcpy(&diff, d.result.p, sizeof(double), cudaMemcpyDeviceToHost));
        if (diff <= eps) {
            rc = CSR_OK;
            break;
        }
    }
    cx->iterate_s += timer.end();
    timer.begin();
    CUDA_TRY(cudaMemcpy(lower, d.lower.p, n * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(upper, d.upper.p, n * sizeof(double), cudaMemcpyDeviceToHost));
    cx->d2h_s += timer.end();
    *iterations = it;
    *difference = diff;
    return rc;
}

int gpu_reach_iterate(const reach_system *y, const reach_options *o, double eps, double *lower, double *upper,
                      uint64_t *iterations, double *difference, void *ctx)
{
    gpu_reach_context *cx = (gpu_reach_context *)ctx;
    if (y->num_states > (uint64_t)INT32_MAX) /* CUB's item count is an int */
        return csr_fail(cx->status, CSR_ERR_TOO_LARGE, "%llu states: more than the GPU solver takes",
                        (unsigned long long)y->num_states);
    uint32_t *h_maybe = (uint32_t *)malloc((y->num_states ? y->num_states : 1) * sizeof(uint32_t));
    int rc = h_maybe ? vi_run(y, o, eps, lower, upper, iterations, difference, cx, h_maybe) : CSR_ERR_NOMEM;
    free(h_maybe);
    return rc;
}

/* ---- the backend of reach_solve ---------------------------------------------- */

static int backend_prob01(const csr_model *m, const reach_query *q, uint8_t *cls, void *ctx)
{
    gpu_reach_context *cx = (gpu_reach_context *)ctx;
    return gpu_reach_prob01(m, q, cls, &cx->prob01_sweeps, cx->status);
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
    gpu_mec_stats gs;
    uint32_t *ids = (uint32_t *)malloc((g->num_states ? g->num_states : 1) * sizeof *ids);
    int rc = ids ? gpu_mec_decompose(g, &mo, ids, &gs, cx->status) : CSR_ERR_NOMEM;
    if (!rc)
        widen_ids(ids, mec, g->num_states);
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

void gpu_reach_backend(gpu_reach_context *cx, reach_backend *b)
{
    b->prob01 = backend_prob01;
    b->mecs = backend_mecs;
    b->sccs = backend_sccs;
    b->solve = gpu_reach_iterate;
    b->ctx = cx;
}
