/*
 * partcheck - test helper: a model split into parts for several GPUs
 * (ref/partition.h, issue 18), checked against the model itself.
 *
 *   partcheck [-p PARTS] [-k STEPS] [-l LABEL] model.csr
 *
 * Builds the partition into PARTS parts (default 4) and checks, without
 * trusting the partition code: the ranges cover the states in order, each
 * part's choices and transitions are its states' rows, every part holds at
 * most t / PARTS transitions plus one state's, every local target names the
 * model's target (own states by offset, foreign ones through the foreign
 * list), foreign lists ascend without repeats or own states, each receive
 * slice lies in its owner's range, and each send list names exactly that
 * slice.  Then STEPS (default 50) Jacobi steps of value iteration towards
 * LABEL's states (default: the last label; none: state 0), maximising and
 * minimising, on the whole model and on the parts with their exchange: the
 * values must be equal bit for bit; the SCCs by label propagation over
 * the parts must be Tarjan's; and trimming over the parts must leave exactly
 * the states that reach a cycle and are reached from one (by Tarjan's SCCs
 * of two states or more and two breadth-first searches).  Prints one line of counts; exit 0 when
 * everything holds, 1 with the first fault on stderr, 2 on usage.  Not
 * installed; used by tests/160-partition.bats.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csr.h"
#include "partition.h"
#include "ref.h"

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        fprintf(stderr, "partcheck: " __VA_ARGS__);                                                                    \
        fputc('\n', stderr);                                                                                           \
        return 1;                                                                                                      \
    } while (0)

static int check(const csr_model *m, const csr_partition *p)
{
    const uint32_t P = p->parts;
    const uint64_t n = m->num_states, t = m->num_transitions;
    uint64_t widest = 0; /* transitions of the state with most */
    for (uint64_t s = 0; s < n; s++) {
        uint64_t w = m->choice_transitions[m->state_choices[s + 1]] - m->choice_transitions[m->state_choices[s]];
        widest = w > widest ? w : widest;
    }
    uint64_t next = 0;
    for (uint32_t i = 0; i < P; i++) {
        const csr_part *q = &p->part[i];
        if (q->first_state != next)
            FAIL("part %u starts at state %llu, not %llu", i, (unsigned long long)q->first_state,
                 (unsigned long long)next);
        next = q->first_state + q->num_states;
        if (next > n)
            FAIL("part %u ends past the last state", i);
        if (q->first_choice != m->state_choices[q->first_state] ||
            q->first_choice + q->num_choices != m->state_choices[next])
            FAIL("part %u: choices are not its states'", i);
        if (q->first_transition != m->choice_transitions[q->first_choice] ||
            q->first_transition + q->num_transitions != m->choice_transitions[q->first_choice + q->num_choices])
            FAIL("part %u: transitions are not its states'", i);
        if (q->num_transitions > t / P + widest)
            FAIL("part %u holds %llu transitions, more than %llu / %u + %llu", i,
                 (unsigned long long)q->num_transitions, (unsigned long long)t, P, (unsigned long long)widest);
        for (uint64_t k = 0; k < q->num_foreign; k++) {
            uint32_t f = q->foreign[k];
            if (f >= n || (f >= q->first_state && f < next))
                FAIL("part %u: foreign state %u is its own or no state", i, f);
            if (k > 0 && q->foreign[k - 1] >= f)
                FAIL("part %u: foreign states not ascending at %llu", i, (unsigned long long)k);
        }
        for (uint64_t j = 0; j < q->num_transitions; j++) {
            uint32_t l = q->local_targets[j], want = m->targets[q->first_transition + j];
            uint64_t got = l < q->num_states ? q->first_state + l
                           : l - q->num_states < q->num_foreign ? q->foreign[l - q->num_states]
                                                                 : UINT64_MAX;
            if (got != want)
                FAIL("part %u: transition %llu: local target %u is not state %u", i,
                     (unsigned long long)(q->first_transition + j), l, want);
        }
        if (q->recv_first[0] != 0 || q->recv_first[P] != q->num_foreign)
            FAIL("part %u: receive slices do not cover its foreign states", i);
        for (uint32_t o = 0; o < P; o++) {
            const csr_part *owner = &p->part[o];
            if (q->recv_first[o + 1] < q->recv_first[o])
                FAIL("part %u: receive slices out of order", i);
            if (o == i && q->recv_first[o + 1] != q->recv_first[o])
                FAIL("part %u receives from itself", i);
            uint64_t a = p->send_first[(uint64_t)o * P + i], b = p->send_first[(uint64_t)o * P + i + 1];
            if (b - a != q->recv_first[o + 1] - q->recv_first[o])
                FAIL("parts %u -> %u: %llu sent, %llu received", o, i, (unsigned long long)(b - a),
                     (unsigned long long)(q->recv_first[o + 1] - q->recv_first[o]));
            for (uint64_t k = q->recv_first[o]; k < q->recv_first[o + 1]; k++) {
                uint32_t f = q->foreign[k];
                if (f < owner->first_state || f >= owner->first_state + owner->num_states)
                    FAIL("part %u: foreign state %u is not part %u's", i, f, o);
                if (owner->first_state + p->send_index[a + (k - q->recv_first[o])] != f)
                    FAIL("parts %u -> %u: send list and foreign state %u differ", o, i, f);
                if (csr_partition_owner(p, f) != o)
                    FAIL("owner of state %u: %u, not %u", f, csr_partition_owner(p, f), o);
            }
        }
    }
    if (next != n)
        FAIL("the parts end at state %llu of %llu", (unsigned long long)next, (unsigned long long)n);
    return 0;
}

