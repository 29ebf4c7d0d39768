/*
 * gpu-vi - minimal and maximal reachability probabilities of a CSR MDP or
 * DTMC by interval (or value) iteration on the GPU.
 *
 *   gpu-vi -t LABEL [-a LABEL] -m max|min [-e EPS] [--abs|--rel] [--vi]
 *          [--max-iters N] [--mem-limit BYTES] [--threads-per-state N]
 *          [-o FILE] [--stats] [--cpu] [-d N] [file | -]
 *
 * Query: Pmax or Pmin of reaching a state labelled -t, only through states
 * not labelled -a (!a U t); -m is ignored for DTMCs.  Output: the value of
 * each initial state, one per line ("%.17g"), in increasing original state
 * order; -o FILE: every state's value, one per line, in PRISM's original
 * numbering (for labelcmp -n).
 * Algorithm (ref/reach.h, gpu/reach_vi.h): Prob0/Prob1 (Baier & Katoen
 * 10.6) on the GPU; for Pmax the MECs of the maybe states (gpu_mec_fb);
 * interval iteration (default; the answer is within eps of the exact value,
 * relative or absolute) or plain value iteration (--vi) on the GPU, after
 * Berger 2014 chapter 3.  When the system needs more device memory than is
 * free, or than --mem-limit, the split of Berger's section 3.3: SCCs (on the
 * GPU when they fit) in topological order, joined greedily while they fit,
 * solved in order; an SCC too large alone is solved on the CPU.
 * --cpu: the same algorithm, sequential (ref/reach.c), the benchmark baseline.
 * Exit 0 ok, 1 bad input or no convergence, 2 usage (unknown label, no GPU).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "reach.h"
#include "reach_vi.h"
#include "tool.h"

enum {
    OPT_ABS = GPU_OPT_TOOL, OPT_REL, OPT_VI, OPT_METHOD, OPT_MAX_ITERS, OPT_MEM_LIMIT, OPT_THREADS
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s -t LABEL [-a LABEL] -m max|min [options] [file | -]\n"
            "Pmax or Pmin of reaching the states labelled -t (through states not\n"
            "labelled -a) in a CSR model with probabilities and labels (prism2csr -l),\n"
            "standard input if no file.  Prints the value of each initial state.\n"
            "  -t LABEL               target label\n"
            "  -a LABEL               avoid label: the query is !a U t\n"
            "  -m max|min             maximal or minimal probability (ignored for a DTMC)\n"
            "  -e EPS                 precision, default 1e-6\n"
            "  --rel, --abs           relative (default) or absolute precision\n"
            "  --method ii|ovi|vi     ii: interval iteration (the default), a lower and an\n"
            "                         upper bound until within EPS; ovi: optimistic value\n"
            "                         iteration (GPU only), value iteration from below and\n"
            "                         a guessed upper bound verified, the same guarantee;\n"
            "                         vi: plain value iteration (stops when no value\n"
            "                         changes by more than EPS; no guarantee)\n"
            "  --vi                   the same as --method vi\n"
            "  --max-iters N          iteration limit per system, default %u\n"
            "  --mem-limit BYTES      split into SCC groups when the system needs more\n"
            "                         device memory (suffix k, M, G); default: free memory\n"
            "  --threads-per-state N  GPU threads per state's choices (1..32, power of 2)\n"
            "  -o FILE                every state's value, one per line, original numbering\n",
            tool_name, REACH_DEFAULT_MAX_ITERATIONS);
    fputs("Options of the SCC decomposition of the split (as gpu-scc):\n", out);
    gpu_tool_usage(out);
    fputs("Exit status: 0 ok, 1 bad input or no convergence, 2 usage, 3 no GPU or a GPU failure.\n", out);
}

static int parse_bytes(const char *arg, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    double mult = 1;
    if (*end == 'k' || *end == 'K')
        mult = 1e3, end++;
    else if (*end == 'M')
        mult = 1e6, end++;
    else if (*end == 'G')
        mult = 1e9, end++;
    if (errno || end == arg || *end || !(v >= 0) || v * mult > 1.8e19)
        return -1;
    *out = (uint64_t)(v * mult);
    return 0;
}

/* A label's states as flags, or a usage error that lists the labels present. */
static int label_flags(const csr_model *m, const char *name, uint8_t *flags)
{
    int64_t l = csr_find_label(m, name);
    if (l < 0) {
        fprintf(stderr, "%s: no label \"%s\"; the model's labels:", tool_name, name);
        for (uint64_t i = 0; i < m->labels.count; i++)
            fprintf(stderr, " %s", m->labels.names[i]);
        fputc('\n', stderr);
        return EXIT_USAGE;
    }
    memset(flags, 0, m->num_states);
    for (uint64_t j = m->label_first[l]; j < m->label_first[l + 1]; j++)
        flags[m->label_states[j]] = 1;
    return 0;
}

