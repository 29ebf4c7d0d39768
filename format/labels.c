/*
 * labels.c - label files, PRISM .sccs/.mecs and value files (labels.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "numparse.h"
#include "parallel.h"

typedef struct u64vec {
    uint64_t *data;
    uint64_t len, cap;
} u64vec;

static int u64vec_push(u64vec *v, uint64_t x)
{
    if (v->len == v->cap) {
        uint64_t cap = v->cap ? v->cap * 2 : 4096;
        uint64_t *d = realloc(v->data, cap * sizeof *d);
        if (!d)
            return -1;
        v->data = d;
        v->cap = cap;
    }
    v->data[v->len++] = x;
    return 0;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "SCC i/n:" -> i and n; returns 0 if the line is such a header. */
static int parse_block_header(const char *p, const char *word, uint64_t *i, uint64_t *n)
{
    if (!starts_with(p, word))
        return -1;
    p += strlen(word);
    const char *q = p;
    uint64_t a = 0, b = 0;
    if (*q < '0' || *q > '9')
        return -1;
    while (*q >= '0' && *q <= '9') {
        if (a > UINT64_MAX / 10 - 1)
            return -1;
        a = a * 10 + (uint64_t)(*q++ - '0');
    }
    if (*q++ != '/' || *q < '0' || *q > '9')
        return -1;
    while (*q >= '0' && *q <= '9') {
        if (b > UINT64_MAX / 10 - 1)
            return -1;
        b = b * 10 + (uint64_t)(*q++ - '0');
    }
    if (*q++ != ':' || *num_skip_spaces(q))
        return -1;
    *i = a;
    *n = b;
    return 0;
}

/* A listed state with its block and line, for the duplicate check. */
typedef struct label_line {
    uint64_t state, block, line;
} label_line;

