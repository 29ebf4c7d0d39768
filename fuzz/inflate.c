/*
 * inflate.c - libFuzzer target: the chunked inflater (format/inflate_parallel.h)
 * against libdeflate.  The input's first two bytes set the chunks' size
 * (16 + their value, bytes); the rest is a raw deflate stream.  libdeflate
 * inflates it whole; where it succeeds, the chunked inflater, given the same
 * output length, must give the same bytes and end at the same input byte or
 * decline (0); where libdeflate refuses, the chunked inflater must decline.
 */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inflate_parallel.h"

#define MOST (4u << 20) /* output bytes tried */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    char chunk[16];
    snprintf(chunk, sizeof chunk, "%u", 16u + (data[0] | (unsigned)data[1] << 8));
    setenv("CSR_TEST_INFLATE_CHUNK", chunk, 1);
    const uint8_t *in = data + 2;
    const size_t in_length = size - 2;
    static uint8_t *want, *got;
    static struct libdeflate_decompressor *d;
    if (!want && (!(want = malloc(MOST)) || !(got = malloc(MOST)) || !(d = libdeflate_alloc_decompressor())))
        abort();
    size_t in_used = 0, out_used = 0;
    const enum libdeflate_result result =
        libdeflate_deflate_decompress_ex(d, in, in_length, want, MOST, &in_used, &out_used);
    /* the length to give: libdeflate's output where it succeeds, else a guess from the input */
    const uint64_t length = result == LIBDEFLATE_SUCCESS ? out_used : (in_length * 7) % MOST;
    uint64_t used = 0;
    const int done = inflate_parallel(in, in_length, got, length, 1, &used, NULL);
    if (!done)
        return 0;
    if (result != LIBDEFLATE_SUCCESS || used != in_used || memcmp(got, want, length) != 0) {
        fprintf(stderr, "inflate: the chunks gave %s (libdeflate: %d, %zu bytes read; chunks: %llu read)\n",
                result == LIBDEFLATE_SUCCESS ? "other bytes" : "an answer where libdeflate refuses", (int)result,
                in_used, (unsigned long long)used);
        abort();
    }
    return 0;
}
