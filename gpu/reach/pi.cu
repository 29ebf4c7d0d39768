/*
 * pi.cu - certified policy iteration on the GPU (pi.h): the steps of
 * ref/reach_pi.c, its sequential reference, with the same constants
 * (check/reach_system.h), on the compacted maybe subsystem (system.cuh).
 *
 * Vectors over the maybe slots [0, nm); a successor slot t >= nm is a fixed
 * state, whose exact value is bounds[t].lower (the zero slot's is 0): in the
 * chain's matrix it counts 0, in a Bellman value its value.  Kernels take a
 * slot a thread (grid-stride) and sum what the host needs per block into
 * partials (kPartials per block; slot layout kDot, kNorm, kExtra): the host
 * reduces them, except inside IDR(s), whose scalars (Sonneveld & van
 * Gijzen's M, f, c, omega, alpha, beta) one-block kernels keep on the device
 * so that kCycles cycles of S + 1 products run as one CUDA graph with one host
 * read; x takes a cycle's S steps at its end (idr_omega_update, or idr_flush
 * where the solver is done within it), which saves it S reads and writes.
 * coin6_4 on an H100: 67-71 us a product inside the solver (17 kernels a
 * cycle, about 86 vectors read or written), 36 us a Jacobi iteration
 * (bench/RESULTS.md).
 */
#include <cub/cub.cuh>
#include <math.h>
#include <string.h>

#include "cuda_check.h"
#include "graph.h"
#include "launch.h"
#include "memory.h"
#include "pi.h"

using gpu::device_array;
using gpu::thread_count;
using gpu::thread_index;

namespace {

constexpr int kThreads = 256;
constexpr int S = REACH_PI_IDR_S;
/* partial sums of a block: kDot + i (i < S) shadow products, kNorm a
 * maximum norm, kExtra + j three more values */
constexpr int kDot = 0, kNorm = S, kExtra = S + 1, kPartials = S + 4;
/* IDR(S) cycles a graph: the host reads the solver's state after each
 * launch (a cycle that finds it done returns at once) */
constexpr int kCycles = 3;

using block_reduce = cub::BlockReduce<double, kThreads>;

struct sum_op {
    __device__ __forceinline__ double operator()(double a, double b) const { return a + b; }
};
struct max_op {
    __device__ __forceinline__ double operator()(double a, double b) const { return fmax(a, b); }
};
struct min_op {
    __device__ __forceinline__ double operator()(double a, double b) const { return fmin(a, b); }
};

/* The block's reduction of v by op into part[block][slot].  Every thread calls it. */
template <class Op>
__device__ __forceinline__ void to_part(double v, Op op, double *part, int slot, block_reduce::TempStorage &tmp)
{
    const double r = block_reduce(tmp).Reduce(v, op);
    if (threadIdx.x == 0)
        part[(size_t)blockIdx.x * kPartials + slot] = r;
    __syncthreads();
}

/* In a one-block kernel: the reduction by op of part[b][slot] over blocks, in every thread. */
template <class Op>
__device__ __forceinline__ double from_part(const double *part, unsigned blocks, int slot, Op op, double init,
                                            block_reduce::TempStorage &tmp)
{
    __shared__ double result;
    double v = init;
    for (unsigned b = threadIdx.x; b < blocks; b += kThreads)
        v = op(v, part[(size_t)b * kPartials + slot]);
    v = block_reduce(tmp).Reduce(v, op);
    if (threadIdx.x == 0)
        result = v;
    __syncthreads();
    v = result;
    __syncthreads();
    return v;
}

/* dots[k] += value times shadow vector k's entry i (IDR's <P_k, .>). */
__device__ __forceinline__ void add_shadow(double (&dots)[S], uint64_t i, double value)
{
#pragma unroll
    for (int k = 0; k < S; k++)
        dots[k] += reach_pi_shadow(i, k) * value;
}

/* The block's shadow products into part[kDot + k].  Every thread calls it. */
__device__ __forceinline__ void shadow_to_part(const double (&dots)[S], double *part, block_reduce::TempStorage &tmp)
{
#pragma unroll
    for (int k = 0; k < S; k++)
        to_part(dots[k], sum_op(), part, kDot + k, tmp);
}

/* In a one-block kernel: the grid's shadow products from part, in every thread. */
__device__ __forceinline__ void shadow_from_part(const double *part, unsigned blocks, double (&dots)[S],
                                                 block_reduce::TempStorage &tmp)
{
#pragma unroll
    for (int k = 0; k < S; k++)
        dots[k] = from_part(part, blocks, kDot + k, sum_op(), 0.0, tmp);
}

/* The branches of choice k: f(successor slot, probability). */
template <class F> __device__ __forceinline__ void for_branches(const vi_view &v, uint32_t k, F f)
{
    const uint32_t word = v.choice[k];
    if (word & VI_DETERMINISTIC) {
        f(word & VI_SLOT_MASK, 1.0);
        return;
    }
    for (uint32_t j = word;; j++) {
        const uint32_t t = v.target[j];
        f(t & VI_SLOT_MASK, branch_prob(v, j));
        if (t & VI_LAST_BRANCH)
            break;
    }
}

/* x at slot t with the fixed states' values beyond the maybe slots. */
__device__ __forceinline__ double full_value(const vi_view &v, const double *x, uint32_t t)
{
    return t < v.nm ? x[t] : v.bounds[t].lower;
}

/* The reward of choice k (0 for probabilities). */
__device__ __forceinline__ double choice_reward(const vi_view &v, uint32_t k)
{
    return v.reward ? v.reward[k] : 0.0;
}

/* The bounds' ceiling: 1 for probabilities, none for rewards. */
__device__ __forceinline__ double top_of(const vi_view &v)
{
    return v.reward ? INFINITY : 1.0;
}

/* r + sum p x(t) over choice k (fixed successors at their values; INFINITY
 * where it may enter an infinite state). */
__device__ __forceinline__ double choice_value(const vi_view &v, uint32_t k, const double *x)
{
    double s = choice_reward(v, k);
    for_branches(v, k, [&](uint32_t t, double p) { s += p * full_value(v, x, t); });
    return s;
}

/* sum p y(t) over choice k's maybe successors (the chain's matrix). */
__device__ __forceinline__ double choice_product(const vi_view &v, uint32_t k, const double *y)
{
    double s = 0.0;
    for_branches(v, k, [&](uint32_t t, double p) {
        if (t < v.nm)
            s += p * y[t];
    });
    return s;
}

__device__ __forceinline__ bool improves(double a, double b, int maximize) { return maximize ? a > b : a < b; }

/* ---- interval iteration in Jacobi order ---------------------------------------- */

/* Both bounds of every maybe slot from in (the iteration before) into out
 * (the fixed slots of both hold their values); with report the largest
 * difference into part[kNorm]. */
__global__ void __launch_bounds__(kThreads) pi_jacobi(vi_view v, const vi_bounds *__restrict__ in,
                                                      vi_bounds *__restrict__ out, double *part, int report)
{
    __shared__ block_reduce::TempStorage tmp;
    double diff = 0.0;
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        double bl = 0.0, bu = 0.0;
        for (uint32_t k = v.state_first[i]; k < v.state_first[i + 1]; k++) {
            double sl = choice_reward(v, k), su = sl;
            for_branches(v, k, [&](uint32_t t, double p) {
                const vi_bounds b = in[t];
                sl += p * b.lower;
                su += p * b.upper;
            });
            if (k == v.state_first[i] || improves(sl, bl, v.maximize))
                bl = sl;
            if (k == v.state_first[i] || improves(su, bu, v.maximize))
                bu = su;
        }
        const vi_bounds old = in[i];
        const double nl = fmax(old.lower, bl);
        const double nu = isinf(old.upper) ? old.upper : fmax(nl, fmin(old.upper, bu)); /* rewards: none yet */
        out[i] = vi_bounds{nl, nu};
        diff = fmax(diff, reach_difference(nu, nl, v.relative));
    }
    if (report)
        to_part(diff, max_op(), part, kNorm, tmp);
}

