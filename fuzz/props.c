/*
 * props.c - libFuzzer target: PRISM properties files (props_parse_file,
 * props_bind, props_states) and props.h 1.0's single property (prop_parse,
 * prop_states), on a 6-state model with labels "a" and "b" and state
 * variables x (int 0..5) and y (bool): no crash, no leak, flags 0 or 1, each
 * property's text a part of the input, and its status either 0 with its
 * form's fields set or an error with a message.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "props.h"

static csr_model *model(void)
{
    static csr_model m;
    static int made;
    if (!made) {
        static const char *names[] = {"a", "b"};
        static const uint64_t first[] = {0, 2, 4};
        static const uint32_t states[] = {0, 2, 3, 5};
        static const uint32_t initial[] = {1};
        memset(&m, 0, sizeof m);
        m.num_states = 6;
        m.labels.count = 2;
        m.labels.names = names;
        m.label_first = first;
        m.label_states = states;
        m.initial_states = initial;
        m.num_initial = 1;
        static const char *vars[] = {"x", "y"};
        static const uint32_t types[] = {CSR_VAR_INT, CSR_VAR_BOOL};
        int64_t values[12];
        for (int s = 0; s < 6; s++)
            values[2 * s] = s, values[2 * s + 1] = s & 1;
        if (csr_set_valuations(&m, 2, vars, types, NULL, NULL, values))
            abort();
        made = 1;
    }
    return &m;
}

static void check_flags(const csr_model *m, const props_file *f, const expr *e)
{
    uint8_t flags[6];
    csr_status st = {0};
    if (e && props_states(m, f, e, flags, &st) == CSR_OK)
        for (int s = 0; s < 6; s++)
            if (flags[s] > 1)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    const csr_model *m = model();
    props_file f;
    memset(&f, 0, sizeof f);
    csr_status st = {0};
    if (props_parse_file(text, size, &f, &st) == CSR_OK) {
        props_define_constants(&f, "K=2,p=0.5,B=true", &st);
        if (props_bind(&f, m, &st) == CSR_OK)
            for (size_t i = 0; i < f.count; i++) {
                const props_property *p = &f.properties[i];
                if (!p->text || !p->tree || !memmem(text, size, p->text, strlen(p->text)))
                    abort();
                if (p->status.code) {
                    if (!p->status.detail[0])
                        abort();
                    continue;
                }
                if ((p->kind == PROPS_PROB || p->kind == PROPS_REWARD) && p->path != PROPS_CUMULATIVE &&
                    p->path != PROPS_INSTANT && !p->target)
                    abort();
                check_flags(m, &f, p->avoid);
                check_flags(m, &f, p->target);
                check_flags(m, &f, p->filter_states);
            }
    } else if (!st.detail[0]) {
        abort();
    }
    props_free(&f);
    /* props.h 1.0 on the first line alone */
    char *nl = strchr(text, '\n');
    if (nl)
        *nl = '\0';
    prop_property p;
    if (prop_parse(text, &p, &st) == CSR_OK) {
        uint8_t flags[6];
        const prop_formula *fs[] = {p.target, p.avoid};
        for (int i = 0; i < 2; i++)
            if (fs[i] && prop_states(m, fs[i], flags, &st) == CSR_OK)
                for (int s = 0; s < 6; s++)
                    if (flags[s] > 1)
                        abort();
        prop_free(&p);
    }
    free(text);
    return 0;
}
