/*
 * reach_subsystem.c - a part of a system as a system of its own
 * (reach_internal.h, reach_subsystem_build): the groups of Berger's split
 * (reach_split.c) and the SCCs of the topological solver
 * (reach_topological.c), their successors outside fixed.
 */
#include <stdlib.h>
#include <string.h>

#include "reach_internal.h"

int reach_subsystem_build(const reach_system *src, const uint32_t *members, uint64_t count, const double *lower,
                          const double *upper, uint32_t *local_of, uint32_t *mec_local, reach_subsystem *sub)
{
    memset(sub, 0, sizeof *sub);
    uint64_t c = 0, t = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t s = members[i];
        c += src->state_choices[s + 1] - src->state_choices[s];
        t += src->choice_transitions[src->state_choices[s + 1]] - src->choice_transitions[src->state_choices[s]];
    }
    const uint64_t cap = count + t;
    const int mecs = src->mec && mec_local;
    uint32_t *states = malloc((cap ? cap : 1) * sizeof *states);
    uint64_t *sc = malloc((cap + 1) * sizeof *sc), *ct = malloc((c + 1) * sizeof *ct);
    uint32_t *tg = malloc((t ? t : 1) * sizeof *tg), *mec = mecs ? malloc((cap ? cap : 1) * sizeof *mec) : NULL;
    double *pr = malloc((t ? t : 1) * sizeof *pr);
    double *l = malloc((cap ? cap : 1) * sizeof *l), *u = malloc((cap ? cap : 1) * sizeof *u);
    uint8_t *fixed = malloc(cap ? cap : 1), *lv = mecs && src->leaving ? malloc(c ? c : 1) : NULL;
    double *rw = src->choice_reward ? malloc((c ? c : 1) * sizeof *rw) : NULL;
    void *all[11] = {states, sc, ct, tg, mec, pr, l, u, fixed, lv, rw};
    memcpy(sub->owned, all, sizeof all);
    if (!states || !sc || !ct || !tg || (mecs && !mec) || !pr || !l || !u || !fixed ||
        (mecs && src->leaving && !lv) || (src->choice_reward && !rw))
        return CSR_ERR_NOMEM;
    uint64_t nl = count, num_mecs = 0;
    for (uint64_t i = 0; i < count; i++) {
        states[i] = members[i];
        local_of[members[i]] = (uint32_t)i;
    }
    c = t = 0;
    ct[0] = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t s = members[i];
        sc[i] = c;
        for (uint64_t k = src->state_choices[s]; k < src->state_choices[s + 1]; k++) {
            for (uint64_t j = src->choice_transitions[k]; j < src->choice_transitions[k + 1]; j++) {
                uint32_t v = src->targets[j];
                if (local_of[v] == UINT32_MAX) {
                    local_of[v] = (uint32_t)nl;
                    states[nl++] = v;
                }
                tg[t] = local_of[v];
                pr[t++] = src->probabilities[j];
            }
            if (lv)
                lv[c] = src->leaving[k];
            if (rw)
                rw[c] = src->choice_reward[k];
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
        if (mec) {
            uint32_t g = i < count ? src->mec[s] : REACH_NO_MEC;
            if (g != REACH_NO_MEC && mec_local[g] == UINT32_MAX)
                mec_local[g] = (uint32_t)num_mecs++;
            mec[i] = g == REACH_NO_MEC ? REACH_NO_MEC : mec_local[g];
        }
        local_of[s] = UINT32_MAX;
    }
    if (mec)
        for (uint64_t i = 0; i < count; i++)
            if (src->mec[states[i]] != REACH_NO_MEC)
                mec_local[src->mec[states[i]]] = UINT32_MAX;
    reach_system g = {nl, c, t, sc, ct, tg, pr, fixed, mec, lv, num_mecs, src->maximize, rw};
    sub->y = g;
    sub->states = states;
    sub->lower = l;
    sub->upper = u;
    return CSR_OK;
}

void reach_subsystem_store(const reach_subsystem *sub, uint64_t count, double *lower, double *upper)
{
    for (uint64_t i = 0; i < count; i++) {
        lower[sub->states[i]] = sub->lower[i];
        upper[sub->states[i]] = sub->upper[i];
    }
}

void reach_subsystem_free(reach_subsystem *sub)
{
    for (int i = 0; i < 11; i++)
        free(sub->owned[i]);
    memset(sub, 0, sizeof *sub);
}
