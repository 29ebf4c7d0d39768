/*
 * csr_common.c - error strings, status reporting and model ownership
 * for the CSR format library (format/CSR.md).
 */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "csr.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the CSR library reads and writes little-endian data in place: little-endian hosts only"
#endif
_Static_assert(sizeof(csr_variable) == 32, "VARIABLE_INFO holds 32 bytes a variable, as csr_variable");

#define CSR_ERROR_STRING_ITEM(name, text) text,
static const char *const error_strings[] = {CSR_ERROR_LIST(CSR_ERROR_STRING_ITEM)};
#undef CSR_ERROR_STRING_ITEM

const char *csr_strerror(int code)
{
    if (code < 0 || code >= CSR_ERROR_COUNT)
        return "unknown error";
    return error_strings[code];
}

const char *csr_section_name(uint32_t type)
{
    switch (type) {
    case CSR_SEC_STATE_CHOICES: return "STATE_CHOICES";
    case CSR_SEC_CHOICE_TRANSITIONS: return "CHOICE_TRANSITIONS";
    case CSR_SEC_TARGETS: return "TARGETS";
    case CSR_SEC_PROBABILITIES: return "PROBABILITIES";
    case CSR_SEC_INITIAL_STATES: return "INITIAL_STATES";
    case CSR_SEC_LABEL_NAMES: return "LABEL_NAMES";
    case CSR_SEC_LABEL_FIRST: return "LABEL_FIRST";
    case CSR_SEC_LABEL_STATES: return "LABEL_STATES";
    case CSR_SEC_ACTION_NAMES: return "ACTION_NAMES";
    case CSR_SEC_CHOICE_ACTIONS: return "CHOICE_ACTIONS";
    case CSR_SEC_PERMUTATION: return "PERMUTATION";
    case CSR_SEC_SEGMENT_INFO: return "SEGMENT_INFO";
    case CSR_SEC_SEGMENT_FIRST: return "SEGMENT_FIRST";
    case CSR_SEC_SEGMENT_TARGETS: return "SEGMENT_TARGETS";
    case CSR_SEC_SEGMENT_CHOICES: return "SEGMENT_CHOICES";
    case CSR_SEC_REWARD_NAMES: return "REWARD_NAMES";
    case CSR_SEC_REWARD_INFO: return "REWARD_INFO";
    case CSR_SEC_STATE_REWARDS: return "STATE_REWARDS";
    case CSR_SEC_CHOICE_REWARDS: return "CHOICE_REWARDS";
    case CSR_SEC_VARIABLE_NAMES: return "VARIABLE_NAMES";
    case CSR_SEC_VARIABLE_INFO: return "VARIABLE_INFO";
    case CSR_SEC_VALUATIONS: return "VALUATIONS";
    default: return "UNKNOWN";
    }
}

int csr_section_known(uint32_t type)
{
    return (type >= CSR_SEC_STATE_CHOICES && type <= CSR_SEC_CHOICE_ACTIONS) ||
           (type >= CSR_SEC_PERMUTATION && type <= CSR_SEC_LAST);
}

int csr_fail(csr_status *status, int code, const char *fmt, ...)
{
    if (status) {
        status->code = code;
        if (fmt) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(status->detail, sizeof status->detail, fmt, ap);
            va_end(ap);
        } else {
            status->detail[0] = '\0';
        }
    }
    return code;
}

int csr_adopt(csr_model *model, void *block)
{
    if (!block)
        return CSR_OK;
    if (model->num_owned >= (int)(sizeof model->owned / sizeof model->owned[0])) {
        free(block);
        return CSR_ERR_NOMEM;
    }
    model->owned[model->num_owned++] = block;
    return CSR_OK;
}

void csr_free(csr_model *model)
{
    if (!model)
        return;
    for (int i = 0; i < model->num_owned; i++)
        free(model->owned[i]);
    free((void *)model->labels.names);
    free((void *)model->actions.names);
    free((void *)model->rewards.names);
    free((void *)model->variables.names);
    if (model->map_base)
        munmap(model->map_base, model->map_length);
    memset(model, 0, sizeof *model);
}

int64_t csr_find_label(const csr_model *model, const char *name)
{
    for (uint64_t i = 0; i < model->labels.count; i++)
        if (strcmp(model->labels.names[i], name) == 0)
            return (int64_t)i;
    return -1;
}

