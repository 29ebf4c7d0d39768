/*
 * intern.h - what the text readers share (internal to the format library):
 * arrays that grow with what was read (no count from a file is trusted for
 * an allocation), a table of names interned by hash (name 0 = ""), and the
 * packing of names into a string table owned by a model.  Used by the PRISM
 * readers (prism_text.c) and the DRN reader (drn_read.c).
 */
#ifndef CSR_INTERN_H
#define CSR_INTERN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csr.h"
#include "hugepages.h"

/* ---- growable arrays ------------------------------------------------- */

typedef struct vec {
    void *data;
    uint64_t len, cap;
} vec;

static inline int vec_grow(vec *v, size_t elem, uint64_t need)
{
    if (need <= v->cap)
        return 0;
    uint64_t cap = v->cap ? v->cap : 1024;
    while (cap < need) {
        if (cap > UINT64_MAX / 2)
            return -1;
        cap *= 2;
    }
    uint64_t bytes;
    if (csr_mul_u64(cap, elem, &bytes) || bytes > SIZE_MAX)
        return -1;
    void *p = realloc(v->data, (size_t)bytes);
    if (!p)
        return -1;
    v->data = p;
    v->cap = cap;
    advise_huge_pages(p, (size_t)bytes);
    return 0;
}

#define VEC_PUSH(v, type, value)                                                                   \
    ((v).len < (v).cap || vec_grow(&(v), sizeof(type), (v).len + 1) == 0                           \
         ? (((type *)(v).data)[(v).len++] = (value), 0)                                            \
         : -1)

/* ---- action names: an open-addressing hash table, name 0 = "" ------- */

typedef struct names {
    char **list;
    size_t *lengths;
    uint64_t count, cap;
    uint32_t *slots; /* index + 1, 0 = empty */
    uint64_t num_slots;
} names;

/* Byte comparison inlined for the short names of actions. */
static inline int same_bytes(const char *a, const char *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static inline uint64_t hash_name(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static inline int names_rehash(names *n)
{
    uint64_t num = n->num_slots ? n->num_slots * 2 : 64;
    uint32_t *slots = calloc(num, sizeof *slots);
    if (!slots)
        return -1;
    for (uint64_t i = 0; i < n->count; i++) {
        uint64_t h = hash_name(n->list[i], strlen(n->list[i])) & (num - 1);
        while (slots[h])
            h = (h + 1) & (num - 1);
        slots[h] = (uint32_t)(i + 1);
    }
    free(n->slots);
    n->slots = slots;
    n->num_slots = num;
    return 0;
}

/* Index of name (len bytes), added if new; -1 out of memory or too many. */
static inline int64_t names_intern(names *n, const char *s, size_t len)
{
    if (n->count * 2 >= n->num_slots && names_rehash(n))
        return -1;
    uint64_t h = hash_name(s, len) & (n->num_slots - 1);
    while (n->slots[h]) {
        uint32_t i = n->slots[h] - 1;
        if (n->lengths[i] == len && same_bytes(n->list[i], s, len))
            return i;
        h = (h + 1) & (n->num_slots - 1);
    }
    if (n->count >= UINT32_MAX - 1)
        return -1;
    if (n->count == n->cap) {
        uint64_t cap = n->cap ? n->cap * 2 : 16;
        char **list = realloc(n->list, cap * sizeof *list);
        if (!list)
            return -1;
        n->list = list;
        size_t *lengths = realloc(n->lengths, cap * sizeof *lengths);
        if (!lengths)
            return -1;
        n->lengths = lengths;
        n->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, len);
    copy[len] = '\0';
    n->list[n->count] = copy;
    n->lengths[n->count] = len;
    n->slots[h] = (uint32_t)(n->count + 1);
    return (int64_t)n->count++;
}

static inline void names_free(names *n)
{
    for (uint64_t i = 0; i < n->count; i++)
        free(n->list[i]);
    free(n->list);
    free(n->lengths);
    free(n->slots);
    memset(n, 0, sizeof *n);
}

/* Pack names into one string table owned by the model and point
 * strings->names into it. */
static inline int attach_names(csr_model *m, csr_strings *strings, char **list, uint64_t count)
{
    uint64_t total = 0;
    for (uint64_t i = 0; i < count; i++)
        total += strlen(list[i]) + 1;
    char *table = malloc(total ? total : 1);
    if (!table || csr_adopt(m, table)) /* csr_adopt frees what it cannot keep */
        return CSR_ERR_NOMEM;
    const char **ptrs = malloc((count ? count : 1) * sizeof *ptrs);
    if (!ptrs)
        return CSR_ERR_NOMEM;
    char *p = table;
    for (uint64_t i = 0; i < count; i++) {
        size_t len = strlen(list[i]) + 1;
        memcpy(p, list[i], len);
        ptrs[i] = p;
        p += len;
    }
    strings->names = ptrs;
    strings->count = count;
    return CSR_OK;
}

#endif
