/*
 * acc.c - accepting cycles on the CPU (acc.h): nested DFS, OWCTY, MAP and
 * the lasso of a set known to hold an accepting cycle.
 */
#include <stdlib.h>
#include <string.h>

#include "acc.h"
#include "ref.h"

/* The edges of state s: targets[row_begin(s) .. row_end(s)), over all its choices. */
static inline uint64_t row_begin(const csr_model *m, uint64_t s) { return m->choice_transitions[m->state_choices[s]]; }
static inline uint64_t row_end(const csr_model *m, uint64_t s) { return m->choice_transitions[m->state_choices[s + 1]]; }

void acc_lasso_free(acc_lasso *l)
{
    free(l->prefix);
    free(l->cycle);
    memset(l, 0, sizeof *l);
}

/* States reachable from the initial ones: reach u8[n]; their number.  queue u32[n]. */
static uint64_t reachable(const csr_model *m, uint8_t *reach, uint32_t *queue)
{
    uint64_t head = 0, tail = 0;
    memset(reach, 0, m->num_states);
    for (uint64_t i = 0; i < m->num_initial; i++)
        if (!reach[m->initial_states[i]]) {
            reach[m->initial_states[i]] = 1;
            queue[tail++] = m->initial_states[i];
        }
    while (head < tail) {
        uint32_t s = queue[head++];
        for (uint64_t j = row_begin(m, s); j < row_end(m, s); j++)
            if (!reach[m->targets[j]]) {
                reach[m->targets[j]] = 1;
                queue[tail++] = m->targets[j];
            }
    }
    return tail;
}

/* ---- nested depth-first search ---------------------------------------------- */

int ref_acc_nested_dfs(const csr_model *m, const uint8_t *accepting, acc_lasso *lasso, acc_stats *st)
{
    const uint64_t n = m->num_states;
    uint8_t *mark = calloc(n ? n : 1, 1); /* bit 0 outer visited, bit 1 inner visited, bit 2 on the outer stack */
    uint32_t *os = malloc((n ? n : 1) * sizeof *os), *is = malloc((n ? n : 1) * sizeof *is);
    uint64_t *onext = malloc((n ? n : 1) * sizeof *onext), *inext = malloc((n ? n : 1) * sizeof *inext);
    int found = 0;
    uint64_t visited = 0, otop = 0, itop = 0;
    uint32_t seed = 0, meet = 0;
    if (!mark || !os || !is || !onext || !inext) {
        found = -CSR_ERR_NOMEM;
        goto out;
    }
    for (uint64_t i = 0; i < m->num_initial && !found; i++) {
        uint32_t root = m->initial_states[i];
        if (mark[root] & 1)
            continue;
        mark[root] |= 5;
        visited++;
        os[0] = root;
        onext[0] = row_begin(m, root);
        otop = 1;
        while (otop && !found) {
            uint32_t s = os[otop - 1];
            if (onext[otop - 1] < row_end(m, s)) {
                uint32_t t = m->targets[onext[otop - 1]++];
                if (!(mark[t] & 1)) {
                    mark[t] |= 5;
                    visited++;
                    os[otop] = t;
                    onext[otop++] = row_begin(m, t);
                }
                continue;
            }
            if (accepting[s]) { /* post-order: the inner search from s, for a state on the outer stack */
                is[0] = s;
                inext[0] = row_begin(m, s);
                itop = 1;
                mark[s] |= 2;
                while (itop && !found) {
                    uint32_t u = is[itop - 1];
                    if (inext[itop - 1] >= row_end(m, u)) {
                        itop--;
                        continue;
                    }
                    uint32_t t = m->targets[inext[itop - 1]++];
                    if (mark[t] & 4) { /* on the outer stack: t reaches s along it */
                        found = 1;
                        seed = s;
                        meet = t;
                    } else if (!(mark[t] & 2)) {
                        mark[t] |= 2;
                        is[itop] = t;
                        inext[itop++] = row_begin(m, t);
                    }
                }
                if (found)
                    break;
            }
            mark[s] &= (uint8_t)~4;
            otop--;
        }
    }
    if (found == 1 && lasso) {
        /* prefix: the outer stack (an initial state to seed); cycle: seed, the
         * inner stack after it, then the outer stack from meet to seed's predecessor */
        memset(lasso, 0, sizeof *lasso);
        uint64_t at = 0;
        while (os[at] != meet)
            at++;
        lasso->prefix_length = otop;
        lasso->cycle_length = itop + (meet == seed ? 0 : otop - 1 - at);
        lasso->prefix = malloc(otop * sizeof *lasso->prefix);
        lasso->cycle = malloc(lasso->cycle_length * sizeof *lasso->cycle);
        if (!lasso->prefix || !lasso->cycle) {
            acc_lasso_free(lasso);
            found = -CSR_ERR_NOMEM;
            goto out;
        }
        memcpy(lasso->prefix, os, otop * sizeof *os);
        memcpy(lasso->cycle, is, itop * sizeof *is);
        if (meet != seed)
            memcpy(lasso->cycle + itop, os + at, (otop - 1 - at) * sizeof *os);
    }
out:
    if (st) {
        memset(st, 0, sizeof *st);
        st->reachable = visited;
        st->remaining = found == 1;
    }
    free(mark);
    free(os);
    free(is);
    free(onext);
    free(inext);
    return found;
}

