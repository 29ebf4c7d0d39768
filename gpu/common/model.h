/*
 * model.h - a model's graph on the device and the blocks built from it that
 * every engine and caller shares (internal to gpu/): the upload, the
 * transpose (FMSD section 5.1: built on the GPU), canonical component ids.
 *
 * Shapes: n states (n <= 2^32 - 2), c choices (c <= 2^32 - 1), t
 * transitions; offsets are u64, states and choices u32.  Every function
 * returns CSR_OK or an error code with the CUDA text in *status.
 */
#ifndef GPU_MODEL_H
#define GPU_MODEL_H

#include <stdint.h>

#include <cooperative_groups.h>

#include "csr.h"
#include "launch.h"
#include "memory.h"

namespace gpu {

/* The sizes a plan needs. */
struct model_shape {
    uint64_t n, c, t;
    uint64_t segments, segment_entries; /* restructured input (FMSD section 5.1); 0: none */
};
model_shape shape_of(const csr_model *m);

/* A csr_model's graph on the device (no probabilities): state_choices[n+1],
 * choice_transitions[c+1], targets[t], and row[n+1] = the first transition
 * of each state (choice_transitions[state_choices[s]]); the interleaved
 * segments of restructured input for states [0, interleaved), else
 * interleaved = 0 and no segments. */
struct device_model {
    uint64_t n = 0, c = 0, t = 0;
    uint64_t *state_choices = nullptr, *choice_transitions = nullptr, *row = nullptr;
    uint32_t *targets = nullptr;
    uint64_t interleaved = 0, segments = 0;
    uint64_t *seg_first = nullptr;
    uint32_t *seg_targets = nullptr;

    /* Reserve the buffers of a model of shape s (measuring or carving). */
    void plan(arena &a, const model_shape &s);
    /* Copy m into the carved buffers (host to device) and derive row on the GPU. */
    int upload(const csr_model *m, csr_status *status);
};

/* The transpose of a graph: for each state v, the transitions into v are
 * entries [first[v], first[v+1]) of source (their states) and, when planned
 * with choices, of choice (their choices).  Built on the GPU by counting,
 * CUB's exclusive scan and a scatter; entries of one state in no fixed order. */
struct graph_transpose {
    uint64_t *first = nullptr;
    uint32_t *source = nullptr, *choice = nullptr;
    unsigned long long *fill = nullptr;
    void *scan_temp = nullptr;
    size_t scan_bytes = 0;

    void plan(arena &a, uint64_t n, uint64_t t, bool with_choices);
    /* The transpose of the graph whose state s has choices [state_choices[s],
     * state_choices[s+1]) with transitions [offsets[k], offsets[k+1]) to
     * targets[...]; state_choices NULL: state s's transitions are
     * [offsets[s], offsets[s+1]) (then no choices are recorded).  At most the
     * n and t planned. */
    int build(uint64_t n, const uint64_t *state_choices, const uint64_t *offsets, const uint32_t *targets,
              csr_status *status)
    {
        return build_over(n, n, state_choices, offsets, targets, status);
    }
    /* The same for a graph whose targets range over vertices >= n states:
     * first[] over [0, vertices] (planned as n = vertices), sources [0, n)
     * (gpu/multi: a part's own states, its targets own and foreign). */
    int build_over(uint64_t n, uint64_t vertices, const uint64_t *state_choices, const uint64_t *offsets,
                   const uint32_t *targets, csr_status *status);
};

/* The choice-level transpose of a model on the device, one for a whole job
 * (Storm's `cache` of performSccDecomposition): the SCC engines' peeling
 * and the MEC attractor of the round-based scheme read the same one, which
 * is built the first time one of them asks (where nothing asks, phil7's 82M
 * transitions, it is never paid for) and kept while the model is the same.
 * leader7's MECs built it twice before (0.64 ms of ncu time for both). */
struct model_transpose {
    graph_transpose tr; /* with choices unless planned without */

    /* with_choices: tr.choice too, which only the MEC goal and an SCC goal
     * over enabled choices read (gpu-scc's job leaves it out: t * 4 bytes
     * less to plan and to scatter). */
    void plan(arena &a, const model_shape &s, bool with_choices)
    {
        tr.plan(a, s.n, s.t, with_choices);
        built_for_ = nullptr;
    }
    /* Build tr for m unless it already holds m's transpose.  Errors:
     * CSR_ERR_DEVICE. */
    int build_for(const device_model &m, csr_status *status);

  private:
    const uint32_t *built_for_ = nullptr; /* the targets tr was built from */
};

/* A batch of N entries of a choice-level transpose (graph_transpose's
 * source and choice, or the like), those of [e, end): on[j] whether entry
 * e + j is one, s[j] its predecessor and k[j] that predecessor's choice (0
 * where on[j] is false).  The drains go through the entries into a state a
 * batch at a time, the batch's loads, then its atomics, in flight together
 * (the MEC attractor, Prob0/Prob1 and the peeling's reverse loops). */
template <int N>
__device__ __forceinline__ void load_transpose_batch(const uint32_t *__restrict__ source,
                                                     const uint32_t *__restrict__ choice, uint64_t e, uint64_t end,
                                                     uint32_t (&s)[N], uint32_t (&k)[N], bool (&on)[N])
{
#pragma unroll
    for (int j = 0; j < N; j++) {
        on[j] = e + j < end;
        s[j] = on[j] ? source[e + j] : 0;
        k[j] = on[j] ? choice[e + j] : 0;
    }
}

/* Kernels that read every transition of the live states take a state per
 * group of kRowLanes lanes, the lanes over the state's row (its transitions
 * row[s] .. row[s + 1], all choices together), so that a warp's loads of
 * targets are consecutive words; a thread a state walking its own row read
 * 32 rows at once a word each (issue 13).  For device_model::row. */
constexpr int kRowLanes = 8;

/* The row group of this thread, and the grid-stride loop over states by
 * groups: for (s = group_index(); s < n; s += group_count()); launched with
 * grid_for_rows(n, threads) blocks. */
__device__ __forceinline__ cooperative_groups::thread_block_tile<kRowLanes> row_group()
{
    return cooperative_groups::tiled_partition<kRowLanes>(cooperative_groups::this_thread_block());
}
__device__ __forceinline__ uint64_t group_index() { return thread_index() / kRowLanes; }
__device__ __forceinline__ uint64_t group_count() { return thread_count() / kRowLanes; }
inline unsigned grid_for_rows(uint64_t n, int threads) { return grid_for(n * kRowLanes, threads); }

/* The choice of state s that holds transition i (row[s] <= i < row[s + 1]):
 * a binary search over the state's choices. */
__device__ __forceinline__ uint64_t choice_of(const uint64_t *__restrict__ state_choices,
                                              const uint64_t *__restrict__ choice_transitions, uint64_t s, uint64_t i)
{
    uint64_t lo = state_choices[s], hi = state_choices[s + 1] - 1;
    while (lo < hi) {
        const uint64_t mid = (lo + hi + 1) / 2;
        if (choice_transitions[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Replace every id in ids[0..n) (UINT32_MAX: none, left alone) by the
 * smallest state with that id: canonical labels, comparable byte for byte.
 * smallest: n scratch entries. */
int canonical_ids(uint32_t *ids, uint32_t *smallest, uint64_t n, csr_status *status);

} /* namespace gpu */

#endif
