/*
 * reach_pi.c - certified policy iteration (REACH_PI, reach.h) on the CPU:
 * the sequential reference of gpu/reach/pi.cu, the same steps and constants.
 *
 * 1. Interval iteration in Jacobi order (every state from the bounds of the
 *    iteration before) for up to REACH_PI_JACOBI iterations; a system that
 *    meets eps there is solved.  (Jacobi, not Gauss-Seidel: a lower bound
 *    iterated in a fixed order favours the choices into states updated
 *    later, and its greedy scheduler is far from optimal: coin4_6 Pmin, 40
 *    policy steps from 1,024 Gauss-Seidel iterations, 1 from 500 Jacobi.)
 * 2. Policy iteration (Howard 1960) from the scheduler greedy for the lower
 *    bound: each scheduler sigma's chain solved, x = P_sigma x + b_sigma on
 *    the maybe states, by IDR(s) (Sonneveld & van Gijzen, SIAM J. Sci.
 *    Comput. 31(2), 2008; van Gijzen & Sonneveld, ACM TOMS 38(1), 2011,
 *    Algorithm 2), then sigma improved where a choice is better by more than
 *    half what the certificate may lose (need / 2), until the Bellman
 *    residual |B(x) - x| is at most need.  The first scheduler's chain is
 *    solved to 1e-10 and its exit time w (below) to 1/4, which gives need;
 *    later solves go to need / REACH_PI_NOISE (closer ties are noise),
 *    warm-started.  The solves reach a residual of some ulps of the largest
 *    value (2^-45 of it is the floor asked for): where need is below that
 *    for a steady scheduler (values many orders of magnitude apart, as
 *    zeroconf's), interval iteration takes over.
 * 3. The certificate.  w: an expected exit time of the maybe states, w =
 *    P_tau w + 1 for a scheduler tau that agrees with sigma except where a
 *    choice within tie of the best at x would let w grow (P_a w > w - 1/2:
 *    tau takes it, w is solved again), so that w decreases by at least 1/2
 *    (in exact arithmetic 1, less the solve's residual) along every choice
 *    that is optimal at x up to tie = 8 |B(x) - x| max w.  With d = 2 |B(x)
 *    - x| / (1 - r_w) (r_w: w's residual; at least what covers the rounding
 *    of a Bellman sum of the largest value), l = max(x - d w, 0) and u =
 *    min(x + d w, 1) are checked to be a post-fixpoint B(l) >= l and a
 *    pre-fixpoint B(u) <= u, each Bellman value bounded by the
 *    floating-point error of its sum (reach_pi_round_down/up; a bound
 *    clamped to 0 or 1 holds as it is): the maybe states then hold no end
 *    component (Pmin after Prob0; Pmax without MECs), the fixpoint is
 *    unique, and l <= value <= u.  A check that fails is tried again with d
 *    ten times larger (three tries).
 * The bounds handed back are max(lower, l) and min(upper, u); the answer is
 * final when u - l <= eps (relative or absolute, as interval iteration's
 * rule) in every maybe state, else the caller goes on with interval
 * iteration from them.  need = eps min(x / w) / 8 (relative; eps / 8 /
 * max w absolute): what keeps 2 d w within eps.  Every product with
 * P_sigma counts against REACH_PI_MAX_MATVECS.
 * The products, improvements, ties and certificates read each successor's
 * value from one vector over the maybe slots and then the fixed states (no
 * branch per transition), a task per 2^19 transitions of the system (at most
 * one per CPU) over ranges of slots; each slot's sums are taken in one
 * order, so the values do not depend on the CPUs.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "reach_ref.h"

/* The maybe states of a system and the vectors over them. */
typedef struct pi_work {
    const reach_system *y;
    uint64_t nm;
    uint32_t *slot_of;    /* [n] slot of a maybe state, nm + f for the f-th fixed one */
    /* the maybe states' choices as the passes read them (pi_matrix): a
     * transition's successor slot in column16 where every slot fits 16 bits
     * (n <= 65536), else in column; its probability as an index8 into palette
     * where those choices hold at most 256 distinct ones, else
     * y->probabilities (herman.15: 12 bytes a transition -> 3) */
    uint32_t *column;     /* [t] slot_of of each transition's target, or NULL */
    uint16_t *column16;   /* [t] the same in 16 bits, or NULL */
    uint8_t *index8;      /* [t] the probability's index into palette, or NULL */
    double palette[256];
    double *shadow;       /* [S nm] IDR(s)'s shadow vectors, reach_pi_shadow(q, k) at k nm + q */
    uint32_t *state_of;   /* [nm] */
    uint64_t *sigma;      /* [nm] sigma's choice (the model's index) */
    uint64_t *tau;        /* [nm] tau's choice */
    double *x, *w, *rhs, *ones;
    /* [n] a vector over the nm maybe slots followed by the fixed states'
     * values (ext_fixed, whose fixed part is never written after: the f-th
     * fixed state's value at nm + f) or zeros (ext_zero): choice_sum reads
     * a transition's successor at its slot without a branch */
    double *ext_fixed[2], *ext_zero;
    /* IDR(s) */
    double *r, *t, *v, *G, *U; /* G, U: s vectors each */
    uint64_t matvecs, budget;
} pi_work;

/* Transition j's successor slot and probability (the layout of pi_matrix). */
static inline uint32_t column_at(const pi_work *pw, uint64_t j)
{
    return pw->column16 ? pw->column16[j] : pw->column[j];
}

static inline double probability_at(const pi_work *pw, uint64_t j)
{
    return pw->index8 ? pw->palette[pw->index8[j]] : pw->y->probabilities[j];
}

