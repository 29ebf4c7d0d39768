/*
 * inflate_parallel.h - one raw deflate stream (RFC 1951) inflated by a task
 * per chunk (internal to the format library: the UMB reader's gzip files).
 *
 * Source: the scheme of pugz (Kerbiriou & Chikhi, IPDPSW 2019) and rapidgzip
 * (Knespel & Brunst, HPDC 2023), in two passes.  The stream is cut into
 * chunks of compressed bytes; each chunk after the first finds a
 * dynamic-Huffman block that starts in it (a header whose code lengths form
 * valid codes and whose block decodes).  First pass, a task per chunk: chunk
 * 0 inflates into the output; the others inflate without the 32 KiB before
 * them (a back-reference there kept as a marker, 16-bit symbols, only the
 * last 256 Ki of them kept), each until the block where the next chunk's
 * decoding started, to learn its output's length and its last 32 KiB.  Only
 * chunks so joined from the stream's start count (a false start is never
 * met exactly).  In order, each chunk's last 32 KiB are resolved from the
 * previous one's.  Second pass, a task per chunk after the first: its blocks
 * again, now into their place in the output with the 32 KiB before them.
 */
#ifndef CSR_INFLATE_PARALLEL_H
#define CSR_INFLATE_PARALLEL_H

#include <stdint.h>

/*
 * Inflates the raw deflate stream in[0, in_length) into out, which must take
 * exactly out_length bytes: returns 1 with *in_used the bytes up to the end of
 * the final block (rounded up to a byte) where the stream inflates to exactly
 * out_length bytes; 0 where it does not, or is damaged, or memory is short
 * (the caller inflates it in one piece, which names what is wrong; out's
 * contents are then undefined).  Chunks of at least `chunk` compressed bytes,
 * at most four per CPU the process may run on and 256; with fewer than 4 CPUs
 * or where that makes one chunk, 0 at once (CSR_TEST_INFLATE_CHUNK, a
 * positive count of bytes, sets the chunks' size for the tests, whatever the
 * CPUs).  Memory: about 600 KiB a chunk besides out (its
 * last symbols, its codes, its last 32 KiB).  *joined (where not
 * NULL): the chunks whose output was used.  The CRC-32 is the caller's.
 */
int inflate_parallel(const uint8_t *in, uint64_t in_length, uint8_t *out, uint64_t out_length, uint64_t chunk,
                     uint64_t *in_used, unsigned *joined);

#endif
