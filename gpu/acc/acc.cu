/*
 * acc.cu - OWCTY and MAP on the GPU (gpu/acc_gpu.h).
 */
#include <stdlib.h>
#include <string.h>

#include "acc_gpu.h"
#include "cuda_check.h"
#include "launch.h"
#include "memory.h"
#include "timer.h"

namespace {

constexpr int kThreads = 256;

/* The graph and the per-state arrays on the device. */
struct acc_device {
    gpu::device_array<uint64_t> row;
    gpu::device_array<uint32_t> targets, queue_a, queue_b, counter, value;
    gpu::device_array<uint8_t> in, mark, acc;
    gpu::device_array<unsigned> flag;
    uint64_t n = 0, t = 0;
};

/* Append v to queue (size in *tail), one atomicAdd a warp. */
static __device__ __forceinline__ void enqueue(uint32_t *queue, uint32_t *tail, uint32_t v)
{
    const unsigned active = __activemask();
    const int leader = __ffs(active) - 1, lane = threadIdx.x % 32;
    uint32_t base = 0;
    if (lane == leader)
        base = atomicAdd(tail, (uint32_t)__popc(active));
    base = __shfl_sync(active, base, leader);
    queue[base + __popc(active & ((1u << lane) - 1))] = v;
}

/* Frontier expansion of a breadth-first search: every successor t of a
 * frontier state with allowed[t] (NULL: any) and not yet marked is marked
 * and enqueued. */
static __global__ void bfs_expand(const uint32_t *__restrict__ frontier, uint32_t size, const uint64_t *__restrict__ row,
                                  const uint32_t *__restrict__ targets, const uint8_t *__restrict__ allowed, uint8_t *mark,
                                  uint32_t *next, uint32_t *next_size)
{
    for (uint64_t i = gpu::thread_index(); i < size; i += gpu::thread_count()) {
        const uint32_t s = frontier[i];
        for (uint64_t j = row[s]; j < row[s + 1]; j++) {
            const uint32_t t = targets[j];
            if ((allowed && !allowed[t]) || mark[t])
                continue;
            /* claim t once: the byte of a u32 word, by compare-and-swap on its word */
            unsigned *word = (unsigned *)(mark + (t & ~3u));
            const unsigned bit = 1u << (8 * (t & 3u));
            if (atomicOr(word, bit) & bit)
                continue;
            enqueue(next, next_size, t);
        }
    }
}

/* Seeds: every state with seed[s] (and allowed[s], when given) marked and enqueued. */
static __global__ void bfs_seed(uint64_t n, const uint8_t *__restrict__ seed, const uint8_t *__restrict__ allowed,
                                uint8_t *mark, uint32_t *queue, uint32_t *size)
{
    for (uint64_t s = gpu::thread_index(); s < n; s += gpu::thread_count())
        if (seed[s] && (!allowed || allowed[s])) {
            mark[s] = 1;
            enqueue(queue, size, (uint32_t)s);
        }
}

/* Elimination's counts: indegree[t] = the edges from the set into t. */
static __global__ void count_predecessors(uint64_t n, const uint64_t *__restrict__ row, const uint32_t *__restrict__ targets,
                                          const uint8_t *__restrict__ in, uint32_t *indegree)
{
    for (uint64_t s = gpu::thread_index(); s < n; s += gpu::thread_count())
        if (in[s])
            for (uint64_t j = row[s]; j < row[s + 1]; j++)
                atomicAdd(&indegree[targets[j]], 1u);
}

/* Elimination's first removals: the states of the set without a predecessor in it. */
static __global__ void eliminate_seed(uint64_t n, const uint32_t *__restrict__ indegree, uint8_t *in, uint32_t *queue,
                                      uint32_t *size)
{
    for (uint64_t s = gpu::thread_index(); s < n; s += gpu::thread_count())
        if (in[s] && !indegree[s]) {
            in[s] = 0;
            enqueue(queue, size, (uint32_t)s);
        }
}

/* A level of removals: the successors in the set whose last predecessor in it left. */
static __global__ void eliminate_expand(const uint32_t *__restrict__ frontier, uint32_t size, const uint64_t *__restrict__ row,
                                        const uint32_t *__restrict__ targets, uint8_t *in, uint32_t *indegree, uint32_t *next,
                                        uint32_t *next_size)
{
    for (uint64_t i = gpu::thread_index(); i < size; i += gpu::thread_count()) {
        const uint32_t s = frontier[i];
        for (uint64_t j = row[s]; j < row[s + 1]; j++) {
            const uint32_t t = targets[j];
            if (in[t] && atomicSub(&indegree[t], 1u) == 1u) {
                in[t] = 0;
                enqueue(next, next_size, t);
            }
        }
    }
}

/* MAP's propagation: map(t) = max(map(t), map(s), s + 1 if s is accepting) along every edge of the reachable states. */
static __global__ void map_pass(uint64_t n, const uint64_t *__restrict__ row, const uint32_t *__restrict__ targets,
                                const uint8_t *__restrict__ reach, const uint8_t *__restrict__ acc, uint32_t *map,
                                unsigned *changed)
{
    int any = 0;
    for (uint64_t s = gpu::thread_index(); s < n; s += gpu::thread_count()) {
        if (!reach[s])
            continue;
        uint32_t val = map[s];
        if (acc[s] && s + 1 > val)
            val = (uint32_t)s + 1;
        if (!val)
            continue;
        for (uint64_t j = row[s]; j < row[s + 1]; j++) {
            const uint32_t t = targets[j];
            if (map[t] < val && atomicMax(&map[t], val) < val)
                any = 1;
        }
    }
    if (__syncthreads_or(any) && threadIdx.x == 0)
        *changed = 1;
}

/* MAP's verdict and removals: a state that is its own map closes a cycle
 * (flag[1] = state + 1); else every map's state stops being accepting
 * (flag[0] counts them). */
static __global__ void map_check(uint64_t n, const uint32_t *__restrict__ map, uint8_t *acc, unsigned *flag)
{
    for (uint64_t v = gpu::thread_index(); v < n; v += gpu::thread_count()) {
        if (acc[v] && map[v] == v + 1)
            atomicMax(&flag[1], (unsigned)v + 1);
    }
}
static __global__ void map_remove(uint64_t n, const uint32_t *__restrict__ map, uint8_t *acc, unsigned *removed)
{
    for (uint64_t v = gpu::thread_index(); v < n; v += gpu::thread_count()) {
        const uint32_t m = map[v];
        if (m && acc[m - 1]) {
            acc[m - 1] = 0; /* several threads may clear it: counted once enough (removed > 0 is all that matters) */
            atomicAdd(removed, 1u);
        }
    }
}

static __global__ void and_bytes(uint64_t n, uint8_t *a, const uint8_t *__restrict__ b)
{
    for (uint64_t s = gpu::thread_index(); s < n; s += gpu::thread_count())
        a[s] = a[s] && b[s];
}

/* Upload the graph (rows over all choices) and allocate the arrays. */
static int upload(const csr_model *m, const uint8_t *accepting, acc_device &d, gpu_acc_stats *st, csr_status *status)
{
    const uint64_t n = m->num_states, t = m->num_transitions;
    d.n = n;
    d.t = t;
    if (n >= UINT32_MAX)
        return -csr_fail(status, CSR_ERR_TOO_LARGE, "%llu states", (unsigned long long)n);
    uint64_t *row = (uint64_t *)malloc((n + 1) * sizeof *row);
    if (!row)
        return -CSR_ERR_NOMEM;
    for (uint64_t s = 0; s <= n; s++)
        row[s] = m->choice_transitions[m->state_choices[s]];
    uint64_t total = 0;
    int rc;
    if ((rc = d.row.alloc(n + 1, &total, status)) || (rc = d.targets.alloc(t, &total, status)) ||
        (rc = d.queue_a.alloc(n, &total, status)) || (rc = d.queue_b.alloc(n, &total, status)) ||
        (rc = d.counter.alloc(n, &total, status)) || (rc = d.value.alloc(n, &total, status)) ||
        (rc = d.in.alloc(n + 4, &total, status)) || (rc = d.mark.alloc(n + 4, &total, status)) ||
        (rc = d.acc.alloc(n + 4, &total, status)) || (rc = d.flag.alloc(4, &total, status))) {
        free(row);
        return -rc;
    }
    st->device_bytes = total;
    cudaError_t e = cudaMemcpy(d.row.p, row, (n + 1) * 8, cudaMemcpyHostToDevice);
    free(row);
    if (e == cudaSuccess)
        e = cudaMemcpy(d.targets.p, m->targets, t * 4, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(d.acc.p, accepting, n, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        uint8_t *init = (uint8_t *)calloc(n ? n : 1, 1);
        if (!init)
            return -CSR_ERR_NOMEM;
        for (uint64_t i = 0; i < m->num_initial; i++)
            init[m->initial_states[i]] = 1;
        e = cudaMemcpy(d.in.p, init, n, cudaMemcpyHostToDevice); /* the seeds of the first search */
        free(init);
    }
    if (e != cudaSuccess)
        return -csr_fail(status, CSR_ERR_DEVICE, "upload: %s", cudaGetErrorString(e));
    return 0;
}

/* Breadth-first search from seed[s] (restricted to allowed, NULL: all): the
 * marks in d.mark (cleared first), the states found in *found; levels added
 * to *levels. */
static int bfs(acc_device &d, const uint8_t *seed, const uint8_t *allowed, uint64_t *found, uint64_t *levels,
               csr_status *status)
{
    const uint64_t n = d.n;
    const unsigned blocks = gpu::grid_for(n, kThreads);
    uint32_t *cur = d.queue_a.p, *next = d.queue_b.p, size = 0;
    CUDA_TRY(cudaMemset(d.mark.p, 0, n + 4));
    CUDA_TRY(cudaMemset(d.flag.p, 0, 4 * sizeof(unsigned)));
    bfs_seed<<<blocks, kThreads>>>(n, seed, allowed, d.mark.p, cur, (uint32_t *)d.flag.p);
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaMemcpy(&size, d.flag.p, 4, cudaMemcpyDeviceToHost));
    uint64_t total = size;
    while (size) {
        CUDA_TRY(cudaMemset(d.flag.p, 0, 4));
        bfs_expand<<<gpu::grid_for(size, kThreads), kThreads>>>(cur, size, d.row.p, d.targets.p, allowed, d.mark.p, next,
                                                           (uint32_t *)d.flag.p);
        CUDA_TRY_LAUNCH();
        CUDA_TRY(cudaMemcpy(&size, d.flag.p, 4, cudaMemcpyDeviceToHost));
        total += size;
        uint32_t *swap = cur;
        cur = next;
        next = swap;
        (*levels)++;
    }
    *found = total;
    return 0;
}

} // namespace

