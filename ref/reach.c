/*
 * reach.c - Prob0/Prob1, the MEC quotient, the SCC split and the sequential
 * interval / value iteration of reach.h (gpu-vi's --cpu reference).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "hugepages.h"
#include "parallel.h"
#include "reach.h"
#include "ref.h"

void reach_default_options(reach_options *o)
{
    o->method = REACH_II;
    o->relative = 1;
    o->epsilon = REACH_DEFAULT_EPSILON;
    o->max_iterations = REACH_DEFAULT_MAX_ITERATIONS;
    o->pi_stats = NULL;
}

/* ---- Prob0 / Prob1 -------------------------------------------------------- */

static int is_avoid(const reach_query *q, uint64_t s)
{
    return q->avoid && q->avoid[s] && !q->target[s];
}

/* Backward closure of in[] (1 = in the set, grown in place) through states
 * with allowed(s): s joins when one of its choices (any choice, if
 * all_choices is 0; every choice, if 1) has a transition into the set, or,
 * with in_u, when a choice with in_u[k] does.  queue: u32[n]. */
static void backward_closure(const csr_model *m, const ref_transpose *tr, uint8_t *in, const uint8_t *allowed,
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
    const uint64_t n = m->num_states, c = m->num_choices;
    ref_transpose tr = {0};
    int rc = ref_transpose_build(m, &tr);
    if (rc)
        return rc;
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
        backward_closure(m, &tr, r, allowed, 0, NULL, queue, hit, remaining);
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
            backward_closure(m, &tr, cls, allowed, 0, choice_ok, queue, hit, remaining);
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
        backward_closure(m, &tr, r, allowed, 1, NULL, queue, hit, remaining);
        /* Prob1A: states from which some scheduler reaches a Prob0E state
         * (one of value 0) have Pmin < 1; the others have Pmin = 1. */
        for (uint64_t s = 0; s < n; s++) {
            u[s] = !r[s];
            allowed[s] = !q->target[s];
        }
        backward_closure(m, &tr, u, allowed, 0, NULL, queue, hit, remaining);
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
    ref_transpose_free(&tr);
    return rc;
}

void reach_count_classes(uint64_t n, const uint8_t *cls, reach_stats *st)
{
    st->yes = st->no = st->maybe = 0;
    for (uint64_t s = 0; s < n; s++)
        cls[s] == REACH_YES ? st->yes++ : cls[s] == REACH_NO ? st->no++ : st->maybe++;
}

/* ---- MECs of the maybe states -------------------------------------------- */

/* One task of reach_maybe_graph or reach_mec_arrays: the states [first, last). */
typedef struct maybe_task {
    const csr_model *m;
    const uint8_t *cls;
    const double *choice_reward;
    const uint64_t *mec;
    uint64_t first, last;
    uint64_t c, t;     /* maybe graph: counted (pass 0), then where the task's choices and transitions start */
    uint64_t mecs, in; /* MEC arrays: representatives counted, then the task's first dense id; states in MECs */
    int pass;
    uint64_t *sc, *ct;
    uint32_t *tg, *mec32;
    uint8_t *leaving;
} maybe_task;

/* Whether choice c (of a maybe state) is kept in the maybe graph: every successor a maybe state, no reward. */
static int maybe_choice_kept(const maybe_task *k, uint64_t c)
{
    const csr_model *m = k->m;
    if (k->choice_reward && k->choice_reward[c] != 0.0)
        return 0;
    for (uint64_t j = m->choice_transitions[c]; j < m->choice_transitions[c + 1]; j++)
        if (k->cls[m->targets[j]] != REACH_MAYBE)
            return 0;
    return 1;
}

static void *maybe_graph_task(void *arg)
{
    maybe_task *k = arg;
    const csr_model *m = k->m;
    uint64_t c = k->c, t = k->t;
    for (uint64_t s = k->first; s < k->last; s++) {
        if (k->pass)
            k->sc[s] = c;
        if (k->cls[s] != REACH_MAYBE)
            continue;
        for (uint64_t x = m->state_choices[s]; x < m->state_choices[s + 1]; x++) {
            if (!maybe_choice_kept(k, x))
                continue;
            const uint64_t b = m->choice_transitions[x], e = m->choice_transitions[x + 1];
            if (k->pass) {
                memcpy(k->tg + t, m->targets + b, (e - b) * sizeof *k->tg);
                k->ct[c + 1] = t + (e - b);
            }
            c++;
            t += e - b;
        }
    }
    k->c = c;
    k->t = t;
    return NULL;
}

/* Up to PARALLEL_MAX_TASKS tasks over the model's states, about `grain`
 * states or more each; returns their number. */
static unsigned state_tasks(const csr_model *m, maybe_task *task, uint64_t grain)
{
    const uint64_t n = m->num_states;
    const unsigned count = parallel_tasks(n, parallel_grain(grain));
    for (unsigned i = 0; i < count; i++) {
        memset(&task[i], 0, sizeof task[i]);
        task[i].m = m;
        task[i].first = n * i / count;
        task[i].last = n * (i + 1) / count;
    }
    return count;
}

