/*
 * gpu-mec - maximal end component (MEC) decomposition of a CSR MDP on the GPU.
 *
 *   gpu-mec [--cpu] [--stats] [--j-set] [-c N] [--nh] [--bfbt]
 *           [--no-warp-aggregation] [--no-transpose] [--sweep-trim]
 *           [--host-loop] [--blocks N] [-d N] [file | -] > labels
 *
 * Output: a label file (man/labelcmp.1): one line per state, in the model's
 * original numbering (restructured input is mapped back through its
 * permutation), the smallest state of the state's MEC, or "-" for a state in
 * no MEC.  A DTMC is an MDP with one choice per state: its MECs are its
 * bottom SCCs.
 * GPU: gpu/mec_fb.h (Wijs, Katoen & Bosnacki, FMSD 2016, sections 2.3, 2.4,
 * 5.3, 6, Algorithm 7) on the SCC decomposition of gpu/scc_fb.h, whose
 * options it shares with gpu-scc.  --cpu: the basic sequential MEC algorithm
 * of the article's section 2.3 (ref/mec_basic.c).  Both give the same labels
 * and the same rounds, removed states and removed choices.
 * Exit 0 ok, 1 bad input or failure, 2 usage or no GPU.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "labels.h"
#include "mec_fb.h"
#include "ref.h"
#include "tool.h"

enum { OPT_J_SET = GPU_OPT_TOOL };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [options] [file | -] > labels\n"
            "Decompose a CSR model (standard input if no file) into maximal end\n"
            "components; print each state's MEC id (its smallest state) or - for a\n"
            "state in no MEC, one per line.  The CPU reference is the basic MEC\n"
            "algorithm; the other options set the GPU's SCC searches, as in gpu-scc.\n"
            "  --j-set                from the second round on, first pivots only among\n"
            "                         the states that lost a choice (FMSD section 5.3)\n",
            tool_name);
    gpu_tool_usage(out);
    fputs("Exit status: 0 ok, 1 bad input, 2 usage or no GPU.\n", out);
}

int main(int argc, char **argv)
{
    tool_name = "gpu-mec";
    gpu_tool_options o;
    gpu_tool_defaults(&o);
    gpu_mec_options opt;
    gpu_mec_default_options(&opt);
    static const struct option longopts[] = {GPU_LONG_OPTIONS, {"j-set", no_argument, 0, OPT_J_SET}, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, GPU_SHORT_OPTIONS, longopts, NULL)) != -1) {
        int done = gpu_tool_option(c, optarg, &o);
        if (done < 0)
            return EXIT_USAGE;
        if (done)
            continue;
        if (c == OPT_J_SET) {
            opt.j_set = 1;
        } else if (c == 'h') {
            usage(stdout);
            return EXIT_OK;
        } else {
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    opt.scc = o.scc;
    const char *path;
    if (tool_input_operand(argc, argv, optind, usage, &path))
        return EXIT_USAGE;
    if (!o.use_cpu && gpu_select_device(o.device))
        return EXIT_USAGE;

    double t0 = tool_seconds();
    csr_model m;
    if (tool_read_csr(path, &m))
        return EXIT_BAD_INPUT;
    double t1 = tool_seconds();
    const uint64_t n = m.num_states;
    uint64_t *mec = (uint64_t *)malloc((n ? n : 1) * sizeof *mec);
    int rc = mec ? CSR_OK : CSR_ERR_NOMEM;
    csr_status st;
    memset(&st, 0, sizeof st);
    ref_mec_stats rst;
    memset(&rst, 0, sizeof rst);
    gpu_mec_stats gst;
    memset(&gst, 0, sizeof gst);
    if (!rc && o.use_cpu) {
        rc = ref_mec_basic(&m, mec, &rst);
    } else if (!rc) {
        uint32_t *ids = (uint32_t *)malloc((n ? n : 1) * sizeof *ids);
        rc = ids ? gpu_mec_fb(&m, &opt, ids, &gst, &st) : CSR_ERR_NOMEM;
        for (uint64_t s = 0; !rc && s < n; s++)
            mec[s] = ids[s] == GPU_MEC_NONE ? REF_NONE : ids[s];
        free(ids);
        rst.mecs = gst.mecs;
        rst.states_in_mecs = gst.states_in_mecs;
        rst.rounds = gst.rounds;
        rst.removed_states = gst.removed_states;
        rst.removed_choices = gst.removed_choices;
    }
    double t2 = tool_seconds();
    if (rc) {
        tool_error("%s: %s%s%s", tool_input_name(path), csr_strerror(rc), st.detail[0] ? ": " : "", st.detail);
        free(mec);
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    if (labels_to_original(&m, mec, mec) || labels_write(stdout, mec, n)) {
        tool_error("(stdout): write error");
        free(mec);
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    double t3 = tool_seconds();
    if (o.stats) {
        fprintf(stderr,
                "%s: %llu states, %llu choices, %llu transitions: %llu MECs with %llu states; "
                "%llu rounds, %llu states and %llu choices removed; read %.3f s, MEC %.3f s, write %.3f s\n",
                tool_name, (unsigned long long)n, (unsigned long long)m.num_choices,
                (unsigned long long)m.num_transitions, (unsigned long long)rst.mecs,
                (unsigned long long)rst.states_in_mecs, (unsigned long long)rst.rounds,
                (unsigned long long)rst.removed_states, (unsigned long long)rst.removed_choices, t1 - t0, t2 - t1,
                t3 - t2);
        if (!o.use_cpu) {
            fprintf(stderr,
                    "%s: GPU %.4f s (host-to-device %.4f, graphs %.4f, SCCs %.4f, U and attractors %.4f, "
                    "device-to-host %.4f); %llu attractor levels\n",
                    tool_name, gst.total_s, gst.h2d_s, gst.graph_s, gst.scc_s, gst.mec_s, gst.d2h_s,
                    (unsigned long long)gst.attractor_levels);
            gpu_print_scc_stats(&gst.scc);
        }
    }
    free(mec);
    csr_free(&m);
    return EXIT_OK;
}