int64_t csr_find_reward(const csr_model *model, const char *name)
{
    for (uint64_t i = 0; i < model->rewards.count; i++)
        if (strcmp(model->rewards.names[i], name) == 0)
            return (int64_t)i;
    return -1;
}

void csr_reward_counts(const csr_model *model, uint64_t upto, uint64_t *with_state, uint64_t *with_choice)
{
    *with_state = *with_choice = 0;
    for (uint64_t i = 0; i < upto; i++) {
        *with_state += (model->reward_info[i] & CSR_REWARD_STATES) != 0;
        *with_choice += (model->reward_info[i] & CSR_REWARD_CHOICES) != 0;
    }
}

void csr_reward_arrays(const csr_model *model, uint64_t r, const double **state, const double **choice)
{
    uint64_t s, c; /* structures before r with state / choice rewards */
    csr_reward_counts(model, r, &s, &c);
    *state = model->reward_info[r] & CSR_REWARD_STATES ? model->state_rewards + s * model->num_states : NULL;
    *choice = model->reward_info[r] & CSR_REWARD_CHOICES ? model->choice_rewards + c * model->num_choices : NULL;
}

/* Put block where old was among the model's owned blocks (old freed), or
 * adopt it when old is not the model's.  CSR_ERR_NOMEM when full. */
static int replace_owned(csr_model *model, const void *old, void *block)
{
    for (int i = 0; old && i < model->num_owned; i++)
        if (model->owned[i] == old) {
            free(model->owned[i]);
            model->owned[i] = block;
            return CSR_OK;
        }
    return csr_adopt(model, block);
}

int csr_add_reward(csr_model *model, const char *name, const double *state, const double *choice)
{
    const uint64_t n = model->num_states, c = model->num_choices, r = model->rewards.count;
    for (uint64_t i = 0; i < n && state; i++)
        if (!(state[i] >= 0.0 && state[i] <= DBL_MAX))
            return CSR_ERR_REWARD;
    for (uint64_t k = 0; k < c && choice; k++)
        if (!(choice[k] >= 0.0 && choice[k] <= DBL_MAX))
            return CSR_ERR_REWARD;
    if (csr_find_reward(model, name) >= 0 || !*name)
        return CSR_ERR_STRING_TABLE;
    uint64_t with_state, with_choice;
    csr_reward_counts(model, r, &with_state, &with_choice);
    const char **names = malloc((r + 1) * sizeof *names);
    uint32_t *info = malloc((r + 1) * sizeof *info);
    char *copy = strdup(name);
    double *sr = state || with_state ? malloc(((with_state + !!state) * n + 1) * sizeof *sr) : NULL;
    double *cr = choice || with_choice ? malloc(((with_choice + !!choice) * c + 1) * sizeof *cr) : NULL;
    if (!names || !info || !copy || ((state || with_state) && !sr) || ((choice || with_choice) && !cr)) {
        free(names), free(info), free(copy), free(sr), free(cr);
        return CSR_ERR_NOMEM;
    }
    if (r) /* memcpy from NULL is undefined even for 0 bytes */
        memcpy(names, model->rewards.names, r * sizeof *names);
    names[r] = copy;
    if (r)
        memcpy(info, model->reward_info, r * sizeof *info);
    info[r] = (state ? CSR_REWARD_STATES : 0) | (choice ? CSR_REWARD_CHOICES : 0);
    if (sr) {
        if (with_state)
            memcpy(sr, model->state_rewards, with_state * n * sizeof *sr);
        if (state)
            memcpy(sr + with_state * n, state, n * sizeof *sr);
    }
    if (cr) {
        if (with_choice)
            memcpy(cr, model->choice_rewards, with_choice * c * sizeof *cr);
        if (choice)
            memcpy(cr + with_choice * c, choice, c * sizeof *cr);
    }
    if (csr_adopt(model, copy)) { /* frees copy */
        free(names), free(info), free(sr), free(cr);
        return CSR_ERR_NOMEM;
    }
    /* the names array is csr_free's to free: swapped last; each value array
     * takes its old one's place among the owned blocks (the pointer follows
     * at once, so that a failure leaves nothing dangling) */
    int rc = replace_owned(model, model->reward_info, info); /* on failure the block is freed */
    if (!rc)
        model->reward_info = info;
    if (sr) {
        if (rc)
            free(sr);
        else if (!(rc = replace_owned(model, model->state_rewards, sr)))
            model->state_rewards = sr;
    }
    if (cr) {
        if (rc)
            free(cr);
        else if (!(rc = replace_owned(model, model->choice_rewards, cr)))
            model->choice_rewards = cr;
    }
    if (rc) {
        free(names);
        return rc;
    }
    free((void *)model->rewards.names);
    model->rewards.names = names;
    model->rewards.count = r + 1;
    return CSR_OK;
}