/* sum p * xe[successor] over transitions [j, end), for one layout (narrow:
 * column16; indexed: index8) fixed at compile time.  A long choice is summed
 * in four parts (four additions in flight instead of one chain: herman's 438
 * transitions a state), then the parts and the rest in order: the same sum
 * in every layout. */
#define COLUMN(j) (narrow ? (uint32_t)column16[j] : column[j])
#define PROBABILITY(j) (indexed ? palette[index8[j]] : probability[j])
static inline __attribute__((always_inline)) double sum_in_layout(const pi_work *pw, uint64_t j, uint64_t end,
                                                                  const double *restrict xe, double s,
                                                                  const int narrow, const int indexed)
{
    const uint32_t *restrict column = pw->column;
    const uint16_t *restrict column16 = pw->column16;
    const uint8_t *restrict index8 = pw->index8;
    const double *restrict palette = pw->palette;
    const double *restrict probability = pw->y->probabilities;
    if (end - j >= 16) {
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        for (; j + 4 <= end; j += 4) {
            s0 += PROBABILITY(j) * xe[COLUMN(j)];
            s1 += PROBABILITY(j + 1) * xe[COLUMN(j + 1)];
            s2 += PROBABILITY(j + 2) * xe[COLUMN(j + 2)];
            s3 += PROBABILITY(j + 3) * xe[COLUMN(j + 3)];
        }
        s += (s0 + s1) + (s2 + s3);
    }
    for (; j < end; j++)
        s += PROBABILITY(j) * xe[COLUMN(j)];
    return s;
}
#undef COLUMN
#undef PROBABILITY

/* sum p * xe[successor] over choice k's successors, xe an extended vector
 * (ext_fixed[] or ext_zero: the maybe slots, then the fixed states' values or
 * zeros); with reward also the choice's reward (a Bellman value; INFINITY
 * where it may enter an infinite state). */
static double choice_sum(const pi_work *pw, uint64_t k, const double *xe, int reward)
{
    const reach_system *y = pw->y;
    const double s = reward && y->choice_reward ? y->choice_reward[k] : 0.0;
    const uint64_t j = y->choice_transitions[k], end = y->choice_transitions[k + 1];
    if (pw->column16)
        return pw->index8 ? sum_in_layout(pw, j, end, xe, s, 1, 1) : sum_in_layout(pw, j, end, xe, s, 1, 0);
    return pw->index8 ? sum_in_layout(pw, j, end, xe, s, 0, 1) : sum_in_layout(pw, j, end, xe, s, 0, 0);
}

/* ext (an ext_fixed[] or ext_zero) with x (f64[nm]) over the maybe slots; returns it. */
static const double *extend(const pi_work *pw, double *ext, const double *x)
{
    memcpy(ext, x, pw->nm * sizeof *ext);
    return ext;
}

/* A task over the maybe slots [first, last) of a pass (run_slots): its
 * inputs and what it found. */
typedef struct slot_task {
    pi_work *pw;
    uint64_t first, last;
    const uint64_t *sel; /* a scheduler's choices (the model's index) */
    const double *in, *xe, *we;
    double *out;
    double bound;  /* improve: the threshold; tie_moves: the tie; certificate_holds: d */
    uint64_t moved; /* what it changed */
    double most;   /* a maximum it found */
    int ok;        /* certificate_holds: its slots' checks held */
} slot_task;

#define PI_SLOT_GRAIN ((uint64_t)1 << 19) /* the system's transitions a task at least */

/* fn over the maybe slots, a task per PI_SLOT_GRAIN transitions (proto: the
 * inputs; each task's results start at 0, ok at 1); returns the tasks. */
static unsigned run_slots(pi_work *pw, void *(*fn)(void *), const slot_task *proto, slot_task *task)
{
    const unsigned count = parallel_tasks(pw->y->num_transitions, parallel_grain(PI_SLOT_GRAIN));
    for (unsigned i = 0; i < count; i++) {
        task[i] = *proto;
        task[i].pw = pw;
        task[i].first = pw->nm * i / count;
        task[i].last = pw->nm * (i + 1) / count;
        task[i].moved = 0;
        task[i].most = 0.0;
        task[i].ok = 1;
    }
    parallel_run(fn, task, sizeof task[0], count);
    return count;
}

static void *fixed_part_task(void *arg)
{
    slot_task *k = arg;
    const pi_work *pw = k->pw;
    const reach_system *y = pw->y;
    for (uint64_t i = k->first; i < k->last; i++) {
        const uint64_t c = k->sel[i];
        double s = y->choice_reward ? y->choice_reward[c] : 0.0;
        for (uint64_t j = y->choice_transitions[c]; j < y->choice_transitions[c + 1]; j++)
            if (column_at(pw, j) >= pw->nm)
                s += probability_at(pw, j) * pw->ext_fixed[0][column_at(pw, j)];
        k->out[i] = s;
    }
    return NULL;
}

/* b[i] = reward + sum p * value over the fixed successors of sel[i]'s choice. */
static void fixed_part(pi_work *pw, const uint64_t *sel, double *b)
{
    slot_task task[PARALLEL_MAX_TASKS];
    run_slots(pw, fixed_part_task, &(slot_task){.sel = sel, .out = b}, task);
}

static void *apply_task(void *arg)
{
    slot_task *k = arg;
    for (uint64_t i = k->first; i < k->last; i++)
        k->out[i] = k->in[i] - choice_sum(k->pw, k->sel[i], k->xe, 0);
    return NULL;
}

/* out = (I - P_sel) in over the maybe states (fixed successors count 0).
 * Each slot's sum is the same in any split: the same values. */
