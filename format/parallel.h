/*
 * parallel.h - the format library's few parallel loops (internal): how many
 * CPUs this process may run on, and a task per thread.  Used by the
 * parallel .tra reader (prism_text.c), the label writer (labels.c), the
 * checksums (crc.c), the validation (csr_validate.c), the first touch
 * of the UMB reader's inflate buffer (umb_read.c), the model checker's
 * searches (check/) and the CPU's policy iteration (ref/reach_pi.c).
 */
#ifndef PARALLEL_H
#define PARALLEL_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define PARALLEL_MAX_TASKS 256

/* The CPUs this process may run on (its affinity, as taskset sets it), at least 1. */
static inline unsigned parallel_cpus(void)
{
    cpu_set_t set;
    long cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (unsigned)cpus : 1;
}

/* The least work a thread is given: `normal`, unless the environment sets
 * CSR_TEST_GRAIN (a positive count, for the tests: 1 makes the parallel paths
 * run on the smallest models, so that they are checked against the
 * sequential ones). */
static inline uint64_t parallel_grain(uint64_t normal)
{
    const char *g = getenv("CSR_TEST_GRAIN");
    if (g && *g) {
        char *end;
        unsigned long long v = strtoull(g, &end, 10);
        if (*end == '\0' && v > 0)
            return v;
    }
    return normal;
}

/* The number of tasks for `work` units at `grain` units a task at least:
 * at most one per CPU this process may run on and PARALLEL_MAX_TASKS, at
 * least 1. */
static inline unsigned parallel_tasks(uint64_t work, uint64_t grain)
{
    unsigned tasks = parallel_cpus();
    if (tasks > PARALLEL_MAX_TASKS)
        tasks = PARALLEL_MAX_TASKS;
    if ((uint64_t)tasks > work / grain)
        tasks = (unsigned)(work / grain);
    return tasks ? tasks : 1;
}

/* fn on each of count tasks (args: count structures of size bytes each), a
 * thread each, and returns when all are done; one task runs here, and so do
 * those the system refuses a thread.  count <= PARALLEL_MAX_TASKS. */
static inline void parallel_run(void *(*fn)(void *), void *args, size_t size, unsigned count)
{
    pthread_t tid[PARALLEL_MAX_TASKS];
    unsigned started = 0;
    if (count > 1)
        for (; started < count; started++)
            if (pthread_create(&tid[started], NULL, fn, (char *)args + started * size))
                break;
    for (unsigned i = started; i < count; i++)
        fn((char *)args + i * size);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
}

/* A barrier for a team of `count` threads that run at once (parallel_team):
 * each waits until all have arrived.  Spins, then yields the CPU. */
typedef struct parallel_barrier {
    unsigned count, arrived, generation;
} parallel_barrier;
static inline void parallel_barrier_init(parallel_barrier *b, unsigned count)
{
    b->count = count;
    b->arrived = 0;
    b->generation = 0;
}
static inline void parallel_barrier_wait(parallel_barrier *b)
{
    const unsigned generation = __atomic_load_n(&b->generation, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_ACQ_REL) == b->count) {
        __atomic_store_n(&b->arrived, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&b->generation, generation + 1, __ATOMIC_RELEASE);
        return;
    }
    for (unsigned spin = 0; __atomic_load_n(&b->generation, __ATOMIC_ACQUIRE) == generation; spin++)
        if (spin >= 4096)
            sched_yield();
}
struct parallel_team_start {
    void *(*fn)(void *);
    void *arg;
    int *gate; /* 0: wait, 1: run, 2: the team was not formed */
};
static inline void *parallel_team_thread(void *arg)
{
    struct parallel_team_start *t = (struct parallel_team_start *)arg;
    int g;
    while ((g = __atomic_load_n(t->gate, __ATOMIC_ACQUIRE)) == 0)
        sched_yield();
    return g == 1 ? t->fn(t->arg) : NULL;
}
/* fn on each of count tasks (args: count structures of size bytes each) at
 * once, a thread each (this one runs the first), for tasks that wait for
 * each other at a parallel_barrier.  Returns 1 when they ran; 0, having run
 * none, where the system refused a thread (the caller then runs the work
 * as one task).  count <= PARALLEL_MAX_TASKS. */
static inline int parallel_team(void *(*fn)(void *), void *args, size_t size, unsigned count)
{
    pthread_t tid[PARALLEL_MAX_TASKS];
    struct parallel_team_start start[PARALLEL_MAX_TASKS];
    int gate = 0;
    unsigned started = 1;
    for (; started < count; started++) {
        start[started] = (struct parallel_team_start){fn, (char *)args + started * size, &gate};
        if (pthread_create(&tid[started], NULL, parallel_team_thread, &start[started]))
            break;
    }
    const int formed = started == count;
    __atomic_store_n(&gate, formed ? 1 : 2, __ATOMIC_RELEASE);
    if (formed)
        fn(args);
    for (unsigned i = 1; i < started; i++)
        pthread_join(tid[i], NULL);
    return formed;
}
struct parallel_touch_range {
    volatile char *first;
    size_t bytes;
};

static inline void *parallel_touch_task(void *arg)
{
    struct parallel_touch_range *r = (struct parallel_touch_range *)arg;
    for (size_t at = 0; at < r->bytes; at += 4096)
        r->first[at] = 0;
    return NULL;
}

/* Fresh memory [p, p + bytes) faulted in by a task per CPU, a write of 0
 * each 4 KiB: the kernel zeroes a page at its first touch, and one thread
 * writing a large array (libdeflate inflating a UMB) would wait for all of
 * it alone (bench/RESULTS.md, "What each property paid besides its
 * iterations").  Only for memory whose contents are not yet defined. */
static inline void parallel_touch(void *p, size_t bytes)
{
    struct parallel_touch_range r[PARALLEL_MAX_TASKS];
    const unsigned tasks = parallel_tasks(bytes, parallel_grain((uint64_t)64 << 20));
    if (tasks < 2)
        return;
    for (unsigned i = 0; i < tasks; i++) {
        const size_t first = (size_t)((uint64_t)bytes * i / tasks), last = (size_t)((uint64_t)bytes * (i + 1) / tasks);
        r[i].first = (volatile char *)p + first;
        r[i].bytes = last - first;
    }
    parallel_run(parallel_touch_task, r, sizeof r[0], tasks);
}

#endif
