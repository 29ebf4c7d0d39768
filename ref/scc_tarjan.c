/*
 * scc_tarjan.c - iterative Tarjan SCC decomposition (ref.h).
 */
#include <stdlib.h>
#include <string.h>

#include "ref.h"

struct frame {
    uint32_t state;
    uint64_t choice;     /* current choice of state */
    uint64_t transition; /* next transition to look at */
};

/* Move f to the next transition of an enabled choice; 0 when none is left. */
static int next_transition(const csr_model *m, const uint8_t *enabled, struct frame *f)
{
    uint64_t last_choice = m->state_choices[f->state + 1];
    while (f->choice < last_choice) {
        if ((!enabled || enabled[f->choice]) && f->transition < m->choice_transitions[f->choice + 1])
            return 1;
        f->choice++;
        if (f->choice < last_choice)
            f->transition = m->choice_transitions[f->choice];
    }
    return 0;
}

int ref_has_self_loop(const csr_model *m, const uint8_t *enabled, uint64_t s)
{
    for (uint64_t k = m->state_choices[s]; k < m->state_choices[s + 1]; k++)
        if (!enabled || enabled[k])
            for (uint64_t i = m->choice_transitions[k]; i < m->choice_transitions[k + 1]; i++)
                if (m->targets[i] == s)
                    return 1;
    return 0;
}

int ref_scc_tarjan(const csr_model *m, const uint8_t *alive, const uint8_t *enabled, uint64_t *comp,
                   ref_scc_stats *stats)
{
    return ref_scc_tarjan_order(m, alive, enabled, comp, NULL, NULL, stats);
}

int ref_scc_tarjan_order(const csr_model *m, const uint8_t *alive, const uint8_t *enabled, uint64_t *comp,
                         uint32_t *order, uint64_t *end, ref_scc_stats *stats)
{
    uint64_t n = m->num_states;
    if (n >= UINT32_MAX)
        return CSR_ERR_TOO_LARGE;
    uint32_t *index = calloc(n ? n : 1, sizeof *index); /* 0 = not visited */
    uint32_t *low = malloc((n ? n : 1) * sizeof *low);
    uint32_t *stack = malloc((n ? n : 1) * sizeof *stack);
    struct frame *frames = malloc((n ? n : 1) * sizeof *frames);
    if (!index || !low || !stack || !frames) {
        free(index);
        free(low);
        free(stack);
        free(frames);
        return CSR_ERR_NOMEM;
    }
    ref_scc_stats local = {0};
    uint32_t counter = 0;
    uint64_t sp = 0;     /* Tarjan stack */
    uint64_t placed = 0; /* order[0, placed): the SCCs completed */
    for (uint64_t s = 0; s < n; s++)
        comp[s] = REF_NONE;
    for (uint64_t root = 0; root < n; root++) {
        if (index[root] || (alive && !alive[root]))
            continue;
        uint64_t depth = 0;
        frames[depth++] = (struct frame){(uint32_t)root, m->state_choices[root],
                                         m->choice_transitions[m->state_choices[root]]};
        index[root] = low[root] = ++counter;
        stack[sp++] = (uint32_t)root;
        while (depth) {
            struct frame *f = &frames[depth - 1];
            uint32_t v = f->state;
            if (next_transition(m, enabled, f)) {
                uint32_t w = m->targets[f->transition++];
                if (alive && !alive[w])
                    continue;
                if (!index[w]) {
                    index[w] = low[w] = ++counter;
                    stack[sp++] = w;
                    frames[depth++] = (struct frame){w, m->state_choices[w], m->choice_transitions[m->state_choices[w]]};
                } else if (comp[w] == REF_NONE && index[w] < low[v]) {
                    low[v] = index[w]; /* w is on the stack */
                }
                continue;
            }
            if (low[v] == index[v]) {
                uint64_t bottom = sp;
                uint32_t smallest = v;
                do {
                    bottom--;
                    if (stack[bottom] < smallest)
                        smallest = stack[bottom];
                } while (stack[bottom] != v);
                if (sp - bottom == 1)
                    local.trivial_sccs += !ref_has_self_loop(m, enabled, v);
                for (uint64_t i = bottom; i < sp; i++)
                    comp[stack[i]] = smallest;
                if (order) { /* as they leave the stack: the last discovered first */
                    for (uint64_t i = sp; i > bottom; i--)
                        order[placed++] = stack[i - 1];
                    end[local.sccs] = placed;
                }
                local.sccs++;
                sp = bottom;
            }
            depth--;
            if (depth) {
                uint32_t parent = frames[depth - 1].state;
                if (low[v] < low[parent])
                    low[parent] = low[v];
            }
        }
    }
    free(index);
    free(low);
    free(stack);
    free(frames);
    if (stats)
        *stats = local;
    return CSR_OK;
}
