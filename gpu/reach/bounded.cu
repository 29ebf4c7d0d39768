/*
 * bounded.cu - step-bounded reachability on the resident model
 * (resident.h, resident_bounded; ref_reach_bounded's Jacobi steps).
 */
#include <stdlib.h>

#include "cuda_check.h"
#include "launch.h"
#include "reach_ref.h"
#include "resident.h"

using gpu::device_array;
using gpu::grid_for;
using gpu::thread_count;
using gpu::thread_index;

/* One Jacobi step of ref_reach_bounded: y(s) = opt over s's choices of sum
 * p x(t), or x(s) where s is fixed (a target, avoided, without choices);
 * *changed set where some y(s) != x(s) (changed NULL: not watched).  A
 * thread per state, grid-stride. */
static __global__ void bounded_step(uint64_t n, const uint64_t *__restrict__ sc, const uint64_t *__restrict__ ct,
                                    const uint32_t *__restrict__ tg, const double *__restrict__ pr,
                                    const uint8_t *__restrict__ fixed, int maximize, const double *__restrict__ x,
                                    double *__restrict__ y, int *changed)
{
    for (uint64_t s = thread_index(); s < n; s += thread_count()) {
        if (fixed[s]) {
            y[s] = x[s];
            continue;
        }
        double best = maximize ? 0.0 : 1.0;
        for (uint64_t k = sc[s]; k < sc[s + 1]; k++) {
            double sum = 0.0;
            for (uint64_t j = ct[k]; j < ct[k + 1]; j++)
                sum = __dadd_rn(sum, __dmul_rn(pr[j], x[tg[j]])); /* no fused multiply-add: the CPU's roundings */
            best = maximize ? fmax(best, sum) : fmin(best, sum);
        }
        y[s] = best;
        if (changed && best != x[s])
            *changed = 1;
    }
}

int resident_bounded(resident_model &r, const csr_model *m, const reach_query *q, uint64_t steps, double *values,
                     csr_status *status)
{
    const uint64_t n = m->num_states, t = m->num_transitions;
    const prob01_device &d = r.d;
    if (!r.probabilities.p) {
        TRY(r.probabilities.alloc(t, NULL, status));
        CUDA_TRY(cudaMemcpy(r.probabilities.p, m->probabilities, t * sizeof(double), cudaMemcpyHostToDevice));
        r.bytes += r.probabilities.bytes;
    }
    uint8_t *fixed = (uint8_t *)malloc(n ? n : 1);
    if (!fixed)
        return CSR_ERR_NOMEM;
    for (uint64_t s = 0; s < n; s++) {
        fixed[s] = q->target[s] || (q->avoid && q->avoid[s]) || m->state_choices[s + 1] == m->state_choices[s];
        values[s] = q->target[s] ? 1.0 : 0.0;
    }
    device_array<double> x, y;
    device_array<uint8_t> fx;
    int rc = CSR_OK;
    if ((rc = x.alloc(n, NULL, status)) || (rc = y.alloc(n, NULL, status)) || (rc = fx.alloc(n, NULL, status))) {
        free(fixed);
        return rc;
    }
    cudaError_t e = cudaMemcpy(fx.p, fixed, n, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(x.p, values, n * 8, cudaMemcpyHostToDevice);
    free(fixed);
    const unsigned blocks = grid_for(n, 256);
    double *from = x.p, *to = y.p;
    /* every BOUNDED_WATCH-th step watched: one that changes nothing leaves every later one the same, the
     * values final (ref_reach_bounded's early end; a billion steps on coin2 otherwise run for an hour) */
    enum { BOUNDED_WATCH = 64 };
    device_array<int> flag;
    if (e == cudaSuccess && steps >= BOUNDED_WATCH && (rc = flag.alloc(1, NULL, status)))
        return rc;
    for (uint64_t i = 0; e == cudaSuccess && i < steps; i++) {
        const int watch = flag.p && i % BOUNDED_WATCH == BOUNDED_WATCH - 1;
        if (watch)
            e = cudaMemsetAsync(flag.p, 0, sizeof(int));
        bounded_step<<<blocks, 256>>>(n, d.sc, d.ct, d.tg, r.probabilities.p, fx.p, q->maximize, from, to,
                                      watch ? flag.p : NULL);
        if (e == cudaSuccess)
            e = cudaGetLastError();
        double *swap = from;
        from = to;
        to = swap;
        int changed = 1;
        if (watch && reach_bounded_progress())
            reach_bounded_progress()(i, steps);
        if (watch && e == cudaSuccess && (e = cudaMemcpy(&changed, flag.p, sizeof changed, cudaMemcpyDeviceToHost)) ==
                                             cudaSuccess && !changed)
            break;
    }
    if (e == cudaSuccess)
        e = cudaMemcpy(values, from, n * 8, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        return csr_fail(status, CSR_ERR_DEVICE, "step-bounded iteration: %s", cudaGetErrorString(e));
    return CSR_OK;
}