/* ---- policies -------------------------------------------------------------------- */

__global__ void pi_lower(vi_view v, double *x)
{
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count())
        x[i] = v.bounds[i].lower;
}

/* sigma greedy for x: with init the best choice (the first of equals),
 * else moved to the best where it beats sigma's by more than threshold;
 * part: kNorm max |B(x) - x|, kExtra the moves. */
__global__ void __launch_bounds__(kThreads) pi_greedy(vi_view v, const double *__restrict__ x, uint32_t *sigma,
                                                      double threshold, int init, double *part)
{
    __shared__ block_reduce::TempStorage tmp;
    double residual = 0.0, moved = 0.0;
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        const uint32_t first = v.state_first[i], cur = init ? first : sigma[i];
        double best = 0.0, at_cur = 0.0;
        uint32_t arg = first;
        for (uint32_t k = first; k < v.state_first[i + 1]; k++) {
            const double q = choice_value(v, k, x);
            if (k == first || improves(q, best, v.maximize)) {
                best = q;
                arg = k;
            }
            if (k == cur)
                at_cur = q;
        }
        if (init) {
            sigma[i] = arg;
        } else if (improves(best, v.maximize ? at_cur + threshold : at_cur - threshold, v.maximize)) {
            sigma[i] = arg;
            moved += 1.0;
        }
        residual = fmax(residual, fabs(best - x[i]));
    }
    to_part(residual, max_op(), part, kNorm, tmp);
    to_part(moved, sum_op(), part, kExtra, tmp);
}

/* b(i) = r + sum p value(t) over the fixed successors of sel(i)'s choice. */
__global__ void pi_fixed_part(vi_view v, const uint32_t *__restrict__ sel, double *b)
{
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        double s = choice_reward(v, sel[i]);
        for_branches(v, sel[i], [&](uint32_t t, double p) {
            if (t >= v.nm)
                s += p * v.bounds[t].lower;
        });
        b[i] = s;
    }
}

/* r = b - (x - P_sel x) (b NULL: 1); part: kDot + k the shadow products
 * <P_k, r>, kNorm max |r|, kExtra max r. */
__global__ void __launch_bounds__(kThreads) pi_residual(vi_view v, const uint32_t *__restrict__ sel,
                                                        const double *__restrict__ x, const double *__restrict__ b,
                                                        double *r, double *part)
{
    __shared__ block_reduce::TempStorage tmp;
    double dots[S] = {}, norm = 0.0, top = -INFINITY;
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        const double ri = (b ? b[i] : 1.0) - (x[i] - choice_product(v, sel[i], x));
        r[i] = ri;
        norm = fmax(norm, fabs(ri));
        top = fmax(top, ri);
        add_shadow(dots, i, ri);
    }
    shadow_to_part(dots, part, tmp);
    to_part(norm, max_op(), part, kNorm, tmp);
    to_part(top, max_op(), part, kExtra, tmp);
}

