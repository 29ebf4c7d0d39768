/*
 * umb_write.c - csr_model to a gzip-compressed UMB archive (umb.h), with
 * libarchive (tar, gzip) and jansson (index.json), in the layout of PRISM's
 * UMBWriter: index.json first, then the arrays, entries dated 1970.
 */
#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "umb.h"

#define UMB_WRITE_CHUNK ((size_t)1 << 16) /* elements converted per write */

typedef struct writer {
    struct archive *a;
    csr_status *st;
    int rc;
} writer;

static int archive_error(writer *w, const char *what)
{
    const char *msg = archive_error_string(w->a);
    return w->rc = csr_fail(w->st, CSR_ERR_IO, "%s: %s", what, msg ? msg : "write error");
}

static int begin_member(writer *w, const char *name, uint64_t size)
{
    if (w->rc)
        return w->rc;
    struct archive_entry *e = archive_entry_new();
    if (!e)
        return w->rc = csr_fail(w->st, CSR_ERR_NOMEM, "archive entry");
    archive_entry_set_pathname(e, name);
    archive_entry_set_size(e, (la_int64_t)size);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_mtime(e, 0, 0);
    int got = archive_write_header(w->a, e);
    archive_entry_free(e);
    return got < ARCHIVE_WARN ? archive_error(w, name) : CSR_OK;
}

static int put_bytes(writer *w, const void *data, uint64_t size, const char *name)
{
    const unsigned char *p = data;
    while (!w->rc && size > 0) {
        size_t part = size > (1u << 30) ? (1u << 30) : (size_t)size;
        la_ssize_t put = archive_write_data(w->a, p, part);
        if (put <= 0)
            return archive_error(w, name);
        p += put;
        size -= (uint64_t)put;
    }
    return w->rc;
}

static int write_member(writer *w, const char *name, const void *data, uint64_t size)
{
    if (begin_member(w, name, size))
        return w->rc;
    return put_bytes(w, data, size, name);
}

/* u32 elements as u64 (targets), or a DTMC's choice actions as branch actions. */
static int write_u32_as_u64(writer *w, const char *name, const uint32_t *v, uint64_t count)
{
    uint64_t *buf = malloc(UMB_WRITE_CHUNK * sizeof *buf);
    if (!buf)
        return w->rc = csr_fail(w->st, CSR_ERR_NOMEM, "%s", name);
    begin_member(w, name, count * 8);
    for (uint64_t i = 0; !w->rc && i < count; i += UMB_WRITE_CHUNK) {
        uint64_t k = count - i < UMB_WRITE_CHUNK ? count - i : UMB_WRITE_CHUNK;
        for (uint64_t j = 0; j < k; j++)
            buf[j] = v[i + j];
        put_bytes(w, buf, k * 8, name);
    }
    free(buf);
    return w->rc;
}

/* A sorted state list as one bit per state, LSB first, in u64 words. */
static int write_bits(writer *w, const char *name, const uint32_t *states, uint64_t count, uint64_t n)
{
    uint64_t words = (n + 63) / 64;
    uint64_t *bits = calloc(words ? words : 1, sizeof *bits);
    if (!bits)
        return w->rc = csr_fail(w->st, CSR_ERR_NOMEM, "%s", name);
    for (uint64_t i = 0; i < count; i++)
        bits[states[i] / 64] |= (uint64_t)1 << (states[i] % 64);
    write_member(w, name, bits, words * 8);
    free(bits);
    return w->rc;
}

/* Action names as string-mapping.bin (u64 offsets) and strings.bin. */
static int write_strings(writer *w, const char *dir, const csr_strings *names)
{
    uint64_t *offsets = malloc((names->count + 1) * sizeof *offsets);
    if (!offsets)
        return w->rc = csr_fail(w->st, CSR_ERR_NOMEM, "%s", dir);
    offsets[0] = 0;
    for (uint64_t i = 0; i < names->count; i++)
        offsets[i + 1] = offsets[i] + strlen(names->names[i]);
    char path[64];
    snprintf(path, sizeof path, "%s/string-mapping.bin", dir);
    write_member(w, path, offsets, (names->count + 1) * 8);
    snprintf(path, sizeof path, "%s/strings.bin", dir);
    if (!begin_member(w, path, offsets[names->count]))
        for (uint64_t i = 0; i < names->count; i++)
            put_bytes(w, names->names[i], offsets[i + 1] - offsets[i], path);
    free(offsets);
    return w->rc;
}

