/*
 * reach_prob01.c - Prob0/Prob1 on the CPU for gpu-vi --cpu (reach.h,
 * reach_prob01_cpu, reach_prob01_mecs_cpu): the classes of ref_reach_prob01,
 * byte for byte.  Max: Prob0A by one backward search, then Prob1E by the
 * nested fixpoint (Baier & Katoen, Principles of Model Checking, Algorithm
 * 45) made incremental: each choice's "stays inside u" flag is computed once
 * and cleared when a state it reaches leaves u (through the transpose), and
 * each inner backward search runs over the states still in u only.  Where
 * it has not ended after PROB1E_ROUNDS rounds, Prob1E by the MEC quotient
 * instead (as gpu/reach/prob01.cu's prob1e_quotient, one search once the
 * MECs are known): zeroconf (N=1000, K=2; 89,586 states) takes 26 rounds.
 * The searches are the reference's (ref_reach_backward_closure); min, which
 * has no fixpoint, is the reference's too (ref_reach_prob01_transposed).
 * Both over the transpose the run's cache keeps (reach_cache_transpose),
 * where there is one.
 */
#include <stdlib.h>
#include <string.h>

#include "reach.h"
#include "reach_internal.h"
#include "reach_ref.h"
#include "ref.h"

/* Rounds of the nested fixpoint before the MEC quotient takes over (most
 * queries end in one or two; the quotient costs a MEC decomposition). */
#define PROB1E_ROUNDS 2

/*
 * Prob1E by the MEC quotient (de Alfaro 1997, ch. 3; Baier & Katoen ch.
 * 10.6), as gpu/reach/prob01.cu's prob1e_quotient: with r = Prob0A's
 * complement (u8[n], the targets in it), each MEC of the sub-MDP of r minus
 * the targets (live) is one node whose choices are its states' choices that
 * leave it; that quotient has no other end component, so Pmax = 1 exactly
 * where some scheduler never enters a state outside r.  B, the states
 * outside Prob1E: the least set holding the states outside r and every node
 * each of whose leaving choices has a successor in B, by one backward
 * search (a choice counts once, at its first transition into B; a MEC joins
 * with all its states).  bad (u8[n]) gets B; mec (u32[n], or NULL) the MECs
 * of the live states that are in B (those of the maybe states' sub-MDP:
 * each MEC lies wholly in Prob1E or wholly outside), REACH_NO_MEC
 * elsewhere.  queue: u32[n] scratch.  Errors: CSR_ERR_NOMEM (bad
 * untouched: the caller goes on with the nested fixpoint).
 */
static int prob1e_quotient(const csr_model *m, const ref_transpose *tr, const reach_query *q, const uint8_t *r,
                           uint8_t *bad, uint32_t *mec, uint32_t *queue)
{
    const uint64_t n = m->num_states, c = m->num_choices;
    uint8_t *live = malloc(n ? n : 1), *counted = calloc(c ? c : 1, 1);
    uint64_t *remaining = calloc(n ? n : 1, sizeof *remaining), *wide = malloc((n ? n : 1) * sizeof *wide);
    uint32_t *node = malloc((n ? n : 1) * sizeof *node), *next = malloc((n ? n : 1) * sizeof *next);
    int rc = live && counted && node && remaining && next && wide ? CSR_OK : CSR_ERR_NOMEM;
    if (!rc) { /* the MECs of the live states' sub-MDP, found within the model over its transpose (zeroconf
                * N=1000 K=2: its Prob1E 15 -> 11 ms against that sub-MDP built and transposed) */
        for (uint64_t s = 0; s < n; s++)
            live[s] = r[s] && !q->target[s];
        if (!(rc = ref_mec_basic_within(m, tr, live, NULL, wide, NULL)))
            reach_narrow_ids(wide, node, n);
    }
    if (rc)
        goto out;
    /* live[s]: 0 not live, 1 live, 2 live in a MEC; node[s]: its MEC's smallest state, else s; next: each
     * MEC's states as a list from that state */
    for (uint64_t s = 0; s < n; s++) {
        live[s] = live[s] ? (node[s] != REACH_NO_MEC ? 2 : 1) : 0;
        next[s] = UINT32_MAX;
    }
    for (uint64_t s = n; s-- > 0;) {
        const uint32_t v = node[s];
        if (v == REACH_NO_MEC) {
            node[s] = (uint32_t)s;
        } else if (v != s) {
            next[s] = next[v];
            next[v] = (uint32_t)s;
        }
    }
    /* each live state's leaving choices counted at its node; a choice inside its MEC never counts */
    for (uint64_t s = 0; s < n; s++) {
        if (!live[s])
            continue;
        const uint32_t v = node[s];
        for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++) {
            int inside = live[s] == 2;
            for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1] && inside; j++)
                inside = live[m->targets[j]] == 2 && node[m->targets[j]] == v;
            if (inside)
                counted[k] = 1;
            else
                remaining[v]++;
        }
    }
    /* B's seeds: the states outside r, and a live node without a leaving choice (none where r is right) */
    uint64_t head = 0, tail = 0;
    for (uint64_t s = 0; s < n; s++) {
        bad[s] = !r[s] || (live[s] && remaining[node[s]] == 0);
        if (bad[s])
            queue[tail++] = (uint32_t)s;
    }
    while (head < tail) {
        const uint32_t t = queue[head++];
        for (uint64_t e = tr->first[t]; e < tr->first[t + 1]; e++) {
            const uint64_t k = tr->choice[e], s = tr->owner[k];
            if (!live[s] || bad[s] || counted[k])
                continue;
            counted[k] = 1;
            const uint32_t v = node[s];
            if (--remaining[v] > 0)
                continue;
            for (uint64_t x = v; x != UINT32_MAX; x = next[x]) {
                bad[x] = 1;
                queue[tail++] = (uint32_t)x;
            }
        }
    }
    if (mec)
        for (uint64_t s = 0; s < n; s++)
            mec[s] = live[s] == 2 && bad[s] ? node[s] : REACH_NO_MEC;
