/*
 * gpu-acc - is there an accepting cycle reachable from an initial state?
 * The emptiness check of automata-based LTL model checking, on the graph of
 * a CSR model (an edge for every transition of every choice).
 *
 *   gpu-acc [-a LABEL] [--algo owcty|map] [--cpu] [--no-witness] [--stats[=json]]
 *           [-d N] [file | -]
 *   gpu-acc --mdp [-a LABEL] [-o FILE] [--cpu] [file | -]
 *
 * --mdp: the qualitative Buchi questions of an MDP (a product with an
 * automaton): the states with Pmax(G F LABEL) = 1 and > 0, as the states that
 * reach an accepting MEC (one holding a LABEL state) almost surely (Prob1E)
 * and at all (not Prob0A) (Baier & Katoen, ch. 10.6.3; de Alfaro 1997):
 * gpu_mec_decompose and gpu_reach_prob01 on the GPU, ref_mec_basic and
 * ref_reach_prob01 with --cpu.
 * GPU: OWCTY (default) or MAP of the DiVinE-CUDA slides (gpu/acc_gpu.h);
 * --cpu: nested DFS (ref/acc.h), or the sequential OWCTY / MAP with --algo.
 * Output: "no accepting cycle" (exit 0), or the lasso that witnesses one
 * (exit 3): "accepting cycle through state A", "prefix: ..." from an initial
 * state to A and "cycle: A ..." back to A, states in PRISM's numbering; a
 * GPU answer's lasso is made on the host inside the states the algorithm
 * kept (acc_lasso_build).  Exit 0 none, 1 bad input, 2 usage, 3 an
 * accepting cycle, 4 no GPU or a GPU failure.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "acc.h"
#include "acc_gpu.h"
#include "gpu.h"
#include "mec.h"
#include "reach.h"
#include "reach_gpu.h"
#include "reach_ref.h"
#include "ref.h"
#include "tool.h"

enum { OPT_ALGO = GPU_OPT_TOOL, OPT_NO_WITNESS, OPT_MDP };
enum { EXIT_CYCLE = 3, EXIT_GPU = 4 };
enum { ALGO_OWCTY, ALGO_MAP, ALGO_NDFS };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [-a LABEL] [--algo owcty|map] [--cpu] [--no-witness] [--stats[=json]] [-d N] [file | -]\n"
            "       %s --mdp [-a LABEL] [-o FILE] [--cpu] [-d N] [file | -]\n"
            "Is there a cycle through a state labelled LABEL (default \"accepting\"),\n"
            "reachable from an initial state, in the graph of a CSR model (every\n"
            "transition of every choice an edge)?  Standard input if no file.\n"
            "  -a LABEL          the accepting states (default accepting)\n"
            "  --algo owcty|map  OWCTY (default: forward reachability from accepting\n"
            "                    states and elimination of states without predecessors,\n"
            "                    to a fixpoint) or MAP (maximal accepting predecessors)\n"
            "  --cpu             on the CPU: nested depth-first search, or the sequential\n"
            "                    OWCTY / MAP when --algo is given\n"
            "  --no-witness      only the verdict, no lasso\n"
            "  --mdp             the states of an MDP with Pmax(G F LABEL) = 1 and > 0 (through\n"
            "                    the MECs that hold a LABEL state); prints their counts and\n"
            "                    each initial state's answer\n"
            "  -o FILE           with --mdp: per state in PRISM's numbering \"1\" (= 1), \"+\"\n"
            "                    (> 0, < 1) or \"0\"\n"
            "  --stats[=json]    what the search took, on standard error\n"
            "  -d, --device N    the CUDA device (default 0)\n"
            "  -h, --help        this help\n"
            "  --version         the tool's name and version\n"
            "Prints \"no accepting cycle\", or a lasso: the accepting state, a path from an\n"
            "initial state to it and a cycle back to it, in PRISM's state numbers.\n"
            "Exit status: 0 no accepting cycle, 1 bad input, 2 usage, 3 an accepting\n"
            "cycle, 4 no GPU or a GPU failure (--mdp: 0 when answered).\n",
            tool_name, tool_name);
}

/* One line "what: s s s" in PRISM's numbering. */
static void print_states(const char *what, const csr_model *m, const uint32_t *states, uint64_t count)
{
    printf("%s:", what);
    for (uint64_t i = 0; i < count; i++)
        printf(" %u", m->permutation ? m->permutation[states[i]] : states[i]);
    putchar('\n');
}