/* What the certificate needs of |B(x) - x|: min over w > 0 of eps (|x| or
 * 1) / w / 8 into part[slot]. */
__global__ void __launch_bounds__(kThreads) pi_need(uint64_t nm, const double *__restrict__ x,
                                                    const double *__restrict__ w, double eps, int relative,
                                                    double *part, int slot)
{
    __shared__ block_reduce::TempStorage tmp;
    double need = INFINITY;
    for (uint64_t i = thread_index(); i < nm; i += thread_count())
        if (w[i] > 0.0)
            need = fmin(need, (relative ? fabs(x[i]) : 1.0) * eps / w[i] / 8.0);
    to_part(need, min_op(), part, slot, tmp);
}

/* max |x| into part[kNorm], the most transitions of a choice into
 * part[kExtra]. */
__global__ void __launch_bounds__(kThreads) pi_norm(vi_view v, const double *__restrict__ x, double *part)
{
    __shared__ block_reduce::TempStorage tmp;
    double norm = 0.0, terms = 1.0;
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        norm = fmax(norm, fabs(x[i]));
        for (uint32_t k = v.state_first[i]; k < v.state_first[i + 1]; k++) {
            double m = 0.0;
            for_branches(v, k, [&](uint32_t, double) { m += 1.0; });
            terms = fmax(terms, m);
        }
    }
    to_part(norm, max_op(), part, kNorm, tmp);
    to_part(terms, max_op(), part, kExtra, tmp);
}

/* tau moved to the choice within tie of the best at x along which w would
 * not fall by 1/2 (the largest P_a w); part[kExtra]: the moves,
 * part[kNorm]: max w. */
__global__ void __launch_bounds__(kThreads) pi_ties(vi_view v, const double *__restrict__ x,
                                                    const double *__restrict__ w, uint32_t *tau, double tie,
                                                    double *part)
{
    __shared__ block_reduce::TempStorage tmp;
    double moved = 0.0, wmax = 0.0;
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        const uint32_t first = v.state_first[i], last = v.state_first[i + 1];
        double best = 0.0;
        for (uint32_t k = first; k < last; k++) {
            const double q = choice_value(v, k, x);
            if (k == first || improves(q, best, v.maximize))
                best = q;
        }
        double top = w[i] - 0.5;
        uint32_t arg = UINT32_MAX;
        for (uint32_t k = first; k < last; k++) {
            const double g = choice_value(v, k, x) - best;
            if ((v.maximize ? -g : g) > tie)
                continue;
            const double pw = choice_product(v, k, w);
            if (pw > top) {
                top = pw;
                arg = k;
            }
        }
        if (arg != UINT32_MAX && arg != tau[i]) {
            tau[i] = arg;
            moved += 1.0;
        }
        wmax = fmax(wmax, w[i]);
    }
    to_part(moved, sum_op(), part, kExtra, tmp);
    to_part(wmax, max_op(), part, kNorm, tmp);
}

/* The certificate's bound at slot t: x -+ d w clamped to [0, 1] (rewards:
 * [0, INFINITY]; side -1: l, +1: u), the fixed states' values beyond the
 * maybe slots. */
__device__ __forceinline__ double candidate(const vi_view &v, const double *x, const double *w, double d, int side,
                                            uint32_t t)
{
    if (t >= v.nm)
        return v.bounds[t].lower;
    const double c = __fma_rn(side * d, w[t], x[t]);
    return side < 0 ? fmax(c, 0.0) : fmin(c, top_of(v));
}

/* part[kExtra]: the slots where l is not a post-fixpoint (B(l) >= l) or u
 * not a pre-fixpoint (B(u) <= u), each choice's sums bounded by
 * reach_pi_round_down / reach_pi_round_up. */
__global__ void __launch_bounds__(kThreads) pi_certify(vi_view v, const double *__restrict__ x,
                                                       const double *__restrict__ w, double d, double *part)
{
    __shared__ block_reduce::TempStorage tmp;
    double failed = 0.0;
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        const double li = candidate(v, x, w, d, -1, (uint32_t)i), ui = candidate(v, x, w, d, 1, (uint32_t)i);
        const double top = top_of(v);
        /* min: every choice; max: one; a bound clamped to 0 or 1 holds as it
         * is (ref/reach_pi.c, certificate_holds) */
        bool lower_ok = !v.maximize || li == 0.0, upper_ok = v.maximize || ui == top;
        for (uint32_t k = v.state_first[i]; k < v.state_first[i + 1]; k++) {
            const double r = choice_reward(v, k);
            double ql = r, al = r, qu = r, au = r;
            uint64_t terms = r != 0.0;
            for_branches(v, k, [&](uint32_t t, double p) {
                const double lt = candidate(v, x, w, d, -1, t), ut = candidate(v, x, w, d, 1, t);
                ql += p * lt;
                al += fabs(p * lt);
                qu += p * ut;
                au += fabs(p * ut);
                terms++;
            });
            /* a choice that may enter an infinite state (Rmin's) is above any l and below no u */
            const bool infinite = isinf(ql);
            const bool l_meets = infinite || reach_pi_round_down(ql, al, terms) >= li;
            const bool u_meets = !infinite && reach_pi_round_up(qu, au, terms) <= ui;
            if (v.maximize) {
                lower_ok = lower_ok || l_meets;
                upper_ok = upper_ok && (u_meets || ui == top);
            } else {
                lower_ok = lower_ok && (l_meets || li == 0.0);
                upper_ok = upper_ok || u_meets;
            }
        }
        if (!lower_ok || !upper_ok)
            failed += 1.0;
    }
    to_part(failed, sum_op(), part, kExtra, tmp);
}

