/*
 * reach_gauss_seidel.c - interval iteration in Gauss-Seidel order, states
 * from the last to the first or from the first to the last
 * (reach_internal.h, reach_gauss_seidel): the topological solver's first
 * try at a core (backwards, in the model's order) and its SCCs alone
 * (forwards, in the order states leave Tarjan's stack: ref_scc_tarjan_order).
 *
 * Why backwards: models are numbered as explored, breadth first from the
 * initial states, so a state's successors mostly come after it; sweeping
 * from the last state, most successors hold this sweep's values already, and
 * a value travels back along a path in one sweep, not one step a sweep
 * (Storm's value iteration sweeps backwards too).  zeroconf (N=1000, K=2)
 * Pmin's core of 59,672 states: 39 sweeps backwards, 419 forwards, 444
 * Jacobi iterations.
 *
 * Both bounds are updated in one pass over each state's transitions, in
 * place: a lower bound l <= x* stays one (B is monotone: B(l) <= B(x*) =
 * x*), as does an upper one.  An expected reward without an upper bound yet
 * gets one as optimistic value iteration guesses it (Hartmanns & Kaminski,
 * CAV 2020; as ref/reach_ref.c's ovi_iterate): value iteration from below
 * until no value changes by more than eps_vi, then u = l (1 + eps) (or l +
 * eps), verified by a sweep in which no B(u) exceeds u (in place, every
 * state decreasing: a pre-fixpoint, above the unique fixpoint); a guess
 * that crosses l or is not verified within as many sweeps as value
 * iteration took (at least 64) is dropped, eps_vi halved.
 *
 * It stops after `budget` sweeps, or half of them without a first guess
 * (value iteration creeping: consensus's expected rewards, a first guess
 * after 959 sweeps and none verified by 1,280), with the bounds reached
 * (valid; an upper bound never verified is not handed back), for certified
 * policy iteration to take over.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reach_internal.h"
#include "reach_ref.h"

/* One state's best sums over its choices at l (*bl) and at u (*bu). */
static inline void best_sums(const reach_system *y, uint64_t s, const double *l, const double *u, int both,
                             double *bl, double *bu)
{
    const int max = y->maximize;
    double best_l = 0.0, best_u = 0.0;
    for (uint64_t k = y->state_choices[s]; k < y->state_choices[s + 1]; k++) {
        double ql = y->choice_reward ? y->choice_reward[k] : 0.0, qu = ql;
        const uint64_t je = y->choice_transitions[k + 1];
        if (both) {
            for (uint64_t j = y->choice_transitions[k]; j < je; j++) {
                const double p = y->probabilities[j];
                const uint32_t t = y->targets[j];
                ql += p * l[t];
                qu += p * u[t];
            }
        } else {
            for (uint64_t j = y->choice_transitions[k]; j < je; j++)
                ql += y->probabilities[j] * l[y->targets[j]];
        }
        if (k == y->state_choices[s]) {
            best_l = ql;
            best_u = qu;
        } else {
            if (max ? ql > best_l : ql < best_l)
                best_l = ql;
            if (max ? qu > best_u : qu < best_u)
                best_u = qu;
        }
    }
    *bl = best_l;
    *bu = best_u;
}

int reach_gauss_seidel(const reach_system *y, const reach_options *o, double eps, uint64_t budget, int backwards,
                       double *lower, double *upper, uint64_t *sweeps, double *difference)
{
    const uint64_t n = y->num_states;
    const int relative = o->relative;
    *sweeps = 0;
    *difference = INFINITY;
    /* an expected reward without an upper bound: optimistic value iteration */
    const int guessing = !ref_reach_upper_bounded(y, upper);
    double *kept = NULL;
    if (guessing) {
        if (!(kept = malloc((n ? n : 1) * sizeof *kept)))
            return CSR_ERR_NOMEM;
        memcpy(kept, upper, n * sizeof *kept);
    }
    const double cap = y->choice_reward ? INFINITY : 1.0;
    int below = guessing, verified = !guessing, rc = CSR_ERR_NOT_CONVERGED;
    double eps_vi = eps;
    uint64_t it = 0, phase_start = 0, guess_at = 0, guesses = 0;
    while (it < budget && it < o->max_iterations && !(guessing && guesses == 0 && it >= budget / 2)) {
        it++;
        double diff = 0.0;
        int changed = 0, rose = 0, crossed = 0;
        for (uint64_t i = 0; i < n; i++) {
            const uint64_t s = backwards ? n - 1 - i : i;
            if (y->fixed[s])
                continue;
            double bl, bu;
            best_sums(y, s, lower, upper, !below, &bl, &bu);
            const double ol = lower[s], nl = bl > ol ? bl : ol;
            if (below) {
                const double d = reach_difference(nl, ol, relative);
                if (d > diff)
                    diff = d;
                if (nl != ol) {
                    lower[s] = nl;
                    changed = 1;
                }
                continue;
            }
            const double ou = upper[s];
            double nu = bu < ou ? bu : ou;
            rose |= bu > ou;
            if (nu < nl) { /* rounding, or (guessing) a guess below the lower bound */
                crossed = 1;
                nu = nl;
            }
            changed |= nl != ol || nu != ou;
            lower[s] = nl;
            upper[s] = nu;
            const double d = reach_difference(nu, nl, relative);
            if (d > diff)
                diff = d;
        }
        *difference = diff;
        if (below) {
            if (diff <= eps_vi || !changed) {
                if (++guesses > REACH_OVI_MAX_GUESSES)
                    break;
                for (uint64_t s = 0; s < n; s++)
                    if (!y->fixed[s]) {
                        const double g = relative ? lower[s] * (1.0 + eps) : lower[s] + eps;
                        upper[s] = g < cap ? g : cap;
                    }
                below = 0;
                guess_at = it;
            }
            continue;
        }
        if (!verified) {
            if (!rose && !crossed) {
                verified = 1;
            } else if (reach_ovi_guess_dropped(crossed, changed, it, guess_at, phase_start)) {
                below = 1; /* the guess failed (upper: unread until the next guess overwrites it) */
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
    *sweeps = it;
    return rc;
}
