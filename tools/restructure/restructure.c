/*
 * restructure - the segment-interval layout of Wijs, Katoen & Bosnacki
 * (FMSD 2016, section 5.1, Fig. 5), for coalesced reads on the GPU.
 *
 *   restructure -u N [file | -] > restructured.csr
 *
 * States with at most N transitions (over all their choices) are renumbered
 * to come first, in their original order, in segments of 32 (one warp); each
 * segment's transitions are interleaved (all first transitions of its 32
 * states, then all second, ...) with empty entries as padding; the other
 * states follow, not interleaved (the hybrid layout).  The file keeps the
 * renumbered model in its plain sections, adds the permutation back to the
 * original numbering and the segment sections (format/CSR.md 1.1).  Every
 * choice, probability, action, label and initial state is kept.
 * -u 0 undoes a restructuring: the original numbering, no segments.
 * Exit 0 ok, 1 bad input, 2 usage.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s -u N [file | -] > restructured.csr\n"
            "Renumber the states of a CSR model so that those with at most N transitions\n"
            "come first, in segments of 32 whose transitions are interleaved for coalesced\n"
            "GPU reads (FMSD 2016, section 5.1).  Labels keep PRISM's numbering.\n"
            "  -u N  interleave states with at most N transitions (1 to %d);\n"
            "        0: back to the original numbering without segments\n"
            "  -h    this help\n"
            "Exit status: 0 ok, 1 bad input, 2 usage.\n",
            tool_name, CSR_SEGMENT_MAX_BOUND);
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The model with its states in the order old_of_new (new state i is old
 * state old_of_new[i]); arrays owned by out.  Returns a csr_error code. */
static int renumber(const csr_model *in, const uint32_t *old_of_new, csr_model *out)
{
    uint64_t n = in->num_states, c = in->num_choices, t = in->num_transitions;
    memset(out, 0, sizeof *out);
    out->model_type = in->model_type;
    out->num_states = n;
    out->num_choices = c;
    out->num_transitions = t;
    uint32_t *new_of_old = malloc((n ? n : 1) * sizeof *new_of_old);
    uint64_t *sc = malloc((n + 1) * sizeof *sc), *ct = malloc((c + 1) * sizeof *ct);
    uint32_t *tg = malloc((t ? t : 1) * sizeof *tg), *perm = malloc((n ? n : 1) * sizeof *perm);
    double *pr = in->probabilities ? malloc((t ? t : 1) * sizeof *pr) : NULL;
    uint32_t *ca = in->choice_actions ? malloc((c ? c : 1) * sizeof *ca) : NULL;
    uint32_t *init = malloc((in->num_initial ? in->num_initial : 1) * sizeof *init);
    uint64_t labelled = in->labels.count ? in->label_first[in->labels.count] : 0;
    uint32_t *ls = malloc((labelled ? labelled : 1) * sizeof *ls);
    int rc = CSR_OK;
    void *blocks[] = {sc, ct, tg, perm, pr, ca, init, ls};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        if (csr_adopt(out, blocks[b]))
            rc = CSR_ERR_NOMEM;
    if (!new_of_old || !sc || !ct || !tg || !perm || (in->probabilities && !pr) || (in->choice_actions && !ca) ||
        !init || !ls || rc) {
        free(new_of_old);
        return CSR_ERR_NOMEM;
    }
    for (uint64_t i = 0; i < n; i++)
        new_of_old[old_of_new[i]] = (uint32_t)i;
    uint64_t k = 0, x = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t s = old_of_new[i];
        perm[i] = in->permutation ? in->permutation[s] : (uint32_t)s;
        sc[i] = k;
        for (uint64_t j = in->state_choices[s]; j < in->state_choices[s + 1]; j++, k++) {
            ct[k] = x;
            if (ca)
                ca[k] = in->choice_actions[j];
            for (uint64_t e = in->choice_transitions[j]; e < in->choice_transitions[j + 1]; e++, x++) {
                tg[x] = new_of_old[in->targets[e]];
                if (pr)
                    pr[x] = in->probabilities[e];
            }
        }
    }
    sc[n] = k;
    ct[c] = x;
    for (uint64_t i = 0; i < in->num_initial; i++)
        init[i] = new_of_old[in->initial_states[i]];
    qsort(init, in->num_initial, sizeof *init, compare_u32);
    for (uint64_t l = 0; l < in->labels.count; l++) {
        uint64_t b = in->label_first[l], e = in->label_first[l + 1];
        for (uint64_t i = b; i < e; i++)
            ls[i] = new_of_old[in->label_states[i]];
        qsort(ls + b, e - b, sizeof *ls, compare_u32);
    }
    free(new_of_old);
    out->state_choices = sc;
    out->choice_transitions = ct;
    out->targets = tg;
    out->probabilities = pr;
    out->choice_actions = ca;
    out->actions = in->actions; /* names point into in's storage: in outlives out */
    out->initial_states = init;
    out->num_initial = in->num_initial;
    out->labels = in->labels;
    out->label_first = in->label_first;
    out->label_states = ls;
    /* The identity needs no permutation section. */
    int identity = 1;
    for (uint64_t i = 0; i < n && identity; i++)
        identity = perm[i] == i;
    out->permutation = identity ? NULL : perm;
    return CSR_OK;
}

