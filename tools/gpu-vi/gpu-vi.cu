/*
 * gpu-vi - the properties of a CSR MDP or DTMC, as PRISM and Storm users
 * write them, on the GPU: Pmin/Pmax reachability, step and reward bounds,
 * expected rewards, bound queries and filters over state variables,
 * constants, formulas and labels.
 *
 *   gpu-vi -t LABEL [-a LABEL] -m max|min [options] [file | -]
 *   gpu-vi -p PROPERTY... | -P FILE [--const N=V,...] [--property NAME,...] [--json] [options] [file | -]
 *
 * The outline (netpbm's skeleton): the options; the properties (format/
 * props.h: -t/-a/-m as P{max|min}=? [ !"a" U "t" ], -p, a properties file
 * -P, PRISM's -const); the model (gpu_tool_load: read while the CUDA
 * context starts); the engine that holds it for the run (the GPU's with
 * the model resident on the device, gpu/reach_gpu.h; -g's parts; --cpu's
 * sequential references); the properties bound to its variables and
 * labels; each property checked (check/check.h: its queries of
 * check/reach.h on the engine, its bound, its filter) and printed on its
 * own, a failure on its own line while the others are answered.
 * Output: "PROPERTY: value" per property (its name where it has one), with
 * PRISM's state numbers ("s=value ...") where there are several initial
 * states; a bound's truth as true/false; a filter's one result; -t alone:
 * the values, one a line.  --json: one object, per property answered its
 * name (null if none), text, and the values of the initial states (booleans
 * for bound queries) or the filter's; those without an answer under
 * "errors", each with its "error".  -o FILE: every state's value, one per line, in
 * PRISM's original numbering (one property); --export-scheduler:
 * reach_scheduler's choices.
 * Exit 0 ok; 1 bad input, a property whose computation failed (no
 * convergence, stalled), or no property answered; a property refused (an
 * unknown name or label, a form not supported) is said on its own line and
 * fails the run only where nothing was answered; 2 usage; 3 no GPU or a GPU
 * failure.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gpu.h"
#include "hugepages.h"
#include "multi.h"
#include "props.h"
#include "reach.h"
#include "reach_gpu.h"
#include "reach_parts.h"
#include "reach_ref.h"
#include "reach_system.h"
#include "tool.h"

/* Below this many transitions the CPU answers before the GPU would have
 * started (the process, the driver and the context: bench/RESULTS.md). */
#define GPU_VI_CPU_BELOW 100000u

/* --cpu-below's count; a model of up to GPU_TOOL_JUDGED times as many
 * transitions is answered on the CPU too where no SCC holds an eighth of
 * that (cpu_pays). */
#define CPU_PAYS_SCC 8
static uint64_t cpu_below_count = GPU_VI_CPU_BELOW;

/*
 * Whether the CPU's topological solver answers model m sooner than the GPU
 * would start: no SCC of several states with cpu_below_count / CPU_PAYS_SCC
 * transitions or more (ref_scc_tarjan; the maybe states' SCCs lie within
 * the model's; the largest of QVBS's below 2e5 states: egl none, crowds 285,
 * firewire 3,247, wlan 3 25,940, consensus N=4 K=4 41,488 (a core of 41,342
 * states that Gauss-Seidel sweeps 2,000 times: the GPU's), zeroconf 142,794).
 * Such SCCs it solves one by one, a few sweeps each, and the states alone
 * one step each, successors first, in time about linear in the model (egl
 * N=5 L=8, 157,693 transitions in SCCs of one state: 0.13 s on the CPU
 * against 0.67 s on a lent H100, whose start is 0.4 s of that).  Out of
 * memory: no (the GPU then).
 */
static int cpu_pays(const csr_model *m)
{
    uint64_t *comp = (uint64_t *)malloc((m->num_states ? m->num_states : 1) * sizeof *comp);
    uint64_t *size = (uint64_t *)calloc(m->num_states ? m->num_states : 1, sizeof *size);
    ref_scc_stats st;
    int pays = 0;
    if (comp && size && ref_scc_tarjan(m, NULL, NULL, comp, &st) == CSR_OK) {
        /* size[c]: the transitions of SCC c's states (comp: the SCC's smallest state) */
        uint64_t largest = 0;
        for (uint64_t s = 0; s < m->num_states; s++) {
            const uint64_t c = comp[s];
            size[c] += m->choice_transitions[m->state_choices[s + 1]] - m->choice_transitions[m->state_choices[s]];
            if (c != s && size[c] > largest) /* (an SCC of several states) */
                largest = size[c];
        }
        pays = largest < cpu_below_count / CPU_PAYS_SCC;
    }
    free(comp);
    free(size);
    return pays;
}

enum {
    OPT_ABS = GPU_OPT_TOOL, OPT_REL, OPT_VI, OPT_METHOD, OPT_TOPOLOGICAL, OPT_NO_TOPOLOGICAL, OPT_CPU_BELOW, OPT_MAX_ITERS, OPT_MEM_LIMIT, OPT_THREADS, OPT_JSON,
    OPT_SCHEDULER, OPT_SWEEP_CLASSES, OPT_SCHEME, OPT_CONST, OPT_PROPERTY
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s -t LABEL [-a LABEL] -m max|min [options] [file | -]\n"
            "       %s -p PROPERTY... | -P FILE [--const N=V,...] [--property NAME,...] [options] [file | -]\n"
            "PRISM properties of a CSR model with probabilities (prism2csr; labels from a\n"
            "UMB export or -l FILE.lab, state variables from its valuations or -s\n"
            "FILE.sta, reward structures from a UMB export or -r), standard input if no\n"
            "file.  Prints each property's value in the initial states.\n"
            "  -p PROPERTY            a property in PRISM's syntax, repeatable:\n"
            "                         P=?, Pmin=?, Pmax=? or a bound (P>=0.5, P<1) of\n"
            "                         [ F phi ], [ phi U psi ], [ G phi ], [ X phi ], with\n"
            "                         step bounds (F<=k, U<k) or reward bounds (F{\"r\"}<=k,\n"
            "                         F^{rew{\"r\"}>=k}); R{\"r\"}min=?, Rmax=? or a bound of\n"
            "                         [ F phi ] (Infinity where phi is missed), [ C<=k ],\n"
            "                         [ I=k ]; filter(op, property, states); phi and psi\n"
            "                         over state variables, constants and \"labels\" with\n"
            "                         PRISM's operators and functions; \"name\": PROPERTY\n"
            "  -P FILE                a PRISM properties file: properties (named or not,\n"
            "                         across lines), const, formula and label definitions\n"
            "  --const N=V,...        the values of constants (PRISM's -const): the file's\n"
            "                         undefined ones, or the model's\n"
            "  --property NAME,...    only these properties (names, or numbers from 1)\n"
            "  --json                 the answers as one JSON object on standard output\n"
            "  -t LABEL               target label\n"
            "  -a LABEL               avoid label: the query is !a U t\n"
            "  -m max|min             maximal or minimal probability (ignored for a DTMC)\n"
            "  -e EPS                 precision, default 1e-6\n"
            "  --rel, --abs           relative (default) or absolute precision\n"
            "  --method pi|ii|ovi|vi  pi (the default): certified policy iteration, the\n"
            "                         optimal scheduler's chain solved by IDR(4) and bounds\n"
            "                         around it checked as a post- and a pre-fixpoint,\n"
            "                         interval iteration where that does not reach EPS;\n"
            "                         ii: interval iteration, a lower and an upper bound\n"
            "                         until within EPS; ovi: optimistic value iteration\n"
            "                         (GPU only), value iteration from below and a guessed\n"
            "                         upper bound verified; all three the same guarantee;\n"
            "                         vi: plain value iteration (stops when no value\n"
            "                         changes by more than EPS; no guarantee)\n"
            "  --vi                   the same as --method vi\n"
            "  --cpu-below N          answer a model of fewer than N transitions on the\n"
            "                         CPU, without starting the GPU (default %llu, or\n"
            "                         GPU_VI_CPU_BELOW; 0: always the GPU), and one of\n"
            "                         fewer than 16 N where no SCC holds N / 8\n"
            "  --no-topological       --cpu: each system whole (the sequential reference),\n"
            "                         not SCC by SCC, successors first (--topological, the\n"
            "                         default: a state alone in its SCC by one step, exact)\n"
            "  --max-iters N          iteration limit per system, default %u\n"
            "  --mem-limit BYTES      split into SCC groups when the system needs more\n"
            "                         device memory (suffix k, M, G); default: free memory\n"
            "  --threads-per-state N  GPU threads per state's choices (1..32, power of 2)\n"
            "  --sweep-classes N      Gauss-Seidel order on the GPU: the maybe states in N\n"
            "                         classes by distance to the fixed states (mod N),\n"
            "                         swept one after the other; 1: Jacobi (1..%u;\n"
            "                         default: one per %u levels of distance, up to %u)\n"
            "  --scheme S             the MEC decompositions' scheme, as gpu-mec's:\n"
            "                         rounds, interleave (lp engine) or auto (the\n"
            "                         default: interleave below 3 transitions a state)\n"
            "  -o FILE                every state's value, one per line, original numbering\n"
            "  --export-scheduler FILE  an optimal memoryless scheduler of the (one,\n"
            "                         unbounded) property: per state in original numbering\n"
            "                         \"STATE CHOICE [ACTION]\" (CHOICE: index within the state,\n"
            "                         as in the .tra), \"STATE -\" for a state without choices\n",
            tool_name, tool_name, (unsigned long long)GPU_VI_CPU_BELOW, REACH_DEFAULT_MAX_ITERATIONS,
            GPU_REACH_MAX_SWEEP_CLASSES, GPU_REACH_LEVELS_PER_CLASS, GPU_REACH_AUTO_SWEEP_CLASSES);
    fputs("Options of the SCC decomposition of the split (as gpu-scc):\n", out);
    gpu_tool_usage(out);
    gpu_tool_parts_usage(out);
    fputs("  (gpu-vi -g: Prob0/Prob1 on the CPU, the MECs and the iteration over the\n"
          "  parts, Jacobi sweeps, the same bits for every N; ii or vi, unbounded P)\n",
          out);
    fputs("Exit status: 0 ok, 1 bad input or a property without an answer, 2 usage,\n"
          "3 no GPU or a GPU failure.\n",
          out);
}

