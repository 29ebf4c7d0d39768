/*
 * cuda_check.h - every CUDA call and launch checked (internal to gpu/).
 *
 * CUDA_TRY(call) returns CSR_ERR_IO from the enclosing function, with the
 * CUDA error text in *status, when call fails; CUDA_TRY_LAUNCH() does the
 * same for the last kernel launch.  Functions using them take a csr_status
 * *status and return int.
 */
#ifndef CUDA_CHECK_H
#define CUDA_CHECK_H

#include <cuda_runtime.h>

#include "csr.h"

#define CUDA_TRY(call)                                                                             \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess)                                                                   \
            return csr_fail(status, err_ == cudaErrorMemoryAllocation ? CSR_ERR_NOMEM : CSR_ERR_IO, \
                            "CUDA: %s (%s:%d)", cudaGetErrorString(err_), __FILE__, __LINE__);     \
    } while (0)

#define CUDA_TRY_LAUNCH() CUDA_TRY(cudaGetLastError())

/* Grid for a grid-stride loop over n items: enough blocks to fill the GPU. */
static inline unsigned grid_for(unsigned long long n, int threads)
{
    unsigned long long blocks = (n + (unsigned long long)threads - 1) / (unsigned long long)threads;
    const unsigned long long cap = 132ull * 16ull; /* 16 blocks per multiprocessor of an H100 */
    if (blocks > cap)
        blocks = cap;
    return blocks ? (unsigned)blocks : 1u;
}

#endif
