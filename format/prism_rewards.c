/*
 * prism_rewards.c - PRISM's explicit reward exports (.srew, .trew) to and
 * from the reward structures of the CSR format (prism_text.h).
 *
 * The files, as PRISM 4.10 writes them (io/PrismExplicitExporter):
 *   .srew      "# Reward structure" [ " \"name\"" ], "# State rewards" (both
 *              optional), then "n k", then k lines "s r" (the non-zero
 *              state rewards, ascending s);
 *   .trew MDP  the same header with "# Transition rewards", then "n c k",
 *              then k lines "s j t r": the reward r of choice j of s, once
 *              per transition of the choice (ascending s, j, t);
 *   .trew DTMC "n k", then k lines "s t r": a reward per transition.
 * Every count, index and reward is checked (the line named); a DTMC's
 * transition rewards become each choice's expected reward (sum of p r over
 * its transitions), as CSR 1.2 stores them.
 */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_bound.h"
#include "numparse.h"
#include "prism_text.h"

/* The arrays of one structure being built: state and choice rewards (NULL: none yet). */
typedef struct {
    char *name;
    double *state, *choice;
} reward_part;

/* Parse "# Reward structure "name"" into *name (malloc'd; NULL: unnamed). 0, or -1 (no such line). */
static int header_name(const char *line, char **name)
{
    const char *head = "# Reward structure";
    if (strncmp(line, head, strlen(head)) != 0)
        return -1;
    const char *p = num_skip_spaces(line + strlen(head));
    *name = NULL;
    if (*p == '"') {
        const char *end = strchr(p + 1, '"');
        if (end && end > p + 1)
            *name = strndup(p + 1, (size_t)(end - p - 1));
    }
    return 0;
}