int reach_maybe_graph(const csr_model *m, const uint8_t *cls, const double *choice_reward, csr_model *sub)
{
    const uint64_t n = m->num_states;
    memset(sub, 0, sizeof *sub);
    maybe_task task[PARALLEL_MAX_TASKS];
    const unsigned count = state_tasks(m, task, 1u << 16);
    for (unsigned i = 0; i < count; i++) {
        task[i].cls = cls;
        task[i].choice_reward = choice_reward;
    }
    /* Count the kept choices and transitions of each task's states. */
    parallel_run(maybe_graph_task, task, sizeof task[0], count);
    uint64_t c = 0, t = 0;
    for (unsigned i = 0; i < count; i++) {
        uint64_t tc = task[i].c, tt = task[i].t;
        task[i].c = c;
        task[i].t = t;
        task[i].pass = 1;
        c += tc;
        t += tt;
    }
    uint64_t *sc = malloc((n + 1) * sizeof *sc), *ct = malloc((c + 1) * sizeof *ct);
    uint32_t *tg = malloc((t ? t : 1) * sizeof *tg);
    if (!sc || !ct || !tg) {
        free(sc);
        free(ct);
        free(tg);
        return CSR_ERR_NOMEM;
    }
    /* fresh memory faulted in 2 MiB at a time (the tasks fill it at once) */
    advise_huge_pages(sc, (n + 1) * sizeof *sc);
    advise_huge_pages(ct, (c + 1) * sizeof *ct);
    advise_huge_pages(tg, (t ? t : 1) * sizeof *tg);
    ct[0] = 0;
    for (unsigned i = 0; i < count; i++) {
        task[i].sc = sc;
        task[i].ct = ct;
        task[i].tg = tg;
    }
    parallel_run(maybe_graph_task, task, sizeof task[0], count);
    sc[n] = c;
    sub->model_type = CSR_MDP;
    sub->num_states = n;
    sub->num_choices = c;
    sub->num_transitions = t;
    sub->state_choices = sc;
    sub->choice_transitions = ct;
    sub->targets = tg;
    sub->owned[0] = sc;
    sub->owned[1] = ct;
    sub->owned[2] = tg;
    sub->num_owned = 3;
    return CSR_OK;
}

/* Pass 0: count the representatives (mec[s] == s); 1: dense ids for them
 * and REACH_NO_MEC outside MECs; 2: the other members take their
 * representative's (smaller: assigned in pass 1); 3: the leaving flags. */
static void *mec_arrays_task(void *arg)
{
    maybe_task *k = arg;
    const csr_model *m = k->m;
    const uint64_t *mec = k->mec;
    uint32_t *mec32 = k->mec32;
    uint64_t id = k->mecs;
    for (uint64_t s = k->first; s < k->last; s++) {
        switch (k->pass) {
        case 0: k->mecs += mec[s] == s; break;
        case 1:
            if (mec[s] == REF_NONE)
                mec32[s] = REACH_NO_MEC;
            else if (mec[s] == s)
                mec32[s] = (uint32_t)id++;
            break;
        case 2:
            if (mec[s] != REF_NONE) {
                k->in++;
                if (mec[s] != s)
                    mec32[s] = mec32[mec[s]];
            }
            break;
        default:
            for (uint64_t x = m->state_choices[s]; x < m->state_choices[s + 1]; x++) {
                uint8_t leaves = mec32[s] == REACH_NO_MEC;
                for (uint64_t j = m->choice_transitions[x]; !leaves && j < m->choice_transitions[x + 1]; j++)
                    leaves = mec32[m->targets[j]] != mec32[s];
                k->leaving[x] = leaves;
            }
        }
    }
    return NULL;
}

uint64_t reach_mec_arrays(const csr_model *m, const uint64_t *mec, uint32_t *mec32, uint8_t *leaving,
                          uint64_t *states)
{
    maybe_task task[PARALLEL_MAX_TASKS];
    const unsigned count = state_tasks(m, task, 1u << 16);
    for (unsigned i = 0; i < count; i++) {
        task[i].mec = mec;
        task[i].mec32 = mec32;
        task[i].leaving = leaving;
    }
    uint64_t mecs = 0, in = 0;
    for (int pass = 0; pass < 4; pass++) {
        if (pass == 1) /* dense ids in order of smallest state */
            for (unsigned i = 0; i < count; i++) {
                uint64_t here = task[i].mecs;
                task[i].mecs = mecs;
                mecs += here;
            }
        for (unsigned i = 0; i < count; i++)
            task[i].pass = pass;
        parallel_run(mec_arrays_task, task, sizeof task[0], count);
    }
    for (unsigned i = 0; i < count; i++)
        in += task[i].in;
    if (states)
        *states = in;
    return mecs;
}