/* The certified bounds into v.bounds (max of lower bounds, min of upper
 * ones); part[kNorm]: the largest difference. */
__global__ void __launch_bounds__(kThreads) pi_take_bounds(vi_view v, const double *__restrict__ x,
                                                           const double *__restrict__ w, double d, double *part)
{
    __shared__ block_reduce::TempStorage tmp;
    double diff = 0.0;
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        const vi_bounds b = v.bounds[i];
        const double l = fmax(b.lower, candidate(v, x, w, d, -1, (uint32_t)i));
        const double u = fmax(l, fmin(b.upper, candidate(v, x, w, d, 1, (uint32_t)i)));
        v.bounds[i] = vi_bounds{l, u};
        diff = fmax(diff, reach_difference(u, l, v.relative));
    }
    to_part(diff, max_op(), part, kNorm, tmp);
}

/* ---- IDR(s) on the device --------------------------------------------------------- */

/* The solver's scalars (van Gijzen & Sonneveld 2011, Alg. 2). */
struct idr_state {
    double M[S][S], f[S], c[S], alpha[S];
    double beta[S]; /* of this cycle's steps, added to x at its end (or when done: idr_flush) */
    double om, tol, rnorm;
    int pending;    /* steps of this cycle whose beta U_k x has yet to take */
    int flush;      /* of these, what idr_flush adds (the solver was done within the cycle) */
    unsigned long long matvecs;
    int done; /* 1 converged (rnorm <= tol), 2 broken down */
};

/* Thread 0 of a one-block kernel: the residual's norm kept, and whether
 * it meets the tolerance (the solver is then done). */
__device__ __forceinline__ bool record_norm(idr_state *st, double rn)
{
    st->rnorm = rn;
    if (rn <= st->tol) {
        st->done = 1;
        return true;
    }
    return false;
}

/* c(k:S) from M(k:S, k:S) c = f(k:S), lower triangular (thread 0). */
__device__ void solve_c(idr_state *st, int k)
{
    for (int i = k; i < S; i++) {
        double sm = st->f[i];
        for (int j = k; j < i; j++)
            sm -= st->M[i][j] * st->c[j];
        st->c[i] = sm / st->M[i][i];
    }
}

/* After the residual (r, its shadow products f and norm): converged, or c
 * for the first direction. */
__global__ void __launch_bounds__(kThreads) idr_start_cycle(idr_state *st, const double *part, unsigned blocks)
{
    __shared__ block_reduce::TempStorage tmp;
    if (st->done)
        return;
    double f[S];
    const double rn = from_part(part, blocks, kNorm, max_op(), 0.0, tmp);
    shadow_from_part(part, blocks, f, tmp);
    if (threadIdx.x)
        return;
    st->rnorm = rn;
    if (!(rn > st->tol)) {
        st->done = rn <= st->tol ? 1 : 2; /* NaN: broken */
        return;
    }
    for (int i = 0; i < S; i++)
        st->f[i] = f[i];
    solve_c(st, 0);
}

/* U_k = om (r - sum_{i>=k} c_i G_i) + sum_{i>=k} c_i U_i. */
__device__ __forceinline__ void direction(const idr_state *st, uint64_t nm, int k, uint64_t q, const double *r,
                                          const double *G, double *U)
{
    double vq = r[q], uq = 0.0;
    for (int i = k; i < S; i++) {
        vq -= st->c[i] * G[(size_t)i * nm + q];
        uq += st->c[i] * U[(size_t)i * nm + q];
    }
    U[(size_t)k * nm + q] = st->om * vq + uq;
}

__global__ void idr_direction(const idr_state *st, uint64_t nm, int k, const double *r, const double *G, double *U)
{
    if (st->done)
        return;
    for (uint64_t q = thread_index(); q < nm; q += thread_count())
        direction(st, nm, k, q, r, G, U);
}

/* G_k = (I - P_sel) U_k and the shadow products <P_i, G_k> into part. */
__global__ void __launch_bounds__(kThreads) idr_product(vi_view v, const uint32_t *__restrict__ sel,
                                                        idr_state *st, int k, const double *U, double *G,
                                                        double *part)
{
    __shared__ block_reduce::TempStorage tmp;
    if (st->done)
        return;
    const uint64_t nm = v.nm;
    const double *u = U + (size_t)k * nm;
    double *g = G + (size_t)k * nm;
    double h[S] = {};
    for (uint64_t i = thread_index(); i < nm; i += thread_count()) {
        const double gi = u[i] - choice_product(v, sel[i], u);
        g[i] = gi;
        add_shadow(h, i, gi);
    }
    shadow_to_part(h, part, tmp);
    if (blockIdx.x == 0 && threadIdx.x == 0)
        st->matvecs++;
}

/* After G_k's product: converged by the update before it?  alpha (G_k
 * against G_0..G_{k-1}), column k of M, beta, f, and c for step k + 1. */
