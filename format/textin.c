/*
 * textin.c - buffered line reader over plain or gzip input, inflated by
 * zlib's inflate (textin.h).
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

/* Read up to length bytes of the file itself (EINTR retried): the count, 0
 * at its end, or -1 with errno. */
static ssize_t read_fd(int fd, void *dst, size_t length)
{
    for (;;) {
        ssize_t got = read(fd, dst, length);
        if (got >= 0 || errno != EINTR)
            return got;
    }
}

static int io_error(csr_status *st)
{
    if (st)
        st->sys_errno = errno;
    return csr_fail(st, CSR_ERR_IO, "%s", strerror(errno));
}

/* More compressed input into zin (zs->avail_in was 0): sets zin_eof at the end. */
static int fill_compressed(textin *in, csr_status *st)
{
    ssize_t got = read_fd(in->fd, in->zin, TEXTIN_GZIP_INPUT_BYTES);
    if (got < 0)
        return -io_error(st);
    in->zs->next_in = in->zin;
    in->zs->avail_in = (uInt)got;
    if (got == 0)
        in->zin_eof = 1;
    return 0;
}

int textin_open(textin *in, const char *path, csr_status *st)
{
    memset(in, 0, sizeof *in);
    in->fd = -1;
    int fd = (!path || strcmp(path, "-") == 0) ? dup(STDIN_FILENO) : open(path, O_RDONLY);
    if (fd < 0) {
        if (st)
            st->sys_errno = errno;
        return csr_fail(st, CSR_ERR_OPEN, "%s", strerror(errno));
    }
    in->fd = fd;
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        off_t at = lseek(fd, 0, SEEK_CUR);
        int copy = at >= 0 ? dup(fd) : -1;
        if (copy >= 0) {
            in->map_fd = copy + 1;
            in->map_offset = (uint64_t)at;
        }
    }
    in->buf = malloc(TEXTIN_BUFFER_BYTES);
    in->zin = malloc(TEXTIN_GZIP_INPUT_BYTES);
    in->zs = calloc(1, sizeof *in->zs);
    if (!in->buf || !in->zin || !in->zs) {
        textin_close(in);
        return csr_fail(st, CSR_ERR_NOMEM, "input buffer");
    }
    advise_huge_pages(in->buf, TEXTIN_BUFFER_BYTES);
    in->cap = TEXTIN_BUFFER_BYTES;
    /* gzip by its magic number (RFC 1952: 1f 8b); the bytes read to decide
     * stay in zin, compressed input or the first plain bytes */
    in->zs->next_in = in->zin;
    in->zs->avail_in = 0;
    while (in->zs->avail_in < 2 && !in->zin_eof) {
        ssize_t got = read_fd(fd, in->zin + in->zs->avail_in, TEXTIN_GZIP_INPUT_BYTES - in->zs->avail_in);
        if (got < 0) {
            int rc = io_error(st);
            textin_close(in);
            return rc;
        }
        in->zs->avail_in += (uInt)got;
        in->zin_eof = got == 0;
    }
    in->gzip = in->zs->avail_in >= 2 && in->zin[0] == 0x1f && in->zin[1] == 0x8b;
    if (in->gzip && inflateInit2(in->zs, 16 + MAX_WBITS) != Z_OK) {
        in->gzip = 0;
        textin_close(in);
        return csr_fail(st, CSR_ERR_NOMEM, "gzip decompressor");
    }
    in->inflating = in->gzip;
    return CSR_OK;
}

/*
 * Up to length bytes of the input's contents into dst: plain input as it
 * is (the bytes textin_open looked at first), gzip input inflated member by
 * member (RFC 1952 allows several; `cat a.gz b.gz` makes such a file).
 * After the last member only the end of the input may follow: anything else
 * is CSR_ERR_TRAILING (zlib's gzread skipped it silently).  Returns the
 * count, 0 at the end, or a negative csr_error code: CSR_ERR_TRUNCATED for a
 * stream cut short, CSR_ERR_IO with zlib's message for a damaged one.
 */
static long source_read(textin *in, unsigned char *dst, size_t length, csr_status *st)
{
    z_stream *zs = in->zs;
    if (!in->gzip) {
        if (zs->avail_in) {
            size_t n = zs->avail_in < length ? zs->avail_in : length;
            memcpy(dst, zs->next_in, n);
            zs->next_in += n;
            zs->avail_in -= (uInt)n;
            return (long)n;
        }
        if (in->zin_eof)
            return 0;
        ssize_t got = read_fd(in->fd, dst, length);
        if (got < 0)
            return -io_error(st);
        return (long)got;
    }
    for (;;) {
        if (!in->inflating) { /* between members: another one, or the end */
            while (zs->avail_in < 2 && !in->zin_eof) {
                if (zs->avail_in == 1) { /* keep the one byte seen */
                    in->zin[0] = zs->next_in[0];
                    ssize_t got = read_fd(in->fd, in->zin + 1, TEXTIN_GZIP_INPUT_BYTES - 1);
                    if (got < 0)
                        return -io_error(st);
                    zs->next_in = in->zin;
                    zs->avail_in = 1 + (uInt)got;
                    in->zin_eof = got == 0;
                } else {
                    int rc = fill_compressed(in, st);
                    if (rc < 0)
                        return rc;
                }
            }
            if (zs->avail_in == 0)
                return 0;
            if (zs->avail_in < 2 || zs->next_in[0] != 0x1f || zs->next_in[1] != 0x8b)
                return -csr_fail(st, CSR_ERR_TRAILING, "data after the gzip stream that is not another gzip member");
            if (inflateReset(zs) != Z_OK)
                return -csr_fail(st, CSR_ERR_IO, "gzip: %s", zs->msg ? zs->msg : "cannot restart the decompressor");
            in->inflating = 1;
        }
        if (zs->avail_in == 0 && !in->zin_eof) {
            int rc = fill_compressed(in, st);
            if (rc < 0)
                return rc;
        }
        if (zs->avail_in == 0 && in->zin_eof)
            return -csr_fail(st, CSR_ERR_TRUNCATED, "compressed stream ends early");
        zs->next_out = dst;
        zs->avail_out = (uInt)(length > (1u << 30) ? (1u << 30) : length);
        uInt asked = zs->avail_out;
        int ret = inflate(zs, Z_NO_FLUSH);
        long made = (long)(asked - zs->avail_out);
        if (ret == Z_STREAM_END)
            in->inflating = 0;
        else if (ret == Z_MEM_ERROR)
            return -csr_fail(st, CSR_ERR_NOMEM, "gzip decompressor");
        else if (ret != Z_OK && ret != Z_BUF_ERROR)
            return -csr_fail(st, CSR_ERR_IO, "gzip: %s", zs->msg ? zs->msg : "damaged stream");
        if (made > 0)
            return made;
    }
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
    long got = source_read(in, (unsigned char *)in->buf + in->end, room, st);
    if (got < 0)
        return (int)got;
    if (got == 0)
        in->eof = 1;
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
    long got = source_read(in, dst, length, st);
    if (got < 0)
        return got;
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
    return in->gzip;
}

void textin_close(textin *in)
{
    if (in->gzip && in->zs)
        inflateEnd(in->zs);
    free(in->zs);
    free(in->zin);
    if (in->buf || in->zs || in->fd > 0)
        close(in->fd);
    if (in->map)
        munmap(in->map, in->map_length);
    if (in->map_fd)
        close(in->map_fd - 1);
    free(in->buf);
    memset(in, 0, sizeof *in);
}