/* ---- OWCTY -------------------------------------------------------------------- */

int ref_acc_owcty(const csr_model *m, const uint8_t *accepting, uint8_t *survivors, acc_stats *st)
{
    const uint64_t n = m->num_states;
    uint8_t *in = malloc(n ? n : 1), *mark = malloc(n ? n : 1);
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue), *indeg = malloc((n ? n : 1) * sizeof *indeg);
    if (!in || !mark || !queue || !indeg) {
        free(in), free(mark), free(queue), free(indeg);
        return -CSR_ERR_NOMEM;
    }
    uint64_t count = reachable(m, in, queue), before, rounds = 0;
    if (st) {
        memset(st, 0, sizeof *st);
        st->reachable = count;
    }
    do {
        before = count;
        rounds++;
        /* Reset: the states of the set reachable inside it from its accepting states */
        uint64_t head = 0, tail = 0;
        memset(mark, 0, n);
        for (uint64_t s = 0; s < n; s++)
            if (in[s] && accepting[s]) {
                mark[s] = 1;
                queue[tail++] = (uint32_t)s;
            }
        while (head < tail) {
            uint32_t s = queue[head++];
            for (uint64_t j = row_begin(m, s); j < row_end(m, s); j++) {
                uint32_t t = m->targets[j];
                if (in[t] && !mark[t]) {
                    mark[t] = 1;
                    queue[tail++] = t;
                }
            }
        }
        memcpy(in, mark, n);
        count = tail;
        /* Elimination: no predecessor in the set, repeatedly */
        memset(indeg, 0, n * sizeof *indeg);
        for (uint64_t s = 0; s < n; s++)
            if (in[s])
                for (uint64_t j = row_begin(m, s); j < row_end(m, s); j++)
                    indeg[m->targets[j]]++;
        head = tail = 0;
        for (uint64_t s = 0; s < n; s++)
            if (in[s] && !indeg[s]) {
                in[s] = 0;
                queue[tail++] = (uint32_t)s;
            }
        while (head < tail) {
            uint32_t s = queue[head++];
            for (uint64_t j = row_begin(m, s); j < row_end(m, s); j++) {
                uint32_t t = m->targets[j];
                if (in[t] && --indeg[t] == 0) {
                    in[t] = 0;
                    queue[tail++] = t;
                }
            }
        }
        count -= tail;
    } while (count != before && count);
    if (survivors)
        memcpy(survivors, in, n);
    if (st) {
        st->rounds = rounds;
        st->remaining = count;
    }
    free(in), free(mark), free(queue), free(indeg);
    return count > 0;
}

/* ---- MAP ------------------------------------------------------------------------ */

