/*
 * memory.cu - counted device allocations and arenas (memory.h).
 */
#include <stdlib.h>

#include "cuda_check.h"
#include "memory.h"

namespace gpu {

/* (the threads of gpu-vi's properties at once allocate beside each other: atomics) */
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
    const uint64_t before = __atomic_load_n(&bytes_now, __ATOMIC_RELAXED);
    const cudaError_t e = bytes > limit || before > limit - bytes ? cudaErrorMemoryAllocation
                                                                  : cudaMalloc(p, bytes ? bytes : 1);
    if (e != cudaSuccess)
        (void)cudaGetLastError(); /* not left for a later launch's check to find (a fallback follows) */
    CUDA_TRY(e);
    const uint64_t now = __atomic_add_fetch(&bytes_now, bytes, __ATOMIC_RELAXED);
    uint64_t peak = __atomic_load_n(&bytes_peak, __ATOMIC_RELAXED);
    while (now > peak && !__atomic_compare_exchange_n(&bytes_peak, &peak, now, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    return CSR_OK;
}

void device_free(void *p, uint64_t bytes)
{
    if (!p)
        return;
    cudaFree(p);
    __atomic_sub_fetch(&bytes_now, bytes, __ATOMIC_RELAXED);
}

uint64_t device_bytes_now() { return __atomic_load_n(&bytes_now, __ATOMIC_RELAXED); }
uint64_t device_bytes_peak() { return __atomic_load_n(&bytes_peak, __ATOMIC_RELAXED); }
void reset_peak() { __atomic_store_n(&bytes_peak, device_bytes_now(), __ATOMIC_RELAXED); }

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
