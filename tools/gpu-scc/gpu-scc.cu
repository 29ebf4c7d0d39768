/*
 * gpu-scc - SCC decomposition of a CSR model on the GPU.
 *
 *   gpu-scc [--cpu] [--engine lp|fb|auto] [--peel|--no-peel] [--stats[=json]]
 *           [fb: -c N --nh --bfbt --no-warp-aggregation --no-transpose
 *            --sweep-trim --host-loop] [--blocks N] [-d N]
 *           [-g N] [--gpus LIST] [--exchange auto|copies|nccl] [file | -] > labels
 *
 * Output: a label file (man/labelcmp.1): one line per state, in the model's
 * original numbering (restructured input is mapped back through its
 * permutation), the smallest state of the state's SCC, so that runs, engines
 * and configurations compare byte for byte.
 * GPU: the engines of gpu/scc.h: lp, label propagation after ECL-SCC
 * (Alabandi et al., SC'23) with asynchronous peeling (the default); fb,
 * forward-backward search with trimming (Wijs, Katoen & Bosnacki, FMSD 2016,
 * Algorithms 1, 2, 3, 4 and 6).  --cpu: iterative Tarjan (ref/scc_tarjan.c).
 * -g N / --gpus LIST: the model split into N parts over the GPUs (gpu/multi.h,
 * issue 18; several parts a GPU where fewer are there: the simulated mode),
 * label propagation over the parts; with --cpu the same rounds on the CPU
 * (ref_scc_partitioned).
 * Exit 0 ok, 1 bad input or failure, 2 usage or no GPU.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "labels.h"
#include "multi.h"
#include "partition.h"
#include "ref.h"
#include "scc.h"
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
    gpu_tool_parts_usage(out);
    fputs("Exit status: 0 ok, 1 bad input, 2 usage, 3 no GPU or a GPU failure.\n", out);
}

int main(int argc, char **argv)
{
    tool_start("gpu-scc");
    argv[0] = (char *)tool_name; /* getopt names the tool in its messages, not its path */
    gpu_tool_options o;
    gpu_tool_defaults(&o);
    static const struct option longopts[] = {GPU_LONG_OPTIONS, GPU_PARTS_LONG_OPTIONS, {0, 0, 0, 0}};
    gpu_tool_parts x;
    memset(&x, 0, sizeof x);
    int c;
    while ((c = getopt_long(argc, argv, GPU_SHORT_OPTIONS GPU_PARTS_SHORT_OPTIONS, longopts, NULL)) != -1) {
        int done = gpu_tool_option(c, optarg, &o);
        if (!done)
            done = gpu_tool_parts_option(c, optarg, &x);
        if (done < 0)
            return EXIT_USAGE;
        if (done)
            continue;
        if (c == 'h') {
            usage(stdout);
            return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
        }
        usage(stderr);
        return EXIT_USAGE;
    }
    if (gpu_tool_finish_options(&o))
        return EXIT_USAGE;
    gpu_tool_parts_finish(&x, &o);
    const int parts = x.parts;
    gpu_parts_options &po = x.options;
    const int use_cpu = o.use_cpu, stats = o.stats, device = o.device;
    const gpu_scc_options opt = o.scc;
    const char *path;
    csr_model m;
    gpu_tool_times times;
    int exit_status = gpu_tool_load(argc, argv, usage, use_cpu, device, &path, &m, &times);
    if (exit_status)
        return exit_status;
    const double t0 = times.read_start, t1 = times.read_end;
    uint64_t n = m.num_states;
    uint64_t *comp = (uint64_t *)malloc((n ? n : 1) * sizeof *comp);
    int rc = comp ? CSR_OK : CSR_ERR_NOMEM;
    csr_status st;
    memset(&st, 0, sizeof st);
    gpu_scc_stats gst;
    memset(&gst, 0, sizeof gst);
    gpu_parts_stats pst;
    memset(&pst, 0, sizeof pst);
    if (!rc && parts && use_cpu) { /* label propagation with trimming first and between phases, over the parts
                                    (as the GPUs) */
        csr_partition p;
        ref_scc_parts_stats rs;
        rc = gpu_tool_partition(&m, po.parts, &p, &pst, &st);
        if (!rc) {
            rc = ref_scc_partitioned(&m, &p, 1, comp, &rs);
            csr_partition_free(&p);
            pst.trimmed = rs.trimmed;
            pst.trim_rounds = rs.trim_rounds;
            pst.phases = rs.phases;
            pst.rounds = rs.rounds;
        }
    } else if (!rc && parts) {
        if (gpu_tool_parts_devices(&x)) {
            free(comp);
            csr_free(&m);
            return EXIT_DEVICE;
        }
        uint32_t *scc = (uint32_t *)malloc((n ? n : 1) * sizeof *scc);
        rc = scc ? gpu_scc_partitioned(&m, &po, scc, &pst, &st) : CSR_ERR_NOMEM;
        for (uint64_t s = 0; !rc && s < n; s++)
            comp[s] = scc[s];
        free(scc);
        if (rc == CSR_ERR_USAGE) {
            tool_error("%s", st.detail);
            free(comp);
            csr_free(&m);
            return EXIT_USAGE;
        }
    } else if (!rc && use_cpu) {
        rc = ref_scc_tarjan(&m, NULL, NULL, comp, NULL); /* counted below, as for the GPU */
    } else if (!rc) {
        uint32_t *scc = (uint32_t *)malloc((n ? n : 1) * sizeof *scc);
        rc = scc ? gpu_scc_decompose(&m, &opt, scc, &gst, &st) : CSR_ERR_NOMEM;
        for (uint64_t s = 0; !rc && s < n; s++)
            comp[s] = scc[s];
        free(scc);
    }
    double t2 = tool_seconds();
    if (rc) {
        tool_report_failure(path, rc, &st);
        if (!parts && !use_cpu)
            gpu_tool_memory_advice(rc, &st, "the decomposition", gpu_scc_bytes_needed(&m, &opt));
        free(comp);
        csr_free(&m);
        return rc == CSR_ERR_DEVICE ? EXIT_DEVICE : EXIT_BAD_INPUT;
    }
    /* SCCs and trivial SCCs (one state without a self-loop), in the model's numbering. */
    uint64_t sccs = 0, trivial = 0;
    if (stats) {
        uint64_t *size = (uint64_t *)calloc(n ? n : 1, sizeof *size);
        for (uint64_t s = 0; size && s < n; s++)
            size[comp[s]]++;
        for (uint64_t s = 0; size && s < n; s++)
            if (size[s]) {
                sccs++;
                trivial += size[s] == 1 && !ref_has_self_loop(&m, NULL, s);
            }
        free(size);
    }
    if (labels_to_original(&m, comp, comp) || labels_write(stdout, comp, n)) {
        tool_error("(stdout): write error");
        free(comp);
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    double t3 = tool_seconds();
    if (stats) {
        if (stats == GPU_STATS_JSON) {
            json_t *j = gpu_stats_json_begin(&m, &times);
            json_object_set_new(j, "sccs", json_integer((json_int_t)sccs));
            json_object_set_new(j, "trivial_sccs", json_integer((json_int_t)trivial));
            json_object_set_new(j, "write_s", json_real(t3 - t2));
            json_object_set_new(j, "total_s", json_real(t3 - t0));
            if (parts) {
                json_object_set_new(j, "engine", json_string(use_cpu ? "lp-parts-cpu" : "lp-parts"));
                gpu_stats_json_parts(j, &x, &pst, use_cpu);
                json_object_set_new(j, "trimmed", json_integer((json_int_t)pst.trimmed));
                json_object_set_new(j, "trim_rounds", json_integer((json_int_t)pst.trim_rounds));
                json_object_set_new(j, "phases", json_integer((json_int_t)pst.phases));
                json_object_set_new(j, "rounds", json_integer((json_int_t)pst.rounds));
                json_object_set_new(j, "decompose_s", json_real(use_cpu ? t2 - t1 : pst.resident_s));
            } else if (use_cpu) {
                json_object_set_new(j, "engine", json_string("tarjan"));
                json_object_set_new(j, "decompose_s", json_real(t2 - t1));
            } else {
                gpu_stats_json_scc(j, &gst);
                json_object_set_new(j, "decompose_s", json_real(gst.resident_s));
                json_object_set_new(j, "gpu_s", json_real(gst.upload_s + gst.resident_s + gst.download_s));
            }
            gpu_stats_json_print(j);
        } else {
            fprintf(stderr,
                    "%s: %llu states, %llu transitions: %llu SCCs (%llu trivial); read %.3f s, %s %.4f s, "
                    "write %.3f s\n",
                    tool_name, (unsigned long long)n, (unsigned long long)m.num_transitions,
                    (unsigned long long)sccs, (unsigned long long)trivial, t1 - t0,
                    parts ? (use_cpu ? "parts on the CPU" : "parts on the GPUs") : use_cpu ? "Tarjan" : "GPU",
                    t2 - t1, t3 - t2);
            if (parts)
                fprintf(stderr,
                        "%s: %d parts: %llu states trimmed in %llu rounds (first and between phases), %llu phases, "
                        "%llu rounds",
                        tool_name, parts, (unsigned long long)pst.trimmed, (unsigned long long)pst.trim_rounds,
                        (unsigned long long)pst.phases, (unsigned long long)pst.rounds);
            if (parts && !use_cpu)
                fprintf(stderr, ", %llu relaxation passes; %llu foreign states, %llu bytes exchanged by %s",
                        (unsigned long long)pst.passes, (unsigned long long)pst.foreign,
                        (unsigned long long)pst.exchanged_bytes, pst.exchange);
            if (parts)
                fputc('\n', stderr);
            if (!use_cpu && !parts)
                gpu_stats_text_scc(&gst);
        }
    }
    free(comp);
    csr_free(&m);
    return EXIT_OK;
}
