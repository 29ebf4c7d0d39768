/*
 * csr_validate.c - the structural invariants of format/CSR.md ("Validity"),
 * checked in O(n + c + t + n W) time and O(L log L) for the label, action,
 * reward and variable names;
 * the per-transition checks of a large model in parallel (bulk_valid).
 */
#include <math.h>
#include <stdio.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "csr.h"
#include "parallel.h"

/* Offsets u64[count+1] must start at 0, not decrease (or strictly increase
 * when strict) and end at total. */
static int check_offsets(const uint64_t *first, uint64_t count, uint64_t total, int strict,
                         const char *what, csr_status *st)
{
    if (first[0] != 0)
        return csr_fail(st, CSR_ERR_OFFSETS, "%s: entry 0 is %llu, not 0", what,
                        (unsigned long long)first[0]);
    for (uint64_t i = 0; i < count; i++) {
        if (first[i + 1] < first[i] || (strict && first[i + 1] == first[i])) {
            if (strict && first[i + 1] == first[i])
                return csr_fail(st, CSR_ERR_EMPTY_CHOICE, "%s: choice %llu", what,
                                (unsigned long long)i);
            return csr_fail(st, CSR_ERR_OFFSETS, "%s: entry %llu (%llu) is below entry %llu (%llu)",
                            what, (unsigned long long)(i + 1), (unsigned long long)first[i + 1],
                            (unsigned long long)i, (unsigned long long)first[i]);
        }
    }
    if (first[count] != total)
        return csr_fail(st, CSR_ERR_OFFSETS, "%s: last entry is %llu, expected %llu", what,
                        (unsigned long long)first[count], (unsigned long long)total);
    return CSR_OK;
}

