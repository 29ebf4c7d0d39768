/*
 * reach_epochs.c - reward-bounded reachability epoch by epoch (reach.h,
 * reach_solve_reward_bounded; Hartmanns, Junges, Katoen & Quatmann,
 * "Multi-cost bounded reachability in MDP", TACAS 2018, section 4, for
 * one cost): the epochs are the integer reward levels, each a system whose
 * choices of reward 0 stay in it and whose choices of positive reward are
 * constants from the epochs below, solved by the engine's solver (the GPU's,
 * or the references').
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "reach.h"
#include "reach_internal.h"
#include "reach_ref.h"
#include "ref.h"

/* The largest whole reward the epochs take (a double holds it exactly). */
#define EPOCH_MAX_REWARD 9007199254740992.0 /* 2^53 */

typedef struct epochs {
    const csr_model *m;       /* the system's model: the engine's, or its max-quotient */
    csr_model em;             /* the epoch model: m's states and a sink z = n; positive-reward choices go to z */
    const double *reward;     /* f64[c] of m: each choice's reward, whole */
    uint8_t *base;            /* u8[n + 1]: 0 maybe, 1 fixed at 0, 2 fixed at 1, 3 a quotient's member */
    ref_transpose tr;         /* of em */
    uint8_t *left;            /* [c] a reward-0 choice without a positive successor yet */
    uint32_t *need;           /* [n + 1] min: the state's reward-0 choices not yet positive (UINT32_MAX: never) */
    uint8_t *positive;        /* [n + 1] */
    uint32_t *queue;          /* [n + 1] */
    double **ring;            /* ring[e % slots]: the epoch's values, f64[n] */
    uint64_t slots;
    double *constant;         /* f64[c]: each choice's constant (positive rewards) */
    uint8_t *fixed;           /* [n + 1] */
    double *lower, *upper;    /* [n + 1] */
} epochs;

static void epochs_free(epochs *ep)
{
    for (uint64_t i = 0; ep->ring && i < ep->slots; i++)
        free(ep->ring[i]);
    free(ep->ring);
    ref_transpose_free(&ep->tr);
    void *all[] = {ep->base, ep->left, ep->need, ep->positive, ep->queue, ep->constant, ep->fixed, ep->lower, ep->upper,
                   (void *)ep->em.state_choices, (void *)ep->em.targets};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
}

/* x_e's value of state t (the epochs below 0 are 0). */
static double epoch_value(const epochs *ep, int64_t e, uint32_t t)
{
    return e < 0 ? 0.0 : ep->ring[(uint64_t)e % ep->slots][t];
}

/*
 * The states of epoch e whose value is positive, and the others fixed at 0
 * (the relative rule asks exact zeros): from the states fixed at 1 and the
 * constants above 0, a backward search over the choices of reward 0; a
 * maximiser's state joins through any such choice, a minimiser's when every
 * choice is positive (a constant above 0, or a successor in): without end
 * components of reward-0 choices (collapsed or fixed at 0 before), the
 * least fixpoint is exact.
 */
static void fix_epoch_zeros(epochs *ep, int maximize)
{
    const csr_model *em = &ep->em;
    const uint64_t n1 = em->num_states;
    uint64_t head = 0, tail = 0;
    memset(ep->positive, 0, n1);
    for (uint64_t s = 0; s < n1; s++) {
        int seed = ep->base[s] == 2;
        if (ep->base[s] == 0) {
            uint32_t need = 0; /* min: the reward-0 choices without a positive successor yet */
            for (uint64_t k = em->state_choices[s]; k < em->state_choices[s + 1]; k++) {
                if (ep->reward[k] > 0.0) {
                    if (ep->constant[k] > 0.0)
                        seed |= maximize;
                    else if (!maximize)
                        need = UINT32_MAX; /* a minimiser takes the constant 0 */
                    continue;
                }
                ep->left[k] = 1;
                if (!maximize && need != UINT32_MAX)
                    need++;
            }
            if (!maximize) {
                ep->need[s] = need;
                seed = need == 0;
            }
        }
        if (seed) {
            ep->positive[s] = 1;
            ep->queue[tail++] = (uint32_t)s;
        }
    }
    while (head < tail) {
        const uint32_t v = ep->queue[head++];
        for (uint64_t j = ep->tr.first[v]; j < ep->tr.first[v + 1]; j++) {
            const uint64_t k = ep->tr.choice[j], s = ep->tr.owner[k];
            if (ep->positive[s] || ep->base[s] != 0 || ep->reward[k] > 0.0 || !ep->left[k])
                continue;
            ep->left[k] = 0; /* the choice is positive: a successor is */
            if (!maximize && (ep->need[s] == UINT32_MAX || --ep->need[s] > 0))
                continue;
            ep->positive[s] = 1;
            ep->queue[tail++] = (uint32_t)s;
        }
    }
    for (uint64_t s = 0; s < n1; s++) {
        ep->fixed[s] = ep->base[s] != 0 || !ep->positive[s];
        ep->lower[s] = ep->upper[s] = ep->base[s] == 2 ? 1.0 : 0.0;
        if (!ep->fixed[s])
            ep->upper[s] = 1.0;
    }
}

