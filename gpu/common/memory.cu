/*
 * memory.cu - counted device allocations and arenas (memory.h).
 */
#include <stdlib.h>

#include "cuda_check.h"
#include "memory.h"

namespace gpu {

static uint64_t bytes_now, bytes_peak;

/* CSR_TEST_DEVICE_BYTES, or UINT64_MAX where unset. */
static uint64_t test_limit()
{
    const char *v = getenv("CSR_TEST_DEVICE_BYTES");
    return v && *v ? strtoull(v, NULL, 10) : UINT64_MAX;
}

int device_alloc(void **p, uint64_t bytes, csr_status *status)
{
    *p = nullptr;
    static const uint64_t limit = test_limit();
    const cudaError_t e = bytes > limit || bytes_now > limit - bytes ? cudaErrorMemoryAllocation
                                                                     : cudaMalloc(p, bytes ? bytes : 1);
    if (e != cudaSuccess)
        (void)cudaGetLastError(); /* not left for a later launch's check to find (a fallback follows) */
    CUDA_TRY(e);
    bytes_now += bytes;
    if (bytes_now > bytes_peak)
        bytes_peak = bytes_now;
    return CSR_OK;
}

void device_free(void *p, uint64_t bytes)
{
    if (!p)
        return;
    cudaFree(p);
    bytes_now -= bytes;
}

uint64_t device_bytes_now() { return bytes_now; }
uint64_t device_bytes_peak() { return bytes_peak; }
void reset_peak() { bytes_peak = bytes_now; }

int arena::allocate(uint64_t bytes, csr_status *status)
{
    release();
    void *p = nullptr;
    int rc = device_alloc(&p, bytes, status);
    if (rc != CSR_OK)
        return rc;
    base_ = (char *)p;
    size_ = bytes;
    used_ = 0;
    return CSR_OK;
}

void arena::release()
{
    if (base_)
        device_free(base_, size_);
    base_ = nullptr;
    size_ = 0;
    used_ = 0;
}

} /* namespace gpu */