int64_t csr_find_variable(const csr_model *model, const char *name)
{
    for (uint64_t i = 0; i < model->variables.count; i++)
        if (strcmp(model->variables.names[i], name) == 0)
            return (int64_t)i;
    return -1;
}

/* The width bits at bit offset of row (W words; the field may cross a word). */
static inline uint64_t row_field(const uint64_t *row, uint64_t offset, uint32_t width)
{
    const uint64_t w = offset >> 6, b = offset & 63;
    uint64_t x = row[w] >> b;
    if (b + width > 64)
        x |= row[w + 1] << (64 - b);
    return width == 64 ? x : x & ((UINT64_C(1) << width) - 1);
}

int64_t csr_variable_value(const csr_model *model, uint64_t s, uint64_t v)
{
    const csr_variable *x = &model->variable_info[v];
    const uint64_t *row = model->valuations + s * model->valuation_words;
    return (int64_t)((uint64_t)x->lower + row_field(row, x->offset, x->width));
}

void csr_variable_values(const csr_model *model, uint64_t v, uint64_t first, uint64_t count, int64_t *out)
{
    const csr_variable *x = &model->variable_info[v];
    const uint64_t W = model->valuation_words;
    const uint64_t *row = model->valuations + first * W;
    for (uint64_t i = 0; i < count; i++, row += W)
        out[i] = (int64_t)((uint64_t)x->lower + row_field(row, x->offset, x->width));
}

