/*
 * reach_prob01.c - Prob0/Prob1 on the CPU for gpu-vi --cpu (reach.h,
 * reach_prob01_cpu): the classes of ref_reach_prob01, byte for byte, with
 * Prob1E's nested fixpoint (Baier & Katoen, Principles of Model Checking,
 * Algorithm 45) made incremental: each choice's "stays inside u" flag is
 * computed once and cleared when a state it reaches leaves u (through the
 * transpose), and each inner backward search runs over the states still in
 * u only.  ref_reach_prob01 recomputes every flag and searches every state
 * each round: zeroconf (N=20, K=2; 89,586 states) takes 26 rounds for Pmax.
 * The searches are the reference's (ref_reach_backward_closure); min, which
 * has no fixpoint, is ref_reach_prob01 itself.
 */
#include <stdlib.h>
#include <string.h>

#include "reach.h"
#include "reach_ref.h"

int reach_prob01_cpu(const csr_model *m, const reach_query *q, uint8_t *cls)
{
    if (!q->maximize) /* Prob0E and Prob1A: two searches, no fixpoint */
        return ref_reach_prob01(m, q, cls);
    const uint64_t n = m->num_states, c = m->num_choices;
    ref_transpose tr = {0};
    int rc = ref_transpose_build(m, &tr);
    if (rc)
        return rc;
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
    ref_reach_backward_closure(m, &tr, r, open, 0, NULL, queue, NULL, NULL);
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
        ref_reach_backward_closure(m, &tr, cls, open, 0, choice_ok, queue, NULL, NULL);
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
out:
    free(r);
    free(open);
    free(u);
    free(choice_ok);
    free(queue);
    ref_transpose_free(&tr);
    return rc;
}