void reach_initial_bounds(uint64_t n, const uint8_t *cls, double *lower, double *upper)
{
    for (uint64_t s = 0; s < n; s++) {
        lower[s] = cls[s] == REACH_YES ? 1.0 : 0.0;
        upper[s] = cls[s] == REACH_NO ? 0.0 : 1.0;
    }
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
 * dropped and value iteration goes on with eps_vi halved.  No MEC quotient:
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
    uint64_t it = 0, phase_start = 0, guess_at = 0;
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
            } else if (crossed || !changed ||
                       it - guess_at > (guess_at - phase_start > 64 ? guess_at - phase_start : 64)) {
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

int ref_reach_iterate(const reach_system *y, const reach_options *o, double eps, double *lower, double *upper,
                      uint64_t *iterations, double *out_difference)
{
    if (y->choice_reward && o->method != REACH_VI)
        return ovi_iterate(y, o, eps, lower, upper, iterations, out_difference);
    const uint64_t n = y->num_states;
    const int ii = o->method != REACH_VI;
    uint64_t it = 0;
    if (o->method == REACH_PI && o->max_iterations >= reach_pi_jacobi_limit() && reach_pi_eligible(y, lower, upper)) {
        int prc = ref_reach_pi(y, o, eps, lower, upper, &it, out_difference);
        if (prc != CSR_ERR_NOT_CONVERGED) {
            *iterations = it;
            return prc;
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

void reach_answer(uint64_t n, int method, const double *lower, const double *upper, double *values)
{
    for (uint64_t s = 0; s < n; s++)
        values[s] = method != REACH_VI ? 0.5 * (lower[s] + upper[s]) : lower[s];
}

/* ---- the split into groups of SCCs (Berger 2014, section 3.3) -------------- */

uint64_t reach_system_bytes(uint64_t n, uint64_t c, uint64_t t)
{
    /* targets 4t + probabilities 8t; choice offsets 8c + leaving flags c;
     * state offsets 8n, lower and upper 16n, fixed 1n, MEC 4n + MEC maxima 16n
     * (at most one MEC per state, two buffers), maybe list 4n, differences 8n,
     * and 1 MB for CUB's temporary storage and the flags. */
    return 12 * t + 9 * c + 57 * n + (1u << 20);
}

typedef struct scc_info {
    uint64_t states, choices, transitions, leaving; /* leaving: transitions out of the SCC */
} scc_info;

/* Group g's system: its members (in the model's order) as local states
 * [0, count), then the successors outside it as fixed states. */
static int build_group(const csr_model *m, const uint32_t *members, uint64_t count, const double *lower,
                       const double *upper, const uint32_t *mec32, uint64_t num_mecs, const uint8_t *leaving,
                       int maximize, const double *choice_reward, uint32_t *local_of, reach_system *y,
                       uint32_t **states_out, double **l_out, double **u_out, void **owned)
{
    uint64_t c = 0, t = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t s = members[i];
        c += m->state_choices[s + 1] - m->state_choices[s];
        t += m->choice_transitions[m->state_choices[s + 1]] - m->choice_transitions[m->state_choices[s]];
    }
    uint64_t cap = count + t;
    uint32_t *states = malloc((cap ? cap : 1) * sizeof *states);
    uint64_t *sc = malloc((cap + 1) * sizeof *sc), *ct = malloc((c + 1) * sizeof *ct);
    uint32_t *tg = malloc((t ? t : 1) * sizeof *tg), *mec = mec32 ? malloc((cap ? cap : 1) * sizeof *mec) : NULL;
    double *pr = malloc((t ? t : 1) * sizeof *pr);
    double *l = malloc((cap ? cap : 1) * sizeof *l), *u = malloc((cap ? cap : 1) * sizeof *u);
    uint8_t *fixed = malloc(cap ? cap : 1), *lv = leaving ? malloc(c ? c : 1) : NULL;
    double *rw = choice_reward ? malloc((c ? c : 1) * sizeof *rw) : NULL;
    void *all[] = {states, sc, ct, tg, mec, pr, l, u, fixed, lv, rw};
    for (int i = 0; i < 11; i++)
        owned[i] = all[i];
    if (!states || !sc || !ct || !tg || (mec32 && !mec) || !pr || !l || !u || !fixed || (leaving && !lv) ||
        (choice_reward && !rw))
        return CSR_ERR_NOMEM;
    uint64_t nl = count;
    for (uint64_t i = 0; i < count; i++) {
        states[i] = members[i];
        local_of[members[i]] = (uint32_t)i;
    }
    c = t = 0;
    ct[0] = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t s = members[i];
        sc[i] = c;
        for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++) {
            for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1]; j++) {
                uint32_t v = m->targets[j];
                if (local_of[v] == UINT32_MAX) {
                    local_of[v] = (uint32_t)nl;
                    states[nl++] = v;
                }
                tg[t] = local_of[v];
                pr[t++] = m->probabilities[j];
            }
            if (lv)
                lv[c] = leaving[k];
            if (rw)
                rw[c] = choice_reward[k];
            ct[++c] = t;
        }
    }
    for (uint64_t i = count; i <= nl; i++)
        sc[i] = c;
    for (uint64_t i = 0; i < nl; i++) {
        uint32_t s = states[i];
        fixed[i] = i >= count;
        l[i] = lower[s];
        u[i] = upper[s];
        if (mec)
            mec[i] = i < count ? mec32[s] : REACH_NO_MEC;
        local_of[s] = UINT32_MAX;
    }
    reach_system g = {nl, c, t, sc, ct, tg, pr, fixed, mec, lv, num_mecs, maximize, rw};
    *y = g;
    *states_out = states;
    *l_out = l;
    *u_out = u;
    return CSR_OK;
}

