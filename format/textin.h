/*
 * textin.h - line reader for the project's text inputs (PRISM .tra/.lab,
 * .sccs/.mecs, label and value files), plain or gzip-compressed.
 *
 * gzip is detected by its magic number, on files and on stdin alike, and
 * inflated by zlib member by member; anything else passes through unchanged.
 * Bytes after the last gzip member that do not start another one are an
 * error (CSR_ERR_TRAILING).  Lines are handed out in place,
 * NUL-terminated, without the '\n' (and without a '\r' before it), with their
 * 1-based line number, from a buffer of TEXTIN_BUFFER_BYTES that grows for
 * longer lines up to TEXTIN_MAX_LINE_BYTES.
 */
#ifndef TEXTIN_H
#define TEXTIN_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "csr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEXTIN_BUFFER_BYTES ((size_t)1 << 20)
#define TEXTIN_MAX_LINE_BYTES ((size_t)256 << 20)

#define TEXTIN_GZIP_INPUT_BYTES ((size_t)1 << 17)

typedef struct textin {
    int fd;                 /* the input */
    int gzip;               /* 1: gzip-compressed, inflated; 0: plain */
    int inflating;          /* gzip: inside a member (0: between members or at the end) */
    int zin_eof;            /* fd's end reached */
    z_stream *zs;           /* gzip: the inflater; plain: next_in/avail_in hold the first bytes read */
    unsigned char *zin;     /* TEXTIN_GZIP_INPUT_BYTES of input read from fd */
    char *buf;
    size_t cap, start, end;
    uint64_t line;          /* number of the line last returned */
    int eof;                /* no more input to read into buf */
    int missing_newline;    /* the last line had no '\n' */
    uint64_t fault_lines;   /* textin_next_block's error: whole lines of the block before the faulty one */
    uint64_t bytes;         /* uncompressed bytes read so far */
    uint64_t *progress;     /* optional: where to store bytes (and the parallel .tra reader the bytes
                               parsed), atomically, for a thread that shows progress; NULL: none */
    int map_fd;             /* a regular file's descriptor + 1 for textin_map, 0: none */
    uint64_t map_offset;    /* where the input starts in that file */
    void *map;              /* textin_map's mapping, map_length bytes */
    size_t map_length;
} textin;

/* Open path, or stdin when path is NULL or "-".  CSR_ERR_IO on failure
 * (status->sys_errno set). */
int textin_open(textin *in, const char *path, csr_status *status);

/* Next line: returns 1 with *line and *length set, 0 at the end of input, or a
 * negative csr_error code (CSR_ERR_IO, CSR_ERR_TRUNCATED for a gzip stream
 * cut short, CSR_ERR_SYNTAX for a line too long or a NUL byte). */
int textin_next(textin *in, char **line, size_t *length, csr_status *status);

/*
 * Next block of whole lines, for readers that scan lines themselves: returns 1
 * with *data and *length set (length >= 1, data[length-1] == '\n'), 0 at the
 * end of input, or a negative csr_error code.  A last line without a newline
 * gets one, and missing_newline is set.  The caller counts lines; do not mix
 * with textin_next on the same input.  On an error in a line of the block
 * (a NUL byte), fault_lines is the number of whole lines before that line.
 */
int textin_next_block(textin *in, char **data, size_t *length, csr_status *status);

/*
 * Make at least want bytes of the (decompressed) input available without
 * consuming them: *data points to them, *got is how many (fewer only at the end
 * of the input).  For readers that decide what the input is by its content
 * (prism2csr: UMB archive or PRISM text).  Returns 0 or a negative csr_error.
 */
int textin_peek(textin *in, size_t want, const char **data, size_t *got, csr_status *status);

/*
 * Raw bytes instead of lines, for binary contents (a UMB tar archive): first
 * the bytes textin_peek buffered, then straight from the stream.  Returns the
 * number of bytes stored in dst (0 at the end of input) or a negative
 * csr_error code.  Do not mix with textin_next on the same input.
 */
long textin_read(textin *in, void *dst, size_t length, csr_status *status);

/*
 * The whole input in memory at once, for readers that parse it in parallel:
 * where the input is a regular file that is not compressed, map it and point
 * *data to its first byte not yet read (the input must be untouched but for
 * textin_peek) and *length to the bytes from there to the end of the file.
 * Returns 0, or -1 where the input is not such a file (read it with
 * textin_next or textin_next_block instead, which still work: the mapping
 * leaves the stream as it was).  The mapping lives until textin_close.
 */
int textin_map(textin *in, const char **data, size_t *length);

/* Whether the stream was gzip-compressed (1) or passed through as it is (0). */
int textin_is_gzip(const textin *in);

/* Close and free; safe on a zeroed textin. */
void textin_close(textin *in);

#ifdef __cplusplus
}
#endif

#endif