__global__ void __launch_bounds__(kThreads) idr_step_scalars(idr_state *st, const double *part, unsigned blocks,
                                                             int k)
{
    __shared__ block_reduce::TempStorage tmp;
    if (st->done)
        return;
    double h[S];
    const double rn = k ? from_part(part, blocks, kNorm, max_op(), 0.0, tmp) : st->rnorm;
    shadow_from_part(part, blocks, h, tmp);
    if (threadIdx.x || record_norm(st, rn))
        return;
    for (int i = 0; i < k; i++) {
        double a = h[i];
        for (int j = 0; j < i; j++)
            a -= st->alpha[j] * st->M[i][j];
        st->alpha[i] = a / st->M[i][i];
    }
    for (int i = k; i < S; i++) {
        double m = h[i];
        for (int j = 0; j < k; j++)
            m -= st->alpha[j] * st->M[i][j];
        st->M[i][k] = m;
    }
    if (st->M[k][k] == 0.0 || !isfinite(st->M[k][k])) {
        st->done = 2;
        return;
    }
    const double beta = st->f[k] / st->M[k][k];
    st->beta[k] = beta;
    st->pending = k + 1;
    for (int i = k + 1; i < S; i++)
        st->f[i] -= beta * st->M[i][k];
    if (k + 1 < S)
        solve_c(st, k + 1);
}

/* G_k, U_k made bi-orthogonal; r -= beta G_k (x takes beta U_k at the
 * cycle's end); max |r| into part; then U_{k+1}'s direction (k + 1 < S). */
__global__ void __launch_bounds__(kThreads) idr_update(const idr_state *st, uint64_t nm, int k, double *G, double *U,
                                                       double *r, double *part)
{
    __shared__ block_reduce::TempStorage tmp;
    if (st->done)
        return;
    double norm = 0.0;
    for (uint64_t q = thread_index(); q < nm; q += thread_count()) {
        double g = G[(size_t)k * nm + q], u = U[(size_t)k * nm + q];
        for (int j = 0; j < k; j++) {
            g -= st->alpha[j] * G[(size_t)j * nm + q];
            u -= st->alpha[j] * U[(size_t)j * nm + q];
        }
        G[(size_t)k * nm + q] = g;
        U[(size_t)k * nm + q] = u;
        const double rq = r[q] - st->beta[k] * g;
        r[q] = rq;
        norm = fmax(norm, fabs(rq));
        if (k + 1 < S)
            direction(st, nm, k + 1, q, r, G, U);
    }
    to_part(norm, max_op(), part, kNorm, tmp);
}

/* t = (I - P_sel) r and <t, t>, <t, r>, <r, r> into part. */
__global__ void __launch_bounds__(kThreads) idr_omega_product(vi_view v, const uint32_t *__restrict__ sel,
                                                              idr_state *st, const double *__restrict__ r, double *t,
                                                              double *part)
{
    __shared__ block_reduce::TempStorage tmp;
    if (st->done)
        return;
    double tt = 0.0, tr = 0.0, rr = 0.0;
    for (uint64_t i = thread_index(); i < v.nm; i += thread_count()) {
        const double ti = r[i] - choice_product(v, sel[i], r);
        t[i] = ti;
        tt += ti * ti;
        tr += ti * r[i];
        rr += r[i] * r[i];
    }
    to_part(tt, sum_op(), part, kExtra, tmp);
    to_part(tr, sum_op(), part, kExtra + 1, tmp);
    to_part(rr, sum_op(), part, kExtra + 2, tmp);
    if (blockIdx.x == 0 && threadIdx.x == 0)
        st->matvecs++;
}

/* omega, with "maintaining the convergence" (van Gijzen & Sonneveld,
 * section 4): |cos(t, r)| below 0.7 enlarges it. */
__global__ void __launch_bounds__(kThreads) idr_omega(idr_state *st, const double *part, unsigned blocks)
{
    __shared__ block_reduce::TempStorage tmp;
    if (st->done)
        return;
    const double rn = from_part(part, blocks, kNorm, max_op(), 0.0, tmp);
    const double tt = from_part(part, blocks, kExtra, sum_op(), 0.0, tmp);
    const double tr = from_part(part, blocks, kExtra + 1, sum_op(), 0.0, tmp);
    const double rr = from_part(part, blocks, kExtra + 2, sum_op(), 0.0, tmp);
    if (threadIdx.x || record_norm(st, rn))
        return;
    if (!(tt > 0.0)) {
        st->done = 2;
        return;
    }
    /* om = tr / tt, or where rho = |tr| / (|t| |r|) < 0.7, om 0.7 / rho:
     * sign(tr) 0.7 |r| / |t| (no 0 / 0 where t and r are orthogonal) */
    st->om = fabs(tr) >= 0.7 * sqrt(tt) * sqrt(rr) ? tr / tt : (tr < 0.0 ? -0.7 : 0.7) * sqrt(rr / tt);
}

/* x += the cycle's sum beta_k U_k + om r, r -= om t; r's shadow products
 * and norm into part (the next cycle's start). */
__global__ void __launch_bounds__(kThreads) idr_omega_update(idr_state *st, uint64_t nm, double *x, double *r,
                                                             const double *__restrict__ t, const double *U,
                                                             double *part)
{
    __shared__ block_reduce::TempStorage tmp;
    if (st->done)
        return;
    double dots[S] = {}, norm = 0.0;
    for (uint64_t q = thread_index(); q < nm; q += thread_count()) {
        double xq = x[q] + st->om * r[q];
#pragma unroll
        for (int k = 0; k < S; k++)
            xq += st->beta[k] * U[(size_t)k * nm + q];
        x[q] = xq;
        const double rq = r[q] - st->om * t[q];
        r[q] = rq;
        norm = fmax(norm, fabs(rq));
        add_shadow(dots, q, rq);
    }
    shadow_to_part(dots, part, tmp);
    to_part(norm, max_op(), part, kNorm, tmp);
}

