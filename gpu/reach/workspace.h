/*
 * workspace.h - the iteration's device buffers, kept across the systems of
 * one engine (internal to gpu/reach/: iterate.cu allocates and uploads,
 * sweep.cu adds the sweep classes' and swaps in the renumbered arrays).
 */
#ifndef GPU_REACH_WORKSPACE_H
#define GPU_REACH_WORKSPACE_H

#include <cuda_runtime.h>
#include <stdint.h>
#include <utility>

#include "reach_gpu.h"
#include "memory.h"
#include "system.cuh"

using gpu::device_array;

/* Device buffers of the iteration, kept across the calls of one context (the
 * groups of the split): they grow, never shrink, and are freed by
 * gpu_reach_close. */
struct vi_workspace {
    device_array<uint32_t> state_first, choice, target, mec;
    device_array<uint16_t> prob_index;
    device_array<double> prob, reward;
    device_array<vi_bounds> bounds;
    device_array<uint8_t> leaving;
    device_array<unsigned long long> mec_best;
    device_array<vi_check> check;
    /* the sweep classes (sweep_order) and the renumbering by them
     * (sweep_renumber): the new arrays, swapped with those above */
    device_array<uint32_t> level, order, class_first, count, branch_first, level_source, frontier;
    device_array<uint8_t> key, sorted_key, scratch;
    device_array<uint32_t> state_first2, choice2, target2, mec2;
    device_array<uint16_t> prob_index2;
    device_array<double> prob2, reward2;
    device_array<vi_bounds> bounds2;
    device_array<uint8_t> leaving2;
    cudaStream_t stream = nullptr;
    ~vi_workspace()
    {
        if (stream)
            cudaStreamDestroy(stream);
    }
    uint64_t bytes() const
    {
        return state_first.bytes + choice.bytes + target.bytes + mec.bytes + prob_index.bytes + prob.bytes +
               bounds.bytes + reward.bytes + leaving.bytes + mec_best.bytes + check.bytes + level.bytes + order.bytes +
               class_first.bytes + count.bytes + branch_first.bytes + level_source.bytes + frontier.bytes +
               key.bytes + sorted_key.bytes + scratch.bytes +
               state_first2.bytes + choice2.bytes + target2.bytes + mec2.bytes + prob_index2.bytes + prob2.bytes +
               reward2.bytes + bounds2.bytes + leaving2.bytes;
    }
};

/* d holds at least count elements (a larger old buffer is kept). */
template <typename T> inline int grow(device_array<T> &d, uint64_t count, csr_status *status)
{
    if (d.p && d.bytes >= (count ? count : 1) * sizeof(T))
        return CSR_OK;
    return d.alloc(count, NULL, status);
}

template <typename T> inline void swap_arrays(device_array<T> &a, device_array<T> &b)
{
    std::swap(a.p, b.p);
    std::swap(a.bytes, b.bytes);
}

/* The sweep classes of an iteration, on the host: class c the entries
 * [first[c], first[c + 1]) of the order. */
struct vi_sweep {
    unsigned classes;
    uint32_t first[GPU_REACH_MAX_SWEEP_CLASSES + 1];
};

#endif
