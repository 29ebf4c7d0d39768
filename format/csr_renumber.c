/*
 * csr_renumber.c - a model with its states in another order (csr.h):
 * restructure's renumbering and the way back to the original numbering.
 */
#include <stdlib.h>
#include <string.h>

#include "csr.h"

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int csr_renumber(const csr_model *in, const uint32_t *old_of_new, csr_model *out)
{
    uint64_t n = in->num_states, c = in->num_choices, t = in->num_transitions;
    memset(out, 0, sizeof *out);
    out->model_type = in->model_type;
    out->num_states = n;
    out->num_choices = c;
    out->num_transitions = t;
    uint32_t *new_of_old = malloc((n ? n : 1) * sizeof *new_of_old);
    uint64_t *sc = malloc((n + 1) * sizeof *sc), *ct = malloc((c + 1) * sizeof *ct);
    uint32_t *tg = malloc((t ? t : 1) * sizeof *tg), *perm = malloc((n ? n : 1) * sizeof *perm);
    double *pr = in->probabilities ? malloc((t ? t : 1) * sizeof *pr) : NULL;
    uint32_t *ca = in->choice_actions ? malloc((c ? c : 1) * sizeof *ca) : NULL;
    uint32_t *init = malloc((in->num_initial ? in->num_initial : 1) * sizeof *init);
    uint64_t labelled = in->labels.count ? in->label_first[in->labels.count] : 0;
    uint32_t *ls = malloc((labelled ? labelled : 1) * sizeof *ls);
    uint64_t with_state, with_choice; /* reward structures with state / choice rewards */
    csr_reward_counts(in, in->rewards.count, &with_state, &with_choice);
    double *srew = with_state ? malloc(with_state * n * sizeof *srew) : NULL;
    double *crew = with_choice ? malloc(with_choice * c * sizeof *crew) : NULL;
    const uint64_t W = in->variables.count ? in->valuation_words : 0; /* u64 words of a state's row */
    uint64_t *rows = W ? malloc((n ? n * W : 1) * sizeof *rows) : NULL;
    int rc = CSR_OK;
    void *blocks[] = {sc, ct, tg, perm, pr, ca, init, ls, srew, crew, rows};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        if (csr_adopt(out, blocks[b]))
            rc = CSR_ERR_NOMEM;
    if (!new_of_old || !sc || !ct || !tg || !perm || (in->probabilities && !pr) || (in->choice_actions && !ca) ||
        !init || !ls || (with_state && !srew) || (with_choice && !crew) || (W && !rows) || rc) {
        free(new_of_old);
        return CSR_ERR_NOMEM;
    }
    for (uint64_t i = 0; i < n; i++)
        new_of_old[old_of_new[i]] = (uint32_t)i;
    uint64_t k = 0, x = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t s = old_of_new[i];
        perm[i] = in->permutation ? in->permutation[s] : (uint32_t)s;
        sc[i] = k;
        for (uint64_t r = 0; r < with_state; r++)
            srew[r * n + i] = in->state_rewards[r * n + s];
        if (W)
            memcpy(rows + i * W, in->valuations + s * W, W * sizeof *rows);
        for (uint64_t j = in->state_choices[s]; j < in->state_choices[s + 1]; j++, k++) {
            ct[k] = x;
            if (ca)
                ca[k] = in->choice_actions[j];
            for (uint64_t r = 0; r < with_choice; r++)
                crew[r * c + k] = in->choice_rewards[r * c + j];
            for (uint64_t e = in->choice_transitions[j]; e < in->choice_transitions[j + 1]; e++, x++) {
                tg[x] = new_of_old[in->targets[e]];
                if (pr)
                    pr[x] = in->probabilities[e];
            }
        }
    }
    sc[n] = k;
    ct[c] = x;
    for (uint64_t i = 0; i < in->num_initial; i++)
        init[i] = new_of_old[in->initial_states[i]];
    qsort(init, in->num_initial, sizeof *init, compare_u32);
    for (uint64_t l = 0; l < in->labels.count; l++) {
        uint64_t b = in->label_first[l], e = in->label_first[l + 1];
        for (uint64_t i = b; i < e; i++)
            ls[i] = new_of_old[in->label_states[i]];
        qsort(ls + b, e - b, sizeof *ls, compare_u32);
    }
    free(new_of_old);
    out->state_choices = sc;
    out->choice_transitions = ct;
    out->targets = tg;
    out->probabilities = pr;
    out->choice_actions = ca;
    out->actions = in->actions; /* names point into in's storage: in outlives out */
    out->initial_states = init;
    out->num_initial = in->num_initial;
    out->labels = in->labels;
    out->label_first = in->label_first;
    out->label_states = ls;
    out->rewards = in->rewards; /* names borrowed as the labels' */
    out->reward_info = in->reward_info;
    out->state_rewards = srew;
    out->choice_rewards = crew;
    out->variables = in->variables; /* names and descriptions borrowed as the labels' */
    out->variable_info = in->variable_info;
    out->valuation_words = in->valuation_words;
    out->valuations = rows;
    /* The identity needs no permutation section. */
    int identity = 1;
    for (uint64_t i = 0; i < n && identity; i++)
        identity = perm[i] == i;
    out->permutation = identity ? NULL : perm;
    return CSR_OK;
}

int csr_original_numbering(const csr_model *in, csr_model *out)
{
    uint64_t n = in->num_states;
    if (n > UINT32_MAX)
        return CSR_ERR_TOO_LARGE;
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return CSR_ERR_NOMEM;
    /* new state i is the state of the file whose original number is i */
    for (uint64_t s = 0; s < n; s++)
        order[in->permutation ? in->permutation[s] : s] = (uint32_t)s;
    int rc = csr_renumber(in, order, out);
    free(order);
    return rc;
}

void csr_free_renumbered(csr_model *out)
{
    out->labels.names = NULL; /* borrowed from the model renumbered */
    out->rewards.names = NULL;
    out->actions.names = NULL;
    out->variables.names = NULL;
    csr_free(out);
}