static int check_state_list(const uint32_t *list, uint64_t count, uint64_t num_states,
                            const char *what, csr_status *st)
{
    for (uint64_t i = 0; i < count; i++) {
        if (list[i] >= num_states)
            return csr_fail(st, CSR_ERR_STATE_LIST, "%s: entry %llu: state %u >= %llu states", what,
                            (unsigned long long)i, list[i], (unsigned long long)num_states);
        if (i > 0 && list[i] <= list[i - 1])
            return csr_fail(st, CSR_ERR_STATE_LIST, "%s: entry %llu: state %u after state %u", what,
                            (unsigned long long)i, list[i], list[i - 1]);
    }
    return CSR_OK;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Names must be unique; with allow_first_empty only names[0] may be "". */
static int check_names(const csr_strings *s, int first_must_be_empty, const char *what,
                       csr_status *st)
{
    if (s->count == 0)
        return CSR_OK;
    for (uint64_t i = 0; i < s->count; i++) {
        int empty = s->names[i][0] == '\0';
        if (first_must_be_empty && i == 0 && !empty)
            return csr_fail(st, CSR_ERR_STRING_TABLE, "%s: name 0 must be empty", what);
        if (empty && !(first_must_be_empty && i == 0))
            return csr_fail(st, CSR_ERR_STRING_TABLE, "%s: name %llu is empty", what,
                            (unsigned long long)i);
    }
    const char **sorted = malloc(s->count * sizeof *sorted);
    if (!sorted)
        return csr_fail(st, CSR_ERR_NOMEM, "%s: sorting %llu names", what,
                        (unsigned long long)s->count);
    memcpy(sorted, s->names, s->count * sizeof *sorted);
    qsort(sorted, s->count, sizeof *sorted, compare_names);
    int rc = CSR_OK;
    for (uint64_t i = 1; i < s->count; i++)
        if (strcmp(sorted[i], sorted[i - 1]) == 0) {
            rc = csr_fail(st, CSR_ERR_STRING_TABLE, "%s: name \"%s\" appears twice", what, sorted[i]);
            break;
        }
    free(sorted);
    return rc;
}

static int check_permutation(const csr_model *m, csr_status *st)
{
    uint64_t n = m->num_states;
    uint8_t *seen = calloc(n ? n : 1, 1);
    if (!seen)
        return csr_fail(st, CSR_ERR_NOMEM, "PERMUTATION: %llu states", (unsigned long long)n);
    int rc = CSR_OK;
    for (uint64_t s = 0; s < n && !rc; s++) {
        uint32_t p = m->permutation[s];
        if (p >= n || seen[p]++)
            rc = csr_fail(st, CSR_ERR_PERMUTATION, "PERMUTATION: entry %llu: state %u %s", (unsigned long long)s, p,
                          p >= n ? "out of range" : "appears twice");
    }
    free(seen);
    return rc;
}

/* The segment-interval layout (format/CSR.md, "Segments") must hold exactly
 * the transitions of the interleaved states, in order, padded with EMPTY. */
static int check_segments(const csr_model *m, csr_status *st)
{
    const uint64_t lanes = CSR_SEGMENT_LANES;
    if (m->segment_bound == 0 || m->segment_bound > CSR_SEGMENT_MAX_BOUND || m->interleaved_states > m->num_states ||
        m->num_segments != (m->interleaved_states + lanes - 1) / lanes)
        return csr_fail(st, CSR_ERR_SEGMENTS, "SEGMENT_INFO: bound %u, %llu interleaved states, %llu segments",
                        m->segment_bound, (unsigned long long)m->interleaved_states,
                        (unsigned long long)m->num_segments);
    int rc;
    uint64_t entries = m->segment_first[m->num_segments];
    if ((rc = check_offsets(m->segment_first, m->num_segments, entries, 0, "SEGMENT_FIRST", st)))
        return rc;
    const uint64_t *sc = m->state_choices, *ct = m->choice_transitions;
    for (uint64_t s = 0; s < m->num_states; s++) {
        uint64_t degree = ct[sc[s + 1]] - ct[sc[s]];
        if ((s < m->interleaved_states) != (degree <= m->segment_bound))
            return csr_fail(st, CSR_ERR_SEGMENTS, "state %llu has %llu transitions: %s the interleaved prefix",
                            (unsigned long long)s, (unsigned long long)degree,
                            s < m->interleaved_states ? "too many for" : "few enough for");
    }
    for (uint64_t g = 0; g < m->num_segments; g++) {
        uint64_t first = m->segment_first[g], size = m->segment_first[g + 1] - first, widest = 0;
        if (size % lanes)
            return csr_fail(st, CSR_ERR_SEGMENTS, "segment %llu: %llu entries, not a multiple of 32",
                            (unsigned long long)g, (unsigned long long)size);
        uint64_t depth = size / lanes;
        for (uint64_t l = 0; l < lanes; l++) {
            uint64_t s = g * lanes + l, pos = 0;
            if (s < m->interleaved_states) {
                for (uint64_t j = sc[s]; j < sc[s + 1]; j++)
                    for (uint64_t i = ct[j]; i < ct[j + 1]; i++, pos++) {
                        uint64_t e = first + pos * lanes + l;
                        if (pos >= depth || m->segment_targets[e] != m->targets[i] ||
                            m->segment_choices[e] != j - sc[s])
                            return csr_fail(st, CSR_ERR_SEGMENTS, "segment %llu, state %llu, transition %llu",
                                            (unsigned long long)g, (unsigned long long)s, (unsigned long long)pos);
                    }
            }
            if (pos > widest)
                widest = pos;
            for (; pos < depth; pos++) {
                uint64_t e = first + pos * lanes + l;
                if (m->segment_targets[e] != CSR_SEGMENT_EMPTY || m->segment_choices[e] != CSR_SEGMENT_NO_CHOICE)
                    return csr_fail(st, CSR_ERR_SEGMENTS, "segment %llu, lane %llu: padding entry %llu is not empty",
                                    (unsigned long long)g, (unsigned long long)l, (unsigned long long)pos);
            }
        }
        if (widest != depth)
            return csr_fail(st, CSR_ERR_SEGMENTS, "segment %llu: %llu entries a lane, its widest state has %llu",
                            (unsigned long long)g, (unsigned long long)depth, (unsigned long long)widest);
    }
    return CSR_OK;
}

/* ---- state variables and valuations (1.3) ---------------------------------- */

/* The width bits at bit offset of row (a field may cross a word). */
static inline uint64_t field_at(const uint64_t *row, uint64_t offset, uint32_t width)
{
    const uint64_t w = offset >> 6, b = offset & 63;
    uint64_t x = row[w] >> b;
    if (b + width > 64)
        x |= row[w + 1] << (64 - b);
    return width == 64 ? x : x & (((uint64_t)1 << width) - 1);
}

/* The first fault of the rows of states [first, end): the state, or end when
 * every field is within its span and the unused high bits of each row are
 * zero.  Only the variables whose span is below their field's largest value
 * are checked (the others cannot be out of range): those that lie within one
 * word by sums of a word at a time (word_check), those that end in the next
 * word one by one (field_check, read by field_at). */
struct field_check {
    uint64_t offset, span; /* the field's bit in a row, upper - lower */
    uint32_t width;
};

/* The fields of one class (the variables of even, or of odd, index: the bit
 * above each field is another class's field or unused) within one word of
 * a row, checked at once: (row[word] & mask) + add, where each field's part
 * of add is 2^width - 1 - span, carries into the bit above a field exactly
 * where the field holds more than its span, and nowhere else (each sum fits
 * its field and the bit above, which is 0 in both terms); carry holds those
 * bits (bit 64: a field that ends the word). */
struct word_check {
    uint64_t word, mask, add;
    unsigned __int128 carry;
};

struct row_checks {
    const struct word_check *words;
    const struct field_check *fields;
    uint64_t num_words, num_fields, used_mask;
};

static uint64_t first_bad_row(const csr_model *m, const struct row_checks *c, uint64_t first, uint64_t end)
{
    const uint64_t W = m->valuation_words;
    for (uint64_t s = first; s < end; s++) {
        const uint64_t *row = m->valuations + s * W;
        if (W && (row[W - 1] & ~c->used_mask))
            return s;
        unsigned __int128 carried = 0;
        for (uint64_t i = 0; i < c->num_words; i++) {
            const struct word_check *k = &c->words[i];
            carried |= ((unsigned __int128)(row[k->word] & k->mask) + k->add) & k->carry;
        }
        if (carried)
            return s;
        for (uint64_t i = 0; i < c->num_fields; i++)
            if (field_at(row, c->fields[i].offset, c->fields[i].width) > c->fields[i].span)
                return s;
    }
    return end;
}

struct rows_task {
    const csr_model *m;
    const struct row_checks *checks;
    uint64_t first, end, bad;
};

static void *rows_check(void *arg)
{
    struct rows_task *t = arg;
    t->bad = first_bad_row(t->m, t->checks, t->first, t->end);
    return NULL;
}

/* VARIABLE_NAMES, VARIABLE_INFO and VALUATIONS (format/CSR.md, "State
 * valuations"): O(V log V) for the names, O(n W) for the rows (V <= 64 W). */
static int check_valuations(const csr_model *m, csr_status *st)
{
    const uint64_t V = m->variables.count, n = m->num_states;
    int rc;
    if (!m->variable_info || (n && !m->valuations))
        return csr_fail(st, CSR_ERR_SECTION_MISSING, "VARIABLE_INFO, VALUATIONS");
    if ((rc = check_names(&m->variables, 0, "VARIABLE_NAMES", st)))
        return rc;
    uint64_t offset = 0, num_fields = 0;
    for (uint64_t v = 0; v < V; v++) {
        const csr_variable *x = &m->variable_info[v];
        const char *name = m->variables.names[v];
        if (x->type != CSR_VAR_BOOL && x->type != CSR_VAR_INT)
            return csr_fail(st, CSR_ERR_VARIABLE, "VARIABLE_INFO: variable \"%.40s\": type %u (1 bool, 2 int)", name,
                            x->type);
        if (x->width < 1 || x->width > 64)
            return csr_fail(st, CSR_ERR_VARIABLE, "VARIABLE_INFO: variable \"%.40s\": width %u (1 to 64)", name,
                            x->width);
        if (x->lower > x->upper || (x->type == CSR_VAR_BOOL && (x->lower != 0 || x->upper != 1)))
            return csr_fail(st, CSR_ERR_VARIABLE, "VARIABLE_INFO: variable \"%.40s\": range [%lld, %lld]%s", name,
                            (long long)x->lower, (long long)x->upper, x->type == CSR_VAR_BOOL ? " (a bool's is [0, 1])" : "");
        const uint64_t span = (uint64_t)x->upper - (uint64_t)x->lower;
        if (x->width < csr_variable_width(span))
            return csr_fail(st, CSR_ERR_VARIABLE, "VARIABLE_INFO: variable \"%.40s\": width %u, but the range [%lld, %lld] needs %u bits",
                            name, x->width, (long long)x->lower, (long long)x->upper, csr_variable_width(span));
        if (x->offset != offset)
            return csr_fail(st, CSR_ERR_VARIABLE,
                            "VARIABLE_INFO: variable \"%.40s\": offset %llu, expected %llu (the sum of the widths before it)",
                            name, (unsigned long long)x->offset, (unsigned long long)offset);
        offset += x->width;
        num_fields += (x->offset & 63) + x->width > 64;
    }
    const uint64_t W = offset / 64 + (offset % 64 != 0);
    if (m->valuation_words != W)
        return csr_fail(st, CSR_ERR_VARIABLE, "VALUATIONS: %llu words a state, the widths give %llu",
                        (unsigned long long)m->valuation_words, (unsigned long long)W);
    /* a word's two classes: words[2 w + class], those without a checked field dropped after */
    struct word_check *words = calloc(2 * W + 1, sizeof *words);
    struct field_check *fields = malloc((num_fields ? num_fields : 1) * sizeof *fields);
    if (!words || !fields) {
        free(words);
        free(fields);
        return csr_fail(st, CSR_ERR_NOMEM, "VARIABLE_INFO: %llu variables", (unsigned long long)V);
    }
    num_fields = 0;
    for (uint64_t v = 0; v < V; v++) {
        const csr_variable *x = &m->variable_info[v];
        const uint64_t span = (uint64_t)x->upper - (uint64_t)x->lower, word = x->offset >> 6, shift = x->offset & 63;
        const uint64_t mask = x->width == 64 ? ~(uint64_t)0 : ((uint64_t)1 << x->width) - 1;
        if (span == mask)
            continue; /* every value of the field is in range */
        if (shift + x->width > 64) {
            fields[num_fields++] = (struct field_check){x->offset, span, x->width};
            continue;
        }
        struct word_check *k = &words[2 * word + (v & 1)];
        k->word = word;
        k->mask |= mask << shift;
        k->add += (mask - span) << shift;
        k->carry |= (unsigned __int128)1 << (shift + x->width);
    }
    uint64_t num_words = 0;
    for (uint64_t i = 0; i < 2 * W; i++)
        if (words[i].mask)
            words[num_words++] = words[i];
    const uint64_t used_mask = offset % 64 ? ((uint64_t)1 << (offset % 64)) - 1 : ~(uint64_t)0;
    const struct row_checks checks = {words, fields, num_words, num_fields, used_mask};
    unsigned tasks = parallel_tasks(n * (W ? W : 1), parallel_grain((uint64_t)1 << 22));
    struct rows_task t[PARALLEL_MAX_TASKS];
    for (unsigned i = 0; i < tasks; i++)
        t[i] = (struct rows_task){m, &checks, n * i / tasks, n * (i + 1) / tasks, 0};
    parallel_run(rows_check, t, sizeof t[0], tasks);
    uint64_t bad = n;
    for (unsigned i = 0; i < tasks && bad == n; i++)
        if (t[i].bad < t[i].end)
            bad = t[i].bad;
    free(words);
    free(fields);
    if (bad == n)
        return CSR_OK;
    const uint64_t *row = m->valuations + bad * W;
    if (row[W - 1] & ~used_mask)
        return csr_fail(st, CSR_ERR_VALUATION, "VALUATIONS: state %llu: the bits after the last variable are not zero",
                        (unsigned long long)bad);
    for (uint64_t v = 0; v < V; v++) {
        const csr_variable *x = &m->variable_info[v];
        const uint64_t got = field_at(row, x->offset, x->width), span = (uint64_t)x->upper - (uint64_t)x->lower;
        if (got > span)
            return csr_fail(st, CSR_ERR_VALUATION,
                            "VALUATIONS: state %llu: variable \"%.40s\" holds %llu, above upper - lower = %llu (range [%lld, %lld])",
                            (unsigned long long)bad, m->variables.names[v], (unsigned long long)got,
                            (unsigned long long)span, (long long)x->lower, (long long)x->upper);
    }
    return csr_fail(st, CSR_ERR_VALUATION, "VALUATIONS: state %llu", (unsigned long long)bad);
}

/* ---- the bulk of the work in parallel -------------------------------------
 * The checks over every state, choice and transition (offsets, DTMC choice
 * counts, target range, probabilities, target order) take most of the time
 * of reading a paper-scale model.  Each thread checks a range of states and
 * the choices and transitions of those states, and says only whether all is
 * well; where something is not, the sequential checks below run and report
 * the first fault with the same message as always. */

#define BULK_MIN_TRANSITIONS ((uint64_t)1 << 22) /* per thread at least */

struct bulk_task {
    const csr_model *m;
    uint64_t first_state, end_state; /* states [first, end) */
    int order;                       /* check the target order too */
    int ok;
};

static void *bulk_check(void *arg)
{
    struct bulk_task *t = arg;
    const csr_model *m = t->m;
    const uint64_t *sc = m->state_choices, *ct = m->choice_transitions;
    const uint32_t n32 = (uint32_t)(m->num_states - 1); /* num_states >= 1 here */
    t->ok = 0;
    for (uint64_t s = t->first_state; s < t->end_state; s++) {
        uint64_t k0 = sc[s], k1 = sc[s + 1];
        if (k1 < k0 || k1 > m->num_choices || (m->model_type == CSR_DTMC && k1 - k0 != 1))
            return NULL;
        for (uint64_t k = k0; k < k1; k++) {
            uint64_t i0 = ct[k], i1 = ct[k + 1];
            if (i1 <= i0 || i1 > m->num_transitions)
                return NULL;
            uint32_t bad = 0;
            for (uint64_t i = i0; i < i1; i++)
                bad |= m->targets[i] > n32;
            if (t->order)
                for (uint64_t i = i0 + 1; i < i1; i++)
                    bad |= m->targets[i] <= m->targets[i - 1];
            if (m->probabilities)
                for (uint64_t i = i0; i < i1; i++) {
                    double p = m->probabilities[i];
                    bad |= !(p > 0.0 && p <= 1.0);
                }
            if (bad)
                return NULL;
        }
    }
    t->ok = 1;
    return NULL;
}

/* Whether the graph arrays are valid (1) or the sequential checks must find
 * out what is wrong (0); *order: whether the target order was checked too
 * (not with a permutation, which check_permutation validates later). */
static int bulk_valid(const csr_model *m, int *order)
{
    *order = 0;
    if (m->num_states == 0)
        return 0;
    if (m->state_choices[0] != 0 || m->state_choices[m->num_states] != m->num_choices ||
        m->choice_transitions[0] != 0 || m->choice_transitions[m->num_choices] != m->num_transitions)
        return 0;
    unsigned tasks = parallel_tasks(m->num_transitions, parallel_grain(BULK_MIN_TRANSITIONS));
    if (tasks < 2 || tasks > m->num_states)
        return 0;
    struct bulk_task t[PARALLEL_MAX_TASKS];
    for (unsigned i = 0; i < tasks; i++) {
        t[i].m = m;
        t[i].first_state = m->num_states * i / tasks;
        t[i].end_state = m->num_states * (i + 1) / tasks;
        t[i].order = !m->permutation;
    }
    parallel_run(bulk_check, t, sizeof t[0], tasks);
    for (unsigned i = 0; i < tasks; i++)
        if (!t[i].ok)
            return 0;
    /* the ranges join: every state's choices and every choice's transitions
     * were checked once, from 0 to the totals */
    *order = !m->permutation;
    return 1;
}

/* The first reward of v (f64[count]) that is negative, infinite or NaN, or
 * the first action index of a (u32[count]) that is limit or more: count
 * where there is none; a task per CPU over ranges (the tasks run over
 * increasing ranges: the first task's fault is the first). */
struct entry_task {
    const double *v;
    const uint32_t *a;
    uint64_t limit, first, last, bad;
};

static void *entry_check(void *arg)
{
    struct entry_task *t = arg;
    t->bad = t->last;
    for (uint64_t i = t->first; i < t->last; i++)
        if (t->v ? !(t->v[i] >= 0.0 && t->v[i] <= DBL_MAX) : t->a[i] >= t->limit) {
            t->bad = i;
            break;
        }
    return NULL;
}

static uint64_t first_bad_entry(const double *v, const uint32_t *a, uint64_t limit, uint64_t count)
{
    const unsigned tasks = parallel_tasks(count, parallel_grain(BULK_MIN_TRANSITIONS));
    struct entry_task t[PARALLEL_MAX_TASKS];
    for (unsigned i = 0; i < tasks; i++)
        t[i] = (struct entry_task){v, a, limit, count * i / tasks, count * (i + 1) / tasks, 0};
    parallel_run(entry_check, t, sizeof t[0], tasks);
    for (unsigned i = 0; i < tasks; i++)
        if (t[i].bad < t[i].last)
            return t[i].bad;
    return count;
}

int csr_validate(const csr_model *m, csr_status *st)
{
    int rc;
    if (m->model_type != CSR_DTMC && m->model_type != CSR_MDP)
        return csr_fail(st, CSR_ERR_MODEL_TYPE, "model type %u", m->model_type);
    if (m->num_states > CSR_MAX_STATES)
        return csr_fail(st, CSR_ERR_TOO_LARGE, "%llu states (at most 2^32)",
                        (unsigned long long)m->num_states);
    if (!m->state_choices || !m->choice_transitions || (m->num_transitions && !m->targets))
        return csr_fail(st, CSR_ERR_SECTION_MISSING, "graph arrays");
    int order_checked;
    const int bulk_ok = bulk_valid(m, &order_checked);
    if (!bulk_ok && (rc = check_offsets(m->state_choices, m->num_states, m->num_choices, 0, "STATE_CHOICES", st)))
        return rc;
    if (!bulk_ok && (rc = check_offsets(m->choice_transitions, m->num_choices, m->num_transitions, 1,
                                        "CHOICE_TRANSITIONS", st)))
        return rc;
    if (!bulk_ok && m->model_type == CSR_DTMC) {
        for (uint64_t s = 0; s < m->num_states; s++)
            if (m->state_choices[s + 1] - m->state_choices[s] != 1)
                return csr_fail(st, CSR_ERR_DTMC_CHOICES, "state %llu has %llu choices",
                                (unsigned long long)s,
                                (unsigned long long)(m->state_choices[s + 1] - m->state_choices[s]));
    }
    for (uint64_t i = 0; !bulk_ok && i < m->num_transitions; i++)
        if (m->targets[i] >= m->num_states)
            return csr_fail(st, CSR_ERR_TARGET_RANGE, "TARGETS: transition %llu: state %u >= %llu states",
                            (unsigned long long)i, m->targets[i], (unsigned long long)m->num_states);
    if (!bulk_ok && m->probabilities)
        for (uint64_t i = 0; i < m->num_transitions; i++) {
            double p = m->probabilities[i];
            if (!(p > 0.0 && p <= 1.0)) /* also rejects NaN */
                return csr_fail(st, CSR_ERR_PROBABILITY, "PROBABILITIES: transition %llu: %g",
                                (unsigned long long)i, p);
        }
    if (m->num_states > 0 && m->num_initial == 0)
        return csr_fail(st, CSR_ERR_NO_INITIAL, "INITIAL_STATES is empty");
    if ((rc = check_state_list(m->initial_states, m->num_initial, m->num_states, "INITIAL_STATES", st)))
        return rc;
    if (m->labels.count) {
        if ((rc = check_names(&m->labels, 0, "LABEL_NAMES", st)))
            return rc;
        uint64_t total = m->label_first[m->labels.count];
        if ((rc = check_offsets(m->label_first, m->labels.count, total, 0, "LABEL_FIRST", st)))
            return rc;
        for (uint64_t l = 0; l < m->labels.count; l++) {
            uint64_t b = m->label_first[l], e = m->label_first[l + 1];
            char what[96];
            snprintf(what, sizeof what, "LABEL_STATES: label \"%.40s\"", m->labels.names[l]);
            if ((rc = check_state_list(m->label_states + b, e - b, m->num_states, what, st)))
                return rc;
        }
    }
    if (m->choice_actions) {
        if ((rc = check_names(&m->actions, 1, "ACTION_NAMES", st)))
            return rc;
        const uint64_t k = first_bad_entry(NULL, m->choice_actions, m->actions.count, m->num_choices);
        if (k < m->num_choices)
            return csr_fail(st, CSR_ERR_ACTION_RANGE, "CHOICE_ACTIONS: choice %llu: %u >= %llu names",
                            (unsigned long long)k, m->choice_actions[k], (unsigned long long)m->actions.count);
    }
    if (m->rewards.count) {
        if ((rc = check_names(&m->rewards, 0, "REWARD_NAMES", st)))
            return rc;
        uint64_t with_state, with_choice;
        csr_reward_counts(m, m->rewards.count, &with_state, &with_choice);
        const uint64_t sn = with_state * m->num_states, cn = with_choice * m->num_choices;
        const uint64_t i = first_bad_entry(m->state_rewards, NULL, 0, sn); /* NaN is bad too */
        if (i < sn)
            return csr_fail(st, CSR_ERR_REWARD, "STATE_REWARDS: state %llu of structure %llu: %g",
                            (unsigned long long)(i % m->num_states), (unsigned long long)(i / m->num_states),
                            m->state_rewards[i]);
        const uint64_t j = first_bad_entry(m->choice_rewards, NULL, 0, cn);
        if (j < cn)
            return csr_fail(st, CSR_ERR_REWARD, "CHOICE_REWARDS: choice %llu of structure %llu: %g",
                            (unsigned long long)(j % m->num_choices), (unsigned long long)(j / m->num_choices),
                            m->choice_rewards[j]);
    }
    if (m->variables.count && (rc = check_valuations(m, st)))
        return rc;
    if (m->permutation && (rc = check_permutation(m, st)))
        return rc;
    /* the targets of a choice strictly ascending in the original numbering:
     * no two transitions to one state */
    for (uint64_t k = 0; !order_checked && k < m->num_choices; k++)
        for (uint64_t i = m->choice_transitions[k] + 1; i < m->choice_transitions[k + 1]; i++) {
            uint32_t a = m->targets[i - 1], b = m->targets[i];
            if (m->permutation) {
                a = m->permutation[a];
                b = m->permutation[b];
            }
            if (b == a)
                return csr_fail(st, CSR_ERR_TARGET_ORDER, "TARGETS: choice %llu: two transitions to state %u%s",
                                (unsigned long long)k, a, m->permutation ? " (original numbering)" : "");
            if (b < a)
                return csr_fail(st, CSR_ERR_TARGET_ORDER, "TARGETS: choice %llu: state %u after state %u%s",
                                (unsigned long long)k, b, a, m->permutation ? " (original numbering)" : "");
        }
    if (m->segment_bound && (rc = check_segments(m, st)))
        return rc;
    return CSR_OK;
}

struct sum_task {
    const csr_model *m;
    double tolerance;
    uint64_t first, end; /* choices [first, end) */
    double worst;
    uint64_t first_bad;
};

static void *sum_check(void *arg)
{
    struct sum_task *t = arg;
    const csr_model *m = t->m;
    t->worst = 0.0;
    t->first_bad = UINT64_MAX;
    for (uint64_t k = t->first; k < t->end; k++) {
        double sum = 0.0;
        for (uint64_t i = m->choice_transitions[k]; i < m->choice_transitions[k + 1]; i++)
            sum += m->probabilities[i];
        double err = fabs(sum - 1.0);
        if (err > t->worst)
            t->worst = err;
        if (err > t->tolerance && t->first_bad == UINT64_MAX)
            t->first_bad = k;
    }
    return NULL;
}

/* In parallel over ranges of choices (the sums are the same as one thread's:
 * each choice is summed by one thread in order). */
double csr_max_sum_error(const csr_model *m, double tolerance, uint64_t *first_bad_choice)
{
    if (first_bad_choice)
        *first_bad_choice = UINT64_MAX;
    if (!m->probabilities)
        return 0.0;
    unsigned tasks = parallel_tasks(m->num_transitions, parallel_grain(BULK_MIN_TRANSITIONS));
    if ((uint64_t)tasks > m->num_choices)
        tasks = m->num_choices ? (unsigned)m->num_choices : 1;
    struct sum_task t[PARALLEL_MAX_TASKS];
    for (unsigned i = 0; i < tasks; i++)
        t[i] = (struct sum_task){m, tolerance, m->num_choices * i / tasks, m->num_choices * (i + 1) / tasks, 0.0, 0};
    parallel_run(sum_check, t, sizeof t[0], tasks);
    double worst = 0.0;
    for (unsigned i = 0; i < tasks; i++) {
        if (t[i].worst > worst)
            worst = t[i].worst;
        if (first_bad_choice && *first_bad_choice == UINT64_MAX)
            *first_bad_choice = t[i].first_bad;
    }
    return worst;
}
