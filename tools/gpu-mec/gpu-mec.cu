/*
 * gpu-mec - maximal end component (MEC) decomposition of a CSR MDP on the GPU.
 *
 *   gpu-mec [--cpu] [--scheme interleave|rounds|auto] [--j-set]
 *           [--engine lp|fb|auto] [--stats[=json]] [fb: -c N --nh --bfbt
 *           --no-warp-aggregation --no-transpose --sweep-trim --host-loop]
 *           [--blocks N] [-d N] [-g N] [--gpus LIST] [--exchange auto|copies|nccl]
 *           [file | -] > labels
 *
 * Output: a label file (man/labelcmp.1): one line per state, in the model's
 * original numbering (restructured input is mapped back through its
 * permutation), the smallest state of the state's MEC, or "-" for a state in
 * no MEC.  A DTMC is an MDP with one choice per state: its MECs are its
 * bottom SCCs.
 * GPU: gpu/mec.h: the round-based scheme of Wijs, Katoen & Bosnacki, FMSD
 * 2016, sections 2.3, 2.4, 5.3, 6, Algorithm 7, on any SCC engine of
 * gpu/scc.h (options as gpu-scc; the default), or the interleaved scheme
 * (leaving choices and attractors removed eagerly by peeling
 * inside the label-propagation engine).  --cpu: the basic sequential MEC algorithm
 * of the article's section 2.3 (ref/mec_basic.c); it and the round-based
 * scheme count the same rounds, removed states and removed choices.
 * -g N / --gpus LIST: the model split into N parts over the GPUs (gpu/multi.h,
 * issue 18; several parts a GPU where fewer are there: the simulated mode),
 * the MEC rounds over the parts (ref_mec_partitioned's rounds); with --cpu
 * the same rounds on the CPU.
 * Exit 0 ok, 1 bad input or failure, 2 usage or no GPU.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "labels.h"
#include "mec.h"
#include "multi.h"
#include "ref.h"
#include "tool.h"

enum { OPT_J_SET = GPU_OPT_TOOL, OPT_SCHEME };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [options] [file | -] > labels\n"
            "Decompose a CSR model (standard input if no file) into maximal end\n"
            "components; print each state's MEC id (its smallest state) or - for a\n"
            "state in no MEC, one per line.  The CPU reference is the basic MEC\n"
            "algorithm; the other options set the GPU's SCC engine, as in gpu-scc.\n"
            "  --scheme S             rounds: FMSD Algorithm 7, one SCC decomposition a\n"
            "                         round; interleave (lp engine): leaving choices and\n"
            "                         attractors removed inside the SCC computation by\n"
            "                         peeling; auto (the default): interleave below 3\n"
            "                         transitions a state, else rounds\n"
            "  --j-set                rounds, fb: from the second round on, first pivots\n"
            "                         only among the states that lost a choice (FMSD 5.3)\n",
            tool_name);
    gpu_tool_usage(out);
    gpu_tool_parts_usage(out);
    fputs("Exit status: 0 ok, 1 bad input, 2 usage, 3 no GPU or a GPU failure.\n", out);
}

int main(int argc, char **argv)
{
    tool_start("gpu-mec");
    argv[0] = (char *)tool_name; /* getopt names the tool in its messages, not its path */
    gpu_tool_options o;
    gpu_tool_defaults(&o);
    gpu_mec_options opt;
    gpu_mec_default_options(&opt);
    static const struct option longopts[] = {GPU_LONG_OPTIONS, GPU_PARTS_LONG_OPTIONS,
                                             {"j-set", no_argument, 0, OPT_J_SET},
                                             {"scheme", required_argument, 0, OPT_SCHEME},
                                             {0, 0, 0, 0}};
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
        if (c == OPT_J_SET) {
            opt.j_set = 1;
            o.fb_option = "--j-set";
        } else if (c == OPT_SCHEME) {
            if (gpu_tool_parse_mec_scheme(optarg, &opt.scheme) < 0)
                return EXIT_USAGE;
        } else if (c == 'h') {
            usage(stdout);
            return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
        } else {
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (gpu_tool_finish_options(&o))
        return EXIT_USAGE;
    gpu_tool_parts_finish(&x, &o);
    const int parts = x.parts;
    opt.scc = o.scc;
    if (gpu_tool_check_mec_scheme(opt.scheme, &opt.scc))
        return EXIT_USAGE;
    const char *path;
    csr_model m;
    gpu_tool_times times;
    int exit_status = gpu_tool_load(argc, argv, usage, o.use_cpu, o.device, &path, &m, &times);
    if (exit_status)
        return exit_status;
    const double t0 = times.read_start, t1 = times.read_end;
    const uint64_t n = m.num_states;
    uint64_t *mec = (uint64_t *)malloc((n ? n : 1) * sizeof *mec);
    int rc = mec ? CSR_OK : CSR_ERR_NOMEM;
    csr_status st;
    memset(&st, 0, sizeof st);
    ref_mec_stats rst;
    memset(&rst, 0, sizeof rst);
    gpu_mec_stats gst;
    memset(&gst, 0, sizeof gst);
    gpu_parts_stats pst;
    memset(&pst, 0, sizeof pst);
    if (!rc && parts) { /* the MEC rounds over the parts, on the GPUs or as they run them on the CPU */
        if (!o.use_cpu && gpu_tool_parts_devices(&x)) {
            free(mec);
            csr_free(&m);
            return EXIT_DEVICE;
        }
        rc = gpu_tool_mec_parts(&m, &x.options, o.use_cpu, mec, &rst, &pst, &st);
        if (rc == CSR_ERR_USAGE) {
            tool_error("%s", st.detail);
            free(mec);
            csr_free(&m);
            return EXIT_USAGE;
        }
    } else if (!rc && o.use_cpu) {
        rc = ref_mec_basic(&m, mec, &rst);
    } else if (!rc) {
        uint32_t *ids = (uint32_t *)malloc((n ? n : 1) * sizeof *ids);
        rc = ids ? gpu_mec_decompose(&m, &opt, ids, &gst, &st) : CSR_ERR_NOMEM;
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
        tool_report_failure(path, rc, &st);
        if (!parts && !o.use_cpu)
            gpu_tool_memory_advice(rc, &st, "the decomposition", gpu_mec_bytes_needed(&m, &opt));
        free(mec);
        csr_free(&m);
        return rc == CSR_ERR_DEVICE ? EXIT_DEVICE : EXIT_BAD_INPUT;
    }
    if (labels_to_original(&m, mec, mec) || labels_write(stdout, mec, n)) {
        tool_error("(stdout): write error");
        free(mec);
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    double t3 = tool_seconds();
    if (o.stats == GPU_STATS_JSON) {
        json_t *j = gpu_stats_json_begin(&m, &times);
        json_object_set_new(j, "mecs", json_integer((json_int_t)rst.mecs));
        json_object_set_new(j, "states_in_mecs", json_integer((json_int_t)rst.states_in_mecs));
        json_object_set_new(j, "rounds", json_integer((json_int_t)rst.rounds));
        json_object_set_new(j, "removed_states", json_integer((json_int_t)rst.removed_states));
        json_object_set_new(j, "removed_choices", json_integer((json_int_t)rst.removed_choices));
        json_object_set_new(j, "write_s", json_real(t3 - t2));
        json_object_set_new(j, "total_s", json_real(t3 - t0));
        if (parts) {
            json_object_set_new(j, "scheme", json_string(o.use_cpu ? "rounds-parts-cpu" : "rounds-parts"));
            gpu_stats_json_parts(j, &x, &pst, o.use_cpu);
            json_object_set_new(j, "phases", json_integer((json_int_t)pst.phases));
            json_object_set_new(j, "lp_rounds", json_integer((json_int_t)pst.rounds));
            json_object_set_new(j, "attractor_rounds", json_integer((json_int_t)pst.attractor_rounds));
            json_object_set_new(j, "decompose_s", json_real(o.use_cpu ? t2 - t1 : pst.resident_s));
        } else if (o.use_cpu) {
            json_object_set_new(j, "scheme", json_string("basic"));
            json_object_set_new(j, "decompose_s", json_real(t2 - t1));
        } else {
            json_object_set_new(j, "scheme", json_string(gst.scheme));
            json_object_set_new(j, "attractor_levels", json_integer((json_int_t)gst.attractor_levels));
            json_t *scc = json_object();
            gpu_stats_json_scc(scc, &gst.scc);
            json_object_set_new(j, "scc", scc);
            json_object_set_new(j, "device_bytes_planned", json_integer((json_int_t)gst.device_bytes_planned));
            json_object_set_new(j, "device_bytes_allocated", json_integer((json_int_t)gst.device_bytes_allocated));
            json_object_set_new(j, "upload_s", json_real(gst.upload_s));
            json_object_set_new(j, "decompose_s", json_real(gst.resident_s));
            json_object_set_new(j, "download_s", json_real(gst.download_s));
            json_object_set_new(j, "gpu_s", json_real(gst.upload_s + gst.resident_s + gst.download_s));
        }
        gpu_stats_json_print(j);
    } else if (o.stats) {
        fprintf(stderr,
                "%s: %llu states, %llu choices, %llu transitions: %llu MECs with %llu states; "
                "%llu rounds, %llu states and %llu choices removed; read %.3f s, MEC %.3f s, write %.3f s\n",
                tool_name, (unsigned long long)n, (unsigned long long)m.num_choices,
                (unsigned long long)m.num_transitions, (unsigned long long)rst.mecs,
                (unsigned long long)rst.states_in_mecs, (unsigned long long)rst.rounds,
                (unsigned long long)rst.removed_states, (unsigned long long)rst.removed_choices, t1 - t0, t2 - t1,
                t3 - t2);
        if (parts) {
            fprintf(stderr, "%s: %d parts%s: %llu label-propagation phases, %llu rounds; %llu attractor rounds",
                    tool_name, parts, o.use_cpu ? " on the CPU" : "", (unsigned long long)pst.phases,
                    (unsigned long long)pst.rounds, (unsigned long long)pst.attractor_rounds);
            if (!o.use_cpu)
                fprintf(stderr, "; %llu foreign states, %llu bytes exchanged by %s", (unsigned long long)pst.foreign,
                        (unsigned long long)pst.exchanged_bytes, pst.exchange);
            fputc('\n', stderr);
        } else if (!o.use_cpu) {
            fprintf(stderr,
                    "%s: scheme %s: GPU upload %.4f s, resident %.4f s, download %.4f s; %llu attractor levels; "
                    "device memory planned %.1f MB, allocated %.1f MB\n",
                    tool_name, gst.scheme, gst.upload_s, gst.resident_s, gst.download_s,
                    (unsigned long long)gst.attractor_levels, (double)gst.device_bytes_planned / 1e6,
                    (double)gst.device_bytes_allocated / 1e6);
            gpu_stats_text_scc(&gst.scc);
        }
    }
    free(mec);
    csr_free(&m);
    return EXIT_OK;
}
