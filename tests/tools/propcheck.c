/*
 * propcheck - test helper: PRISM properties files through format/props.h,
 * each property's resolved form and the state counts of its formulas.
 *
 *   propcheck [-P FILE]... [-p PROPERTY]... [--const N=V,...] [--model M.csr]
 *             [--sta M.sta] [--states] [--parse-only]
 *
 * The model: a CSR file, given state valuations by a PRISM .sta file
 * ("(x,y,b)" then "s:(1,2,true)" lines) where it has none; or, with --sta
 * alone, a model of the .sta's states (a self-loop each, state 0 initial, no
 * labels).  Without either, no model.
 * Output: a line "const NAME TYPE:VALUE" per constant of the files (VALUE
 * "-" where no property used it or it has none), then a line per property:
 *   NAME<TAB>TEXT<TAB>FORM
 * NAME "-" when unnamed; FORM either "error: DETAIL" / "unsupported: DETAIL"
 * or words: the kind (P R S state value other); for P and R the direction
 * (min, max, any; in parentheses where implied by a bound) and =? or the
 * bound (>=0.5); reward="name" / reward=#k / reward=first / reward=time
 * (Storm's T); the path (F U G X C I) and steps=k; rbound<=b{"name"};
 * filter=OP; value=TYPE:V (bool:true,
 * int:7, double:2.5) for a constant expression; and with a
 * model the states of each formula: avoid=N target=N states=N (the filter's)
 * (--states: the states themselves on the lines after, "  target: 0 4 7").
 * --parse-only: the forms as parsed, before any name is resolved: the
 * numbers not evaluated (">=", "steps", "rbound<="; "expr" for a state
 * formula or value), only the errors of the form ("unsupported: ...").
 * Exit 0 (each property's errors are in its line), 1 a file that does not
 * parse or read, 2 usage.  Not installed; used by tests/107-expressions.bats.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "props.h"

static char *read_all(const char *path, size_t *length)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *more = realloc(buf, (cap *= 2) + 1);
            if (!more)
                free(buf);
            buf = more;
        }
    }
    if (f != stdin)
        fclose(f);
    if (buf)
        buf[n] = '\0';
    *length = n;
    return buf;
}

/* A PRISM .sta: names, types, values i64[n * V]. */
typedef struct sta {
    uint64_t n, V;
    char **names;
    uint32_t *types;
    int64_t *values;
} sta;

static int read_sta(const char *path, sta *s)
{
    size_t len;
    char *text = read_all(path, &len), *line, *save = NULL;
    if (!text)
        return -1;
    memset(s, 0, sizeof *s);
    line = strtok_r(text, "\n", &save);
    if (!line || line[0] != '(') {
        fprintf(stderr, "propcheck: %s: expected the variables \"(x,y,...)\" on line 1\n", path);
        return -1;
    }
    for (char *p = line + 1, *tok; (tok = strtok_r(p, ",)\r", &p)) && *tok;) {
        s->names = realloc(s->names, (s->V + 1) * sizeof *s->names);
        s->names[s->V++] = strdup(tok);
    }
    s->types = calloc(s->V ? s->V : 1, sizeof *s->types);
    for (uint64_t v = 0; v < s->V; v++)
        s->types[v] = CSR_VAR_INT;
    uint64_t cap = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *open = strchr(line, '(');
        if (!open || strtoull(line, NULL, 10) != s->n) {
            fprintf(stderr, "propcheck: %s: line %" PRIu64 " is not \"%" PRIu64 ":(...)\"\n", path, s->n + 2, s->n);
            return -1;
        }
        if (s->n == cap) {
            cap = cap ? 2 * cap : 1024;
            s->values = realloc(s->values, cap * s->V * sizeof *s->values);
        }
        char *p = open + 1, *tok;
        for (uint64_t v = 0; v < s->V; v++) {
            tok = strtok_r(p, ",)\r", &p);
            if (!tok) {
                fprintf(stderr, "propcheck: %s: state %" PRIu64 " has too few values\n", path, s->n);
                return -1;
            }
            int64_t x;
            if (!strcmp(tok, "true") || !strcmp(tok, "false")) {
                x = !strcmp(tok, "true");
                s->types[v] = CSR_VAR_BOOL;
            } else {
                x = strtoll(tok, NULL, 10);
            }
            s->values[s->n * s->V + v] = x;
        }
        s->n++;
    }
    free(text);
    return 0;
}

/* A model of n states, a self-loop each, state 0 initial. */
static int trivial_model(csr_model *m, uint64_t n)
{
    memset(m, 0, sizeof *m);
    uint64_t *sc = malloc((n + 1) * sizeof *sc), *ct = malloc((n + 1) * sizeof *ct);
    uint32_t *tg = malloc((n ? n : 1) * sizeof *tg), *init = malloc(sizeof *init);
    double *pr = malloc((n ? n : 1) * sizeof *pr);
    if (!sc || !ct || !tg || !init || !pr)
        return -1;
    for (uint64_t s = 0; s <= n; s++)
        sc[s] = ct[s] = s;
    for (uint64_t s = 0; s < n; s++)
        tg[s] = (uint32_t)s, pr[s] = 1;
    init[0] = 0;
    m->model_type = CSR_DTMC;
    m->num_states = m->num_choices = m->num_transitions = n;
    m->state_choices = sc;
    m->choice_transitions = ct;
    m->targets = tg;
    m->probabilities = pr;
    m->initial_states = init;
    m->num_initial = n ? 1 : 0;
    csr_adopt(m, sc), csr_adopt(m, ct), csr_adopt(m, tg), csr_adopt(m, pr), csr_adopt(m, init);
    return 0;
}