/*
 * --mdp: Pmax(G F accepting) = 1 / > 0 per state.  An end component the
 * scheduler can stay in forever visits an accepting state infinitely often
 * iff it holds one, so Pmax(G F acc) = Pmax(F T) with T the states of the
 * MECs that hold an accepting state: = 1 on Prob1E(T), > 0 off Prob0A(T).
 * Prints the counts and the initial states' answers; -o the classes.
 * Returns the exit status.
 */
static int buchi(const csr_model *m, const char *label, const uint8_t *accepting, int use_cpu, const char *out_path,
                 const char *name, csr_status *st)
{
    const uint64_t n = m->num_states;
    uint8_t *target = (uint8_t *)calloc(n ? n : 1, 1), *cls = (uint8_t *)malloc(n ? n : 1), *good = NULL;
    uint64_t *mec = (uint64_t *)malloc((n ? n : 1) * sizeof *mec);
    uint32_t *mec32 = use_cpu ? NULL : (uint32_t *)malloc((n ? n : 1) * sizeof *mec32);
    int rc = target && cls && mec && (use_cpu || mec32) ? CSR_OK : CSR_ERR_NOMEM;
    if (!rc && use_cpu) {
        ref_mec_stats ms;
        rc = ref_mec_basic(m, mec, &ms);
    } else if (!rc) {
        gpu_mec_options mo;
        gpu_mec_default_options(&mo);
        gpu_mec_stats gs;
        rc = gpu_mec_decompose(m, &mo, mec32, &gs, st);
        for (uint64_t s = 0; !rc && s < n; s++)
            mec[s] = mec32[s] == GPU_MEC_NONE ? REF_NONE : mec32[s];
    }
    /* the MECs with an accepting state: good[smallest state] */
    if (!rc && !(good = (uint8_t *)calloc(n ? n : 1, 1)))
        rc = CSR_ERR_NOMEM;
    for (uint64_t s = 0; !rc && s < n; s++)
        if (mec[s] != REF_NONE && accepting[s])
            good[mec[s]] = 1;
    for (uint64_t s = 0; !rc && s < n; s++)
        target[s] = mec[s] != REF_NONE && good[mec[s]];
    reach_query q = {target, NULL, 1};
    uint64_t sweeps;
    if (!rc)
        rc = use_cpu ? ref_reach_prob01(m, &q, cls) : gpu_reach_prob01(m, &q, 0, cls, &sweeps, st);
    if (rc == CSR_ERR_NOMEM && !use_cpu) /* the transpose did not fit the device */
        rc = ref_reach_prob01(m, &q, cls);
    int status = EXIT_OK;
    if (rc) {
        tool_report_failure(name, rc, st);
        status = rc == CSR_ERR_DEVICE ? (int)EXIT_GPU : (int)EXIT_BAD_INPUT;
        goto out;
    }
    {
        uint64_t one = 0, positive = 0;
        for (uint64_t s = 0; s < n; s++) {
            one += cls[s] == REACH_YES;
            positive += cls[s] != REACH_NO;
        }
        printf("Pmax(G F \"%s\") = 1: %llu states\nPmax(G F \"%s\") > 0: %llu states\n", label,
               (unsigned long long)one, label, (unsigned long long)positive);
        for (uint64_t i = 0; i < m->num_initial; i++) {
            uint32_t s = m->initial_states[i];
            printf("initial state %u: %s\n", m->permutation ? m->permutation[s] : s,
                   cls[s] == REACH_YES ? "Pmax = 1" : cls[s] == REACH_NO ? "Pmax = 0" : "0 < Pmax < 1");
        }
        if (out_path) {
            char *line = (char *)malloc(n ? n : 1);
            FILE *f = line ? fopen(out_path, "w") : NULL;
            for (uint64_t s = 0; f && s < n; s++)
                line[m->permutation ? m->permutation[s] : s] = cls[s] == REACH_YES ? '1' : cls[s] == REACH_NO ? '0' : '+';
            for (uint64_t s = 0; f && s < n; s++)
                fprintf(f, "%c\n", line[s]);
            if (!f || tool_close_output(f, out_path)) {
                tool_error("%s: %s", out_path, strerror(errno));
                status = EXIT_BAD_INPUT;
            }
            free(line);
        }
        if (fflush(stdout) || ferror(stdout)) {
            tool_error("(stdout): write error");
            status = EXIT_BAD_INPUT;
        }
    }
out:
    free(target);
    free(cls);
    free(good);
    free(mec);
    free(mec32);
    return status;
}