int reach_solve_split(const csr_model *m, const uint8_t *cls, const uint64_t *scc, uint64_t budget,
                      const uint32_t *mec32, uint64_t num_mecs, const uint8_t *leaving, int maximize,
                      const double *choice_reward, const reach_options *o, reach_solver solve, void *ctx,
                      double *lower, double *upper, reach_stats *st)
{
    const uint64_t n = m->num_states;
    uint32_t *sidx = malloc((n ? n : 1) * sizeof *sidx), *local_of = malloc((n ? n : 1) * sizeof *local_of);
    uint32_t *group_of_scc = NULL, *rlist = NULL, *order = NULL, *members = NULL;
    uint64_t *rfirst = NULL, *outdeg = NULL, *gfirst = NULL;
    uint8_t *on_cpu = NULL;
    scc_info *info = NULL;
    int rc = sidx && local_of ? CSR_OK : CSR_ERR_NOMEM;
    uint64_t K = 0, E = 0, G = 0;
    if (rc)
        goto out;
    /* 1. Dense ids of the SCCs of maybe states (in order of smallest state). */
    for (uint64_t s = 0; s < n; s++) {
        local_of[s] = UINT32_MAX;
        sidx[s] = UINT32_MAX;
    }
    for (uint64_t s = 0; s < n; s++) { /* local_of maps an SCC's smallest state to its id, for now */
        if (cls[s] != REACH_MAYBE)
            continue;
        if (local_of[scc[s]] == UINT32_MAX)
            local_of[scc[s]] = (uint32_t)K++;
        sidx[s] = local_of[scc[s]];
    }
    for (uint64_t s = 0; s < n; s++)
        local_of[s] = UINT32_MAX;
    /* 2. Sizes, and the edges of the condensation between maybe states. */
    info = calloc(K ? K : 1, sizeof *info);
    outdeg = calloc(K ? K : 1, sizeof *outdeg);
    rfirst = calloc(K + 1, sizeof *rfirst);
    if (!info || !outdeg || !rfirst) {
        rc = CSR_ERR_NOMEM;
        goto out;
    }
    for (uint64_t s = 0; s < n; s++) {
        if (sidx[s] == UINT32_MAX)
            continue;
        scc_info *x = &info[sidx[s]];
        x->states++;
        for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++) {
            x->choices++;
            for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1]; j++) {
                uint32_t v = m->targets[j];
                x->transitions++;
                if (sidx[v] != sidx[s])
                    x->leaving++;
                if (sidx[v] != UINT32_MAX && sidx[v] != sidx[s]) {
                    outdeg[sidx[s]]++;
                    rfirst[sidx[v] + 1]++;
                    E++;
                }
            }
        }
    }
    for (uint64_t x = 0; x < K; x++)
        rfirst[x + 1] += rfirst[x];
    rlist = malloc((E ? E : 1) * sizeof *rlist);
    order = malloc((K ? K : 1) * sizeof *order);
    group_of_scc = malloc((K ? K : 1) * sizeof *group_of_scc);
    on_cpu = calloc(K ? K : 1, 1);
    if (!rlist || !order || !group_of_scc || !on_cpu) {
        rc = CSR_ERR_NOMEM;
        goto out;
    }
    {
        uint64_t *fill = malloc((K ? K : 1) * sizeof *fill);
        if (!fill) {
            rc = CSR_ERR_NOMEM;
            goto out;
        }
        memcpy(fill, rfirst, K * sizeof *fill);
        for (uint64_t s = 0; s < n; s++) {
            if (sidx[s] == UINT32_MAX)
                continue;
            for (uint64_t j = m->choice_transitions[m->state_choices[s]];
                 j < m->choice_transitions[m->state_choices[s + 1]]; j++) {
                uint32_t v = m->targets[j];
                if (sidx[v] != UINT32_MAX && sidx[v] != sidx[s])
                    rlist[fill[sidx[v]]++] = sidx[s];
            }
        }
        free(fill);
    }
    /* 3. Kahn's algorithm: an SCC is ready when every SCC it reaches is placed. */
    uint64_t head = 0, tail = 0;
    for (uint64_t x = 0; x < K; x++)
        if (!outdeg[x])
            order[tail++] = (uint32_t)x;
    while (head < tail) {
        uint32_t x = order[head++];
        for (uint64_t j = rfirst[x]; j < rfirst[x + 1]; j++)
            if (--outdeg[rlist[j]] == 0)
                order[tail++] = rlist[j];
    }
    if (tail != K) { /* cannot happen for a true SCC decomposition */
        rc = csr_fail(NULL, CSR_ERR_USAGE, "not an SCC decomposition");
        goto out;
    }
    /* 4. Greedy groups along the order (Berger's maximum fit). */
    {
        uint64_t gs = 0, gc = 0, gt = 0, gl = 0;
        for (uint64_t i = 0; i < K; i++) {
            const scc_info *x = &info[order[i]];
            int alone = reach_system_bytes(x->states + x->leaving, x->choices, x->transitions) > budget;
            int fits = reach_system_bytes(gs + x->states + gl + x->leaving, gc + x->choices, gt + x->transitions) <=
                       budget;
            if (G == 0 || alone || !fits || on_cpu[G - 1]) {
                G++;
                gs = gc = gt = gl = 0;
            }
            gs += x->states;
            gc += x->choices;
            gt += x->transitions;
            gl += x->leaving;
            group_of_scc[order[i]] = (uint32_t)(G - 1);
            if (alone)
                on_cpu[G - 1] = 1;
        }
    }
    /* 5. Members of each group in the model's order (counting sort). */
    gfirst = calloc(G + 1, sizeof *gfirst);
    members = malloc((st->maybe ? st->maybe : 1) * sizeof *members);
    if (!gfirst || !members) {
        rc = CSR_ERR_NOMEM;
        goto out;
    }
    for (uint64_t s = 0; s < n; s++)
        if (sidx[s] != UINT32_MAX)
            gfirst[group_of_scc[sidx[s]] + 1]++;
    for (uint64_t g = 0; g < G; g++)
        gfirst[g + 1] += gfirst[g];
    {
        uint64_t *fill = malloc((G ? G : 1) * sizeof *fill);
        if (!fill) {
            rc = CSR_ERR_NOMEM;
            goto out;
        }
        memcpy(fill, gfirst, G * sizeof *fill);
        for (uint64_t s = 0; s < n; s++)
            if (sidx[s] != UINT32_MAX)
                members[fill[group_of_scc[sidx[s]]]++] = (uint32_t)s;
        free(fill);
    }
    st->sccs = K;
    st->groups = G;
    st->cpu_groups = 0;
    st->iterations = 0;
    st->final_difference = 0.0;
    /* 6. Solve the groups in order; group g stops at epsilon * (g + 1) / G. */
    for (uint64_t g = 0; g < G && !rc; g++) {
        reach_system y;
        uint32_t *states = NULL;
        double *l = NULL, *u = NULL;
        void *owned[11] = {0};
        uint64_t count = gfirst[g + 1] - gfirst[g];
        rc = build_group(m, members + gfirst[g], count, lower, upper, mec32, num_mecs, leaving, maximize,
                         choice_reward, local_of, &y, &states, &l, &u, owned);
        uint64_t its = 0;
        double diff = 0.0, eps = o->epsilon * (double)(g + 1) / (double)G;
        if (!rc) {
            on_cpu[g] = on_cpu[g] || !solve;
            if (on_cpu[g])
                st->cpu_groups++;
            rc = on_cpu[g] ? ref_reach_iterate(&y, o, eps, l, u, &its, &diff)
                           : solve(&y, o, eps, l, u, &its, &diff, ctx);
            st->iterations += its;
            if (diff > st->final_difference)
                st->final_difference = diff;
            for (uint64_t i = 0; i < count; i++) {
                lower[states[i]] = l[i];
                upper[states[i]] = u[i];
            }
        }
        for (int i = 0; i < 11; i++)
            free(owned[i]);
    }
