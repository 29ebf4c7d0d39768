/*
 * xorshift.h - the test helpers' random numbers: xorshift64* (Vigna 2016),
 * the same sequence on every machine, unlike the C library's rand().
 */
#ifndef XORSHIFT_H
#define XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift_next(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1Dull;
}

#endif
