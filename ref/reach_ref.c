/*
 * reach_ref.c - the sequential references of reachability (reach_ref.h):
 * Prob0/Prob1, interval, optimistic and plain value iteration, step-bounded
 * iteration, and the engine made of them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reach_ref.h"
#include "ref.h"

/* ---- Prob0 / Prob1 -------------------------------------------------------- */

static int is_avoid(const reach_query *q, uint64_t s)
{
    return q->avoid && q->avoid[s] && !q->target[s];
}

void ref_reach_backward_closure(const csr_model *m, const ref_transpose *tr, uint8_t *in, const uint8_t *allowed,
                                int all_choices, const uint8_t *choice_ok, uint32_t *queue, uint8_t *hit,
                                uint64_t *remaining)
{
    const uint64_t n = m->num_states;
    uint64_t head = 0, tail = 0;
    for (uint64_t s = 0; s < n; s++)
        if (in[s])
            queue[tail++] = (uint32_t)s;
    if (all_choices) {
        for (uint64_t s = 0; s < n; s++)
            remaining[s] = m->state_choices[s + 1] - m->state_choices[s];
        memset(hit, 0, m->num_choices);
    }
    while (head < tail) {
        uint32_t t = queue[head++];
        for (uint64_t j = tr->first[t]; j < tr->first[t + 1]; j++) {
            uint64_t k = tr->choice[j], s = tr->owner[k];
            if (in[s] || !allowed[s] || (choice_ok && !choice_ok[k]))
                continue;
            if (all_choices) {
                if (hit[k])
                    continue;
                hit[k] = 1;
                if (--remaining[s] > 0)
                    continue;
            }
            in[s] = 1;
            queue[tail++] = (uint32_t)s;
        }
    }
}

int ref_reach_prob01(const csr_model *m, const reach_query *q, uint8_t *cls)
{
    ref_transpose tr = {0};
    int rc = ref_transpose_build(m, &tr);
    if (!rc)
        rc = ref_reach_prob01_transposed(m, &tr, q, cls);
    ref_transpose_free(&tr);
    return rc;
}

int ref_reach_prob01_transposed(const csr_model *m, const ref_transpose *tr, const reach_query *q, uint8_t *cls)
{
    const uint64_t n = m->num_states, c = m->num_choices;
    int rc = CSR_OK;
    uint8_t *r = calloc(n ? n : 1, 1), *allowed = calloc(n ? n : 1, 1), *u = calloc(n ? n : 1, 1);
    uint8_t *choice_ok = malloc(c ? c : 1), *hit = malloc(c ? c : 1);
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    uint64_t *remaining = malloc((n ? n : 1) * sizeof *remaining);
    if (!r || !allowed || !u || !choice_ok || !hit || !queue || !remaining) {
        rc = CSR_ERR_NOMEM;
        goto out;
    }
    /* States through which probability may flow: not a target (their value is 1),
     * not avoided (0), with at least one choice. */
    for (uint64_t s = 0; s < n; s++)
        allowed[s] = !q->target[s] && !is_avoid(q, s) && m->state_choices[s + 1] > m->state_choices[s];
    memcpy(r, q->target, n);
    if (q->maximize) {
        /* Prob0A: r = states from which some choice sequence reaches a target. */
        ref_reach_backward_closure(m, tr, r, allowed, 0, NULL, queue, hit, remaining);
        /* Prob1E: u = greatest set such that the targets are reached inside u
         * with probability 1 by choices that stay in u (nested fixpoint). */
        memcpy(u, r, n);
        for (;;) {
            for (uint64_t k = 0; k < c; k++) {
                choice_ok[k] = 1;
                for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1]; j++)
                    if (!u[m->targets[j]]) {
                        choice_ok[k] = 0;
                        break;
                    }
            }
            memcpy(cls, q->target, n); /* cls holds the inner fixpoint v */
            ref_reach_backward_closure(m, tr, cls, allowed, 0, choice_ok, queue, hit, remaining);
            int same = 1;
            for (uint64_t s = 0; s < n; s++) {
                uint8_t in = cls[s] && u[s];
                if (in != u[s])
                    same = 0;
                u[s] = in;
            }
            if (same)
                break;
        }
        for (uint64_t s = 0; s < n; s++)
            cls[s] = u[s] ? REACH_YES : r[s] ? REACH_MAYBE : REACH_NO;
    } else {
        /* Prob0E: r = states from which every scheduler reaches a target with
         * positive probability (every choice has a successor in r). */
        ref_reach_backward_closure(m, tr, r, allowed, 1, NULL, queue, hit, remaining);
        /* Prob1A: states from which some scheduler reaches a Prob0E state
         * (one of value 0) have Pmin < 1; the others have Pmin = 1. */
        for (uint64_t s = 0; s < n; s++) {
            u[s] = !r[s];
            allowed[s] = !q->target[s];
        }
        ref_reach_backward_closure(m, tr, u, allowed, 0, NULL, queue, hit, remaining);
        for (uint64_t s = 0; s < n; s++)
            cls[s] = !r[s] ? REACH_NO : !u[s] ? REACH_YES : REACH_MAYBE;
    }