out:
    free(sidx);
    free(local_of);
    free(group_of_scc);
    free(rlist);
    free(order);
    free(members);
    free(rfirst);
    free(outdeg);
    free(gfirst);
    free(on_cpu);
    free(info);
    return rc;
}

/* ---- the whole query ---------------------------------------------------------- */

/* The phases' seconds from their boundaries: Prob0/Prob1 [t0, t1), MECs
 * [t1, t2), SCCs of the split [t2, t3), iteration [t3, t4). */
static void phase_seconds(reach_stats *st, double t0, double t1, double t2, double t3, double t4)
{
    st->prob01_s = t1 - t0;
    st->mec_s = t2 - t1;
    st->split_s = t3 - t2;
    st->iterate_s = t4 - t3;
    st->total_s = t4 - t0;
}

/* The system of model m (fixed[s]: kept, 0: solved; MECs and rewards as
 * reach_system) solved whole when st->bytes_needed fits in budget, else split
 * into groups of SCCs (reach_solve_split); *t3: when the SCCs were found. */
static int solve_whole_or_split(const csr_model *m, const uint8_t *fixed, const uint32_t *mec32, uint64_t num_mecs,
                                const uint8_t *leaving, int maximize, const double *reward, const reach_options *o,
                                uint64_t budget, const reach_backend *b, double *lower, double *upper, reach_stats *st,
                                double *t3)
{
    const uint64_t n = m->num_states;
    if (st->bytes_needed <= budget) {
        reach_system y = {n,     m->num_choices, m->num_transitions, m->state_choices, m->choice_transitions,
                          m->targets, m->probabilities, fixed, mec32, leaving, num_mecs, maximize, reward};
        st->groups = 1;
        st->split = 0;
        return b->solve ? b->solve(&y, o, o->epsilon, lower, upper, &st->iterations, &st->final_difference, b->ctx)
                        : ref_reach_iterate(&y, o, o->epsilon, lower, upper, &st->iterations, &st->final_difference);
    }
    st->split = 1;
    uint64_t *scc = malloc((n ? n : 1) * sizeof *scc);
    ref_scc_stats ss;
    int rc = !scc      ? CSR_ERR_NOMEM
             : b->sccs ? b->sccs(m, budget, scc, b->ctx)
                       : ref_scc_tarjan(m, NULL, NULL, scc, &ss);
    *t3 = monotonic_seconds();
    if (!rc)
        rc = reach_solve_split(m, fixed, scc, budget, mec32, num_mecs, leaving, maximize, reward, o, b->solve, b->ctx,
                               lower, upper, st);
    free(scc);
    return rc;
}