int ref_acc_map(const csr_model *m, const uint8_t *accepting, uint64_t *cycle_state, acc_stats *st)
{
    const uint64_t n = m->num_states;
    uint8_t *reach = malloc(n ? n : 1), *acc = malloc(n ? n : 1);
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    uint64_t *map = malloc((n ? n : 1) * sizeof *map); /* 0: none; else the state + 1 */
    if (!reach || !acc || !queue || !map) {
        free(reach), free(acc), free(queue), free(map);
        return -CSR_ERR_NOMEM;
    }
    uint64_t count = reachable(m, reach, queue), rounds = 0, passes = 0;
    for (uint64_t s = 0; s < n; s++)
        acc[s] = reach[s] && accepting[s];
    int found = 0;
    for (;;) {
        rounds++;
        memset(map, 0, n * sizeof *map);
        int changed;
        do { /* map(v) = max over edges u -> v of max(map(u), u if accepting) */
            changed = 0;
            passes++;
            for (uint64_t u = 0; u < n; u++) {
                if (!reach[u])
                    continue;
                uint64_t val = acc[u] && u + 1 > map[u] ? u + 1 : map[u];
                if (!val)
                    continue;
                for (uint64_t j = row_begin(m, u); j < row_end(m, u); j++)
                    if (val > map[m->targets[j]]) {
                        map[m->targets[j]] = val;
                        changed = 1;
                    }
            }
        } while (changed);
        for (uint64_t v = 0; v < n && !found; v++)
            if (acc[v] && map[v] == v + 1) {
                found = 1;
                *cycle_state = v;
            }
        if (found)
            break;
        uint64_t removed = 0; /* the maximal accepting predecessors lie on no accepting cycle */
        for (uint64_t v = 0; v < n; v++)
            if (map[v] && acc[map[v] - 1]) {
                acc[map[v] - 1] = 0;
                removed++;
            }
        if (!removed)
            break;
    }
    if (st) {
        memset(st, 0, sizeof *st);
        st->reachable = count;
        st->rounds = rounds;
        st->passes = passes;
        st->remaining = found;
    }
    free(reach), free(acc), free(queue), free(map);
    return found;
}

/* ---- lassos ---------------------------------------------------------------------- */

/* Breadth-first search from the states with from[s] (or from state `source`'s
 * successors when from is NULL) over edges into states with allowed (NULL:
 * all), to state goal: the path as states, *length of them, or NULL (none
 * or no memory). */
static uint32_t *bfs_path(const csr_model *m, const uint8_t *from, uint32_t source, const uint64_t *comp,
                          uint64_t cid, uint32_t goal, uint64_t *length, int *nomem)
{
    const uint64_t n = m->num_states;
    /* the queue: every state once, and the source twice (expanded first, reached last) */
    uint32_t *parent = malloc((n ? n : 1) * sizeof *parent), *queue = malloc((n + 1) * sizeof *queue);
    uint32_t *path = NULL;
    *nomem = !parent || !queue;
    if (*nomem)
        goto out;
    for (uint64_t s = 0; s < n; s++)
        parent[s] = UINT32_MAX - 1; /* unseen */
    uint64_t head = 0, tail = 0;
    int reached = 0;
    if (from) {
        for (uint64_t s = 0; s < n; s++)
            if (from[s]) {
                parent[s] = UINT32_MAX; /* a root */
                queue[tail++] = (uint32_t)s;
                reached |= s == goal;
            }
    } else {
        queue[tail++] = source; /* the source is expanded, not a root of the path */
    }
    while (head < tail && !reached) {
        uint32_t s = queue[head++];
        for (uint64_t j = row_begin(m, s); j < row_end(m, s) && !reached; j++) {
            uint32_t t = m->targets[j];
            if ((comp && comp[t] != cid) || parent[t] != UINT32_MAX - 1)
                continue;
            parent[t] = from ? s : (s == source && head == 1 ? UINT32_MAX : s);
            queue[tail++] = t;
            reached = t == goal;
        }
    }
    if (!reached)
        goto out;
    uint64_t len = 0;
    for (uint32_t v = goal;; v = parent[v]) {
        len++;
        if (parent[v] == UINT32_MAX)
            break;
    }
    path = malloc(len * sizeof *path);
    *nomem = !path;
    if (path) {
        uint64_t i = len;
        for (uint32_t v = goal;; v = parent[v]) {
            path[--i] = v;
            if (parent[v] == UINT32_MAX)
                break;
        }
        *length = len;
    }
out:
    free(parent);
    free(queue);
    return path;
}

