/*
 * mec_basic.c - the basic sequential MEC decomposition (ref.h; FMSD article,
 * section 2.3, with Lemmas 1 and 2).
 */
#include <stdlib.h>
#include <string.h>

#include "ref.h"

int ref_mec_basic(const csr_model *m, uint64_t *mec, ref_mec_stats *stats)
{
    ref_transpose tr = {0};
    int rc = ref_transpose_build(m, &tr);
    if (!rc)
        rc = ref_mec_basic_within(m, &tr, NULL, NULL, mec, stats);
    ref_transpose_free(&tr);
    return rc;
}

int ref_mec_basic_within(const csr_model *m, const ref_transpose *transpose, const uint8_t *within,
                         const uint8_t *allowed, uint64_t *mec, ref_mec_stats *stats)
{
    uint64_t n = m->num_states, c = m->num_choices;
    int rc = CSR_OK;
    uint8_t *alive = malloc(n ? n : 1), *enabled = malloc(c ? c : 1), *changed = malloc(n ? n : 1);
    uint64_t *choices_left = malloc((n ? n : 1) * sizeof *choices_left); /* enabled choices per state */
    uint64_t *comp = malloc((n ? n : 1) * sizeof *comp);
    const ref_transpose tr = *transpose;
    uint64_t *work = malloc((n ? n : 1) * sizeof *work);
    ref_mec_stats st = {0};
    if (!alive || !enabled || !changed || !choices_left || !comp || !work) {
        rc = CSR_ERR_NOMEM;
        goto out;
    }
    uint64_t alive_count = 0;
    for (uint64_t s = 0; s < n; s++) {
        alive[s] = !within || within[s];
        alive_count += alive[s];
        mec[s] = REF_NONE;
        choices_left[s] = 0;
        for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++) {
            enabled[k] = alive[s] && (!allowed || allowed[k]);
            choices_left[s] += enabled[k];
        }
    }

    while (alive_count > 0) {
        st.rounds++;
        if ((rc = ref_scc_tarjan(m, alive, enabled, comp, NULL)))
            goto out;
        memset(changed, 0, n);
        /* Step 2: remove the choices that leave their SCC. */
        uint64_t queued = 0;
        for (uint64_t s = 0; s < n; s++) {
            if (!alive[s])
                continue;
            for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++) {
                if (!enabled[k])
                    continue;
                for (uint64_t i = m->choice_transitions[k]; i < m->choice_transitions[k + 1]; i++) {
                    uint32_t w = m->targets[i];
                    if (!alive[w] || comp[w] != comp[s]) {
                        enabled[k] = 0;
                        choices_left[s]--;
                        changed[comp[s]] = 1;
                        st.removed_choices++;
                        break;
                    }
                }
            }
            if (choices_left[s] == 0)
                work[queued++] = s; /* U: not e-closed for its SCC */
        }
        /* Step 3: remove Attr(U); a state is attracted once all its choices are. */
        for (uint64_t q = 0; q < queued; q++) {
            uint64_t v = work[q];
            alive[v] = 0;
            alive_count--;
            st.removed_states++;
            changed[comp[v]] = 1;
            for (uint64_t r = tr.first[v]; r < tr.first[v + 1]; r++) {
                uint64_t k = tr.choice[r];
                if (!enabled[k])
                    continue;
                enabled[k] = 0;
                st.removed_choices++;
                uint64_t u = tr.owner[k];
                if (alive[u] && --choices_left[u] == 0)
                    work[queued++] = u;
            }
        }
        /* Step 4: untouched SCCs are MECs. */
        for (uint64_t s = 0; s < n; s++) {
            if (alive[s] && !changed[comp[s]]) {
                mec[s] = comp[s];
                alive[s] = 0;
                alive_count--;
                st.states_in_mecs++;
                if (comp[s] == s)
                    st.mecs++;
            }
        }
    }
out:
    free(alive);
    free(enabled);
    free(changed);
    free(choices_left);
    free(comp);
    free(work);
    if (stats)
        *stats = st;
    return rc;
}
