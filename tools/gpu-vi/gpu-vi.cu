/*
 * gpu-vi - minimal and maximal reachability probabilities of a CSR MDP or
 * DTMC by interval (or value) iteration on the GPU.
 *
 *   gpu-vi -t LABEL [-a LABEL] -m max|min [-e EPS] [--abs|--rel] [--vi]
 *          [--max-iters N] [--mem-limit BYTES] [--threads-per-state N] [--sweep-classes N] [--scheme S]
 *          [-o FILE] [--stats] [--cpu] [-d N] [-g N] [--gpus LIST] [--exchange WAY] [file | -]
 *   gpu-vi -p PROPERTY... | -P FILE [--json] [--export-scheduler FILE] [options] [file | -]
 *
 * Properties (format/props.h): P, Pmin, Pmax of F and U paths, step-bounded
 * (reach_solve_bounded), expected rewards R [ F ] (reach_solve_reward, the
 * structures of CSR 1.2), each printed "PROPERTY: value" (Infinity for an
 * infinite reward); one Prob0/Prob1 per distinct query of a run (a cache in
 * front of the backend's); --export-scheduler: reach_scheduler's choices.
 * Query: Pmax or Pmin of reaching a state labelled -t, only through states
 * not labelled -a (!a U t); -m is ignored for DTMCs.  Output: the value of
 * each initial state, one per line ("%.17g"), in increasing original state
 * order; -o FILE: every state's value, one per line, in PRISM's original
 * numbering (for labelcmp -n).
 * Algorithm (check/reach.h, gpu/reach_gpu.h): Prob0/Prob1 (Baier & Katoen
 * 10.6) on the GPU; for Pmax the MECs (gpu/mec.h, --scheme);
 * certified policy iteration (default, --method pi: ref/reach_pi.c,
 * gpu/reach/pi.cu), interval iteration (--method ii; either way the answer
 * is within eps of the exact value, relative or absolute) or plain value
 * iteration (--vi) on the GPU, after Berger 2014 chapter 3.  When the system needs more device memory than is
 * free, or than --mem-limit, the split of Berger's section 3.3: SCCs (on the
 * GPU when they fit) in topological order, joined greedily while they fit,
 * solved in order; an SCC too large alone is solved on the CPU.
 * -g N / --gpus LIST: the model split into N parts over the GPUs (issue 18;
 * several parts a GPU where fewer are there: the simulated mode):
 * Prob0/Prob1 on the CPU, the maybe states' MECs by gpu_mec_partitioned and
 * the interval (or value) iteration over the parts by
 * gpu_reach_iterate_partitioned (Jacobi sweeps: the same bits for every N);
 * with --cpu, the same over the same parts on the CPU (ref/reach_parts.h).
 * Not for OVI, rewards or step bounds.
 * --cpu: the same algorithm, sequential (ref/reach_ref.h), the benchmark baseline.
 * Exit 0 ok, 1 bad input or no convergence, 2 usage (unknown label or reward
 * structure), 3 no GPU or a GPU failure.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "multi.h"
#include "reach.h"
#include "reach_parts.h"
#include "props.h"
#include "reach_gpu.h"
#include "reach_ref.h"
#include "hugepages.h"
#include "textin.h"
#include "tool.h"

enum {
    OPT_ABS = GPU_OPT_TOOL, OPT_REL, OPT_VI, OPT_METHOD, OPT_MAX_ITERS, OPT_MEM_LIMIT, OPT_THREADS, OPT_JSON,
    OPT_SCHEDULER, OPT_SWEEP_CLASSES, OPT_SCHEME
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s -t LABEL [-a LABEL] -m max|min [options] [file | -]\n"
            "       %s -p PROPERTY... | -P FILE [options] [file | -]\n"
            "Pmax or Pmin of reaching the states labelled -t (through states not\n"
            "labelled -a), or PRISM properties (also step bounds and expected rewards),\n"
            "in a CSR model with probabilities and labels (prism2csr -l, or a UMB\n"
            "export with rewards), standard input if no file.  Prints the value of each\n"
            "initial state.\n"
            "  -p PROPERTY            a property in PRISM's syntax: P=?, Pmin=? or Pmax=?\n"
            "                         [ F phi ] or [ phi U psi ], also step-bounded (F<=k,\n"
            "                         U<=k), or R{\"name\"}min=? / Rmax=? [ F phi ] (expected\n"
            "                         reward, Infinity where phi is missed); phi and psi\n"
            "                         made of \"labels\", true, false, !, &, | and ( );\n"
            "                         repeatable; prints \"PROPERTY: value\" per property\n"
            "  -P FILE                the properties of a PRISM .props file, one a line\n"
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
            "  --max-iters N          iteration limit per system, default %u\n"
            "  --mem-limit BYTES      split into SCC groups when the system needs more\n"
            "                         device memory (suffix k, M, G); default: free memory\n"
            "  --threads-per-state N  GPU threads per state's choices (1..32, power of 2)\n"
            "  --sweep-classes N      Gauss-Seidel order on the GPU: the maybe states in N\n"
            "                         classes by distance to the fixed states (mod N),\n"
            "                         swept one after the other; 1: Jacobi (1..%u,\n"
            "                         default %u)\n"
            "  --scheme S             the MEC decompositions' scheme, as gpu-mec's:\n"
            "                         rounds, interleave (lp engine) or auto (the\n"
            "                         default: interleave below 3 transitions a state)\n"
            "  -o FILE                every state's value, one per line, original numbering\n"
            "  --export-scheduler FILE  an optimal memoryless scheduler of the (one,\n"
            "                         unbounded) property: per state in original numbering\n"
            "                         \"STATE CHOICE [ACTION]\" (CHOICE: index within the state,\n"
            "                         as in the .tra), \"STATE -\" for a state without choices\n",
            tool_name, tool_name, REACH_DEFAULT_MAX_ITERATIONS, GPU_REACH_MAX_SWEEP_CLASSES, GPU_REACH_SWEEP_CLASSES);
    fputs("Options of the SCC decomposition of the split (as gpu-scc):\n", out);
    gpu_tool_usage(out);
    gpu_tool_parts_usage(out);
    fputs("  (gpu-vi -g: Prob0/Prob1 on the CPU, the MECs and the iteration over the\n"
          "  parts, Jacobi sweeps, the same bits for every N; ii or vi, unbounded P)\n",
          out);
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
/* Whether the model has label name; if not, says so with the model's labels
 * (the message of -t and -a). */
