/*
 * reach_prob01.c - Prob0/Prob1 on the CPU for gpu-vi --cpu (reach.h,
 * reach_prob01_cpu): the classes of ref_reach_prob01, byte for byte, with
 * Prob1E's nested fixpoint (Baier & Katoen, Principles of Model Checking,
 * Algorithm 45) made incremental: each choice's "stays inside u" flag is
 * computed once and cleared when a state it reaches leaves u (through the
 * transpose), and each inner backward search runs over the states still in
 * u only.  ref_reach_prob01 recomputes every flag and searches every state
 * each round: zeroconf (N=20, K=2; 89,586 states) takes 26 rounds for Pmax.
 */
#include <stdlib.h>
#include <string.h>

#include "reach.h"
#include "ref.h"

/* Backward search: in[] (1 = in the set) grown in place through the
 * states with open[s], from the states already in it.  all_choices 0: s
 * joins when one of its choices (with choice_ok[k], where given) has a
 * transition into the set; 1: when every choice has (remaining, hit).
 * queue: u32[n]. */
static void backward_search(const csr_model *m, const ref_transpose *tr, uint8_t *in, const uint8_t *open,
                            const uint8_t *choice_ok, int all_choices, uint32_t *queue, uint8_t *hit,
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
        const uint32_t t = queue[head++];
        for (uint64_t j = tr->first[t]; j < tr->first[t + 1]; j++) {
            const uint64_t k = tr->choice[j], s = tr->owner[k];
            if (in[s] || !open[s] || (choice_ok && !choice_ok[k]))
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

int reach_prob01_cpu(const csr_model *m, const reach_query *q, uint8_t *cls)
{
    const uint64_t n = m->num_states, c = m->num_choices;
    ref_transpose tr = {0};
    int rc = ref_transpose_build(m, &tr);
    if (rc)
        return rc;
    uint8_t *r = calloc(n ? n : 1, 1), *open = calloc(n ? n : 1, 1), *u = calloc(n ? n : 1, 1);
    uint8_t *choice_ok = malloc(c ? c : 1), *hit = malloc(c ? c : 1);
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    uint64_t *remaining = malloc((n ? n : 1) * sizeof *remaining);
    if (!r || !open || !u || !choice_ok || !hit || !queue || !remaining) {
        rc = CSR_ERR_NOMEM;
        goto out;
    }
    /* States through which probability may flow: not a target (value 1),
     * not avoided (0), with a choice. */
    for (uint64_t s = 0; s < n; s++)
        open[s] = !q->target[s] && !(q->avoid && q->avoid[s]) && m->state_choices[s + 1] > m->state_choices[s];
    memcpy(r, q->target, n);
    if (q->maximize) {
        /* Prob0A: r = the states from which some choice sequence reaches a target. */
        backward_search(m, &tr, r, open, NULL, 0, queue, hit, remaining);
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
        for (;;) {
            memcpy(cls, q->target, n); /* cls holds v */
            backward_search(m, &tr, cls, open, choice_ok, 0, queue, hit, remaining);
            uint64_t left = 0;
            for (uint64_t s = 0; s < n; s++)
                if (u[s] && !cls[s]) {
                    u[s] = open[s] = 0;
                    queue[left++] = (uint32_t)s;
                }
            if (!left)
                break;
            for (uint64_t i = 0; i < left; i++)
                for (uint64_t j = tr.first[queue[i]]; j < tr.first[queue[i] + 1]; j++)
                    choice_ok[tr.choice[j]] = 0;
        }
        for (uint64_t s = 0; s < n; s++)
            cls[s] = u[s] ? REACH_YES : r[s] ? REACH_MAYBE : REACH_NO;
    } else {
        /* Prob0E: r = the states from which every scheduler reaches a target
         * with positive probability. */
        backward_search(m, &tr, r, open, NULL, 1, queue, hit, remaining);
        /* Prob1A: the states from which some scheduler reaches a state of
         * value 0 have Pmin < 1, the others 1. */
        for (uint64_t s = 0; s < n; s++) {
            u[s] = !r[s];
            open[s] = !q->target[s];
        }
        backward_search(m, &tr, u, open, NULL, 0, queue, hit, remaining);
        for (uint64_t s = 0; s < n; s++)
            cls[s] = !r[s] ? REACH_NO : !u[s] ? REACH_YES : REACH_MAYBE;
    }
out:
    free(r);
    free(open);
    free(u);
    free(choice_ok);
    free(hit);
    free(queue);
    free(remaining);
    ref_transpose_free(&tr);
    return rc;
}
