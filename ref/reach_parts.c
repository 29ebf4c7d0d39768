/*
 * reach_parts.c - interval and value iteration over the parts on the CPU,
 * and the split of a reach_system's maybe rows into parts (reach_parts.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "reach_parts.h"

void reach_parts_free(reach_parts *rp)
{
    const uint32_t P = rp->partition.parts;
    for (uint32_t i = 0; i < P; i++) {
        if (rp->mec_local)
            free(rp->mec_local[i]);
        if (rp->mec_span)
            free(rp->mec_span[i]);
    }
    free(rp->mec_local);
    free(rp->mec_span);
    free(rp->local_mecs);
    free(rp->leaving);
    csr_partition_free(&rp->partition);
    for (int i = 0; i < 4; i++)
        free(rp->owned[i]);
    memset(rp, 0, sizeof *rp);
}

/* The MECs' indices: in each part, its MECs numbered in order of first
 * state; across parts, the MECs with states in more than one, in order of
 * MEC id. */
static int index_mecs(const reach_system *y, reach_parts *rp)
{
    const uint32_t P = rp->partition.parts;
    const uint64_t M = y->num_mecs;
    uint32_t *first = malloc((M ? M : 1) * sizeof *first), *stamp = malloc((M ? M : 1) * sizeof *stamp);
    uint32_t *local = malloc((M ? M : 1) * sizeof *local), *span = malloc((M ? M : 1) * sizeof *span);
    int rc = CSR_ERR_NOMEM;
    rp->local_mecs = calloc(P, sizeof *rp->local_mecs);
    rp->mec_local = calloc(P, sizeof *rp->mec_local);
    rp->mec_span = calloc(P, sizeof *rp->mec_span);
    if (!first || !stamp || !local || !span || !rp->local_mecs || !rp->mec_local || !rp->mec_span)
        goto out;
    for (uint64_t k = 0; k < M; k++) {
        first[k] = UINT32_MAX;
        stamp[k] = 0;
        span[k] = REACH_NO_MEC;
    }
    for (uint32_t i = 0; i < P; i++) { /* which MECs span parts */
        const csr_part *q = &rp->partition.part[i];
        for (uint64_t j = 0; j < q->num_states; j++) {
            const uint64_t s = q->first_state + j;
            const uint32_t k = y->fixed[s] ? REACH_NO_MEC : y->mec[s];
            if (k == REACH_NO_MEC)
                continue;
            if (first[k] == UINT32_MAX)
                first[k] = i;
            else if (first[k] != i)
                span[k] = 0; /* numbered below */
        }
    }
    for (uint64_t k = 0; k < M; k++)
        if (span[k] != REACH_NO_MEC)
            span[k] = (uint32_t)rp->span_mecs++;
    for (uint32_t i = 0; i < P; i++) {
        const csr_part *q = &rp->partition.part[i];
        uint32_t *ml = malloc((q->num_states ? q->num_states : 1) * sizeof *ml);
        rp->mec_local[i] = ml;
        if (!ml)
            goto out;
        uint64_t count = 0;
        for (uint64_t j = 0; j < q->num_states; j++) {
            const uint64_t s = q->first_state + j;
            const uint32_t k = y->fixed[s] ? REACH_NO_MEC : y->mec[s];
            if (k == REACH_NO_MEC) {
                ml[j] = REACH_NO_MEC;
                continue;
            }
            if (stamp[k] != i + 1) {
                stamp[k] = i + 1;
                local[k] = (uint32_t)count++;
            }
            ml[j] = local[k];
        }
        rp->local_mecs[i] = count;
        uint32_t *sp = malloc((count ? count : 1) * sizeof *sp);
        rp->mec_span[i] = sp;
        if (!sp)
            goto out;
        for (uint64_t j = 0; j < q->num_states; j++) {
            const uint64_t s = q->first_state + j;
            if (ml[j] != REACH_NO_MEC)
                sp[ml[j]] = span[y->mec[s]];
        }
    }
    rc = CSR_OK;
out:
    free(first);
    free(stamp);
    free(local);
    free(span);
    return rc;
}

