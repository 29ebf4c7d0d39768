/*
 * tracmp - test helper: the parallel .tra reader against the sequential one.
 *
 *   tracmp [-j THREADS] [-c CHUNK_BYTES] [-m ROUNDS] [-s SEED] file.tra
 *
 * Reads file.tra (uncompressed) with one thread and with THREADS threads of
 * at least CHUNK_BYTES of text each (default 7 and 64, so that even the
 * small shared models are cut in several chunks), and checks that both give
 * the same CSR bytes, or the same error (code, line and message), and that
 * the valid file was indeed read in parallel.  With -m,
 * also ROUNDS mutated copies of the file (a line deleted, duplicated, swapped
 * with the next, or a character changed; xorshift.h from SEED), each read
 * both ways.  Prints one line per difference; exit 0 when there is none, 1
 * otherwise, 2 on bad usage.  Not installed; used by the Bats tests only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csr.h"
#include "prism_text.h"
#include "textin.h"
#include "xorshift.h"

typedef struct result {
    int rc;
    unsigned chunks; /* read in parallel in that many chunks; 0: sequentially */
    csr_status st;
    char *bytes; /* the CSR file when rc == 0 */
    size_t length;
} result;

/* Read path with the given options into *r. */
static void read_tra(const char *path, unsigned threads, size_t chunk, result *r)
{
    memset(r, 0, sizeof *r);
    textin in;
    csr_model m;
    prism_tra_options opt = {0};
    prism_tra_report rep;
    opt.threads = threads;
    opt.min_chunk_bytes = chunk;
    if ((r->rc = textin_open(&in, path, &r->st)))
        return;
    r->rc = prism_read_tra(&in, &opt, &m, &rep, &r->st);
    textin_close(&in);
    if (r->rc)
        return;
    r->chunks = rep.chunks;
    FILE *f = tmpfile();
    csr_status st = {0};
    if (!f || csr_write_fd(fileno(f), &m, &st)) {
        fprintf(stderr, "tracmp: cannot write a CSR file\n");
        exit(2);
    }
    r->length = (size_t)lseek(fileno(f), 0, SEEK_END);
    r->bytes = malloc(r->length ? r->length : 1);
    if (!r->bytes || pread(fileno(f), r->bytes, r->length, 0) != (ssize_t)r->length) {
        fprintf(stderr, "tracmp: cannot read the CSR file back\n");
        exit(2);
    }
    fclose(f);
    csr_free(&m);
}

/* 0 when the sequential and the parallel reader agree on path. */
static int compare(const char *path, const char *what, unsigned threads, size_t chunk, int must_split)
{
    result a, b;
    read_tra(path, 1, 0, &a);
    read_tra(path, threads, chunk, &b);
    int bad = 0;
    if (a.rc != b.rc) {
        printf("%s: sequential %d (%s), parallel %d (%s)\n", what, a.rc, a.st.detail, b.rc, b.st.detail);
        bad = 1;
    } else if (a.rc == 0 && b.chunks < 2 && must_split) {
        printf("%s: read in %u chunk(s), not in parallel\n", what, b.chunks);
        bad = 1;
    } else if (a.rc == 0 && (a.length != b.length || memcmp(a.bytes, b.bytes, a.length))) {
        printf("%s: the CSR files differ\n", what);
        bad = 1;
    } else if (a.rc != 0 && (a.st.line != b.st.line || strcmp(a.st.detail, b.st.detail))) {
        printf("%s: line %llu \"%s\" against line %llu \"%s\"\n", what, (unsigned long long)a.st.line, a.st.detail,
               (unsigned long long)b.st.line, b.st.detail);
        bad = 1;
    }
    free(a.bytes);
    free(b.bytes);
    return bad;
}

int main(int argc, char **argv)
{
    unsigned threads = 7, rounds = 0;
    size_t chunk = 64;
    uint64_t seed = 1;
    int c;
    while ((c = getopt(argc, argv, "j:c:m:s:")) != -1) {
        switch (c) {
        case 'j': threads = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'c': chunk = (size_t)strtoull(optarg, NULL, 10); break;
        case 'm': rounds = (unsigned)strtoul(optarg, NULL, 10); break;
        case 's': seed = strtoull(optarg, NULL, 10) | 1; break;
        default: return 2;
        }
    }
    if (optind + 1 != argc || threads < 2 || chunk < 1) {
        fprintf(stderr, "usage: tracmp [-j THREADS>=2] [-c CHUNK_BYTES] [-m ROUNDS] [-s SEED] file.tra\n");
        return 2;
    }
    const char *path = argv[optind];
    int bad = compare(path, path, threads, chunk, 1);
    if (!rounds)
        return bad;

    /* the file as lines, for the mutations */
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 2;
    }
    size_t cap = 1 << 16, len = 0, got;
    char *text = malloc(cap);
    while ((got = fread(text + len, 1, cap - len, f)) > 0)
        if ((len += got) == cap)
            text = realloc(text, cap *= 2);
    fclose(f);
    size_t nlines = 0;
    size_t *start = malloc((len + 2) * sizeof *start);
    for (size_t i = 0; i < len; i = (size_t)((char *)memchr(text + i, '\n', len - i) - text) + 1) {
        start[nlines++] = i;
        if (!memchr(text + i, '\n', len - i))
            break;
    }
    start[nlines] = len;
    char tmp[] = "/tmp/tracmp.XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0 || nlines < 3) {
        fprintf(stderr, "tracmp: cannot make a temporary file, or too few lines\n");
        return 2;
    }
    for (unsigned r = 0; r < rounds; r++) {
        size_t a = 1 + xorshift_next(&seed) % (nlines - 2); /* never the header */
        unsigned kind = (unsigned)(xorshift_next(&seed) % 4);
        if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET)) {
            perror(tmp);
            return 2;
        }
        FILE *o = fdopen(dup(fd), "wb");
        for (size_t l = 0; l < nlines; l++) {
            const char *line = text + start[l];
            size_t n = start[l + 1] - start[l];
            if (l == a && kind == 0)
                continue; /* deleted */
            if (l == a && kind == 2) { /* swapped with the next */
                fwrite(text + start[l + 1], 1, start[l + 2] - start[l + 1], o);
                fwrite(line, 1, n, o);
                l++;
                continue;
            }
            if (l == a && kind == 3) { /* a character changed */
                char *copy = malloc(n);
                memcpy(copy, line, n);
                copy[xorshift_next(&seed) % (n > 1 ? n - 1 : 1)] = "0123456789 .e-x#"[xorshift_next(&seed) % 16];
                fwrite(copy, 1, n, o);
                free(copy);
                continue;
            }
            fwrite(line, 1, n, o);
            if (l == a && kind == 1)
                fwrite(line, 1, n, o); /* duplicated */
        }
        fclose(o);
        char what[128];
        snprintf(what, sizeof what, "%s, mutation %u (line %zu, kind %u)", path, r, a + 1, kind);
        bad |= compare(tmp, what, threads, chunk, 0);
    }
    unlink(tmp);
    free(start);
    free(text);
    return bad;
}