static int write_values(const char *path, const csr_model *m, const double *values)
{
    const uint64_t n = m->num_states;
    double *orig = (double *)malloc((n ? n : 1) * sizeof *orig);
    if (!orig)
        return -1;
    for (uint64_t s = 0; s < n; s++)
        orig[m->permutation ? m->permutation[s] : s] = values[s];
    FILE *f = fopen(path, "w");
    int rc = f ? 0 : -1;
    for (uint64_t s = 0; f && s < n; s++)
        fprintf(f, "%.17g\n", orig[s]);
    if (f && fclose(f))
        rc = -1;
    free(orig);
    return rc;
}

static int cmp_pair(const void *a, const void *b)
{
    const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* By enum reach_method. */
static const char *const method_names[] = {"ii", "vi", "ovi"};
static const char *const method_titles[] = {"interval iteration", "value iteration", "optimistic value iteration"};

int main(int argc, char **argv)
{
    tool_name = "gpu-vi";
    argv[0] = (char *)tool_name; /* getopt names the tool in its messages, not its path */
    gpu_tool_options o;
    gpu_tool_defaults(&o);
    reach_options ro;
    reach_default_options(&ro);
    const char *target = NULL, *avoid = NULL, *dir = NULL, *out_path = NULL;
    uint64_t mem_limit = 0;
    int have_limit = 0, threads = 0;
    static const struct option longopts[] = {GPU_LONG_OPTIONS,
                                             {"abs", no_argument, 0, OPT_ABS},
                                             {"rel", no_argument, 0, OPT_REL},
                                             {"vi", no_argument, 0, OPT_VI},
                                             {"method", required_argument, 0, OPT_METHOD},
                                             {"max-iters", required_argument, 0, OPT_MAX_ITERS},
                                             {"mem-limit", required_argument, 0, OPT_MEM_LIMIT},
                                             {"threads-per-state", required_argument, 0, OPT_THREADS},
                                             {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, GPU_SHORT_OPTIONS "t:a:m:e:o:", longopts, NULL)) != -1) {
        int done = gpu_tool_option(c, optarg, &o);
        if (done < 0)
            return EXIT_USAGE;
        if (done)
            continue;
        char *end;
        switch (c) {
        case 't': target = optarg; break;
        case 'a': avoid = optarg; break;
        case 'o': out_path = optarg; break;
        case 'm':
            if (strcmp(optarg, "max") && strcmp(optarg, "min")) {
                tool_error("-m takes max or min, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            dir = optarg;
            break;
        case 'e':
            errno = 0;
            ro.epsilon = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(ro.epsilon > 0) || !(ro.epsilon < 1)) {
                tool_error("-e takes a precision in (0, 1), not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_ABS: ro.relative = 0; break;
        case OPT_REL: ro.relative = 1; break;
        case OPT_VI: ro.method = REACH_VI; break;
        case OPT_METHOD:
            if (!strcmp(optarg, "ii"))
                ro.method = REACH_II;
            else if (!strcmp(optarg, "ovi"))
                ro.method = REACH_OVI;
            else if (!strcmp(optarg, "vi"))
                ro.method = REACH_VI;
            else {
                tool_error("--method takes ii, ovi or vi, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_MAX_ITERS: {
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end || v == 0 || optarg[0] == '-') {
                tool_error("--max-iters takes a positive whole number, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            ro.max_iterations = v;
            break;
        }
        case OPT_MEM_LIMIT:
            if (parse_bytes(optarg, &mem_limit)) {
                tool_error("--mem-limit takes a byte count (suffix k, M, G), not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            have_limit = 1;
            break;
        case OPT_THREADS: {
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 1 || v > 32 || (v & (v - 1))) {
                tool_error("--threads-per-state takes 1, 2, 4, 8, 16 or 32, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            threads = (int)v;
            break;
        }
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (gpu_tool_finish_options(&o))
        return EXIT_USAGE;
    if (o.use_cpu && ro.method == REACH_OVI) {
        tool_error("--method ovi runs on the GPU; the CPU reference iterates ii or vi");
        return EXIT_USAGE;
    }
    if (!target) {
        tool_error("no target label: -t LABEL is required");
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *path;
    csr_model m;
    gpu_tool_times times;
    int exit_status = gpu_tool_load(argc, argv, usage, o.use_cpu, o.device, &path, &m, &times);
    if (exit_status)
        return exit_status;
    const double t0 = times.read_start;
    const char *name = tool_input_name(path);
    const uint64_t n = m.num_states, nc = m.num_choices;
    if (!m.probabilities) {
        tool_error("%s: no probabilities (a graph-only CSR file); convert with prism2csr", name);
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    if (!m.labels.count) {
        tool_error("%s: no labels; convert with prism2csr -l FILE.lab", name);
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    if (m.model_type == CSR_MDP && !dir) {
        tool_error("%s is an MDP: say -m max or -m min", name);
        csr_free(&m);
        return EXIT_USAGE;
    }
    uint8_t *tflags = (uint8_t *)malloc(n ? n : 1), *aflags = avoid ? (uint8_t *)malloc(n ? n : 1) : NULL;
    double *values = (double *)malloc((n ? n : 1) * sizeof(double));
    int status_code = EXIT_OK, rc = CSR_OK;
    csr_status st;
    memset(&st, 0, sizeof st);
    reach_stats rs;
    memset(&rs, 0, sizeof rs);
    gpu_reach_context cx;
    memset(&cx, 0, sizeof cx);
    cx.threads_per_state = threads;
    cx.scc = o.scc;
    cx.status = &st;
    reach_backend gpu;
    gpu_reach_backend(&cx, &gpu);
    if (!tflags || (avoid && !aflags) || !values) {
        rc = CSR_ERR_NOMEM;
        goto done;
    }
    if ((status_code = label_flags(&m, target, tflags)) || (avoid && (status_code = label_flags(&m, avoid, aflags))))
        goto done;
    if (aflags)
        for (uint64_t s = 0; s < n; s++)
            aflags[s] = aflags[s] && !tflags[s];
    {
        reach_query q = {tflags, aflags, m.model_type == CSR_MDP ? !strcmp(dir, "max") : 1};
        uint64_t budget = have_limit ? mem_limit : o.use_cpu ? UINT64_MAX : gpu_free_memory() / 10 * 9;
        rc = reach_solve(&m, &q, &ro, budget, o.use_cpu ? NULL : &gpu, values, &rs);
        if (rc == CSR_ERR_STALLED) {
            tool_error("%s: the values stopped changing at a difference of %g > %g (the floating-point resolution "
                       "of these values): ask for a larger -e",
                       name, rs.final_difference, ro.epsilon);
            status_code = EXIT_BAD_INPUT;
            rc = CSR_OK; /* said */
            goto done;
        }
        if (rc == CSR_ERR_NOT_CONVERGED) {
            tool_error("%s: no convergence within %llu iterations (difference %g > %g); raise --max-iters", name,
                       (unsigned long long)ro.max_iterations, rs.final_difference, ro.epsilon);
            status_code = EXIT_BAD_INPUT;
            rc = CSR_OK; /* said */
            goto done;
        }
        if (rc)
            goto done;
    }
    {
        /* initial states in increasing original order */
        uint64_t *pairs = (uint64_t *)malloc((m.num_initial ? m.num_initial : 1) * 2 * sizeof *pairs);
        if (!pairs) {
            rc = CSR_ERR_NOMEM;
            goto done;
        }
        for (uint64_t i = 0; i < m.num_initial; i++) {
            uint64_t s = m.initial_states[i];
            pairs[2 * i] = m.permutation ? m.permutation[s] : s;
            pairs[2 * i + 1] = s;
        }
        qsort(pairs, m.num_initial, 2 * sizeof *pairs, cmp_pair);
        if (out_path && write_values(out_path, &m, values)) {
            tool_error("%s: %s", out_path, strerror(errno));
            free(pairs);
            status_code = EXIT_BAD_INPUT;
            goto done;
        }
        for (uint64_t i = 0; i < m.num_initial; i++)
            printf("%.17g\n", values[pairs[2 * i + 1]]);
        free(pairs);
        if (fflush(stdout) || ferror(stdout)) {
            tool_error("(stdout): write error");
            status_code = EXIT_BAD_INPUT;
            goto done;
        }
    }
    if (o.stats == GPU_STATS_JSON) {
        json_t *j = gpu_stats_json_begin(&m, &times);
        json_object_set_new(j, "yes", json_integer((json_int_t)rs.yes));
        json_object_set_new(j, "no", json_integer((json_int_t)rs.no));
        json_object_set_new(j, "maybe", json_integer((json_int_t)rs.maybe));
        json_object_set_new(j, "mecs", json_integer((json_int_t)rs.mecs));
        json_object_set_new(j, "mec_states", json_integer((json_int_t)rs.mec_states));
        json_object_set_new(j, "method", json_string(method_names[ro.method]));
        json_object_set_new(j, "split", json_boolean(rs.split));
        json_object_set_new(j, "groups", json_integer((json_int_t)rs.groups));
        json_object_set_new(j, "sccs", json_integer((json_int_t)rs.sccs));
        json_object_set_new(j, "cpu_groups", json_integer((json_int_t)rs.cpu_groups));
        json_object_set_new(j, "iterations", json_integer((json_int_t)rs.iterations));
        json_object_set_new(j, "final_difference", json_real(rs.final_difference));
        json_object_set_new(j, "bytes_needed", json_integer((json_int_t)rs.bytes_needed));
        json_object_set_new(j, "prob01_s", json_real(rs.prob01_s));
        json_object_set_new(j, "mec_s", json_real(rs.mec_s));
        json_object_set_new(j, "split_s", json_real(rs.split_s));
        json_object_set_new(j, "iterate_s", json_real(rs.iterate_s));
        if (!o.use_cpu) {
            json_object_set_new(j, "prob01_levels", json_integer((json_int_t)cx.prob01_sweeps));
            json_object_set_new(j, "prob01_on_cpu", json_boolean(cx.prob01_on_cpu));
            json_object_set_new(j, "threads_per_state", json_integer(cx.used_threads));
            json_object_set_new(j, "compact_s", json_real(cx.compact_s));
            json_object_set_new(j, "upload_s", json_real(cx.h2d_s));
            json_object_set_new(j, "gpu_iterate_s", json_real(cx.iterate_s));
            json_object_set_new(j, "probability_dictionary", json_boolean(cx.used_dictionary));
            json_object_set_new(j, "ovi_guesses", json_integer((json_int_t)cx.ovi_guesses));
            json_object_set_new(j, "device_bytes", json_integer((json_int_t)cx.device_bytes));
        }
        gpu_stats_json_print(j);
    } else if (o.stats) {
        fprintf(stderr,
                "%s: %llu states, %llu choices, %llu transitions; Prob1 %llu, Prob0 %llu, maybe %llu states; "
                "%llu MECs with %llu states collapsed\n",
                tool_name, (unsigned long long)n, (unsigned long long)nc, (unsigned long long)m.num_transitions,
                (unsigned long long)rs.yes, (unsigned long long)rs.no, (unsigned long long)rs.maybe,
                (unsigned long long)rs.mecs, (unsigned long long)rs.mec_states);
        fprintf(stderr,
                "%s: %s, %s path: %llu groups (%llu SCCs, %llu on the CPU), %llu iterations, final difference %.3g "
                "(%s); memory needed %llu bytes\n",
                tool_name, method_titles[ro.method], rs.split ? "split" : "whole",
                (unsigned long long)rs.groups, (unsigned long long)rs.sccs, (unsigned long long)rs.cpu_groups,
                (unsigned long long)rs.iterations, rs.final_difference, ro.relative ? "relative" : "absolute",
                (unsigned long long)rs.bytes_needed);
        fprintf(stderr,
                "%s: read %.4f s, waiting for the CUDA context %.4f s, Prob0/Prob1 %.4f s, MECs %.4f s, SCCs %.4f s, "
                "iteration %.4f s\n",
                tool_name, times.read_end - t0, times.device_ready - times.read_end, rs.prob01_s, rs.mec_s, rs.split_s,
                rs.iterate_s);
        if (!o.use_cpu)
            fprintf(stderr,
                    "%s: GPU: %llu Prob0/Prob1 search levels%s; %d threads per state%s%s; compaction %.4f s, host-to-device "
                    "%.4f s, iterations %.4f s (%.1f us each, about %.1f GB/s), device-to-host %.4f s; %llu device "
                    "bytes\n",
                    tool_name, (unsigned long long)cx.prob01_sweeps, cx.prob01_on_cpu ? " (on the CPU: too large)" : "",
                    cx.used_threads,
                    cx.used_rows ? " (a warp per choice)" : "",
                    cx.used_dictionary ? ", probabilities by dictionary" : "", cx.compact_s, cx.h2d_s, cx.iterate_s,
                    rs.iterations ? 1e6 * cx.iterate_s / (double)rs.iterations : 0.0,
                    cx.iterate_s > 0 && rs.groups == 1 ? (double)cx.bytes_per_iteration * (double)rs.iterations /
                                                             cx.iterate_s / 1e9
                                                       : 0.0,
                    cx.d2h_s, (unsigned long long)cx.device_bytes);
    }
done:
    if (!o.use_cpu)
        gpu_reach_release(&cx);
    if (rc) {
        tool_report_failure(path, rc, &st);
        status_code = rc == CSR_ERR_DEVICE ? EXIT_DEVICE : EXIT_BAD_INPUT;
    }
    free(tflags);
    free(aflags);
    free(values);
    csr_free(&m);
    return status_code;
}