/* UMB's IDs: [a-z0-9_-], made unique by appending '_' (UMBFormat.toValidUniqueID). */
static char **ap_ids(const csr_strings *names)
{
    uint64_t count = names->count;
    char **ids = calloc(count ? count : 1, sizeof *ids);
    if (!ids)
        return NULL;
    for (uint64_t l = 0; l < count; l++) {
        size_t len = strlen(names->names[l]);
        char *id = malloc(len + count + 2);
        if (!id) {
            for (uint64_t k = 0; k < l; k++)
                free(ids[k]);
            free(ids);
            return NULL;
        }
        for (size_t i = 0; i < len; i++) {
            unsigned char ch = (unsigned char)tolower((unsigned char)names->names[l][i]);
            id[i] = (char)((isalnum(ch) && ch < 128) || ch == '_' || ch == '-' ? ch : '_');
        }
        id[len] = '\0';
        for (uint64_t k = 0; k < l; k++)
            if (strcmp(ids[k], id) == 0) {
                strcat(id, "_");
                k = (uint64_t)-1; /* check all again */
            }
        ids[l] = id;
    }
    return ids;
}

static json_t *type_object(const char *type, int size)
{
    return json_pack("{s:s, s:i}", "type", type, "size", size);
}

/* How variable v is written, as PRISM's UMBExporter writes its variables:
 * a bool of 1 bit; an int of lower >= 0 as "uint" of the bits of upper; else
 * "int", two's complement of the least bits that hold lower and upper.
 * Returns the bits (1 to 64); *type the UMB type. */
static uint64_t variable_bits(const csr_variable *x, const char **type)
{
    if (x->type == CSR_VAR_BOOL) {
        *type = "bool";
        return 1;
    }
    if (x->lower >= 0) {
        *type = "uint";
        return csr_variable_width((uint64_t)x->upper);
    }
    *type = "int";
    uint64_t w = 1;
    while (w < 64 && (x->lower < -((int64_t)1 << (w - 1)) || x->upper > ((int64_t)1 << (w - 1)) - 1))
        w++;
    return w;
}

/* index.json's "valuations": the states' one class of variables, padded to
 * a whole byte (UMBBitPacking.padToByteBoundary); NULL when out of memory. */
static json_t *valuations_index(const csr_model *m, uint64_t *row_bits)
{
    json_t *list = json_array();
    *row_bits = 0;
    for (uint64_t v = 0; list && v < m->variables.count; v++) {
        const char *type;
        uint64_t bits = variable_bits(&m->variable_info[v], &type);
        *row_bits += bits;
        if (json_array_append_new(list, json_pack("{s:s, s:{s:s, s:I}}", "name", m->variables.names[v], "type", "type",
                                                  type, "size", (json_int_t)bits))) {
            json_decref(list);
            return NULL;
        }
    }
    if (list && *row_bits % 8) {
        if (json_array_append_new(list, json_pack("{s:I}", "padding", (json_int_t)(8 - *row_bits % 8)))) {
            json_decref(list);
            return NULL;
        }
        *row_bits += 8 - *row_bits % 8;
    }
    return list ? json_pack("{s:{s:b, s:[{s:o}]}}", "states", "unique", 0, "classes", "variables", list) : NULL;
}

/* valuations/states/valuations.bin: each state's row of row_bits / 8 bytes,
 * the variables' values in index order from bit 0 (bit i of a row is bit i
 * % 8 of its byte i / 8), as variable_bits encodes them. */
