/*
 * reach_scheduler.c - optimal memoryless schedulers from the values
 * (reach.h, reach_scheduler).
 */
#include <math.h>
#include <stdlib.h>

#include "reach.h"
#include "ref.h"


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