int reach_solve(const csr_model *m, const reach_query *q, const reach_options *o, uint64_t budget,
                const reach_backend *b, double *values, reach_stats *st)
{
    static const reach_backend cpu = {0};
    if (!b)
        b = &cpu;
    const uint64_t n = m->num_states, c = m->num_choices;
    uint8_t *cls = malloc(n ? n : 1), *leaving = NULL;
    uint32_t *mec32 = NULL;
    uint64_t *ids = NULL; /* MEC ids of the maybe graph, then SCC ids */
    double *lower = malloc((n ? n : 1) * sizeof *lower), *upper = malloc((n ? n : 1) * sizeof *upper);
    int rc = cls && lower && upper ? CSR_OK : CSR_ERR_NOMEM;
    if (!rc) { /* first touched below: 512 times fewer page faults (coin6_4: 24 ms of them for the bounds) */
        advise_huge_pages(cls, n);
        advise_huge_pages(lower, n * sizeof *lower);
        advise_huge_pages(upper, n * sizeof *upper);
    }
    double t0 = monotonic_seconds(), t1 = t0, t2 = t0, t3 = t0;
    /* Pmax by interval iteration on an MDP: the MECs of the maybe states */
    const int want_mecs = q->maximize && o->method != REACH_VI && m->model_type == CSR_MDP;
    int have_mecs = 0; /* ids hold them (from prob01_mecs) */
    if (!rc && want_mecs) {
        ids = malloc((n ? n : 1) * sizeof *ids);
        mec32 = malloc((n ? n : 1) * sizeof *mec32);
        leaving = malloc(c ? c : 1);
        if (ids && mec32 && leaving) {
            advise_huge_pages(ids, n * sizeof *ids);
            advise_huge_pages(mec32, n * sizeof *mec32);
            advise_huge_pages(leaving, c);
        } else {
            rc = CSR_ERR_NOMEM;
        }
    }
    if (!rc && want_mecs && b->prob01_mecs) {
        rc = b->prob01_mecs(m, q, cls, ids, b->ctx);
        have_mecs = rc == CSR_OK;
        if (rc == CSR_ERR_NOMEM) /* the backend cannot take it: the two steps apart */
            rc = CSR_OK;
    }
    if (!rc && !have_mecs)
        rc = b->prob01 ? b->prob01(m, q, cls, b->prob01_ctx ? b->prob01_ctx : b->ctx) : ref_reach_prob01(m, q, cls);
    if (!rc)
        reach_count_classes(n, cls, st);
    t1 = monotonic_seconds();
    if (!rc && want_mecs && st->maybe) {
        if (!have_mecs) {
            csr_model sub;
            rc = reach_maybe_graph(m, cls, NULL, &sub);
            if (!rc) {
                ref_mec_stats ms;
                rc = b->mecs ? b->mecs(&sub, ids, b->ctx) : ref_mec_basic(&sub, ids, &ms);
                csr_free(&sub);
            }
        }
        if (!rc)
            st->mecs = reach_mec_arrays(m, ids, mec32, leaving, &st->mec_states);
    }
    t2 = t3 = monotonic_seconds();
    st->bytes_needed = reach_system_bytes(n, c, m->num_transitions);
    if (!rc) {
        reach_initial_bounds(n, cls, lower, upper);
        /* cls doubles as the fixed flags: REACH_MAYBE is 0 */
        rc = solve_whole_or_split(m, cls, mec32, st->mecs, leaving, q->maximize, NULL, o, budget, b, lower, upper, st,
                                  &t3);
        if (rc == CSR_OK || rc == CSR_ERR_NOT_CONVERGED || rc == CSR_ERR_STALLED)
            reach_answer(n, o->method, lower, upper, values);
    }
    phase_seconds(st, t0, t1, t2, t3, monotonic_seconds());
    free(cls);
    free(leaving);
    free(mec32);
    free(ids);
    free(lower);
    free(upper);
    return rc;
}

/* ---- expected reachability rewards ------------------------------------------ */

/*
 * The quotient of Rmin's system by its zero-reward MECs: each MEC (ids[s] =
 * its smallest state, REF_NONE outside MECs) becomes its smallest state,
 * which takes every choice of its members except the zero-reward choices
 * that stay inside (those would let a scheduler stay forever at no cost:
 * the least fixpoint from 0 would be 0, the value is not); every transition
 * into a member goes to that state; the other members keep no choice and
 * are fixed (the caller copies the value back).  q's arrays are its own
 * (csr_free); reward f64[qc]; fixed u8[n] from cls.
 */
static int zero_reward_quotient(const csr_model *m, const uint8_t *cls, const uint64_t *ids, const double *reward,
                                csr_model *q, double **reward_out, uint8_t *fixed)
{
    const uint64_t n = m->num_states;
    memset(q, 0, sizeof *q);
    /* next_member[u]: the next state of u's MEC in increasing order (the
     * representative, the smallest, first), UINT32_MAX after the last */
    uint32_t *next_member = malloc((n ? n : 1) * sizeof *next_member), *last = malloc((n ? n : 1) * sizeof *last);
    if (!next_member || !last) {
        free(next_member);
        free(last);
        return CSR_ERR_NOMEM;
    }
    for (uint64_t u = 0; u < n; u++) {
        next_member[u] = UINT32_MAX;
        if (ids[u] != REF_NONE) {
            if (ids[u] != u)
                next_member[last[ids[u]]] = (uint32_t)u;
            last[ids[u]] = (uint32_t)u;
        }
    }
    free(last);
    uint64_t c = 0, t = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t *sc = pass ? (uint64_t *)q->state_choices : NULL, *ct = pass ? (uint64_t *)q->choice_transitions : NULL;
        uint32_t *tg = pass ? (uint32_t *)q->targets : NULL;
        double *pr = pass ? (double *)q->probabilities : NULL, *rw = pass ? *reward_out : NULL;
        c = t = 0;
        if (pass)
            ct[0] = 0;
        /* the representative s collects the choices of every u with ids[u] == s */
        for (uint64_t s = 0; s < n; s++) {
            if (pass)
                sc[s] = c;
            if (ids[s] != REF_NONE && ids[s] != s)
                continue; /* a member: its choices go to its representative */
            uint64_t u = s;
            for (;;) {
                for (uint64_t k = m->state_choices[u]; k < m->state_choices[u + 1]; k++) {
                    int inside = ids[s] != REF_NONE && reward[k] == 0.0;
                    for (uint64_t j = m->choice_transitions[k]; inside && j < m->choice_transitions[k + 1]; j++)
                        inside = ids[m->targets[j]] == ids[s];
                    if (inside)
                        continue;
                    for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1]; j++) {
                        if (pass) {
                            uint32_t v = m->targets[j];
                            tg[t] = ids[v] != REF_NONE ? (uint32_t)ids[v] : v;
                            pr[t] = m->probabilities[j];
                        }
                        t++;
                    }
                    if (pass) {
                        rw[c] = reward[k];
                        ct[c + 1] = t;
                    }
                    c++;
                }
                if (ids[s] == REF_NONE || next_member[u] == UINT32_MAX)
                    break;
                u = next_member[u];
            }
        }
        if (pass) {
            sc[n] = c;
            break;
        }
        uint64_t *nsc = malloc((n + 1) * sizeof *nsc), *nct = malloc((c + 1) * sizeof *nct);
        uint32_t *ntg = malloc((t ? t : 1) * sizeof *ntg);
        double *npr = malloc((t ? t : 1) * sizeof *npr);
        *reward_out = malloc((c ? c : 1) * sizeof **reward_out);
        void *all[] = {nsc, nct, ntg, npr};
        for (int i = 0; i < 4; i++)
            q->owned[q->num_owned++] = all[i];
        if (!nsc || !nct || !ntg || !npr || !*reward_out) {
            free(next_member);
            csr_free(q);
            free(*reward_out);
            *reward_out = NULL;
            return CSR_ERR_NOMEM;
        }
        q->state_choices = nsc;
        q->choice_transitions = nct;
        q->targets = ntg;
        q->probabilities = npr;
    }
    free(next_member);
    q->model_type = CSR_MDP;
    q->num_states = n;
    q->num_choices = c;
    q->num_transitions = t;
    for (uint64_t s = 0; s < n; s++)
        fixed[s] = cls[s] != REACH_MAYBE || (ids[s] != REF_NONE && ids[s] != s);
    return CSR_OK;
}

