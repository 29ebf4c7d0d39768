/*
 * csrinfo - describe and validate a CSR file (format/CSR.md), after netpbm's
 * pamfile.
 *
 *   csrinfo [-q] [-w] [file | -]
 *
 * Prints the header, the section table, the counts, the out-degree (transitions
 * per state) and choices per state, the initial states, the labels, the
 * actions, the reward structures and the state variables with the valuation
 * of the initial states, after a full validation: every checksum, every length, every
 * structural invariant (csr_validate) and the choice sums (1 within 1e-5, or --sum-tolerance).
 * Exit 0 valid, 1 any violation (a message names the file and where), 2 usage.
 */
#include <bsd/libutil.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

#define SUM_TOLERANCE 1e-5 /* as prism2csr's default (PRISM's -sumroundoff) */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [-q] [-w] [--sum-tolerance EPS] [file | -]\n"
            "Describe and validate a CSR model file (standard input if none).\n"
            "  -q  print nothing; the exit status tells whether the file is valid\n"
            "  -w  choices not summing to 1 within the tolerance are a warning, not a\n"
            "      violation\n"
            "  --sum-tolerance EPS  how far from 1 a choice may sum (default 1e-5)\n"
            "  -h  this help\n"
            "  --version  the tool's name and version\n"
            "Exit status: 0 valid, 1 invalid or unreadable, 2 usage.\n",
            tool_name);
}

static const char *human(uint64_t bytes, char *buf, size_t len)
{
    if (humanize_number(buf, len, (int64_t)bytes, "B", HN_AUTOSCALE, HN_DECIMAL | HN_NOSPACE) < 0)
        snprintf(buf, len, "%lluB", (unsigned long long)bytes);
    return buf;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The first states of a list, in PRISM's numbering (through the
 * permutation of a restructured file, sorted again), as a user knows them. */
static void print_state_list(const csr_model *m, const uint32_t *list, uint64_t count)
{
    uint32_t *orig = m->permutation ? malloc((count ? count : 1) * sizeof *orig) : NULL;
    if (orig) {
        for (uint64_t i = 0; i < count; i++)
            orig[i] = m->permutation[list[i]];
        qsort(orig, count, sizeof *orig, compare_u32);
        list = orig;
    }
    uint64_t shown = count < 8 ? count : 8;
    for (uint64_t i = 0; i < shown; i++)
        printf("%s%u", i ? " " : "", list[i]);
    if (count > shown)
        printf(" ...");
    if (orig)
        printf(" (original numbering)");
    free(orig);
}

/* The state variables (name and range, PRISM's declaration syntax) and the
 * valuations of the first four initial states (in PRISM's numbering), as
 * "name=value" pairs. */
static void print_valuations(const csr_model *m)
{
    const uint64_t V = m->variables.count;
    if (!V) {
        printf("\n  variables:    none");
        return;
    }
    printf("\n  variables:    %llu", (unsigned long long)V);
    for (uint64_t v = 0; v < V; v++) {
        const csr_variable *x = &m->variable_info[v];
        if (x->type == CSR_VAR_BOOL)
            printf("%s%s bool", v ? ", " : ": ", m->variables.names[v]);
        else
            printf("%s%s [%lld..%lld]", v ? ", " : ": ", m->variables.names[v], (long long)x->lower,
                   (long long)x->upper);
    }
    /* the initial states in PRISM's numbering, each with its state of the file */
    const uint64_t count = m->num_initial, shown = count < 4 ? count : 4;
    uint64_t *pairs = malloc((count ? count : 1) * sizeof *pairs);
    if (!pairs)
        return;
    for (uint64_t i = 0; i < count; i++) {
        const uint32_t s = m->initial_states[i];
        pairs[i] = (uint64_t)(m->permutation ? m->permutation[s] : s) << 32 | s;
    }
    if (m->permutation)
        qsort(pairs, count, sizeof *pairs, compare_u64);
    for (uint64_t i = 0; i < shown; i++) {
        const uint64_t s = pairs[i] & 0xffffffffu;
        printf("\n  %sstate %llu:", i ? "              " : "valuation:    ", (unsigned long long)(pairs[i] >> 32));
        for (uint64_t v = 0; v < V; v++) {
            const int64_t x = csr_variable_value(m, s, v);
            if (m->variable_info[v].type == CSR_VAR_BOOL)
                printf(" %s=%s", m->variables.names[v], x ? "true" : "false");
            else
                printf(" %s=%lld", m->variables.names[v], (long long)x);
        }
    }
    if (count > shown)
        printf("\n                ... (%llu more initial states)", (unsigned long long)(count - shown));
    free(pairs);
}