static void apply(pi_work *pw, const uint64_t *sel, const double *in, double *out)
{
    pw->matvecs++;
    slot_task task[PARALLEL_MAX_TASKS];
    run_slots(pw, apply_task, &(slot_task){.sel = sel, .in = in, .xe = extend(pw, pw->ext_zero, in), .out = out},
              task);
}

static double dot(uint64_t n, const double *a, const double *b)
{
    double s = 0.0;
    for (uint64_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static double max_abs(uint64_t n, const double *a)
{
    double s = 0.0;
    for (uint64_t i = 0; i < n; i++)
        s = fmax(s, fabs(a[i]));
    return s;
}

/*
 * IDR(s) with bi-orthogonalisation (van Gijzen & Sonneveld 2011, Alg. 2) for
 * (I - P_sel) x = b, x warm; the shadow space P from reach_pi_shadow.  Stops
 * when the recursively updated residual's maximum norm is at most tol and the
 * true one too (else it starts again from x: at most 4 times), or when the
 * budget of products is spent or it breaks down.  Returns 1 converged, 0
 * not.
 */
static int idr_solve(pi_work *pw, const uint64_t *sel, const double *b, double *x, double tol)
{
    enum { S = REACH_PI_IDR_S };
    const uint64_t n = pw->nm;
    double *r = pw->r, *t = pw->t, *v = pw->v, *G = pw->G, *U = pw->U;
    const double *P = pw->shadow;
    for (int restart = 0; restart < 4; restart++) {
        apply(pw, sel, x, r);
        for (uint64_t q = 0; q < n; q++)
            r[q] = b[q] - r[q];
        double rn = max_abs(n, r);
        if (rn <= tol)
            return 1;
        double M[S][S], f[S], c[S], om = 1.0;
        memset(M, 0, sizeof M);
        for (int i = 0; i < S; i++)
            M[i][i] = 1.0;
        memset(G, 0, S * n * sizeof *G);
        memset(U, 0, S * n * sizeof *U);
        int broke = 0;
        while (rn > tol && !broke && pw->matvecs < pw->budget) {
            for (int i = 0; i < S; i++) {
                f[i] = 0.0;
                for (uint64_t q = 0; q < n; q++)
                    f[i] += P[i * n + q] * r[q];
            }
            for (int k = 0; k < S && pw->matvecs < pw->budget; k++) {
                for (int i = k; i < S; i++) { /* M(k:S, k:S) c = f(k:S), lower triangular */
                    double sm = f[i];
                    for (int j = k; j < i; j++)
                        sm -= M[i][j] * c[j];
                    c[i] = sm / M[i][i];
                }
                double *Gk = G + k * n, *Uk = U + k * n;
                for (uint64_t q = 0; q < n; q++) {
                    double vq = r[q], uq = 0.0;
                    for (int i = k; i < S; i++) {
                        vq -= c[i] * G[i * n + q];
                        uq += c[i] * U[i * n + q];
                    }
                    v[q] = om * vq + uq;
                }
                memcpy(Uk, v, n * sizeof *v);
                apply(pw, sel, Uk, Gk);
                for (int i = 0; i < k; i++) { /* G_k orthogonal to P_0..P_{k-1} */
                    double alpha = 0.0;
                    for (uint64_t q = 0; q < n; q++)
                        alpha += P[i * n + q] * Gk[q];
                    alpha /= M[i][i];
                    for (uint64_t q = 0; q < n; q++) {
                        Gk[q] -= alpha * G[i * n + q];
                        Uk[q] -= alpha * U[i * n + q];
                    }
                }
                for (int i = k; i < S; i++) {
                    M[i][k] = 0.0;
                    for (uint64_t q = 0; q < n; q++)
                        M[i][k] += P[i * n + q] * Gk[q];
                }
                if (M[k][k] == 0.0 || !isfinite(M[k][k])) {
                    broke = 1;
                    break;
                }
                const double beta = f[k] / M[k][k];
                for (uint64_t q = 0; q < n; q++) {
                    r[q] -= beta * Gk[q];
                    x[q] += beta * Uk[q];
                }
                rn = max_abs(n, r);
                if (rn <= tol)
                    break;
                for (int i = k + 1; i < S; i++)
                    f[i] -= beta * M[i][k];
            }
            if (rn <= tol || broke || pw->matvecs >= pw->budget)
                break;
            apply(pw, sel, r, t);
            const double tt = dot(n, t, t), ts = dot(n, t, r), rr = dot(n, r, r);
            if (!(tt > 0.0)) {
                broke = 1;
                break;
            }
            /* om = <t, r> / <t, t>, or where rho = |<t, r>| / (|t| |r|) < 0.7,
             * om 0.7 / rho, "maintaining the convergence" (van Gijzen &
             * Sonneveld, section 4): sign 0.7 |r| / |t| (no 0 / 0) */
            om = fabs(ts) >= 0.7 * sqrt(tt) * sqrt(rr) ? ts / tt : (ts < 0.0 ? -0.7 : 0.7) * sqrt(rr / tt);
            for (uint64_t q = 0; q < n; q++) {
                x[q] += om * r[q];
                r[q] -= om * t[q];
            }
            rn = max_abs(n, r);
        }
        if (broke || pw->matvecs >= pw->budget)
            return 0;
        /* the recursion's residual met tol: the true one decides */
    }
    apply(pw, sel, x, r);
    for (uint64_t q = 0; q < n; q++)
        r[q] = b[q] - r[q];
    return max_abs(n, r) <= tol;
}

/* The best values at le and at ue (extended: ext_fixed[]) over the choices
 * of slot i (best_at of each, in one pass over the choices' transitions). */
static void best_pair(const pi_work *pw, uint64_t i, const double *le, const double *ue, double *best_l,
                      double *best_u)
{
    const reach_system *y = pw->y;
    const uint64_t s = pw->state_of[i];
    double bl = 0.0, bu = 0.0;
    for (uint64_t k = y->state_choices[s]; k < y->state_choices[s + 1]; k++) {
        double ql = y->choice_reward ? y->choice_reward[k] : 0.0, qu = ql;
        for (uint64_t j = y->choice_transitions[k]; j < y->choice_transitions[k + 1]; j++) {
            const uint32_t c = column_at(pw, j);
            const double p = probability_at(pw, j);
            ql += p * le[c];
            qu += p * ue[c];
        }
        const int first = k == y->state_choices[s];
        if (first || (y->maximize ? ql > bl : ql < bl))
            bl = ql;
        if (first || (y->maximize ? qu > bu : qu < bu))
            bu = qu;
    }
    *best_l = bl;
    *best_u = bu;
}

/* The best value at xe (ext_fixed) over the choices of slot i, and its choice. */
static double best_at(const pi_work *pw, uint64_t i, const double *xe, uint64_t *arg)
{
    const reach_system *y = pw->y;
    const uint64_t s = pw->state_of[i];
    double best = 0.0;
    for (uint64_t k = y->state_choices[s]; k < y->state_choices[s + 1]; k++) {
        double q = choice_sum(pw, k, xe, 1);
        if (k == y->state_choices[s] || (y->maximize ? q > best : q < best)) {
            best = q;
            if (arg)
                *arg = k;
        }
    }
    return best;
}

static void *improve_task(void *arg)
{
    slot_task *k = arg;
    pi_work *pw = k->pw;
    const reach_system *y = pw->y;
    for (uint64_t i = k->first; i < k->last; i++) {
        uint64_t best_choice = pw->sigma[i];
        const double best = best_at(pw, i, k->xe, &best_choice);
        const double cur = choice_sum(pw, pw->sigma[i], k->xe, 1);
        if (y->maximize ? best > cur + k->bound : best < cur - k->bound) {
            pw->sigma[i] = best_choice;
            k->moved++;
        }
        k->most = fmax(k->most, fabs(best - pw->x[i]));
    }
    return NULL;
}

/* sigma moved to a choice better at x by more than threshold; returns the
 * moves; *residual: max |B(x) - x|. */
static uint64_t improve(pi_work *pw, double threshold, double *residual)
{
    slot_task task[PARALLEL_MAX_TASKS];
    const unsigned count =
        run_slots(pw, improve_task, &(slot_task){.xe = extend(pw, pw->ext_fixed[0], pw->x), .bound = threshold}, task);
    uint64_t moved = 0;
    double res = 0.0;
    for (unsigned i = 0; i < count; i++) {
        moved += task[i].moved;
        res = fmax(res, task[i].most);
    }
    *residual = res;
    return moved;
}

/* The most transitions of a choice of the maybe states. */
static uint64_t max_terms(const pi_work *pw)
{
    const reach_system *y = pw->y;
    uint64_t most = 1;
    for (uint64_t i = 0; i < pw->nm; i++) {
        const uint64_t s = pw->state_of[i];
        for (uint64_t k = y->state_choices[s]; k < y->state_choices[s + 1]; k++)
            if (y->choice_transitions[k + 1] - y->choice_transitions[k] > most)
                most = y->choice_transitions[k + 1] - y->choice_transitions[k];
    }
    return most;
}

/* What the certificate needs of |B(x) - x|: eps min(x / w) / 8 (relative)
 * or eps / (8 max w) (absolute). */
static double needed(const pi_work *pw, double eps, int relative)
{
    double need = INFINITY;
    for (uint64_t i = 0; i < pw->nm; i++)
        if (pw->w[i] > 0.0)
            need = fmin(need, (relative ? fabs(pw->x[i]) : 1.0) * eps / pw->w[i] / 8.0);
    return need;
}

static void *tie_moves_task(void *arg)
{
    slot_task *k = arg;
    pi_work *pw = k->pw;
    const reach_system *y = pw->y;
    for (uint64_t i = k->first; i < k->last; i++) {
        const uint64_t s = pw->state_of[i];
        const double best = best_at(pw, i, k->xe, NULL);
        double top = pw->w[i] - 0.5;
        uint64_t arg_k = UINT64_MAX;
        for (uint64_t c = y->state_choices[s]; c < y->state_choices[s + 1]; c++) {
            const double g = choice_sum(pw, c, k->xe, 1) - best;
            if ((y->maximize ? -g : g) > k->bound)
                continue;
            const double pw_c = choice_sum(pw, c, k->we, 0);
            if (pw_c > top) {
                top = pw_c;
                arg_k = c;
            }
        }
        if (arg_k != UINT64_MAX && arg_k != pw->tau[i]) {
            pw->tau[i] = arg_k;
            k->moved++;
        }
    }
    return NULL;
}

/* tau moved to a choice within tie of the best at x along which w would not
 * fall by 1/2 (the one where P_a w is largest); returns the moves. */
static uint64_t tie_moves(pi_work *pw, double tie)
{
    slot_task task[PARALLEL_MAX_TASKS];
    const unsigned count = run_slots(pw, tie_moves_task,
                                     &(slot_task){.xe = extend(pw, pw->ext_fixed[0], pw->x),
                                                  .we = extend(pw, pw->ext_zero, pw->w), .bound = tie},
                                     task);
    uint64_t moved = 0;
    for (unsigned i = 0; i < count; i++)
        moved += task[i].moved;
    return moved;
}

/* Bound v of slot i (or of fixed state t) of the certificate's l (side -1)
 * or u (+1): x -+ d w, clamped to [0, top] (top: 1 for probabilities,
 * INFINITY for rewards). */
static double candidate(double x, double w, double d, int side, double top)
{
    const double c = fma(side * d, w, x);
    return side < 0 ? fmax(c, 0.0) : fmin(c, top);
}

static void *certificate_task(void *arg)
{
    slot_task *k = arg;
    const pi_work *pw = k->pw;
    const reach_system *y = pw->y;
    const double top = y->choice_reward ? INFINITY : 1.0;
    const double *restrict le = k->xe, *restrict ue = k->we;
    for (uint64_t i = k->first; i < k->last; i++) {
        const uint64_t s = pw->state_of[i];
        const double li = le[i], ui = ue[i];
        /* min: all choices; max: one.  A bound clamped to 0 or 1 holds as it
         * is: B(l) >= 0 for l >= 0, and B(u) <= 1 for u <= 1 (every choice's
         * probabilities sum to 1, as interval iteration's upper bound
         * assumes too), where its rounding bound would be wider than the margin */
        int lower_ok = !y->maximize || li == 0.0, upper_ok = y->maximize || ui == top;
        for (uint64_t c = y->state_choices[s]; c < y->state_choices[s + 1]; c++) {
            const double r = y->choice_reward ? y->choice_reward[c] : 0.0;
            double ql = r, qu = r, al = r, au = r;
            for (uint64_t j = y->choice_transitions[c]; j < y->choice_transitions[c + 1]; j++) {
                const uint32_t slot = column_at(pw, j);
                const double p = probability_at(pw, j), lt = p * le[slot], ut = p * ue[slot];
                ql += lt;
                al += fabs(lt);
                qu += ut;
                au += fabs(ut);
            }
            const uint64_t m = y->choice_transitions[c + 1] - y->choice_transitions[c] + (r != 0.0);
            /* a choice that may enter an infinite state (Rmin's) is above any l and below no u */
            const int infinite = isinf(ql);
            const int l_meets = infinite || reach_pi_round_down(ql, al, m) >= li;
            const int u_meets = !infinite && reach_pi_round_up(qu, au, m) <= ui;
            if (y->maximize) {
                lower_ok |= l_meets;
                upper_ok &= u_meets || ui == top;
            } else {
                lower_ok &= l_meets || li == 0.0;
                upper_ok |= u_meets;
            }
        }
        if (!lower_ok || !upper_ok) {
            k->ok = 0;
            break;
        }
    }
    return NULL;
}

/* Whether l = candidate(-1) and u = candidate(+1) are a post- and a
 * pre-fixpoint, each choice's sum bounded by reach_pi_round_down/up (l and
 * u over the maybe slots, then the fixed states' values, in ext_fixed[]). */
static int certificate_holds(pi_work *pw, double d)
{
    const double top = pw->y->choice_reward ? INFINITY : 1.0;
    double *l = pw->ext_fixed[0], *u = pw->ext_fixed[1];
    for (uint64_t i = 0; i < pw->nm; i++) {
        l[i] = candidate(pw->x[i], pw->w[i], d, -1, top);
        u[i] = candidate(pw->x[i], pw->w[i], d, 1, top);
    }
    slot_task task[PARALLEL_MAX_TASKS];
    const unsigned count = run_slots(pw, certificate_task, &(slot_task){.xe = l, .we = u}, task);
    int ok = 1;
    for (unsigned i = 0; i < count; i++)
        ok &= task[i].ok;
    return ok;
}

uint64_t reach_pi_jacobi_limit(void)
{
    const char *test = getenv("CSR_TEST_PI_JACOBI");
    return test ? strtoull(test, NULL, 10) : REACH_PI_JACOBI;
}

int reach_pi_eligible(const reach_system *y, const double *lower, const double *upper)
{
    if (y->mec && y->num_mecs)
        return 0;
    for (uint64_t s = 0; s < y->num_states; s++) {
        if (y->fixed[s])
            continue;
        for (uint64_t j = y->choice_transitions[y->state_choices[s]];
             j < y->choice_transitions[y->state_choices[s + 1]]; j++)
            if (y->fixed[y->targets[j]] && lower[y->targets[j]] != upper[y->targets[j]])
                return 0;
    }
    return 1;
}

#define EARLY_WARMUP 32 /* the Jacobi iterations of an early warm-up (reach_options.pi_warmup_early) */

/* Interval iteration in Jacobi order on the slots, at most `limit`
 * iterations (l, u: the slots' bounds, iterated in ext_fixed[] and copied
 * back; nl, nu: scratch); returns the iterations and in *done whether the
 * rule held. */
static uint64_t jacobi_interval(pi_work *pw, double eps, int relative, uint64_t limit, int early, double *l,
                                double *u, double *nl, double *nu, int *done, double *difference)
{
    uint64_t it = 0;
    *done = 0;
    double *le = pw->ext_fixed[0], *ue = pw->ext_fixed[1];
    extend(pw, le, l);
    extend(pw, ue, u);
    while (it < limit) {
        /* early: an expected reward without an upper bound after EARLY_WARMUP
         * iterations gets none from more (its upper bounds are infinite until
         * every state has seen them): the policies now.  (A rate measured over
         * the first iterations misjudges probabilities: zeroconf's Pmin, which
         * ends at 309, looked hopeless at 32 and at 112.) */
        if (early && it == EARLY_WARMUP && isinf(*difference))
            break;
        it++;
        double diff = 0.0;
        for (uint64_t i = 0; i < pw->nm; i++) {
            double bl, bu;
            best_pair(pw, i, le, ue, &bl, &bu);
            nl[i] = fmax(le[i], bl);
            nu[i] = isinf(ue[i]) ? ue[i] : fmax(nl[i], fmin(ue[i], bu)); /* rewards: none yet */
            diff = fmax(diff, reach_difference(nu[i], nl[i], relative));
        }
        memcpy(le, nl, pw->nm * sizeof *le);
        memcpy(ue, nu, pw->nm * sizeof *ue);
        *difference = diff;
        if (diff <= eps) {
            *done = 1;
            break;
        }
    }
    memcpy(l, le, pw->nm * sizeof *l);
    memcpy(u, ue, pw->nm * sizeof *u);
    return it;
}

/* The palette's lookup: an open-addressed table of up to 256 probabilities
 * (their bits: -0.0 and each NaN their own) in 512 slots, each with its
 * index. */
typedef struct palette_set {
    uint64_t key[512];
    uint16_t index[512]; /* 0: empty, else the index + 1 */
    unsigned count;
} palette_set;

static unsigned palette_hash(uint64_t key)
{
    return (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 55);
}

/* key's index in set, added as the next one where absent (add); 256: absent
 * and not added (not asked, or the set holds 256). */
static unsigned palette_find(palette_set *set, uint64_t key, int add)
{
    for (unsigned h = palette_hash(key);; h = (h + 1) & 511) {
        if (set->index[h] && set->key[h] == key)
            return set->index[h] - 1u;
        if (!set->index[h]) {
            if (!add || set->count == 256)
                return 256;
            set->key[h] = key;
            set->index[h] = (uint16_t)++set->count;
            return set->count - 1;
        }
    }
}

/* A task of pi_matrix over the states [first, last): its own palette
 * (palette_collect_task), then its maybe states' transitions written
 * (matrix_encode_task). */
typedef struct matrix_task {
    pi_work *pw;
    uint64_t first, last;
    const palette_set *global; /* encode: the whole palette */
    palette_set set;           /* collect: the task's probabilities (count 257: more than 256) */
    int missing;               /* encode: a probability not in global (the union rules it out) */
} matrix_task;

static uint64_t probability_bits(double p)
{
    uint64_t b;
    memcpy(&b, &p, sizeof b);
    return b;
}

/* The distinct probabilities of the task's maybe states' transitions into
 * k->set; a 257th stops it with set.count 257. */
static void *palette_collect_task(void *arg)
{
    matrix_task *k = arg;
    const reach_system *y = k->pw->y;
    uint64_t last_key = 0;
    int have_last = 0; /* consecutive transitions often share a probability */
    for (uint64_t s = k->first; s < k->last; s++) {
        if (y->fixed[s])
            continue;
        const uint64_t end = y->choice_transitions[y->state_choices[s + 1]];
        for (uint64_t j = y->choice_transitions[y->state_choices[s]]; j < end; j++) {
            const uint64_t key = probability_bits(y->probabilities[j]);
            if (have_last && key == last_key)
                continue;
            if (palette_find(&k->set, key, 1) == 256) {
                k->set.count = 257;
                return NULL;
            }
            last_key = key;
            have_last = 1;
        }
    }
    return NULL;
}

/* The task's maybe states' successor slots (column16 or column) and, with
 * index8, their probabilities' indices in k->global (one missing, which the
 * union rules out: k->missing, and the caller drops index8). */
static void *matrix_encode_task(void *arg)
{
    matrix_task *k = arg;
    pi_work *pw = k->pw;
    const reach_system *y = pw->y;
    palette_set *global = (palette_set *)k->global; /* (only read: palette_find without adding) */
    uint64_t last_key = 0;
    unsigned last_index = 256;
    for (uint64_t s = k->first; s < k->last; s++) {
        if (y->fixed[s])
            continue;
        const uint64_t end = y->choice_transitions[y->state_choices[s + 1]];
        for (uint64_t j = y->choice_transitions[y->state_choices[s]]; j < end; j++) {
            const uint32_t slot = pw->slot_of[y->targets[j]];
            if (pw->column16)
                pw->column16[j] = (uint16_t)slot;
            else
                pw->column[j] = slot;
            if (!pw->index8 || k->missing)
                continue;
            const uint64_t key = probability_bits(y->probabilities[j]);
            if (key != last_key || last_index == 256) {
                last_index = palette_find(global, key, 0);
                last_key = key;
                if (last_index == 256) {
                    k->missing = 1;
                    continue;
                }
            }
            pw->index8[j] = (uint8_t)last_index;
        }
    }
    return NULL;
}

/* The maybe states' transitions in the products' layout (pi_work: column16
 * or column, index8 and palette where at most 256 probabilities occur), the
 * states in equal ranges, one a task (at most one a CPU, a task per 2^19 of
 * the system's transitions): each collects its probabilities, the palette is
 * their union, then each writes its states' transitions.  Returns 0, or -1
 * without memory. */
static int pi_matrix(pi_work *pw)
{
    const reach_system *y = pw->y;
    const uint64_t n = y->num_states, t = y->num_transitions ? y->num_transitions : 1;
    const unsigned count = parallel_tasks(y->num_transitions, parallel_grain(PI_SLOT_GRAIN));
    /* CSR_TEST_PI_LAYOUT=wide: 32-bit successors and the model's probabilities,
     * as a system too large for the others (for the tests) */
    const char *layout = getenv("CSR_TEST_PI_LAYOUT");
    const int wide = layout && !strcmp(layout, "wide");
    matrix_task *task = calloc(count, sizeof *task);
    palette_set *global = calloc(1, sizeof *global);
    if (!task || !global) {
        free(task);
        free(global);
        return -1;
    }
    for (unsigned i = 0; i < count; i++)
        task[i] = (matrix_task){.pw = pw, .first = n * i / count, .last = n * (i + 1) / count};
    int indexed = !wide;
    if (indexed)
        parallel_run(palette_collect_task, task, sizeof *task, count);
    for (unsigned i = 0; i < count && indexed; i++)
        for (unsigned h = 0; h < 512 && indexed; h++)
            if (task[i].set.count > 256 ||
                (task[i].set.index[h] && palette_find(global, task[i].set.key[h], 1) == 256))
                indexed = 0;
    if (indexed)
        for (unsigned h = 0; h < 512; h++)
            if (global->index[h])
                memcpy(&pw->palette[global->index[h] - 1], &global->key[h], sizeof(double));
    if (n <= 65536 && !wide)
        pw->column16 = malloc(t * sizeof *pw->column16);
    else
        pw->column = malloc(t * sizeof *pw->column);
    if (indexed)
        pw->index8 = malloc(t * sizeof *pw->index8);
    int rc = (pw->column16 || pw->column) && (!indexed || pw->index8) ? 0 : -1;
    if (!rc) {
        for (unsigned i = 0; i < count; i++)
            task[i] = (matrix_task){.pw = pw, .first = n * i / count, .last = n * (i + 1) / count, .global = global};
        parallel_run(matrix_encode_task, task, sizeof *task, count);
        for (unsigned i = 0; i < count; i++)
            if (task[i].missing && pw->index8) { /* (cannot happen: the model's probabilities then) */
                free(pw->index8);
                pw->index8 = NULL;
            }
    }
    free(task);
    free(global);
    return rc;
}

static void pi_free(pi_work *pw)
{
    void *all[] = {pw->slot_of, pw->column, pw->column16, pw->index8, pw->shadow, pw->state_of, pw->sigma,
                   pw->tau, pw->x, pw->w, pw->rhs, pw->ones, pw->r, pw->t, pw->v, pw->G, pw->U,
                   pw->ext_fixed[0], pw->ext_fixed[1], pw->ext_zero};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
}

int ref_reach_pi(const reach_system *y, const reach_options *o, double eps, double *lower, double *upper,
                 uint64_t *iterations, double *difference)
{
    const uint64_t n = y->num_states;
    reach_pi_stats *st = o->pi_stats;
    *iterations = 0;
    *difference = INFINITY;
    pi_work pw;
    memset(&pw, 0, sizeof pw);
    pw.y = y;
    if (n >= UINT32_MAX) /* slots are u32 */
        return CSR_ERR_TOO_LARGE;
    pw.slot_of = malloc((n ? n : 1) * sizeof *pw.slot_of);
    if (!pw.slot_of)
        return CSR_ERR_NOMEM;
    for (uint64_t s = 0; s < n; s++)
        if (!y->fixed[s])
            pw.slot_of[s] = (uint32_t)pw.nm++;
    const uint64_t nm = pw.nm, S = REACH_PI_IDR_S;
    if (nm == 0) {
        free(pw.slot_of);
        *difference = 0.0;
        return CSR_OK;
    }
    pw.shadow = malloc(S * nm * sizeof *pw.shadow);
    pw.ext_fixed[0] = malloc(n * sizeof *pw.ext_fixed[0]);
    pw.ext_fixed[1] = malloc(n * sizeof *pw.ext_fixed[1]);
    pw.ext_zero = calloc(n, sizeof *pw.ext_zero);
    if (!pw.shadow || !pw.ext_fixed[0] || !pw.ext_fixed[1] || !pw.ext_zero) {
        pi_free(&pw);
        return CSR_ERR_NOMEM;
    }
    for (uint64_t s = 0, f = 0; s < n; s++)
        if (y->fixed[s]) { /* (the fixed states' exact values) */
            pw.ext_fixed[0][nm + f] = pw.ext_fixed[1][nm + f] = lower[s];
            pw.slot_of[s] = (uint32_t)(nm + f++);
        }
    if (pi_matrix(&pw)) {
        pi_free(&pw);
        return CSR_ERR_NOMEM;
    }
    for (uint64_t k = 0; k < S; k++)
        for (uint64_t q = 0; q < nm; q++)
            pw.shadow[k * nm + q] = reach_pi_shadow(q, (unsigned)k);
    pw.state_of = malloc(nm * sizeof *pw.state_of);
    pw.sigma = malloc(nm * sizeof *pw.sigma);
    pw.tau = malloc(nm * sizeof *pw.tau);
    double *buf[] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    pw.x = malloc(nm * sizeof(double));
    pw.w = calloc(nm, sizeof(double));
    pw.rhs = malloc(nm * sizeof(double));
    pw.ones = malloc(nm * sizeof(double));
    pw.r = malloc(nm * sizeof(double));
    pw.t = malloc(nm * sizeof(double));
    pw.v = malloc(nm * sizeof(double));
    pw.G = malloc(S * nm * sizeof(double));
    pw.U = malloc(S * nm * sizeof(double));
    for (int i = 0; i < 4; i++)
        buf[i] = malloc(nm * sizeof(double));
    int rc = CSR_OK;
    if (!pw.state_of || !pw.sigma || !pw.tau || !pw.x || !pw.w || !pw.rhs || !pw.ones || !pw.r || !pw.t || !pw.v ||
        !pw.G || !pw.U || !buf[0] || !buf[1] || !buf[2] || !buf[3])
        rc = CSR_ERR_NOMEM;
    double *l = buf[0], *u = buf[1];
    if (!rc) {
        for (uint64_t s = 0; s < n; s++)
            if (!y->fixed[s]) {
                pw.state_of[pw.slot_of[s]] = (uint32_t)s;
                l[pw.slot_of[s]] = lower[s];
                u[pw.slot_of[s]] = upper[s];
            }
        for (uint64_t i = 0; i < nm; i++)
            pw.ones[i] = 1.0;
        if (st) {
            st->attempts++;
            st->palette += pw.index8 != NULL;
        }
    }
    /* 1. Jacobi interval iteration */
    int done = 0;
    if (!rc) {
        uint64_t limit = o->pi_warmup_early == 2 ? 0 : reach_pi_jacobi_limit();
        limit = limit < o->max_iterations ? limit : o->max_iterations;
        *iterations = jacobi_interval(&pw, eps, o->relative, limit, o->pi_warmup_early, l, u, buf[2], buf[3], &done,
                                      difference);
        if (st)
            st->jacobi += *iterations;
    }
    /* 2. policy iteration from the lower bound's greedy scheduler */
    int certified = 0;
    if (!rc && !done) {
        pw.budget = REACH_PI_MAX_MATVECS;
        memcpy(pw.x, l, nm * sizeof *pw.x);
        const double *xe = extend(&pw, pw.ext_fixed[0], pw.x);
        for (uint64_t i = 0; i < nm; i++)
            best_at(&pw, i, xe, &pw.sigma[i]);
        fixed_part(&pw, pw.sigma, pw.rhs);
        idr_solve(&pw, pw.sigma, pw.rhs, pw.x, 1e-10);
        int ok = idr_solve(&pw, pw.sigma, pw.ones, pw.w, 0.25);
        /* what the solves can reach: a residual of some ulps of the values */
        const double xmax = max_abs(nm, pw.x), reach_floor = 0x1p-45 * xmax, solve_floor = 0x1p-48 * xmax;
        double need = ok ? needed(&pw, eps, o->relative) : 0.0, residual = INFINITY;
        int w_stale = 0; /* sigma has moved since w was solved */
        for (unsigned step = 0; ok; step++) {
            const uint64_t moved = improve(&pw, fmax(need, reach_floor) / 2, &residual);
            w_stale |= moved != 0;
            /* the least need so far (the tighter solve), unless a first poor
             * scheduler left values 0 (need 0) */
            const double now = needed(&pw, eps, o->relative);
            need = need > 0.0 ? fmin(need, now) : now;
            if (residual <= fmax(need, reach_floor) || step == REACH_PI_MAX_STEPS || pw.matvecs >= pw.budget)
                break;
            /* eps asks more of some state than the solves reach (values many
             * orders of magnitude apart, zeroconf's) for a steady scheduler,
             * or, after a step, for one that reaches the targets from every
             * state (need > 0: no zero value left, so not a poor first
             * scheduler's): interval iteration it is */
            if (need < reach_floor && (!moved || (need > 0.0 && step >= 1)))
                break;
            fixed_part(&pw, pw.sigma, pw.rhs);
            idr_solve(&pw, pw.sigma, pw.rhs, pw.x, fmax(need / REACH_PI_NOISE, solve_floor));
            if (st)
                st->steps++;
        }
        ok = ok && need >= reach_floor && residual <= need;
        /* 3. the exit time, steady along the ties, and the certificate */
        if (ok && w_stale)
            ok = idr_solve(&pw, pw.sigma, pw.ones, pw.w, 0.25);
        if (ok) {
            memcpy(pw.tau, pw.sigma, nm * sizeof *pw.tau);
            const double tie = 8.0 * residual * max_abs(nm, pw.w);
            for (unsigned round = 0; round < REACH_PI_MAX_ROUNDS && pw.matvecs < pw.budget; round++) {
                if (!tie_moves(&pw, tie))
                    break;
                if (st)
                    st->rounds++;
                idr_solve(&pw, pw.tau, pw.ones, pw.w, 0.25);
            }
            double rw = -INFINITY;
            const double *we = extend(&pw, pw.ext_zero, pw.w);
            for (uint64_t i = 0; i < nm; i++)
                rw = fmax(rw, 1.0 + choice_sum(&pw, pw.tau[i], we, 0) - pw.w[i]);
            /* the margin d (1 - rw) must exceed each Bellman sum's rounding bound */
            double d = fmax(2.0 * residual, 4.0 * (double)(max_terms(&pw) + 1) * 0x1p-52 * xmax) / (1.0 - rw);
            for (int tries = 0; rw < 1.0 && tries < 3; tries++, d *= 10.0) {
                if (!certificate_holds(&pw, d))
                    continue;
                double diff = 0.0;
                const double top = y->choice_reward ? INFINITY : 1.0;
                for (uint64_t i = 0; i < nm; i++) {
                    l[i] = fmax(l[i], candidate(pw.x[i], pw.w[i], d, -1, top));
                    u[i] = fmax(l[i], fmin(u[i], candidate(pw.x[i], pw.w[i], d, 1, top)));
                    diff = fmax(diff, reach_difference(u[i], l[i], o->relative));
                }
                *difference = diff;
                certified = diff <= eps;
                if (st && d > st->certificate)
                    st->certificate = d;
                break;
            }
        }
        if (st) {
            st->matvecs += pw.matvecs;
            st->certified += certified;
        }
    }
    if (!rc) {
        for (uint64_t i = 0; i < nm; i++) {
            lower[pw.state_of[i]] = l[i];
            upper[pw.state_of[i]] = u[i];
        }
        rc = done || certified ? CSR_OK : CSR_ERR_NOT_CONVERGED;
    }
    pi_free(&pw);
    for (int i = 0; i < 4; i++)
        free(buf[i]);
    return rc;
}
