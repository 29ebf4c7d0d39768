/*
 * transpose.c - the choice-level transpose of a model (ref.h), shared by the
 * basic MEC algorithm and the Prob0/Prob1 closures of reach.c.
 */
#include <stdlib.h>

#include "ref.h"

void ref_transpose_free(ref_transpose *tr)
{
    free(tr->first);
    free(tr->choice);
    free(tr->owner);
    tr->first = tr->choice = tr->owner = NULL;
}

int ref_transpose_build(const csr_model *m, ref_transpose *tr)
{
    const uint64_t n = m->num_states, c = m->num_choices, t = m->num_transitions;
    tr->first = calloc(n + 1, sizeof *tr->first);
    tr->choice = malloc((t ? t : 1) * sizeof *tr->choice);
    tr->owner = malloc((c ? c : 1) * sizeof *tr->owner);
    if (!tr->first || !tr->choice || !tr->owner) {
        ref_transpose_free(tr);
        return CSR_ERR_NOMEM;
    }
    for (uint64_t s = 0; s < n; s++)
        for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++)
            tr->owner[k] = s;
    /* Counting sort: count per target, prefix sums shifted by one, scatter,
     * shift back. */
    for (uint64_t i = 0; i < t; i++)
        tr->first[m->targets[i] + 1]++;
    for (uint64_t v = 0; v < n; v++)
        tr->first[v + 1] += tr->first[v];
    for (uint64_t k = 0; k < c; k++)
        for (uint64_t i = m->choice_transitions[k]; i < m->choice_transitions[k + 1]; i++)
            tr->choice[tr->first[m->targets[i]]++] = k;
    for (uint64_t v = n; v > 0; v--)
        tr->first[v] = tr->first[v - 1];
    tr->first[0] = 0;
    return CSR_OK;
}