/* TYPE:VALUE (bool:true, int:7, double:2.5) */
static void print_value(const expr_value *v)
{
    if (v->type == EXPR_BOOL)
        printf("bool:%s", v->i ? "true" : "false");
    else if (v->type == EXPR_INT)
        printf("int:%" PRId64, v->i);
    else
        printf("double:%.17g", v->d);
}

static const char *relation_text(int r)
{
    switch (r) {
    case EXPR_LT: return "<";
    case EXPR_LE: return "<=";
    case EXPR_GT: return ">";
    case EXPR_GE: return ">=";
    default: return "=?";
    }
}

/* " WORD=N" for formula f, the states on *listing; 0, or -1 (error printed in the line). */
static int count_states(const csr_model *m, const props_file *f, const expr *e, const char *word, uint8_t *flags,
                        char **listing, size_t *listing_len, int list)
{
    csr_status st;
    memset(&st, 0, sizeof st);
    if (props_states(m, f, e, flags, &st)) {
        printf("\terror: %s", st.detail);
        return -1;
    }
    uint64_t k = 0;
    for (uint64_t s = 0; s < m->num_states; s++)
        k += flags[s];
    printf(" %s=%" PRIu64, word, k);
    if (list) {
        size_t need = *listing_len + strlen(word) + 8 + 12 * k;
        char *more = realloc(*listing, need + 1);
        if (!more)
            return -1;
        *listing = more;
        *listing_len += (size_t)sprintf(*listing + *listing_len, "  %s:", word);
        for (uint64_t s = 0; s < m->num_states; s++)
            if (flags[s])
                *listing_len += (size_t)sprintf(*listing + *listing_len, " %" PRIu64, s);
        *listing_len += (size_t)sprintf(*listing + *listing_len, "\n");
    }
    return 0;
}

