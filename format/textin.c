/*
 * textin.c - buffered line reader over zlib's gzFile (textin.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hugepages.h"
#include "textin.h"

int textin_open(textin *in, const char *path, csr_status *st)
{
    memset(in, 0, sizeof *in);
    int fd = (!path || strcmp(path, "-") == 0) ? dup(STDIN_FILENO) : open(path, O_RDONLY);
    if (fd < 0) {
        if (st)
            st->sys_errno = errno;
        return csr_fail(st, CSR_ERR_OPEN, "%s", strerror(errno));
    }
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        off_t at = lseek(fd, 0, SEEK_CUR);
        int copy = at >= 0 ? dup(fd) : -1;
        if (copy >= 0) {
            in->map_fd = copy + 1;
            in->map_offset = (uint64_t)at;
        }
    }
    in->gz = gzdopen(fd, "rb");
    in->buf = malloc(TEXTIN_BUFFER_BYTES);
    if (!in->gz || !in->buf) {
        if (in->gz)
            gzclose(in->gz);
        else
            close(fd);
        free(in->buf);
        if (in->map_fd)
            close(in->map_fd - 1);
        memset(in, 0, sizeof *in);
        return csr_fail(st, CSR_ERR_NOMEM, "input buffer");
    }
    advise_huge_pages(in->buf, TEXTIN_BUFFER_BYTES);
    gzbuffer(in->gz, 1 << 17); /* plain input bypasses it: reads of 2x this go straight to buf */
    in->cap = TEXTIN_BUFFER_BYTES;
    return CSR_OK;
}

/* zlib's message for a damaged gzip stream without the "<fd:N>: " that
 * gzdopen puts before it (the caller names the file). */
static const char *gzip_message(gzFile gz, int *errnum)
{
    const char *msg = gzerror(gz, errnum);
    if (msg && strncmp(msg, "<fd:", 4) == 0) {
        const char *colon = strstr(msg, ">: ");
        if (colon)
            msg = colon + 3;
    }
    return msg;
}

/* Move the unread part to the front, grow if full, and read more. */
static int refill(textin *in, csr_status *st)
{
    size_t pending = in->end - in->start;
    if (in->start > 0) {
        memmove(in->buf, in->buf + in->start, pending);
        in->start = 0;
        in->end = pending;
    }
    if (in->end + 1 >= in->cap) { /* full but for the spare byte: a line longer than the buffer */
        if (in->cap >= TEXTIN_MAX_LINE_BYTES)
            return -csr_fail(st, CSR_ERR_SYNTAX, "line %llu is longer than %zu bytes",
                             (unsigned long long)in->line + 1, TEXTIN_MAX_LINE_BYTES);
        char *bigger = realloc(in->buf, in->cap * 2);
        if (!bigger)
            return -csr_fail(st, CSR_ERR_NOMEM, "line buffer");
        in->buf = bigger;
        in->cap *= 2;
        advise_huge_pages(in->buf, in->cap);
    }
    size_t room = in->cap - in->end - 1; /* keep one byte for a final NUL */
    if (room > (1u << 30))
        room = 1u << 30;
    int got = gzread(in->gz, in->buf + in->end, (unsigned)room);
    if (got < 0) {
        int errnum;
        const char *msg = gzip_message(in->gz, &errnum);
        if (errnum == Z_BUF_ERROR)
            return -csr_fail(st, CSR_ERR_TRUNCATED, "compressed stream ends early");
        if (errnum == Z_ERRNO && st)
            st->sys_errno = errno;
        return -csr_fail(st, CSR_ERR_IO, "%s%s", errnum == Z_ERRNO ? "" : "gzip: ", errnum == Z_ERRNO ? strerror(errno) : msg);
    }
    if (got == 0) {
        /* zlib reports a gzip stream cut short only through gzerror. */
        int errnum;
        gzerror(in->gz, &errnum);
        if (errnum == Z_BUF_ERROR)
            return -csr_fail(st, CSR_ERR_TRUNCATED, "compressed stream ends early");
        in->eof = 1;
    }
    in->end += (size_t)got;
    in->bytes += (uint64_t)got;
    if (in->progress)
        __atomic_store_n(in->progress, in->bytes, __ATOMIC_RELAXED);
    return 0;
}

