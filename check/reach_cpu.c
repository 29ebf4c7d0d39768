/*
 * reach_cpu.c - the engine of the sequential references (reach.h,
 * reach_cpu_engine): gpu-vi --cpu, and every step another engine leaves out;
 * Prob0/Prob1 by reach_prob01_cpu (the reference's classes, Prob1E
 * incrementally, or by the MEC quotient with the maybe MECs in one step);
 * systems SCC by SCC (reach_solve_topological) unless the options say not.
 */
#include <stdlib.h>
#include <string.h>

#include "reach.h"
#include "reach_internal.h"
#include "reach_ref.h"
#include "ref.h"

static int engine_prob01(void *ctx, reach_cache *cache, const reach_query *q, uint8_t *cls)
{
    return reach_prob01_cpu((const csr_model *)ctx, cache, q, cls);
}

static int engine_maybe_mecs(void *ctx, const uint8_t *cls, const double *choice_reward, uint32_t *mec)
{
    const csr_model *m = (const csr_model *)ctx;
    const uint64_t n = m->num_states;
    uint64_t *wide = malloc((n ? n : 1) * sizeof *wide);
    csr_model sub;
    int rc = wide ? reach_maybe_graph(m, cls, choice_reward, &sub) : CSR_ERR_NOMEM;
    if (!rc) {
        ref_mec_stats ms;
        rc = ref_mec_basic(&sub, wide, &ms);
        csr_free(&sub);
    }
    if (!rc)
        reach_narrow_ids(wide, mec, n);
    free(wide);
    return rc;
}

/* The classes and, in one step where the MEC quotient gave the classes, the
 * maybe MECs; else the MECs of the classes' maybe states as maybe_mecs. */
static int engine_prob01_mecs(void *ctx, reach_cache *cache, const reach_query *q, uint8_t *cls, uint32_t *mec)
{
    int found = 0;
    int rc = reach_prob01_mecs_cpu((const csr_model *)ctx, cache, q, cls, mec, &found);
    return rc || found ? rc : engine_maybe_mecs(ctx, cls, NULL, mec);
}

static int engine_sccs(void *ctx, const csr_model *model, uint64_t budget, uint32_t *scc)
{
    (void)ctx;
    (void)budget;
    const uint64_t n = model->num_states;
    uint64_t *wide = malloc((n ? n : 1) * sizeof *wide);
    ref_scc_stats ss;
    int rc = wide ? ref_scc_tarjan(model, NULL, NULL, wide, &ss) : CSR_ERR_NOMEM;
    if (!rc)
        reach_narrow_ids(wide, scc, n);
    free(wide);
    return rc;
}

static int engine_bounded(void *ctx, const reach_query *q, uint64_t steps, double *values)
{
    return ref_reach_bounded((const csr_model *)ctx, q, steps, values);
}

/* SCC by SCC unless the options ask for the system whole. */
static int engine_solve(const reach_system *y, const reach_options *o, double eps, double *lower, double *upper,
                        uint64_t *iterations, double *difference, void *ctx)
{
    return o->topological ? reach_solve_topological(y, o, eps, lower, upper, iterations, difference, ctx)
                          : ref_reach_iterate(y, o, eps, lower, upper, iterations, difference, ctx);
}

void reach_cpu_engine(const csr_model *model, reach_engine *e)
{
    memset(e, 0, sizeof *e);
    e->model = model;
    e->ctx = (void *)model;
    e->prob01 = engine_prob01;
    e->prob01_mecs = engine_prob01_mecs;
    e->maybe_mecs = engine_maybe_mecs;
    e->sccs = engine_sccs;
    e->solve = engine_solve;
    e->bounded = engine_bounded;
    e->budget = UINT64_MAX;
}
