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
            "  --version  the tool's name and version\n"
            "Exit status: 0 ok, 1 bad input, 2 usage.\n",
            tool_name, CSR_SEGMENT_MAX_BOUND);
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
    tool_start("restructure");
    argv[0] = (char *)tool_name; /* getopt names the tool in its messages, not its path */
    long bound = -1;
    int c;
    char *end;
    static const struct option longopts[] = {{"bound", required_argument, 0, 'u'},
                                             {"help", no_argument, 0, 'h'},
                                             {"version", no_argument, 0, TOOL_OPT_VERSION},
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
        case 'h': usage(stdout); return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
        case TOOL_OPT_VERSION: tool_version(); return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
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
    uint64_t prefix = 0;
    int rc;
    if (bound == 0) {
        rc = csr_original_numbering(&in, &out); /* back to the original numbering, no segments */
    } else {
        uint32_t *order = malloc((n ? n : 1) * sizeof *order);
        if (!order) {
            tool_error("out of memory for %llu states", (unsigned long long)n);
            csr_free(&in);
            return EXIT_BAD_INPUT;
        }
        for (uint64_t s = 0; s < n; s++)
            if (in.choice_transitions[in.state_choices[s + 1]] - in.choice_transitions[in.state_choices[s]] <=
                (uint64_t)bound)
                order[prefix++] = (uint32_t)s;
        uint64_t k = prefix;
        for (uint64_t s = 0; s < n; s++)
            if (in.choice_transitions[in.state_choices[s + 1]] - in.choice_transitions[in.state_choices[s]] >
                (uint64_t)bound)
                order[k++] = (uint32_t)s;
        rc = csr_renumber(&in, order, &out);
        free(order);
    }
    if (!rc && bound > 0)
        rc = build_segments(&out, (uint32_t)bound, prefix);
    csr_status st;
    memset(&st, 0, sizeof st);
    st.offset = UINT64_MAX;
    if (!rc && (rc = csr_validate(&out, &st)) == CSR_OK && (rc = csr_write_fd(STDOUT_FILENO, &out, &st))) {
        tool_error("(stdout): %s%s%s", csr_strerror(rc), st.detail[0] ? ": " : "", st.detail);
        csr_free_renumbered(&out);
        csr_free(&in);
        return EXIT_BAD_INPUT;
    }
    csr_free_renumbered(&out);
    if (rc) {
        tool_error("%s: %s%s%s", tool_input_name(path), csr_strerror(rc), st.detail[0] ? ": " : "", st.detail);
        csr_free(&in);
        return EXIT_BAD_INPUT;
    }
    csr_free(&in);
    return EXIT_OK;
}
