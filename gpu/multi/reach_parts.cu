/*
 * reach_parts.cu - interval and value iteration over the parts of a
 * partitioned model on several GPUs (gpu/multi.h,
 * gpu_reach_iterate_partitioned): ref/reach_parts.c's iteration on the
 * devices, the same operations in the same order per state, so the same
 * bits.
 *
 * Each part on its device: its own states' choices (local offsets), local
 * targets and probabilities, both bounds of its own and foreign states side
 * by side (two buffers: Jacobi), its MEC indices and a word per MEC it
 * touches.  An iteration: every part's step (a thread per own state,
 * grid-stride); for Pmax interval iteration with MECs, the spanning MECs'
 * maxima gathered on part 0, reduced and sent back, then every part's MEC
 * states take their MEC's upper bound; then the pull of the foreign states'
 * new bounds (16 bytes a state, gpu/multi/exchange.h).  The stopping rule
 * (the largest difference and whether a bound changed, reduced per warp
 * into two words a part) is read back every REACH_PARTS_CHECK_EVERY
 * iterations.
 */
#include <math.h>

#include "exchange.h"
#include "reach_parts.h"

using namespace multi;

namespace {

/* ---- kernels ------------------------------------------------------------------- */

struct vi_rows {
    const uint64_t *__restrict__ crow; /* [ns + 1] own states' first choices, local */
    const uint64_t *__restrict__ ctr;  /* [nc + 1] choices' first transitions, local */
    const uint32_t *__restrict__ target;
    const double *__restrict__ prob;
    const uint8_t *__restrict__ fixed;   /* [ns] */
    const uint8_t *__restrict__ leaving; /* [nc] or NULL */
    const uint32_t *__restrict__ mec;    /* [ns] local MEC index or REACH_NO_MEC; NULL: none */
};

/* ref/reach_parts.c's part_best: the best choice of own state j over the
 * bound (0 lower, 1 upper) of x, only leaving choices with leaving; -1
 * without one.  Products and sums rounded apart (no fused multiply-add). */
static __device__ __forceinline__ double part_best(const vi_rows &r, uint64_t j, const double2 *__restrict__ x,
                                                   int bound, int maximize, const uint8_t *__restrict__ leaving)
{
    double best = -1.0;
    for (uint64_t k = r.crow[j]; k < r.crow[j + 1]; k++) {
        if (leaving && !leaving[k])
            continue;
        double sum = 0.0;
        for (uint64_t i = r.ctr[k]; i < r.ctr[k + 1]; i++) {
            const double2 v = x[r.target[i]];
            sum = __dadd_rn(sum, __dmul_rn(r.prob[i], bound ? v.y : v.x));
        }
        if (best < 0.0 || (maximize ? sum > best : sum < best))
            best = sum;
    }
    return best;
}

/* A state's new pair, accounted (ref/reach_parts.c's settle). */
static __device__ __forceinline__ void settle(double2 &z, double2 x, int ii, int relative, double &diff, int &changed)
{
    if (ii) {
        if (z.y < z.x)
            z.y = z.x;
        const double d = reach_difference(z.y, z.x, relative);
        diff = d > diff ? d : diff;
    }
    changed |= z.x != x.x || z.y != x.y;
}

/* The warp's largest difference and any change into check[0] (the bits of
 * a non-negative double order as the values) and check[1]. */
static __device__ __forceinline__ void account(double diff, int changed, unsigned long long *check)
{
    for (int o = 16; o > 0; o >>= 1)
        diff = fmax(diff, __shfl_down_sync(0xffffffffu, diff, o));
    changed = __any_sync(0xffffffffu, changed);
    if ((threadIdx.x & 31) == 0) {
        if (diff > 0.0)
            atomicMax(&check[0], (unsigned long long)__double_as_longlong(diff));
        if (changed)
            atomicOr(&check[1], 1ull);
    }
}

/* One iteration's step over the own states: the lower bound (value
 * iteration: only it), the upper bound of states outside MECs, and each
 * MEC's best leaving choice into best (bits, atomic maximum). */
static __global__ void vi_step(uint64_t ns, vi_rows r, int ii, int maximize, int relative, const double2 *__restrict__ x,
                               double2 *z, unsigned long long *best, unsigned long long *check)
{
    double diff = 0.0;
    int changed = 0;
    for (uint64_t j = thread_index(); j < ns; j += thread_count()) {
        if (r.fixed[j])
            continue;
        const double2 xj = x[j];
        const double bl = part_best(r, j, x, 0, maximize, nullptr);
        if (!ii) {
            z[j].x = bl;
            const double d = reach_difference(bl, xj.x, relative);
            diff = d > diff ? d : diff;
            changed |= bl != xj.x;
            continue;
        }
        const double l = bl > xj.x ? bl : xj.x;
        const uint32_t mk = r.mec ? r.mec[j] : REACH_NO_MEC;
        if (mk == REACH_NO_MEC) {
            const double bu = part_best(r, j, x, 1, maximize, nullptr);
            double2 zj = make_double2(l, bu < xj.y ? bu : xj.y);
            settle(zj, xj, ii, relative, diff, changed);
            z[j] = zj;
        } else {
            z[j].x = l;
            const double bm = part_best(r, j, x, 1, maximize, r.leaving);
            if (bm > 0.0)
                atomicMax(&best[mk], (unsigned long long)__double_as_longlong(bm));
        }
    }
    account(diff, changed, check);
}

/* The MEC states' upper bounds: their MEC's best (after the spanning MECs'
 * reduction), then accounted. */
static __global__ void vi_mec_step(uint64_t ns, vi_rows r, int relative, const double2 *__restrict__ x, double2 *z,
                                   const unsigned long long *__restrict__ best, unsigned long long *check)
{
    double diff = 0.0;
    int changed = 0;
    for (uint64_t j = thread_index(); j < ns; j += thread_count()) {
        const uint32_t mk = r.mec[j];
        if (mk == REACH_NO_MEC || r.fixed[j])
            continue;
        const double2 xj = x[j];
        const double b = __longlong_as_double((long long)best[mk]);
        double2 zj = make_double2(z[j].x, b < xj.y ? b : xj.y);
        settle(zj, xj, 1, relative, diff, changed);
        z[j] = zj;
    }
    account(diff, changed, check);
}

/* span[span_of[k]] = best[k] for the part's spanning MECs (0 elsewhere). */
static __global__ void span_gather(uint64_t local, const uint32_t *__restrict__ span_of,
                                   const unsigned long long *__restrict__ best, unsigned long long *span)
{
    for (uint64_t k = thread_index(); k < local; k += thread_count())
        if (span_of[k] != REACH_NO_MEC)
            span[span_of[k]] = best[k];
}

/* On part 0: span[k] = the largest of its own and the others' (all[r S + k]). */
static __global__ void span_reduce(uint64_t S, uint32_t parts, const unsigned long long *__restrict__ all,
                                   unsigned long long *span)
{
    for (uint64_t k = thread_index(); k < S; k += thread_count()) {
        unsigned long long v = span[k];
        for (uint32_t r = 1; r < parts; r++)
            v = all[(uint64_t)r * S + k] > v ? all[(uint64_t)r * S + k] : v;
        span[k] = v;
    }
}

/* best[k] = span[span_of[k]] for the part's spanning MECs. */
static __global__ void span_scatter(uint64_t local, const uint32_t *__restrict__ span_of,
                                    const unsigned long long *__restrict__ span, unsigned long long *best)
{
    for (uint64_t k = thread_index(); k < local; k += thread_count())
        if (span_of[k] != REACH_NO_MEC)
            best[k] = span[span_of[k]];
}

/* ---- the parts on their devices ------------------------------------------------- */

struct vi_part : part_base {
    uint64_t local_mecs = 0;
    device_array<uint32_t> mec, span_of;
    device_array<double> prob;
    device_array<uint8_t> fixed, leaving;
    device_array<double2> bounds_a, bounds_b;
    double2 *cur = nullptr, *next = nullptr;
    device_array<unsigned long long> best, span, span_all, check;
    vi_rows rows() const
    {
        return vi_rows{crow.p, ctr.p, target.p, prob.p, fixed.p, leaving.p, mec.p}; /* mec.p NULL: no MECs */
    }
};

typedef multi::parted<vi_part> parted;

/* Part i onto its device with the bounds of its own and foreign states. */
int upload_vi_part(const reach_parts *rp, uint32_t i, int device, bool mecs, const double *lower,
                   const double *upper, vi_part &q, csr_status *status)
{
    const csr_partition *p = &rp->partition;
    const csr_part &c = p->part[i];
    const uint32_t P = p->parts;
    const csr_model &m = rp->rows;
    TRY(q.open(&m, p, i, device, 16, status)); /* both bounds a state */
    const uint64_t len = q.ns + q.nf;
    TRY(q.prob.alloc(q.nt, NULL, status));
    TRY(q.fixed.alloc(q.ns, NULL, status));
    TRY(q.bounds_a.alloc(len, NULL, status));
    TRY(q.bounds_b.alloc(len, NULL, status));
    TRY(q.check.alloc(2, NULL, status));
    if (q.nt)
        CUDA_TRY(cudaMemcpy(q.prob.p, m.probabilities + c.first_transition, q.nt * sizeof(double),
                            cudaMemcpyHostToDevice));
    if (q.ns)
        CUDA_TRY(cudaMemcpy(q.fixed.p, rp->fixed + q.first_state, q.ns, cudaMemcpyHostToDevice));
    if (mecs) {
        q.local_mecs = rp->local_mecs[i];
        TRY(q.leaving.alloc(q.nc, NULL, status));
        TRY(q.mec.alloc(q.ns, NULL, status));
        TRY(q.span_of.alloc(q.local_mecs, NULL, status));
        TRY(q.best.alloc(q.local_mecs, NULL, status));
        TRY(q.span.alloc(rp->span_mecs, NULL, status));
        if (i == 0 && rp->span_mecs)
            TRY(q.span_all.alloc((uint64_t)P * rp->span_mecs, NULL, status));
        if (q.nc)
            CUDA_TRY(cudaMemcpy(q.leaving.p, rp->leaving + c.first_choice, q.nc, cudaMemcpyHostToDevice));
        if (q.ns)
            CUDA_TRY(cudaMemcpy(q.mec.p, rp->mec_local[i], q.ns * sizeof(uint32_t), cudaMemcpyHostToDevice));
        if (q.local_mecs)
            CUDA_TRY(cudaMemcpy(q.span_of.p, rp->mec_span[i], q.local_mecs * sizeof(uint32_t),
                                cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMemset(q.best.p, 0, (q.local_mecs ? q.local_mecs : 1) * sizeof(unsigned long long)));
    }
    /* both buffers start with the initial bounds: the fixed states keep them */
    std::vector<double2> b(len ? len : 1);
    for (uint64_t j = 0; j < len; j++) {
        const uint64_t s = j < q.ns ? q.first_state + j : c.foreign[j - q.ns];
        b[j] = make_double2(lower[s], upper[s]);
    }
    CUDA_TRY(cudaMemcpy(q.bounds_a.p, b.data(), (len ? len : 1) * sizeof(double2), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(q.bounds_b.p, b.data(), (len ? len : 1) * sizeof(double2), cudaMemcpyHostToDevice));
    q.cur = q.bounds_a.p;
    q.next = q.bounds_b.p;
    CUDA_TRY(cudaDeviceSynchronize()); /* the default stream's copies before the part's stream */
    return CSR_OK;
}

/* The spanning MECs: every part's maxima to part 0, reduced, sent back. */
int reduce_spanning(parted &x, uint64_t S, csr_status *status)
{
    const uint32_t P = x.p->parts;
    for (auto &q : x.part) {
        CUDA_TRY(cudaSetDevice(q->device));
        CUDA_TRY(cudaMemsetAsync(q->span.p, 0, S * sizeof(unsigned long long), q->stream));
        if (q->local_mecs) {
            span_gather<<<grid_for(q->local_mecs, kThreads), kThreads, 0, q->stream>>>(q->local_mecs, q->span_of.p,
                                                                                      q->best.p, q->span.p);
            CUDA_TRY_LAUNCH();
        }
    }
    TRY(x.sync_all(status));
    vi_part &root = *x.part[0];
    auto stage = [&](bool to_root) -> int {
        if (x.nccl)
            NCCL_TRY(x.api, x.api.group_start());
        for (uint32_t r = 1; r < P; r++) {
            vi_part &q = *x.part[r];
            int rc = to_root ? x.transfer(r, q.span.p, 0, root.span_all.p + (uint64_t)r * S, S * 8, status)
                             : x.transfer(0, root.span.p, r, q.span.p, S * 8, status);
            if (rc) {
                if (x.nccl)
                    x.api.group_end();
                return rc;
            }
        }
        if (x.nccl)
            NCCL_TRY(x.api, x.api.group_end());
        return x.sync_all(status);
    };
    TRY(stage(true));
    CUDA_TRY(cudaSetDevice(root.device));
    span_reduce<<<grid_for(S, kThreads), kThreads, 0, root.stream>>>(S, P, root.span_all.p, root.span.p);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaStreamSynchronize(root.stream));
    TRY(stage(false));
    for (auto &q : x.part) {
        if (!q->local_mecs)
            continue;
        CUDA_TRY(cudaSetDevice(q->device));
        span_scatter<<<grid_for(q->local_mecs, kThreads), kThreads, 0, q->stream>>>(q->local_mecs, q->span_of.p,
                                                                                   q->span.p, q->best.p);
        CUDA_TRY_LAUNCH();
    }
    return CSR_OK;
}

/* The largest difference and whether a bound changed, over the parts. */
int read_check(parted &x, double *diff, int *changed, csr_status *status)
{
    *diff = 0.0;
    *changed = 0;
    for (auto &q : x.part) {
        unsigned long long c[2];
        CUDA_TRY(cudaSetDevice(q->device));
        CUDA_TRY(cudaMemcpyAsync(c, q->check.p, sizeof c, cudaMemcpyDeviceToHost, q->stream));
        CUDA_TRY(cudaStreamSynchronize(q->stream));
        double d;
        memcpy(&d, &c[0], sizeof d);
        *diff = d > *diff ? d : *diff;
        *changed |= c[1] != 0;
    }
    return CSR_OK;
}

int iterate_over_parts(const reach_system *y, const reach_parts *rp, const reach_options *o, double eps,
                       double *lower, double *upper, uint64_t *iterations, double *out_difference,
                       reach_parts_context *cx)
{
    const gpu_parts_options *po = (const gpu_parts_options *)cx->gpus;
    csr_status *status = cx->status;
    const int ii = o->method != REACH_VI;
    const bool mecs = ii && rp->leaving;
    const uint64_t S = mecs ? rp->span_mecs : 0;
    parted x;
    uint64_t foreign = 0; /* counted by reach_parts_open already */
    double upload_s = 0;
    TRY(open_exchange(po, &rp->partition, x, &cx->stats.exchange, &foreign, &upload_s,
                      [&](uint32_t i, int device, vi_part &q) {
                          return upload_vi_part(rp, i, device, mecs, lower, upper, q, status);
                      },
                      status));
    cx->stats.upload_s += upload_s;
    const double t = monotonic_seconds();
    auto next_of = [](vi_part &q) { return (void *)q.next; };
    uint64_t it = 0;
    double diff = INFINITY;
    int changed = 1, rc = CSR_ERR_NOT_CONVERGED;
    while (it < o->max_iterations) {
        it++;
        for (auto &q : x.part) {
            CUDA_TRY(cudaSetDevice(q->device));
            CUDA_TRY(cudaMemsetAsync(q->check.p, 0, 2 * sizeof(unsigned long long), q->stream));
            if (!q->ns)
                continue;
            vi_step<<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(q->ns, q->rows(), ii, y->maximize,
                                                                           o->relative, q->cur, q->next, q->best.p,
                                                                           q->check.p);
            CUDA_TRY_LAUNCH();
            cx->stats.passes++;
        }
        if (mecs) {
            if (S)
                TRY(reduce_spanning(x, S, status));
            for (auto &q : x.part) {
                if (!q->local_mecs)
                    continue;
                CUDA_TRY(cudaSetDevice(q->device));
                vi_mec_step<<<grid_for(q->ns, kThreads), kThreads, 0, q->stream>>>(q->ns, q->rows(), o->relative,
                                                                                   q->cur, q->next, q->best.p,
                                                                                   q->check.p);
                CUDA_TRY_LAUNCH();
                CUDA_TRY(cudaMemsetAsync(q->best.p, 0, q->local_mecs * sizeof(unsigned long long), q->stream));
            }
        }
        TRY(x.pull<16>(next_of, status)); /* the foreign copies take their owners' new bounds */
        for (auto &q : x.part)
            std::swap(q->cur, q->next);
        if (it % REACH_PARTS_CHECK_EVERY == 0 || it == o->max_iterations) {
            TRY(read_check(x, &diff, &changed, status));
            if (diff <= eps) {
                rc = CSR_OK;
                break;
            }
            if (!changed) {
                rc = CSR_ERR_STALLED;
                break;
            }
        }
    }
    TRY(x.sync_all(status));
    cx->stats.resident_s += monotonic_seconds() - t;
    const double t2 = monotonic_seconds();
    for (auto &q : x.part) {
        if (!q->ns)
            continue;
        std::vector<double2> b(q->ns);
        CUDA_TRY(cudaSetDevice(q->device));
        CUDA_TRY(cudaMemcpy(b.data(), q->cur, q->ns * sizeof(double2), cudaMemcpyDeviceToHost));
        for (uint64_t j = 0; j < q->ns; j++) {
            lower[q->first_state + j] = b[j].x;
            upper[q->first_state + j] = b[j].y;
        }
    }
    cx->stats.download_s += monotonic_seconds() - t2;
    cx->stats.exchanged += x.exchanged;
    *iterations = it;
    *out_difference = diff;
    return rc;
}

} /* namespace */

extern "C" int gpu_reach_iterate_partitioned(const reach_system *y, const reach_options *o, double eps,
                                             double *lower, double *upper, uint64_t *iterations, double *difference,
                                             void *ctx)
{
    reach_parts_context *cx = (reach_parts_context *)ctx;
    const gpu_parts_options *po = (const gpu_parts_options *)cx->gpus;
    if (!po || po->num_devices < 1 || po->num_devices > GPU_PARTS_MAX_DEVICES)
        return csr_fail(cx->status, CSR_ERR_USAGE, "%d devices: 1 to %d", po ? po->num_devices : 0,
                        GPU_PARTS_MAX_DEVICES);
    reach_parts rp;
    TRY(reach_parts_open(y, o, cx, &rp));
    int rc = iterate_over_parts(y, &rp, o, eps, lower, upper, iterations, difference, cx);
    reach_parts_free(&rp);
    return rc;
}
