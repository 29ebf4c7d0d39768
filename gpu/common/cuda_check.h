/*
 * cuda_check.h - every CUDA call and launch checked (internal to gpu/).
 *
 * CUDA_TRY(call) returns CSR_ERR_DEVICE from the enclosing function, with the
 * CUDA error text in *status, when call fails (CSR_ERR_NOMEM for an
 * allocation that failed); CUDA_TRY_LAUNCH() does the same for the last kernel
 * launch.  Functions using them take a csr_status *status and return int.
 */
#ifndef GPU_CUDA_CHECK_H
#define GPU_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "csr.h"

#define CUDA_TRY(call)                                                                             \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess)                                                                   \
            return csr_fail(status, err_ == cudaErrorMemoryAllocation ? CSR_ERR_NOMEM : CSR_ERR_DEVICE, \
                            "CUDA: %s (%s:%d)", cudaGetErrorString(err_), __FILE__, __LINE__);     \
    } while (0)

#define CUDA_TRY_LAUNCH() CUDA_TRY(cudaGetLastError())

/* Return rc from the enclosing function when it is not CSR_OK. */
#define TRY(expr)              \
    do {                       \
        int rc_ = (expr);      \
        if (rc_ != CSR_OK)     \
            return rc_;        \
    } while (0)

#endif