out:
    free(live);
    free(counted);
    free(node);
    free(remaining);
    free(next);
    free(wide);
    return rc;
}

/* Max's classes (cls u8[n]); where the MEC quotient gave them, the maybe
 * states' MECs in mec (when not NULL) and *mecs_found = 1. */
static int prob01_max(const csr_model *m, const ref_transpose *tr, const reach_query *q, uint8_t *cls, uint32_t *mec,
                      int *mecs_found)
{
    const uint64_t n = m->num_states, c = m->num_choices;
    *mecs_found = 0;
    int rc = CSR_OK;
    uint8_t *r = calloc(n ? n : 1, 1), *open = calloc(n ? n : 1, 1), *u = calloc(n ? n : 1, 1);
    uint8_t *choice_ok = malloc(c ? c : 1);
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    if (!r || !open || !u || !choice_ok || !queue) {
        rc = CSR_ERR_NOMEM;
        goto out;
    }
    /* States through which probability may flow: not a target (value 1),
     * not avoided (0), with a choice. */
    for (uint64_t s = 0; s < n; s++)
        open[s] = !q->target[s] && !(q->avoid && q->avoid[s]) && m->state_choices[s + 1] > m->state_choices[s];
    memcpy(r, q->target, n);
    /* Prob0A: r = the states from which some choice sequence reaches a target. */
    ref_reach_backward_closure(m, tr, r, open, 0, NULL, queue, NULL, NULL);
    /* Prob1E: u = the greatest set from which the targets are reached
     * inside u by choices that stay in u.  Each round: v = the states of u
     * that reach a target by such choices; the rest of u leaves, and the
     * choices into what left stop staying. */
    memcpy(u, r, n);
    for (uint64_t s = 0; s < n; s++)
        open[s] = open[s] && u[s];
    for (uint64_t k = 0; k < c; k++) {
        choice_ok[k] = 1;
        for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1]; j++)
            if (!u[m->targets[j]]) {
                choice_ok[k] = 0;
                break;
            }
    }
    const char *test = getenv("CSR_TEST_PROB1E_ROUNDS"); /* the tests' count (0: the quotient at once) */
    const unsigned rounds = test ? (unsigned)strtoul(test, NULL, 10) : PROB1E_ROUNDS;
    for (unsigned round = 0;; round++) {
        if (round == rounds) { /* u: B, the states outside Prob1E */
            if ((rc = prob1e_quotient(m, tr, q, r, u, mec, queue)) == CSR_ERR_NOMEM) {
                rc = CSR_OK; /* (u and the fixpoint's state untouched) the nested fixpoint goes on */
                continue;
            }
            if (rc)
                goto out;
            *mecs_found = mec != NULL;
            for (uint64_t s = 0; s < n; s++)
                cls[s] = !r[s] ? REACH_NO : u[s] ? REACH_MAYBE : REACH_YES;
            goto out;
        }
        memcpy(cls, q->target, n); /* cls holds v */
        ref_reach_backward_closure(m, tr, cls, open, 0, choice_ok, queue, NULL, NULL);
        uint64_t left = 0;
        for (uint64_t s = 0; s < n; s++)
            if (u[s] && !cls[s]) {
                u[s] = open[s] = 0;
                queue[left++] = (uint32_t)s;
            }
        if (!left)
            break;
        for (uint64_t i = 0; i < left; i++)
            for (uint64_t j = tr->first[queue[i]]; j < tr->first[queue[i] + 1]; j++)
                choice_ok[tr->choice[j]] = 0;
    }
    for (uint64_t s = 0; s < n; s++)
        cls[s] = u[s] ? REACH_YES : r[s] ? REACH_MAYBE : REACH_NO;
out:
    free(r);
    free(open);
    free(u);
    free(choice_ok);
    free(queue);
    return rc;
}

int reach_prob01_cpu(const csr_model *m, reach_cache *cache, const reach_query *q, uint8_t *cls)
{
    int found;
    return reach_prob01_mecs_cpu(m, cache, q, cls, NULL, &found);
}

int reach_prob01_mecs_cpu(const csr_model *m, reach_cache *cache, const reach_query *q, uint8_t *cls, uint32_t *mec,
                          int *mecs_found)
{
    *mecs_found = 0;
    ref_transpose own = {0};
    const ref_transpose *tr = reach_cache_transpose_or_build(cache, m, &own);
    /* min: Prob0E and Prob1A, two searches, no fixpoint */
    const int rc = !tr            ? CSR_ERR_NOMEM
                   : q->maximize ? prob01_max(m, tr, q, cls, mec, mecs_found)
                                 : ref_reach_prob01_transposed(m, tr, q, cls);
    ref_transpose_free(&own);
    return rc;
}
