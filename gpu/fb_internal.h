/*
 * fb_internal.h - the forward-backward machinery of scc_fb.cu as building
 * blocks for the GPU tools that decompose repeatedly (mec_fb.cu): a graph on
 * the device, its transpose, and one decomposition of given search regions.
 * C++ and internal to gpu/; the public interfaces are scc_fb.h and mec_fb.h.
 *
 * Shapes: n states (n <= 2^32 - 2), t transitions; offsets are 64-bit,
 * states 32-bit.  Every function returns CSR_OK or an error code with the
 * CUDA text in *status (cuda_check.h).
 */
#ifndef FB_INTERNAL_H
#define FB_INTERNAL_H

#include <stdint.h>

#include "csr.h"
#include "cuda_check.h"
#include "scc_fb.h"

namespace fb {

constexpr uint64_t kDone = ~0ull; /* region key of a state outside every search region */

/* Grid-stride loops: for (i = thread_index(); i < n; i += thread_count()). */
__device__ __forceinline__ uint64_t thread_index() { return (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ uint64_t thread_count() { return (uint64_t)gridDim.x * blockDim.x; }

/* A graph in device memory: row[n+1] offsets into col[t]; the transpose
 * rrow/rcol or NULL; the interleaved segments of restructured input (FMSD
 * section 5.1) for states [0, interleaved), or interleaved = 0. */
struct device_graph {
    const uint64_t *row;
    const uint32_t *col;
    const uint64_t *rrow;
    const uint32_t *rcol;
    uint64_t n;
    uint64_t interleaved;
    const uint64_t *seg_first;
    const uint32_t *seg_targets;
};

/* Seconds between begin() and end() on the default stream, by CUDA events. */
struct phase_timer {
    cudaEvent_t start, stop;
    phase_timer() { cudaEventCreate(&start); cudaEventCreate(&stop); }
    ~phase_timer() { cudaEventDestroy(start); cudaEventDestroy(stop); }
    phase_timer(const phase_timer &) = delete;
    phase_timer &operator=(const phase_timer &) = delete;
    void begin() { cudaEventRecord(start); }
    double end()
    {
        float ms = 0.0f;
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        cudaEventElapsedTime(&ms, start, stop);
        return ms / 1e3;
    }
};

/* Device memory owned by one object, freed by its destructor. */
template <typename T> struct device_array {
    T *p = nullptr;
    device_array() = default;
    device_array(const device_array &) = delete;
    device_array &operator=(const device_array &) = delete;
    ~device_array() { release(); }
    void release()
    {
        if (p)
            cudaFree(p);
        p = nullptr;
    }
    /* count elements (at least one is allocated); adds the bytes to *total. */
    int alloc(uint64_t count, uint64_t *total, csr_status *status)
    {
        release();
        size_t bytes = (size_t)(count ? count : 1) * sizeof(T);
        CUDA_TRY(cudaMalloc((void **)&p, bytes));
        if (total)
            *total += bytes;
        return CSR_OK;
    }
};

/* The model on the device: its choice offsets state_choices[n+1] and
 * choice_transitions[c+1] (release them when only SCCs are wanted), the
 * transitions per state row[n+1]/col[t] (choices do not matter for SCCs), and
 * its segments when it is restructured. */
struct model_graph {
    device_array<uint64_t> state_choices, choice_transitions;
    device_array<uint64_t> row, seg_first;
    device_array<uint32_t> col, seg_targets;
    device_graph graph(uint64_t n, uint64_t interleaved) const;
};
int upload_model_graph(const csr_model *m, model_graph &mg, uint64_t *bytes, csr_status *status);

/* The transpose of a graph, built on the GPU (counts, CUB's exclusive scan,
 * scatter); rebuilt in place for graphs of at most the size it was made for. */
struct transpose {
    device_array<uint64_t> rrow;
    device_array<uint32_t> rcol;
    device_array<unsigned long long> fill;
    device_array<unsigned char> scan_temp;
    size_t scan_temp_bytes = 0;
};
int transpose_alloc(transpose &tr, uint64_t n, uint64_t t, uint64_t *bytes, csr_status *status);
/* Fill tr from g.row/g.col and point g at it. */
int transpose_build(device_graph &g, transpose &tr, csr_status *status);

/* Bytes the transpose of n states and t transitions takes, with 64 MiB to spare. */
uint64_t transpose_bytes(uint64_t n, uint64_t t);

/* Working arrays of the decomposition (about 26n bytes, 20n more for
 * trimming over queues, 24n for the pivot table). */
struct workspace {
    uint64_t n = 0;
    device_array<uint64_t> key, slot_key;
    device_array<uint32_t> scc, pivot, slot_pivot, in_left, out_left, gone, queue_a, queue_b;
    device_array<uint8_t> fw, bw, has_in;
    device_array<unsigned long long> counter, ring, stats;
    device_array<int> grew;
};
int workspace_alloc(workspace &w, uint64_t n, int with_transpose, const gpu_scc_options *opt, uint64_t *bytes,
                    csr_status *status);

/*
 * One decomposition of g into SCCs (FMSD Algorithm 1, or 2 with
 * opt->bounding), all regions at once.  On entry w.key[s] names s's search
 * region (states in different regions are never in one SCC; kDone: s takes
 * no part); on return every state that took part has w.scc[s] = a state of
 * its SCC that names it (the pivot, or s when trimmed) and key kDone.
 * candidate: NULL, or a per-state flag restricting the first pivot selection
 * to flagged states where a region has one (the J sets of FMSD section 5.3,
 * optimisation 2).  Counts and phase times are added to *st.
 */
int decompose(const device_graph &g, workspace &w, const gpu_scc_options *opt, const uint8_t *candidate,
              gpu_scc_stats *st, csr_status *status);

/* Replace every id in ids[0..n) (UINT32_MAX: none, left alone) by the smallest
 * state with that id: canonical labels.  smallest: n scratch entries. */
int canonical_ids(uint32_t *ids, uint32_t *smallest, uint64_t n, csr_status *status);

} /* namespace fb */

#endif