/* The cycle's steps that x has not taken (it was done before its end):
 * x += beta_k U_k for each.  Runs whether done or not. */
__global__ void idr_flush(const idr_state *st, uint64_t nm, double *x, const double *U)
{
    const int pending = st->flush;
    if (!pending)
        return;
    for (uint64_t q = thread_index(); q < nm; q += thread_count()) {
        double xq = x[q];
        for (int k = 0; k < pending; k++)
            xq += st->beta[k] * U[(size_t)k * nm + q];
        x[q] = xq;
    }
}

/* The cycle's end: what idr_flush must add (the steps pending where the
 * solver was done within the cycle; none where idr_omega_update ran). */
__global__ void idr_settle(idr_state *st)
{
    st->flush = st->done ? st->pending : 0;
    st->pending = 0;
}

/* ---- the host side ------------------------------------------------------------------ */

struct pi_device {
    device_array<double> x, w, b, r, t, G, U, part;
    device_array<uint32_t> sigma, tau;
    device_array<vi_bounds> other; /* Jacobi's second buffer */
    device_array<idr_state> st;
    double *host_part = nullptr;
    ~pi_device() { free(host_part); }
};

struct pi_run {
    vi_view v;
    pi_device d;
    unsigned blocks;
    cudaStream_t s;
    csr_status *status;
    uint64_t matvecs = 0, budget = REACH_PI_MAX_MATVECS;

    /* The partial sums to the host; reduce(slot, op) then combines them. */
    int fetch()
    {
        CUDA_TRY(cudaMemcpyAsync(d.host_part, d.part.p, (size_t)blocks * kPartials * sizeof(double),
                                 cudaMemcpyDeviceToHost, s));
        CUDA_TRY(cudaStreamSynchronize(s));
        return CSR_OK;
    }
    double reduce_max(int slot) const
    {
        double m = -INFINITY;
        for (unsigned b = 0; b < blocks; b++)
            m = fmax(m, d.host_part[(size_t)b * kPartials + slot]);
        return m;
    }
    double reduce_min(int slot) const
    {
        double m = INFINITY;
        for (unsigned b = 0; b < blocks; b++)
            m = fmin(m, d.host_part[(size_t)b * kPartials + slot]);
        return m;
    }
    double reduce_sum(int slot) const
    {
        double m = 0.0;
        for (unsigned b = 0; b < blocks; b++)
            m += d.host_part[(size_t)b * kPartials + slot];
        return m;
    }

    /* max |b - (x - P_sel x)| (b NULL: 1) into *norm, max of it into *top. */
    int residual(const uint32_t *sel, const double *x, const double *b, double *norm, double *top)
    {
        pi_residual<<<blocks, kThreads, 0, s>>>(v, sel, x, b, d.r.p, d.part.p);
        CUDA_TRY_LAUNCH();
        matvecs++;
        TRY(fetch());
        *norm = reduce_max(kNorm);
        if (top)
            *top = reduce_max(kExtra);
        return CSR_OK;
    }

    /* One cycle of IDR(S) (S + 1 products) on stream s, for graph capture. */
    int cycle(const uint32_t *sel, double *x)
    {
        const uint64_t nm = v.nm;
        idr_state *st = d.st.p;
        idr_direction<<<blocks, kThreads, 0, s>>>(st, nm, 0, d.r.p, d.G.p, d.U.p);
        CUDA_TRY_LAUNCH();
        for (int k = 0; k < S; k++) {
            idr_product<<<blocks, kThreads, 0, s>>>(v, sel, st, k, d.U.p, d.G.p, d.part.p);
            CUDA_TRY_LAUNCH();
            idr_step_scalars<<<1, kThreads, 0, s>>>(st, d.part.p, blocks, k);
            CUDA_TRY_LAUNCH();
            idr_update<<<blocks, kThreads, 0, s>>>(st, nm, k, d.G.p, d.U.p, d.r.p, d.part.p);
            CUDA_TRY_LAUNCH();
        }
        idr_omega_product<<<blocks, kThreads, 0, s>>>(v, sel, st, d.r.p, d.t.p, d.part.p);
        CUDA_TRY_LAUNCH();
        idr_omega<<<1, kThreads, 0, s>>>(st, d.part.p, blocks);
        CUDA_TRY_LAUNCH();
        idr_omega_update<<<blocks, kThreads, 0, s>>>(st, nm, x, d.r.p, d.t.p, d.U.p, d.part.p);
        CUDA_TRY_LAUNCH();
        idr_settle<<<1, 1, 0, s>>>(st);
        CUDA_TRY_LAUNCH();
        idr_flush<<<blocks, kThreads, 0, s>>>(st, nm, x, d.U.p); /* done within the cycle: the steps x missed */
        CUDA_TRY_LAUNCH();
        idr_start_cycle<<<1, kThreads, 0, s>>>(st, d.part.p, blocks);
        CUDA_TRY_LAUNCH();
        return CSR_OK;
    }