static int write_valuations(writer *w, const csr_model *m, uint64_t row_bits)
{
    static const char *const name = "valuations/states/valuations.bin";
    const uint64_t n = m->num_states, V = m->variables.count, row_bytes = row_bits / 8;
    const uint64_t per_chunk = UMB_WRITE_CHUNK / row_bytes + 1;
    unsigned char *buf = malloc(per_chunk * row_bytes);
    if (!buf)
        return w->rc = csr_fail(w->st, CSR_ERR_NOMEM, "%s", name);
    begin_member(w, name, n * row_bytes);
    for (uint64_t first = 0; !w->rc && first < n; first += per_chunk) {
        const uint64_t count = n - first < per_chunk ? n - first : per_chunk;
        memset(buf, 0, count * row_bytes);
        for (uint64_t i = 0; i < count; i++) {
            unsigned char *row = buf + i * row_bytes;
            uint64_t bit = 0;
            for (uint64_t v = 0; v < V; v++) {
                const char *type;
                const uint64_t bits = variable_bits(&m->variable_info[v], &type);
                uint64_t x = (uint64_t)csr_variable_value(m, first + i, v); /* two's complement for "int" */
                for (uint64_t b = 0; b < bits; b++, bit++)
                    row[bit / 8] |= (unsigned char)(((x >> b) & 1) << (bit % 8));
            }
        }
        put_bytes(w, buf, count * row_bytes, name);
    }
    free(buf);
    return w->rc;
}

static json_t *build_index(const csr_model *m, char **ids, char **reward_ids, uint64_t *row_bits)
{
    int dtmc = m->model_type == CSR_DTMC;
    uint64_t actions = m->choice_actions ? m->actions.count : 0;
    json_t *ts = json_pack("{s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:o}", "time", "discrete", "#players",
                           dtmc ? 0 : 1, "#states", (json_int_t)m->num_states, "#initial-states",
                           (json_int_t)m->num_initial, "#choices", (json_int_t)m->num_choices, "#choice-actions",
                           (json_int_t)(dtmc ? 0 : actions), "#branches", (json_int_t)m->num_transitions,
                           "#branch-actions", (json_int_t)(dtmc ? actions : 0), "#observations", 0,
                           "branch-probability-type", type_object("double", 64));
    json_t *aps = json_object();
    for (uint64_t l = 0; aps && l < m->labels.count; l++) {
        if (strcmp(m->labels.names[l], "init") == 0)
            continue; /* state-is-initial.bin */
        json_t *ap = json_pack("{s:s, s:[s], s:o}", "alias", m->labels.names[l], "applies-to", "states", "type",
                               type_object("bool", 1));
        if (!ap || json_object_set_new(aps, ids[l], ap)) {
            json_decref(aps);
            aps = NULL;
        }
    }
    json_t *root = json_pack("{s:i, s:i, s:{}, s:{s:s, s:s}, s:o, s:{s:o}}", "format-version", UMB_FORMAT_VERSION,
                             "format-revision", UMB_FORMAT_REVISION, "model-data", "file-data", "tool", "csrexport",
                             "tool-version", "1.0", "transition-system", ts, "annotations", "aps", aps);
    if (root && m->rewards.count) {
        json_t *rewards = json_object();
        for (uint64_t r = 0; rewards && r < m->rewards.count; r++) {
            json_t *applies = json_array();
            if (applies && (m->reward_info[r] & CSR_REWARD_STATES))
                json_array_append_new(applies, json_string("states"));
            if (applies && (m->reward_info[r] & CSR_REWARD_CHOICES))
                json_array_append_new(applies, json_string("choices"));
            json_t *rw = applies ? json_pack("{s:s, s:o, s:o}", "alias", m->rewards.names[r], "applies-to", applies,
                                             "type", type_object("double", 64))
                                 : NULL;
            if (!rw || json_object_set_new(rewards, reward_ids[r], rw)) {
                json_decref(rewards);
                rewards = NULL;
            }
        }
        if (!rewards || json_object_set_new(json_object_get(root, "annotations"), "rewards", rewards)) {
            json_decref(root);
            root = NULL;
        }
    }
    if (root && m->variables.count) {
        json_t *valuations = valuations_index(m, row_bits);
        if (!valuations || json_object_set_new(root, "valuations", valuations)) {
            json_decref(root);
            root = NULL;
        }
    }
    return root;
}