uint32_t csr_variable_width(uint64_t span)
{
    uint32_t w = 1;
    while (w < 64 && (span >> w))
        w++;
    return w;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Names non-empty and distinct: O(V log V). */
static int names_ok(uint64_t V, const char *const *names)
{
    for (uint64_t v = 0; v < V; v++)
        if (!names[v] || !*names[v])
            return CSR_ERR_STRING_TABLE;
    const char **sorted = malloc(V * sizeof *sorted);
    if (!sorted)
        return CSR_ERR_NOMEM;
    memcpy(sorted, names, V * sizeof *sorted);
    qsort(sorted, V, sizeof *sorted, compare_strings);
    int rc = CSR_OK;
    for (uint64_t v = 1; v < V && !rc; v++)
        if (!strcmp(sorted[v - 1], sorted[v]))
            rc = CSR_ERR_STRING_TABLE;
    free(sorted);
    return rc;
}

int csr_init_valuations(csr_model *model, uint64_t V, const char *const *names, const uint32_t *types,
                        const int64_t *lower, const int64_t *upper)
{
    const uint64_t n = model->num_states;
    if (model->variables.count || !V || V > SIZE_MAX / sizeof(csr_variable))
        return CSR_ERR_STRING_TABLE;
    int rc = names_ok(V, names);
    if (rc)
        return rc;
    for (uint64_t v = 0; v < V; v++)
        if ((types[v] != CSR_VAR_BOOL && types[v] != CSR_VAR_INT) || lower[v] > upper[v] ||
            (types[v] == CSR_VAR_BOOL && (lower[v] != 0 || upper[v] != 1)))
            return CSR_ERR_RANGE;
    csr_variable *info = calloc(V, sizeof *info);
    const char **copy = calloc(V, sizeof *copy);
    size_t chars = 0;
    for (uint64_t v = 0; v < V; v++)
        chars += strlen(names[v]) + 1;
    char *text = malloc(chars);
    if (!info || !copy || !text) {
        free(info), free(copy), free(text);
        return CSR_ERR_NOMEM;
    }
    uint64_t offset = 0; /* at most 64 V bits */
    for (uint64_t v = 0; v < V; v++) {
        info[v].type = types[v];
        info[v].lower = lower[v];
        info[v].upper = upper[v];
        info[v].width = csr_variable_width((uint64_t)upper[v] - (uint64_t)lower[v]);
        info[v].offset = offset;
        offset += info[v].width;
    }
    const uint64_t W = offset / 64 + (offset % 64 != 0);
    uint64_t words = 0;
    if (csr_mul_u64(n, W, &words) || words > SIZE_MAX / 8) {
        free(info), free(copy), free(text);
        return CSR_ERR_TOO_LARGE;
    }
    uint64_t *rows = calloc(words ? words : 1, 8);
    if (!rows) {
        free(info), free(copy), free(text);
        return CSR_ERR_NOMEM;
    }
    char *at = text;
    for (uint64_t v = 0; v < V; v++) {
        size_t len = strlen(names[v]) + 1;
        memcpy(at, names[v], len);
        copy[v] = at;
        at += len;
    }
    /* csr_adopt frees a block it refuses; the blocks after it are freed here */
    if ((rc = csr_adopt(model, text))) {
        free(copy), free(info), free(rows);
        return rc;
    }
    if ((rc = csr_adopt(model, info))) {
        free(copy), free(rows);
        return rc;
    }
    if ((rc = csr_adopt(model, rows))) {
        free(copy);
        return rc;
    }
    model->variables.names = copy;
    model->variables.count = V;
    model->variable_info = info;
    model->valuation_words = W;
    model->valuations = rows;
    return CSR_OK;
}

void csr_put_variable_value(csr_model *model, uint64_t s, uint64_t v, int64_t value)
{
    const csr_variable *x = &model->variable_info[v];
    /* the rows are the model's own (csr_init_valuations) */
    uint64_t *row = (uint64_t *)model->valuations + s * model->valuation_words;
    const uint64_t mask = x->width == 64 ? ~(uint64_t)0 : ((uint64_t)1 << x->width) - 1;
    const uint64_t field = ((uint64_t)value - (uint64_t)x->lower) & mask;
    const uint64_t w = x->offset >> 6, b = x->offset & 63;
    row[w] = (row[w] & ~(mask << b)) | field << b;
    if (b + x->width > 64)
        row[w + 1] = (row[w + 1] & ~(mask >> (64 - b))) | field >> (64 - b);
}

int csr_set_valuations(csr_model *model, uint64_t V, const char *const *names, const uint32_t *types,
                       const int64_t *lower, const int64_t *upper, const int64_t *values)
{
    const uint64_t n = model->num_states;
    if (model->variables.count || !V || V > SIZE_MAX / 16)
        return CSR_ERR_STRING_TABLE;
    for (uint64_t v = 0; v < V; v++)
        if (types[v] != CSR_VAR_BOOL && types[v] != CSR_VAR_INT)
            return CSR_ERR_RANGE;
    int64_t *lo = malloc(V * sizeof *lo), *hi = malloc(V * sizeof *hi);
    if (!lo || !hi) {
        free(lo), free(hi);
        return CSR_ERR_NOMEM;
    }
    int rc = CSR_OK;
    for (uint64_t v = 0; v < V && !rc; v++) {
        if (lower && upper) {
            lo[v] = lower[v], hi[v] = upper[v];
        } else if (types[v] == CSR_VAR_BOOL || n == 0) {
            lo[v] = 0, hi[v] = types[v] == CSR_VAR_BOOL;
        } else {
            lo[v] = hi[v] = values[v];
            for (uint64_t s = 1; s < n; s++) {
                int64_t x = values[s * V + v];
                lo[v] = x < lo[v] ? x : lo[v];
                hi[v] = x > hi[v] ? x : hi[v];
            }
        }
        for (uint64_t s = 0; s < n && !rc; s++)
            if (values[s * V + v] < lo[v] || values[s * V + v] > hi[v])
                rc = CSR_ERR_RANGE;
    }
    if (!rc)
        rc = csr_init_valuations(model, V, names, types, lo, hi);
    free(lo), free(hi);
    if (rc)
        return rc;
    for (uint64_t s = 0; s < n; s++)
        for (uint64_t v = 0; v < V; v++)
            csr_put_variable_value(model, s, v, values[s * V + v]);
    return CSR_OK;
}