/* Interleave the transitions of states [0, prefix) in segments of 32. */
static int build_segments(csr_model *m, uint32_t bound, uint64_t prefix)
{
    const uint64_t lanes = CSR_SEGMENT_LANES;
    uint64_t segments = (prefix + lanes - 1) / lanes;
    uint64_t *first = malloc((segments + 1) * sizeof *first);
    if (!first || csr_adopt(m, first))
        return CSR_ERR_NOMEM;
    const uint64_t *sc = m->state_choices, *ct = m->choice_transitions;
    first[0] = 0;
    for (uint64_t g = 0; g < segments; g++) {
        uint64_t depth = 0;
        for (uint64_t s = g * lanes; s < (g + 1) * lanes && s < prefix; s++) {
            uint64_t degree = ct[sc[s + 1]] - ct[sc[s]];
            if (degree > depth)
                depth = degree;
        }
        first[g + 1] = first[g] + depth * lanes;
    }
    uint64_t entries = first[segments];
    uint32_t *targets = malloc((entries ? entries : 1) * sizeof *targets);
    uint8_t *choices = malloc(entries ? entries : 1);
    if (!targets || csr_adopt(m, targets) || !choices || csr_adopt(m, choices))
        return CSR_ERR_NOMEM;
    for (uint64_t e = 0; e < entries; e++) {
        targets[e] = CSR_SEGMENT_EMPTY;
        choices[e] = CSR_SEGMENT_NO_CHOICE;
    }
    for (uint64_t s = 0; s < prefix; s++) {
        uint64_t g = s / lanes, l = s % lanes, pos = 0;
        for (uint64_t j = sc[s]; j < sc[s + 1]; j++)
            for (uint64_t i = ct[j]; i < ct[j + 1]; i++, pos++) {
                targets[first[g] + pos * lanes + l] = m->targets[i];
                choices[first[g] + pos * lanes + l] = (uint8_t)(j - sc[s]);
            }
    }
    m->segment_bound = bound;
    m->interleaved_states = prefix;
    m->num_segments = segments;
    m->segment_first = first;
    m->segment_targets = targets;
    m->segment_choices = choices;
    return CSR_OK;
}

int main(int argc, char **argv)
{
    tool_name = "restructure";
    long bound = -1;
    int c;
    char *end;
    static const struct option longopts[] = {{"bound", required_argument, 0, 'u'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    while ((c = getopt_long(argc, argv, "u:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'u':
            bound = strtol(optarg, &end, 10);
            if (*end || end == optarg || bound < 0 || bound > CSR_SEGMENT_MAX_BOUND) {
                tool_error("bad bound '%s' (0 to %d)", optarg, CSR_SEGMENT_MAX_BOUND);
                return EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (bound < 0) {
        tool_error("-u N is required");
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *path;
    if (tool_input_operand(argc, argv, optind, usage, &path) || tool_refuse_terminal())
        return EXIT_USAGE;
    csr_model in, out;
    if (tool_read_csr(path, &in))
        return EXIT_BAD_INPUT;
    uint64_t n = in.num_states;
    if (n >= UINT32_MAX) {
        tool_error("%s: %llu states: at most 2^32 - 1", tool_input_name(path), (unsigned long long)n);
        csr_free(&in);
        return EXIT_BAD_INPUT;
    }
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order) {
        tool_error("out of memory for %llu states", (unsigned long long)n);
        csr_free(&in);
        return EXIT_BAD_INPUT;
    }
    uint64_t prefix = 0;
    if (bound == 0) {
        /* Back to the original numbering: new state i is the old state whose original number is i. */
        for (uint64_t s = 0; s < n; s++)
            order[in.permutation ? in.permutation[s] : s] = (uint32_t)s;
    } else {
        for (uint64_t s = 0; s < n; s++)
            if (in.choice_transitions[in.state_choices[s + 1]] - in.choice_transitions[in.state_choices[s]] <=
                (uint64_t)bound)
                order[prefix++] = (uint32_t)s;
        uint64_t k = prefix;
        for (uint64_t s = 0; s < n; s++)
            if (in.choice_transitions[in.state_choices[s + 1]] - in.choice_transitions[in.state_choices[s]] >
                (uint64_t)bound)
                order[k++] = (uint32_t)s;
    }
    int rc = renumber(&in, order, &out);
    free(order);
    if (!rc && bound > 0)
        rc = build_segments(&out, (uint32_t)bound, prefix);
    csr_status st;
    memset(&st, 0, sizeof st);
    st.offset = UINT64_MAX;
    if (!rc && (rc = csr_validate(&out, &st)) == CSR_OK)
        rc = csr_write_fd(STDOUT_FILENO, &out, &st);
    /* out borrowed the label and action names of in */
    out.labels.names = NULL;
    out.actions.names = NULL;
    csr_free(&out);
    if (rc) {
        tool_error("%s: %s%s%s", tool_input_name(path), csr_strerror(rc), st.detail[0] ? ": " : "", st.detail);
        csr_free(&in);
        return EXIT_BAD_INPUT;
    }
    csr_free(&in);
    return EXIT_OK;
}
