/*
 * clock.h - the one clock of the libraries' and tools' phase times
 * (internal, header only): seconds since an arbitrary start, from
 * CLOCK_MONOTONIC (not moved by changes of the wall clock).
 */
#ifndef CLOCK_H
#define CLOCK_H

#include <time.h>

/* Seconds (with nanoseconds as the fraction) since an arbitrary start. */
static inline double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
