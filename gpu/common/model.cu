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

/* Calls f(choice, target) for each transition of state s, the transitions
 * of the state shared by the kRowLanes lanes of the group (model.h): with
 * choices, the state's transitions are offsets[state_choices[s]] ..
 * offsets[state_choices[s + 1]], else offsets[s] .. offsets[s + 1]; the
 * choice is looked up only with want_choice (else 0). */
template <typename G, typename F>
__device__ __forceinline__ void for_each_transition(const G &group, uint64_t s, const uint64_t *__restrict__ state_choices,
                                                    const uint64_t *__restrict__ offsets,
                                                    const uint32_t *__restrict__ targets, bool want_choice, F f)
{
    const uint64_t first = offsets[state_choices ? state_choices[s] : s];
    const uint64_t last = offsets[state_choices ? state_choices[s + 1] : s + 1];
    for (uint64_t i = first + group.thread_rank(); i < last; i += kRowLanes)
        f(state_choices && want_choice ? (uint32_t)choice_of(state_choices, offsets, s, i) : 0u, targets[i]);
}

static __global__ void transpose_count(uint64_t n, const uint64_t *__restrict__ state_choices,
                                       const uint64_t *__restrict__ offsets, const uint32_t *__restrict__ targets,
                                       unsigned long long *__restrict__ count)
{
    const auto group = row_group();
    for (uint64_t s = group_index(); s < n; s += group_count())
        for_each_transition(group, s, state_choices, offsets, targets, false,
                            [&](uint32_t, uint32_t v) { atomicAdd(&count[v], 1ull); });
}

static __global__ void transpose_scatter(uint64_t n, const uint64_t *__restrict__ state_choices,
                                         const uint64_t *__restrict__ offsets, const uint32_t *__restrict__ targets,
                                         unsigned long long *__restrict__ fill, uint32_t *__restrict__ source,
                                         uint32_t *__restrict__ choice)
{
    const auto group = row_group();
    for (uint64_t s = group_index(); s < n; s += group_count())
        for_each_transition(group, s, state_choices, offsets, targets, choice != nullptr, [&](uint32_t k, uint32_t v) {
                                unsigned long long at = atomicAdd(&fill[v], 1ull);
                                source[at] = (uint32_t)s;
                                if (choice)
                                    choice[at] = k;
                            });
}

/* smallest[id] = the smallest u with ids[u] == id.  The lanes of a warp
 * with the same id take their minimum first (__match_any_sync), and the
 * smallest such lane tries the atomic only where its value is below the
 * one it reads: one component of all 9M states of phil7 made every thread
 * of the grid wait on one address (6.6 ms, ncu on the H100, issue 13). */
static __global__ void smallest_member(uint64_t n, const uint32_t *__restrict__ ids, uint32_t *__restrict__ smallest)
{
    const unsigned lane = threadIdx.x % 32;
    for (uint64_t first = thread_index() - lane; first < n; first += thread_count()) { /* the same trips in a warp */
        const uint64_t u = first + lane;
        const uint32_t id = u < n ? ids[u] : UINT32_MAX;
        const unsigned peers = __match_any_sync(0xffffffffu, id);
        const uint32_t least = __reduce_min_sync(peers, (uint32_t)u);
        if (id != UINT32_MAX && lane == (unsigned)__ffs(peers) - 1 && least < __ldcg(&smallest[id]))
            atomicMin(&smallest[id], least);
    }
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
    CUDA_TRY(cudaStreamSynchronize(0)); /* this thread's default stream */
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
        transpose_count<<<grid_for_rows(n, kThreads), kThreads>>>(n, state_choices, offsets, targets, fill);
        CUDA_TRY_LAUNCH();
    }
    size_t bytes = scan_bytes;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp, bytes, fill, (unsigned long long *)first, vertices + 1));
    CUDA_TRY(cudaMemcpyAsync(fill, first, (vertices + 1) * sizeof(uint64_t), cudaMemcpyDeviceToDevice));
    if (!n)
        return CSR_OK;
    transpose_scatter<<<grid_for_rows(n, kThreads), kThreads>>>(n, state_choices, offsets, targets, fill, source,
                                                           state_choices ? choice : nullptr);
    CUDA_TRY_LAUNCH();
    return CSR_OK;
}

int model_transpose::build_for(const device_model &m, csr_status *status)
{
    if (built_for_ == m.targets)
        return CSR_OK;
    TRY(tr.build(m.n, m.state_choices, m.choice_transitions, m.targets, status));
    built_for_ = m.targets;
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