    /*
     * (I - P_sel) x = b (b NULL: 1) by IDR(S), x warm: as idr_solve of
     * ref/reach_pi.c (the residual's maximum norm at most tol, checked on
     * the true residual; at most 4 starts; the budget of products).  A cycle
     * runs as a CUDA graph, the host reads the state after each.
     */
    int solve(const uint32_t *sel, const double *b, double *x, double tol, bool *converged)
    {
        *converged = false;
        gpu::cuda_graph g; /* kCycles cycles: one host read each kCycles (S + 1) products */
        TRY(g.capture(
            s,
            [&]() -> int {
                for (int c = 0; c < kCycles; c++)
                    TRY(cycle(sel, x));
                return CSR_OK;
            },
            status));
        for (int start = 0; start < 4; start++) {
            idr_state h;
            memset(&h, 0, sizeof h);
            for (int i = 0; i < S; i++)
                h.M[i][i] = 1.0;
            h.om = 1.0;
            h.tol = tol;
            CUDA_TRY(cudaMemcpyAsync(d.st.p, &h, sizeof h, cudaMemcpyHostToDevice, s));
            CUDA_TRY(cudaMemsetAsync(d.G.p, 0, S * v.nm * sizeof(double), s));
            CUDA_TRY(cudaMemsetAsync(d.U.p, 0, S * v.nm * sizeof(double), s));
            pi_residual<<<blocks, kThreads, 0, s>>>(v, sel, x, b, d.r.p, d.part.p);
            CUDA_TRY_LAUNCH();
            matvecs++;
            idr_start_cycle<<<1, kThreads, 0, s>>>(d.st.p, d.part.p, blocks);
            CUDA_TRY_LAUNCH();
            for (;;) {
                CUDA_TRY(cudaMemcpyAsync(&h, d.st.p, sizeof h, cudaMemcpyDeviceToHost, s));
                CUDA_TRY(cudaStreamSynchronize(s));
                if (h.done || matvecs + h.matvecs >= budget)
                    break;
                CUDA_TRY(cudaGraphLaunch(g.exec, s));
            }
            matvecs += h.matvecs;
            if (h.done != 1)
                return CSR_OK; /* broken down or out of budget */
            double norm = INFINITY;
            TRY(residual(sel, x, b, &norm, NULL));
            if (norm <= tol) {
                *converged = true;
                return CSR_OK;
            }
        }
        return CSR_OK;
    }
};

} /* namespace */

