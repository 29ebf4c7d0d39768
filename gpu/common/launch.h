/*
 * launch.h - launch geometry from the device (internal to gpu/), after
 * ECL-SCC's convention: grid-stride loops whose grids fill the device with
 * SMs * (maxThreadsPerSM / threads) blocks, persistent (cooperative) kernels
 * with as many blocks as the occupancy calculator says are co-resident.
 *
 * The device is the current one (cudaGetDevice); its geometry is read once
 * per device and process.
 */
#ifndef GPU_LAUNCH_H
#define GPU_LAUNCH_H

#include <stdint.h>

#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>

namespace gpu {

/* Grid-stride loops: for (i = thread_index(); i < n; i += thread_count()). */
__device__ __forceinline__ uint64_t thread_index() { return (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ uint64_t thread_count() { return (uint64_t)gridDim.x * blockDim.x; }

/* Add every thread's `mine` to *total with one atomic per block (a block
 * reduction first): a counter that each thread of a grid adds to would take
 * a quarter of a million atomics on one address per launch (0.15 ms on an
 * H200; ncu on leader7, issue 13).  Every thread of the block must call it;
 * Threads is the block size of the launch. */
template <int Threads>
__device__ __forceinline__ void block_add(unsigned long long *total, unsigned long long mine)
{
    using reduce = cub::BlockReduce<unsigned long long, Threads>;
    __shared__ typename reduce::TempStorage temp;
    unsigned long long sum = reduce(temp).Sum(mine);
    if (threadIdx.x == 0 && sum)
        atomicAdd(total, sum);
}

struct device_geometry {
    int sms;            /* multiprocessors */
    int threads_per_sm; /* most resident threads per multiprocessor */
};

/* The current device's geometry (zeros when there is no device). */
const device_geometry &geometry();

/* Blocks of `threads` for a grid-stride loop over `items`: no more than the
 * items need, no more than fill the device (SMs * (maxThreadsPerSM / threads)),
 * at least 1. */
unsigned grid_for(uint64_t items, int threads);

/* Blocks of a persistent kernel that are all resident at once (the
 * occupancy calculator times the SMs), capped by `cap` when cap > 0; 0 when
 * the kernel cannot be resident at all. */
unsigned resident_blocks(const void *kernel, int threads, unsigned cap);

} /* namespace gpu */

#endif
