/*
 * gpu-scc - SCC decomposition of a CSR model on the GPU.
 *
 *   gpu-scc [--cpu] [--stats] [-c N] [--nh] [--bfbt] [--no-warp-aggregation]
 *           [--no-transpose] [--sweep-trim] [--host-loop] [--blocks N] [-d N]
 *           [file | -] > labels
 *
 * Output: a label file (man/labelcmp.1): one line per state, in the model's
 * original numbering (restructured input is mapped back through its permutation), the smallest state of the state's SCC, so that runs and
 * configurations compare byte for byte.
 * GPU: forward-backward search with trimming (gpu/scc_fb.h; Wijs, Katoen &
 * Bosnacki, FMSD 2016, Algorithms 1, 2, 3, 4 and 6).  --cpu: iterative Tarjan
 * (ref/scc_tarjan.c).  Exit 0 ok, 1 bad input or failure, 2 usage or no GPU.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "labels.h"
#include "ref.h"
#include "scc_fb.h"
#include "tool.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [options] [file | -] > labels\n"
            "Decompose a CSR model (standard input if no file) into strongly connected\n"
            "components; print each state's SCC id (its smallest state), one per line.\n"
            "The CPU reference is sequential Tarjan.\n",
            tool_name);
    gpu_tool_usage(out);
    fputs("Exit status: 0 ok, 1 bad input, 2 usage or no GPU.\n", out);
}

int main(int argc, char **argv)
{
    tool_name = "gpu-scc";
    gpu_tool_options o;
    gpu_tool_defaults(&o);
    static const struct option longopts[] = {GPU_LONG_OPTIONS, {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, GPU_SHORT_OPTIONS, longopts, NULL)) != -1) {
        int done = gpu_tool_option(c, optarg, &o);
        if (done < 0)
            return EXIT_USAGE;
        if (done)
            continue;
        if (c == 'h') {
            usage(stdout);
            return EXIT_OK;
        }
        usage(stderr);
        return EXIT_USAGE;
    }
    const int use_cpu = o.use_cpu, stats = o.stats, device = o.device;
    const gpu_scc_options opt = o.scc;
    const char *path;
    if (tool_input_operand(argc, argv, optind, usage, &path))
        return EXIT_USAGE;
    if (!use_cpu && gpu_select_device(device))
        return EXIT_USAGE;

    double t0 = tool_seconds();
    csr_model m;
    if (tool_read_csr(path, &m))
        return EXIT_BAD_INPUT;
    double t1 = tool_seconds();
    uint64_t n = m.num_states;
    uint64_t *comp = (uint64_t *)malloc((n ? n : 1) * sizeof *comp);
    int rc = comp ? CSR_OK : CSR_ERR_NOMEM;
    csr_status st;
    memset(&st, 0, sizeof st);
    ref_scc_stats rst = {0, 0};
    gpu_scc_stats gst;
    memset(&gst, 0, sizeof gst);
    if (!rc && use_cpu) {
        rc = ref_scc_tarjan(&m, NULL, NULL, comp, &rst);
    } else if (!rc) {
        uint32_t *scc = (uint32_t *)malloc((n ? n : 1) * sizeof *scc);
        rc = scc ? gpu_scc_fb(&m, &opt, scc, &gst, &st) : CSR_ERR_NOMEM;
        for (uint64_t s = 0; !rc && s < n; s++)
            comp[s] = scc[s];
        free(scc);
    }
    double t2 = tool_seconds();
    if (rc) {
        tool_error("%s: %s%s%s", tool_input_name(path), csr_strerror(rc), st.detail[0] ? ": " : "", st.detail);
        free(comp);
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    if (labels_to_original(&m, comp, comp) || labels_write(stdout, comp, n)) {
        tool_error("(stdout): write error");
        free(comp);
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    double t3 = tool_seconds();
    if (stats && use_cpu)
        fprintf(stderr,
                "%s: %llu states, %llu transitions: %llu SCCs (%llu trivial); "
                "read %.3f s, Tarjan %.3f s, write %.3f s\n",
                tool_name, (unsigned long long)n, (unsigned long long)m.num_transitions,
                (unsigned long long)rst.sccs, (unsigned long long)rst.trivial_sccs, t1 - t0, t2 - t1, t3 - t2);
    else if (stats)
        fprintf(stderr,
                "%s: %llu states, %llu transitions: %llu SCCs (%llu trivial), %llu trimmed; %llu rounds, "
                "%llu trim sweeps, %llu search sweeps; transpose %s; device memory %.1f MB\n"
                "%s: read %.3f s, GPU %.4f s (host-to-device %.4f, transpose %.4f, trimming %.4f, "
                "pivots %.4f, searches %.4f, device-to-host %.4f), write %.3f s\n",
                tool_name, (unsigned long long)n, (unsigned long long)m.num_transitions,
                (unsigned long long)gst.sccs, (unsigned long long)gst.trivial_sccs, (unsigned long long)gst.trimmed,
                (unsigned long long)gst.rounds, (unsigned long long)gst.trim_sweeps,
                (unsigned long long)gst.search_sweeps, gst.used_transpose ? "yes" : "no",
                (double)gst.device_bytes / 1e6, tool_name, t1 - t0, gst.total_s, gst.h2d_s, gst.transpose_s,
                gst.trim_s, gst.pivot_s, gst.search_s, gst.d2h_s, t3 - t2);
    free(comp);
    csr_free(&m);
    return EXIT_OK;
}