int gpu_reach_pi(const vi_view &v, uint64_t slots, const reach_options *o, double eps, cudaStream_t s,
                 uint64_t *jacobi, double *difference, bool *solved, bool *bounded, csr_status *status)
{
    reach_pi_stats *stats = o->pi_stats;
    const uint64_t nm = v.nm;
    *jacobi = 0;
    *solved = false;
    *bounded = !v.reward; /* an expected reward has an upper bound once certified */
    *difference = INFINITY;
    if (nm == 0) {
        *solved = *bounded = true;
        *difference = 0.0;
        return CSR_OK;
    }
    pi_run run;
    run.v = v;
    run.s = s;
    run.status = status;
    run.blocks = gpu::grid_for(nm, kThreads); /* half or a quarter as many: 8-30 % slower (coin6_4, H200) */
    pi_device &d = run.d;
    TRY(d.other.alloc(slots, NULL, status));
    TRY(d.part.alloc((uint64_t)run.blocks * kPartials, NULL, status));
    d.host_part = (double *)malloc((size_t)run.blocks * kPartials * sizeof(double));
    if (!d.host_part)
        return CSR_ERR_NOMEM;
    if (stats)
        stats->attempts++;
    /* 1. interval iteration in Jacobi order, batches of kBatch as one graph */
    uint64_t limit = reach_pi_jacobi_limit();
    limit = limit < o->max_iterations ? limit : o->max_iterations;
    CUDA_TRY(cudaMemcpyAsync(d.other.p, v.bounds, slots * sizeof(vi_bounds), cudaMemcpyDeviceToDevice, s));
    constexpr int kBatch = 16; /* even: the bounds end where they began */
    gpu::cuda_graph batch;
    TRY(batch.capture(
        s,
        [&]() -> int {
            for (int j = 0; j < kBatch; j++) {
                pi_jacobi<<<run.blocks, kThreads, 0, s>>>(v, j & 1 ? d.other.p : v.bounds, j & 1 ? v.bounds : d.other.p,
                                                          d.part.p, j == kBatch - 1);
                CUDA_TRY_LAUNCH();
            }
            return CSR_OK;
        },
        status));
    while (*jacobi + kBatch <= limit) {
        CUDA_TRY(cudaGraphLaunch(batch.exec, s));
        *jacobi += kBatch;
        TRY(run.fetch());
        *difference = run.reduce_max(kNorm);
        if (*difference <= eps) {
            *solved = true;
            break;
        }
    }
    if (stats)
        stats->jacobi += *jacobi;
    if (*solved)
        return CSR_OK;
    /* 2. policy iteration from the lower bound's greedy scheduler */
    TRY(d.x.alloc(nm, NULL, status));
    TRY(d.w.alloc(nm, NULL, status));
    TRY(d.b.alloc(nm, NULL, status));
    TRY(d.r.alloc(nm, NULL, status));
    TRY(d.t.alloc(nm, NULL, status));
    TRY(d.G.alloc(S * nm, NULL, status));
    TRY(d.U.alloc(S * nm, NULL, status));
    TRY(d.sigma.alloc(nm, NULL, status));
    TRY(d.tau.alloc(nm, NULL, status));
    TRY(d.st.alloc(1, NULL, status));
    const unsigned blocks = run.blocks;
    pi_lower<<<blocks, kThreads, 0, s>>>(v, d.x.p);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaMemsetAsync(d.w.p, 0, nm * sizeof(double), s)); /* the exit time from 0 */
    pi_greedy<<<blocks, kThreads, 0, s>>>(v, d.x.p, d.sigma.p, 0.0, 1, d.part.p);
    CUDA_TRY_LAUNCH();
    pi_fixed_part<<<blocks, kThreads, 0, s>>>(v, d.sigma.p, d.b.p);
    CUDA_TRY_LAUNCH();
    bool ok;
    TRY(run.solve(d.sigma.p, d.b.p, d.x.p, 1e-10, &ok));
    TRY(run.solve(d.sigma.p, NULL, d.w.p, 0.25, &ok));
    /* what the solves can reach: a residual of some ulps of the values */
    pi_norm<<<blocks, kThreads, 0, s>>>(v, d.x.p, d.part.p);
    CUDA_TRY_LAUNCH();
    pi_need<<<blocks, kThreads, 0, s>>>(nm, d.x.p, d.w.p, eps, v.relative, d.part.p, kExtra + 1);
    CUDA_TRY_LAUNCH();
    TRY(run.fetch());
    const double xmax = run.reduce_max(kNorm), reach_floor = 0x1p-45 * xmax, solve_floor = 0x1p-48 * xmax;
    const double terms = run.reduce_max(kExtra); /* the most transitions of a choice */
    double need = run.reduce_min(kExtra + 1), residual = INFINITY;
    bool w_stale = false; /* sigma has moved since w was solved */
    for (unsigned step = 0; ok; step++) {
        pi_greedy<<<blocks, kThreads, 0, s>>>(v, d.x.p, d.sigma.p, fmax(need, reach_floor) / 2, 0, d.part.p);
        CUDA_TRY_LAUNCH();
        pi_need<<<blocks, kThreads, 0, s>>>(nm, d.x.p, d.w.p, eps, v.relative, d.part.p, kExtra + 1);
        CUDA_TRY_LAUNCH();
        TRY(run.fetch());
        residual = run.reduce_max(kNorm);
        const bool moved = run.reduce_sum(kExtra) != 0.0;
        w_stale = w_stale || moved;
        const double now = run.reduce_min(kExtra + 1); /* the least so far, unless a poor first scheduler's 0 */
        need = need > 0.0 ? fmin(need, now) : now;
        if (residual <= fmax(need, reach_floor) || step == REACH_PI_MAX_STEPS || run.matvecs >= run.budget)
            break;
        /* eps asks more of some state than the solves reach (values many
         * orders of magnitude apart, zeroconf's) for a steady scheduler, or,
         * after a step, for one that reaches the targets from every state
         * (need > 0): interval iteration it is (ref/reach_pi.c) */
        if (need < reach_floor && (!moved || (need > 0.0 && step >= 1)))
            break;
        pi_fixed_part<<<blocks, kThreads, 0, s>>>(v, d.sigma.p, d.b.p);
        CUDA_TRY_LAUNCH();
        bool converged;
        TRY(run.solve(d.sigma.p, d.b.p, d.x.p, fmax(need / REACH_PI_NOISE, solve_floor), &converged));
        if (stats)
            stats->steps++;
    }
    ok = ok && need >= reach_floor && residual <= need;
    /* 3. the exit time, steady along the ties, and the certificate */
    if (ok && w_stale)
        TRY(run.solve(d.sigma.p, NULL, d.w.p, 0.25, &ok));
    bool certified = false;
    if (ok) {
        CUDA_TRY(cudaMemcpyAsync(d.tau.p, d.sigma.p, nm * sizeof(uint32_t), cudaMemcpyDeviceToDevice, s));
        pi_norm<<<blocks, kThreads, 0, s>>>(v, d.w.p, d.part.p);
        CUDA_TRY_LAUNCH();
        TRY(run.fetch());
        const double tie = 8.0 * residual * run.reduce_max(kNorm);
        for (unsigned round = 0; round < REACH_PI_MAX_ROUNDS && run.matvecs < run.budget; round++) {
            pi_ties<<<blocks, kThreads, 0, s>>>(v, d.x.p, d.w.p, d.tau.p, tie, d.part.p);
            CUDA_TRY_LAUNCH();
            TRY(run.fetch());
            if (run.reduce_sum(kExtra) == 0.0)
                break;
            if (stats)
                stats->rounds++;
            bool converged;
            TRY(run.solve(d.tau.p, NULL, d.w.p, 0.25, &converged));
        }
        double wnorm, rw;
        TRY(run.residual(d.tau.p, d.w.p, NULL, &wnorm, &rw)); /* rw: max (1 - (w - P_tau w)) */
        /* the margin d (1 - rw) must exceed each Bellman sum's rounding bound */
        double dd = fmax(2.0 * residual, 4.0 * (terms + 1.0) * 0x1p-52 * xmax) / (1.0 - rw);
        for (int tries = 0; rw < 1.0 && tries < 3; tries++, dd *= 10.0) {
            pi_certify<<<blocks, kThreads, 0, s>>>(v, d.x.p, d.w.p, dd, d.part.p);
            CUDA_TRY_LAUNCH();
            TRY(run.fetch());
            if (run.reduce_sum(kExtra) != 0.0)
                continue;
            pi_take_bounds<<<blocks, kThreads, 0, s>>>(v, d.x.p, d.w.p, dd, d.part.p);
            CUDA_TRY_LAUNCH();
            TRY(run.fetch());
            *difference = run.reduce_max(kNorm);
            certified = *difference <= eps;
            *bounded = true;
            if (stats && dd > stats->certificate)
                stats->certificate = dd;
            break;
        }
    }
    if (stats) {
        stats->matvecs += run.matvecs;
        stats->certified += certified;
    }
    *solved = certified;
    return CSR_OK;
}
