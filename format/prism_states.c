/*
 * prism_states.c - PRISM's state file (.sta, prism -exportstates) in and out
 * (prism_text.h): the state valuations of a CSR model (format/CSR.md 1.3).
 *
 * As PRISM 4.10 writes it (io/PrismExplicitExporter.exportStates,
 * parser/State.toString) and reads it (io/PrismExplicitImporter): an
 * optional "# States" line (any '#' line and blank line is skipped), the
 * variable names "(x,y,z)", then a line "s:(v1,v2,v3)" per state s = 0, 1,
 * ..., each value an integer or true / false.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "numparse.h"
#include "prism_text.h"

/* The variable names of the header "(x,y,z)" (spaces around names allowed)
 * into decl, which must come out with names 1 .. V (0 is ""). */
static int parse_sta_header(const char *p, names *decl, csr_status *st)
{
    p = num_skip_spaces(p);
    if (*p != '(')
        return csr_fail(st, CSR_ERR_SYNTAX, "expected the variable names \"(x,y,...)\"");
    p++;
    for (;;) {
        p = num_skip_spaces(p);
        const char *name = p;
        while (*p && *p != ',' && *p != ')' && !num_is_space(*p) && *p != '(' && *p != ':')
            p++;
        size_t len = (size_t)(p - name);
        p = num_skip_spaces(p);
        if (len == 0 || (*p != ',' && *p != ')'))
            return csr_fail(st, CSR_ERR_SYNTAX, "variable %llu: expected a name, then ',' or ')'",
                            (unsigned long long)decl->count);
        uint64_t before = decl->count;
        if (names_intern(decl, name, len) < 0)
            return csr_fail(st, CSR_ERR_NOMEM, "variable names");
        if (decl->count == before)
            return csr_fail(st, CSR_ERR_STRING_TABLE, "variable \"%.*s\" named twice", (int)(len > 60 ? 60 : len), name);
        if (*p++ == ')')
            break;
    }
    if (*num_skip_spaces(p))
        return csr_fail(st, CSR_ERR_SYNTAX, "text after the variable names");
    return CSR_OK;
}

/* One value: true / false (*is_bool 1) or a decimal i64 (*is_bool 0); p
 * advanced past it.  -1 when it is neither. */
static int parse_sta_value(const char **p, int64_t *value, int *is_bool)
{
    const char *s = *p;
    if (!strncmp(s, "true", 4) || !strncmp(s, "false", 5)) {
        *is_bool = 1;
        *value = *s == 't';
        *p = s + (*s == 't' ? 4 : 5);
        return 0;
    }
    int neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    uint64_t mag = 0;
    const char *digits = s;
    while (*s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s - '0');
        if (mag > (UINT64_MAX - d) / 10)
            return -1;
        mag = mag * 10 + d;
        s++;
    }
    if (s == digits || mag > (uint64_t)INT64_MAX + neg)
        return -1;
    *is_bool = 0;
    *value = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    *p = s;
    return 0;
}