int main(int argc, char **argv)
{
    long parts = 4, steps = 50;
    const char *label = NULL;
    int c;
    while ((c = getopt(argc, argv, "p:k:l:")) != -1) {
        if (c == 'p')
            parts = strtol(optarg, NULL, 10);
        else if (c == 'k')
            steps = strtol(optarg, NULL, 10);
        else if (c == 'l')
            label = optarg;
        else
            goto usage;
    }
    if (optind + 1 != argc || steps < 0) {
    usage:
        fprintf(stderr, "usage: partcheck [-p PARTS] [-k STEPS] [-l LABEL] model.csr\n");
        return 2;
    }
    csr_model m;
    csr_status st;
    memset(&st, 0, sizeof st);
    int fd = open(argv[optind], O_RDONLY);
    if (fd < 0 || csr_read_fd(fd, &m, &st) || !m.probabilities)
        FAIL("%s: cannot read, or no probabilities", argv[optind]);
    close(fd);
    csr_partition p;
    if (csr_partition_build(&m, parts < 0 || parts > UINT32_MAX ? 0 : (uint32_t)parts, &p, &st)) {
        fprintf(stderr, "partcheck: %s\n", st.detail);
        csr_free(&m);
        return 1;
    }
    if (check(&m, &p)) {
        csr_partition_free(&p);
        csr_free(&m);
        return 1;
    }
    const uint64_t n = m.num_states;
    uint8_t *target = calloc(n ? n : 1, 1);
    double *whole = malloc((n ? n : 1) * sizeof *whole), *split = malloc((n ? n : 1) * sizeof *split);
    if (!target || !whole || !split)
        FAIL("out of memory");
    uint64_t l = m.labels.count;
    if (label) {
        for (l = 0; l < m.labels.count && strcmp(m.labels.names[l], label); l++)
            ;
        if (l == m.labels.count)
            FAIL("no label \"%s\"", label);
    } else if (l > 0) {
        l--;
    }
    if (l < m.labels.count)
        for (uint64_t k = m.label_first[l]; k < m.label_first[l + 1]; k++)
            target[m.label_states[k]] = 1;
    else if (n > 0)
        target[0] = 1;
    uint64_t foreign = 0, widest = 0;
    for (uint32_t i = 0; i < p.parts; i++) {
        foreign += p.part[i].num_foreign;
        widest = p.part[i].num_transitions > widest ? p.part[i].num_transitions : widest;
    }
    for (int maximise = 0; maximise < 2; maximise++) {
        if (ref_vi_steps(&m, target, maximise, (uint64_t)steps, whole) ||
            ref_vi_steps_partitioned(&m, &p, target, maximise, (uint64_t)steps, split))
            FAIL("out of memory");
        for (uint64_t s = 0; s < n; s++)
            if (memcmp(&whole[s], &split[s], sizeof *whole))
                FAIL("%s, step %ld: state %llu: %.17g whole, %.17g on %u parts", maximise ? "max" : "min", steps,
                     (unsigned long long)s, whole[s], split[s], p.parts);
    }
    uint64_t *tarjan = malloc((n ? n : 1) * sizeof *tarjan), *lp = malloc((n ? n : 1) * sizeof *lp);
    ref_scc_stats ss;
    ref_scc_parts_stats plain, peeled;
    if (!tarjan || !lp || ref_scc_tarjan(&m, NULL, NULL, tarjan, &ss) || ref_scc_partitioned(&m, &p, 0, lp, &plain))
        FAIL("out of memory");
    for (uint64_t s = 0; s < n; s++)
        if (tarjan[s] != lp[s])
            FAIL("state %llu: SCC %llu by Tarjan, %llu on %u parts", (unsigned long long)s,
                 (unsigned long long)tarjan[s], (unsigned long long)lp[s], p.parts);
    /* trimming leaves exactly the states that reach a cycle and are reached
     * from one (of two states or more: self-loops do not count) */
    uint64_t *size = calloc(n ? n : 1, sizeof *size), trimmed = 0, trim_rounds;
    uint8_t *fw = calloc(n ? n : 1, 1), *bw = calloc(n ? n : 1, 1), *cut = calloc(n ? n : 1, 1);
    uint64_t *queue = malloc((n ? n : 1) * sizeof *queue);
    ref_transpose tr;
    if (!size || !fw || !bw || !cut || !queue || ref_transpose_build(&m, &tr) ||
        ref_trim_partitioned(&m, &p, cut, &trim_rounds))
        FAIL("out of memory");
    for (uint64_t s = 0; s < n; s++)
        size[tarjan[s]]++;
    for (int dir = 0; dir < 2; dir++) {
        uint8_t *seen = dir ? bw : fw;
        uint64_t head = 0, tail = 0;
        for (uint64_t s = 0; s < n; s++)
            if (size[tarjan[s]] > 1) {
                seen[s] = 1;
                queue[tail++] = s;
            }
        while (head < tail) {
            const uint64_t v = queue[head++];
            if (!dir) {
                for (uint64_t x = m.choice_transitions[m.state_choices[v]];
                     x < m.choice_transitions[m.state_choices[v + 1]]; x++)
                    if (!seen[m.targets[x]]) {
                        seen[m.targets[x]] = 1;
                        queue[tail++] = m.targets[x];
                    }
            } else {
                for (uint64_t k = tr.first[v]; k < tr.first[v + 1]; k++) {
                    const uint64_t u = tr.owner[tr.choice[k]];
                    if (!seen[u]) {
                        seen[u] = 1;
                        queue[tail++] = u;
                    }
                }
            }
        }
    }
    for (uint64_t s = 0; s < n; s++) {
        if (cut[s] != !(fw[s] && bw[s]))
            FAIL("state %llu: %s on %u parts, but it %s", (unsigned long long)s, cut[s] ? "trimmed" : "kept", p.parts,
                 fw[s] && bw[s] ? "lies between cycles" : "reaches no cycle or is reached from none");
        trimmed += cut[s];
    }
    /* label propagation with the trimming first and between phases (the lp
     * engine's peeling): Tarjan's SCCs again, the first trimming's states among
     * those trimmed */
    if (ref_scc_partitioned(&m, &p, 1, lp, &peeled))
        FAIL("out of memory");
    for (uint64_t s = 0; s < n; s++)
        if (tarjan[s] != lp[s])
            FAIL("state %llu: SCC %llu by Tarjan, %llu on %u parts with peeling", (unsigned long long)s,
                 (unsigned long long)tarjan[s], (unsigned long long)lp[s], p.parts);
    if (peeled.trimmed < trimmed || peeled.trim_rounds < trim_rounds)
        FAIL("peeling trimmed %llu states in %llu rounds, fewer than the first trimming's %llu in %llu",
             (unsigned long long)peeled.trimmed, (unsigned long long)peeled.trim_rounds, (unsigned long long)trimmed,
             (unsigned long long)trim_rounds);
    printf("partcheck: %u parts of %llu states, %llu transitions: %llu foreign states, at most %llu transitions a "
           "part; %ld steps max and min equal bit for bit; %llu SCCs as Tarjan's (%llu phases, %llu rounds); "
           "%llu states trimmed (%llu rounds), then the SCCs in %llu phases; %llu trimmed in all with peeling between "
           "them (%llu rounds)\n",
           p.parts, (unsigned long long)n, (unsigned long long)m.num_transitions, (unsigned long long)foreign,
           (unsigned long long)widest, steps, (unsigned long long)ss.sccs, (unsigned long long)plain.phases,
           (unsigned long long)plain.rounds, (unsigned long long)trimmed, (unsigned long long)trim_rounds,
           (unsigned long long)peeled.phases, (unsigned long long)peeled.trimmed,
           (unsigned long long)peeled.trim_rounds);
    ref_transpose_free(&tr);
    free(size);
    free(fw);
    free(bw);
    free(cut);
    free(queue);
    free(tarjan);
    free(lp);
    csr_partition_free(&p);
    csr_free(&m);
    free(target);
    free(whole);
    free(split);
    return 0;
}