int main(int argc, char **argv)
{
    tool_start("csrinfo");
    argv[0] = (char *)tool_name; /* getopt names the tool in its messages, not its path */
    int quiet = 0, warn_sums = 0, c;
    double tol = SUM_TOLERANCE;
    char *end;
    static const struct option longopts[] = {{"quiet", no_argument, 0, 'q'},
                                             {"warn-sums", no_argument, 0, 'w'},
                                             {"sum-tolerance", required_argument, 0, 'S'},
                                             {"help", no_argument, 0, 'h'},
                                             {"version", no_argument, 0, TOOL_OPT_VERSION},
                                             {0, 0, 0, 0}};
    while ((c = getopt_long(argc, argv, "qwh", longopts, NULL)) != -1) {
        switch (c) {
        case 'q': quiet = 1; break;
        case 'w': warn_sums = 1; break;
        case 'S':
            tol = strtod(optarg, &end);
            if (*end || end == optarg || !(tol > 0.0 && tol < 1.0)) {
                tool_error("bad sum tolerance '%s' (above 0, below 1)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
        case TOOL_OPT_VERSION: tool_version(); return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    const char *path;
    if (tool_input_operand(argc, argv, optind, usage, &path))
        return EXIT_USAGE;
    const char *name = tool_input_name(path);
    csr_model m;
    if (tool_read_csr(path, &m))
        return EXIT_BAD_INPUT;
    uint64_t bad_choice;
    double worst = csr_max_sum_error(&m, tol, &bad_choice);
    int status = EXIT_OK;
    if (bad_choice != UINT64_MAX && !warn_sums)
        status = EXIT_BAD_INPUT;
    if (bad_choice != UINT64_MAX && !(quiet && warn_sums)) {
        double sum = 0.0;
        for (uint64_t i = m.choice_transitions[bad_choice]; i < m.choice_transitions[bad_choice + 1]; i++)
            sum += m.probabilities[i];
        fprintf(stderr, "%s: %s: %s%s: choice %llu sums to %.17g\n", tool_name, name, warn_sums ? "warning: " : "",
                csr_strerror(CSR_ERR_PROBABILITY_SUM), (unsigned long long)bad_choice, sum);
    }
    if (quiet) {
        csr_free(&m);
        return status;
    }

    char h1[6], h2[6]; /* humanize_number scales to fit: at most 5 characters */
    printf("%s:\tCSR %u.%u %s, %llu states, %llu choices, %llu transitions\n", name, m.version_major,
           m.version_minor, m.model_type == CSR_MDP ? "MDP" : "DTMC", (unsigned long long)m.num_states,
           (unsigned long long)m.num_choices, (unsigned long long)m.num_transitions);
    printf("  file:         %llu bytes (%s), header %llu bytes, %u sections\n", (unsigned long long)m.file_length,
           human(m.file_length, h1, sizeof h1), (unsigned long long)m.header_length, m.num_sections);
    if (m.segment_bound) {
        uint64_t entries = m.segment_first[m.num_segments], real = 0;
        for (uint64_t s = 0; s < m.interleaved_states; s++)
            real += m.choice_transitions[m.state_choices[s + 1]] - m.choice_transitions[m.state_choices[s]];
        printf("  layout:       segments of %d (u = %u): %llu of %llu states interleaved in %llu segments; "
               "%llu entries for %llu transitions (%.1f%% padding)\n",
               CSR_SEGMENT_LANES, m.segment_bound, (unsigned long long)m.interleaved_states,
               (unsigned long long)m.num_states, (unsigned long long)m.num_segments, (unsigned long long)entries,
               (unsigned long long)real, entries ? 100.0 * (double)(entries - real) / (double)entries : 0.0);
    } else {
        printf("  layout:       plain\n");
    }
    printf("  numbering:    %s\n", m.permutation ? "renumbered; PERMUTATION gives the original numbers" : "original");
    printf("  sections:     %-20s %12s %14s %8s %s\n", "type", "offset", "length", "crc32", "flags");
    for (uint32_t i = 0; i < m.num_sections; i++) {
        const csr_section *s = &m.sections[i];
        printf("                %-20s %12llu %14llu %08x %s (%s)\n", csr_section_known(s->type)
                   ? csr_section_name(s->type) : "unknown", (unsigned long long)s->offset,
               (unsigned long long)s->length, s->crc32, s->flags & CSR_SECTION_OPTIONAL ? "optional" : "-",
               human(s->length, h2, sizeof h2));
    }
    uint64_t max_deg = 0, max_choices = 0, max_choice_len = 0, no_choice = 0;
    for (uint64_t s = 0; s < m.num_states; s++) {
        uint64_t k0 = m.state_choices[s], k1 = m.state_choices[s + 1];
        uint64_t deg = m.choice_transitions[k1] - m.choice_transitions[k0];
        if (deg > max_deg)
            max_deg = deg;
        if (k1 - k0 > max_choices)
            max_choices = k1 - k0;
        no_choice += k1 == k0;
    }
    for (uint64_t k = 0; k < m.num_choices; k++) {
        uint64_t len = m.choice_transitions[k + 1] - m.choice_transitions[k];
        if (len > max_choice_len)
            max_choice_len = len;
    }
    double n = m.num_states ? (double)m.num_states : 1.0, nc = m.num_choices ? (double)m.num_choices : 1.0;
    printf("  out-degree:   %.2f average, %llu maximum (transitions per state)\n", (double)m.num_transitions / n,
           (unsigned long long)max_deg);
    printf("  choices:      %.2f per state on average, %llu maximum, %llu states without a choice\n",
           (double)m.num_choices / n, (unsigned long long)max_choices, (unsigned long long)no_choice);
    printf("  distribution: %.2f transitions per choice on average, %llu maximum\n",
           (double)m.num_transitions / nc, (unsigned long long)max_choice_len);
    if (m.probabilities)
        printf("  probability:  choice sums within %.3g of 1 at worst\n", worst);
    else
        printf("  probability:  none (graph only)\n");
    printf("  initial:      %llu state%s: ", (unsigned long long)m.num_initial, m.num_initial == 1 ? "" : "s");
    print_state_list(&m, m.initial_states, m.num_initial);
    printf("\n  labels:       %llu", (unsigned long long)m.labels.count);
    for (uint64_t l = 0; l < m.labels.count; l++)
        printf("%s\"%s\" (%llu)", l ? ", " : ": ", m.labels.names[l],
               (unsigned long long)(m.label_first[l + 1] - m.label_first[l]));
    if (m.choice_actions) {
        uint64_t named = 0;
        for (uint64_t k = 0; k < m.num_choices; k++)
            named += m.choice_actions[k] != 0;
        printf("\n  actions:      %llu names, on %llu of %llu choices", (unsigned long long)(m.actions.count - 1),
               (unsigned long long)named, (unsigned long long)m.num_choices);
    } else {
        printf("\n  actions:      none");
    }
    if (m.rewards.count) {
        printf("\n  rewards:      %llu", (unsigned long long)m.rewards.count);
        for (uint64_t r = 0; r < m.rewards.count; r++) {
            const double *sr, *cr;
            csr_reward_arrays(&m, r, &sr, &cr);
            double sum = 0;
            for (uint64_t s = 0; sr && s < m.num_states; s++)
                sum += sr[s];
            for (uint64_t k = 0; cr && k < m.num_choices; k++)
                sum += cr[k];
            printf("%s\"%s\" (%s, total %g)", r ? ", " : ": ", m.rewards.names[r],
                   sr && cr ? "states and choices" : sr ? "states" : cr ? "choices" : "none", sum);
        }
    } else {
        printf("\n  rewards:      none");
    }
    print_valuations(&m);
    printf("\n  valid:        %s\n", status == EXIT_OK ? "yes" : "no");
    csr_free(&m);
    if (fflush(stdout) != 0) {
        tool_error("(stdout): write error");
        return EXIT_BAD_INPUT;
    }
    return status;
}
