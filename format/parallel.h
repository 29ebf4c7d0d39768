/*
 * parallel.h - the format library's few parallel loops (internal): how many
 * CPUs this process may run on, and a task per thread.  Used by the
 * parallel .tra reader (prism_text.c) and the label writer (labels.c).
 */
#ifndef PARALLEL_H
#define PARALLEL_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <unistd.h>

#define PARALLEL_MAX_TASKS 256

/* The CPUs this process may run on (its affinity, as taskset sets it), at least 1. */
static inline unsigned parallel_cpus(void)
{
    cpu_set_t set;
    long cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (unsigned)cpus : 1;
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

#endif