out:
    free(r);
    free(allowed);
    free(u);
    free(choice_ok);
    free(hit);
    free(queue);
    free(remaining);
    return rc;
}


/* ---- iteration ------------------------------------------------------------ */

/* Best value over the choices of s (only those with leaving[k], if given):
 * max or min of sum p * x[target].  -1 if no choice counts. */
static double best_choice(const reach_system *y, uint64_t s, const double *x, const uint8_t *leaving)
{
    double best = -1.0;
    for (uint64_t k = y->state_choices[s]; k < y->state_choices[s + 1]; k++) {
        if (leaving && !leaving[k])
            continue;
        double sum = y->choice_reward ? y->choice_reward[k] : 0.0;
        for (uint64_t j = y->choice_transitions[k]; j < y->choice_transitions[k + 1]; j++)
            sum += y->probabilities[j] * x[y->targets[j]];
        if (best < 0.0 || (y->maximize ? sum > best : sum < best))
            best = sum;
    }
    return best;
}

/*
 * Optimistic value iteration (Hartmanns & Kaminski, CAV 2020) on the CPU,
 * as gpu_reach_iterate runs it (one Gauss-Seidel sweep for an iteration):
 * value iteration from below until no value changes by more than eps_vi,
 * then a guess u = l (1 + eps) (relative) or l + eps (absolute), at most 1
 * for probabilities, and sweeps of both bounds, u = min(u, B(u)); the guess
 * is verified by a sweep in which no state's B(u) exceeds its u (in place,
 * every state decreasing: u is then a pre-fixpoint, above the least
 * fixpoint).  A guess that crosses l, stops changing unverified, or is not
 * verified within as many sweeps as value iteration took (at least 64) is
 * dropped and value iteration goes on with eps_vi halved; after
 * REACH_OVI_MAX_GUESSES guesses it gives up (CSR_ERR_NOT_CONVERGED, the
 * lower bound kept: a guess that rounding alone keeps from being a
 * pre-fixpoint, as in states of zero reward, fails forever).  No MEC quotient:
 * the systems given to it (expected rewards) have a unique fixpoint.  An
 * upper bound never verified is not handed back (upper keeps what it held).
 */
