/*
 * timer.h - seconds of device work between two points on the default stream,
 * by CUDA events, at once (phase_timer) or when the work is done
 * (deferred_timer) (internal to gpu/).
 */
#ifndef GPU_TIMER_H
#define GPU_TIMER_H

#include <cuda_runtime.h>

#include <vector>

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

/* Seconds of device work between begin() and end(into), added to *into only
 * by settle(), which waits for the device once.  Recording an event does not
 * wait, so timing the phases of a decomposition this way puts no stall
 * between them: phase_timer::end() waits for the device, and the kernel the
 * host launches next starts only after that wait, so each phase boundary it
 * times leaves the device idle for a host round trip.  The events are kept
 * for the next decomposition; an event that cannot be made or recorded
 * leaves its span out (the times are statistics). */
class deferred_timer {
  public:
    deferred_timer() = default;
    deferred_timer(const deferred_timer &) = delete;
    deferred_timer &operator=(const deferred_timer &) = delete;
    ~deferred_timer()
    {
        for (cudaEvent_t e : events_)
            cudaEventDestroy(e);
    }
    void begin() { start_ = record(); }
    void end(double *into)
    {
        const int stop = record();
        if (start_ >= 0 && stop >= 0)
            spans_.push_back(span{start_, stop, into});
        start_ = -1;
    }
    /* Wait for the last span's end and add every span to its field. */
    void settle()
    {
        if (!spans_.empty() && cudaEventSynchronize(events_[spans_.back().stop]) == cudaSuccess)
            for (const span &s : spans_) {
                float ms = 0.0f;
                if (cudaEventElapsedTime(&ms, events_[s.start], events_[s.stop]) == cudaSuccess)
                    *s.into += ms / 1e3;
            }
        reset();
    }
    /* Drop the spans not settled (those of a decomposition that failed). */
    void reset()
    {
        spans_.clear();
        used_ = 0;
        start_ = -1;
    }

  private:
    struct span {
        int start, stop;
        double *into;
    };
    std::vector<cudaEvent_t> events_;
    std::vector<span> spans_;
    size_t used_ = 0;
    int start_ = -1;
    /* the index of a newly recorded event, or -1 */
    int record()
    {
        if (used_ == events_.size()) {
            cudaEvent_t e;
            if (cudaEventCreate(&e) != cudaSuccess)
                return -1;
            events_.push_back(e);
        }
        if (cudaEventRecord(events_[used_]) != cudaSuccess)
            return -1;
        return (int)used_++;
    }
};

} /* namespace gpu */

#endif
