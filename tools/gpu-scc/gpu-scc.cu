/*
 * gpu-scc - SCC decomposition of a CSR model on the GPU.
 *
 *   gpu-scc [--cpu] [--stats] [-c N] [--nh] [--bfbt] [--no-warp-aggregation]
 *           [--no-transpose] [--sweep-trim] [--host-loop] [-d N] [file | -] > labels
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
            "  --cpu                  sequential Tarjan on the CPU (the reference)\n"
            "  -c N                   local-cache iterations per search sweep (FMSD Alg. 4;\n"
            "                         default 0)\n"
            "  --nh                   no hybrid kernel: forward and backward sweeps apart\n"
            "  --bfbt                 bounding FB (FMSD Alg. 2): once one search ends,\n"
            "                         the other stays inside what it reached\n"
            "  --no-warp-aggregation  every state races for its region's pivot slot\n"
            "  --no-transpose         backward search scans the forward CSR\n"
            "  --sweep-trim           trimming by sweeps over all states (the article's)\n"
            "                         instead of over queues of the states just trimmed\n"
            "  --blocks N             blocks of the persistent kernel (default: as many as\n"
            "                         fit on the GPU at once)\n"
            "  --host-loop            one kernel launch per sweep, the host reading a flag\n"
            "                         after each (the article's way) instead of one\n"
            "                         persistent kernel with grid barriers\n"
            "  --stats                counts and times per phase on stderr\n"
            "  -d N                   CUDA device N (default 0)\n"
            "  -h                     this help\n"
            "Exit status: 0 ok, 1 bad input, 2 usage or no GPU.\n",
            tool_name);
}

int main(int argc, char **argv)
{
    tool_name = "gpu-scc";
    int use_cpu = 0, stats = 0, device = 0, c;
    gpu_scc_options opt;
    gpu_scc_default_options(&opt);
    char *end;
    enum { OPT_CPU = 256, OPT_STATS, OPT_NH, OPT_BFBT, OPT_NO_WARP, OPT_NO_TRANSPOSE, OPT_HOST_LOOP, OPT_SWEEP_TRIM, OPT_BLOCKS };
    static const struct option longopts[] = {{"cpu", no_argument, 0, OPT_CPU},
                                             {"stats", no_argument, 0, OPT_STATS},
                                             {"nh", no_argument, 0, OPT_NH},
                                             {"bfbt", no_argument, 0, OPT_BFBT},
                                             {"no-warp-aggregation", no_argument, 0, OPT_NO_WARP},
                                             {"no-transpose", no_argument, 0, OPT_NO_TRANSPOSE},
                                             {"host-loop", no_argument, 0, OPT_HOST_LOOP},
                                             {"sweep-trim", no_argument, 0, OPT_SWEEP_TRIM},
                                             {"blocks", required_argument, 0, OPT_BLOCKS},
                                             {"cache", required_argument, 0, 'c'},
                                             {"device", required_argument, 0, 'd'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    while ((c = getopt_long(argc, argv, "c:d:h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_CPU: use_cpu = 1; break;
        case OPT_STATS: stats = 1; break;
        case OPT_NH: opt.hybrid = 0; break;
        case OPT_BFBT: opt.bounding = 1; break;
        case OPT_NO_WARP: opt.warp_aggregation = 0; break;
        case OPT_NO_TRANSPOSE: opt.transpose = 0; break;
        case OPT_HOST_LOOP: opt.persistent = 0; break;
        case OPT_SWEEP_TRIM: opt.queue_trimming = 0; break;
        case OPT_BLOCKS:
            opt.persistent_blocks = (int)strtol(optarg, &end, 10);
            if (*end || end == optarg || opt.persistent_blocks < 1) {
                tool_error("bad block count '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'c':
            opt.cache_iterations = (int)strtol(optarg, &end, 10);
            if (*end || end == optarg || opt.cache_iterations < 0 || opt.cache_iterations > 64) {
                tool_error("bad local-cache iteration count '%s' (0 to 64)", optarg);
                return EXIT_USAGE;
            }
            break;
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