int reach_solve_reward_bounded(const reach_engine *e, const reach_query *q, const double *state_reward,
                               const double *choice_reward, int at_least, uint64_t bound, const reach_options *o,
                               double *values, reach_stats *st, csr_status *status)
{
    const csr_model *m0 = e->model;
    const uint64_t n = m0->num_states, c0 = m0->num_choices;
    const double t0 = monotonic_seconds();
    if (at_least && bound == 0) /* F^{rew >= 0}: F */
        return reach_solve(e, q, o, values, NULL, NULL, st);
    double *reward = malloc((c0 ? c0 : 1) * sizeof *reward), *qreward = NULL;
    uint8_t *cls = malloc(n ? n : 1);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    csr_model quotient = {0};
    epochs ep;
    memset(&ep, 0, sizeof ep);
    int rc = reward && cls && ids ? CSR_OK : CSR_ERR_NOMEM;
    /* 1. Whole rewards: the epochs are their levels. */
    double rmax = 0.0, rmin = INFINITY;
    for (uint64_t s = 0; !rc && s < n; s++)
        for (uint64_t k = m0->state_choices[s]; k < m0->state_choices[s + 1]; k++) {
            const double r = (state_reward ? state_reward[s] : 0.0) + (choice_reward ? choice_reward[k] : 0.0);
            if (!(r >= 0.0 && r <= EPOCH_MAX_REWARD) || r != floor(r)) {
                rc = csr_fail(status, CSR_ERR_UNSUPPORTED,
                              "a reward bound needs whole rewards; state %llu's choice %llu has %.17g",
                              (unsigned long long)s, (unsigned long long)(k - m0->state_choices[s]), r);
                break;
            }
            reward[k] = r;
            rmax = r > rmax ? r : rmax;
            if (r > 0.0 && r < rmin)
                rmin = r;
        }
    /* 2. The states that are not maybe in every epoch (a target is fixed at
     * 1 below an upper bound, and goes on under a lower one), and the end
     * components of reward-0 choices among the maybe ones: a maximiser's
     * collapsed, a minimiser's fixed at 0 (staying there forever, it never
     * arrives / never pays). */
    for (uint64_t s = 0; !rc && s < n; s++) {
        /* under a lower bound a path goes on through a target, so not through one it must avoid */
        const int target = q->target[s], avoid = q->avoid && q->avoid[s] && (at_least || !target);
        const int choices = m0->state_choices[s + 1] > m0->state_choices[s];
        cls[s] = avoid ? REACH_NO : target && !at_least ? REACH_YES : !choices ? REACH_NO : REACH_MAYBE;
    }
    if (!rc)
        rc = reach_engine_maybe_mecs(e, cls, reward, ids);
    const csr_model *m = m0;
    uint8_t *qfixed = NULL;
    if (!rc && q->maximize) {
        qfixed = malloc(n ? n : 1);
        rc = qfixed ? reach_zero_reward_quotient(m0, cls, ids, reward, &quotient, &qreward, qfixed) : CSR_ERR_NOMEM;
        m = &quotient;
        ep.reward = qreward;
    } else {
        ep.reward = reward;
    }
    const uint64_t c = m->num_choices, t = m->num_transitions, n1 = n + 1;
    ep.m = m;
    /* 3. The epoch model: m's states and a sink z = n of value 0, each
     * positive-reward choice's transitions sent to z (its value is the
     * constant instead). */
    uint64_t *sc1 = NULL;
    uint32_t *tg1 = NULL;
    if (!rc) {
        sc1 = malloc((n1 + 1) * sizeof *sc1);
        tg1 = malloc((t ? t : 1) * sizeof *tg1);
        ep.base = malloc(n1);
        ep.positive = malloc(n1);
        ep.queue = malloc(n1 * sizeof *ep.queue);
        ep.left = malloc(c ? c : 1);
        ep.need = malloc(n1 * sizeof *ep.need);
        ep.constant = calloc(c ? c : 1, sizeof *ep.constant);
        ep.fixed = malloc(n1);
        ep.lower = malloc(n1 * sizeof *ep.lower);
        ep.upper = malloc(n1 * sizeof *ep.upper);
        ep.slots = (uint64_t)(rmax < (double)bound ? rmax : (double)bound) + 1;
        ep.ring = calloc(ep.slots, sizeof *ep.ring);
        if (!sc1 || !tg1 || !ep.base || !ep.positive || !ep.queue || !ep.left || !ep.need || !ep.constant || !ep.fixed ||
            !ep.lower || !ep.upper || !ep.ring)
            rc = CSR_ERR_NOMEM;
        for (uint64_t i = 0; !rc && i < ep.slots; i++)
            if (!(ep.ring[i] = malloc((n ? n : 1) * sizeof **ep.ring)))
                rc = CSR_ERR_NOMEM;
    }
    ep.em.state_choices = sc1;
    ep.em.targets = tg1;
    if (!rc) {
        memcpy(sc1, m->state_choices, (n + 1) * sizeof *sc1);
        sc1[n1] = sc1[n];
        for (uint64_t k = 0; k < c; k++)
            for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1]; j++)
                tg1[j] = ep.reward[k] > 0.0 ? (uint32_t)n : m->targets[j];
        ep.em.model_type = CSR_MDP;
        ep.em.num_states = n1;
        ep.em.num_choices = c;
        ep.em.num_transitions = t;
        ep.em.choice_transitions = m->choice_transitions;
        ep.em.probabilities = m->probabilities;
        for (uint64_t s = 0; s < n; s++)
            ep.base[s] = q->maximize && qfixed[s] && cls[s] == REACH_MAYBE ? 3 /* a member */
                         : cls[s] == REACH_YES                         ? 2
                         : cls[s] == REACH_NO                          ? 1
                         : !q->maximize && ids[s] != REACH_NO_MEC      ? 1
                                                                       : 0;
        ep.base[n] = 1;
        rc = ref_transpose_build(&ep.em, &ep.tr);
    }
    /* 4. The epochs in order, each to eps / E (E: the most positive-reward
     * steps a path takes within the bound): an epoch's constants carry the
     * relative error of those below it, and the solver adds its own, so the
     * last epoch's is at most eps (the system is monotone and positively
     * homogeneous in its constants and targets). */
    const double depth = rmin < INFINITY ? floor((double)bound / rmin) + 1.0 : 1.0;
    reach_options ro = *o;
    ro.epsilon = o->epsilon / depth;
    if (ro.method == REACH_II || ro.method == REACH_OVI)
        ro.method = REACH_II; /* the epochs' values lie in [0, 1]: interval iteration has its upper bound */
    uint64_t iterations = 0;
    double worst = 0.0;
    for (uint64_t epoch = 0; !rc && epoch <= bound; epoch++) {
        double *x = ep.ring[epoch % ep.slots];
        if (at_least && epoch == 0) { /* no reward left to gather: the unbounded query */
            reach_stats s0;
            memset(&s0, 0, sizeof s0);
            rc = reach_solve(e, q, &ro, x, NULL, NULL, &s0);
            iterations += s0.iterations;
            worst = s0.final_difference > worst ? s0.final_difference : worst;
            continue;
        }
        for (uint64_t k = 0; k < c; k++) {
            if (!(ep.reward[k] > 0.0))
                continue;
            const int64_t below = (int64_t)epoch - (int64_t)ep.reward[k];
            const int64_t from = at_least && below < 0 ? 0 : below; /* a lower bound met stays met */
            double sum = 0.0;
            for (uint64_t j = m->choice_transitions[k]; from >= 0 && j < m->choice_transitions[k + 1]; j++)
                sum += m->probabilities[j] * epoch_value(&ep, from, m->targets[j]);
            ep.constant[k] = sum;
        }
        fix_epoch_zeros(&ep, q->maximize);
        reach_stats se;
        memset(&se, 0, sizeof se);
        se.bytes_needed = reach_system_bytes(n1, c, t) + 8 * c;
        double t3;
        rc = reach_solve_whole_or_split(e, &ep.em, ep.fixed, NULL, 0, NULL, q->maximize, ep.constant, &ro, ep.lower,
                                        ep.upper, &se, &t3);
        iterations += se.iterations;
        worst = se.final_difference > worst ? se.final_difference : worst;
        if (rc == CSR_ERR_NOT_CONVERGED || rc == CSR_ERR_STALLED) /* go on: the last epoch says */
            rc = epoch == bound ? rc : CSR_OK;
        for (uint64_t s = 0; s < n; s++)
            x[s] = ep.base[s] == 3 ? 0.0 : 0.5 * (ep.lower[s] + ep.upper[s]);
        for (uint64_t s = 0; s < n && q->maximize; s++) /* a collapsed MEC's members: its value */
            if (ep.base[s] == 3)
                x[s] = x[ids[s]];
        if (epoch == bound) { /* the last epoch's classes: at 1, at 0, solved */
            st->yes = st->no = st->maybe = 0;
            for (uint64_t s = 0; s < n; s++)
                ep.base[s] == 2 ? st->yes++ : ep.fixed[s] ? st->no++ : st->maybe++;
        }
    }
    if (reach_answered(rc))
        memcpy(values, ep.ring[bound % ep.slots], n * sizeof *values);
    st->groups = bound + 1;
    st->iterations = iterations;
    st->final_difference = worst;
    st->method = ro.method;
    st->iterate_s = st->total_s = monotonic_seconds() - t0;
    epochs_free(&ep);
    csr_free(&quotient);
    free(qreward);
    free(qfixed);
    free(reward);
    free(cls);
    free(ids);
    return rc;
}