int acc_lasso_build(const csr_model *m, const uint8_t *accepting, const uint8_t *within, acc_lasso *lasso)
{
    const uint64_t n = m->num_states;
    memset(lasso, 0, sizeof *lasso);
    uint8_t *alive = malloc(n ? n : 1), *init = calloc(n ? n : 1, 1);
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    uint64_t *comp = malloc((n ? n : 1) * sizeof *comp), *size = calloc(n ? n : 1, sizeof *size);
    int rc = alive && init && queue && comp && size ? 0 : -CSR_ERR_NOMEM;
    if (rc)
        goto out;
    reachable(m, alive, queue);
    for (uint64_t s = 0; within && s < n; s++)
        alive[s] = alive[s] && within[s];
    if (ref_scc_tarjan(m, alive, NULL, comp, NULL)) {
        rc = -CSR_ERR_NOMEM;
        goto out;
    }
    for (uint64_t s = 0; s < n; s++)
        if (comp[s] != REF_NONE)
            size[comp[s]]++;
    uint64_t a = UINT64_MAX;
    for (uint64_t s = 0; s < n && a == UINT64_MAX; s++)
        if (alive[s] && accepting[s] && (size[comp[s]] > 1 || ref_has_self_loop(m, NULL, s)))
            a = s;
    if (a == UINT64_MAX)
        goto out; /* none */
    int nomem;
    /* the cycle: from a's successors inside its SCC back to a (a one-state cycle: its self-loop) */
    uint64_t clen = 0, plen = 0;
    uint32_t *cpath = bfs_path(m, NULL, (uint32_t)a, comp, comp[a], (uint32_t)a, &clen, &nomem);
    if (!cpath) {
        rc = nomem ? -CSR_ERR_NOMEM : 0;
        goto out;
    }
    /* cpath runs from a's successor to a: the cycle is a, then cpath without its last (a) */
    lasso->cycle = malloc(clen * sizeof *lasso->cycle);
    for (uint64_t i = 0; i < m->num_initial; i++)
        init[m->initial_states[i]] = 1;
    lasso->prefix = bfs_path(m, init, 0, NULL, 0, (uint32_t)a, &plen, &nomem);
    if (!lasso->cycle || !lasso->prefix) {
        free(cpath);
        acc_lasso_free(lasso);
        rc = -CSR_ERR_NOMEM;
        goto out;
    }
    lasso->cycle[0] = (uint32_t)a;
    memcpy(lasso->cycle + 1, cpath, (clen - 1) * sizeof *cpath);
    lasso->cycle_length = clen;
    lasso->prefix_length = plen;
    free(cpath);
    rc = 1;
out:
    free(alive), free(init), free(queue), free(comp), free(size);
    return rc;
}

static int has_edge(const csr_model *m, uint64_t s, uint64_t t)
{
    for (uint64_t j = row_begin(m, s); j < row_end(m, s); j++)
        if (m->targets[j] == t)
            return 1;
    return 0;
}

int acc_lasso_valid(const csr_model *m, const uint8_t *accepting, const acc_lasso *l)
{
    if (!l->prefix_length || !l->cycle_length || l->prefix[l->prefix_length - 1] != l->cycle[0] ||
        !accepting[l->cycle[0]])
        return 0;
    int initial = 0;
    for (uint64_t i = 0; i < m->num_initial; i++)
        initial |= m->initial_states[i] == l->prefix[0];
    if (!initial)
        return 0;
    for (uint64_t i = 0; i + 1 < l->prefix_length; i++)
        if (l->prefix[i] >= m->num_states || !has_edge(m, l->prefix[i], l->prefix[i + 1]))
            return 0;
    for (uint64_t i = 0; i < l->cycle_length; i++)
        if (l->cycle[i] >= m->num_states || !has_edge(m, l->cycle[i], l->cycle[(i + 1) % l->cycle_length]))
            return 0;
    return 1;
}
