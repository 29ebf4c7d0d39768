/*
 * engine.cu - the GPU engine of the query layer (reach_gpu.h): the model
 * resident on the device once per run (resident.h), and each step of the
 * reach_engine contract on it; where the device lacks the memory, the
 * step runs as the references do (Prob0/Prob1 on the CPU) or on a graph
 * uploaded for it (the MECs).
 */
#include <new>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "reach_gpu.h"
#include "reach_ref.h"
#include "ref.h"
#include "resident.h"
#include "workspace.h"

extern "C" uint64_t gpu_free_memory(void)
{
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return 0;
    return free_b;
}

extern "C" void gpu_reach_default_options(gpu_reach_options *o)
{
    memset(o, 0, sizeof *o);
    gpu_scc_default_options(&o->scc);
    o->mec_scheme = GPU_MEC_AUTO;
}

/* The resident model, uploaded again if a large system made it give way;
 * NULL where it does not fit (the status cleared: not an error). */
static resident_model *resident_of(gpu_reach_context *cx, int *rc)
{
    *rc = CSR_OK;
    if (!cx->resident) {
        const double t0 = monotonic_seconds();
        resident_model *r = nullptr;
        *rc = resident_open(cx->model, !cx->options.scc.persistent, &r, cx->status);
        if (*rc == CSR_ERR_NOMEM) {
            memset(cx->status, 0, sizeof *cx->status);
            *rc = CSR_OK;
            return nullptr;
        }
        cx->resident = r;
        if (r) {
            cx->stats.resident_bytes = r->bytes;
            cx->stats.resident_upload_s += monotonic_seconds() - t0;
        }
    }
    return (resident_model *)cx->resident;
}

static gpu_mec_options mec_options_of(const gpu_reach_context *cx)
{
    gpu_mec_options mo;
    gpu_mec_default_options(&mo);
    mo.scc = cx->options.scc;
    mo.scheme = cx->options.mec_scheme;
    return mo;
}

static void add_mec_figures(gpu_reach_context *cx, const gpu_mec_stats &gs)
{
    if (gs.scheme)
        cx->stats.mec_scheme_used = gs.scheme;
    cx->stats.mec_upload_s += gs.upload_s;
    cx->stats.mec_resident_s += gs.resident_s;
    cx->stats.mec_download_s += gs.download_s;
}

static int engine_prob01(void *ctx, reach_cache *cache, const reach_query *q, uint8_t *cls)
{
    gpu_reach_context *cx = (gpu_reach_context *)ctx;
    int rc;
    resident_model *r = resident_of(cx, &rc);
    if (rc)
        return rc;
    if (r)
        rc = resident_prob01(*r, q, cls, &cx->stats.prob01_sweeps, NULL, NULL, NULL, cx->status);
    if (!r || rc == CSR_ERR_NOMEM) { /* the model and its transpose do not fit: the same sets on the CPU */
        memset(cx->status, 0, sizeof *cx->status);
        cx->stats.prob01_on_cpu = 1;
        rc = reach_prob01_cpu(cx->model, cache, q, cls);
    }
    return rc;
}

static int engine_prob01_mecs(void *ctx, reach_cache *cache, const reach_query *q, uint8_t *cls, uint32_t *mec)
{
    (void)cache;
    gpu_reach_context *cx = (gpu_reach_context *)ctx;
    int rc;
    resident_model *r = resident_of(cx, &rc);
    if (rc)
        return rc;
    if (!r)
        return CSR_ERR_NOMEM; /* the query layer takes the steps apart */
    const gpu_mec_options mo = mec_options_of(cx);
    gpu_mec_stats gs;
    memset(&gs, 0, sizeof gs);
    rc = resident_prob01(*r, q, cls, &cx->stats.prob01_sweeps, &mo, &gs, mec, cx->status);
    add_mec_figures(cx, gs);
    if (rc == CSR_ERR_NOMEM)
        memset(cx->status, 0, sizeof *cx->status);
    cx->stats.prob1e_by_mecs = rc == CSR_OK;
    return rc;
}