int reach_parts_build(const reach_system *y, uint32_t parts, reach_parts *rp, csr_status *st)
{
    memset(rp, 0, sizeof *rp);
    if (y->choice_reward)
        return csr_fail(st, CSR_ERR_USAGE, "expected rewards are not iterated over parts");
    if (y->num_states >= UINT32_MAX || y->num_choices >= UINT32_MAX)
        return csr_fail(st, CSR_ERR_TOO_LARGE, "%llu states, %llu choices: the parts take fewer than 2^32 - 1",
                        (unsigned long long)y->num_states, (unsigned long long)y->num_choices);
    const uint64_t n = y->num_states;
    uint64_t c = 0, t = 0;
    for (uint64_t s = 0; s < n; s++)
        if (!y->fixed[s]) {
            c += y->state_choices[s + 1] - y->state_choices[s];
            t += y->choice_transitions[y->state_choices[s + 1]] - y->choice_transitions[y->state_choices[s]];
        }
    uint64_t *sc = malloc((n + 1) * sizeof *sc), *ct = malloc((c + 1) * sizeof *ct);
    uint32_t *tg = malloc((t ? t : 1) * sizeof *tg);
    double *pr = malloc((t ? t : 1) * sizeof *pr);
    rp->owned[0] = sc;
    rp->owned[1] = ct;
    rp->owned[2] = tg;
    rp->owned[3] = pr;
    const int mecs = y->mec && y->leaving && y->num_mecs;
    if (mecs)
        rp->leaving = malloc(c ? c : 1);
    if (!sc || !ct || !tg || !pr || (mecs && !rp->leaving)) {
        reach_parts_free(rp);
        return csr_fail(st, CSR_ERR_NOMEM, "the maybe rows of %llu states", (unsigned long long)n);
    }
    uint64_t k2 = 0, j2 = 0;
    sc[0] = 0;
    ct[0] = 0;
    for (uint64_t s = 0; s < n; s++) {
        if (!y->fixed[s])
            for (uint64_t k = y->state_choices[s]; k < y->state_choices[s + 1]; k++) {
                const uint64_t a = y->choice_transitions[k], b = y->choice_transitions[k + 1];
                memcpy(tg + j2, y->targets + a, (b - a) * sizeof *tg);
                memcpy(pr + j2, y->probabilities + a, (b - a) * sizeof *pr);
                j2 += b - a;
                if (mecs)
                    rp->leaving[k2] = y->leaving[k];
                ct[++k2] = j2;
            }
        sc[s + 1] = k2;
    }
    rp->rows.model_type = CSR_MDP;
    rp->rows.num_states = n;
    rp->rows.num_choices = c;
    rp->rows.num_transitions = t;
    rp->rows.state_choices = sc;
    rp->rows.choice_transitions = ct;
    rp->rows.targets = tg;
    rp->rows.probabilities = pr;
    rp->fixed = y->fixed;
    int rc = csr_partition_build(&rp->rows, parts, &rp->partition, st);
    if (!rc && mecs && (rc = index_mecs(y, rp)) != CSR_OK)
        csr_fail(st, rc, "the MECs of %u parts", parts);
    if (rc)
        reach_parts_free(rp);
    return rc;
}

/* ---- the iteration -------------------------------------------------------------- */


/* The best choice of own state j of part q over the bounds x[2 * i + bound]
 * (only the choices leaving its MEC with leaving), -1 without one; each
 * sum in branch order, products rounded before they are added (the GPUs'
 * __dmul_rn / __dadd_rn). */
static double part_best(const reach_parts *rp, const csr_part *q, uint64_t j, const double *x, int bound,
                        int maximize, const uint8_t *leaving)
{
    const csr_model *m = &rp->rows;
    double best = -1.0;
    for (uint64_t k = m->state_choices[q->first_state + j]; k < m->state_choices[q->first_state + j + 1]; k++) {
        if (leaving && !leaving[k])
            continue;
        double sum = 0.0;
        for (uint64_t i = m->choice_transitions[k]; i < m->choice_transitions[k + 1]; i++) {
            const double product = m->probabilities[i] * x[2 * (uint64_t)q->local_targets[i - q->first_transition] + bound];
            sum = sum + product;
        }
        if (best < 0.0 || (maximize ? sum > best : sum < best))
            best = sum;
    }
    return best;
}

typedef struct iterate_state {
    double diff;
    int changed;
} iterate_state;

