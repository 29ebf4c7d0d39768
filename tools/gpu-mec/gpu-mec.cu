/*
 * gpu-mec - maximal end component (MEC) decomposition of a CSR MDP.
 *
 *   gpu-mec [--cpu] [--stats] [-d N] [file | -] > labels
 *
 * Output: a label file (man/labelcmp.1): one line per state, in the model's
 * original numbering (restructured input is mapped back through its permutation), the smallest state of the state's MEC, or "-" for a
 * state in no MEC.  A DTMC is an MDP with one choice per state: its MECs are
 * its bottom SCCs.
 * --cpu runs the sequential reference, the basic MEC algorithm of the FMSD
 * article, section 2.3 (ref/mec_basic.c).  The GPU path (FMSD Alg. 7) is the
 * subject of issue 4 and is not built yet: without --cpu the tool says so and
 * exits 2.
 * Exit 0 ok, 1 bad input, 2 usage.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "labels.h"
#include "ref.h"
#include "tool.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [--cpu] [--stats] [-d N] [file | -] > labels\n"
            "Decompose a CSR model (standard input if no file) into maximal end\n"
            "components; print each state's MEC id (its smallest state) or - for a\n"
            "state in no MEC, one per line.\n"
            "  --cpu     the basic sequential MEC algorithm on the CPU (the reference)\n"
            "  --stats   MEC counts, rounds and times on stderr\n"
            "  -d N      CUDA device N (default 0)\n"
            "  -h        this help\n"
            "Exit status: 0 ok, 1 bad input, 2 usage.\n",
            tool_name);
}

int main(int argc, char **argv)
{
    tool_name = "gpu-mec";
    int use_cpu = 0, stats = 0, device = 0, c;
    char *end;
    static const struct option longopts[] = {{"cpu", no_argument, 0, 'C'},
                                             {"stats", no_argument, 0, 'S'},
                                             {"device", required_argument, 0, 'd'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    while ((c = getopt_long(argc, argv, "d:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'C': use_cpu = 1; break;
        case 'S': stats = 1; break;
        case 'd':
            device = (int)strtol(optarg, &end, 10);
            if (*end || end == optarg || device < 0) {
                tool_error("bad device number '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    const char *path;
    if (tool_input_operand(argc, argv, optind, usage, &path))
        return EXIT_USAGE;
    if (!use_cpu) {
        if (gpu_select_device(device) == 0)
            tool_error("the GPU decomposition is not built yet (issue 4); use --cpu");
        return EXIT_USAGE;
    }

    double t0 = tool_seconds();
    csr_model m;
    if (tool_read_csr(path, &m))
        return EXIT_BAD_INPUT;
    double t1 = tool_seconds();
    uint64_t *mec = (uint64_t *)malloc((m.num_states ? m.num_states : 1) * sizeof *mec);
    ref_mec_stats st;
    int rc = mec ? ref_mec_basic(&m, mec, &st) : CSR_ERR_NOMEM;
    double t2 = tool_seconds();
    if (rc) {
        tool_error("%s: %s", tool_input_name(path), csr_strerror(rc));
        free(mec);
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    if (labels_to_original(&m, mec, mec) || labels_write(stdout, mec, m.num_states)) {
        tool_error("(stdout): write error");
        free(mec);
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    double t3 = tool_seconds();
    if (stats)
        fprintf(stderr,
                "%s: %llu states, %llu choices, %llu transitions: %llu MECs with %llu states; "
                "%llu rounds, %llu states and %llu choices removed; read %.3f s, MEC %.3f s, write %.3f s\n",
                tool_name, (unsigned long long)m.num_states, (unsigned long long)m.num_choices,
                (unsigned long long)m.num_transitions, (unsigned long long)st.mecs,
                (unsigned long long)st.states_in_mecs, (unsigned long long)st.rounds,
                (unsigned long long)st.removed_states, (unsigned long long)st.removed_choices, t1 - t0, t2 - t1,
                t3 - t2);
    free(mec);
    csr_free(&m);
    return EXIT_OK;
}
