/*
 * worklist.h - device work queues for dependency-driven work such as
 * peeling and attractors (internal to gpu/), where a grid barrier per step
 * of a long chain would cost more than the step.
 *
 * The items (states) live in one array of `capacity` slots; each item is
 * pushed at most once over the queue's life, so capacity = n suffices.
 * Slots start as kEmptySlot and are written once.  Every counter lies on a
 * 128-byte line of its own (counter[WL_*]), so that the atomics on one do
 * not queue behind the loads of another.  Two ways to drain it:
 *
 *  - asynchronous (the sync-free pattern of Liu et al., Euro-Par 2016):
 *    head counts claimed slots, tail pushed items, done processed items; they
 *    only grow.  A thread claims the next slot with one atomicAdd (the threads
 *    claiming together share it) and waits on that slot alone until an item
 *    lands there.  The queue is drained when done == tail: then no item is in
 *    flight and none can be pushed (a push only happens while an item is
 *    processed); the thread whose `done` makes them equal raises the drained
 *    flag, which the waiting threads read, so they do not poll the counters.
 *    Between two drains head is set back to done (worklist_rewind).
 *  - by levels: the items of a level are a range of slots; what processing
 *    them pushes goes to the slots after it (push_target of the level), its
 *    count on a ring of three counters (gpu/scc/peel).
 */
#ifndef GPU_WORKLIST_H
#define GPU_WORKLIST_H

#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <stdint.h>

namespace gpu {

constexpr uint32_t kEmptySlot = 0xffffffffu;

/* Word offsets of the counters (one 128-byte line each). */
enum : unsigned {
    WL_HEAD = 0,
    WL_TAIL = 16,
    WL_DONE = 32,
    WL_DRAINED = 48,
    WL_WORDS = 64 /* words of the counter block */
};

struct worklist {
    uint32_t *items;             /* capacity slots, kEmptySlot until written */
    unsigned long long *counter; /* WL_WORDS words: WL_HEAD, WL_TAIL, WL_DONE, WL_DRAINED */
    unsigned long long capacity;
};

/* Where a push goes: slot at[count++]. */
struct push_target {
    uint32_t *at;
    unsigned long long *count;
};

__host__ __device__ inline push_target worklist_tail(const worklist &q)
{
    return push_target{q.items, q.counter + WL_TAIL};
}

__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long *p)
{
    return *(const volatile unsigned long long *)p;
}

/* count: add to *counter once for all the threads doing it at the same
 * time; returns this thread's first index in the range added. */
__device__ __forceinline__ unsigned long long worklist_add(unsigned long long *counter)
{
    namespace cg = cooperative_groups;
    cg::coalesced_group g = cg::coalesced_threads();
    unsigned long long base = 0;
    if (g.thread_rank() == 0)
        base = atomicAdd(counter, (unsigned long long)g.size());
    return g.shfl(base, 0) + g.thread_rank();
}

/* Push v. */
__device__ __forceinline__ void worklist_push(const push_target &t, uint32_t v)
{
    *(volatile uint32_t *)&t.at[worklist_add(t.count)] = v;
}

/* Push v[j] for each bit j of `mask` (N items at most a thread), the pushes
 * of every thread doing it at the same time with one atomicAdd on the count.
 * Pushing each item on its own, with the threads that happen to push at the
 * same step, made the one counter's atomics what limits a wide drain:
 * about 1.1 ns an item, whatever the parallelism (leader7's peeling by
 * levels, 1.37M states in 1.58 ms; coin6_4's attractor, 2.38M in 2.6 ms). */
template <int N>
__device__ __forceinline__ void worklist_push_batch(const push_target &t, const uint32_t (&v)[N], unsigned mask)
{
    namespace cg = cooperative_groups;
    if (mask == 0) /* the threads with something to push do it together */
        return;
    cg::coalesced_group g = cg::coalesced_threads();
    const unsigned mine = __popc(mask);
    const unsigned before = cg::exclusive_scan(g, mine);
    const unsigned total = g.shfl(before + mine, g.size() - 1);
    unsigned long long base = 0;
    if (g.thread_rank() == 0)
        base = atomicAdd(t.count, (unsigned long long)total);
    base = g.shfl(base, 0) + before;
#pragma unroll
    for (int j = 0; j < N; j++)
        if (mask >> j & 1u)
            *(volatile uint32_t *)&t.at[base++] = v[j];
}

/* A waiting thread's polling: the longest sleep between two reads of its
 * slot (ns), and the reads of its slot between two reads of the drained
 * flag.  A deep chain's hand-offs wait on the sleep, and every waiting
 * thread's read of the one flag line loads it.  Against 512 ns and every 4th
 * read (the lent H100, 2026-11-25, bench/ab.sh, 5 runs each, labels equal):
 * wlan6_2500's SCCs 126.1-129.5 -> 118.8-119.3 ms; its MECs, leader7's and
 * coin6_4's SCCs and MECs (both schemes) within the noise. */
constexpr unsigned kMaxBackoff = 128;
constexpr unsigned kDrainedEvery = 64;

/* Asynchronous: claim the next slot and wait for its item: returns it, or
 * kEmptySlot when the queue is drained (or the slot can never be filled). */
__device__ __forceinline__ uint32_t worklist_take(const worklist &q)
{
    const unsigned long long slot = worklist_add(&q.counter[WL_HEAD]);
    if (slot >= q.capacity)
        return kEmptySlot;
    unsigned backoff = 32;
    for (unsigned spin = 1;; spin++) {
        uint32_t v = *(const volatile uint32_t *)&q.items[slot];
        if (v != kEmptySlot)
            return v;
        if (spin % 4 == 0)
            backoff = backoff < kMaxBackoff ? backoff * 2 : kMaxBackoff;
        if (spin % kDrainedEvery == 0 && load_relaxed(&q.counter[WL_DRAINED]))
            return kEmptySlot;
        /* a queue that was empty from the start has nobody to raise the flag */
        if (spin % 256 == 0) {
            unsigned long long done = load_relaxed(&q.counter[WL_DONE]);
            __threadfence();
            if (done == load_relaxed(&q.counter[WL_TAIL]) && slot >= done)
                return kEmptySlot;
        }
        __nanosleep(backoff);
    }
}

/* Asynchronous: after processing an item taken (its pushes fenced first). */
__device__ __forceinline__ void worklist_done(const worklist &q)
{
    __threadfence();
    const unsigned long long done = worklist_add(&q.counter[WL_DONE]) + 1;
    __threadfence();
    if (done == load_relaxed(&q.counter[WL_TAIL]))
        *(volatile unsigned long long *)&q.counter[WL_DRAINED] = 1;
}

/* The asynchronous drain, every thread of the launch: process(v, out) for
 * each item v it takes until the worklist is drained, where out (the
 * worklist's tail) takes what processing v pushes; each item marked done
 * after its processing.  The loop of every drain kernel (peeling, the MEC
 * attractor, Prob0/Prob1 and the MEC quotient's search). */
template <typename Process> __device__ __forceinline__ void worklist_drain(const worklist &q, Process process)
{
    const push_target out = worklist_tail(q);
    for (;;) {
        const uint32_t v = worklist_take(q);
        if (v == kEmptySlot)
            return;
        process(v, out);
        worklist_done(q);
    }
}

} /* namespace gpu */

#endif