static int ovi_iterate(const reach_system *y, const reach_options *o, double eps, double *lower, double *upper,
                       uint64_t *iterations, double *out_difference)
{
    const uint64_t n = y->num_states;
    const double cap = y->choice_reward ? INFINITY : 1.0;
    double *kept = malloc((n ? n : 1) * sizeof *kept);
    if (!kept)
        return CSR_ERR_NOMEM;
    memcpy(kept, upper, n * sizeof *kept);
    int below = 1, verified = 0, rc = CSR_ERR_NOT_CONVERGED;
    double eps_vi = eps, diff = INFINITY;
    uint64_t it = 0, phase_start = 0, guess_at = 0, guesses = 0;
    while (it < o->max_iterations) {
        it++;
        diff = 0.0;
        int changed = 0, rose = 0, crossed = 0;
        for (uint64_t s = 0; s < n; s++) {
            if (y->fixed[s])
                continue;
            double b = best_choice(y, s, lower, NULL);
            if (below) {
                double d = reach_difference(b, lower[s], o->relative);
                if (d > diff)
                    diff = d;
            }
            if (b > lower[s]) {
                lower[s] = b;
                changed = 1;
            }
        }
        if (below) {
            if (diff <= eps_vi || !changed) {
                if (++guesses > REACH_OVI_MAX_GUESSES)
                    break;
                for (uint64_t s = 0; s < n; s++)
                    if (!y->fixed[s])
                        upper[s] = fmin(cap, o->relative ? lower[s] * (1.0 + eps) : lower[s] + eps);
                below = 0;
                guess_at = it;
            }
            continue;
        }
        for (uint64_t s = 0; s < n; s++) {
            if (y->fixed[s])
                continue;
            double b = best_choice(y, s, upper, NULL), nu = fmin(upper[s], b);
            rose |= b > upper[s];
            if (nu < lower[s]) {
                crossed = 1;
                nu = lower[s];
            }
            if (nu != upper[s]) {
                upper[s] = nu;
                changed = 1;
            }
            double d = reach_difference(nu, lower[s], o->relative);
            if (d > diff)
                diff = d;
        }
        if (!verified) {
            if (!rose && !crossed) {
                verified = 1;
            } else if (reach_ovi_guess_dropped(crossed, changed, it, guess_at, phase_start)) {
                below = 1; /* the guess failed */
                eps_vi /= 2;
                phase_start = it;
                continue;
            }
        }
        if (verified && diff <= eps) {
            rc = CSR_OK;
            break;
        }
        if (!changed) {
            rc = CSR_ERR_STALLED;
            break;
        }
    }
    if (!verified)
        memcpy(upper, kept, n * sizeof *kept);
    free(kept);
    *iterations = it;
    *out_difference = diff;
    return rc;
}

int ref_reach_upper_bounded(const reach_system *y, const double *upper)
{
    for (uint64_t s = 0; s < y->num_states; s++)
        if (!y->fixed[s] && isinf(upper[s]))
            return 0;
    return 1;
}

