/*
 * memory.h - device memory of the GPU library (internal to gpu/): every
 * allocation goes through device_alloc, which keeps the bytes allocated now
 * and their peak, so that a caller can compare what it planned with what
 * was taken; an arena describes its buffers with the same code twice, first
 * measuring, then carving them out of one allocation (CUB's two-phase
 * pattern), so the need computed before allocating is what is allocated.
 *
 * Errors: CSR_ERR_NOMEM when cudaMalloc fails for lack of memory, CSR_ERR_DEVICE
 * for other CUDA failures (text in *status).
 */
#ifndef GPU_MEMORY_H
#define GPU_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "csr.h"

namespace gpu {

/* cudaMalloc of bytes (at least 1) into *p, counted; a failure returns
 * CSR_ERR_NOMEM and leaves no error for cudaGetLastError.  The
 * environment's CSR_TEST_DEVICE_BYTES (a byte count, for the tests) makes
 * it fail so past that many bytes counted. */
int device_alloc(void **p, uint64_t bytes, csr_status *status);
/* cudaFree of a block of device_alloc (bytes as allocated). */
void device_free(void *p, uint64_t bytes);
/* Bytes allocated through device_alloc and not freed; their peak since the
 * last reset_peak (the bytes allocated at that time). */
uint64_t device_bytes_now();
uint64_t device_bytes_peak();
void reset_peak();

/* Buffers carved from one device allocation.  The owner calls its plan
 * function (a series of take() calls) once on a measuring arena to learn
 * bytes(), then allocate()s and calls the same plan again to carve. */
class arena {
  public:
    static constexpr uint64_t kAlign = 256; /* every buffer starts on 256 bytes (CUB's alignment too) */
    arena() = default;
    arena(const arena &) = delete;
    arena &operator=(const arena &) = delete;
    ~arena() { release(); }

    /* count elements of T (at least one is reserved): NULL while measuring. */
    template <typename T> T *take(uint64_t count)
    {
        uint64_t bytes = (count ? count : 1) * sizeof(T);
        T *p = base_ ? reinterpret_cast<T *>(base_ + used_) : nullptr;
        used_ += (bytes + kAlign - 1) / kAlign * kAlign;
        return p;
    }
    /* Bytes taken since the last rewind (the whole plan, after one pass). */
    uint64_t bytes() const { return used_; }
    /* One allocation of `bytes` (the measured plan); carving starts over. */
    int allocate(uint64_t bytes, csr_status *status);
    /* Start measuring or carving again from the beginning. */
    void rewind() { used_ = 0; }
    /* Whether take() hands out memory (after allocate). */
    bool carving() const { return base_ != nullptr; }
    uint64_t allocated() const { return size_; }
    void release();

  private:
    char *base_ = nullptr;
    uint64_t used_ = 0, size_ = 0;
};

/* Plan `plan(arena&)` on a (measuring) arena, allocate what it measured, and
 * carve the same plan: returns CSR_OK with *bytes the size of the one
 * allocation, or an error code. */
template <typename Plan> int plan_and_allocate(arena &a, Plan plan, uint64_t *bytes, csr_status *status)
{
    a.release();
    plan(a);
    uint64_t need = a.bytes();
    int rc = a.allocate(need, status);
    if (rc != CSR_OK)
        return rc;
    plan(a);
    if (bytes)
        *bytes = need;
    return CSR_OK;
}

/* Device memory owned by one object, freed by its destructor (for buffers
 * whose size is not known when the plan is made). */
template <typename T> struct device_array {
    T *p = nullptr;
    uint64_t bytes = 0;
    device_array() = default;
    device_array(const device_array &) = delete;
    device_array &operator=(const device_array &) = delete;
    ~device_array() { release(); }
    void release()
    {
        if (p)
            device_free(p, bytes);
        p = nullptr;
        bytes = 0;
    }
    /* count elements (at least one is allocated); adds the bytes to *total. */
    int alloc(uint64_t count, uint64_t *total, csr_status *status)
    {
        release();
        uint64_t want = (count ? count : 1) * sizeof(T);
        int rc = device_alloc((void **)&p, want, status);
        if (rc != CSR_OK)
            return rc;
        bytes = want;
        if (total)
            *total += want;
        return CSR_OK;
    }
};

} /* namespace gpu */

#endif