int reach_solve_reward(const csr_model *m, const reach_query *q, const double *state_reward,
                       const double *choice_reward, const reach_options *o, uint64_t budget, const reach_backend *b,
                       double *values, reach_stats *st)
{
    static const reach_backend cpu = {0};
    if (!b)
        b = &cpu;
    const uint64_t n = m->num_states, c = m->num_choices;
    uint8_t *cls = malloc(n ? n : 1), *fixed = malloc(n ? n : 1);
    double *reward = malloc((c ? c : 1) * sizeof *reward), *qreward = NULL;
    double *lower = malloc((n ? n : 1) * sizeof *lower), *upper = malloc((n ? n : 1) * sizeof *upper);
    uint64_t *ids = NULL;
    csr_model quotient = {0};
    const csr_model *solved = m;
    int rc = cls && fixed && reward && lower && upper ? CSR_OK : CSR_ERR_NOMEM;
    reach_options ro = *o;
    if (ro.method != REACH_VI)
        ro.method = REACH_OVI; /* no a-priori upper bound: optimistic value iteration */
    double t0 = monotonic_seconds(), t1 = t0, t2 = t0, t3 = t0;
    /* 1. Finite values: Rmin where some scheduler reaches the target almost
     * surely (Prob1E), Rmax where all do (Prob1A); the rest is infinite. */
    reach_query pq = {q->target, NULL, !q->maximize};
    if (!rc)
        rc = b->prob01 ? b->prob01(m, &pq, cls, b->prob01_ctx ? b->prob01_ctx : b->ctx) : ref_reach_prob01(m, &pq, cls);
    if (!rc) {
        for (uint64_t s = 0; s < n; s++)
            cls[s] = q->target[s] ? REACH_YES : cls[s] == REACH_YES ? REACH_MAYBE : REACH_NO;
        reach_count_classes(n, cls, st);
        for (uint64_t s = 0; s < n; s++)
            for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++)
                reward[k] = (state_reward ? state_reward[s] : 0.0) + (choice_reward ? choice_reward[k] : 0.0);
        for (uint64_t s = 0; s < n; s++) {
            fixed[s] = cls[s] != REACH_MAYBE;
            lower[s] = cls[s] == REACH_NO ? INFINITY : 0.0;
            upper[s] = cls[s] == REACH_YES ? 0.0 : INFINITY;
        }
    }
    t1 = monotonic_seconds();
    /* 2. Rmin on an MDP: collapse the zero-reward MECs of the finite states. */
    if (!rc && !q->maximize && m->model_type == CSR_MDP && st->maybe) {
        csr_model sub;
        ids = malloc(n * sizeof *ids);
        rc = ids ? reach_maybe_graph(m, cls, reward, &sub) : CSR_ERR_NOMEM;
        if (!rc) {
            ref_mec_stats ms;
            rc = b->mecs ? b->mecs(&sub, ids, b->ctx) : ref_mec_basic(&sub, ids, &ms);
            csr_free(&sub);
        }
        uint64_t in = 0;
        for (uint64_t s = 0; !rc && s < n; s++)
            if (ids[s] != REF_NONE) {
                in++;
                st->mecs += ids[s] == s;
            }
        st->mec_states = in;
        if (!rc && in) {
            rc = zero_reward_quotient(m, cls, ids, reward, &quotient, &qreward, fixed);
            solved = &quotient;
        }
    }
    t2 = t3 = monotonic_seconds();
    const double *solved_reward = solved == m ? reward : qreward;
    st->bytes_needed = reach_system_bytes(n, solved->num_choices, solved->num_transitions) + 8 * solved->num_choices;
    if (!rc) {
        /* fixed doubles as the classes of the split: 0 (REACH_MAYBE) is solved */
        rc = solve_whole_or_split(solved, fixed, NULL, 0, NULL, q->maximize, solved_reward, &ro, budget, b, lower, upper,
                                  st, &t3);
        if (rc == CSR_OK || rc == CSR_ERR_NOT_CONVERGED || rc == CSR_ERR_STALLED) {
            for (uint64_t s = 0; ids && s < n; s++)
                if (ids[s] != REF_NONE && ids[s] != s) {
                    lower[s] = lower[ids[s]];
                    upper[s] = upper[ids[s]];
                }
            /* an upper bound never verified is infinite: the answer is then the lower bound */
            for (uint64_t s = 0; s < n; s++)
                values[s] = ro.method == REACH_VI || isinf(upper[s]) ? lower[s] : 0.5 * (lower[s] + upper[s]);
        }
    }
    phase_seconds(st, t0, t1, t2, t3, monotonic_seconds());
    csr_free(&quotient);
    free(qreward);
    free(cls);
    free(fixed);
    free(reward);
    free(lower);
    free(upper);
    free(ids);
    return rc;
}

