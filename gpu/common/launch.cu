/*
 * launch.cu - launch geometry from the device (launch.h).
 */
#include "launch.h"

namespace gpu {

/* (read once per device; threads that ask at once read it each, the same
 * values, and publish it with a release store) */
const device_geometry &geometry()
{
    static device_geometry known[64];
    static bool read[64];
    static device_geometry none = {0, 0};
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64)
        return none;
    if (!__atomic_load_n(&read[device], __ATOMIC_ACQUIRE)) {
        device_geometry g = {0, 0};
        cudaDeviceGetAttribute(&g.sms, cudaDevAttrMultiProcessorCount, device);
        cudaDeviceGetAttribute(&g.threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
        __atomic_store_n(&known[device].sms, g.sms, __ATOMIC_RELAXED);
        __atomic_store_n(&known[device].threads_per_sm, g.threads_per_sm, __ATOMIC_RELAXED);
        __atomic_store_n(&read[device], true, __ATOMIC_RELEASE);
    }
    return known[device];
}

unsigned grid_for(uint64_t items, int threads)
{
    const device_geometry &g = geometry();
    uint64_t fill = (uint64_t)(g.sms > 0 ? g.sms : 1) * (uint64_t)(g.threads_per_sm >= threads ? g.threads_per_sm / threads : 1);
    uint64_t need = (items + (uint64_t)threads - 1) / (uint64_t)threads;
    uint64_t blocks = need < fill ? need : fill;
    return blocks ? (unsigned)blocks : 1u;
}

unsigned resident_blocks(const void *kernel, int threads, unsigned cap)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0) != cudaSuccess || per_sm <= 0)
        return 0;
    uint64_t blocks = (uint64_t)per_sm * (uint64_t)geometry().sms;
    if (cap > 0 && blocks > cap)
        blocks = cap;
    return (unsigned)blocks;
}

} /* namespace gpu */
