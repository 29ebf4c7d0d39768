/*
 * reach_split.c - the split of Berger's thesis, section 3.3 (reach.h,
 * reach_solve_split): groups of SCCs in topological order, each solved as a
 * system of its own.
 */
#include <stdlib.h>
#include <string.h>

#include "reach.h"
#include "reach_internal.h"
#include "reach_ref.h"

typedef struct scc_info {
    uint64_t states, choices, transitions, leaving; /* leaving: transitions out of the SCC */
} scc_info;

int reach_solve_split(const csr_model *m, const uint8_t *cls, const uint32_t *scc, uint64_t budget,
                      const uint32_t *mec32, uint64_t num_mecs, const uint8_t *leaving, int maximize,
                      const double *choice_reward, const reach_options *o, const reach_engine *e, double *lower,
                      double *upper, reach_stats *st)
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
    const reach_system whole = {n, m->num_choices, m->num_transitions, m->state_choices, m->choice_transitions,
                                m->targets, m->probabilities, NULL /* the groups say which are solved */, mec32, leaving, num_mecs, maximize,
                                choice_reward};
    uint32_t *mec_local = NULL;
    if (mec32 && num_mecs) {
        mec_local = malloc(num_mecs * sizeof *mec_local);
        if (!mec_local) {
            rc = CSR_ERR_NOMEM;
            goto out;
        }
        memset(mec_local, 0xff, num_mecs * sizeof *mec_local);
    }
    for (uint64_t g = 0; g < G && !rc; g++) {
        reach_subsystem sub;
        uint64_t count = gfirst[g + 1] - gfirst[g];
        rc = reach_subsystem_build(&whole, members + gfirst[g], count, lower, upper, local_of, mec_local, &sub);
        uint64_t its = 0;
        double diff = 0.0, eps = o->epsilon * (double)(g + 1) / (double)G;
        if (!rc) {
            on_cpu[g] = on_cpu[g] || !e->solve;
            if (on_cpu[g])
                st->cpu_groups++;
            rc = on_cpu[g] ? ref_reach_iterate(&sub.y, o, eps, sub.lower, sub.upper, &its, &diff, NULL)
                           : reach_engine_solve(e, &sub.y, o, eps, sub.lower, sub.upper, &its, &diff);
            st->iterations += its;
            if (diff > st->final_difference)
                st->final_difference = diff;
            reach_subsystem_store(&sub, count, lower, upper);
        }
        reach_subsystem_free(&sub);
    }
    free(mec_local);
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