int gpu_acc_owcty(const csr_model *m, const uint8_t *accepting, uint8_t *survivors, gpu_acc_stats *st,
                  csr_status *status)
{
    memset(st, 0, sizeof *st);
    gpu::phase_timer timer;
    timer.begin();
    acc_device d;
    int rc = upload(m, accepting, d, st, status);
    if (rc)
        return rc;
    st->upload_s = timer.end();
    timer.begin();
    const uint64_t n = d.n;
    const unsigned blocks = gpu::grid_for(n, kThreads);
    uint64_t count = 0, before;
    /* the reachable states: d.in holds the initial ones */
    if ((rc = bfs(d, d.in.p, NULL, &count, &st->levels, status)))
        return -rc;
    st->reachable = count;
    if (cudaMemcpy(d.in.p, d.mark.p, n, cudaMemcpyDeviceToDevice) != cudaSuccess)
        return -csr_fail(status, CSR_ERR_DEVICE, "copy");
    do {
        before = count;
        st->rounds++;
        /* Reset: from the accepting states of the set, inside it */
        and_bytes<<<blocks, kThreads>>>(n, d.acc.p, d.in.p); /* accepting states outside the set never come back */
        if ((rc = bfs(d, d.acc.p, d.in.p, &count, &st->levels, status)))
            return -rc;
        if (cudaMemcpy(d.in.p, d.mark.p, n, cudaMemcpyDeviceToDevice) != cudaSuccess)
            return -csr_fail(status, CSR_ERR_DEVICE, "copy");
        /* Elimination */
        if (cudaMemset(d.counter.p, 0, n * 4) != cudaSuccess || cudaMemset(d.flag.p, 0, 16) != cudaSuccess)
            return -csr_fail(status, CSR_ERR_DEVICE, "memset");
        count_predecessors<<<blocks, kThreads>>>(n, d.row.p, d.targets.p, d.in.p, d.counter.p);
        uint32_t *cur = d.queue_a.p, *next = d.queue_b.p, size = 0;
        eliminate_seed<<<blocks, kThreads>>>(n, d.counter.p, d.in.p, cur, (uint32_t *)d.flag.p);
        if (cudaGetLastError() != cudaSuccess || cudaMemcpy(&size, d.flag.p, 4, cudaMemcpyDeviceToHost) != cudaSuccess)
            return -csr_fail(status, CSR_ERR_DEVICE, "elimination");
        uint64_t removed = size;
        while (size) {
            cudaMemset(d.flag.p, 0, 4);
            eliminate_expand<<<gpu::grid_for(size, kThreads), kThreads>>>(cur, size, d.row.p, d.targets.p, d.in.p,
                                                                     d.counter.p, next, (uint32_t *)d.flag.p);
            if (cudaGetLastError() != cudaSuccess || cudaMemcpy(&size, d.flag.p, 4, cudaMemcpyDeviceToHost) != cudaSuccess)
                return -csr_fail(status, CSR_ERR_DEVICE, "elimination");
            removed += size;
            uint32_t *swap = cur;
            cur = next;
            next = swap;
            st->levels++;
        }
        count -= removed;
    } while (count != before && count);
    if (survivors && cudaMemcpy(survivors, d.in.p, n, cudaMemcpyDeviceToHost) != cudaSuccess)
        return -csr_fail(status, CSR_ERR_DEVICE, "download");
    st->remaining = count;
    st->search_s = timer.end();
    return count > 0;
}