static int compare_label_lines(const void *a, const void *b)
{
    const label_line *x = a, *y = b;
    if (x->state != y->state)
        return x->state < y->state ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* PRISM -exportsccs / -exportmecs; the first significant line is in line. */
static int read_prism(textin *in, char *line, int kind, label_file *out, csr_status *st)
{
    const char *word = kind == LABELS_PRISM_SCCS ? "SCC " : "MEC ";
    label_line *list = NULL;
    size_t listed = 0, cap = 0;
    uint64_t block = 0, declared = 0, in_block = 0, max_state = 0;
    int rc = CSR_OK, got = 1;
    size_t len;
    do {
        const char *p = num_skip_spaces(line);
        if (*p == '\0' || starts_with(p, "Variables:"))
            continue;
        uint64_t i, n;
        if (parse_block_header(p, word, &i, &n) == 0) {
            if (block && in_block == 0) {
                rc = csr_fail(st, CSR_ERR_SYNTAX, "%s%llu/%llu lists no state", word, (unsigned long long)block,
                              (unsigned long long)declared);
                goto fail;
            }
            if (i != block + 1 || (block && n != declared) || n == 0 || i > n) {
                rc = csr_fail(st, CSR_ERR_ORDER, "%s%llu/%llu after %s%llu/%llu", word, (unsigned long long)i,
                              (unsigned long long)n, word, (unsigned long long)block, (unsigned long long)declared);
                goto fail;
            }
            block = i;
            declared = n;
            in_block = 0;
            continue;
        }
        if (!block) {
            rc = csr_fail(st, CSR_ERR_SYNTAX, "expected \"%si/n:\"", word);
            goto fail;
        }
        uint64_t s = 0;
        const char *q = p;
        while (*q >= '0' && *q <= '9') {
            if (s > UINT64_MAX / 10 - 1) {
                rc = csr_fail(st, CSR_ERR_NUMBER, "state index");
                goto fail;
            }
            s = s * 10 + (uint64_t)(*q++ - '0');
        }
        if (q == p || (*q != ':' && *num_skip_spaces(q) != '\0')) {
            rc = csr_fail(st, CSR_ERR_SYNTAX, "expected \"state:(valuation)\"");
            goto fail;
        }
        if (s >= CSR_MAX_STATES) {
            rc = csr_fail(st, CSR_ERR_RANGE, "state %llu", (unsigned long long)s);
            goto fail;
        }
        if (listed == cap) {
            size_t ncap = cap ? 2 * cap : 1024;
            label_line *grown = realloc(list, ncap * sizeof *grown);
            if (!grown) {
                rc = csr_fail(st, CSR_ERR_NOMEM, "state list");
                goto fail;
            }
            list = grown;
            cap = ncap;
        }
        list[listed++] = (label_line){s, block, in->line};
        if (s + 1 > max_state)
            max_state = s + 1;
        in_block++;
    } while ((got = textin_next(in, &line, &len, st)) > 0);
    if (got < 0) {
        rc = -got;
        goto fail;
    }
    if (block != declared || (block && in_block == 0)) {
        rc = csr_fail(st, CSR_ERR_TRUNCATED, "%llu of %llu blocks", (unsigned long long)block,
                      (unsigned long long)declared);
        goto fail;
    }
    /* A state listed twice: the earliest second listing, by sorting (state, line). */
    qsort(list, listed, sizeof *list, compare_label_lines);
    uint64_t twice_line = 0, twice_state = 0;
    for (size_t k = 1; k < listed; k++)
        if (list[k].state == list[k - 1].state && (!twice_line || list[k].line < twice_line)) {
            twice_line = list[k].line;
            twice_state = list[k].state;
        }
    if (twice_line) {
        rc = csr_fail(st, CSR_ERR_SYNTAX, "state %llu is listed twice", (unsigned long long)twice_state);
        if (st)
            st->line = twice_line;
        goto fail;
    }
    out->listed = malloc((listed ? listed : 1) * sizeof *out->listed);
    if (!out->listed) {
        rc = csr_fail(st, CSR_ERR_NOMEM, "labels");
        goto fail;
    }
    for (size_t k = 0; k < listed; k++)
        out->listed[k] = (label_listing){list[k].state, list[k].block};
    out->num_listed = listed;
    out->kind = kind;
    out->num_states = max_state;
    free(list);
    return CSR_OK;
fail:
    if (st && !st->line)
        st->line = in->line;
    free(list);
    return rc;
}

int labels_read(textin *in, label_file *out, csr_status *st)
{
    memset(out, 0, sizeof *out);
    if (st)
        st->line = 0;
    u64vec ids = {0};
    char *line;
    size_t len;
    int got;
    while ((got = textin_next(in, &line, &len, st)) > 0) {
        const char *p = num_skip_spaces(line);
        if (ids.len == 0 && (starts_with(p, "Variables:") || starts_with(p, "SCC ") || starts_with(p, "MEC ") ||
                             *p == '\0')) {
            /* PRISM's export; blank lines only occur there */
            const char *q = p;
            while (*q == '\0' || starts_with(q, "Variables:")) {
                got = textin_next(in, &line, &len, st);
                if (got <= 0)
                    break;
                q = num_skip_spaces(line);
            }
            if (got < 0) {
                if (st)
                    st->line = in->line;
                return -got;
            }
            if (got == 0) { /* only a Variables line: no SCCs or MECs listed at all */
                out->kind = LABELS_PRISM_SCCS;
                out->ids = malloc(sizeof *out->ids);
                return out->ids ? CSR_OK : csr_fail(st, CSR_ERR_NOMEM, "labels");
            }
            int kind = starts_with(q, "MEC ") ? LABELS_PRISM_MECS : LABELS_PRISM_SCCS;
            return read_prism(in, line, kind, out, st);
        }
        uint64_t id;
        if (*p == '-' && *num_skip_spaces(p + 1) == '\0') {
            id = LABEL_NONE;
        } else if (num_parse_u64(&p, &id) || *num_skip_spaces(p) != '\0' || id == LABEL_NONE) {
            free(ids.data);
            if (st)
                st->line = in->line;
            return csr_fail(st, CSR_ERR_SYNTAX, "expected a component id or \"-\"");
        }
        if (u64vec_push(&ids, id)) {
            free(ids.data);
            return csr_fail(st, CSR_ERR_NOMEM, "labels");
        }
    }
    if (got < 0) {
        free(ids.data);
        if (st)
            st->line = in->line;
        return -got;
    }
    if (in->missing_newline) {
        free(ids.data);
        if (st)
            st->line = in->line;
        return csr_fail(st, CSR_ERR_TRUNCATED, "the last line has no newline");
    }
    out->kind = LABELS_PLAIN;
    out->num_states = ids.len;
    out->ids = ids.data ? ids.data : malloc(sizeof *out->ids);
    return out->ids ? CSR_OK : csr_fail(st, CSR_ERR_NOMEM, "labels");
}

int labels_set_states(label_file *lf, uint64_t n, csr_status *st)
{
    if (lf->kind == LABELS_PLAIN) {
        if (lf->num_states != n)
            return csr_fail(st, CSR_ERR_COUNTS, "%llu states, expected %llu", (unsigned long long)lf->num_states,
                            (unsigned long long)n);
        return CSR_OK;
    }
    if (lf->num_states > n)
        return csr_fail(st, CSR_ERR_RANGE, "lists state %llu, but there are only %llu states",
                        (unsigned long long)(lf->num_states - 1), (unsigned long long)n);
    uint64_t *ids = realloc(lf->ids, (n ? n : 1) * sizeof *ids);
    if (!ids)
        return csr_fail(st, CSR_ERR_NOMEM, "labels");
    for (uint64_t s = 0; s < n; s++)
        ids[s] = LABEL_NONE;
    for (uint64_t k = 0; k < lf->num_listed; k++)
        ids[lf->listed[k].state] = lf->listed[k].block;
    free(lf->listed);
    lf->listed = NULL;
    lf->num_listed = 0;
    if (lf->kind == LABELS_PRISM_SCCS) /* unlisted: an SCC of its own, named apart from the blocks */
        for (uint64_t s = 0; s < n; s++)
            if (ids[s] == LABEL_NONE)
                ids[s] = ((uint64_t)1 << 63) | s;
    lf->ids = ids;
    lf->num_states = n;
    return CSR_OK;
}

/* Open-addressing map from id to the first state that has it. */
int labels_canonicalize(const uint64_t *ids, uint64_t n, uint64_t *canonical)
{
    /* ids that are states (the GPU tools' and the references' component
     * ids): a table by id, one pass in state order */
    uint64_t max = 0;
    for (uint64_t s = 0; s < n; s++)
        if (ids[s] != LABEL_NONE && ids[s] > max)
            max = ids[s];
    if (n > 0 && max < n) {
        uint64_t *first = malloc(n * sizeof *first);
        if (first) {
            memset(first, 0xff, n * sizeof *first); /* LABEL_NONE */
            for (uint64_t s = 0; s < n; s++) {
                uint64_t id = ids[s];
                if (id == LABEL_NONE) {
                    canonical[s] = LABEL_NONE;
                    continue;
                }
                if (first[id] == LABEL_NONE)
                    first[id] = s;
                canonical[s] = first[id];
            }
            free(first);
            return CSR_OK;
        }
    }
    /* any ids: a hash table */
    uint64_t slots = 16;
    while (slots < 2 * n)
        slots *= 2;
    uint64_t *keys = malloc(slots * sizeof *keys), *vals = malloc(slots * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return CSR_ERR_NOMEM;
    }
    for (uint64_t i = 0; i < slots; i++)
        keys[i] = LABEL_NONE;
    for (uint64_t s = 0; s < n; s++) {
        uint64_t id = ids[s];
        if (id == LABEL_NONE) {
            canonical[s] = LABEL_NONE;
            continue;
        }
        uint64_t h = (id * 0x9E3779B97F4A7C15ull) >> 17 & (slots - 1);
        while (keys[h] != LABEL_NONE && keys[h] != id)
            h = (h + 1) & (slots - 1);
        if (keys[h] == LABEL_NONE) {
            keys[h] = id;
            vals[h] = s;
        }
        canonical[s] = vals[h];
    }
    free(keys);
    free(vals);
    return CSR_OK;
}

int labels_to_original(const csr_model *m, const uint64_t *ids, uint64_t *out)
{
    uint64_t n = m->num_states;
    if (!m->permutation) /* already in the original numbering */
        return labels_canonicalize(ids, n, out);
    uint64_t *placed = malloc((n ? n : 1) * sizeof *placed);
    if (!placed)
        return CSR_ERR_NOMEM;
    for (uint64_t s = 0; s < n; s++) {
        uint64_t orig = m->permutation ? m->permutation[s] : s;
        uint64_t id = ids[s];
        placed[orig] = id == LABEL_NONE ? LABEL_NONE : m->permutation && id < n ? m->permutation[id] : id;
    }
    int rc = labels_canonicalize(placed, n, out);
    free(placed);
    return rc;
}

/* One label line per id of ids[0..n) into buf (at most 21 bytes a line);
 * returns the bytes written. */
static size_t format_labels(const uint64_t *ids, uint64_t n, char *buf)
{
    size_t used = 0;
    for (uint64_t s = 0; s < n; s++) {
        uint64_t id = ids[s];
        if (id == LABEL_NONE) {
            buf[used++] = '-';
        } else {
            char tmp[24];
            int k = 0;
            do
                tmp[k++] = (char)('0' + id % 10);
            while ((id /= 10) != 0);
            while (k)
                buf[used++] = tmp[--k];
        }
        buf[used++] = '\n';
    }
    return used;
}

typedef struct label_part {
    const uint64_t *ids;
    uint64_t n;
    char *buf;
    size_t length;
} label_part;

static void *format_part(void *arg)
{
    label_part *p = arg;
    p->length = format_labels(p->ids, p->n, p->buf);
    return NULL;
}

#define LABEL_PARTS 64
#define LABEL_LINE_MAX 21          /* 20 digits and '\n' */
#define LABEL_PART_IDS (1u << 20)  /* ids a thread formats at least */

int labels_write(FILE *out, const uint64_t *ids, uint64_t n)
{
    /* in parts formatted by one thread each, written in order */
    uint64_t parts = n / LABEL_PART_IDS + 1;
    if (parts > parallel_cpus())
        parts = parallel_cpus();
    if (parts > LABEL_PARTS)
        parts = LABEL_PARTS;
    label_part part[LABEL_PARTS];
    uint64_t each = (n + parts - 1) / parts;
    int rc = 0;
    for (uint64_t i = 0; i < parts; i++) {
        uint64_t from = i * each < n ? i * each : n, to = (i + 1) * each < n ? (i + 1) * each : n;
        part[i] = (label_part){ids + from, to - from, malloc((to - from) * LABEL_LINE_MAX + 1), 0};
        if (!part[i].buf)
            rc = -1;
    }
    if (rc == 0)
        parallel_run(format_part, part, sizeof part[0], (unsigned)parts);
    for (uint64_t i = 0; i < parts && rc == 0; i++)
        if (part[i].length && fwrite(part[i].buf, 1, part[i].length, out) != part[i].length)
            rc = -1;
    for (uint64_t i = 0; i < parts; i++)
        free(part[i].buf);
    if (rc) {
        if (!errno)
            errno = ENOMEM;
        return -1;
    }
    return fflush(out) == 0 ? 0 : -1;
}

void labels_free(label_file *lf)
{
    free(lf->ids);
    free(lf->listed);
    memset(lf, 0, sizeof *lf);
}

int values_read(textin *in, double **values, uint64_t *n, csr_status *st)
{
    double *v = NULL;
    uint64_t len = 0, cap = 0;
    char *line;
    size_t linelen;
    int got;
    while ((got = textin_next(in, &line, &linelen, st)) > 0) {
        const char *p = num_skip_spaces(line);
        double x;
        if (num_parse_double(&p, &x) || *num_skip_spaces(p) != '\0') {
            free(v);
            if (st)
                st->line = in->line;
            return csr_fail(st, CSR_ERR_NUMBER, "expected one number");
        }
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            double *bigger = realloc(v, cap * sizeof *v);
            if (!bigger) {
                free(v);
                return csr_fail(st, CSR_ERR_NOMEM, "values");
            }
            v = bigger;
        }
        v[len++] = x;
    }
    if (got < 0 || in->missing_newline) {
        free(v);
        if (st)
            st->line = in->line;
        return got < 0 ? -got : csr_fail(st, CSR_ERR_TRUNCATED, "the last line has no newline");
    }
    *values = v ? v : malloc(sizeof *v);
    *n = len;
    return *values ? CSR_OK : csr_fail(st, CSR_ERR_NOMEM, "values");
}