/* A state's new pair, accounted. */
static void settle(double *next, const double *cur, uint64_t j, int ii, int relative, iterate_state *is)
{
    if (ii) {
        if (next[2 * j + 1] < next[2 * j]) /* rounding only: keep the interval ordered */
            next[2 * j + 1] = next[2 * j];
        const double d = reach_difference(next[2 * j + 1], next[2 * j], relative);
        if (d > is->diff)
            is->diff = d;
    }
    is->changed |= next[2 * j] != cur[2 * j] || next[2 * j + 1] != cur[2 * j + 1];
}

static void pull_pair(void *ctx, uint32_t o, uint32_t own, uint32_t r, uint64_t copy)
{
    double **x = ctx;
    x[r][2 * copy] = x[o][2 * (uint64_t)own];
    x[r][2 * copy + 1] = x[o][2 * (uint64_t)own + 1];
}

int ref_reach_iterate_partitioned(const reach_system *y, const reach_parts *rp, const reach_options *o, double eps,
                                  double *lower, double *upper, uint64_t *iterations, double *out_difference)
{
    if (o->method == REACH_OVI || y->choice_reward)
        return CSR_ERR_USAGE;
    const csr_partition *p = &rp->partition;
    const uint32_t P = p->parts;
    const int ii = o->method != REACH_VI, mecs = ii && rp->leaving;
    double **cur = calloc(P, sizeof *cur), **next = calloc(P, sizeof *next), **best = calloc(P, sizeof *best);
    double *span = malloc((rp->span_mecs ? rp->span_mecs : 1) * sizeof *span);
    int rc = CSR_ERR_NOMEM;
    uint64_t it = 0;
    iterate_state is = {INFINITY, 1};
    if (!cur || !next || !best || !span)
        goto out;
    for (uint32_t i = 0; i < P; i++) {
        const csr_part *q = &p->part[i];
        const uint64_t len = q->num_states + q->num_foreign;
        cur[i] = malloc((len ? 2 * len : 1) * sizeof **cur);
        next[i] = malloc((len ? 2 * len : 1) * sizeof **next);
        best[i] = calloc(mecs && rp->local_mecs[i] ? rp->local_mecs[i] : 1, sizeof **best);
        if (!cur[i] || !next[i] || !best[i])
            goto out;
        for (uint64_t j = 0; j < len; j++) {
            const uint64_t s = j < q->num_states ? q->first_state + j : q->foreign[j - q->num_states];
            cur[i][2 * j] = next[i][2 * j] = lower[s];
            cur[i][2 * j + 1] = next[i][2 * j + 1] = upper[s];
        }
    }
    rc = CSR_ERR_NOT_CONVERGED;
    while (it < o->max_iterations) {
        it++;
        is.diff = 0.0;
        is.changed = 0;
        for (uint32_t i = 0; i < P; i++) { /* every part alone: its own states from its vector */
            const csr_part *q = &p->part[i];
            for (uint64_t j = 0; j < q->num_states; j++) {
                if (rp->fixed[q->first_state + j])
                    continue;
                const double *x = cur[i];
                double *z = next[i];
                const double bl = part_best(rp, q, j, x, 0, y->maximize, NULL);
                if (!ii) {
                    z[2 * j] = bl;
                    const double d = reach_difference(bl, x[2 * j], o->relative);
                    if (d > is.diff)
                        is.diff = d;
                    is.changed |= bl != x[2 * j];
                    continue;
                }
                z[2 * j] = bl > x[2 * j] ? bl : x[2 * j];
                const uint32_t mk = mecs ? rp->mec_local[i][j] : REACH_NO_MEC;
                if (mk == REACH_NO_MEC) {
                    const double bu = part_best(rp, q, j, x, 1, y->maximize, NULL);
                    z[2 * j + 1] = bu < x[2 * j + 1] ? bu : x[2 * j + 1];
                    settle(z, x, j, ii, o->relative, &is);
                } else {
                    const double bm = part_best(rp, q, j, x, 1, y->maximize, rp->leaving);
                    if (bm > best[i][mk])
                        best[i][mk] = bm;
                }
            }
        }
        if (mecs) {
            /* the spanning MECs: the largest of the parts' maxima, back to each */
            for (uint64_t k = 0; k < rp->span_mecs; k++)
                span[k] = 0.0;
            for (uint32_t i = 0; i < P; i++)
                for (uint64_t k = 0; k < rp->local_mecs[i]; k++)
                    if (rp->mec_span[i][k] != REACH_NO_MEC && best[i][k] > span[rp->mec_span[i][k]])
                        span[rp->mec_span[i][k]] = best[i][k];
            for (uint32_t i = 0; i < P; i++) {
                const csr_part *q = &p->part[i];
                for (uint64_t k = 0; k < rp->local_mecs[i]; k++)
                    if (rp->mec_span[i][k] != REACH_NO_MEC)
                        best[i][k] = span[rp->mec_span[i][k]];
                for (uint64_t j = 0; j < q->num_states; j++) {
                    const uint32_t mk = rp->mec_local[i][j];
                    if (mk == REACH_NO_MEC || rp->fixed[q->first_state + j])
                        continue;
                    const double u = cur[i][2 * j + 1];
                    next[i][2 * j + 1] = best[i][mk] < u ? best[i][mk] : u;
                    settle(next[i], cur[i], j, ii, o->relative, &is);
                }
                for (uint64_t k = 0; k < rp->local_mecs[i]; k++)
                    best[i][k] = 0.0;
            }
        }
        csr_partition_exchange(p, pull_pair, next); /* the foreign copies take their owners' new bounds */
        double **swap = cur;
        cur = next;
        next = swap;
        if (it % REACH_PARTS_CHECK_EVERY == 0 || it == o->max_iterations) {
            if (is.diff <= eps) {
                rc = CSR_OK;
                break;
            }
            if (!is.changed) {
                rc = CSR_ERR_STALLED;
                break;
            }
        }
    }
    for (uint32_t i = 0; i < P; i++) {
        const csr_part *q = &p->part[i];
        for (uint64_t j = 0; j < q->num_states; j++) {
            lower[q->first_state + j] = cur[i][2 * j];
            upper[q->first_state + j] = cur[i][2 * j + 1];
        }
    }
    *iterations = it;
    *out_difference = is.diff;
out:
    for (uint32_t i = 0; i < P; i++) {
        if (cur)
            free(cur[i]);
        if (next)
            free(next[i]);
        if (best)
            free(best[i]);
    }
    free(cur);
    free(next);
    free(best);
    free(span);
    return rc;
}