int gpu_acc_map(const csr_model *m, const uint8_t *accepting, uint64_t *cycle_state, gpu_acc_stats *st,
                csr_status *status)
{
    memset(st, 0, sizeof *st);
    gpu::phase_timer timer;
    timer.begin();
    acc_device d;
    int rc = upload(m, accepting, d, st, status);
    if (rc)
        return rc;
    st->upload_s = timer.end();
    timer.begin();
    const uint64_t n = d.n;
    const unsigned blocks = gpu::grid_for(n, kThreads);
    uint64_t count = 0;
    if ((rc = bfs(d, d.in.p, NULL, &count, &st->levels, status)))
        return -rc;
    st->reachable = count;
    and_bytes<<<blocks, kThreads>>>(n, d.acc.p, d.mark.p); /* accepting and reachable */
    int found = 0;
    for (;;) {
        st->rounds++;
        unsigned changed = 1, flag[2] = {0, 0};
        if (cudaMemset(d.value.p, 0, n * 4) != cudaSuccess)
            return -csr_fail(status, CSR_ERR_DEVICE, "memset");
        while (changed) {
            changed = 0;
            st->passes++;
            cudaMemset(d.flag.p, 0, 4);
            map_pass<<<blocks, kThreads>>>(n, d.row.p, d.targets.p, d.mark.p, d.acc.p, d.value.p, d.flag.p);
            if (cudaGetLastError() != cudaSuccess || cudaMemcpy(&changed, d.flag.p, 4, cudaMemcpyDeviceToHost) != cudaSuccess)
                return -csr_fail(status, CSR_ERR_DEVICE, "propagation");
        }
        cudaMemset(d.flag.p, 0, 8);
        map_check<<<blocks, kThreads>>>(n, d.value.p, d.acc.p, d.flag.p);
        if (cudaGetLastError() != cudaSuccess || cudaMemcpy(flag, d.flag.p, 8, cudaMemcpyDeviceToHost) != cudaSuccess)
            return -csr_fail(status, CSR_ERR_DEVICE, "check");
        if (flag[1]) {
            found = 1;
            *cycle_state = flag[1] - 1;
            break;
        }
        map_remove<<<blocks, kThreads>>>(n, d.value.p, d.acc.p, d.flag.p);
        if (cudaGetLastError() != cudaSuccess || cudaMemcpy(flag, d.flag.p, 4, cudaMemcpyDeviceToHost) != cudaSuccess)
            return -csr_fail(status, CSR_ERR_DEVICE, "removal");
        if (!flag[0])
            break;
    }
    st->remaining = found;
    st->search_s = timer.end();
    return found;
}