int textin_next(textin *in, char **line, size_t *length, csr_status *st)
{
    for (;;) {
        char *begin = in->buf + in->start;
        size_t avail = in->end - in->start;
        char *nl = memchr(begin, '\n', avail);
        if (nl || (in->eof && avail > 0)) {
            size_t len = nl ? (size_t)(nl - begin) : avail;
            in->start += nl ? len + 1 : len;
            if (!nl)
                in->missing_newline = 1;
            begin[len] = '\0'; /* '\n', or the spare byte refill() keeps */
            if (len > 0 && begin[len - 1] == '\r')
                begin[--len] = '\0';
            in->line++;
            if (memchr(begin, '\0', len))
                return -csr_fail(st, CSR_ERR_SYNTAX, "NUL byte in a text line");
            *line = begin;
            *length = len;
            return 1;
        }
        if (in->eof)
            return 0;
        int rc = refill(in, st);
        if (rc < 0)
            return rc;
    }
}

int textin_next_block(textin *in, char **data, size_t *length, csr_status *st)
{
    for (;;) {
        char *begin = in->buf + in->start;
        size_t avail = in->end - in->start;
        char *last = avail ? memrchr(begin, '\n', avail) : NULL;
        if (last || (in->eof && avail > 0)) {
            size_t len = last ? (size_t)(last - begin) + 1 : avail;
            if (!last) {
                begin[len++] = '\n'; /* the spare byte refill() keeps */
                in->missing_newline = 1;
            }
            in->start += last ? len : avail;
            const char *nul = memchr(begin, '\0', len);
            if (nul) {
                in->fault_lines = 0;
                for (const char *p = begin; (p = memchr(p, '\n', (size_t)(nul - p))) != NULL; p++)
                    in->fault_lines++;
                return -csr_fail(st, CSR_ERR_SYNTAX, "NUL byte in a text line");
            }
            *data = begin;
            *length = len;
            return 1;
        }
        if (in->eof)
            return 0;
        int rc = refill(in, st);
        if (rc < 0)
            return rc;
    }
}

int textin_peek(textin *in, size_t want, const char **data, size_t *got, csr_status *st)
{
    if (want > TEXTIN_BUFFER_BYTES / 2)
        want = TEXTIN_BUFFER_BYTES / 2;
    while (in->end - in->start < want && !in->eof) {
        int rc = refill(in, st);
        if (rc < 0)
            return rc;
    }
    *data = in->buf + in->start;
    *got = in->end - in->start < want ? in->end - in->start : want;
    return 0;
}

long textin_read(textin *in, void *dst, size_t length, csr_status *st)
{
    if (length > (1u << 30))
        length = 1u << 30;
    size_t buffered = in->end - in->start;
    if (buffered > 0) {
        size_t n = buffered < length ? buffered : length;
        memcpy(dst, in->buf + in->start, n);
        in->start += n;
        return (long)n;
    }
    if (in->eof)
        return 0;
    int got = gzread(in->gz, dst, (unsigned)length);
    int errnum = Z_OK;
    if (got <= 0)
        gzerror(in->gz, &errnum);
    if (errnum == Z_BUF_ERROR)
        return -csr_fail(st, CSR_ERR_TRUNCATED, "compressed stream ends early");
    if (got < 0) {
        if (errnum == Z_ERRNO && st)
            st->sys_errno = errno;
        return -csr_fail(st, CSR_ERR_IO, "%s%s", errnum == Z_ERRNO ? "" : "gzip: ",
                         errnum == Z_ERRNO ? strerror(errno) : gzip_message(in->gz, &errnum));
    }
    if (got == 0)
        in->eof = 1;
    in->bytes += (uint64_t)got;
    if (in->progress)
        __atomic_store_n(in->progress, in->bytes, __ATOMIC_RELAXED);
    return got;
}

int textin_map(textin *in, const char **data, size_t *length)
{
    if (!in->map) {
        struct stat sb;
        if (!in->map_fd || textin_is_gzip(in) || fstat(in->map_fd - 1, &sb) || (uint64_t)sb.st_size <= in->map_offset ||
            (uint64_t)sb.st_size > SIZE_MAX)
            return -1;
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, in->map_fd - 1, 0);
        if (p == MAP_FAILED)
            return -1;
        madvise(p, (size_t)sb.st_size, MADV_WILLNEED);
        in->map = p;
        in->map_length = (size_t)sb.st_size;
    }
    *data = (const char *)in->map + in->map_offset;
    *length = in->map_length - (size_t)in->map_offset;
    return 0;
}

int textin_is_gzip(const textin *in)
{
    return in->gz && !gzdirect(in->gz);
}

void textin_close(textin *in)
{
    if (in->gz)
        gzclose(in->gz);
    if (in->map)
        munmap(in->map, in->map_length);
    if (in->map_fd)
        close(in->map_fd - 1);
    free(in->buf);
    memset(in, 0, sizeof *in);
}