/* Fail with code at line (1-based) of the file being read. */
static int fail_line(csr_status *st, uint64_t line, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail_line(csr_status *st, uint64_t line, int code, const char *fmt, ...)
{
    if (st) {
        st->code = code;
        st->line = line;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->detail, sizeof st->detail, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* A reward token: finite, non-negative. */
static int parse_reward(const char **p, double *r)
{
    return num_parse_double(p, r) || !(*r >= 0.0 && *r <= DBL_MAX) ? -1 : 0;
}

/* The index of transition to t in choice k (targets ascending), or UINT64_MAX. */
static uint64_t find_target(const csr_model *m, uint64_t k, uint64_t t)
{
    const uint64_t end = m->choice_transitions[k + 1];
    const uint64_t lo = lower_bound_u32(m->targets, m->choice_transitions[k], end, t);
    return lo < end && m->targets[lo] == t ? lo : UINT64_MAX;
}

static int read_file(textin *in, const csr_model *m, reward_part *part, csr_status *st)
{
    const uint64_t n = m->num_states, c = m->num_choices;
    const int mdp = m->model_type == CSR_MDP;
    char *line;
    size_t length;
    int got, kind = 0; /* 1: state rewards, 2: transition rewards, 0: not said (yet) */
    uint64_t counts[3], ncounts = 0, expected = 0, seen = 0, last_s = 0, last_j = 0, last_t = 0;
    double choice_r = 0.0;
    double *values = NULL; /* the file's array: state or choice rewards */
    int rc = CSR_OK;
    while ((got = textin_next(in, &line, &length, st)) > 0) {
        const char *p = num_skip_spaces(line);
        if (*p == '#') {
            char *name = NULL;
            if (!ncounts && header_name(p, &name) == 0) {
                if (name) {
                    if (part->name && strcmp(part->name, name) != 0) {
                        rc = fail_line(st, in->line, CSR_ERR_SYNTAX,
                                       "reward structure \"%.60s\" where another file of it says \"%.60s\"", name,
                                       part->name);
                        free(name);
                        break;
                    }
                    free(part->name);
                    part->name = name;
                }
            } else if (!ncounts && strncmp(p, "# State rewards", 15) == 0) {
                kind = 1;
            } else if (!ncounts && strncmp(p, "# Transition rewards", 20) == 0) {
                kind = 2;
            }
            continue; /* other comments are skipped, as PRISM's importer does */
        }
        if (*p == '\0')
            continue;
        if (!ncounts) { /* the count line */
            while (*p && ncounts < 3) {
                if (num_parse_u64(&p, &counts[ncounts])) {
                    rc = fail_line(st, in->line, CSR_ERR_NUMBER, "count %llu of the first line is not a whole number",
                                   (unsigned long long)ncounts + 1);
                    break;
                }
                ncounts++;
                p = num_skip_spaces(p);
            }
            if (rc)
                break;
            if (*p || ncounts < 2) {
                rc = fail_line(st, in->line, CSR_ERR_SYNTAX, "expected \"states count\" or \"states choices count\"");
                break;
            }
            if (!kind) /* no header: three counts are an MDP's transition rewards; two, state rewards or a DTMC's */
                kind = ncounts == 3 ? 2 : 0;
            if (counts[0] != n || (ncounts == 3 && counts[1] != c) || (ncounts == 3) != (kind == 2 && mdp) ||
                (kind == 1 && ncounts != 2)) {
                rc = fail_line(st, in->line, CSR_ERR_COUNTS, "the counts do not fit the model of %llu states and %llu choices",
                               (unsigned long long)n, (unsigned long long)c);
                break;
            }
            expected = counts[ncounts - 1];
            continue;
        }
        /* a data line: whole numbers, then the reward; their number decides the kind where no header did */
        const char *tok[5];
        int nt = 0;
        while (*p && nt < 5) {
            tok[nt++] = p;
            while (*p && !num_is_space(*p))
                p++;
            p = num_skip_spaces(p);
        }
        int nf = nt - 1;
        uint64_t f[3];
        for (int i = 0; i < nf && i < 3; i++) {
            const char *q = tok[i];
            if (num_parse_u64(&q, &f[i]))
                nf = -1;
        }
        if (!kind)
            kind = nf == 1 ? 1 : 2;
        const int want = kind == 1 ? 1 : mdp ? 3 : 2;
        const char *q = nt ? tok[nt - 1] : p;
        double r;
        if (*p || nf != want || parse_reward(&q, &r)) {
            rc = fail_line(st, in->line, CSR_ERR_SYNTAX, "expected %s with a finite non-negative reward",
                           kind == 1 ? "\"state reward\"" : mdp ? "\"state choice target reward\"" : "\"state target reward\"");
            break;
        }
        if (++seen > expected) {
            rc = fail_line(st, in->line, CSR_ERR_COUNTS, "more than the %llu lines the first line announces",
                           (unsigned long long)expected);
            break;
        }
        if (!values) {
            values = calloc((kind == 1 ? n : c) ? (kind == 1 ? n : c) : 1, sizeof *values);
            if (!values) {
                rc = csr_fail(st, CSR_ERR_NOMEM, "rewards");
                break;
            }
        }
        uint64_t s = f[0];
        if (s >= n) {
            rc = fail_line(st, in->line, CSR_ERR_RANGE, "state %llu of %llu", (unsigned long long)s, (unsigned long long)n);
            break;
        }
        if (kind == 1) {
            if (seen > 1 && s <= last_s) {
                rc = fail_line(st, in->line, CSR_ERR_ORDER, "state %llu after state %llu", (unsigned long long)s,
                               (unsigned long long)last_s);
                break;
            }
            values[s] = r;
            last_s = s;
            continue;
        }
        uint64_t j = mdp ? f[1] : 0, t = f[mdp ? 2 : 1];
        if (j >= m->state_choices[s + 1] - m->state_choices[s]) {
            rc = fail_line(st, in->line, CSR_ERR_RANGE, "state %llu has no choice %llu", (unsigned long long)s,
                           (unsigned long long)j);
            break;
        }
        uint64_t k = m->state_choices[s] + j, at = t < n ? find_target(m, k, t) : UINT64_MAX;
        if (at == UINT64_MAX) {
            rc = fail_line(st, in->line, CSR_ERR_RANGE, "no transition to state %llu in this choice of state %llu",
                           (unsigned long long)t, (unsigned long long)s);
            break;
        }
        int same_choice = seen > 1 && s == last_s && j == last_j;
        if (seen > 1 && (s < last_s || (s == last_s && j < last_j) || (same_choice && t <= last_t))) {
            rc = fail_line(st, in->line, CSR_ERR_ORDER, "not after the line before (state %llu, target %llu)",
                           (unsigned long long)s, (unsigned long long)t);
            break;
        }
        if (mdp) { /* a choice's reward, once per transition: every line of the choice gives the same */
            if (same_choice && r != choice_r) {
                rc = fail_line(st, in->line, CSR_ERR_SYNTAX, "choice %llu of state %llu has two rewards",
                               (unsigned long long)j, (unsigned long long)s);
                break;
            }
            values[k] = r;
            choice_r = r;
        } else {
            values[k] += m->probabilities[at] * r;
        }
        last_s = s;
        last_j = j;
        last_t = t;
    }
    if (!rc && got < 0)
        rc = -got;
    if (!rc && !ncounts)
        rc = fail_line(st, in->line, CSR_ERR_TRUNCATED, "no count line");
    if (!rc && seen != expected)
        rc = fail_line(st, in->line, CSR_ERR_COUNTS, "%llu reward lines, the first line announces %llu",
                       (unsigned long long)seen, (unsigned long long)expected);
    if (!rc && !values) { /* no non-zero reward */
        if (!kind)
            kind = 1;
        values = calloc((kind == 1 ? n : c) ? (kind == 1 ? n : c) : 1, sizeof *values);
        if (!values)
            rc = csr_fail(st, CSR_ERR_NOMEM, "rewards");
    }
    if (!rc && (kind == 1 ? part->state : part->choice)) {
        rc = csr_fail(st, CSR_ERR_SYNTAX, "a second file of %s rewards for one reward structure",
                      kind == 1 ? "state" : "transition");
    }
    if (rc) {
        free(values);
        return rc;
    }
    if (kind == 1)
        part->state = values;
    else
        part->choice = values;
    return CSR_OK;
}

int prism_read_rewards(textin *const *files, int count, csr_model *m, int *bad_file, csr_status *st)
{
    reward_part part = {0};
    int rc = CSR_OK;
    *bad_file = -1;
    for (int i = 0; i < count && !rc; i++) {
        if (st)
            st->line = 0;
        if ((rc = read_file(files[i], m, &part, st)))
            *bad_file = i;
    }
    if (!rc) {
        char ordinal[24];
        snprintf(ordinal, sizeof ordinal, "%llu", (unsigned long long)m->rewards.count + 1);
        rc = csr_add_reward(m, part.name ? part.name : ordinal, part.state, part.choice);
        if (rc)
            csr_fail(st, rc, rc == CSR_ERR_STRING_TABLE ? "a second reward structure named \"%.60s\""
                                                        : "reward structure \"%.60s\"", part.name ? part.name : ordinal);
    }
    free(part.name);
    free(part.state);
    free(part.choice);
    return rc;
}

/* The non-zero values a structure's files would list. */
static uint64_t count_nonzero(const double *v, uint64_t count)
{
    uint64_t k = 0;
    for (uint64_t i = 0; v && i < count; i++)
        k += v[i] != 0.0;
    return k;
}

static void write_header(FILE *f, const char *name, const char *what)
{
    fprintf(f, "# Reward structure \"%s\"\n# %s rewards\n", name, what);
}

int prism_write_srew(FILE *f, const csr_model *m, uint64_t r, csr_status *st)
{
    if (m->permutation)
        return csr_fail(st, CSR_ERR_USAGE, "the model is renumbered: write its original numbering");
    const double *sr, *cr;
    csr_reward_arrays(m, r, &sr, &cr);
    const uint64_t n = m->num_states;
    write_header(f, m->rewards.names[r], "State");
    fprintf(f, "%llu %llu\n", (unsigned long long)n, (unsigned long long)count_nonzero(sr, n));
    for (uint64_t s = 0; sr && s < n; s++)
        if (sr[s] != 0.0)
            fprintf(f, "%llu %.17g\n", (unsigned long long)s, sr[s]);
    return ferror(f) ? csr_fail(st, CSR_ERR_IO, "write error") : CSR_OK;
}

int prism_write_trew(FILE *f, const csr_model *m, uint64_t r, csr_status *st)
{
    if (m->permutation)
        return csr_fail(st, CSR_ERR_USAGE, "the model is renumbered: write its original numbering");
    const double *sr, *cr;
    csr_reward_arrays(m, r, &sr, &cr);
    const int mdp = m->model_type == CSR_MDP;
    uint64_t lines = 0;
    for (uint64_t k = 0; cr && k < m->num_choices; k++)
        if (cr[k] != 0.0)
            lines += m->choice_transitions[k + 1] - m->choice_transitions[k];
    write_header(f, m->rewards.names[r], "Transition");
    if (mdp)
        fprintf(f, "%llu %llu %llu\n", (unsigned long long)m->num_states, (unsigned long long)m->num_choices,
                (unsigned long long)lines);
    else
        fprintf(f, "%llu %llu\n", (unsigned long long)m->num_states, (unsigned long long)lines);
    for (uint64_t s = 0; cr && s < m->num_states; s++)
        for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++) {
            if (cr[k] == 0.0)
                continue;
            /* a choice's (expected) reward on each of its transitions: the same
             * expected value for a DTMC, PRISM's own layout for an MDP */
            for (uint64_t j = m->choice_transitions[k]; j < m->choice_transitions[k + 1]; j++)
                if (mdp)
                    fprintf(f, "%llu %llu %u %.17g\n", (unsigned long long)s,
                            (unsigned long long)(k - m->state_choices[s]), m->targets[j], cr[k]);
                else
                    fprintf(f, "%llu %u %.17g\n", (unsigned long long)s, m->targets[j], cr[k]);
        }
    return ferror(f) ? csr_fail(st, CSR_ERR_IO, "write error") : CSR_OK;
}