int main(int argc, char **argv)
{
    props_file f;
    memset(&f, 0, sizeof f);
    csr_status st;
    memset(&st, 0, sizeof st);
    const char *model_path = NULL, *sta_path = NULL;
    int list = 0, have_model = 0, parse_only = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-P") || !strcmp(a, "-p") || !strcmp(a, "--const") || !strcmp(a, "--model") ||
             !strcmp(a, "--sta")) &&
            i + 1 >= argc) {
            fprintf(stderr, "propcheck: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "-P")) {
            size_t len;
            char *text = read_all(argv[++i], &len);
            if (!text) {
                fprintf(stderr, "propcheck: %s: cannot read\n", argv[i]);
                return 1;
            }
            int rc = props_parse_file(text, len, &f, &st);
            free(text);
            if (rc) {
                fprintf(stderr, "propcheck: %s: %s\n", argv[i], st.detail);
                props_free(&f);
                return 1;
            }
        } else if (!strcmp(a, "-p")) {
            if (props_parse_property(argv[i + 1], strlen(argv[i + 1]), &f, &st)) {
                fprintf(stderr, "propcheck: -p '%s': %s\n", argv[i + 1], st.detail);
                props_free(&f);
                return 1;
            }
            i++;
        } else if (!strcmp(a, "--const")) {
            if (props_define_constants(&f, argv[++i], &st)) {
                fprintf(stderr, "propcheck: %s\n", st.detail);
                props_free(&f);
                return 2;
            }
        } else if (!strcmp(a, "--model")) {
            model_path = argv[++i];
        } else if (!strcmp(a, "--sta")) {
            sta_path = argv[++i];
        } else if (!strcmp(a, "--states")) {
            list = 1;
        } else if (!strcmp(a, "--parse-only")) {
            parse_only = 1;
        } else {
            fprintf(stderr, "usage: propcheck [-P FILE]... [-p PROPERTY]... [--const N=V,...] [--model M.csr] "
                            "[--sta M.sta] [--states]\n");
            return 2;
        }
    }
    csr_model m;
    memset(&m, 0, sizeof m);
    if (model_path) {
        int fd = open(model_path, O_RDONLY);
        if (fd < 0 || csr_read_fd(fd, &m, &st)) {
            fprintf(stderr, "propcheck: %s: cannot read: %s\n", model_path, st.detail);
            return 1;
        }
        close(fd);
        have_model = 1;
    }
    if (sta_path) {
        sta s;
        if (read_sta(sta_path, &s))
            return 1;
        if (!have_model && trivial_model(&m, s.n)) {
            fprintf(stderr, "propcheck: out of memory\n");
            return 1;
        }
        have_model = 1;
        if (s.n != m.num_states ||
            csr_set_valuations(&m, s.V, (const char *const *)s.names, s.types, NULL, NULL, s.values)) {
            fprintf(stderr, "propcheck: %s: %" PRIu64 " states for a model of %" PRIu64 ", or bad values\n", sta_path,
                    s.n, m.num_states);
            return 1;
        }
        for (uint64_t v = 0; v < s.V; v++)
            free(s.names[v]);
        free(s.names);
        free(s.types);
        free(s.values);
    }
    if (parse_only) {
        for (size_t i = 0; i < f.count; i++) {
            const props_property *p = &f.properties[i];
            printf("%s\t%s\t", p->name ? p->name : "-", p->text);
            if (p->form.code) {
                printf("unsupported: %s\n", p->form.detail);
                continue;
            }
            printf("%s", p->kind == PROPS_STATE ? "expr" : props_kind_name(p->kind));
            if (p->kind == PROPS_PROB || p->kind == PROPS_REWARD) {
                const char *dir = p->direction == PROP_MIN ? "min" : p->direction == PROP_MAX ? "max" : "any";
                printf(p->direction_written || p->direction == PROP_ANY ? " %s %s" : " (%s) %s", dir,
                       relation_text(p->relation));
                if (p->kind == PROPS_REWARD)
                    printf(p->time ? " reward=time" : p->reward_name ? " reward=\"%s\""
                                                    : p->index_expr ? " reward=#?" : " reward=first",
                           p->reward_name);
                printf(" %s%s", props_path_name(p->path), p->steps_expr ? " steps" : "");
                if (p->reward_bound_relation)
                    printf(" rbound%s%s%s%s", relation_text(p->reward_bound_relation),
                           p->reward_bound_name ? "{\"" : "", p->reward_bound_name ? p->reward_bound_name : "",
                           p->reward_bound_name ? "\"}" : "");
            }
            if (p->filter)
                printf(" filter=%s", props_filter_name(p->filter));
            putchar('\n');
        }
        props_free(&f);
        csr_free(&m);
        return 0;
    }
    if (props_bind(&f, have_model ? &m : NULL, &st)) {
        fprintf(stderr, "propcheck: %s\n", st.detail);
        props_free(&f);
        csr_free(&m);
        return 2;
    }
    for (size_t i = 0; i < f.num_constants; i++) {
        const props_constant *c = &f.constants[i];
        printf("const %s ", c->name);
        if (c->defined)
            print_value(&c->value);
        else
            printf("%s:-", expr_type_name(c->type));
        putchar('\n');
    }
    uint8_t *flags = malloc(m.num_states ? m.num_states : 1);
    for (size_t i = 0; i < f.count; i++) {
        const props_property *p = &f.properties[i];
        printf("%s\t%s\t", p->name ? p->name : "-", p->text);
        if (p->status.code) {
            printf("%s: %s\n", p->status.code == CSR_ERR_UNSUPPORTED ? "unsupported" : "error", p->status.detail);
            continue;
        }
        printf("%s", props_kind_name(p->kind));
        if (p->kind == PROPS_PROB || p->kind == PROPS_REWARD) {
            const char *dir = p->direction == PROP_MIN ? "min" : p->direction == PROP_MAX ? "max" : "any";
            printf(p->direction_written || p->direction == PROP_ANY ? " %s" : " (%s)", dir);
            if (p->relation == EXPR_QUERY)
                printf(" =?");
            else
                printf(" %s%.17g", relation_text(p->relation), p->bound);
            if (p->kind == PROPS_REWARD) {
                if (p->time)
                    printf(" reward=time");
                else if (p->reward_name)
                    printf(" reward=\"%s\"", p->reward_name);
                else if (p->reward_index >= 0)
                    printf(" reward=#%" PRId64, p->reward_index + 1);
                else
                    printf(" reward=first");
            }
            printf(" %s", props_path_name(p->path));
            if (p->steps >= 0)
                printf(" steps=%" PRId64, p->steps);
            if (p->reward_bound_relation) {
                printf(" rbound%s%.17g", relation_text(p->reward_bound_relation), p->reward_bound);
                if (p->reward_bound_name)
                    printf("{\"%s\"}", p->reward_bound_name);
            }
        }
        if (p->filter)
            printf(" filter=%s", props_filter_name(p->filter));
        if (p->value.type) {
            printf(" value=");
            print_value(&p->value);
        }
        char *listing = NULL;
        size_t listing_len = 0;
        if (have_model && flags) {
            const expr *fs[3] = {p->avoid, p->target, p->filter_states};
            const char *words[3] = {"avoid", "target", "states"};
            for (int k = 0; k < 3; k++)
                if (fs[k] && count_states(&m, &f, fs[k], words[k], flags, &listing, &listing_len, list))
                    break;
        }
        putchar('\n');
        if (listing)
            fputs(listing, stdout);
        free(listing);
    }
    free(flags);
    props_free(&f);
    csr_free(&m);
    return 0;
}
