/*
 * timer.h - seconds of device work between two points on the default stream,
 * by CUDA events (internal to gpu/).
 */
#ifndef GPU_TIMER_H
#define GPU_TIMER_H

#include <cuda_runtime.h>

namespace gpu {

struct phase_timer {
    cudaEvent_t start, stop;
    phase_timer()
    {
        cudaEventCreate(&start);
        cudaEventCreate(&stop);
    }
    ~phase_timer()
    {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
    phase_timer(const phase_timer &) = delete;
    phase_timer &operator=(const phase_timer &) = delete;
    void begin() { cudaEventRecord(start); }
    /* Seconds since begin(); waits for the device. */
    double end()
    {
        float ms = 0.0f;
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        cudaEventElapsedTime(&ms, start, stop);
        return ms / 1e3;
    }
};

} /* namespace gpu */

#endif