static int engine_maybe_mecs(void *ctx, const uint8_t *cls, const double *choice_reward, uint32_t *mec)
{
    gpu_reach_context *cx = (gpu_reach_context *)ctx;
    const gpu_mec_options mo = mec_options_of(cx);
    gpu_mec_stats gs;
    memset(&gs, 0, sizeof gs);
    int rc = CSR_OK;
    resident_model *r = resident_of(cx, &rc);
    if (rc)
        return rc;
    if (r) { /* the maybe states' sub-MDP on the resident model (rewards: its zero-reward choices) */
        rc = resident_maybe_mecs(*r, cls, choice_reward, &mo, &gs, mec, cx->status);
        if (rc != CSR_ERR_NOMEM) {
            add_mec_figures(cx, gs);
            return rc;
        }
        memset(cx->status, 0, sizeof *cx->status);
    }
    /* no room beside the resident model: the graph uploaded */
    csr_model sub;
    rc = reach_maybe_graph(cx->model, cls, choice_reward, &sub);
    if (!rc)
        rc = gpu_mec_decompose(&sub, &mo, mec, &gs, cx->status);
    csr_free(&sub);
    if (!rc)
        add_mec_figures(cx, gs);
    return rc;
}

static int engine_sccs(void *ctx, const csr_model *m, uint64_t budget, uint32_t *scc)
{
    gpu_reach_context *cx = (gpu_reach_context *)ctx;
    /* the SCC contract's own plan: the model on the device and the engine's buffers */
    if (gpu_scc_bytes_needed(m, &cx->options.scc) > budget) {
        reach_engine ref;
        reach_cpu_engine(m, &ref);
        return ref.sccs(ref.ctx, m, budget, scc);
    }
    gpu_scc_stats gs;
    return gpu_scc_decompose(m, &cx->options.scc, scc, &gs, cx->status);
}

static int engine_bounded(void *ctx, const reach_query *q, uint64_t steps, double *values)
{
    gpu_reach_context *cx = (gpu_reach_context *)ctx;
    int rc;
    resident_model *r = resident_of(cx, &rc);
    if (rc)
        return rc;
    if (r) {
        rc = resident_bounded(*r, cx->model, q, steps, values, cx->status);
        if (rc != CSR_ERR_NOMEM)
            return rc;
        memset(cx->status, 0, sizeof *cx->status);
    }
    return ref_reach_bounded(cx->model, q, steps, values);
}

extern "C" int gpu_reach_engine(const csr_model *m, const gpu_reach_options *o, gpu_reach_context *cx,
                                reach_engine *e, csr_status *status)
{
    memset(cx, 0, sizeof *cx);
    memset(e, 0, sizeof *e);
    cx->options = *o;
    cx->model = m;
    cx->status = status;
    int rc;
    resident_of(cx, &rc);
    if (rc)
        return rc;
    e->model = m;
    e->ctx = cx;
    e->prob01 = engine_prob01;
    e->prob01_mecs = o->scc.persistent ? engine_prob01_mecs : NULL;
    e->maybe_mecs = engine_maybe_mecs;
    e->sccs = engine_sccs;
    e->solve = gpu_reach_iterate;
    e->bounded = engine_bounded;
    e->budget = o->memory_limit ? o->memory_limit : (gpu_free_memory() + cx->stats.resident_bytes) / 10 * 9;
    e->status = status;
    return CSR_OK;
}

extern "C" void gpu_reach_reset_stats(gpu_reach_context *cx)
{
    const uint64_t resident_bytes = cx->stats.resident_bytes;
    const double resident_upload_s = cx->stats.resident_upload_s;
    memset(&cx->stats, 0, sizeof cx->stats);
    cx->stats.resident_bytes = resident_bytes;
    cx->stats.resident_upload_s = resident_upload_s;
}

extern "C" void gpu_reach_close(gpu_reach_context *cx)
{
    resident_close((resident_model *)cx->resident);
    cx->resident = NULL;
    delete (vi_workspace *)cx->workspace;
    cx->workspace = NULL;
}