/* ---- step-bounded reachability ---------------------------------------------- */

int ref_reach_bounded(const csr_model *m, const reach_query *q, uint64_t steps, double *values)
{
    const uint64_t n = m->num_states;
    double *next = malloc((n ? n : 1) * sizeof *next);
    if (!next)
        return CSR_ERR_NOMEM;
    double *cur = values, *nxt = next; /* swapped each step; the last step's copied to values at the end */
    for (uint64_t s = 0; s < n; s++)
        cur[s] = q->target[s] ? 1.0 : 0.0;
    for (uint64_t i = 0; i < steps; i++) {
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

int reach_solve_bounded(const csr_model *m, const reach_query *q, uint64_t steps, const reach_backend *b,
                        double *values, reach_stats *st)
{
    double t0 = monotonic_seconds();
    int rc = b && b->bounded ? b->bounded(m, q, steps, values, b->ctx) : ref_reach_bounded(m, q, steps, values);
    st->iterations = steps;
    st->groups = 1;
    st->iterate_s = st->total_s = monotonic_seconds() - t0;
    return rc;
}

/* ---- optimal schedulers ------------------------------------------------------ */

int reach_scheduler(const csr_model *m, const reach_query *q, const double *state_reward, const double *choice_reward,
                    const double *values, double tolerance, uint32_t *choice_of)
{
    const uint64_t n = m->num_states;
    const int rewards = state_reward || choice_reward;
    /* progress toward the target matters where the value asks to arrive:
     * Pmax (a scheduler may otherwise stay in an end component of optimal
     * choices forever) and Rmin (the same, at no cost, is an infinite reward) */
    const int progress = rewards ? !q->maximize : q->maximize;
    uint8_t *candidate = malloc(m->num_choices ? m->num_choices : 1);
    double *value_of = malloc((m->num_choices ? m->num_choices : 1) * sizeof *value_of); /* each choice's value */
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    ref_transpose tr = {0};
    int rc = candidate && value_of && queue ? CSR_OK : CSR_ERR_NOMEM;
    if (!rc && progress)
        rc = ref_transpose_build(m, &tr);
    if (rc)
        goto out;
    /* 1. The optimal choices of each state: value within tolerance (relative
     * to the value, absolute below 1) of the best. */
    for (uint64_t s = 0; s < n; s++) {
        const uint64_t kb = m->state_choices[s], ke = m->state_choices[s + 1];
        choice_of[s] = kb == ke ? REACH_NO_CHOICE : 0;
        double best = q->maximize ? -INFINITY : INFINITY;
        for (uint64_t k = kb; k < ke; k++) {
            double v = (state_reward ? state_reward[s] : 0.0) + (choice_reward ? choice_reward[k] : 0.0);
            for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1]; j++)
                v += m->probabilities[j] * values[m->targets[j]];
            value_of[k] = v;
            if (q->maximize ? v > best : v < best)
                best = v;
        }
        for (uint64_t k = kb; k < ke; k++) {
            const double v = value_of[k];
            candidate[k] = isinf(best) ? isinf(v) : fabs(v - best) <= tolerance * fmax(fabs(best), 1.0);
            if (candidate[k] && choice_of[s] == 0 && !candidate[kb])
                choice_of[s] = (uint32_t)(k - kb); /* the first optimal choice */
        }
    }
    if (!progress)
        goto out;
    /* 2. Among them, one that gets closer to the target: a backward
     * breadth-first search from the targets over optimal choices; a state
     * joins through the first optimal choice with a successor already in. */
    uint8_t *in = calloc(n ? n : 1, 1);
    if (!in) {
        rc = CSR_ERR_NOMEM;
        goto out;
    }
    uint64_t head = 0, tail = 0;
    for (uint64_t s = 0; s < n; s++)
        if (q->target[s]) {
            in[s] = 1;
            queue[tail++] = (uint32_t)s;
        }
    while (head < tail) {
        uint32_t t = queue[head++];
        for (uint64_t j = tr.first[t]; j < tr.first[t + 1]; j++) {
            uint64_t k = tr.choice[j], s = tr.owner[k];
            if (in[s] || !candidate[k] || (q->avoid && q->avoid[s]))
                continue;
            in[s] = 1;
            choice_of[s] = (uint32_t)(k - m->state_choices[s]);
            queue[tail++] = (uint32_t)s;
        }
    }
    free(in);
out:
    ref_transpose_free(&tr);
    free(value_of);
    free(candidate);
    free(queue);
    return rc;
}
