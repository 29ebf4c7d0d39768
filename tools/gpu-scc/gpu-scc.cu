/*
 * gpu-scc - SCC decomposition of a CSR model.
 *
 *   gpu-scc [--cpu] [--stats] [-d N] [file | -] > labels
 *
 * Output: a label file (man/labelcmp.1): one line per state, in the model's
 * original numbering, the smallest state of the state's SCC.
 * --cpu runs the sequential reference, iterative Tarjan (ref/scc_tarjan.c).
 * The GPU path, forward-backward with trimming after Wijs, Katoen & Bosnacki
 * (FMSD 2016, Alg. 1), is the subject of issue 3 and is not built yet: without
 * --cpu the tool says so and exits 2.
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
            "Decompose a CSR model (standard input if no file) into strongly connected\n"
            "components; print each state's SCC id (its smallest state), one per line.\n"
            "  --cpu     sequential Tarjan on the CPU (the reference)\n"
            "  --stats   SCC counts and times on stderr\n"
            "  -d N      CUDA device N (default 0)\n"
            "  -h        this help\n"
            "Exit status: 0 ok, 1 bad input, 2 usage.\n",
            tool_name);
}

int main(int argc, char **argv)
{
    tool_name = "gpu-scc";
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
            tool_error("the GPU decomposition is not built yet (issue 3); use --cpu");
        return EXIT_USAGE;
    }

    double t0 = tool_seconds();
    csr_model m;
    if (tool_read_csr(path, &m))
        return EXIT_BAD_INPUT;
    double t1 = tool_seconds();
    uint64_t *comp = (uint64_t *)malloc((m.num_states ? m.num_states : 1) * sizeof *comp);
    ref_scc_stats st;
    int rc = comp ? ref_scc_tarjan(&m, NULL, NULL, comp, &st) : CSR_ERR_NOMEM;
    double t2 = tool_seconds();
    if (rc) {
        tool_error("%s: %s", tool_input_name(path), csr_strerror(rc));
        free(comp);
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    if (labels_write(stdout, comp, m.num_states)) {
        tool_error("(stdout): write error");
        free(comp);
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    double t3 = tool_seconds();
    if (stats)
        fprintf(stderr,
                "%s: %llu states, %llu transitions: %llu SCCs (%llu trivial); "
                "read %.3f s, Tarjan %.3f s, write %.3f s\n",
                tool_name, (unsigned long long)m.num_states, (unsigned long long)m.num_transitions,
                (unsigned long long)st.sccs, (unsigned long long)st.trivial_sccs, t1 - t0, t2 - t1, t3 - t2);
    free(comp);
    csr_free(&m);
    return EXIT_OK;
}