static int label_known(const csr_model *m, const char *name)
{
    if (csr_find_label(m, name) >= 0)
        return 1;
    fprintf(stderr, "%s: no label \"%s\"; the model's labels:", tool_name, name);
    for (uint64_t i = 0; i < m->labels.count; i++)
        fprintf(stderr, " %s", m->labels.names[i]);
    fputc('\n', stderr);
    return 0;
}

/* The properties of one run: from -t/-a/-m (bare: values alone, one per
 * line, as before -p existed) or from -p and -P (each line "PROPERTY: value",
 * or "PROPERTY: s=value ..." with PRISM's state numbers where there are
 * several initial states). */
typedef struct property_list {
    prop_property *items;
    size_t count;
    int bare;
} property_list;

static void property_list_free(property_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        prop_free(&l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

/* Parse text and append it: CSR_OK or the parser's code. */
static int add_property(property_list *l, const char *text, csr_status *st)
{
    prop_property *more = (prop_property *)realloc(l->items, (l->count + 1) * sizeof *more);
    if (!more)
        return CSR_ERR_NOMEM;
    l->items = more;
    int rc = prop_parse(text, &l->items[l->count], st);
    if (!rc)
        l->count++;
    return rc;
}

/* -t T [-a A] -m D as the property P{D}=? [ !"A" U "T" ]: an exit status. */
static int query_property(const char *target, const char *avoid, const char *dir, property_list *l)
{
    char text[1024];
    int len = avoid ? snprintf(text, sizeof text, "P%s=? [ !\"%s\" U \"%s\" ]", dir ? dir : "", avoid, target)
                    : snprintf(text, sizeof text, "P%s=? [ F \"%s\" ]", dir ? dir : "", target);
    if (len < 0 || (size_t)len >= sizeof text || strchr(target, '"') || (avoid && strchr(avoid, '"'))) {
        tool_error("bad label name in -t or -a");
        return EXIT_USAGE;
    }
    csr_status st;
    memset(&st, 0, sizeof st);
    if (add_property(l, text, &st)) {
        tool_error("-t/-a: %s", st.detail);
        return EXIT_USAGE;
    }
    return 0;
}

/* The properties of a file, one per line (empty lines and // comments
 * skipped): 0, or 1 with the message printed (FILE:LINE: ...). */
static int read_properties(const char *path, property_list *l)
{
    textin in;
    csr_status st;
    memset(&st, 0, sizeof st);
    if (textin_open(&in, path, &st)) {
        tool_report_failure(path, st.code, &st);
        return 1;
    }
    char *line;
    size_t length;
    int got, bad = 0;
    while (!bad && (got = textin_next(&in, &line, &length, &st)) > 0) {
        char *text = line + strspn(line, " \t");
        if (!*text || strncmp(text, "//", 2) == 0)
            continue;
        memset(&st, 0, sizeof st);
        if (add_property(l, text, &st)) {
            tool_error("%s:%llu: %s%s", tool_input_name(path), (unsigned long long)in.line,
                       st.code == CSR_ERR_SYNTAX ? "syntax error: " : "", st.detail);
            bad = 1;
        }
    }
    if (!bad && got < 0) {
        tool_report_failure(path, -got, &st);
        bad = 1;
    }
    if (!bad && l->count == 0) {
        tool_error("%s: no property", tool_input_name(path));
        bad = 1;
    }
    textin_close(&in);
    return bad;
}

/* Target and avoid flags of one property (avoid: the states outside phi
 * and outside the target, for phi U psi): 0 or an exit status, the message
 * printed (an unknown label: the model's labels, status 2). */
static int property_flags(const csr_model *m, const prop_property *p, int bare, uint8_t *target, uint8_t *avoid,
                          csr_status *st)
{
    /* -t/-a: an unknown label's message lists the model's labels, as before -p */
    if (bare && (!label_known(m, p->target->label) || (p->avoid && !label_known(m, p->avoid->a->label))))
        return EXIT_USAGE;
    int rc = prop_states(m, p->target, target, st);
    if (!rc && p->avoid)
        rc = prop_states(m, p->avoid, avoid, st);
    if (rc) {
        tool_error("'%s': %s", p->text, st->detail);
        memset(st, 0, sizeof *st);
        return rc == CSR_ERR_NOMEM ? EXIT_BAD_INPUT : EXIT_USAGE;
    }
    if (p->avoid)
        for (uint64_t s = 0; s < m->num_states; s++)
            avoid[s] = !avoid[s] && !target[s];
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
        if (isinf(orig[s]))
            fputs("Infinity\n", f);
        else
            fprintf(f, "%.17g\n", orig[s]);
    if (f && fclose(f))
        rc = -1;
    free(orig);
    return rc;
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

/* The reward structure of an R property: its index, or -1 with the message
 * printed (the model's structures listed). */
static int64_t reward_structure(const csr_model *m, const prop_property *p)
{
    int64_t r = p->reward_name ? csr_find_reward(m, p->reward_name) : p->reward_index >= 0 ? p->reward_index : 0;
    if (r >= 0 && (uint64_t)r < m->rewards.count)
        return r;
    if (!m->rewards.count) {
        tool_error("'%s': the model has no reward structure (convert from a UMB export with rewards)", p->text);
        return -1;
    }
    fprintf(stderr, "%s: '%s': no such reward structure; the model's:", tool_name, p->text);
    for (uint64_t i = 0; i < m->rewards.count; i++)
        fprintf(stderr, " %llu=\"%s\"", (unsigned long long)i + 1, m->rewards.names[i]);
    fputc('\n', stderr);
    return -1;
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
    if (f && fclose(f) && !rc)
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

/* By enum reach_method. */
static const char *const method_names[] = {"ii", "vi", "ovi", "pi"};
static const char *const method_titles[] = {"interval iteration", "value iteration", "optimistic value iteration",
                                            "certified policy iteration"};

int main(int argc, char **argv)
{
    tool_name = "gpu-vi";
    argv[0] = (char *)tool_name; /* getopt names the tool in its messages, not its path */
    gpu_tool_options o;
    gpu_tool_defaults(&o);
    reach_options ro;
    reach_default_options(&ro);
    ro.method = REACH_PI; /* the fastest sound method here (bench/RESULTS.md); --method ii for interval iteration alone */
    const char *target = NULL, *avoid = NULL, *dir = NULL, *out_path = NULL, *props_path = NULL, *sched_path = NULL;
    const char *prop_args[64];
    int num_prop_args = 0;
    uint64_t mem_limit = 0;
    int have_limit = 0, threads = 0, json_out = 0, method_given = 0;
    unsigned sweep_classes = 0;
    gpu_mec_scheme scheme = GPU_MEC_AUTO;
    static const struct option longopts[] = {GPU_LONG_OPTIONS, GPU_PARTS_LONG_OPTIONS,
                                             {"abs", no_argument, 0, OPT_ABS},
                                             {"rel", no_argument, 0, OPT_REL},
                                             {"vi", no_argument, 0, OPT_VI},
                                             {"method", required_argument, 0, OPT_METHOD},
                                             {"max-iters", required_argument, 0, OPT_MAX_ITERS},
                                             {"mem-limit", required_argument, 0, OPT_MEM_LIMIT},
                                             {"threads-per-state", required_argument, 0, OPT_THREADS},
                                             {"sweep-classes", required_argument, 0, OPT_SWEEP_CLASSES},
                                             {"scheme", required_argument, 0, OPT_SCHEME},
                                             {"json", no_argument, 0, OPT_JSON},
                                             {"export-scheduler", required_argument, 0, OPT_SCHEDULER},
                                             {0, 0, 0, 0}};
    int c;
    gpu_tool_parts x;
    memset(&x, 0, sizeof x);
    while ((c = getopt_long(argc, argv, GPU_SHORT_OPTIONS GPU_PARTS_SHORT_OPTIONS "t:a:m:e:o:p:P:", longopts, NULL)) !=
           -1) {
        int done = gpu_tool_option(c, optarg, &o);
        if (!done)
            done = gpu_tool_parts_option(c, optarg, &x);
        if (done < 0)
            return EXIT_USAGE;
        if (done)
            continue;
        char *end;
        switch (c) {
        case 't': target = optarg; break;
        case 'p':
            if (num_prop_args == (int)(sizeof prop_args / sizeof *prop_args)) {
                tool_error("at most %d -p options (put more in a file for -P)", num_prop_args);
                return EXIT_USAGE;
            }
            prop_args[num_prop_args++] = optarg;
            break;
        case 'P': props_path = optarg; break;
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
        case OPT_JSON: json_out = 1; break;
        case OPT_SCHEDULER: sched_path = optarg; break;
        case OPT_METHOD:
            method_given = 1;
            if (!strcmp(optarg, "ii"))
                ro.method = REACH_II;
            else if (!strcmp(optarg, "ovi"))
                ro.method = REACH_OVI;
            else if (!strcmp(optarg, "vi"))
                ro.method = REACH_VI;
            else if (!strcmp(optarg, "pi"))
                ro.method = REACH_PI;
            else {
                tool_error("--method takes ii, ovi, pi or vi, not \"%s\"", optarg);
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
        case OPT_SWEEP_CLASSES: {
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 1 || v > GPU_REACH_MAX_SWEEP_CLASSES) {
                tool_error("--sweep-classes takes a count from 1 to %d, not \"%s\"", GPU_REACH_MAX_SWEEP_CLASSES,
                           optarg);
                return EXIT_USAGE;
            }
            sweep_classes = (unsigned)v;
            break;
        }
        case OPT_SCHEME:
            if (gpu_tool_parse_mec_scheme(optarg, &scheme) < 0)
                return EXIT_USAGE;
            break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (gpu_tool_finish_options(&o))
        return EXIT_USAGE;
    gpu_tool_parts_finish(&x, &o);
    if (x.parts && ((method_given && ro.method != REACH_II && ro.method != REACH_VI) || have_limit || threads ||
                    sweep_classes)) {
        tool_error("-g: the iteration over parts takes --method ii or vi, and neither --mem-limit, "
                   "--threads-per-state nor --sweep-classes");
        return EXIT_USAGE;
    }
    if (x.parts && ro.method == REACH_PI) /* the default: over parts, interval iteration */
        ro.method = REACH_II;
    if (gpu_tool_check_mec_scheme(scheme, &o.scc))
        return EXIT_USAGE;
    if (x.parts && scheme != GPU_MEC_AUTO) {
        tool_error("-g: the MECs over parts take their own rounds; --scheme is for one GPU");
        return EXIT_USAGE;
    }
    if (o.use_cpu && ro.method == REACH_OVI) {
        tool_error("--method ovi runs on the GPU; the CPU reference iterates ii, pi or vi");
        return EXIT_USAGE;
    }
    if (!target && !num_prop_args && !props_path) {
        tool_error("no query: give -t LABEL (with -m), -p PROPERTY or -P FILE");
        usage(stderr);
        return EXIT_USAGE;
    }
    if (target && (num_prop_args || props_path)) {
        tool_error("-t asks one query, -p and -P properties: give one form or the other");
        return EXIT_USAGE;
    }
    property_list props = {NULL, 0, !!target};
    if (target) {
        int ex = query_property(target, avoid, dir, &props);
        if (ex)
            return ex;
    }
    for (int i = 0; i < num_prop_args; i++) {
        csr_status ps;
        memset(&ps, 0, sizeof ps);
        int ex = add_property(&props, prop_args[i], &ps);
        if (ex) {
            tool_error("-p '%s': %s%s", prop_args[i], ps.code == CSR_ERR_SYNTAX ? "syntax error: " : "", ps.detail);
            property_list_free(&props);
            return ex == CSR_ERR_NOMEM ? EXIT_BAD_INPUT : EXIT_USAGE;
        }
    }
    if (props_path && read_properties(props_path, &props)) {
        property_list_free(&props);
        return EXIT_BAD_INPUT;
    }
    if ((out_path || sched_path) && props.count != 1) {
        tool_error("%s writes the %s of one query; %zu asked", out_path ? "-o" : "--export-scheduler",
                   out_path ? "vector" : "scheduler", props.count);
        property_list_free(&props);
        return EXIT_USAGE;
    }
    for (size_t i = 0; x.parts && i < props.count; i++)
        if (props.items[i].steps >= 0 || props.items[i].reward) {
            tool_error("-g: '%s': step-bounded and reward properties are not iterated over parts",
                       props.items[i].text);
            property_list_free(&props);
            return EXIT_USAGE;
        }
    if (sched_path && props.items[0].steps >= 0) {
        tool_error("--export-scheduler: a step-bounded property's optimal schedulers need memory (the step count); "
                   "only unbounded ones are exported");
        property_list_free(&props);
        return EXIT_USAGE;
    }
    const char *path;
    csr_model m;
    gpu_tool_times times;
    int exit_status = gpu_tool_load(argc, argv, usage, o.use_cpu, o.device, &path, &m, &times);
    if (exit_status) {
        property_list_free(&props);
        return exit_status;
    }
    if (x.parts && !o.use_cpu && gpu_tool_parts_devices(&x)) {
        csr_free(&m);
        property_list_free(&props);
        return EXIT_DEVICE;
    }
    const double t0 = times.read_start;
    const char *name = tool_input_name(path);
    const uint64_t n = m.num_states, nc = m.num_choices;
    if (!m.probabilities) {
        tool_error("%s: no probabilities (a graph-only CSR file); convert with prism2csr", name);
        csr_free(&m);
        property_list_free(&props);
        return EXIT_BAD_INPUT;
    }
    if (!m.labels.count) {
        tool_error("%s: no labels; convert with prism2csr -l FILE.lab", name);
        csr_free(&m);
        property_list_free(&props);
        return EXIT_BAD_INPUT;
    }
    for (size_t i = 0; i < props.count; i++) {
        const prop_property *p = &props.items[i];
        if ((m.model_type == CSR_MDP && p->direction == PROP_ANY) || (p->reward && reward_structure(&m, p) < 0)) {
            if (p->reward && !(m.model_type == CSR_MDP && p->direction == PROP_ANY))
                ; /* said */
            else if (props.bare)
                tool_error("%s is an MDP: say -m max or -m min", name);
            else
                tool_error("%s is an MDP: '%s' needs %smin=? or %smax=?", name, p->text, p->reward ? "R" : "P",
                           p->reward ? "R" : "P");
            csr_free(&m);
            property_list_free(&props);
            return EXIT_USAGE;
        }
    }
    uint8_t *tflags = (uint8_t *)malloc(n ? n : 1), *aflags = (uint8_t *)malloc(n ? n : 1);
    double *values = (double *)malloc((n ? n : 1) * sizeof(double));
    if (values) /* written once per property: 512 times fewer page faults (coin6_4: 12 ms of them) */
        advise_huge_pages(values, n * sizeof(double));
    int status_code = EXIT_OK, rc = CSR_OK;
    json_t *results = NULL; /* --json: one object per property, printed when all are answered */
    csr_status st;
    memset(&st, 0, sizeof st);
    reach_stats rs;
    memset(&rs, 0, sizeof rs);
    /* The engine that holds the model for the run: the GPU's (the model
     * resident on the device), the parts' (-g), or the references' (--cpu). */
    gpu_reach_options gro;
    gpu_reach_default_options(&gro);
    gro.threads_per_state = threads;
    gro.sweep_classes = sweep_classes;
    gro.memory_limit = have_limit ? mem_limit : 0;
    gro.scc = o.scc;
    gro.mec_scheme = scheme;
    gpu_reach_context cx;
    memset(&cx, 0, sizeof cx);
    gpu_tool_parts_engine pe;
    memset(&pe, 0, sizeof pe);
    pe.model = &m;
    pe.pcx.parts = x.options.parts;
    pe.pcx.gpus = &x.options;
    pe.pcx.status = &st;
    pe.use_cpu = o.use_cpu;
    reach_engine engine;
    if (x.parts)
        gpu_tool_parts_reach_engine(&pe, &engine);
    else if (o.use_cpu)
        reach_cpu_engine(&m, &engine);
    else if ((rc = gpu_reach_engine(&m, &gro, &cx, &engine, &st)))
        goto done;
    if (have_limit)
        engine.budget = mem_limit;
    engine.cache = reach_cache_new(n);
    if (!tflags || !aflags || !values) {
        rc = CSR_ERR_NOMEM;
        goto done;
    }
    results = json_out ? json_array() : NULL;
    for (size_t pi = 0; pi < props.count; pi++) /* every label known before anything is printed */
        if ((status_code = property_flags(&m, &props.items[pi], props.bare, tflags, aflags, &st)))
            goto done;
    for (size_t pi = 0; pi < props.count; pi++) {
    const prop_property *prop = &props.items[pi];
    /* rewards have no a-priori upper bound: their interval iteration is optimistic */
    const int used_method = prop->reward && ro.method == REACH_II ? REACH_OVI : ro.method;
    reach_pi_stats pis;
    memset(&pis, 0, sizeof pis);
    ro.pi_stats = &pis;
    gpu_reach_reset_stats(&cx);
    memset(&rs, 0, sizeof rs);
    memset(&pe.pcx.stats, 0, sizeof pe.pcx.stats);
    pe.mec_rounds = 0;
    if ((status_code = property_flags(&m, prop, props.bare, tflags, aflags, &st)))
        goto done;
    {
        reach_query q = {tflags, prop->avoid ? aflags : NULL, m.model_type == CSR_MDP ? prop->direction == PROP_MAX : 1};
        if (prop->steps >= 0) {
            rc = reach_solve_bounded(&engine, &q, (uint64_t)prop->steps, values, &rs);
        } else if (prop->reward) {
            const double *sr, *cr;
            csr_reward_arrays(&m, (uint64_t)reward_structure(&m, prop), &sr, &cr);
            rc = reach_solve_reward(&engine, &q, sr, cr, &ro, values, NULL, NULL, &rs);
        } else {
            rc = reach_solve(&engine, &q, &ro, values, NULL, NULL, &rs);
        }
        if (rc == CSR_ERR_STALLED) {
            tool_error("%s: the values stopped changing at a difference of %g > %g (the floating-point resolution "
                       "of these values): ask for a larger -e",
                       name, rs.final_difference, ro.epsilon);
            status_code = EXIT_BAD_INPUT;
            rc = CSR_OK; /* said */
            goto done;
        }
        if (rc == CSR_ERR_USAGE) { /* -g: NCCL where it cannot run */
            tool_error("%s", st.detail);
            status_code = EXIT_USAGE;
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
        if (sched_path) {
            const double *sr = NULL, *cr = NULL;
            if (prop->reward)
                csr_reward_arrays(&m, (uint64_t)reward_structure(&m, prop), &sr, &cr);
            reach_query q = {tflags, prop->avoid ? aflags : NULL,
                             m.model_type == CSR_MDP ? prop->direction == PROP_MAX : 1};
            int wrc = write_scheduler(sched_path, &m, &q, sr, cr, values, ro.epsilon);
            if (wrc) {
                if (wrc == CSR_ERR_NOMEM)
                    rc = wrc;
                else
                    tool_error("%s: %s", sched_path, strerror(errno));
                free(pairs);
                status_code = EXIT_BAD_INPUT;
                goto done;
            }
        }
        if (results) {
            json_t *r = json_object(), *vs = json_array();
            json_object_set_new(r, "property", json_string(prop->text));
            for (uint64_t i = 0; i < m.num_initial; i++) {
                json_t *v = json_object();
                json_object_set_new(v, "state", json_integer((json_int_t)pairs[2 * i]));
                json_object_set_new(v, "value", json_value(values[pairs[2 * i + 1]]));
                json_array_append_new(vs, v);
            }
            json_object_set_new(r, "initial", vs);
            json_object_set_new(r, "maybe", json_integer((json_int_t)rs.maybe));
            json_object_set_new(r, "iterations", json_integer((json_int_t)rs.iterations));
            json_object_set_new(r, "final_difference", json_real(rs.final_difference));
            json_object_set_new(r, "seconds", json_real(rs.total_s));
            json_array_append_new(results, r);
        } else if (props.bare) {
            for (uint64_t i = 0; i < m.num_initial; i++) {
                print_value("", values[pairs[2 * i + 1]]);
                putchar('\n');
            }
        } else {
            printf("%s:", prop->text);
            for (uint64_t i = 0; i < m.num_initial; i++) {
                char before[32];
                if (m.num_initial == 1)
                    snprintf(before, sizeof before, " ");
                else
                    snprintf(before, sizeof before, " %llu=", (unsigned long long)pairs[2 * i]);
                print_value(before, values[pairs[2 * i + 1]]);
            }
            putchar('\n');
        }
        free(pairs);
        if (fflush(stdout) || ferror(stdout)) {
            tool_error("(stdout): write error");
            status_code = EXIT_BAD_INPUT;
            goto done;
        }
    }
    if (o.stats == GPU_STATS_JSON) {
        json_t *j = gpu_stats_json_begin(&m, &times);
        json_object_set_new(j, "property", json_string(prop->text));
        json_object_set_new(j, "yes", json_integer((json_int_t)rs.yes));
        json_object_set_new(j, "no", json_integer((json_int_t)rs.no));
        json_object_set_new(j, "maybe", json_integer((json_int_t)rs.maybe));
        json_object_set_new(j, "mecs", json_integer((json_int_t)rs.mecs));
        json_object_set_new(j, "mec_states", json_integer((json_int_t)rs.mec_states));
        json_object_set_new(j, "method", json_string(prop->steps >= 0 ? "bounded" : method_names[used_method]));
        json_object_set_new(j, "split", json_boolean(rs.split));
        json_object_set_new(j, "groups", json_integer((json_int_t)rs.groups));
        json_object_set_new(j, "sccs", json_integer((json_int_t)rs.sccs));
        json_object_set_new(j, "cpu_groups", json_integer((json_int_t)rs.cpu_groups));
        json_object_set_new(j, "iterations", json_integer((json_int_t)rs.iterations));
        json_object_set_new(j, "final_difference", json_real(rs.final_difference));
        json_object_set_new(j, "bytes_needed", json_integer((json_int_t)rs.bytes_needed));
        json_object_set_new(j, "prob01_s", json_real(rs.prob01_s));
        json_object_set_new(j, "prob01_computed", json_integer((json_int_t)reach_cache_computed(engine.cache))); /* so far in this run */
        json_object_set_new(j, "mec_s", json_real(rs.mec_s));
        json_object_set_new(j, "split_s", json_real(rs.split_s));
        json_object_set_new(j, "iterate_s", json_real(rs.iterate_s));
        if (used_method == REACH_PI) {
            json_t *pj = json_object();
            json_object_set_new(pj, "attempts", json_integer((json_int_t)pis.attempts));
            json_object_set_new(pj, "certified", json_integer((json_int_t)pis.certified));
            json_object_set_new(pj, "jacobi", json_integer((json_int_t)pis.jacobi));
            json_object_set_new(pj, "steps", json_integer((json_int_t)pis.steps));
            json_object_set_new(pj, "matvecs", json_integer((json_int_t)pis.matvecs));
            json_object_set_new(pj, "rounds", json_integer((json_int_t)pis.rounds));
            json_object_set_new(pj, "certificate", json_real(pis.certificate));
            json_object_set_new(j, "pi", pj);
        }
        if (x.parts) {
            const reach_parts_stats *ps = &pe.pcx.stats;
            gpu_parts_stats pst;
            memset(&pst, 0, sizeof pst);
            pst.exchange = ps->exchange ? ps->exchange : "copies";
            pst.foreign = ps->foreign;
            pst.passes = ps->passes;
            pst.exchanged_bytes = ps->exchanged;
            pst.partition_s = ps->partition_s;
            pst.upload_s = ps->upload_s;
            pst.download_s = ps->download_s;
            gpu_stats_json_parts(j, &x, &pst, o.use_cpu);
            json_object_set_new(j, "span_mecs", json_integer((json_int_t)ps->span_mecs));
            json_object_set_new(j, "mec_rounds", json_integer((json_int_t)pe.mec_rounds));
            if (!o.use_cpu)
                json_object_set_new(j, "resident_s", json_real(ps->resident_s));
        } else if (!o.use_cpu) {
            json_object_set_new(j, "prob01_levels", json_integer((json_int_t)cx.stats.prob01_sweeps));
            json_object_set_new(j, "prob01_on_cpu", json_boolean(cx.stats.prob01_on_cpu));
            json_object_set_new(j, "prob1e_by_mecs", json_boolean(cx.stats.prob1e_by_mecs));
            json_object_set_new(j, "mec_scheme", cx.stats.mec_scheme_used ? json_string(cx.stats.mec_scheme_used) : json_null());
            json_object_set_new(j, "threads_per_state", json_integer(cx.stats.used_threads));
            json_object_set_new(j, "sweep_classes", json_integer(cx.stats.used_sweep_classes));
            json_object_set_new(j, "sweep_rounds", json_integer((json_int_t)cx.stats.sweep_rounds));
            json_object_set_new(j, "mec_gpu_upload_s", json_real(cx.stats.mec_upload_s));
            json_object_set_new(j, "mec_gpu_resident_s", json_real(cx.stats.mec_resident_s));
            json_object_set_new(j, "mec_gpu_download_s", json_real(cx.stats.mec_download_s));
            json_object_set_new(j, "compact_s", json_real(cx.stats.compact_s));
            json_object_set_new(j, "sweep_classes_s", json_real(cx.stats.sweep_s));
            json_object_set_new(j, "upload_s", json_real(cx.stats.h2d_s));
            json_object_set_new(j, "gpu_iterate_s", json_real(cx.stats.iterate_s));
            json_object_set_new(j, "pi_s", json_real(cx.stats.pi_s));
            json_object_set_new(j, "download_s", json_real(cx.stats.d2h_s));
            json_object_set_new(j, "probability_dictionary", json_boolean(cx.stats.used_dictionary));
            json_object_set_new(j, "ovi_guesses", json_integer((json_int_t)cx.stats.ovi_guesses));
            json_object_set_new(j, "device_bytes", json_integer((json_int_t)cx.stats.device_bytes));
        }
        gpu_stats_json_print(j);
    } else if (o.stats) {
        fprintf(stderr,
                prop->reward ? "%s: %llu states, %llu choices, %llu transitions; targets %llu, infinite %llu, finite %llu "
                               "states; %llu zero-reward MECs with %llu states collapsed\n"
                             : "%s: %llu states, %llu choices, %llu transitions; Prob1 %llu, Prob0 %llu, maybe %llu "
                               "states; %llu MECs with %llu states collapsed\n",
                tool_name, (unsigned long long)n, (unsigned long long)nc, (unsigned long long)m.num_transitions,
                (unsigned long long)rs.yes, (unsigned long long)rs.no, (unsigned long long)rs.maybe,
                (unsigned long long)rs.mecs, (unsigned long long)rs.mec_states);
        fprintf(stderr,
                "%s: %s, %s path: %llu groups (%llu SCCs, %llu on the CPU), %llu iterations, final difference %.3g "
                "(%s); memory needed %llu bytes\n",
                tool_name, prop->steps >= 0 ? "step-bounded iteration" : method_titles[used_method],
                rs.split ? "split" : "whole",
                (unsigned long long)rs.groups, (unsigned long long)rs.sccs, (unsigned long long)rs.cpu_groups,
                (unsigned long long)rs.iterations, rs.final_difference, ro.relative ? "relative" : "absolute",
                (unsigned long long)rs.bytes_needed);
        if (used_method == REACH_PI)
            fprintf(stderr,
                    "%s: policy iteration: %llu of %llu systems certified; %llu Jacobi iterations, %llu policy steps, "
                    "%llu matrix products, %llu exit-time rounds; certificate d %.3g\n",
                    tool_name, (unsigned long long)pis.certified, (unsigned long long)pis.attempts,
                    (unsigned long long)pis.jacobi, (unsigned long long)pis.steps, (unsigned long long)pis.matvecs,
                    (unsigned long long)pis.rounds, pis.certificate);
        fprintf(stderr,
                "%s: read %.4f s, waiting for the CUDA context %.4f s, Prob0/Prob1 %.4f s, MECs %.4f s, SCCs %.4f s, "
                "iteration %.4f s\n",
                tool_name, times.read_end - t0, times.device_ready - times.read_end, rs.prob01_s, rs.mec_s, rs.split_s,
                rs.iterate_s);
        if (x.parts)
            fprintf(stderr,
                    "%s: %d parts%s: %llu foreign states, %llu MECs over several parts, %llu bytes exchanged; "
                    "partition %.4f s, upload %.4f s, resident %.4f s, download %.4f s\n",
                    tool_name, x.parts, o.use_cpu ? " on the CPU" : "", (unsigned long long)pe.pcx.stats.foreign,
                    (unsigned long long)pe.pcx.stats.span_mecs, (unsigned long long)pe.pcx.stats.exchanged,
                    pe.pcx.stats.partition_s, pe.pcx.stats.upload_s, pe.pcx.stats.resident_s,
                    pe.pcx.stats.download_s);
        else if (!o.use_cpu)
            fprintf(stderr,
                    "%s: GPU: %llu Prob0/Prob1 %s%s; %d threads per state%s%s, %u sweep classes (%.4f s); compaction "
                    "%.4f s, host-to-device %.4f s, iterations %.4f s (%.1f us each, about %.1f GB/s), device-to-host "
                    "%.4f s; %llu device bytes\n",
                    tool_name, (unsigned long long)cx.stats.prob01_sweeps, gro.scc.persistent ? "searches" : "search levels",
                    cx.stats.prob01_on_cpu ? " (on the CPU: too large)" : "",
                    cx.stats.used_threads,
                    cx.stats.used_rows ? " (a warp per choice)" : "",
                    cx.stats.used_dictionary ? ", probabilities by dictionary" : "", cx.stats.used_sweep_classes, cx.stats.sweep_s,
                    cx.stats.compact_s, cx.stats.h2d_s, cx.stats.iterate_s,
                    rs.iterations ? 1e6 * cx.stats.iterate_s / (double)rs.iterations : 0.0,
                    cx.stats.iterate_s > 0 && rs.groups == 1 ? (double)cx.stats.bytes_per_iteration * (double)rs.iterations /
                                                             cx.stats.iterate_s / 1e9
                                                       : 0.0,
                    cx.stats.d2h_s, (unsigned long long)cx.stats.device_bytes);
    }
    }
    if (results) {
        json_t *j = json_object();
        json_object_set_new(j, "tool", json_string(tool_name));
        json_object_set_new(j, "model", json_string(name));
        json_object_set_new(j, "method", json_string(method_names[ro.method]));
        json_object_set_new(j, "epsilon", json_real(ro.epsilon));
        json_object_set_new(j, "relative", json_boolean(ro.relative));
        json_object_set_new(j, "properties", results);
        results = NULL;
        int bad = json_dumpf(j, stdout, JSON_COMPACT | JSON_REAL_PRECISION(17)) != 0;
        json_decref(j);
        if (bad || putchar('\n') == EOF || fflush(stdout) || ferror(stdout)) {
            tool_error("(stdout): write error");
            status_code = EXIT_BAD_INPUT;
        }
    }
done:
    reach_cache_free(engine.cache);
    json_decref(results);
    gpu_reach_close(&cx);
    if (rc) {
        tool_report_failure(path, rc, &st);
        status_code = rc == CSR_ERR_DEVICE ? EXIT_DEVICE : EXIT_BAD_INPUT;
    }
    free(tflags);
    free(aflags);
    free(values);
    csr_free(&m);
    property_list_free(&props);
    return status_code;
}
