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
 * Probabilities guess first where the caller asks (guess_first: the
 * topological solver's cores): value iteration from below sweeps one bound,
 * and a verified guess ends where the upper bound from 1 creeps
 * (consensus.4 K=2, cores of 9,405 and 15,482 states: Pmin 653 -> 559
 * sweeps, Pmax 914 -> 676); the a-priori bound 1 stays where no guess is
 * verified.
 *
 * It stops after `budget` sweeps, or half of them without a first guess
 * (value iteration creeping), with the bounds reached
 * (valid; an upper bound never verified is not handed back), for certified
 * policy iteration to take over.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reach_internal.h"
#include "reach_ref.h"

/* What one sweep found: the largest difference (u - l where `both`, else
 * the change of l), and whether any bound changed, any B(u) exceeded u, any
 * upper bound fell below the lower one. */
typedef struct sweep_result {
    double diff;
    int changed, rose, crossed;
} sweep_result;

/*
 * One sweep over the unfixed states in `order` (u32[m], the sweep's order):
 * each state's best choice sums at l (and at u where `both`), in place.
 * Inlined with `both`, `max` and `rewarded` constant, one loop each of the
 * eight kinds (no tests of the kind per choice).  The largest difference is
 * tracked by a product (d > diff scale); a quotient only where it grows.
 */
static inline __attribute__((always_inline)) void sweep(const reach_system *y, const uint32_t *order, uint64_t m,
                                                        int relative, int both, int max, int rewarded, double *l,
                                                        double *u, sweep_result *r)
{
    const uint64_t *sc = y->state_choices, *ct = y->choice_transitions;
    const uint32_t *tg = y->targets;
    const double *pr = y->probabilities, *rew = y->choice_reward;
    double diff = 0.0;
    int changed = 0, rose = 0, crossed = 0;
    for (uint64_t i = 0; i < m; i++) {
        const uint32_t s = order[i];
        double bl = 0.0, bu = 0.0;
        for (uint64_t k = sc[s], ke = sc[s + 1]; k < ke; k++) {
            double ql = rewarded ? rew[k] : 0.0, qu = ql;
            for (uint64_t j = ct[k], je = ct[k + 1]; j < je; j++) {
                ql += pr[j] * l[tg[j]];
                if (both)
                    qu += pr[j] * u[tg[j]];
            }
            if (k == sc[s]) {
                bl = ql;
                bu = qu;
            } else if (max) {
                bl = ql > bl ? ql : bl;
                bu = qu > bu ? qu : bu;
            } else {
                bl = ql < bl ? ql : bl;
                bu = qu < bu ? qu : bu;
            }
        }
        const double ol = l[s], nl = bl > ol ? bl : ol;
        if (!both) {
            changed |= nl != ol;
            l[s] = nl;
            const double d = nl - ol, scale = relative ? nl : 1.0;
            if (!(d <= diff * scale)) { /* rarely: a new largest change */
                const double e = reach_difference(nl, ol, relative);
                diff = e > diff ? e : diff;
            }
            continue;
        }
        const double ou = u[s];
        double nu = bu < ou ? bu : ou;
        rose |= bu > ou;
        if (nu < nl) { /* rounding, or (guessing) a guess below the lower bound */
            crossed = 1;
            nu = nl;
        }
        changed |= (nl != ol) | (nu != ou);
        l[s] = nl;
        u[s] = nu;
        const double d = nu - nl, scale = relative ? nu : 1.0;
        if (!(d <= diff * scale)) {
            const double e = reach_difference(nu, nl, relative);
            diff = e > diff ? e : diff;
        }
    }
    r->diff = diff;
    r->changed = changed;
    r->rose = rose;
    r->crossed = crossed;
}

static void sweep_of_kind(const reach_system *y, const uint32_t *order, uint64_t m, int relative, int both,
                          double *l, double *u, sweep_result *r)
{
    const int max = y->maximize != 0, rewarded = y->choice_reward != NULL;
    switch (both * 4 + max * 2 + rewarded) {
    case 0: sweep(y, order, m, relative, 0, 0, 0, l, u, r); break;
    case 1: sweep(y, order, m, relative, 0, 0, 1, l, u, r); break;
    case 2: sweep(y, order, m, relative, 0, 1, 0, l, u, r); break;
    case 3: sweep(y, order, m, relative, 0, 1, 1, l, u, r); break;
    case 4: sweep(y, order, m, relative, 1, 0, 0, l, u, r); break;
    case 5: sweep(y, order, m, relative, 1, 0, 1, l, u, r); break;
    case 6: sweep(y, order, m, relative, 1, 1, 0, l, u, r); break;
    default: sweep(y, order, m, relative, 1, 1, 1, l, u, r); break;
    }
}

int reach_gauss_seidel(const reach_system *y, const reach_options *o, double eps, uint64_t budget, int backwards,
                       int guess_first, double *lower, double *upper, uint64_t *sweeps, double *difference)
{
    const uint64_t n = y->num_states;
    const int relative = o->relative;
    *sweeps = 0;
    *difference = INFINITY;
    /* an expected reward without an upper bound, or guesses asked for: optimistic value iteration */
    const int guessing = guess_first || !ref_reach_upper_bounded(y, upper);
    /* the unfixed states in the sweep's order */
    uint64_t m = 0;
    for (uint64_t s = 0; s < n; s++)
        m += !y->fixed[s];
    uint32_t *order = malloc((m ? m : 1) * sizeof *order);
    double *kept = NULL;
    if (!order || (guessing && !(kept = malloc((n ? n : 1) * sizeof *kept)))) {
        free(order);
        return CSR_ERR_NOMEM;
    }
    if (guessing)
        memcpy(kept, upper, n * sizeof *kept);
    for (uint64_t i = 0, j = 0; i < n; i++) {
        const uint64_t s = backwards ? n - 1 - i : i;
        if (!y->fixed[s])
            order[j++] = (uint32_t)s;
    }
    const double cap = y->choice_reward ? INFINITY : 1.0;
    int below = guessing, verified = !guessing, rc = CSR_ERR_NOT_CONVERGED;
    double eps_vi = eps;
    uint64_t it = 0, phase_start = 0, guess_at = 0, guesses = 0;
    while (it < budget && it < o->max_iterations && !(guessing && guesses == 0 && it >= budget / 2)) {
        it++;
        sweep_result r;
        sweep_of_kind(y, order, m, relative, !below, lower, upper, &r);
        const double diff = r.diff;
        const int changed = r.changed, rose = r.rose, crossed = r.crossed;
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
    free(order);
    *sweeps = it;
    return rc;
}