int prism_read_sta(textin *in, csr_model *m, csr_status *st)
{
    names decl = {0};
    vec values = {0};
    int8_t *kind = NULL; /* per variable: -1 unknown, 0 int, 1 bool */
    uint32_t *types = NULL;
    int rc = CSR_OK, got;
    uint64_t V = 0, next = 0, header_line = 0;
    char *line;
    size_t len;
    if (names_intern(&decl, "", 0) != 0) {
        rc = csr_fail(st, CSR_ERR_NOMEM, "variable names");
        goto fail;
    }
    while ((got = textin_next(in, &line, &len, st)) > 0) {
        const char *p = num_skip_spaces(line);
        if (*p == '#' || *p == '\0')
            continue;
        if (!header_line) {
            if ((rc = parse_sta_header(p, &decl, st)))
                goto fail;
            header_line = in->line;
            V = decl.count - 1;
            kind = malloc(V);
            if (!kind) {
                rc = csr_fail(st, CSR_ERR_NOMEM, "%llu variables", (unsigned long long)V);
                goto fail;
            }
            memset(kind, -1, V);
            continue;
        }
        uint64_t s = 0;
        const char *q = p;
        for (; *q >= '0' && *q <= '9'; q++) {
            if (s > (UINT64_MAX - 9) / 10) {
                rc = csr_fail(st, CSR_ERR_NUMBER, "state number");
                goto fail;
            }
            s = s * 10 + (uint64_t)(*q - '0');
        }
        if (q == p || *num_skip_spaces(q) != ':') {
            rc = csr_fail(st, CSR_ERR_SYNTAX, "expected \"state:(values)\"");
            goto fail;
        }
        if (s != next || s >= m->num_states) {
            if (next >= m->num_states)
                rc = csr_fail(st, CSR_ERR_COUNTS, "state %llu, but the model has %llu states", (unsigned long long)s,
                              (unsigned long long)m->num_states);
            else
                rc = csr_fail(st, CSR_ERR_ORDER, "state %llu where state %llu comes (one line a state, in order)",
                              (unsigned long long)s, (unsigned long long)next);
            goto fail;
        }
        p = num_skip_spaces(num_skip_spaces(q) + 1);
        if (*p != '(') {
            rc = csr_fail(st, CSR_ERR_SYNTAX, "state %llu: expected '(' before the values", (unsigned long long)s);
            goto fail;
        }
        p++;
        for (uint64_t v = 0; v < V; v++) {
            const char want = v + 1 < V ? ',' : ')';
            const char *start = num_skip_spaces(p), *end = start;
            while (*end && *end != ',' && *end != ')')
                end++;
            if (*end != want) {
                if (*end == ')' || *end == ',')
                    rc = csr_fail(st, CSR_ERR_COUNTS, "state %llu has %s values than the %llu variables of the header",
                                  (unsigned long long)s, *end == ')' ? "fewer" : "more", (unsigned long long)V);
                else
                    rc = csr_fail(st, CSR_ERR_SYNTAX, "state %llu: no ')' after the values", (unsigned long long)s);
                goto fail;
            }
            int64_t value;
            int is_bool;
            const char *at = start;
            if (parse_sta_value(&at, &value, &is_bool) || num_skip_spaces(at) != end) {
                int shown = (int)(end - start > 30 ? 30 : end - start);
                rc = csr_fail(st, CSR_ERR_NUMBER, "state %llu, variable \"%.60s\": \"%.*s\" is not an integer (64 bits) or true/false",
                              (unsigned long long)s, decl.list[v + 1], shown, start);
                goto fail;
            }
            p = end + 1;
            if (kind[v] < 0) {
                kind[v] = (int8_t)is_bool;
            } else if (kind[v] != is_bool) {
                rc = csr_fail(st, CSR_ERR_SYNTAX, "state %llu, variable \"%.60s\": %s where state 0 has %s",
                              (unsigned long long)s, decl.list[v + 1], is_bool ? "true/false" : "an integer",
                              is_bool ? "an integer" : "true/false");
                goto fail;
            }
            if (VEC_PUSH(values, int64_t, value)) {
                rc = csr_fail(st, CSR_ERR_NOMEM, "state valuations");
                goto fail;
            }
        }
        if (*num_skip_spaces(p)) {
            rc = csr_fail(st, CSR_ERR_SYNTAX, "state %llu: text after the values", (unsigned long long)s);
            goto fail;
        }
        next++;
    }
    if (got < 0) {
        rc = -got;
        goto fail;
    }
    if (!header_line) {
        rc = csr_fail(st, CSR_ERR_TRUNCATED, "no variable names \"(x,y,...)\"");
        goto fail;
    }
    if (in->missing_newline) {
        rc = csr_fail(st, CSR_ERR_TRUNCATED, "the last line has no newline");
        goto fail;
    }
    if (next != m->num_states) {
        rc = csr_fail(st, CSR_ERR_COUNTS, "%llu states listed, the model has %llu: state %llu has no line",
                      (unsigned long long)next, (unsigned long long)m->num_states, (unsigned long long)next);
        goto fail;
    }
    types = malloc((V ? V : 1) * sizeof *types);
    if (!types) {
        rc = csr_fail(st, CSR_ERR_NOMEM, "state valuations");
        goto fail;
    }
    for (uint64_t v = 0; v < V; v++)
        types[v] = kind[v] == 1 ? CSR_VAR_BOOL : CSR_VAR_INT;
    rc = csr_set_valuations(m, V, (const char *const *)decl.list + 1, types, NULL, NULL, values.data);
    if (rc) {
        in->line = header_line;
        rc = csr_fail(st, rc, "%llu variables of %llu states", (unsigned long long)V,
                      (unsigned long long)m->num_states);
        goto fail;
    }
    free(types);
    free(kind);
    free(values.data);
    names_free(&decl);
    return CSR_OK;

fail:
    if (st)
        st->line = in->line;
    free(types);
    free(kind);
    free(values.data);
    names_free(&decl);
    return rc;
}

int prism_write_sta(FILE *f, const csr_model *m, csr_status *st)
{
    if (m->permutation)
        return csr_fail(st, CSR_ERR_USAGE, "the model is renumbered: write its original numbering");
    const uint64_t V = m->variables.count;
    if (!V)
        return csr_fail(st, CSR_ERR_USAGE, "the model has no state valuations");
    fputs("# States\n(", f);
    for (uint64_t v = 0; v < V; v++)
        fprintf(f, "%s%s", v ? "," : "", m->variables.names[v]);
    fputs(")\n", f);
    for (uint64_t s = 0; s < m->num_states; s++) {
        fprintf(f, "%llu:(", (unsigned long long)s);
        for (uint64_t v = 0; v < V; v++) {
            const int64_t x = csr_variable_value(m, s, v);
            if (v)
                putc(',', f);
            if (m->variable_info[v].type == CSR_VAR_BOOL)
                fputs(x ? "true" : "false", f);
            else
                fprintf(f, "%lld", (long long)x);
        }
        fputs(")\n", f);
    }
    if (ferror(f))
        return csr_fail(st, CSR_ERR_IO, "%s", strerror(errno));
    return CSR_OK;
}
