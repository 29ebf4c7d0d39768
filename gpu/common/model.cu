/*
 * model.cu - the model on the device, transposes, canonical ids (model.h).
 */
#include <cub/cub.cuh>

#include "cuda_check.h"
#include "launch.h"
#include "model.h"

namespace gpu {

namespace {

constexpr int kThreads = 256;

static __global__ void derive_state_offsets(uint64_t n, const uint64_t *__restrict__ state_choices,
                                            const uint64_t *__restrict__ choice_transitions,
                                            uint64_t *__restrict__ row)
{
    for (uint64_t s = thread_index(); s <= n; s += thread_count())
        row[s] = choice_transitions[state_choices[s]];
}

/* Calls f(source state, choice, target) for the transitions of state s. */
template <typename F>
__device__ __forceinline__ void for_each_transition(uint64_t s, const uint64_t *__restrict__ state_choices,
                                                    const uint64_t *__restrict__ offsets,
                                                    const uint32_t *__restrict__ targets, F f)
{
    if (state_choices) {
        for (uint64_t k = state_choices[s]; k < state_choices[s + 1]; k++)
            for (uint64_t i = offsets[k]; i < offsets[k + 1]; i++)
                f((uint32_t)k, targets[i]);
    } else {
        for (uint64_t i = offsets[s]; i < offsets[s + 1]; i++)
            f((uint32_t)s, targets[i]);
    }
}

static __global__ void transpose_count(uint64_t n, const uint64_t *__restrict__ state_choices,
                                       const uint64_t *__restrict__ offsets, const uint32_t *__restrict__ targets,
                                       unsigned long long *__restrict__ count)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        for_each_transition(s, state_choices, offsets, targets,
                            [&](uint32_t, uint32_t v) { atomicAdd(&count[v], 1ull); });
}

static __global__ void transpose_scatter(uint64_t n, const uint64_t *__restrict__ state_choices,
                                         const uint64_t *__restrict__ offsets, const uint32_t *__restrict__ targets,
                                         unsigned long long *__restrict__ fill, uint32_t *__restrict__ source,
                                         uint32_t *__restrict__ choice)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count())
        for_each_transition(s, state_choices, offsets, targets, [&](uint32_t k, uint32_t v) {
            unsigned long long at = atomicAdd(&fill[v], 1ull);
            source[at] = (uint32_t)s;
            if (choice)
                choice[at] = k;
        });
}

static __global__ void smallest_member(uint64_t n, const uint32_t *__restrict__ ids, uint32_t *__restrict__ smallest)
{
    for (uint64_t u = thread_index(); u < n; u += thread_count())
        if (ids[u] != UINT32_MAX)
            atomicMin(&smallest[ids[u]], (uint32_t)u);
}

static __global__ void rename_to_smallest(uint64_t n, uint32_t *__restrict__ ids, const uint32_t *__restrict__ smallest)
{
    for (uint64_t u = thread_index(); u < n; u += thread_count())
        if (ids[u] != UINT32_MAX)
            ids[u] = smallest[ids[u]];
}

} /* namespace */

model_shape shape_of(const csr_model *m)
{
    model_shape s = {m->num_states, m->num_choices, m->num_transitions, 0, 0};
    if (m->segment_bound && m->interleaved_states) {
        s.segments = m->num_segments;
        s.segment_entries = m->segment_first[m->num_segments];
    }
    return s;
}

void device_model::plan(arena &a, const model_shape &s)
{
    n = s.n;
    c = s.c;
    t = s.t;
    segments = s.segments;
    state_choices = a.take<uint64_t>(n + 1);
    choice_transitions = a.take<uint64_t>(c + 1);
    row = a.take<uint64_t>(n + 1);
    targets = a.take<uint32_t>(t);
    seg_first = s.segments ? a.take<uint64_t>(s.segments + 1) : nullptr;
    seg_targets = s.segments ? a.take<uint32_t>(s.segment_entries) : nullptr;
}

int device_model::upload(const csr_model *m, csr_status *status)
{
    CUDA_TRY(cudaMemcpy(state_choices, m->state_choices, (n + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(choice_transitions, m->choice_transitions, (c + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
    if (t)
        CUDA_TRY(cudaMemcpy(targets, m->targets, t * sizeof(uint32_t), cudaMemcpyHostToDevice));
    derive_state_offsets<<<grid_for(n + 1, kThreads), kThreads>>>(n, state_choices, choice_transitions, row);
    CUDA_TRY_LAUNCH();
    interleaved = 0;
    if (segments) {
        uint64_t entries = m->segment_first[m->num_segments];
        CUDA_TRY(cudaMemcpy(seg_first, m->segment_first, (segments + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMemcpy(seg_targets, m->segment_targets, entries * sizeof(uint32_t), cudaMemcpyHostToDevice));
        interleaved = m->interleaved_states;
    }
    CUDA_TRY(cudaDeviceSynchronize());
    return CSR_OK;
}

void graph_transpose::plan(arena &a, uint64_t n, uint64_t t, bool with_choices)
{
    first = a.take<uint64_t>(n + 1);
    source = a.take<uint32_t>(t);
    choice = with_choices ? a.take<uint32_t>(t) : nullptr;
    fill = a.take<unsigned long long>(n + 1);
    scan_bytes = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, fill, (unsigned long long *)first, n + 1);
    scan_temp = a.take<unsigned char>(scan_bytes);
}

int graph_transpose::build_over(uint64_t n, uint64_t vertices, const uint64_t *state_choices, const uint64_t *offsets,
                                const uint32_t *targets, csr_status *status)
{
    CUDA_TRY(cudaMemsetAsync(fill, 0, (vertices + 1) * sizeof(unsigned long long)));
    if (n) {
        transpose_count<<<grid_for(n, kThreads), kThreads>>>(n, state_choices, offsets, targets, fill);
        CUDA_TRY_LAUNCH();
    }
    size_t bytes = scan_bytes;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp, bytes, fill, (unsigned long long *)first, vertices + 1));
    CUDA_TRY(cudaMemcpyAsync(fill, first, (vertices + 1) * sizeof(uint64_t), cudaMemcpyDeviceToDevice));
    if (!n)
        return CSR_OK;
    transpose_scatter<<<grid_for(n, kThreads), kThreads>>>(n, state_choices, offsets, targets, fill, source,
                                                           state_choices ? choice : nullptr);
    CUDA_TRY_LAUNCH();
    return CSR_OK;
}

int canonical_ids(uint32_t *ids, uint32_t *smallest, uint64_t n, csr_status *status)
{
    CUDA_TRY(cudaMemsetAsync(smallest, 0xff, n * sizeof(uint32_t)));
    smallest_member<<<grid_for(n, kThreads), kThreads>>>(n, ids, smallest);
    CUDA_TRY_LAUNCH();
    rename_to_smallest<<<grid_for(n, kThreads), kThreads>>>(n, ids, smallest);
    CUDA_TRY_LAUNCH();
    return CSR_OK;
}

} /* namespace gpu */
