/*
 * worklist.h - an asynchronous device work queue for persistent kernels
 * (internal to gpu/): the sync-free pattern of Liu et al. (Euro-Par 2016)
 * for dependency-driven work such as peeling and attractors, where a level
 * barrier per step would cost more than the step.
 *
 * Each item (a state) is pushed at most once over the queue's life, so
 * `capacity` = n slots suffice; slots start as kEmptySlot and are written
 * once.  head counts claimed slots, tail pushed items, done processed items;
 * they only grow.  A thread claims the next slot with one atomicAdd (the
 * threads claiming together share it) and waits on that slot alone until an
 * item lands there, so a hand-off costs one store and one load, with no
 * retries on a shared word; a slot at or past `capacity` never gets an item.
 * The queue is drained when done == tail: then no item is in flight and
 * none can be pushed (a push only happens while an item is processed), and a
 * thread whose slot is at or past tail leaves.  Between two drains, head is
 * set back to done (worklist_rewind), the first slot not yet processed.
 */
#ifndef GPU_WORKLIST_H
#define GPU_WORKLIST_H

#include <cooperative_groups.h>
#include <stdint.h>

namespace gpu {

constexpr uint32_t kEmptySlot = 0xffffffffu;

struct worklist {
    uint32_t *items;             /* capacity slots, kEmptySlot until written */
    unsigned long long *counter; /* [0] head, [1] tail, [2] done */
    unsigned long long capacity;
};

__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long *p)
{
    return *(const volatile unsigned long long *)p;
}

/* count: add to counter[which] once for all the threads doing it at the
 * same time; returns this thread's first index in the range added. */
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
__device__ __forceinline__ void worklist_push(const worklist &q, uint32_t v)
{
    *(volatile uint32_t *)&q.items[worklist_add(&q.counter[1])] = v;
}

/* Claim the next slot and wait for its item: returns it, or kEmptySlot when
 * the queue is drained (or the slot can never be filled). */
__device__ __forceinline__ uint32_t worklist_take(const worklist &q)
{
    const unsigned long long slot = worklist_add(&q.counter[0]);
    if (slot >= q.capacity)
        return kEmptySlot;
    unsigned backoff = 32;
    for (unsigned spin = 1;; spin++) {
        uint32_t v = *(const volatile uint32_t *)&q.items[slot];
        if (v != kEmptySlot)
            return v;
        if (spin % 8 == 0) {
            unsigned long long done = load_relaxed(&q.counter[2]);
            __threadfence();
            unsigned long long tail = load_relaxed(&q.counter[1]);
            if (done == tail && slot >= tail)
                return kEmptySlot;
            backoff = backoff < 256 ? backoff * 2 : 256;
        }
        __nanosleep(backoff);
    }
}

/* After processing an item taken (its pushes fenced first). */
__device__ __forceinline__ void worklist_done(const worklist &q)
{
    __threadfence();
    worklist_add(&q.counter[2]);
}

} /* namespace gpu */

#endif