/* --cpu-below N (and GPU_VI_CPU_BELOW): transitions, 0 or more. */
static int parse_cpu_below(const char *arg, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (*end || end == arg || errno || arg[0] == '-') {
        tool_error("--cpu-below takes a transition count, not \"%s\"", arg);
        return -1;
    }
    *out = v;
    return 0;
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

/* The options of one run. */
typedef struct vi_options {
    gpu_tool_options tool;  /* --cpu, --stats, -d, the SCC engine's */
    gpu_tool_parts parts;   /* -g, --gpus, --exchange */
    reach_options reach;    /* --method, -e, --rel/--abs, --max-iters */
    uint64_t cpu_below;     /* --cpu-below: a model of fewer transitions is answered on the CPU */
    gpu_reach_options gpu;  /* --threads-per-state, --sweep-classes, --mem-limit, --scheme */
    const char *target, *avoid, *direction; /* -t, -a, -m */
    const char *props_path, *constants, *selection, *out_path, *scheduler_path;
    const char *prop_args[64];
    int num_prop_args;
    int json;
} vi_options;

/* The options of argv: 0, or the exit status with the message printed
 * (-h: EXIT_OK after the usage, marked by *done). */
static int parse_options(int argc, char **argv, vi_options *v, int *done)
{
    static const struct option longopts[] = {GPU_LONG_OPTIONS, GPU_PARTS_LONG_OPTIONS,
                                             {"abs", no_argument, 0, OPT_ABS},
                                             {"rel", no_argument, 0, OPT_REL},
                                             {"vi", no_argument, 0, OPT_VI},
                                             {"method", required_argument, 0, OPT_METHOD},
                                             {"topological", no_argument, 0, OPT_TOPOLOGICAL},
                                             {"no-topological", no_argument, 0, OPT_NO_TOPOLOGICAL},
                                             {"cpu-below", required_argument, 0, OPT_CPU_BELOW},
                                             {"max-iters", required_argument, 0, OPT_MAX_ITERS},
                                             {"mem-limit", required_argument, 0, OPT_MEM_LIMIT},
                                             {"threads-per-state", required_argument, 0, OPT_THREADS},
                                             {"sweep-classes", required_argument, 0, OPT_SWEEP_CLASSES},
                                             {"scheme", required_argument, 0, OPT_SCHEME},
                                             {"json", no_argument, 0, OPT_JSON},
                                             {"export-scheduler", required_argument, 0, OPT_SCHEDULER},
                                             {"const", required_argument, 0, OPT_CONST},
                                             {"property", required_argument, 0, OPT_PROPERTY},
                                             {0, 0, 0, 0}};
    memset(v, 0, sizeof *v);
    *done = 0;
    gpu_tool_defaults(&v->tool);
    reach_default_options(&v->reach);
    v->reach.method = REACH_PI; /* the fastest sound method here (bench/RESULTS.md) */
    gpu_reach_default_options(&v->gpu);
    v->cpu_below = GPU_VI_CPU_BELOW;
    if (getenv("GPU_VI_CPU_BELOW") && parse_cpu_below(getenv("GPU_VI_CPU_BELOW"), &v->cpu_below))
        return EXIT_USAGE;
    int method_given = 0, c;
    while ((c = getopt_long(argc, argv, GPU_SHORT_OPTIONS GPU_PARTS_SHORT_OPTIONS "t:a:m:e:o:p:P:", longopts, NULL)) !=
           -1) {
        int taken = gpu_tool_option(c, optarg, &v->tool);
        if (!taken)
            taken = gpu_tool_parts_option(c, optarg, &v->parts);
        if (taken < 0)
            return EXIT_USAGE;
        if (taken)
            continue;
        char *end;
        switch (c) {
        case 't': v->target = optarg; break;
        case 'a': v->avoid = optarg; break;
        case 'p':
            if (v->num_prop_args == (int)(sizeof v->prop_args / sizeof *v->prop_args)) {
                tool_error("at most %d -p options (put more in a file for -P)", v->num_prop_args);
                return EXIT_USAGE;
            }
            v->prop_args[v->num_prop_args++] = optarg;
            break;
        case 'P': v->props_path = optarg; break;
        case 'o': v->out_path = optarg; break;
        case 'm':
            if (strcmp(optarg, "max") && strcmp(optarg, "min")) {
                tool_error("-m takes max or min, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            v->direction = optarg;
            break;
        case 'e':
            errno = 0;
            v->reach.epsilon = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(v->reach.epsilon > 0) || !(v->reach.epsilon < 1)) {
                tool_error("-e takes a precision in (0, 1), not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_ABS: v->reach.relative = 0; break;
        case OPT_REL: v->reach.relative = 1; break;
        case OPT_VI: v->reach.method = REACH_VI; break;
        case OPT_TOPOLOGICAL: v->reach.topological = 1; break;
        case OPT_NO_TOPOLOGICAL: v->reach.topological = 0; break;
        case OPT_JSON: v->json = 1; break;
        case OPT_SCHEDULER: v->scheduler_path = optarg; break;
        case OPT_CONST: v->constants = optarg; break;
        case OPT_PROPERTY: v->selection = optarg; break;
        case OPT_METHOD:
            method_given = 1;
            if (!strcmp(optarg, "ii"))
                v->reach.method = REACH_II;
            else if (!strcmp(optarg, "ovi"))
                v->reach.method = REACH_OVI;
            else if (!strcmp(optarg, "vi"))
                v->reach.method = REACH_VI;
            else if (!strcmp(optarg, "pi"))
                v->reach.method = REACH_PI;
            else {
                tool_error("--method takes ii, ovi, pi or vi, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_MAX_ITERS: {
            errno = 0;
            unsigned long long n = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end || n == 0 || optarg[0] == '-') {
                tool_error("--max-iters takes a positive whole number, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            v->reach.max_iterations = n;
            break;
        }
        case OPT_CPU_BELOW:
            if (parse_cpu_below(optarg, &v->cpu_below))
                return EXIT_USAGE;
            break;
        case OPT_MEM_LIMIT:
            if (parse_bytes(optarg, &v->gpu.memory_limit) || !v->gpu.memory_limit) {
                tool_error("--mem-limit takes a byte count (suffix k, M, G), not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_THREADS: {
            long n = strtol(optarg, &end, 10);
            if (*end || end == optarg || n < 1 || n > 32 || (n & (n - 1))) {
                tool_error("--threads-per-state takes 1, 2, 4, 8, 16 or 32, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            v->gpu.threads_per_state = (int)n;
            break;
        }
        case OPT_SWEEP_CLASSES: {
            long n = strtol(optarg, &end, 10);
            if (*end || end == optarg || n < 1 || n > GPU_REACH_MAX_SWEEP_CLASSES) {
                tool_error("--sweep-classes takes a count from 1 to %d, not \"%s\"", GPU_REACH_MAX_SWEEP_CLASSES,
                           optarg);
                return EXIT_USAGE;
            }
            v->gpu.sweep_classes = (unsigned)n;
            break;
        }
        case OPT_SCHEME:
            if (gpu_tool_parse_mec_scheme(optarg, &v->gpu.mec_scheme) < 0)
                return EXIT_USAGE;
            break;
        case 'h':
            usage(stdout);
            *done = 1;
            return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (gpu_tool_finish_options(&v->tool))
        return EXIT_USAGE;
    gpu_tool_parts_finish(&v->parts, &v->tool);
    v->gpu.scc = v->tool.scc;
    const int parts = v->parts.parts;
    if (parts && ((method_given && v->reach.method != REACH_II && v->reach.method != REACH_VI) ||
                  v->gpu.memory_limit || v->gpu.threads_per_state || v->gpu.sweep_classes)) {
        tool_error("-g: the iteration over parts takes --method ii or vi, and neither --mem-limit, "
                   "--threads-per-state nor --sweep-classes");
        return EXIT_USAGE;
    }
    if (parts && v->reach.method == REACH_PI) /* the default: over parts, interval iteration */
        v->reach.method = REACH_II;
    if (gpu_tool_check_mec_scheme(v->gpu.mec_scheme, &v->tool.scc))
        return EXIT_USAGE;
    if (parts && v->gpu.mec_scheme != GPU_MEC_AUTO) {
        tool_error("-g: the MECs over parts take their own rounds; --scheme is for one GPU");
        return EXIT_USAGE;
    }
    if (v->tool.use_cpu && v->reach.method == REACH_OVI) {
        tool_error("--method ovi runs on the GPU; the CPU reference iterates ii, pi or vi");
        return EXIT_USAGE;
    }
    if (!v->target && !v->num_prop_args && !v->props_path) {
        tool_error("no query: give -t LABEL (with -m), -p PROPERTY or -P FILE");
        usage(stderr);
        return EXIT_USAGE;
    }
    if (v->target && (v->num_prop_args || v->props_path)) {
        tool_error("-t asks one query, -p and -P properties: give one form or the other");
        return EXIT_USAGE;
    }
    return 0;
}

/* The text of a properties file (NUL-terminated, *length bytes; free it),
 * or NULL with the message printed.  At most 64 MiB. */
static char *read_text(const char *path, size_t *length)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        tool_error("%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *text = (char *)malloc(cap + 1);
    while (text) {
        const size_t got = fread(text + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        if (cap >= (size_t)64 << 20) {
            tool_error("%s: more than 64 MiB: not a properties file", path);
            free(text);
            text = NULL;
            break;
        }
        char *more = (char *)realloc(text, 2 * cap + 1);
        if (!more) {
            free(text);
            text = NULL;
            break;
        }
        text = more;
        cap *= 2;
    }
    if (text && ferror(f)) {
        tool_error("%s: %s", path, strerror(errno));
        free(text);
        text = NULL;
    } else if (!text && !ferror(f)) {
        tool_error("%s: out of memory", path);
    }
    fclose(f);
    if (text) {
        text[n] = '\0';
        *length = n;
    }
    return text;
}

/* The properties of the run into file: -t/-a/-m as P{dir}=? [ !"a" U "t" ],
 * each -p, the file of -P, then --const.  0, or the exit status with the
 * message printed (a property that does not parse, with -p or in -P's file:
 * bad input; a bad -t, -a or --const: usage). */
static int load_properties(const vi_options *v, props_file *file)
{
    csr_status st;
    memset(&st, 0, sizeof st);
    if (v->target) {
        char text[1024];
        const char *dir = v->direction ? v->direction : "";
        int len = v->avoid ? snprintf(text, sizeof text, "P%s=? [ !\"%s\" U \"%s\" ]", dir, v->avoid, v->target)
                           : snprintf(text, sizeof text, "P%s=? [ F \"%s\" ]", dir, v->target);
        if (len < 0 || (size_t)len >= sizeof text || strpbrk(v->target, "\"\n") ||
            (v->avoid && strpbrk(v->avoid, "\"\n"))) {
            tool_error("bad label name in -t or -a");
            return EXIT_USAGE;
        }
        if (props_parse_property(text, (size_t)len, file, &st)) {
            tool_error("-t/-a: %s", st.detail);
            return EXIT_USAGE;
        }
    }
    for (int i = 0; i < v->num_prop_args; i++) {
        memset(&st, 0, sizeof st);
        if (props_parse_property(v->prop_args[i], strlen(v->prop_args[i]), file, &st)) {
            tool_error("-p '%s': %s%s", v->prop_args[i], st.code == CSR_ERR_SYNTAX ? "syntax error: " : "", st.detail);
            return EXIT_BAD_INPUT; /* (a property that does not parse: bad input, as in -P's file) */
        }
    }
    if (v->props_path) {
        size_t length;
        char *text = read_text(v->props_path, &length);
        if (!text)
            return EXIT_BAD_INPUT;
        memset(&st, 0, sizeof st);
        int rc = props_parse_file(text, length, file, &st);
        free(text);
        if (rc) {
            /* the detail starts "line L, column C: ..."; the tools say FILE:LINE: */
            const char *what = st.detail;
            if (!strncmp(what, "line ", 5)) {
                const char *comma = strchr(what, ',');
                if (comma)
                    what = comma + 2;
            }
            if (st.line)
                tool_error("%s:%llu: %s%s", v->props_path, (unsigned long long)st.line,
                           rc == CSR_ERR_SYNTAX ? "syntax error: " : "", what);
            else
                tool_error("%s: %s", v->props_path, st.detail);
            return EXIT_BAD_INPUT;
        }
        if (file->count == 0) {
            tool_error("%s: no property", v->props_path);
            return EXIT_BAD_INPUT;
        }
    }
    if (v->constants) {
        memset(&st, 0, sizeof st);
        if (props_define_constants(file, v->constants, &st)) {
            tool_error("--const %s: %s", v->constants, st.detail);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* --property NAME,... (names, or numbers from 1): chosen[i] for each of
 * file's properties.  0, or EXIT_USAGE with the message printed. */
static int select_properties(const char *selection, const props_file *file, uint8_t *chosen)
{
    memset(chosen, !selection, file->count);
    if (!selection)
        return 0;
    char *list = strdup(selection), *save = NULL;
    if (!list)
        return EXIT_BAD_INPUT;
    int status = 0;
    for (char *item = strtok_r(list, ",", &save); item && !status; item = strtok_r(NULL, ",", &save)) {
        size_t found = file->count;
        for (size_t i = 0; i < file->count && found == file->count; i++)
            if (file->properties[i].name && !strcmp(file->properties[i].name, item))
                found = i;
        char *end;
        unsigned long long k = strtoull(item, &end, 10);
        if (found == file->count && *item && !*end && k >= 1 && k <= file->count)
            found = (size_t)(k - 1);
        if (found == file->count) {
            tool_error("--property: no property \"%s\" (names, or numbers 1 to %zu)", item, file->count);
            status = EXIT_USAGE;
        } else {
            chosen[found] = 1;
        }
    }
    free(list);
    return status;
}

/* The property's name for messages: "name", or 'text'. */
static void property_label(const props_property *p, char *out, size_t size)
{
    if (p->name)
        snprintf(out, size, "\"%s\"", p->name);
    else
        snprintf(out, size, "'%s'", p->text);
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
        if (isinf(orig[s]))
            fputs("Infinity\n", f);
        else
            fprintf(f, "%.17g\n", orig[s]);
    if (f && tool_close_output(f, path))
        rc = -1;
    free(orig);
    return rc;
}

/* Step-bounded progress on a terminal (reach_set_bounded_progress): "step N
 * of M" from a second on, at most four times a second, cleared after the
 * property (progress_clear). */
static double progress_start, progress_last, progress_after = 1.0; /* (CSR_TEST_PROGRESS_AFTER: the tests' 0) */
static int progress_shown;

static void progress_show(uint64_t done, uint64_t total)
{
    const double now = tool_seconds();
    if (now - progress_start < progress_after || now - progress_last < 0.25)
        return;
    progress_last = now;
    progress_shown = 1;
    fprintf(stderr, "\r%s: step %llu of %llu", tool_name, (unsigned long long)done, (unsigned long long)total);
}

static void progress_clear(void)
{
    if (progress_shown)
        fputs("\r\033[K", stderr);
    progress_shown = 0;
    progress_start = progress_last = tool_seconds();
}

/* A value as PRISM prints it ("Infinity" for an expected reward never paid off). */
static void print_value(const char *before, double v)
{
    if (isinf(v))
        printf("%sInfinity", before);
    else
        printf("%s%.17g", before, v);
}

/* JSON has no infinity: the string "Infinity" there. */
static json_t *json_value(double v)
{
    return isinf(v) ? json_string("Infinity") : json_real(v);
}

/* --export-scheduler: reach_scheduler's choices, one line per state in the
 * original numbering; 0, CSR_ERR_NOMEM, or -1 (errno: the file). */
static int write_scheduler(const char *path, const csr_model *m, const reach_query *q, const double *sr,
                           const double *cr, const double *values, double eps)
{
    const uint64_t n = m->num_states;
    uint32_t *choice = (uint32_t *)malloc((n ? n : 1) * sizeof *choice);
    uint32_t *state_of = (uint32_t *)malloc((n ? n : 1) * sizeof *state_of);
    int rc = choice && state_of ? reach_scheduler(m, q, sr, cr, values, 2 * eps, choice) : CSR_ERR_NOMEM;
    FILE *f = NULL;
    if (!rc) {
        for (uint64_t s = 0; s < n; s++)
            state_of[m->permutation ? m->permutation[s] : s] = (uint32_t)s;
        f = fopen(path, "w");
        rc = f ? 0 : -1;
    }
    for (uint64_t o = 0; !rc && o < n; o++) {
        uint32_t s = state_of[o], k = choice[s];
        if (k == REACH_NO_CHOICE) {
            fprintf(f, "%llu -\n", (unsigned long long)o);
            continue;
        }
        uint32_t a = m->choice_actions ? m->choice_actions[m->state_choices[s] + k] : 0;
        if (a)
            fprintf(f, "%llu %u %s\n", (unsigned long long)o, k, m->actions.names[a]);
        else
            fprintf(f, "%llu %u\n", (unsigned long long)o, k);
    }
    if (f && tool_close_output(f, path))
        rc = -1;
    free(choice);
    free(state_of);
    return rc;
}

static int cmp_pair(const void *a, const void *b)
{
    const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The initial states as (original number, state) pairs in increasing
 * original order (free it), or NULL. */
static uint64_t *initial_pairs(const csr_model *m)
{
    uint64_t *pairs = (uint64_t *)malloc((m->num_initial ? m->num_initial : 1) * 2 * sizeof *pairs);
    if (!pairs)
        return NULL;
    for (uint64_t i = 0; i < m->num_initial; i++) {
        const uint64_t s = m->initial_states[i];
        pairs[2 * i] = m->permutation ? m->permutation[s] : s;
        pairs[2 * i + 1] = s;
    }
    qsort(pairs, m->num_initial, 2 * sizeof *pairs, cmp_pair);
    return pairs;
}

/* One answer as text: "Infinity", a %.17g number, true or false. */
static void print_answer(const check_result *r, uint64_t s, const char *before)
{
    if (r->kind == CHECK_TRUTH)
        printf("%s%s", before, r->truth[s] ? "true" : "false");
    else
        print_value(before, r->values[s]);
}

static json_t *json_answer(const check_result *r, uint64_t s)
{
    return r->kind == CHECK_TRUTH ? json_boolean(r->truth[s]) : json_value(r->values[s]);
}

/* The property's answer: a line on stdout (bare: the values alone, one a
 * line), or an object appended to results (--json).  0, or -1 out of memory. */
static int report_answer(const csr_model *m, const props_property *p, const check_result *r, int bare,
                         json_t *results, const uint64_t *pairs)
{
    const uint64_t k = r->constant ? 1 : m->num_initial;
    if (results) {
        json_t *o = json_object(), *vs = json_array();
        json_object_set_new(o, "name", p->name ? json_string(p->name) : json_null());
        json_object_set_new(o, "text", json_string(p->text));
        json_object_set_new(o, "property", json_string(p->text));
        if (r->filter) {
            json_t *v = json_object();
            json_object_set_new(v, "value", r->filter_is_truth ? json_boolean(r->filter_truth)
                                                               : json_value(r->filter_value));
            json_array_append_new(vs, v);
            json_object_set_new(o, "filter", json_string(props_filter_name(r->filter)));
            json_object_set_new(o, "filter_states", json_integer((json_int_t)r->filter_states));
        } else {
            for (uint64_t i = 0; i < k; i++) {
                json_t *v = json_object();
                if (!r->constant)
                    json_object_set_new(v, "state", json_integer((json_int_t)pairs[2 * i]));
                json_object_set_new(v, "value", json_answer(r, r->constant ? 0 : pairs[2 * i + 1]));
                json_array_append_new(vs, v);
            }
        }
        json_object_set_new(o, "initial", vs);
        json_object_set_new(o, "maybe", json_integer((json_int_t)r->stats.maybe));
        json_object_set_new(o, "iterations", json_integer((json_int_t)r->stats.iterations));
        json_object_set_new(o, "final_difference", json_real(r->stats.final_difference));
        json_object_set_new(o, "seconds", json_real(r->stats.total_s));
        return json_array_append_new(results, o);
    }
    if (bare) {
        for (uint64_t i = 0; i < k; i++) {
            print_answer(r, r->constant ? 0 : pairs[2 * i + 1], "");
            putchar('\n');
        }
        return 0;
    }
    printf("%s:", p->name ? p->name : p->text);
    if (r->filter) {
        if (r->filter_is_truth)
            printf(" %s", r->filter_truth ? "true" : "false");
        else
            print_value(" ", r->filter_value);
    } else if (k == 1) {
        print_answer(r, r->constant ? 0 : pairs[1], " ");
    } else {
        for (uint64_t i = 0; i < k; i++) {
            char before[32];
            snprintf(before, sizeof before, " %llu=", (unsigned long long)pairs[2 * i]);
            print_answer(r, pairs[2 * i + 1], before);
        }
    }
    putchar('\n');
    return 0;
}

/* A property without an answer: "tool: PROPERTY: why" on stderr, and in
 * --json an object with its "error" in errors (not among the answers, which
 * a reader takes as they are). */
static void report_failure(const props_property *p, const check_result *r, json_t *errors)
{
    char label[1100];
    property_label(p, label, sizeof label);
    tool_error("%s: %s", label, r->message);
    if (errors) {
        json_t *o = json_object();
        json_object_set_new(o, "name", p->name ? json_string(p->name) : json_null());
        json_object_set_new(o, "text", json_string(p->text));
        json_object_set_new(o, "property", json_string(p->text));
        json_object_set_new(o, "error", json_string(r->message));
        json_array_append_new(errors, o);
    }
}

/* What the reports of a run read. */
typedef struct vi_run {
    const vi_options *v;
    const csr_model *m;
    const gpu_tool_times *times;
    const reach_engine *engine;
    const gpu_reach_context *cx;
    const gpu_tool_parts_engine *pe;
} vi_run;

/* By enum reach_method. */
static const char *const method_names[] = {"ii", "vi", "ovi", "pi"};
static const char *const method_titles[] = {"interval iteration", "value iteration", "optimistic value iteration",
                                            "certified policy iteration"};

/* The method a property's answer came from, for --stats=json and --stats. */
static const char *method_key(const props_property *p, const check_result *r)
{
    return p->steps >= 0                                  ? "bounded"
           : p->reward_bound_relation                      ? "epochs"
           : p->path == PROPS_NEXT                         ? "next"
           : p->path == PROPS_CUMULATIVE || p->path == PROPS_INSTANT ? "steps"
                                                           : method_names[r->stats.method];
}

static const char *method_title(const props_property *p, const check_result *r)
{
    return p->steps >= 0 ? "step-bounded iteration"
           : p->reward_bound_relation ? (r->stats.method == REACH_PI ? "epochs by certified policy iteration"
                                                                     : "epochs by interval iteration")
           : p->path == PROPS_NEXT || p->path == PROPS_CUMULATIVE || p->path == PROPS_INSTANT ? "Jacobi steps"
                                                                                            : method_titles[r->stats.method];
}

/* --stats: what one property's checking did (on stderr). */
static void report_stats(const vi_run *R, const props_property *p, const check_result *r)
{
    if (R->v->tool.stats == GPU_STATS_JSON) {
        json_t *j = gpu_stats_json_begin(R->m, R->times);
        json_object_set_new(j, "property", json_string(p->text));
        json_object_set_new(j, "yes", json_integer((json_int_t)r->stats.yes));
        json_object_set_new(j, "no", json_integer((json_int_t)r->stats.no));
        json_object_set_new(j, "maybe", json_integer((json_int_t)r->stats.maybe));
        json_object_set_new(j, "mecs", json_integer((json_int_t)r->stats.mecs));
        json_object_set_new(j, "mec_states", json_integer((json_int_t)r->stats.mec_states));
        json_object_set_new(j, "method", json_string(method_key(p, r)));
        json_object_set_new(j, "cpu", json_boolean(R->v->tool.use_cpu)); /* --cpu, or below --cpu-below */
        json_object_set_new(j, "split", json_boolean(r->stats.split));
        json_object_set_new(j, "groups", json_integer((json_int_t)r->stats.groups));
        json_object_set_new(j, "sccs", json_integer((json_int_t)r->stats.sccs));
        json_object_set_new(j, "cpu_groups", json_integer((json_int_t)r->stats.cpu_groups));
        json_object_set_new(j, "iterations", json_integer((json_int_t)r->stats.iterations));
        json_object_set_new(j, "final_difference", json_real(r->stats.final_difference));
        json_object_set_new(j, "bytes_needed", json_integer((json_int_t)r->stats.bytes_needed));
        json_object_set_new(j, "prob01_s", json_real(r->stats.prob01_s));
        json_object_set_new(j, "prob01_computed", json_integer((json_int_t)reach_cache_computed(R->engine->cache))); /* so far in this run */
        json_object_set_new(j, "mec_s", json_real(r->stats.mec_s));
        json_object_set_new(j, "split_s", json_real(r->stats.split_s));
        json_object_set_new(j, "iterate_s", json_real(r->stats.iterate_s));
        if (r->stats.method == REACH_PI) {
            json_t *pj = json_object();
            json_object_set_new(pj, "attempts", json_integer((json_int_t)r->pi.attempts));
            json_object_set_new(pj, "certified", json_integer((json_int_t)r->pi.certified));
            json_object_set_new(pj, "jacobi", json_integer((json_int_t)r->pi.jacobi));
            json_object_set_new(pj, "steps", json_integer((json_int_t)r->pi.steps));
            json_object_set_new(pj, "matvecs", json_integer((json_int_t)r->pi.matvecs));
            json_object_set_new(pj, "palette", json_integer((json_int_t)r->pi.palette));
            json_object_set_new(pj, "rounds", json_integer((json_int_t)r->pi.rounds));
            json_object_set_new(pj, "certificate", json_real(r->pi.certificate));
            json_object_set_new(j, "pi", pj);
        }
        if (r->topo.systems) {
            json_t *tj = json_object();
            json_object_set_new(tj, "systems", json_integer((json_int_t)r->topo.systems));
            json_object_set_new(tj, "sccs", json_integer((json_int_t)r->topo.sccs));
            json_object_set_new(tj, "alone", json_integer((json_int_t)r->topo.alone));
            json_object_set_new(tj, "core", json_integer((json_int_t)r->topo.core));
            json_object_set_new(tj, "cores", json_integer((json_int_t)r->topo.cores));
            json_object_set_new(tj, "sccs_alone", json_integer((json_int_t)r->topo.sccs_alone));
            json_object_set_new(tj, "whole", json_integer((json_int_t)r->topo.whole));
            json_object_set_new(tj, "gauss_seidel", json_integer((json_int_t)r->topo.gauss_seidel));
            json_object_set_new(j, "topological", tj);
        }
        if (R->v->parts.parts) {
            const reach_parts_stats *ps = &R->pe->pcx.stats;
            gpu_parts_stats pst;
            memset(&pst, 0, sizeof pst);
            pst.exchange = ps->exchange ? ps->exchange : "copies";
            pst.foreign = ps->foreign;
            pst.passes = ps->passes;
            pst.exchanged_bytes = ps->exchanged;
            pst.partition_s = ps->partition_s;
            pst.upload_s = ps->upload_s;
            pst.download_s = ps->download_s;
            gpu_stats_json_parts(j, &R->v->parts, &pst, R->v->tool.use_cpu);
            json_object_set_new(j, "span_mecs", json_integer((json_int_t)ps->span_mecs));
            json_object_set_new(j, "mec_rounds", json_integer((json_int_t)R->pe->mec_rounds));
            if (!R->v->tool.use_cpu)
                json_object_set_new(j, "resident_s", json_real(ps->resident_s));
        } else if (!R->v->tool.use_cpu) {
            json_object_set_new(j, "prob01_levels", json_integer((json_int_t)R->cx->stats.prob01_sweeps));
            json_object_set_new(j, "prob01_on_cpu", json_boolean(R->cx->stats.prob01_on_cpu));
            json_object_set_new(j, "prob1e_by_mecs", json_boolean(R->cx->stats.prob1e_by_mecs));
            json_object_set_new(j, "mec_scheme", R->cx->stats.mec_scheme_used ? json_string(R->cx->stats.mec_scheme_used) : json_null());
            json_object_set_new(j, "threads_per_state", json_integer(R->cx->stats.used_threads));
            json_object_set_new(j, "sweep_classes", json_integer(R->cx->stats.used_sweep_classes));
            json_object_set_new(j, "sweep_rounds", json_integer((json_int_t)R->cx->stats.sweep_rounds));
            json_object_set_new(j, "mec_gpu_upload_s", json_real(R->cx->stats.mec_upload_s));
            json_object_set_new(j, "mec_gpu_resident_s", json_real(R->cx->stats.mec_resident_s));
            json_object_set_new(j, "mec_gpu_download_s", json_real(R->cx->stats.mec_download_s));
            json_object_set_new(j, "compact_s", json_real(R->cx->stats.compact_s));
            json_object_set_new(j, "sweep_classes_s", json_real(R->cx->stats.sweep_s));
            json_object_set_new(j, "upload_s", json_real(R->cx->stats.h2d_s));
            json_object_set_new(j, "gpu_iterate_s", json_real(R->cx->stats.iterate_s));
            json_object_set_new(j, "pi_s", json_real(R->cx->stats.pi_s));
            json_object_set_new(j, "download_s", json_real(R->cx->stats.d2h_s));
            json_object_set_new(j, "probability_dictionary", json_boolean(R->cx->stats.used_dictionary));
            json_object_set_new(j, "ovi_guesses", json_integer((json_int_t)R->cx->stats.ovi_guesses));
            json_object_set_new(j, "device_bytes", json_integer((json_int_t)R->cx->stats.device_bytes));
            json_object_set_new(j, "resident_bytes", json_integer((json_int_t)R->cx->stats.resident_bytes));
            json_object_set_new(j, "resident_upload_s", json_real(R->cx->stats.resident_upload_s));
        }
        gpu_stats_json_print(j);
    } else if (R->v->tool.stats) {
        fprintf(stderr,
                (p->kind == PROPS_REWARD) ? "%s: %llu states, %llu choices, %llu transitions; targets %llu, infinite %llu, finite %llu "
                               "states; %llu zero-reward MECs with %llu states collapsed\n"
                             : "%s: %llu states, %llu choices, %llu transitions; Prob1 %llu, Prob0 %llu, maybe %llu "
                               "states; %llu MECs with %llu states collapsed\n",
                tool_name, (unsigned long long)R->m->num_states, (unsigned long long)R->m->num_choices, (unsigned long long)R->m->num_transitions,
                (unsigned long long)r->stats.yes, (unsigned long long)r->stats.no, (unsigned long long)r->stats.maybe,
                (unsigned long long)r->stats.mecs, (unsigned long long)r->stats.mec_states);
        fprintf(stderr,
                "%s: %s, %s path: %llu groups (%llu SCCs, %llu on the CPU), %llu iterations, final difference %.3g "
                "(%s); memory needed %llu bytes\n",
                tool_name, method_title(p, r),
                r->stats.split ? "split" : "whole",
                (unsigned long long)r->stats.groups, (unsigned long long)r->stats.sccs, (unsigned long long)r->stats.cpu_groups,
                (unsigned long long)r->stats.iterations, r->stats.final_difference, R->v->reach.relative ? "relative" : "absolute",
                (unsigned long long)r->stats.bytes_needed);
        if (r->stats.method == REACH_PI)
            fprintf(stderr,
                    "%s: policy iteration: %llu of %llu systems certified; %llu Jacobi iterations, %llu policy steps, "
                    "%llu matrix products, %llu exit-time rounds; certificate d %.3g\n",
                    tool_name, (unsigned long long)r->pi.certified, (unsigned long long)r->pi.attempts,
                    (unsigned long long)r->pi.jacobi, (unsigned long long)r->pi.steps, (unsigned long long)r->pi.matvecs,
                    (unsigned long long)r->pi.rounds, r->pi.certificate);
        if (r->topo.systems)
            fprintf(stderr,
                    "%s: topological: %llu SCCs in %llu systems; %llu states solved outside the cores (%llu SCCs "
                    "of several states), %llu iterated in %llu cores; %llu SCCs and cores by Gauss-Seidel\n",
                    tool_name, (unsigned long long)r->topo.sccs, (unsigned long long)r->topo.systems,
                    (unsigned long long)r->topo.alone, (unsigned long long)r->topo.sccs_alone,
                    (unsigned long long)r->topo.core, (unsigned long long)r->topo.cores,
                    (unsigned long long)r->topo.gauss_seidel);
        fprintf(stderr,
                "%s: read %.4f s, waiting for the CUDA context %.4f s, Prob0/Prob1 %.4f s, MECs %.4f s, SCCs %.4f s, "
                "iteration %.4f s\n",
                tool_name, R->times->read_end - R->times->read_start, R->times->device_ready - R->times->read_end, r->stats.prob01_s, r->stats.mec_s, r->stats.split_s,
                r->stats.iterate_s);
        if (R->v->parts.parts)
            fprintf(stderr,
                    "%s: %d parts%s: %llu foreign states, %llu MECs over several parts, %llu bytes exchanged; "
                    "partition %.4f s, upload %.4f s, resident %.4f s, download %.4f s\n",
                    tool_name, R->v->parts.parts, R->v->tool.use_cpu ? " on the CPU" : "", (unsigned long long)R->pe->pcx.stats.foreign,
                    (unsigned long long)R->pe->pcx.stats.span_mecs, (unsigned long long)R->pe->pcx.stats.exchanged,
                    R->pe->pcx.stats.partition_s, R->pe->pcx.stats.upload_s, R->pe->pcx.stats.resident_s,
                    R->pe->pcx.stats.download_s);
        else if (!R->v->tool.use_cpu)
            fprintf(stderr,
                    "%s: GPU: %llu Prob0/Prob1 %s%s; %d threads per state%s%s, %u sweep classes (%.4f s); compaction "
                    "%.4f s, host-to-device %.4f s, iterations %.4f s (%.1f us each, about %.1f GB/s), device-to-host "
                    "%.4f s; %llu device bytes\n",
                    tool_name, (unsigned long long)R->cx->stats.prob01_sweeps, R->v->gpu.scc.persistent ? "searches" : "search levels",
                    R->cx->stats.prob01_on_cpu ? " (on the CPU: too large)" : "",
                    R->cx->stats.used_threads,
                    R->cx->stats.used_rows ? " (a warp per choice)" : "",
                    R->cx->stats.used_dictionary ? ", probabilities by dictionary" : "", R->cx->stats.used_sweep_classes, R->cx->stats.sweep_s,
                    R->cx->stats.compact_s, R->cx->stats.h2d_s, R->cx->stats.iterate_s,
                    r->stats.iterations ? 1e6 * R->cx->stats.iterate_s / (double)r->stats.iterations : 0.0,
                    R->cx->stats.iterate_s > 0 && r->stats.groups == 1 ? (double)R->cx->stats.bytes_per_iteration * (double)r->stats.iterations /
                                                             R->cx->stats.iterate_s / 1e9
                                                       : 0.0,
                    R->cx->stats.d2h_s, (unsigned long long)R->cx->stats.device_bytes);
    }
}

/* -o and --export-scheduler for the one property checked: 0, or the exit
 * status with the message printed. */
static int write_outputs(const vi_options *v, const csr_model *m, const props_property *p, const check_result *r)
{
    if (v->out_path) {
        if (r->kind != CHECK_NUMBER || !r->values || r->constant) {
            tool_error("-o: %s has no value per state", p->text);
            return EXIT_USAGE;
        }
        if (write_values(v->out_path, m, r->values)) {
            tool_error("%s: %s", v->out_path, strerror(errno));
            return EXIT_BAD_INPUT;
        }
    }
    if (v->scheduler_path) {
        if (!r->scheduler) {
            tool_error("--export-scheduler: '%s': only unbounded P [ F ], P [ U ] and R [ F ] have a memoryless "
                       "optimal scheduler exported",
                       p->text);
            return EXIT_USAGE;
        }
        int wrc = write_scheduler(v->scheduler_path, m, &r->query, r->state_reward, r->choice_reward, r->values,
                                  v->reach.epsilon);
        if (wrc) {
            if (wrc == CSR_ERR_NOMEM)
                tool_error("--export-scheduler: out of memory");
            else
                tool_error("%s: %s", v->scheduler_path, strerror(errno));
            return EXIT_BAD_INPUT;
        }
    }
    return 0;
}

/* The engine that holds m for the run: the parts' (-g), the references'
 * (--cpu), or the GPU's (the model resident on the device).  0, or the exit
 * status with the message printed. */
static int open_engine(const vi_options *v, const csr_model *m, gpu_reach_context *cx, gpu_tool_parts_engine *pe,
                       reach_engine *e, csr_status *st, const char *path)
{
    memset(cx, 0, sizeof *cx);
    memset(pe, 0, sizeof *pe);
    pe->model = m;
    pe->pcx.parts = v->parts.options.parts;
    pe->pcx.gpus = &v->parts.options;
    pe->pcx.status = st;
    pe->use_cpu = v->tool.use_cpu;
    if (v->parts.parts) {
        if (!v->tool.use_cpu && gpu_parts_check_exchange(&v->parts.options, st)) {
            tool_report_failure(path, CSR_ERR_USAGE, st);
            return EXIT_USAGE;
        }
        gpu_tool_parts_reach_engine(pe, e);
    } else if (v->tool.use_cpu) {
        reach_cpu_engine(m, e);
        e->status = st;
    } else {
        int rc = gpu_reach_engine(m, &v->gpu, cx, e, st);
        if (rc) {
            tool_report_failure(path, rc, st);
            return rc == CSR_ERR_DEVICE ? EXIT_DEVICE : EXIT_BAD_INPUT;
        }
    }
    if (v->gpu.memory_limit)
        e->budget = v->gpu.memory_limit;
    e->cache = reach_cache_new(m->num_states);
    return 0;
}

/* Threads of a run's properties at once on the GPU, at most (each its own
 * engine: the model resident once more, a stream, the host's work of its
 * queries beside the others'; see gpu_pool_workers). */
#define GPU_VI_POOL_WORKERS 2

/* The GPU engines of the properties at once (check_pool_engines): a context
 * each on the run's device, opened on the worker's thread. */
struct gpu_pool_engines {
    const vi_options *v;
    int device;
};

static int gpu_pool_open(void *ctx, const csr_model *m, reach_engine *e, csr_status *st)
{
    const gpu_pool_engines *g = (const gpu_pool_engines *)ctx;
    if (cudaSetDevice(g->device) != cudaSuccess)
        return CSR_ERR_DEVICE;
    gpu_reach_context *cx = (gpu_reach_context *)calloc(1, sizeof *cx);
    if (!cx)
        return CSR_ERR_NOMEM;
    const int rc = gpu_reach_engine(m, &g->v->gpu, cx, e, st);
    if (rc) {
        gpu_reach_close(cx);
        free(cx);
    }
    return rc;
}

static void gpu_pool_close(void *, reach_engine *e)
{
    gpu_reach_context *cx = (gpu_reach_context *)e->ctx;
    gpu_reach_close(cx);
    free(cx);
}

/* The threads for `asked` properties on the GPU: as on the CPU
 * (check_pool_workers), at most GPU_VI_POOL_WORKERS (CSR_TEST_WORKERS: the
 * tests' count), and only as many as fit the device beside the run's engine
 * with room to spare: each its resident model and twice a whole system's
 * bytes (the compacted system and its sweep classes; half the free memory at
 * most for all of them), so that no property fails for lack of memory that it
 * would have had alone.  None (1) under --mem-limit: that bounds the run. */
static unsigned gpu_pool_workers(const vi_options *v, const csr_model *m, const gpu_reach_context *cx, size_t asked)
{
    unsigned w = check_pool_workers(asked);
    if (!getenv("CSR_TEST_WORKERS") && w > GPU_VI_POOL_WORKERS)
        w = GPU_VI_POOL_WORKERS;
    if (v->gpu.memory_limit)
        return 1;
    const uint64_t each =
        cx->stats.resident_bytes + 2 * reach_system_bytes(m->num_states, m->num_choices, m->num_transitions);
    const uint64_t room = gpu_free_memory() / 2;
    while (w > 1 && (uint64_t)(w + 1) * each > room)
        w--;
    return w;
}

/* A form the parts' engine does not iterate (-g): the property's failure. */
static int refused_by_parts(const vi_options *v, const props_property *p, check_result *r)
{
    if (!v->parts.parts || p->status.code ||
        !(p->steps >= 0 || p->kind == PROPS_REWARD || p->reward_bound_relation))
        return 0;
    memset(r, 0, sizeof *r);
    r->code = CSR_ERR_USAGE;
    snprintf(r->message, sizeof r->message, "-g: step-bounded and reward properties are not iterated over parts");
    return 1;
}

int main(int argc, char **argv)
{
    tool_start("gpu-vi");
    argv[0] = (char *)tool_name; /* getopt names the tool in its messages, not its path */
    vi_options v;
    int exit_status, help;
    if ((exit_status = parse_options(argc, argv, &v, &help)) || help)
        return exit_status;
    props_file file;
    memset(&file, 0, sizeof file);
    uint8_t *chosen = NULL;
    if ((exit_status = load_properties(&v, &file)) || !(chosen = (uint8_t *)malloc(file.count ? file.count : 1)) ||
        (exit_status = select_properties(v.selection, &file, chosen))) {
        props_free(&file);
        free(chosen);
        return exit_status ? exit_status : EXIT_BAD_INPUT;
    }
    size_t asked = 0;
    for (size_t i = 0; i < file.count; i++)
        asked += chosen[i];
    if ((v.out_path || v.scheduler_path) && asked != 1) {
        tool_error("%s writes the %s of one property; %zu asked", v.out_path ? "-o" : "--export-scheduler",
                   v.out_path ? "vector" : "scheduler", asked);
        props_free(&file);
        free(chosen);
        return EXIT_USAGE;
    }
    /* the model, read while the CUDA context starts; a small one answered on the CPU (--cpu-below) */
    const char *path;
    csr_model m;
    gpu_tool_times times;
    const uint64_t cpu_below = v.parts.parts || v.reach.method == REACH_OVI ? 0 : v.cpu_below;
    cpu_below_count = cpu_below;
    if ((exit_status = gpu_tool_load_auto(argc, argv, usage, &v.tool.use_cpu, v.tool.device, cpu_below, cpu_pays,
                                          &path, &m, &times))) {
        props_free(&file);
        free(chosen);
        return exit_status;
    }
    const char *name = tool_input_name(path);
    csr_status st;
    memset(&st, 0, sizeof st);
    gpu_reach_context cx;
    gpu_tool_parts_engine pe;
    reach_engine engine;
    memset(&engine, 0, sizeof engine);
    json_t *results = v.json ? json_array() : NULL, *errors = v.json ? json_array() : NULL;
    uint64_t *pairs = initial_pairs(&m);
    int rc = pairs ? CSR_OK : CSR_ERR_NOMEM, failed = 0, refused = 0, answered = 0;
    if (!m.probabilities) {
        tool_error("%s: no probabilities (a graph-only CSR file); convert with prism2csr", name);
        exit_status = EXIT_BAD_INPUT;
    } else if (!m.labels.count && !m.variables.count) {
        tool_error("%s: no labels and no state valuations; convert with prism2csr -l FILE.lab (or -s FILE.sta)",
                   name);
        exit_status = EXIT_BAD_INPUT;
    } else if (v.target && !v.direction && m.model_type == CSR_MDP) {
        tool_error("%s is an MDP: say -m max or -m min", name);
        exit_status = EXIT_USAGE;
    } else if (v.parts.parts && !v.tool.use_cpu && gpu_tool_parts_devices(&v.parts)) {
        exit_status = EXIT_DEVICE;
    } else if (!rc) {
        /* the properties bound to the model's variables and labels (each one's errors its own) */
        if ((rc = props_bind(&file, &m, &st)) == CSR_ERR_USAGE) {
            tool_error("%s", st.detail);
            exit_status = EXIT_USAGE;
            rc = CSR_OK;
        } else if (!rc && v.target && file.properties[0].status.code == CSR_ERR_LABEL) {
            /* -t/-a: the labels the model has, as always */
            fprintf(stderr, "%s: no label \"%s\"; the model's labels:", tool_name,
                    csr_find_label(&m, v.target) < 0 ? v.target : v.avoid);
            for (uint64_t i = 0; i < m.labels.count; i++)
                fprintf(stderr, " %s", m.labels.names[i]);
            fputc('\n', stderr);
            exit_status = EXIT_USAGE;
        } else if (!rc) {
            exit_status = open_engine(&v, &m, &cx, &pe, &engine, &st, path);
        }
    }
    const vi_run run = {&v, &m, &times, &engine, &cx, &pe};
    /* the properties at once, a thread each (not with --stats: each one's times its own; not over parts):
     * on the CPU each with an engine of the references, on the GPU each with its own (gpu_pool_workers) */
    check_pool *pool = NULL;
    gpu_pool_engines gpu_engines = {&v, 0};
    const check_pool_engines pool_engines = {gpu_pool_open, gpu_pool_close, &gpu_engines};
    if (!rc && !exit_status && !v.parts.parts && !v.tool.stats) {
        const unsigned workers = v.tool.use_cpu ? check_pool_workers(asked) : gpu_pool_workers(&v, &m, &cx, asked);
        if (workers > 1 && (v.tool.use_cpu || cudaGetDevice(&gpu_engines.device) == cudaSuccess)) {
            reach_engine taker = engine; /* the caller's, as the pool's (its cache kept) */
            if (!v.tool.use_cpu)
                taker.budget /= workers + 1; /* each engine's share of the device, the caller's too */
            pool = check_pool_start(&m, &file, chosen, &v.reach, taker.budget, workers,
                                    v.tool.use_cpu ? NULL : &pool_engines, &taker);
            if (pool && getenv("CSR_TEST_WORKERS")) /* (the tests see that the pool ran) */
                fprintf(stderr, "%s: %u properties at a time\n", tool_name, workers);
        }
    }
    if (isatty(STDERR_FILENO) && !pool) /* long step bounds say how far they are */
        reach_set_bounded_progress(progress_show);
    if (getenv("CSR_TEST_PROGRESS_AFTER"))
        progress_after = atof(getenv("CSR_TEST_PROGRESS_AFTER"));
    for (size_t i = 0; !rc && !exit_status && i < file.count; i++) {
        if (!chosen[i])
            continue;
        const props_property *p = &file.properties[i];
        check_result r;
        gpu_reach_reset_stats(&cx);
        memset(&pe.pcx.stats, 0, sizeof pe.pcx.stats);
        pe.mec_rounds = 0;
        progress_clear();
        const int checked = !refused_by_parts(&v, p, &r) && (rc = pool ? check_pool_take(pool, i, &r)
                                                                        : check_property(&engine, &file, p, &v.reach, &r));
        progress_clear();
        if (checked) {
            check_result_free(&r);
            break;
        }
        if (r.code) {
            report_failure(p, &r, errors);
            /* refused: the property names what the model lacks, or a form not answered; failed: its
             * computation (no convergence, stalled, ...) */
            if (r.code == CSR_ERR_SYNTAX || r.code == CSR_ERR_USAGE || r.code == CSR_ERR_LABEL ||
                r.code == CSR_ERR_UNSUPPORTED || r.code == CSR_ERR_RANGE)
                refused = 1;
            else
                failed = 1;
        } else {
            answered++;
            if (report_answer(&m, p, &r, v.target != NULL, results, pairs) ||
                (!results && (fflush(stdout) || ferror(stdout)))) {
                tool_error("(stdout): write error");
                exit_status = EXIT_BAD_INPUT;
            } else if (!(exit_status = write_outputs(&v, &m, p, &r)) && v.tool.stats) {
                report_stats(&run, p, &r);
            }
        }
        check_result_free(&r);
    }
    if (!rc && !exit_status && results) {
        json_t *j = json_object();
        json_object_set_new(j, "tool", json_string(tool_name));
        json_object_set_new(j, "model", json_string(name));
        json_object_set_new(j, "method", json_string(method_names[v.reach.method]));
        json_object_set_new(j, "epsilon", json_real(v.reach.epsilon));
        json_object_set_new(j, "relative", json_boolean(v.reach.relative));
        json_object_set_new(j, "properties", results);
        json_object_set_new(j, "errors", errors);
        results = errors = NULL;
        int bad = tool_json_print(j, stdout, JSON_COMPACT) != 0;
        json_decref(j);
        if (bad || putchar('\n') == EOF || fflush(stdout) || ferror(stdout)) {
            tool_error("(stdout): write error");
            exit_status = EXIT_BAD_INPUT;
        }
    }
    if (rc) {
        tool_report_failure(path, rc, &st);
        exit_status = rc == CSR_ERR_DEVICE ? EXIT_DEVICE : EXIT_BAD_INPUT;
    }
    check_pool_stop(pool);
    reach_cache_free(engine.cache);
    gpu_reach_close(&cx);
    json_decref(results);
    json_decref(errors);
    free(pairs);
    free(chosen);
    csr_free(&m);
    props_free(&file);
    /* a property refused among answered ones is said and does not fail the run (QVBS's files name the model
     * file's formulas, which no export carries); a failed computation does, and so does no answer at all */
    return exit_status ? exit_status : failed || (refused && !answered) ? EXIT_BAD_INPUT : EXIT_OK;
}