int reach_parts_open(const reach_system *y, const reach_options *o, reach_parts_context *cx, reach_parts *rp)
{
    if (o->method == REACH_OVI || y->choice_reward)
        return csr_fail(cx->status, CSR_ERR_USAGE, "the iteration over parts takes interval or value iteration");
    const double t = monotonic_seconds();
    int rc = reach_parts_build(y, cx->parts, rp, cx->status);
    if (rc)
        return rc;
    cx->stats.partition_s += monotonic_seconds() - t;
    cx->stats.parts = cx->parts;
    for (uint32_t i = 0; i < rp->partition.parts; i++)
        cx->stats.foreign += rp->partition.part[i].num_foreign;
    cx->stats.span_mecs += rp->span_mecs;
    return CSR_OK;
}

int reach_solve_partitioned(const reach_system *y, const reach_options *o, double eps, double *lower, double *upper,
                            uint64_t *iterations, double *difference_out, void *ctx)
{
    reach_parts_context *cx = ctx;
    reach_parts rp;
    int rc = reach_parts_open(y, o, cx, &rp);
    if (rc)
        return rc;
    rc = ref_reach_iterate_partitioned(y, &rp, o, eps, lower, upper, iterations, difference_out);
    if (rc == CSR_OK || rc == CSR_ERR_NOT_CONVERGED || rc == CSR_ERR_STALLED) {
        uint64_t foreign = 0;
        for (uint32_t i = 0; i < rp.partition.parts; i++)
            foreign += rp.partition.part[i].num_foreign;
        const uint64_t span = o->method != REACH_VI && rp.leaving ? rp.span_mecs : 0; /* to part 0 and back */
        cx->stats.exchanged += *iterations * (16 * foreign + 16 * span * (rp.partition.parts - 1));
    }
    reach_parts_free(&rp);
    return rc;
}
