/*
 * valcheck - test helper: csr_validate's check of the state valuations
 * (format/csr_validate.c: the fields within a word checked a word at a time
 * by sums, the others one by one) against each field read alone, on seeded
 * random layouts.
 *
 *   valcheck -n COUNT -s SEED
 *
 * Each layout: 1 to 40 variables (bools and ints of 1 to 64 bits, each
 * field's span full, 0, as wide as the field (as the writers make them:
 * 2^(width - 1) <= span < 2^width - 1) or narrower: the fields fall
 * anywhere in a word, at its end and across it), 1 to 40 states of one
 * self-loop each, every value in range (often the span itself) but, in
 * about half the layouts, a few fields set above their span (to the
 * field's largest value, or one above the span).  csr_validate must refuse exactly those with a
 * fault, naming the first state that has one and its first variable so,
 * with the value; the layouts without pass.  The rows are checked by a task
 * per CPU where the environment sets CSR_TEST_GRAIN.
 * Output: "valcheck: N layouts (seeds A to B): F refused at the first faulty
 * field, P passed, as each field read alone gives"; exit 0, 1 at the first
 * layout where csr_validate differs (its seed, message and the expected
 * one), 2 usage.  Not installed; used by tests/127-valuations.bats.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csr.h"

#define MAX_VARIABLES 40
#define MAX_STATES 40

/* splitmix64: the layouts depend on the seed only */
static uint64_t next_random(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t width_mask(uint32_t width)
{
    return width == 64 ? ~(uint64_t)0 : ((uint64_t)1 << width) - 1;
}

/* value (width bits) into the row at bit offset, across a word if need be */
static void put_field(uint64_t *row, uint64_t offset, uint32_t width, uint64_t value)
{
    const uint64_t w = offset >> 6, b = offset & 63;
    row[w] |= value << b;
    if (b + width > 64)
        row[w + 1] |= value >> (64 - b);
}

/* One layout: 0 when csr_validate agrees with the fields read alone. */
static int check_layout(uint64_t seed, int *refused)
{
    uint64_t x = seed;
    const uint64_t V = 1 + next_random(&x) % MAX_VARIABLES, n = 1 + next_random(&x) % MAX_STATES;
    csr_variable info[MAX_VARIABLES];
    char names[MAX_VARIABLES][8];
    const char *name_of[MAX_VARIABLES];
    uint64_t offset = 0;
    for (uint64_t v = 0; v < V; v++) {
        csr_variable *f = &info[v];
        snprintf(names[v], sizeof names[v], "v%llu", (unsigned long long)v);
        name_of[v] = names[v];
        const uint64_t kind = next_random(&x) % 8;
        if (kind == 0) {
            *f = (csr_variable){CSR_VAR_BOOL, 1, offset, 0, 1};
        } else {
            const uint32_t width = 1 + (uint32_t)(next_random(&x) % 64);
            const uint64_t full = width_mask(width), half = full >> 1, shape = next_random(&x) % 4;
            /* full; 0; the field's width needed (half + 1 to full - 1); narrower (0 to half) */
            const uint64_t span = shape == 0 ? full
                                  : shape == 1 ? 0
                                  : shape == 2 && half ? half + 1 + next_random(&x) % half
                                               : next_random(&x) & half;
            const int64_t lower = (int64_t)(next_random(&x) % 2001) - 1000;
            /* upper = lower + span, within 64 signed bits */
            const int64_t base = span > (uint64_t)INT64_MAX - 1000 ? INT64_MIN : lower;
            *f = (csr_variable){CSR_VAR_INT, width, offset, base, (int64_t)((uint64_t)base + span)};
        }
        offset += info[v].width;
    }
    const uint64_t W = offset / 64 + (offset % 64 != 0);
    uint64_t *rows = calloc(n * W, sizeof *rows);
    if (!rows)
        return -1;
    const int faulty = next_random(&x) % 2;
    uint64_t want_state = n, want_variable = V, want_value = 0;
    for (uint64_t s = 0; s < n; s++)
        for (uint64_t v = 0; v < V; v++) {
            const uint64_t span = (uint64_t)info[v].upper - (uint64_t)info[v].lower, full = width_mask(info[v].width);
            uint64_t value = span == full ? next_random(&x) & full : next_random(&x) % (span + 1);
            if (span < full && next_random(&x) % 8 == 0)
                value = span; /* the largest in range: no carry */
            if (faulty && span < full && next_random(&x) % 64 == 0) {
                value = next_random(&x) % 2 ? full : span + 1;
                if (want_state == n) {
                    want_state = s;
                    want_variable = v;
                    want_value = value;
                }
            }
            put_field(rows + s * W, info[v].offset, info[v].width, value);
        }
    uint64_t sc[MAX_STATES + 1], ct[MAX_STATES + 1];
    uint32_t tg[MAX_STATES], initial = 0;
    double pr[MAX_STATES];
    for (uint64_t s = 0; s <= n; s++)
        sc[s] = ct[s] = s;
    for (uint64_t s = 0; s < n; s++) {
        tg[s] = (uint32_t)s;
        pr[s] = 1.0;
    }
    csr_model m;
    memset(&m, 0, sizeof m);
    m.model_type = CSR_DTMC;
    m.version_major = CSR_VERSION_MAJOR;
    m.version_minor = CSR_VERSION_MINOR;
    m.num_states = m.num_choices = m.num_transitions = n;
    m.state_choices = sc;
    m.choice_transitions = ct;
    m.targets = tg;
    m.probabilities = pr;
    m.num_initial = 1;
    m.initial_states = &initial;
    m.variables = (csr_strings){V, name_of};
    m.variable_info = info;
    m.valuation_words = W;
    m.valuations = rows;
    csr_status st;
    memset(&st, 0, sizeof st);
    const int rc = csr_validate(&m, &st);
    free(rows);
    char want[256] = "";
    if (want_state < n) {
        const csr_variable *f = &info[want_variable];
        snprintf(want, sizeof want, "VALUATIONS: state %llu: variable \"%s\" holds %llu, above upper - lower = %llu "
                 "(range [%lld, %lld])", (unsigned long long)want_state, names[want_variable],
                 (unsigned long long)want_value, (unsigned long long)((uint64_t)f->upper - (uint64_t)f->lower),
                 (long long)f->lower, (long long)f->upper);
    }
    *refused = rc != CSR_OK;
    if (want_state == n ? rc == CSR_OK : rc == CSR_ERR_VALUATION && !strcmp(st.detail, want))
        return 0;
    fprintf(stderr, "valcheck: seed %llu (%llu variables, %llu states, %llu words a row): csr_validate says %d \"%s\", "
            "expected %s\n", (unsigned long long)seed, (unsigned long long)V, (unsigned long long)n,
            (unsigned long long)W, rc, st.detail, want_state == n ? "no fault" : want);
    return 1;
}

int main(int argc, char **argv)
{
    unsigned long long count = 0, seed = 0;
    if (argc != 5 || strcmp(argv[1], "-n") || strcmp(argv[3], "-s") || sscanf(argv[2], "%llu", &count) != 1 ||
        sscanf(argv[4], "%llu", &seed) != 1 || count == 0) {
        fprintf(stderr, "usage: valcheck -n COUNT -s SEED\n");
        return 2;
    }
    unsigned long long refused = 0;
    for (unsigned long long i = 0; i < count; i++) {
        int r = 0;
        const int rc = check_layout(seed + i, &r);
        if (rc)
            return rc < 0 ? 2 : 1;
        refused += r;
    }
    printf("valcheck: %llu layouts (seeds %llu to %llu): %llu refused at the first faulty field, %llu passed, as each "
           "field read alone gives\n", count, seed, seed + count - 1, refused, count - refused);
    return 0;
}