int main(int argc, char **argv)
{
    tool_start("gpu-acc");
    argv[0] = (char *)tool_name;
    const char *label = "accepting";
    int algo = -1, use_cpu = 0, witness = 1, stats = GPU_STATS_NONE, device = 0, mdp = 0, c;
    const char *out_path = NULL;
    static const struct option longopts[] = {{"cpu", no_argument, 0, GPU_OPT_CPU},
                                              {"stats", optional_argument, 0, GPU_OPT_STATS},
                                              {"algo", required_argument, 0, OPT_ALGO},
                                              {"no-witness", no_argument, 0, OPT_NO_WITNESS},
                                              {"mdp", no_argument, 0, OPT_MDP},
                                              {"device", required_argument, 0, 'd'},
                                              {"help", no_argument, 0, 'h'},
                                              {"version", no_argument, 0, TOOL_OPT_VERSION},
                                              {0, 0, 0, 0}};
    while ((c = getopt_long(argc, argv, "a:d:o:h", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'a': label = optarg; break;
        case 'o': out_path = optarg; break;
        case OPT_MDP: mdp = 1; break;
        case GPU_OPT_CPU: use_cpu = 1; break;
        case OPT_NO_WITNESS: witness = 0; break;
        case GPU_OPT_STATS:
            if (!optarg)
                stats = GPU_STATS_TEXT;
            else if (!strcmp(optarg, "json"))
                stats = GPU_STATS_JSON;
            else {
                tool_error("--stats takes no value or =json, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_ALGO:
            if (!strcmp(optarg, "owcty"))
                algo = ALGO_OWCTY;
            else if (!strcmp(optarg, "map"))
                algo = ALGO_MAP;
            else {
                tool_error("--algo takes owcty or map, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'd': {
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 0 || v > 1024) {
                tool_error("-d takes a device number, not \"%s\"", optarg);
                return EXIT_USAGE;
            }
            device = (int)v;
            break;
        }
        case 'h': usage(stdout); return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
        case TOOL_OPT_VERSION: tool_version(); return tool_stdout_flushed() ? EXIT_BAD_INPUT : EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (out_path && !mdp) {
        tool_error("-o is for --mdp");
        return EXIT_USAGE;
    }
    if (mdp && algo >= 0) {
        tool_error("--mdp decomposes into MECs: --algo is for cycle detection");
        return EXIT_USAGE;
    }
    if (algo < 0)
        algo = use_cpu ? ALGO_NDFS : ALGO_OWCTY;
    const char *path;
    csr_model m;
    gpu_tool_times times;
    int ex = gpu_tool_load(argc, argv, usage, use_cpu, device, &path, &m, &times);
    if (ex)
        return ex == EXIT_DEVICE ? EXIT_GPU : ex;
    const char *name = tool_input_name(path);
    const uint64_t n = m.num_states;
    int64_t l = csr_find_label(&m, label);
    if (l < 0) {
        if (!m.labels.count) {
            fprintf(stderr, "%s: %s: no label \"%s\": the model has no labels (convert it with prism2csr -l FILE.lab)\n",
                    tool_name, name, label);
        } else {
            fprintf(stderr, "%s: %s: no label \"%s\"; the model's labels:", tool_name, name, label);
            for (uint64_t i = 0; i < m.labels.count; i++)
                fprintf(stderr, " %s", m.labels.names[i]);
            fputc('\n', stderr);
        }
        csr_free(&m);
        return EXIT_USAGE;
    }
    uint8_t *accepting = (uint8_t *)calloc(n ? n : 1, 1), *survivors = (uint8_t *)malloc(n ? n : 1);
    if (!accepting || !survivors) {
        tool_error("out of memory");
        csr_free(&m);
        return EXIT_BAD_INPUT;
    }
    for (uint64_t j = m.label_first[l]; j < m.label_first[l + 1]; j++)
        accepting[m.label_states[j]] = 1;
    csr_status st;
    memset(&st, 0, sizeof st);
    if (mdp) {
        int ex = buchi(&m, label, accepting, use_cpu, out_path, name, &st);
        free(accepting);
        free(survivors);
        csr_free(&m);
        return ex;
    }
    acc_stats cs;
    gpu_acc_stats gs;
    memset(&cs, 0, sizeof cs);
    memset(&gs, 0, sizeof gs);
    acc_lasso lasso;
    memset(&lasso, 0, sizeof lasso);
    uint64_t cycle_state = UINT64_MAX;
    int found, have_lasso = 0;
    const uint8_t *within = NULL;
    double t0 = tool_seconds();
    if (use_cpu && algo == ALGO_NDFS) {
        /* its lasso, the two search stacks, can be as long as the model (3M + 3M states where 16 + 1
         * do): the short one of acc_lasso_build below instead */
        found = ref_acc_nested_dfs(&m, accepting, NULL, &cs);
    } else if (use_cpu) {
        found = algo == ALGO_OWCTY ? ref_acc_owcty(&m, accepting, survivors, &cs)
                                   : ref_acc_map(&m, accepting, &cycle_state, &cs);
        within = algo == ALGO_OWCTY ? survivors : NULL;
    } else {
        found = algo == ALGO_OWCTY ? gpu_acc_owcty(&m, accepting, survivors, &gs, &st)
                                   : gpu_acc_map(&m, accepting, &cycle_state, &gs, &st);
        within = algo == ALGO_OWCTY ? survivors : NULL;
    }
    double t1 = tool_seconds();
    int status = EXIT_OK;
    if (found < 0) {
        tool_report_failure(path, -found, &st);
        status = -found == CSR_ERR_DEVICE ? (int)EXIT_GPU : (int)EXIT_BAD_INPUT;
        goto done;
    }
    if (found && !have_lasso && (witness || (use_cpu && algo == ALGO_NDFS))) { /* (nested DFS: its state too) */
        /* the lasso on the host, inside what the search kept (OWCTY's
         * fixpoint), else over all states (MAP: its state lies on a cycle;
         * nested DFS): shortest paths by breadth-first search */
        int built = acc_lasso_build(&m, accepting, within, &lasso);
        if (built < 0) {
            tool_error("out of memory for the lasso");
            status = EXIT_BAD_INPUT;
            goto done;
        }
        have_lasso = built == 1;
    }
    if (!found) {
        printf("no accepting cycle\n");
    } else {
        uint64_t a = have_lasso ? lasso.cycle[0] : cycle_state;
        if (a != UINT64_MAX)
            printf("accepting cycle through state %llu\n",
                   (unsigned long long)(m.permutation ? m.permutation[a] : a));
        else
            printf("accepting cycle\n");
        if (have_lasso && witness) {
            print_states("prefix", &m, lasso.prefix, lasso.prefix_length);
            print_states("cycle", &m, lasso.cycle, lasso.cycle_length);
        }
        status = EXIT_CYCLE;
    }
    if (fflush(stdout) || ferror(stdout)) {
        tool_error("(stdout): write error");
        status = EXIT_BAD_INPUT;
        goto done;
    }
    if (stats == GPU_STATS_JSON) {
        json_t *j = gpu_stats_json_begin(&m, &times);
        static const char *const names[] = {"owcty", "map", "nested-dfs"};
        json_object_set_new(j, "algorithm", json_string(names[algo]));
        json_object_set_new(j, "cpu", json_boolean(use_cpu));
        json_object_set_new(j, "accepting_cycle", json_boolean(found));
        json_object_set_new(j, "reachable", json_integer((json_int_t)(use_cpu ? cs.reachable : gs.reachable)));
        json_object_set_new(j, "rounds", json_integer((json_int_t)(use_cpu ? cs.rounds : gs.rounds)));
        json_object_set_new(j, "passes", json_integer((json_int_t)(use_cpu ? cs.passes : gs.passes)));
        json_object_set_new(j, "levels", json_integer((json_int_t)gs.levels));
        json_object_set_new(j, "remaining", json_integer((json_int_t)(use_cpu ? cs.remaining : gs.remaining)));
        json_object_set_new(j, "search_s", json_real(use_cpu ? t1 - t0 : gs.search_s));
        json_object_set_new(j, "upload_s", json_real(gs.upload_s));
        json_object_set_new(j, "device_bytes", json_integer((json_int_t)gs.device_bytes));
        json_object_set_new(j, "lasso_s", json_real(tool_seconds() - t1));
        gpu_stats_json_print(j);
    } else if (stats) {
        fprintf(stderr, "%s: %llu states, %llu transitions, %llu accepting; %llu reachable; %s: %llu rounds, %llu "
                        "passes, %llu levels, %llu states left; search %.4f s (upload %.4f s), lasso %.4f s\n",
                tool_name, (unsigned long long)n, (unsigned long long)m.num_transitions,
                (unsigned long long)(m.label_first[l + 1] - m.label_first[l]),
                (unsigned long long)(use_cpu ? cs.reachable : gs.reachable),
                algo == ALGO_NDFS ? "nested DFS" : algo == ALGO_OWCTY ? "OWCTY" : "MAP",
                (unsigned long long)(use_cpu ? cs.rounds : gs.rounds), (unsigned long long)(use_cpu ? cs.passes : gs.passes),
                (unsigned long long)gs.levels, (unsigned long long)(use_cpu ? cs.remaining : gs.remaining),
                use_cpu ? t1 - t0 : gs.search_s, gs.upload_s, tool_seconds() - t1);
    }
done:
    acc_lasso_free(&lasso);
    free(accepting);
    free(survivors);
    csr_free(&m);
    return status;
}