int ref_reach_iterate(const reach_system *y, const reach_options *o, double eps, double *lower, double *upper,
                      uint64_t *iterations, double *out_difference, void *ctx)
{
    (void)ctx;
    const uint64_t n = y->num_states;
    const int ii = o->method != REACH_VI;
    const int pi_fits = o->max_iterations >= reach_pi_jacobi_limit() && reach_pi_eligible(y, lower, upper);
    uint64_t it = 0;
    *out_difference = INFINITY;
    if (o->method == REACH_PI && pi_fits) {
        int prc = ref_reach_pi(y, o, eps, lower, upper, &it, out_difference);
        if (prc != CSR_ERR_NOT_CONVERGED) {
            *iterations = it;
            return prc;
        }
    }
    /* Expected rewards have no a-priori upper bound: where certified policy
     * iteration found none, optimistic value iteration guesses one; where its
     * guesses fail, policy iteration from its lower bound (if not tried
     * yet) is the method that ends; then interval iteration from the bounds. */
    if (ii && y->choice_reward && !ref_reach_upper_bounded(y, upper)) {
        uint64_t ovi_it = 0;
        int orc = ovi_iterate(y, o, eps, lower, upper, &ovi_it, out_difference);
        it += ovi_it;
        if (orc != CSR_ERR_NOT_CONVERGED || ref_reach_upper_bounded(y, upper)) {
            *iterations = it;
            return orc;
        }
        if (o->method != REACH_PI && pi_fits) {
            uint64_t pi_it = 0;
            int prc = ref_reach_pi(y, o, eps, lower, upper, &pi_it, out_difference);
            it += pi_it;
            if (prc != CSR_ERR_NOT_CONVERGED) {
                *iterations = it;
                return prc;
            }
        }
        if (!ref_reach_upper_bounded(y, upper)) { /* no sound upper bound: the lower one is all there is */
            *iterations = it;
            return CSR_ERR_NOT_CONVERGED;
        }
    }
    double *mec_best = NULL;
    if (ii && y->mec && y->num_mecs) {
        mec_best = malloc(y->num_mecs * sizeof *mec_best);
        if (!mec_best)
            return CSR_ERR_NOMEM;
    }
    double diff = INFINITY;
    int rc = CSR_ERR_NOT_CONVERGED;
    while (it < o->max_iterations) {
        it++;
        diff = 0.0;
        int changed = 0; /* a sweep that changes no bound leaves every later one the same */
        for (uint64_t s = 0; s < n; s++) {
            if (y->fixed[s])
                continue;
            double b = best_choice(y, s, lower, NULL);
            if (ii) {
                if (b > lower[s]) {
                    lower[s] = b;
                    changed = 1;
                }
            } else {
                double d = reach_difference(b, lower[s], o->relative);
                if (d > diff)
                    diff = d;
                changed |= b != lower[s];
                lower[s] = b;
            }
        }
        if (ii) {
            if (mec_best)
                for (uint64_t i = 0; i < y->num_mecs; i++)
                    mec_best[i] = 0.0;
            for (uint64_t s = 0; s < n; s++) {
                if (y->fixed[s])
                    continue;
                if (mec_best && y->mec[s] != REACH_NO_MEC) {
                    double b = best_choice(y, s, upper, y->leaving);
                    if (b > mec_best[y->mec[s]])
                        mec_best[y->mec[s]] = b;
                    continue;
                }
                double b = best_choice(y, s, upper, NULL);
                if (b < upper[s]) {
                    upper[s] = b;
                    changed = 1;
                }
            }
            for (uint64_t s = 0; s < n; s++) {
                if (y->fixed[s])
                    continue;
                if (mec_best && y->mec[s] != REACH_NO_MEC && mec_best[y->mec[s]] < upper[s]) {
                    upper[s] = mec_best[y->mec[s]];
                    changed = 1;
                }
                if (upper[s] < lower[s]) /* rounding only: keep the interval ordered */
                    upper[s] = lower[s];
                double d = reach_difference(upper[s], lower[s], o->relative);
                if (d > diff)
                    diff = d;
            }
        }
        if (diff <= eps) {
            rc = CSR_OK;
            break;
        }
        if (!changed) {
            rc = CSR_ERR_STALLED;
            break;
        }
    }
    free(mec_best);
    *iterations = it;
    *out_difference = diff;
    return rc;
}

/* ---- step-bounded reachability ---------------------------------------------- */

static reach_progress_fn bounded_progress;

void reach_set_bounded_progress(reach_progress_fn fn)
{
    bounded_progress = fn;
}

reach_progress_fn reach_bounded_progress(void)
{
    return bounded_progress;
}

int ref_reach_bounded(const csr_model *m, const reach_query *q, uint64_t steps, double *values)
{
    const uint64_t n = m->num_states;
    double *next = malloc((n ? n : 1) * sizeof *next);
    if (!next)
        return CSR_ERR_NOMEM;
    double *cur = values, *nxt = next; /* swapped each step; the last step's copied to values at the end */
    for (uint64_t s = 0; s < n; s++)
        cur[s] = q->target[s] ? 1.0 : 0.0;
    int changed = 1;
    for (uint64_t i = 0; i < steps && changed; i++) {
        if (bounded_progress && i % 1024 == 1023)
            bounded_progress(i, steps);
        changed = 0; /* a step that changes nothing leaves every later one the same: the values are final */
        for (uint64_t s = 0; s < n; s++) {
            uint64_t kb = m->state_choices[s], ke = m->state_choices[s + 1];
            if (q->target[s] || is_avoid(q, s) || kb == ke) {
                nxt[s] = cur[s];
                continue;
            }
            double best = q->maximize ? 0.0 : 1.0;
            for (uint64_t k = kb; k < ke; k++) {
                double sum = 0.0;
                for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1]; j++)
                    sum += m->probabilities[j] * cur[m->targets[j]];
                best = q->maximize ? fmax(best, sum) : fmin(best, sum);
            }
            nxt[s] = best;
            changed |= best != cur[s];
        }
        double *swap = cur;
        cur = nxt;
        nxt = swap;
    }
    if (cur != values)
        memcpy(values, cur, n * sizeof *values);
    free(next);
    return CSR_OK;
}
