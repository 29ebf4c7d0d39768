/*
 * engine.cu - the SCC contract (engine.h) and the public SCC interface
 * (scc.h): engine choice, planning, the upload and the way back.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "engine.h"
#include "timer.h"

namespace gpu {

std::unique_ptr<scc_engine> make_lp_engine(const gpu_scc_options *options);
std::unique_ptr<scc_engine> make_fb_engine(const gpu_scc_options *options);

std::unique_ptr<scc_engine> make_scc_engine(const gpu_scc_options *o)
{
    if (o->engine == GPU_SCC_FB)
        return make_fb_engine(o);
    return make_lp_engine(o);
}

/* What a decomposer plans (measured by bytes_needed, carved by init): the
 * engine's buffers, then the model's transpose where the engine or the
 * caller reads it.  Returns whether the transpose is planned. */
static bool plan_decomposer(arena &a, scc_engine &e, model_transpose &transpose, const model_shape &s, scc_goal goal,
                            bool choices, bool caller_transpose)
{
    e.plan(a, s, goal, choices);
    const bool with = caller_transpose || e.reads_transpose(goal);
    if (with) /* the choices of the transpose: for the MEC goal, enabled choices and the caller's attractor */
        transpose.plan(a, s, goal == scc_goal::mecs || choices || caller_transpose);
    return with;
}

uint64_t scc_decomposer::bytes_needed(const gpu_scc_options *o, const model_shape &s, scc_goal goal, bool choices,
                                      bool caller_transpose)
{
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess)
        return 0;
    std::unique_ptr<scc_engine> e = make_scc_engine(o);
    arena a;
    model_transpose transpose;
    plan_decomposer(a, *e, transpose, s, goal, choices, caller_transpose);
    return a.bytes();
}

int scc_decomposer::init(const gpu_scc_options *o, const model_shape &s, scc_goal goal, bool choices,
                         bool caller_transpose, csr_status *status)
{
    engine_ = make_scc_engine(o);
    goal_ = goal;
    if (goal == scc_goal::mecs && !engine_->finds_mecs())
        return csr_fail(status, CSR_ERR_USAGE, "the %s engine does not find MECs", engine_->name());
    return plan_and_allocate(arena_,
                             [&](arena &a) {
                                 has_transpose_ =
                                     plan_decomposer(a, *engine_, transpose_, s, goal, choices, caller_transpose);
                             },
                             &planned_, status);
}

int scc_decomposer::decompose(const device_model &m, const scc_subsystem &sub, uint32_t *component,
                              gpu_scc_stats *stats, csr_status *status)
{
    phase_timer whole;
    whole.begin();
    stats->engine = engine_->name();
    TRY(engine_->decompose(m, sub, goal_, component, has_transpose_ ? &transpose_ : nullptr, stats, status));
    CUDA_TRY(cudaGetLastError());
    stats->resident_s += whole.end();
    return CSR_OK;
}

int scc_decomposer::transpose(const device_model &m, const graph_transpose **out, csr_status *status)
{
    if (!has_transpose_)
        return csr_fail(status, CSR_ERR_USAGE, "scc_decomposer: the transpose was not planned (init's caller_transpose)");
    TRY(transpose_.build_for(m, status));
    *out = &transpose_.tr;
    return CSR_OK;
}

} /* namespace gpu */

/* ---- the public interface (scc.h) ----------------------------------------- */

extern "C" void gpu_scc_default_options(gpu_scc_options *o)
{
    memset(o, 0, sizeof *o);
    o->engine = GPU_SCC_AUTO;
    o->peel = -1;
    o->peel_async = 0;
    o->blocks = 0;
    o->sweeps = 0;
    o->label_order = GPU_LP_ALTERNATE;
    o->hybrid = 1;
    o->bounding = 0;
    o->warp_aggregation = 1;
    o->transpose = 1;
    o->cache_iterations = 0;
    o->queue_trimming = 1;
    o->persistent = 1;
}

extern "C" const char *gpu_scc_engine_name(gpu_scc_engine_id e)
{
    switch (e) {
    case GPU_SCC_AUTO: return "auto";
    case GPU_SCC_LP: return "lp";
    case GPU_SCC_FB: return "fb";
    }
    return NULL;
}

extern "C" int gpu_scc_engine_by_name(const char *name)
{
    for (int e = GPU_SCC_AUTO; e <= GPU_SCC_FB; e++)
        if (!strcmp(name, gpu_scc_engine_name((gpu_scc_engine_id)e)))
            return e;
    return -1;
}

namespace {

/* The model and the result buffers of one decomposition. */
struct scc_job {
    gpu::device_model model;
    uint32_t *component = nullptr, *scratch = nullptr;
    void plan(gpu::arena &a, const gpu::model_shape &s)
    {
        model.plan(a, s);
        component = a.take<uint32_t>(s.n);
        scratch = a.take<uint32_t>(s.n);
    }
};

} /* namespace */

extern "C" uint64_t gpu_scc_bytes_needed(const csr_model *m, const gpu_scc_options *o)
{
    const gpu::model_shape s = gpu::shape_of(m);
    uint64_t engine = gpu::scc_decomposer::bytes_needed(o, s, gpu::scc_goal::sccs, false);
    if (!engine)
        return 0;
    gpu::arena a;
    scc_job job;
    job.plan(a, s);
    return a.bytes() + engine;
}

extern "C" int gpu_scc_decompose(const csr_model *m, const gpu_scc_options *o, uint32_t *scc_out,
                                 gpu_scc_stats *stats, csr_status *status)
{
    gpu_scc_stats st;
    memset(&st, 0, sizeof st);
    const uint64_t n = m->num_states;
    if (n >= UINT32_MAX - 1 || m->num_choices >= UINT32_MAX)
        return csr_fail(status, CSR_ERR_TOO_LARGE,
                        "%llu states, %llu choices: the GPU decomposition takes at most 2^32 - 2 states and "
                        "2^32 - 1 choices",
                        (unsigned long long)n, (unsigned long long)m->num_choices);
    st.engine = gpu_scc_engine_name(o->engine == GPU_SCC_FB ? GPU_SCC_FB : GPU_SCC_LP);
    if (n == 0) {
        if (stats)
            *stats = st;
        return CSR_OK;
    }
    const gpu::model_shape shape = gpu::shape_of(m);
    const uint64_t base = gpu::device_bytes_now();
    gpu::reset_peak();
    gpu::phase_timer timer;
    gpu::arena job_arena;
    scc_job job;
    gpu::scc_decomposer dec;
    uint64_t job_bytes = 0;

    timer.begin();
    TRY(gpu::plan_and_allocate(job_arena, [&](gpu::arena &a) { job.plan(a, shape); }, &job_bytes, status));
    TRY(job.model.upload(m, status));
    st.upload_s = timer.end();
    TRY(dec.init(o, shape, gpu::scc_goal::sccs, false, false, status));
    TRY(dec.decompose(job.model, gpu::scc_subsystem(), job.component, &st, status));

    timer.begin();
    TRY(gpu::canonical_ids(job.component, job.scratch, n, status));
    CUDA_TRY(cudaMemcpy(scc_out, job.component, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    st.download_s = timer.end();
    st.device_bytes_planned = job_bytes + dec.planned_bytes();
    st.device_bytes_allocated = gpu::device_bytes_peak() - base;
    st.components = 0;
    for (uint64_t s = 0; s < n; s++)
        st.components += scc_out[s] == s;
    if (stats)
        *stats = st;
    return CSR_OK;
}
