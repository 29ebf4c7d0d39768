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
#include "worklist.h"

namespace {

constexpr int kThreads = 256;

/* The graph and the per-state arrays on the device. */
struct acc_device {
    gpu::device_array<uint64_t> row;
    gpu::device_array<uint32_t> targets, queue_a, queue_b, counter, value; /* queue_a: the worklist's slots */
    gpu::device_array<uint8_t> in, mark, acc;
    gpu::device_array<unsigned> flag;
    gpu::device_array<unsigned long long> wl_counter, found; /* the worklist's counters; states found or removed */
    uint64_t n = 0, t = 0;
};

/* Claim state t in the byte flags mark (one word atomic on its 4-byte word):
 * true for the one thread that set it. */
static __device__ __forceinline__ bool claim(uint8_t *mark, uint32_t t)
{
    unsigned *word = (unsigned *)(mark + (t & ~3u));
    const unsigned bit = 1u << (8 * (t & 3u));
    return !(atomicOr(word, bit) & bit);
}

/* The searches as asynchronous drains of one worklist (gpu/common/worklist.h,
 * the sync-free pattern that peels wlan6_2500 for the SCC engines): a thread
 * takes a state, processes it, keeps the first state that frees to process
 * itself next (a chain needs no hand-off) and pushes the others; no barrier
 * and no launch per level, so a deep graph costs its work, not its depth. */
static __global__ void __launch_bounds__(kThreads) reach_seed(uint64_t n, const uint8_t *__restrict__ seed,
                                                              const uint8_t *__restrict__ allowed, uint8_t *mark,
                                                              gpu::worklist q)
{
    const gpu::push_target out = gpu::worklist_tail(q);
    for (uint64_t s = gpu::thread_index(); s < n; s += gpu::thread_count())
        if (seed[s] && (!allowed || allowed[s]) && claim(mark, (uint32_t)s))
            gpu::worklist_push(out, (uint32_t)s);
}

/* The drain both searches share: every thread takes a state, visits its
 * successors (take(t) says whether t joins the search now: claimed by this
 * thread), keeps the first one joining to process itself next and pushes the
 * others; *processed gets the states processed, summed per block. */
template <typename Take>
static __device__ __forceinline__ void drain_chains(const gpu::worklist &q, const uint64_t *__restrict__ row,
                                                    const uint32_t *__restrict__ targets, Take take,
                                                    unsigned long long *processed)
{
    const gpu::push_target out = gpu::worklist_tail(q);
    unsigned long long mine = 0;
    for (;;) {
        uint32_t v = gpu::worklist_take(q);
        if (v == gpu::kEmptySlot)
            break;
        for (;;) {
            mine++;
            uint32_t next = gpu::kEmptySlot;
            for (uint64_t j = row[v]; j < row[v + 1]; j++) {
                const uint32_t t = targets[j];
                if (!take(t))
                    continue;
                if (next == gpu::kEmptySlot)
                    next = t;
                else
                    gpu::worklist_push(out, t);
            }
            if (next == gpu::kEmptySlot)
                break;
            v = next;
        }
        gpu::worklist_done(q);
    }
    gpu::block_add<kThreads>(processed, mine);
}

/* Forward reachability inside allowed (NULL: all): a successor not yet
 * marked is marked and searched from. */
struct reach_take {
    const uint8_t *allowed;
    uint8_t *mark;
    __device__ bool operator()(uint32_t t) const { return (!allowed || allowed[t]) && !mark[t] && claim(mark, t); }
};
static __global__ void __launch_bounds__(kThreads) reach_drain(gpu::worklist q, const uint64_t *__restrict__ row,
                                                               const uint32_t *__restrict__ targets,
                                                               const uint8_t *__restrict__ allowed, uint8_t *mark,
                                                               unsigned long long *found)
{
    drain_chains(q, row, targets, reach_take{allowed, mark}, found);
}

/* Elimination: the states of the set without a predecessor in it leave it. */
static __global__ void __launch_bounds__(kThreads) eliminate_seed_async(uint64_t n, const uint32_t *__restrict__ indegree,
                                                                       uint8_t *in, gpu::worklist q)
{
    const gpu::push_target out = gpu::worklist_tail(q);
    for (uint64_t s = gpu::thread_index(); s < n; s += gpu::thread_count())
        if (in[s] && !indegree[s]) {
            in[s] = 0;
            gpu::worklist_push(out, (uint32_t)s);
        }
}

/* ... and a state whose last predecessor in the set left leaves it too (the
 * thread whose decrement reaches zero takes it; a state out of the set has
 * no predecessor left to count). */
struct eliminate_take {
    uint8_t *in;
    uint32_t *indegree;
    __device__ bool operator()(uint32_t t) const
    {
        if (!in[t] || atomicSub(&indegree[t], 1u) != 1u)
            return false;
        in[t] = 0;
        return true;
    }
};
static __global__ void __launch_bounds__(kThreads) eliminate_drain(gpu::worklist q, const uint64_t *__restrict__ row,
                                                                   const uint32_t *__restrict__ targets, uint8_t *in,
                                                                   uint32_t *indegree, unsigned long long *removed)
{
    drain_chains(q, row, targets, eliminate_take{in, indegree}, removed);
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

/* MAP's propagation, by passes over the states whose value rose in the pass
 * before (first the accepting ones): map(t) = max(map(t), map(s), s + 1 if s
 * is accepting) along their edges; a state whose value rises joins the next
 * pass once (stamp[t] = the pass).  Each pass costs what rose, not a sweep
 * of every state. */
static __global__ void map_seed(uint64_t n, const uint8_t *__restrict__ acc, uint32_t *active, unsigned *size)
{
    for (uint64_t s = gpu::thread_index(); s < n; s += gpu::thread_count())
        if (acc[s])
            active[atomicAdd(size, 1u)] = (uint32_t)s;
}

static __global__ void map_pass(const uint32_t *__restrict__ active, unsigned size, const uint64_t *__restrict__ row,
                                const uint32_t *__restrict__ targets, const uint8_t *__restrict__ acc, uint32_t *map,
                                uint32_t *stamp, unsigned pass, uint32_t *next, unsigned *next_size)
{
    for (uint64_t i = gpu::thread_index(); i < size; i += gpu::thread_count()) {
        const uint32_t s = active[i];
        uint32_t val = map[s];
        if (acc[s] && s + 1 > val)
            val = s + 1;
        if (!val)
            continue;
        for (uint64_t j = row[s]; j < row[s + 1]; j++) {
            const uint32_t t = targets[j];
            if (map[t] < val && atomicMax(&map[t], val) < val && atomicExch(&stamp[t], pass) != pass)
                next[atomicAdd(next_size, 1u)] = t;
        }
    }
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
        (rc = d.acc.alloc(n + 4, &total, status)) || (rc = d.flag.alloc(4, &total, status)) ||
        (rc = d.wl_counter.alloc(gpu::WL_WORDS, &total, status)) || (rc = d.found.alloc(1, &total, status))) {
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

/* An empty worklist over d.queue_a (n slots). */
static int worklist_reset(acc_device &d, gpu::worklist *q, csr_status *status)
{
    CUDA_TRY(cudaMemset(d.queue_a.p, 0xff, (d.n ? d.n : 1) * sizeof(uint32_t)));
    CUDA_TRY(cudaMemset(d.wl_counter.p, 0, gpu::WL_WORDS * sizeof(unsigned long long)));
    CUDA_TRY(cudaMemset(d.found.p, 0, sizeof(unsigned long long)));
    q->items = d.queue_a.p;
    q->counter = d.wl_counter.p;
    q->capacity = d.n;
    return 0;
}

/* Every block of a drain resident at once (its threads wait on slots). */
static unsigned drain_blocks(const void *kernel, uint64_t n)
{
    unsigned cap = gpu::grid_for(n, kThreads), grid = gpu::resident_blocks(kernel, kThreads, cap);
    return grid ? grid : 1;
}

/* Reachability from seed[s] inside allowed (NULL: all): the marks in d.mark
 * (cleared first), the states found in *found. */
static int bfs(acc_device &d, const uint8_t *seed, const uint8_t *allowed, uint64_t *found, uint64_t *levels,
               csr_status *status)
{
    const uint64_t n = d.n;
    gpu::worklist q;
    int rc = worklist_reset(d, &q, status);
    if (rc)
        return rc;
    CUDA_TRY(cudaMemset(d.mark.p, 0, n + 4));
    reach_seed<<<gpu::grid_for(n, kThreads), kThreads>>>(n, seed, allowed, d.mark.p, q);
    CUDA_TRY_LAUNCH();
    reach_drain<<<drain_blocks((const void *)reach_drain, n), kThreads>>>(q, d.row.p, d.targets.p, allowed, d.mark.p,
                                                                         d.found.p);
    CUDA_TRY_LAUNCH();
    unsigned long long count = 0;
    CUDA_TRY(cudaMemcpy(&count, d.found.p, sizeof count, cudaMemcpyDeviceToHost));
    *found = count;
    (*levels)++;
    return 0;
}

/* Elimination of the set d.in: its states without predecessors in it, to a
 * fixpoint; the states removed in *removed. */
static int eliminate(acc_device &d, uint64_t *removed, csr_status *status)
{
    const uint64_t n = d.n;
    gpu::worklist q;
    int rc = worklist_reset(d, &q, status);
    if (rc)
        return rc;
    CUDA_TRY(cudaMemset(d.counter.p, 0, n * 4));
    count_predecessors<<<gpu::grid_for(n, kThreads), kThreads>>>(n, d.row.p, d.targets.p, d.in.p, d.counter.p);
    CUDA_TRY_LAUNCH();
    eliminate_seed_async<<<gpu::grid_for(n, kThreads), kThreads>>>(n, d.counter.p, d.in.p, q);
    CUDA_TRY_LAUNCH();
    eliminate_drain<<<drain_blocks((const void *)eliminate_drain, n), kThreads>>>(q, d.row.p, d.targets.p, d.in.p,
                                                                                 d.counter.p, d.found.p);
    CUDA_TRY_LAUNCH();
    unsigned long long count = 0;
    CUDA_TRY(cudaMemcpy(&count, d.found.p, sizeof count, cudaMemcpyDeviceToHost));
    *removed = count;
    return 0;
}

/* What both algorithms start with: the upload (st->upload_s), then the
 * states reachable from the initial ones (d.in holds those at first) marked
 * in d.mark (st->reachable); *timer runs for the search from there. */
static int start(const csr_model *m, const uint8_t *accepting, acc_device &d, gpu_acc_stats *st,
                 gpu::phase_timer *timer, csr_status *status)
{
    memset(st, 0, sizeof *st);
    timer->begin();
    int rc = upload(m, accepting, d, st, status);
    if (rc)
        return rc;
    st->upload_s = timer->end();
    timer->begin();
    uint64_t count = 0;
    if ((rc = bfs(d, d.in.p, NULL, &count, &st->levels, status)))
        return -rc;
    st->reachable = count;
    return 0;
}

} // namespace

int gpu_acc_owcty(const csr_model *m, const uint8_t *accepting, uint8_t *survivors, gpu_acc_stats *st,
                  csr_status *status)
{
    gpu::phase_timer timer;
    acc_device d;
    int rc = start(m, accepting, d, st, &timer, status);
    if (rc)
        return rc;
    const uint64_t n = d.n;
    const unsigned blocks = gpu::grid_for(n, kThreads);
    uint64_t count = st->reachable, before;
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
        uint64_t removed = 0;
        if ((rc = eliminate(d, &removed, status)))
            return -rc;
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
    gpu::phase_timer timer;
    acc_device d;
    int rc = start(m, accepting, d, st, &timer, status);
    if (rc)
        return rc;
    const uint64_t n = d.n;
    const unsigned blocks = gpu::grid_for(n, kThreads);
    and_bytes<<<blocks, kThreads>>>(n, d.acc.p, d.mark.p); /* accepting and reachable */
    int found = 0;
    for (;;) {
        st->rounds++;
        unsigned flag[2] = {0, 0}, size = 0;
        if (cudaMemset(d.value.p, 0, n * 4) != cudaSuccess || cudaMemset(d.counter.p, 0, n * 4) != cudaSuccess ||
            cudaMemset(d.flag.p, 0, 4) != cudaSuccess)
            return -csr_fail(status, CSR_ERR_DEVICE, "memset");
        uint32_t *cur = d.queue_a.p, *next = d.queue_b.p;
        map_seed<<<blocks, kThreads>>>(n, d.acc.p, cur, d.flag.p);
        if (cudaGetLastError() != cudaSuccess || cudaMemcpy(&size, d.flag.p, 4, cudaMemcpyDeviceToHost) != cudaSuccess)
            return -csr_fail(status, CSR_ERR_DEVICE, "propagation");
        while (size) { /* stamps are the pass numbers of the whole search: never 0, never repeated */
            st->passes++;
            cudaMemset(d.flag.p, 0, 4);
            map_pass<<<gpu::grid_for(size, kThreads), kThreads>>>(cur, size, d.row.p, d.targets.p, d.acc.p, d.value.p,
                                                                d.counter.p, (unsigned)st->passes, next, d.flag.p);
            if (cudaGetLastError() != cudaSuccess || cudaMemcpy(&size, d.flag.p, 4, cudaMemcpyDeviceToHost) != cudaSuccess)
                return -csr_fail(status, CSR_ERR_DEVICE, "propagation");
            uint32_t *swap = cur;
            cur = next;
            next = swap;
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
