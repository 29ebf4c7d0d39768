/*
 * prism_write.c - a csr_model as PRISM's explicit export (prism_text.h):
 * the inverse of prism_read_tra and prism_read_lab, line for line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prism_text.h"

/* Digits formatted by hand: the .tra of a large model has 10^8 lines. */
static char *put_u64(char *p, uint64_t v)
{
    char tmp[24];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k)
        *p++ = tmp[--k];
    return p;
}

/*
 * The shortest decimal that reads back (strtod) as the same double, in %g
 * style (PRISM writes 0.5, 1, 0.3333333333333333).  A small cache keyed by
 * the bits: models have few distinct probabilities.
 */
typedef struct shortest_cache {
    uint64_t bits[4096];
    char text[4096][26];
    unsigned char used[4096];
} shortest_cache;

static const char *shortest(shortest_cache *cache, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    size_t slot = (size_t)((bits * 0x9E3779B97F4A7C15ull) >> 52);
    if (cache->used[slot] && cache->bits[slot] == bits)
        return cache->text[slot];
    char *t = cache->text[slot];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(t, sizeof cache->text[0], "%.*g", precision, x);
        if (strtod(t, NULL) == x)
            break;
    }
    cache->bits[slot] = bits;
    cache->used[slot] = 1;
    return t;
}

int prism_write_tra(FILE *f, const csr_model *m, csr_status *st)
{
    if (m->permutation)
        return csr_fail(st, CSR_ERR_USAGE, "the model is renumbered: write its original numbering");
    if (!m->probabilities)
        return csr_fail(st, CSR_ERR_USAGE, "the model has no probabilities (a graph only)");
    /* A state without choices has no line in a .tra, and the readers (ours
     * and PRISM's) take a gap in the states for a damaged file: PRISM gives
     * a deadlock a self-loop.  CSR and UMB hold such states. */
    for (uint64_t s = 0; s < m->num_states; s++)
        if (m->state_choices[s + 1] == m->state_choices[s])
            return csr_fail(st, CSR_ERR_UNSUPPORTED,
                            "state %llu has no choices, which a .tra cannot hold (PRISM gives a deadlock a "
                            "self-loop): write UMB (-f umb)",
                            (unsigned long long)s);
    shortest_cache *cache = calloc(1, sizeof *cache);
    if (!cache)
        return csr_fail(st, CSR_ERR_NOMEM, "probability cache");
    int dtmc = m->model_type == CSR_DTMC;
    if (dtmc)
        fprintf(f, "# Transitions (DTMC)\n%llu %llu\n", (unsigned long long)m->num_states,
                (unsigned long long)m->num_transitions);
    else
        fprintf(f, "# Transitions (MDP)\n%llu %llu %llu\n", (unsigned long long)m->num_states,
                (unsigned long long)m->num_choices, (unsigned long long)m->num_transitions);
    char line[128 + 26];
    for (uint64_t s = 0; s < m->num_states; s++) {
        for (uint64_t j = m->state_choices[s]; j < m->state_choices[s + 1]; j++) {
            const char *action = m->choice_actions ? m->actions.names[m->choice_actions[j]] : "";
            for (uint64_t i = m->choice_transitions[j]; i < m->choice_transitions[j + 1]; i++) {
                char *p = put_u64(line, s);
                *p++ = ' ';
                if (!dtmc) {
                    p = put_u64(p, j - m->state_choices[s]);
                    *p++ = ' ';
                }
                p = put_u64(p, m->targets[i]);
                *p++ = ' ';
                const char *prob = shortest(cache, m->probabilities[i]);
                size_t len = strlen(prob);
                memcpy(p, prob, len);
                p += len;
                if (*action) {
                    *p++ = ' ';
                    fwrite(line, 1, (size_t)(p - line), f);
                    fputs(action, f);
                    p = line;
                }
                *p++ = '\n';
                fwrite(line, 1, (size_t)(p - line), f);
            }
        }
    }
    free(cache);
    return ferror(f) ? csr_fail(st, CSR_ERR_IO, "write error") : CSR_OK;
}

int prism_write_lab(FILE *f, const csr_model *m, csr_status *st)
{
    if (m->permutation)
        return csr_fail(st, CSR_ERR_USAGE, "the model is renumbered: write its original numbering");
    uint64_t n = m->num_states, given = m->labels.count;
    /* PRISM's .lab always has "init" (prism2csr takes the initial states from
     * it): from the initial states where the model has no label of that
     * name, first, as PRISM writes it; without labels also "deadlock", empty. */
    int add_init = 1;
    for (uint64_t l = 0; l < given; l++)
        if (strcmp(m->labels.names[l], "init") == 0)
            add_init = 0;
    uint64_t count = given + (uint64_t)add_init + (given == 0);
    const char **names = malloc(count * sizeof *names);
    const uint32_t **list = malloc(count * sizeof *list);
    uint64_t *length = malloc(count * sizeof *length), *next = calloc(count, sizeof *next);
    if (!names || !list || !length || !next) {
        free(names);
        free(list);
        free(length);
        free(next);
        return csr_fail(st, CSR_ERR_NOMEM, "label cursors");
    }
    uint64_t c = 0;
    if (add_init) {
        names[c] = "init";
        list[c] = m->initial_states;
        length[c++] = m->num_initial;
    }
    for (uint64_t l = 0; l < given; l++, c++) {
        names[c] = m->labels.names[l];
        list[c] = m->label_states + m->label_first[l];
        length[c] = m->label_first[l + 1] - m->label_first[l];
    }
    if (given == 0) {
        names[c] = "deadlock";
        list[c] = NULL;
        length[c++] = 0;
    }
    fputs("# Labels\n", f);
    for (uint64_t l = 0; l < count; l++)
        fprintf(f, "%s%llu=\"%s\"", l ? " " : "", (unsigned long long)l, names[l]);
    fputc('\n', f);
    /* One line per labelled state: a cursor into each label's ascending list. */
    char line[32];
    for (;;) {
        uint64_t s = n;
        for (uint64_t l = 0; l < count; l++)
            if (next[l] < length[l] && list[l][next[l]] < s)
                s = list[l][next[l]];
        if (s == n)
            break;
        char *p = put_u64(line, s);
        *p++ = ':';
        fwrite(line, 1, (size_t)(p - line), f);
        for (uint64_t l = 0; l < count; l++)
            if (next[l] < length[l] && list[l][next[l]] == s) {
                p = line;
                *p++ = ' ';
                p = put_u64(p, l);
                fwrite(line, 1, (size_t)(p - line), f);
                next[l]++;
            }
        fputc('\n', f);
    }
    free(names);
    free(list);
    free(length);
    free(next);
    return ferror(f) ? csr_fail(st, CSR_ERR_IO, "write error") : CSR_OK;
}
