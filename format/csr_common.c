/*
 * csr_common.c - error strings, status reporting and model ownership
 * for the CSR format library (format/CSR.md).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "csr.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the CSR library reads and writes little-endian data in place: little-endian hosts only"
#endif

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
    default: return "UNKNOWN";
    }
}

int csr_section_known(uint32_t type)
{
    return (type >= CSR_SEC_STATE_CHOICES && type <= CSR_SEC_CHOICE_ACTIONS) ||
           (type >= CSR_SEC_PERMUTATION && type <= CSR_SEC_CHOICE_REWARDS);
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

void csr_reward_arrays(const csr_model *model, uint64_t r, const double **state, const double **choice)
{
    uint64_t s = 0, c = 0; /* structures before r with state / choice rewards */
    for (uint64_t i = 0; i < r; i++) {
        s += (model->reward_info[i] & CSR_REWARD_STATES) != 0;
        c += (model->reward_info[i] & CSR_REWARD_CHOICES) != 0;
    }
    *state = model->reward_info[r] & CSR_REWARD_STATES ? model->state_rewards + s * model->num_states : NULL;
    *choice = model->reward_info[r] & CSR_REWARD_CHOICES ? model->choice_rewards + c * model->num_choices : NULL;
}