int umb_write_fd(int fd, const csr_model *m, csr_status *st)
{
    if (m->permutation)
        return csr_fail(st, CSR_ERR_USAGE, "the model is renumbered: write its original numbering");
    if (!m->probabilities)
        return csr_fail(st, CSR_ERR_USAGE, "the model has no probabilities (a graph only)");
    char **ids = ap_ids(&m->labels), **reward_ids = ap_ids(&m->rewards);
    uint64_t row_bits = 0;
    json_t *index = ids && reward_ids ? build_index(m, ids, reward_ids, &row_bits) : NULL;
    char *json = index ? json_dumps(index, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    writer w = {.a = archive_write_new(), .st = st};
    if (!json || !w.a) {
        w.rc = csr_fail(st, CSR_ERR_NOMEM, "index.json");
        goto done;
    }
    /* gzip level 1 as PRISM (UMBFormat.GZIP_COMPRESSION_LEVEL); no time stamp in the gzip header. */
    if (archive_write_add_filter_gzip(w.a) != ARCHIVE_OK || archive_write_set_format_pax_restricted(w.a) != ARCHIVE_OK) {
        archive_error(&w, "archive writer");
        goto done;
    }
    archive_write_set_filter_option(w.a, "gzip", "compression-level", "1");
    archive_write_set_filter_option(w.a, "gzip", "timestamp", NULL);
    archive_write_set_bytes_in_last_block(w.a, 1);
    if (archive_write_open_fd(w.a, fd) != ARCHIVE_OK) {
        archive_error(&w, "(output)");
        goto done;
    }
    uint64_t n = m->num_states, c = m->num_choices, t = m->num_transitions;
    write_member(&w, "index.json", json, strlen(json));
    write_member(&w, "state-to-choices.bin", m->state_choices, (n + 1) * 8);
    write_member(&w, "choice-to-branches.bin", m->choice_transitions, (c + 1) * 8);
    write_u32_as_u64(&w, "branch-to-target.bin", m->targets, t);
    write_member(&w, "branch-to-probability.bin", m->probabilities, t * 8);
    write_bits(&w, "state-is-initial.bin", m->initial_states, m->num_initial, n);
    if (m->choice_actions && m->model_type == CSR_MDP) {
        write_member(&w, "actions/choices/values.bin", m->choice_actions, c * 4);
        write_strings(&w, "actions/choices", &m->actions);
    } else if (m->choice_actions) {
        /* PRISM gives a DTMC's actions per branch: each branch its state's. */
        uint32_t *branch = malloc((t ? t : 1) * sizeof *branch);
        if (!branch) {
            w.rc = csr_fail(st, CSR_ERR_NOMEM, "branch actions");
            goto done;
        }
        for (uint64_t j = 0; j < c; j++)
            for (uint64_t i = m->choice_transitions[j]; i < m->choice_transitions[j + 1]; i++)
                branch[i] = m->choice_actions[j];
        write_member(&w, "actions/branches/values.bin", branch, t * 4);
        free(branch);
        write_strings(&w, "actions/branches", &m->actions);
    }
    for (uint64_t l = 0; l < m->labels.count; l++) {
        if (strcmp(m->labels.names[l], "init") == 0)
            continue;
        char path[64 + 4096];
        snprintf(path, sizeof path, "annotations/aps/%s/states/values.bin", ids[l]);
        write_bits(&w, path, m->label_states + m->label_first[l], m->label_first[l + 1] - m->label_first[l], n);
    }
    for (uint64_t r = 0; r < m->rewards.count; r++) {
        const double *sr, *cr;
        csr_reward_arrays(m, r, &sr, &cr);
        char path[64 + 4096];
        snprintf(path, sizeof path, "annotations/rewards/%s/states/values.bin", reward_ids[r]);
        if (sr)
            write_member(&w, path, sr, n * 8);
        snprintf(path, sizeof path, "annotations/rewards/%s/choices/values.bin", reward_ids[r]);
        if (cr)
            write_member(&w, path, cr, c * 8);
    }
    if (m->variables.count)
        write_valuations(&w, m, row_bits);
    if (!w.rc && archive_write_close(w.a) != ARCHIVE_OK)
        archive_error(&w, "(output)");
done:
    if (w.a)
        archive_write_free(w.a);
    free(json);
    if (index)
        json_decref(index);
    for (uint64_t l = 0; ids && l < m->labels.count; l++)
        free(ids[l]);
    free(ids);
    for (uint64_t r = 0; reward_ids && r < m->rewards.count; r++)
        free(reward_ids[r]);
    free(reward_ids);
    return w.rc;
}
