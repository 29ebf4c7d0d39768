/*
 * umb_read.c - UMB archive to csr_model (umb.h).  libarchive reads the tar
 * stream (and xz); gzip is undone by zlib under textin (streams) or, for
 * whole files, in chunks by a task per CPU (inflate_parallel.h) or by
 * libdeflate (3-4x faster than zlib: the raw deflate stream, its CRC-32
 * then checked by a task per CPU); jansson parses index.json.  Every count of index.json is checked against the
 * length of its member, every offset and index before it is used.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <float.h>
#include <jansson.h>
#include <libdeflate.h>
#include <zlib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "crc.h"
#include "hugepages.h"
#include "inflate_parallel.h"
#include "parallel.h"
#include "prism_text.h"
#include "umb.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "UMB arrays are little-endian: this reader maps them as they are"
#endif

#define UMB_MAX_INDEX_BYTES ((size_t)64 << 20)
#define UMB_MAX_ID_BYTES 4096     /* an annotation's ID: a path component of its members */
#define UMB_MAX_PADDING ((uint64_t)1 << 32) /* bits of one padding entry of a valuation class */
#define UMB_READ_BLOCK ((size_t)1 << 20)
#define UMB_MAX_COUNT ((uint64_t)1 << 58) /* choices, branches: their arrays' bytes fit a u64 */

/* One archive member as read: raw bytes. */
typedef struct member {
    char *name;
    unsigned char *data;
    uint64_t size;
    int borrowed; /* data points into the decompressed archive (reader.memory) */
} member;

/* The index.json fields this reader uses. */
typedef struct umb_index {
    int players;
    uint64_t states, choices, branches, initial;
    uint64_t choice_actions, branch_actions;
    size_t num_aps;
    struct ap {
        const char *id;   /* points into the JSON tree, as name */
        const char *name; /* alias, else id */
    } *aps;
    size_t num_rewards;
    struct reward {
        const char *id;
        const char *name;            /* alias, else id; points into the JSON tree */
        int states, choices, branches; /* what it applies to */
    } *rewards;
    /* The state valuations (valuations.states, one class): the variables in
     * row order, a row's bits (variables and padding) and bytes. */
    size_t num_vars;
    struct var {
        const char *name; /* points into the JSON tree */
        int type;         /* UMB_VAR_BOOL, UMB_VAR_INT, UMB_VAR_UINT */
        uint64_t bit, size; /* first bit in the row (LSB first in each byte), bits (0 to 64) */
        int64_t offset;   /* added to a uint's value (Storm's "offset") */
    } *vars;
    uint64_t row_bits, row_bytes;
} umb_index;

enum { UMB_VAR_BOOL = 1, UMB_VAR_INT, UMB_VAR_UINT };

typedef struct reader {
    textin *in;
    csr_status *st;
    int failed;          /* csr_error of the input callback, 0 if none */
    unsigned char *block; /* callback buffer */
    member *members;
    size_t num_members, cap_members;
    json_t *json;
    umb_index index;
    int have_index;
    umb_report *report;
    int skip_valuations; /* umb_read_options.skip_valuations */
    unsigned char *memory; /* the whole archive, when read from memory (malloc'd) */
    size_t memory_length;
    int memory_used;    /* the model points into memory: adopt it (read_archive) */
    int memory_adopted; /* the model owns memory (csr_free frees it) */
} reader;

static const char *const known_members[] = {
    "state-to-choices.bin",           "choice-to-branches.bin",        "branch-to-target.bin",
    "branch-to-probability.bin",      "state-is-initial.bin",          "actions/choices/values.bin",
    "actions/choices/string-mapping.bin", "actions/choices/strings.bin", "actions/branches/values.bin",
    "actions/branches/string-mapping.bin", "actions/branches/strings.bin",
    "valuations/states/valuations.bin", "valuations/states/valuation-to-class.bin",
};

int umb_sniff(const void *head, size_t length, csr_status *st)
{
    const unsigned char *p = head;
    static const struct {
        const char *name;
        const char *magic;
        size_t length;
    } compressions[] = {{"bzip2", "BZh", 3},
                        {"zstd", "\x28\xb5\x2f\xfd", 4},
                        {"lz4", "\x04\x22\x4d\x18", 4},
                        {"lzip", "LZIP", 4},
                        {"compress (.Z)", "\x1f\x9d", 2},
                        {"gzip inside gzip", "\x1f\x8b", 2}};
    if (length >= 6 && memcmp(p, "\xfd" "7zXZ\0", 6) == 0)
        return UMB_INPUT_ARCHIVE;
    if (length >= 262 && memcmp(p + 257, "ustar", 5) == 0)
        return UMB_INPUT_ARCHIVE;
    for (size_t i = 0; i < sizeof compressions / sizeof compressions[0]; i++)
        if (length >= compressions[i].length && memcmp(p, compressions[i].magic, compressions[i].length) == 0)
            return -csr_fail(st, CSR_ERR_COMPRESSION,
                             "%s data: UMB archives are gzip, xz or uncompressed, PRISM text plain or gzip",
                             compressions[i].name);
    return UMB_INPUT_TEXT;
}

/* libarchive's read callback: the bytes of textin's stream. */
static la_ssize_t archive_input(struct archive *a, void *context, const void **buffer)
{
    reader *r = context;
    long got = textin_read(r->in, r->block, UMB_READ_BLOCK, r->st);
    if (got < 0) {
        r->failed = (int)-got;
        archive_set_error(a, EIO, "%s", r->st->detail);
        return -1;
    }
    r->report->bytes += (uint64_t)got;
    *buffer = r->block;
    return got;
}

/* An error of libarchive as a csr_error. */
static int archive_failure(reader *r, struct archive *a, const char *where)
{
    if (r->failed)
        return r->failed; /* the input's own error, already in status */
    const char *msg = archive_error_string(a);
    if (!msg)
        msg = "unknown error";
    if (strstr(msg, "runcated") || strstr(msg, "premature") || strstr(msg, "Premature"))
        return csr_fail(r->st, CSR_ERR_TRUNCATED, "%s: %s", where, msg);
    return csr_fail(r->st, CSR_ERR_ARCHIVE, "%s: %s", where, msg);
}

static member *find_member(reader *r, const char *name)
{
    for (size_t i = 0; i < r->num_members; i++)
        if (strcmp(r->members[i].name, name) == 0)
            return &r->members[i];
    return NULL;
}

/* Whether the member is one this reader uses (the known ones and the APs' values). */
static int wanted_member(const char *name)
{
    if (strcmp(name, "index.json") == 0)
        return 1;
    for (size_t i = 0; i < sizeof known_members / sizeof known_members[0]; i++)
        if (strcmp(name, known_members[i]) == 0)
            return 1;
    size_t len = strlen(name);
    const char *tail = "/states/values.bin";
    if (strncmp(name, "annotations/aps/", 16) == 0 && len > 16 + strlen(tail) &&
        strcmp(name + len - strlen(tail), tail) == 0)
        return 1;
    static const char *const reward_tails[] = {"/states/values.bin", "/choices/values.bin", "/branches/values.bin"};
    for (size_t i = 0; i < 3; i++)
        if (strncmp(name, "annotations/rewards/", 20) == 0 && len > 20 + strlen(reward_tails[i]) &&
            strcmp(name + len - strlen(reward_tails[i]), reward_tails[i]) == 0)
            return 1;
    return 0;
}

static void note_skipped(reader *r, const char *name)
{
    if (strncmp(name, "valuations/states/", 18) == 0)
        r->report->skipped |= UMB_SKIPPED_VALUATIONS;
    else if (strncmp(name, "valuations/", 11) == 0)
        r->report->skipped |= UMB_SKIPPED_OTHER_VALUATIONS;
    else if (strncmp(name, "annotations/rewards/", 20) == 0)
        r->report->skipped |= UMB_SKIPPED_REWARDS;
    else if (strncmp(name, "observations/", 13) == 0)
        r->report->skipped |= UMB_SKIPPED_OBSERVATIONS;
    else if (strncmp(name, "annotations/", 12) == 0)
        r->report->skipped |= UMB_SKIPPED_ANNOTATIONS;
    else
        r->report->skipped |= UMB_SKIPPED_MEMBERS;
}

/* Read the current member's data into a buffer of its own. */
/* Whether p points into the decompressed archive. */
static int in_memory(const reader *r, const void *p)
{
    const unsigned char *q = p;
    return r->memory && q >= r->memory && q < r->memory + r->memory_length;
}

/* A member of an archive in memory: where the tar holds it in one piece (as
 * libarchive hands an uncompressed tar in memory over: a pointer into the
 * buffer), its data is borrowed in place, not copied (a paper-scale model
 * is 2 GB of members, and copying them into growing buffers cost more than
 * the gzip decompression); else its blocks are copied, holes as zeros. */
static int read_member_blocks(reader *r, struct archive *a, member *m, const char *name)
{
    uint64_t cap = 0;
    for (;;) {
        const void *block;
        size_t size;
        la_int64_t offset;
        int got = archive_read_data_block(a, &block, &size, &offset);
        if (got == ARCHIVE_EOF)
            break;
        if (got < ARCHIVE_WARN)
            return archive_failure(r, a, name);
        if (offset < 0 || (uint64_t)offset < m->size)
            return csr_fail(r->st, CSR_ERR_ARCHIVE, "%s: data blocks out of order", name);
        if (size == 0)
            continue;
        uint64_t end = (uint64_t)offset + size;
        if (m->size == 0 && offset == 0 && !m->data && in_memory(r, block) &&
            (const unsigned char *)block + size <= r->memory + r->memory_length) {
            m->data = (unsigned char *)block;
            m->size = size;
            m->borrowed = 1;
            continue;
        }
        if (m->borrowed || end > cap) { /* an owned buffer of at least end bytes */
            uint64_t want = cap ? cap : 4096;
            while (want < end)
                want *= 2;
            unsigned char *owned = m->borrowed ? malloc(want) : realloc(m->data, want);
            if (!owned)
                return csr_fail(r->st, CSR_ERR_NOMEM, "%s: %llu bytes", name, (unsigned long long)want);
            if (m->borrowed)
                memcpy(owned, m->data, m->size);
            m->data = owned;
            m->borrowed = 0;
            cap = want;
        }
        memset(m->data + m->size, 0, (size_t)((uint64_t)offset - m->size));
        memcpy(m->data + offset, block, size);
        m->size = end;
    }
    if (strcmp(name, "index.json") == 0 && m->size > UMB_MAX_INDEX_BYTES)
        return csr_fail(r->st, CSR_ERR_UMB_INDEX, "index.json longer than %zu bytes", UMB_MAX_INDEX_BYTES);
    if (!m->data && !(m->data = malloc(1))) /* an empty member: a buffer all the same */
        return csr_fail(r->st, CSR_ERR_NOMEM, "%s", name);
    return CSR_OK;
}

static int read_member(reader *r, struct archive *a, const char *name, int64_t claimed)
{
    if (find_member(r, name))
        return csr_fail(r->st, CSR_ERR_ARCHIVE, "member %s appears twice", name);
    if (strcmp(name, "index.json") == 0 && claimed > (int64_t)UMB_MAX_INDEX_BYTES)
        return csr_fail(r->st, CSR_ERR_UMB_INDEX, "index.json of %lld bytes (at most %zu)", (long long)claimed,
                        UMB_MAX_INDEX_BYTES);
    if (r->num_members == r->cap_members) {
        size_t cap = r->cap_members ? 2 * r->cap_members : 32;
        member *bigger = realloc(r->members, cap * sizeof *bigger);
        if (!bigger)
            return csr_fail(r->st, CSR_ERR_NOMEM, "member list");
        r->members = bigger;
        r->cap_members = cap;
    }
    member *m = &r->members[r->num_members];
    memset(m, 0, sizeof *m);
    m->name = strdup(name);
    if (!m->name)
        return csr_fail(r->st, CSR_ERR_NOMEM, "member name");
    r->num_members++;
    if (r->memory)
        return read_member_blocks(r, a, m, name);
    /* The header's size sizes the buffer, but only the data read counts. */
    uint64_t cap = claimed > 0 ? (uint64_t)claimed : 4096;
    if (cap > ((uint64_t)64 << 20))
        cap = (uint64_t)64 << 20;
    m->data = malloc(cap);
    if (!m->data)
        return csr_fail(r->st, CSR_ERR_NOMEM, "%s: %llu bytes", name, (unsigned long long)cap);
    for (;;) {
        if (m->size == cap) {
            if (strcmp(name, "index.json") == 0 && cap >= UMB_MAX_INDEX_BYTES)
                return csr_fail(r->st, CSR_ERR_UMB_INDEX, "index.json longer than %zu bytes", UMB_MAX_INDEX_BYTES);
            unsigned char *bigger = realloc(m->data, cap * 2);
            if (!bigger)
                return csr_fail(r->st, CSR_ERR_NOMEM, "%s: %llu bytes", name, (unsigned long long)cap * 2);
            m->data = bigger;
            cap *= 2;
        }
        uint64_t room = cap - m->size;
        la_ssize_t got = archive_read_data(a, m->data + m->size, room > (1u << 30) ? (1u << 30) : (size_t)room);
        if (got < 0)
            return archive_failure(r, a, name);
        if (got == 0)
            break;
        m->size += (uint64_t)got;
    }
    return CSR_OK;
}

/* ---- index.json -------------------------------------------------------- */

static int index_error(reader *r, const char *fmt, const char *a, const char *b)
{
    return csr_fail(r->st, CSR_ERR_UMB_INDEX, fmt, a, b);
}

/* A non-negative integer field; required or default 0. */
static int get_count(reader *r, json_t *obj, const char *where, const char *key, int required, uint64_t *out)
{
    json_t *v = json_object_get(obj, key);
    *out = 0;
    if (!v)
        return required ? index_error(r, "%s: \"%s\" missing", where, key) : CSR_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return index_error(r, "%s: \"%s\" is not a non-negative integer", where, key);
    *out = (uint64_t)json_integer_value(v);
    return CSR_OK;
}

/* A type object {"type": "...", "size": N}: type name and size (0 if absent). */
static int get_type(reader *r, json_t *v, const char *where, const char **type, int64_t *size)
{
    json_t *t = json_is_object(v) ? json_object_get(v, "type") : NULL;
    if (!json_is_string(t))
        return index_error(r, "%s: not a type object with a \"type\" string%s", where, "");
    *type = json_string_value(t);
    json_t *s = json_object_get(v, "size");
    *size = 0;
    if (s && (!json_is_integer(s) || json_integer_value(s) <= 0))
        return index_error(r, "%s: \"size\" is not a positive integer%s", where, "");
    if (s)
        *size = json_integer_value(s);
    return CSR_OK;
}

/* What an annotation applies to (bits of its "applies-to" array). */
enum { APPLIES_STATES = 1, APPLIES_CHOICES = 2, APPLIES_BRANCHES = 4, APPLIES_OTHER = 8 };

/* "annotations: GROUP \"ID\"" for messages, a long ID cut (Storm names an
 * expression's AP by its text, hex-escaped: hundreds of characters). */
static void annotation_where(char *where, size_t size, const char *group, const char *id)
{
    snprintf(where, size, "annotations: %s \"%.60s%s\"", group, id, strlen(id) > 60 ? "..." : "");
}

/* The checks every annotation (an AP, a reward structure) shares: its ID,
 * an object, and "applies-to" an array of strings, returned as APPLIES_*
 * bits in *applies.  The ID names a folder of members
 * (annotations/GROUP/ID/...): PRISM's writer makes it of [a-z0-9_-], Storm's
 * of [a-z0-9_-] with any other character as "0x" and its hex code, of any
 * length; neither reader restricts it further.  This reader takes any ID of
 * 1 to 4096 bytes but '/', "." and ".." (a path component, not a path). */
static int annotation_header(reader *r, const char *id, json_t *value, const char *where, unsigned *applies)
{
    if (!*id || strlen(id) > UMB_MAX_ID_BYTES || strchr(id, '/') || !strcmp(id, ".") || !strcmp(id, ".."))
        return index_error(r, "%s: the ID must be 1 to 4096 bytes, without '/', and not \".\" or \"..\"%s", where, "");
    if (!json_is_object(value))
        return index_error(r, "%s: not an object%s", where, "");
    json_t *list = json_object_get(value, "applies-to");
    if (!json_is_array(list))
        return index_error(r, "%s: \"applies-to\" is not an array%s", where, "");
    *applies = 0;
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) {
        if (!json_is_string(e))
            return index_error(r, "%s: \"applies-to\" holds a non-string%s", where, "");
        const char *what = json_string_value(e);
        *applies |= !strcmp(what, "states")     ? APPLIES_STATES
                    : !strcmp(what, "choices")  ? APPLIES_CHOICES
                    : !strcmp(what, "branches") ? APPLIES_BRANCHES
                                                : APPLIES_OTHER;
    }
    return CSR_OK;
}

/* An annotation's "alias" (NULL when it has none): a non-empty string
 * without NUL.  Points into the JSON tree. */
static int annotation_alias(reader *r, json_t *value, const char *where, const char **alias)
{
    json_t *a = json_object_get(value, "alias");
    if (a && (!json_is_string(a) || json_string_length(a) == 0 ||
              strlen(json_string_value(a)) != json_string_length(a)))
        return index_error(r, "%s: \"alias\" is not a non-empty string without NUL%s", where, "");
    *alias = a ? json_string_value(a) : NULL;
    return CSR_OK;
}

static int parse_aps(reader *r, json_t *aps)
{
    if (!json_is_object(aps))
        return index_error(r, "annotations: \"aps\" is not an object%s%s", "", "");
    size_t count = json_object_size(aps);
    r->index.aps = calloc(count ? count : 1, sizeof *r->index.aps);
    if (!r->index.aps)
        return csr_fail(r->st, CSR_ERR_NOMEM, "atomic propositions");
    const char *id;
    json_t *ap;
    json_object_foreach(aps, id, ap) {
        char where[128];
        annotation_where(where, sizeof where, "ap", id);
        unsigned applies;
        int rc = annotation_header(r, id, ap, where, &applies);
        if (rc)
            return rc;
        if (applies & ~APPLIES_STATES)
            r->report->skipped |= UMB_SKIPPED_ANNOTATIONS;
        const char *type, *alias;
        int64_t size;
        if ((rc = get_type(r, json_object_get(ap, "type"), where, &type, &size)))
            return rc;
        if (strcmp(type, "bool") != 0 || (size != 0 && size != 1))
            return index_error(r, "%s: type \"%s\": an atomic proposition is bool", where, type);
        if (!(applies & APPLIES_STATES))
            continue;
        if ((rc = annotation_alias(r, ap, where, &alias)))
            return rc;
        struct ap *a = &r->index.aps[r->index.num_aps++];
        a->id = id;
        a->name = alias ? alias : id;
    }
    return CSR_OK;
}

/* The reward annotations (PRISM 4.10 and Storm 2.0 write them): of type
 * double, for states, choices and/or branches.  Other types are skipped
 * (reported). */
static int parse_rewards(reader *r, json_t *rewards)
{
    if (!json_is_object(rewards))
        return index_error(r, "annotations: \"rewards\" is not an object%s%s", "", "");
    size_t count = json_object_size(rewards);
    r->index.rewards = calloc(count ? count : 1, sizeof *r->index.rewards);
    if (!r->index.rewards)
        return csr_fail(r->st, CSR_ERR_NOMEM, "reward structures");
    const char *id;
    json_t *rw;
    json_object_foreach(rewards, id, rw) {
        char where[128];
        annotation_where(where, sizeof where, "reward", id);
        unsigned applies;
        int rc = annotation_header(r, id, rw, where, &applies);
        if (rc)
            return rc;
        if (applies & APPLIES_OTHER)
            r->report->skipped |= UMB_SKIPPED_REWARDS;
        struct reward *w = &r->index.rewards[r->index.num_rewards];
        memset(w, 0, sizeof *w);
        w->states = !!(applies & APPLIES_STATES);
        w->choices = !!(applies & APPLIES_CHOICES);
        w->branches = !!(applies & APPLIES_BRANCHES);
        const char *type, *alias;
        int64_t size;
        if ((rc = get_type(r, json_object_get(rw, "type"), where, &type, &size)))
            return rc;
        if (strcmp(type, "double") != 0 || (size != 0 && size != 64)) {
            r->report->skipped |= UMB_SKIPPED_REWARDS; /* rational or interval rewards */
            continue;
        }
        if ((rc = annotation_alias(r, rw, where, &alias)))
            return rc;
        w->id = id;
        w->name = alias ? alias : id;
        r->index.num_rewards++;
    }
    return CSR_OK;
}

/* An integer field of a valuation entry: *out and 1 when there, 0 when not;
 * -1 (an index error in status) when it is not an integer. */
static int valuation_integer(reader *r, json_t *entry, const char *key, const char *where, json_int_t *out)
{
    json_t *v = json_object_get(entry, key);
    if (!v)
        return 0;
    if (!json_is_integer(v)) {
        index_error(r, "%s: \"%s\" is not an integer", where, key);
        return -1;
    }
    *out = json_integer_value(v);
    return 1;
}

/*
 * index.json's "valuations" (UMB 1.0; PRISM's UMBIndex.ValuationDescription,
 * UMBBitPacking; Storm's ValuationDescription.h): per entity a list of
 * classes, each a list of variables ({"name", "type": {"type", "size"}},
 * Storm adding "lower", "upper", "offset") and paddings ({"padding": bits}).
 * A state's row is the class's bits in list order, packed from bit 0 (bit i
 * of a row is bit i % 8 of its byte i / 8), ceil(bits / 8) bytes, the rows
 * one after the other in valuations/states/valuations.bin.  bool: non-zero
 * is true; uint: unsigned, plus "offset" (Storm writes a range [lower,
 * upper] as uint of offset lower); int: two's complement.  Read: the states'
 * one class of bool, int and uint variables of at most 64 bits; doubles,
 * rationals, strings, optional variables, an int with an offset (Storm's
 * readers add it or not) and several classes (PRISM's importer refuses
 * them) are refused, unless skip_valuations (the model without them).
 * Valuations of other entities (observations) are skipped.  "lower",
 * "upper" and "unique" are not used: the CSR keeps each variable's least
 * range.
 */
static int parse_valuations(reader *r, json_t *valuations)
{
    if (!json_is_object(valuations))
        return index_error(r, "index.json: \"valuations\" is not an object%s%s", "", "");
    const char *entity;
    json_t *d;
    umb_index *x = &r->index;
    json_object_foreach(valuations, entity, d) {
        if (strcmp(entity, "states") != 0 || r->skip_valuations) {
            r->report->skipped |= strcmp(entity, "states") ? UMB_SKIPPED_OTHER_VALUATIONS : UMB_SKIPPED_VALUATIONS;
            continue;
        }
        json_t *classes = json_is_object(d) ? json_object_get(d, "classes") : NULL;
        if (!json_is_array(classes))
            return index_error(r, "valuations: \"states\" is not an object with a \"classes\" array%s%s", "", "");
        if (json_array_size(classes) == 0)
            continue;
        if (json_array_size(classes) > 1)
            return csr_fail(r->st, CSR_ERR_UNSUPPORTED,
                            "valuations: %zu classes of state valuations (PRISM's importer reads one; "
                            "prism2csr --no-valuations reads the model without them)",
                            json_array_size(classes));
        json_t *list = json_is_object(json_array_get(classes, 0)) ? json_object_get(json_array_get(classes, 0), "variables")
                                                                  : NULL;
        if (!json_is_array(list))
            return index_error(r, "valuations: states: class 0 is not an object with a \"variables\" array%s%s", "", "");
        x->vars = calloc(json_array_size(list) ? json_array_size(list) : 1, sizeof *x->vars);
        if (!x->vars)
            return csr_fail(r->st, CSR_ERR_NOMEM, "valuations");
        size_t i;
        json_t *e;
        json_array_foreach(list, i, e) {
            char where[128];
            json_t *name = json_is_object(e) ? json_object_get(e, "name") : NULL;
            json_int_t padding, offset = 0;
            snprintf(where, sizeof where, "valuations: states: entry %zu", i);
            if (!json_is_object(e))
                return index_error(r, "%s: not an object%s", where, "");
            int has_padding = valuation_integer(r, e, "padding", where, &padding);
            if (has_padding < 0)
                return CSR_ERR_UMB_INDEX;
            if (has_padding) {
                if (name || json_object_get(e, "type") || padding < 0 || (uint64_t)padding > UMB_MAX_PADDING)
                    return index_error(r, "%s: a padding must be 0 to 2^32 bits, without a name or type%s", where, "");
                x->row_bits += (uint64_t)padding;
                continue;
            }
            if (!json_is_string(name) || json_string_length(name) == 0 ||
                strlen(json_string_value(name)) != json_string_length(name))
                return index_error(r, "%s: \"name\" is not a non-empty string without NUL%s", where, "");
            snprintf(where, sizeof where, "valuations: states: variable \"%.60s\"", json_string_value(name));
            json_t *type = json_object_get(e, "type"), *t = json_is_object(type) ? json_object_get(type, "type") : NULL;
            json_t *size = json_is_object(type) ? json_object_get(type, "size") : NULL;
            if (!json_is_string(t))
                return index_error(r, "%s: \"type\" is not a type object with a \"type\" string%s", where, "");
            const char *tn = json_string_value(t);
            struct var *v = &x->vars[x->num_vars];
            v->name = json_string_value(name);
            v->type = !strcmp(tn, "bool") ? UMB_VAR_BOOL : !strcmp(tn, "int") ? UMB_VAR_INT : !strcmp(tn, "uint") ? UMB_VAR_UINT : 0;
            if (!v->type)
                return csr_fail(r->st, CSR_ERR_UNSUPPORTED,
                                "%s has type \"%.20s\": the CSR format holds bool and integer variables "
                                "(prism2csr --no-valuations reads the model without valuations)",
                                where, tn);
            if (size && (!json_is_integer(size) || json_integer_value(size) < 0))
                return index_error(r, "%s: \"size\" is not a non-negative integer%s", where, "");
            v->size = size ? (uint64_t)json_integer_value(size) : v->type == UMB_VAR_BOOL ? 1 : 64;
            if (v->size > 64)
                return csr_fail(r->st, CSR_ERR_UNSUPPORTED, "%s has %llu bits: at most 64 are read", where,
                                (unsigned long long)v->size);
            json_t *optional = json_object_get(e, "is-optional");
            if (optional && !json_is_false(optional))
                return csr_fail(r->st, CSR_ERR_UNSUPPORTED, "%s is optional: every state must have a value", where);
            if (valuation_integer(r, e, "offset", where, &offset) < 0)
                return CSR_ERR_UMB_INDEX;
            if (v->type == UMB_VAR_INT && offset != 0)
                return csr_fail(r->st, CSR_ERR_UNSUPPORTED,
                                "%s: type int with offset %lld (Storm's readers add it or not: ambiguous)", where,
                                (long long)offset);
            v->offset = v->type == UMB_VAR_UINT ? (int64_t)offset : 0;
            v->bit = x->row_bits;
            x->row_bits += v->size;
            x->num_vars++;
        }
        x->row_bytes = x->row_bits / 8 + (x->row_bits % 8 != 0);
    }
    return CSR_OK;
}

static int parse_index(reader *r, const member *m)
{
    json_error_t err;
    r->json = json_loadb((const char *)m->data, m->size, JSON_REJECT_DUPLICATES, &err);
    if (!r->json) {
        char line[32];
        snprintf(line, sizeof line, "%d", err.line);
        return index_error(r, "index.json:%s: %s", line, err.text);
    }
    json_t *root = r->json;
    if (!json_is_object(root))
        return index_error(r, "index.json is not a JSON object%s%s", "", "");
    uint64_t version, revision;
    int rc;
    if ((rc = get_count(r, root, "index.json", "format-version", 1, &version)) ||
        (rc = get_count(r, root, "index.json", "format-revision", 0, &revision)))
        return rc;
    if (version != UMB_FORMAT_VERSION)
        return csr_fail(r->st, CSR_ERR_VERSION, "UMB format version %llu.%llu; this reader knows version %d (any revision)",
                        (unsigned long long)version, (unsigned long long)revision, UMB_FORMAT_VERSION);
    json_t *fd = json_object_get(root, "file-data");
    json_t *tool = json_is_object(fd) ? json_object_get(fd, "tool") : NULL;
    static char tool_name[64];
    snprintf(tool_name, sizeof tool_name, "%s", json_is_string(tool) ? json_string_value(tool) : "");
    r->report->tool = tool_name;

    json_t *ts = json_object_get(root, "transition-system");
    if (!json_is_object(ts))
        return index_error(r, "index.json: \"transition-system\" missing or not an object%s%s", "", "");
    json_t *time = json_object_get(ts, "time");
    if (!json_is_string(time))
        return index_error(r, "transition-system: \"time\" missing or not a string%s%s", "", "");
    if (strcmp(json_string_value(time), "discrete") != 0)
        return csr_fail(r->st, CSR_ERR_UNSUPPORTED, "time \"%s\": only discrete-time models (DTMC, MDP) are supported",
                        json_string_value(time));
    uint64_t players, observations;
    umb_index *x = &r->index;
    if ((rc = get_count(r, ts, "transition-system", "#players", 1, &players)) ||
        (rc = get_count(r, ts, "transition-system", "#states", 1, &x->states)) ||
        (rc = get_count(r, ts, "transition-system", "#initial-states", 1, &x->initial)) ||
        (rc = get_count(r, ts, "transition-system", "#choices", 1, &x->choices)) ||
        (rc = get_count(r, ts, "transition-system", "#branches", 1, &x->branches)) ||
        (rc = get_count(r, ts, "transition-system", "#choice-actions", 0, &x->choice_actions)) ||
        (rc = get_count(r, ts, "transition-system", "#branch-actions", 0, &x->branch_actions)) ||
        (rc = get_count(r, ts, "transition-system", "#observations", 0, &observations)))
        return rc;
    if (players > 1)
        return csr_fail(r->st, CSR_ERR_UNSUPPORTED, "a game of %llu players: only DTMCs (0) and MDPs (1) are supported",
                        (unsigned long long)players);
    x->players = (int)players;
    if (observations)
        r->report->skipped |= UMB_SKIPPED_OBSERVATIONS;
    if (x->states > CSR_MAX_STATES)
        return csr_fail(r->st, CSR_ERR_TOO_LARGE, "%llu states: at most 2^32", (unsigned long long)x->states);
    if (x->choices > UMB_MAX_COUNT || x->branches > UMB_MAX_COUNT || x->initial > x->states)
        return csr_fail(r->st, CSR_ERR_TOO_LARGE, "#choices %llu, #branches %llu, #initial-states %llu",
                        (unsigned long long)x->choices, (unsigned long long)x->branches,
                        (unsigned long long)x->initial);
    json_t *pt = json_object_get(ts, "branch-probability-type");
    if (pt) {
        const char *type;
        int64_t size;
        if ((rc = get_type(r, pt, "transition-system: branch-probability-type", &type, &size)))
            return rc;
        if (strcmp(type, "double") != 0)
            return csr_fail(r->st, CSR_ERR_UNSUPPORTED,
                            "branch probabilities of type \"%s\": only double is supported (not exact or interval models)",
                            type);
        if (size != 0 && size != 64)
            return csr_fail(r->st, CSR_ERR_UNSUPPORTED, "branch probabilities of %lld bits: double is 64",
                            (long long)size);
    }
    json_t *valuations = json_object_get(root, "valuations");
    if (valuations && (rc = parse_valuations(r, valuations)))
        return rc;
    json_t *annotations = json_object_get(root, "annotations");
    if (annotations) {
        if (!json_is_object(annotations))
            return index_error(r, "index.json: \"annotations\" is not an object%s%s", "", "");
        const char *group;
        json_t *g;
        json_object_foreach(annotations, group, g) {
            if (strcmp(group, "aps") == 0) {
                if ((rc = parse_aps(r, g)))
                    return rc;
            } else if (strcmp(group, "rewards") == 0) {
                if ((rc = parse_rewards(r, g)))
                    return rc;
            } else {
                r->report->skipped |= UMB_SKIPPED_ANNOTATIONS;
            }
        }
    }
    r->have_index = 1;
    return CSR_OK;
}

/* ---- arrays -------------------------------------------------------------- */

/* The member of that name, which must have exactly bytes bytes; NULL if absent and optional. */
static int get_array(reader *r, const char *name, uint64_t bytes, int required, member **out)
{
    member *m = find_member(r, name);
    *out = m;
    if (!m)
        return required ? csr_fail(r->st, CSR_ERR_MEMBER_MISSING, "%s", name) : CSR_OK;
    if (m->size != bytes)
        return csr_fail(r->st, CSR_ERR_MEMBER_LENGTH, "%s: %llu bytes where the counts of index.json give %llu",
                        name, (unsigned long long)m->size, (unsigned long long)bytes);
    return CSR_OK;
}

/* Take a member's buffer for the model: its own (the member lets go), or a
 * pointer into the decompressed archive, which the model then adopts whole
 * (read_archive).  keep() and drop() are csr_adopt() and free() for what
 * take() returned, and for malloc'd arrays alike. */
static void *take(reader *r, member *m)
{
    void *p = m->data;
    if (m->borrowed)
        r->memory_used = 1;
    else
        m->data = NULL;
    return p;
}

static int keep(reader *r, csr_model *model, void *p)
{
    return in_memory(r, p) ? CSR_OK : csr_adopt(model, p);
}

static void drop(reader *r, void *p)
{
    if (!in_memory(r, p))
        free(p);
}

/* CSR offsets u64[count+1] from a member, or the identity when it is absent. */
static int get_offsets(reader *r, csr_model *model, const char *name, uint64_t count, uint64_t total,
                       const char *item, const char *of, uint64_t **out)
{
    member *m;
    int rc = get_array(r, name, (count + 1) * 8, 0, &m);
    if (rc)
        return rc;
    uint64_t *o;
    if (!m) {
        if (count != total)
            return csr_fail(r->st, CSR_ERR_MEMBER_MISSING, "%s (absent means one %s per %s, but there are %llu and %llu)",
                            name, of, item, (unsigned long long)total, (unsigned long long)count);
        o = malloc((count + 1) * sizeof *o);
        if (!o)
            return csr_fail(r->st, CSR_ERR_NOMEM, "%s", name);
        for (uint64_t i = 0; i <= count; i++)
            o[i] = i;
    } else {
        o = take(r, m);
    }
    if (keep(r, model, o)) /* frees o when it fails */
        return csr_fail(r->st, CSR_ERR_NOMEM, "%s", name);
    if (o[0] != 0)
        return csr_fail(r->st, CSR_ERR_OFFSETS, "%s: entry 0 is %llu, not 0", name, (unsigned long long)o[0]);
    for (uint64_t i = 0; i < count; i++)
        if (o[i + 1] < o[i])
            return csr_fail(r->st, CSR_ERR_OFFSETS, "%s: entry %llu (%llu) is below entry %llu (%llu)", name,
                            (unsigned long long)i + 1, (unsigned long long)o[i + 1], (unsigned long long)i,
                            (unsigned long long)o[i]);
    if (o[count] != total)
        return csr_fail(r->st, CSR_ERR_OFFSETS, "%s: last entry %llu, but there are %llu %ss", name,
                        (unsigned long long)o[count], (unsigned long long)total, of);
    *out = o;
    return CSR_OK;
}

/* The states set in a bit vector member (one bit per state, LSB first in u64 words). */
static uint64_t count_bits(const uint64_t *words, uint64_t n)
{
    uint64_t count = 0;
    for (uint64_t w = 0; w < (n + 63) / 64; w++) {
        uint64_t bits = words[w];
        if (w == n / 64)
            bits &= (((uint64_t)1 << (n % 64)) - 1);
        count += (uint64_t)__builtin_popcountll(bits);
    }
    return count;
}

static void list_bits(const uint64_t *words, uint64_t n, uint32_t *out)
{
    for (uint64_t w = 0; w < (n + 63) / 64; w++) {
        uint64_t bits = words[w];
        if (w == n / 64)
            bits &= (((uint64_t)1 << (n % 64)) - 1);
        while (bits) {
            *out++ = (uint32_t)(w * 64 + (uint64_t)__builtin_ctzll(bits));
            bits &= bits - 1;
        }
    }
}

/* A string list: offsets u64[count+1] in DIR/string-mapping.bin, bytes in DIR/strings.bin. */
static int get_strings(reader *r, const char *dir, uint64_t count, const char ***names_out, char **blob_out)
{
    char name[64];
    member *map, *str;
    snprintf(name, sizeof name, "%s/string-mapping.bin", dir);
    int rc = get_array(r, name, (count + 1) * 8, 1, &map);
    if (rc)
        return rc;
    const uint64_t *o = (const uint64_t *)map->data;
    snprintf(name, sizeof name, "%s/strings.bin", dir);
    if ((rc = get_array(r, name, o[count], 1, &str)))
        return rc;
    if (o[0] != 0)
        return csr_fail(r->st, CSR_ERR_STRING_TABLE, "%s/string-mapping.bin: entry 0 is not 0", dir);
    for (uint64_t i = 0; i < count; i++)
        if (o[i + 1] < o[i])
            return csr_fail(r->st, CSR_ERR_STRING_TABLE, "%s/string-mapping.bin: entry %llu is below entry %llu", dir,
                            (unsigned long long)i + 1, (unsigned long long)i);
    /* Copy each string with a NUL after it. */
    char *blob = malloc(o[count] + count + 1);
    const char **names = malloc((count ? count : 1) * sizeof *names);
    if (!blob || !names) {
        free(blob);
        free(names);
        return csr_fail(r->st, CSR_ERR_NOMEM, "%s strings", dir);
    }
    char *p = blob;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t len = o[i + 1] - o[i];
        if (memchr(str->data + o[i], '\0', len)) {
            free(blob);
            free(names);
            return csr_fail(r->st, CSR_ERR_STRING_TABLE, "%s: string %llu holds a NUL byte", dir, (unsigned long long)i);
        }
        memcpy(p, str->data + o[i], len);
        names[i] = p;
        p += len;
        *p++ = '\0';
    }
    *names_out = names;
    *blob_out = blob;
    return CSR_OK;
}

/*
 * The action string index of each choice, from choice actions or from branch
 * actions that agree within each choice; NULL if none.  Without a values.bin,
 * a single action string is every choice's (branch's) action: PRISM writes
 * herman7's one action "step" so.
 */
static int get_action_indices(reader *r, const csr_model *model, uint32_t **out, uint64_t *count, const char **dir)
{
    const umb_index *x = &r->index;
    *out = NULL;
    *count = 0;
    static const char *const dirs[] = {"actions/choices", "actions/branches"};
    const uint64_t counts[] = {x->choice_actions, x->branch_actions};
    const uint64_t items[] = {x->choices, x->branches};
    for (int level = 0; level < 2; level++) {
        char values[48], strings[48];
        snprintf(values, sizeof values, "%s/values.bin", dirs[level]);
        snprintf(strings, sizeof strings, "%s/strings.bin", dirs[level]);
        int have_values = find_member(r, values) != NULL;
        if (!have_values && !(counts[level] == 1 && find_member(r, strings)))
            continue;
        if (*out) { /* choice actions are there already */
            r->report->skipped |= UMB_SKIPPED_BRANCH_ACTIONS;
            break;
        }
        if (counts[level] == 0)
            return csr_fail(r->st, CSR_ERR_UMB_INDEX, "%s, but #%s-actions is 0", values, level ? "branch" : "choice");
        uint32_t *v;
        if (have_values) {
            member *m;
            int rc = get_array(r, values, items[level] * 4, 1, &m);
            if (rc)
                return rc;
            v = take(r, m);
        } else {
            v = calloc(items[level] ? items[level] : 1, sizeof *v);
            if (!v)
                return csr_fail(r->st, CSR_ERR_NOMEM, "actions");
        }
        if (level == 1) {
            /* A CSR action belongs to a choice: branch actions must agree within it. */
            for (uint64_t j = 0; j < x->choices; j++) {
                uint64_t b = model->choice_transitions[j], e = model->choice_transitions[j + 1];
                for (uint64_t i = b + 1; i < e; i++)
                    if (v[i] != v[b]) {
                        r->report->skipped |= UMB_SKIPPED_BRANCH_ACTIONS;
                        drop(r, v);
                        return CSR_OK;
                    }
                v[j] = v[b]; /* j <= b: in place */
            }
        }
        *out = v;
        *count = counts[level];
        *dir = dirs[level];
    }
    return CSR_OK;
}

static int compare_names(const void *a, const void *b, void *names)
{
    const char *const *n = names;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(n[x], n[y]);
    return c ? c : (x > y) - (x < y);
}

/* Actions as the CSR format has them: names in order of first use, "" first. */
static int build_actions(reader *r, csr_model *model)
{
    uint32_t *idx;
    uint64_t count;
    const char *dir = NULL;
    int rc = get_action_indices(r, model, &idx, &count, &dir);
    if (rc || !idx)
        return rc;
    if (keep(r, model, idx))
        return csr_fail(r->st, CSR_ERR_NOMEM, "actions");
    uint64_t c = model->num_choices;
    for (uint64_t j = 0; j < c; j++)
        if (idx[j] >= count)
            return csr_fail(r->st, CSR_ERR_ACTION_RANGE, "%s/values.bin: entry %llu is %u, but there are %llu actions", dir,
                            (unsigned long long)j, idx[j], (unsigned long long)count);
    const char **umb_names = NULL;
    char *blob = NULL;
    if ((rc = get_strings(r, dir, count, &umb_names, &blob)))
        return rc;
    /* Equal strings get one name: canon[i] is the first index with string i's text. */
    uint32_t *order = malloc(count * sizeof *order), *canon = malloc(count * sizeof *canon);
    int64_t *csr_index = malloc(count * sizeof *csr_index);
    const char **names = malloc((count + 1) * sizeof *names);
    model->actions.names = names; /* csr_free frees the name array */
    if (!order || !canon || !csr_index || !names || csr_adopt(model, blob)) {
        free(order), free(canon), free(csr_index), free(umb_names);
        return csr_fail(r->st, CSR_ERR_NOMEM, "actions");
    }
    for (uint64_t i = 0; i < count; i++)
        order[i] = (uint32_t)i;
    qsort_r(order, count, sizeof *order, compare_names, umb_names);
    for (uint64_t i = 0; i < count; i++)
        canon[order[i]] = (i > 0 && strcmp(umb_names[order[i]], umb_names[order[i - 1]]) == 0) ? canon[order[i - 1]]
                                                                                               : order[i];
    for (uint64_t i = 0; i < count; i++)
        csr_index[i] = umb_names[i][0] ? -1 : 0;
    uint64_t used = 1;
    names[0] = "";
    for (uint64_t j = 0; j < c; j++) {
        uint32_t a = canon[idx[j]];
        if (csr_index[a] < 0) {
            csr_index[a] = (int64_t)used;
            names[used++] = umb_names[a];
        }
        idx[j] = (uint32_t)csr_index[a];
    }
    free(order), free(canon), free(csr_index), free(umb_names);
    if (used > 1) { /* some choice has a name: as a .tra with action names */
        model->choice_actions = idx;
        model->actions.count = used;
    } else {
        free(names);
        model->actions.names = NULL;
    }
    return CSR_OK;
}

/* Labels: "init", "deadlock", then the state APs in index order. */
static int build_labels(reader *r, csr_model *model)
{
    const umb_index *x = &r->index;
    uint64_t n = model->num_states, words = (n + 63) / 64;
    size_t count = 2;
    const uint64_t **bits = calloc(x->num_aps + 1, sizeof *bits);
    const char **names = malloc((x->num_aps + 2) * sizeof *names);
    uint64_t *first = malloc((x->num_aps + 3) * sizeof *first);
    model->labels.names = names; /* csr_free frees the name array */
    if (!bits || !names || !first || csr_adopt(model, first)) {
        free(bits);
        return csr_fail(r->st, CSR_ERR_NOMEM, "labels");
    }
    names[0] = "init";
    names[1] = "deadlock";
    const uint64_t *deadlock = NULL;
    int rc = CSR_OK;
    for (size_t i = 0; i < x->num_aps && !rc; i++) {
        char path[UMB_MAX_ID_BYTES + 48];
        snprintf(path, sizeof path, "annotations/aps/%s/states/values.bin", x->aps[i].id);
        member *m;
        if ((rc = get_array(r, path, words * 8, 1, &m)))
            break;
        const char *name = x->aps[i].name;
        if (strcmp(name, "init") == 0) {
            r->report->skipped |= UMB_SKIPPED_INIT_AP;
            continue;
        }
        if (strcmp(name, "deadlock") == 0 && !deadlock) {
            deadlock = (const uint64_t *)m->data;
            continue;
        }
        for (size_t k = 0; k < count; k++)
            if (strcmp(names[k], name) == 0)
                rc = csr_fail(r->st, CSR_ERR_LABEL, "two atomic propositions are named \"%s\"", name);
        bits[count - 2] = (const uint64_t *)m->data;
        names[count++] = name;
    }
    if (rc) {
        free(bits);
        return rc;
    }
    /* Sizes, then the state lists. */
    first[0] = 0;
    first[1] = model->num_initial;
    first[2] = first[1] + (deadlock ? count_bits(deadlock, n) : 0);
    for (size_t l = 2; l < count; l++)
        first[l + 1] = first[l] + count_bits(bits[l - 2], n);
    uint32_t *states = malloc((first[count] ? first[count] : 1) * sizeof *states);
    if (!states || csr_adopt(model, states)) {
        free(bits);
        return csr_fail(r->st, CSR_ERR_NOMEM, "labels");
    }
    memcpy(states, model->initial_states, model->num_initial * sizeof *states);
    if (deadlock)
        list_bits(deadlock, n, states + first[1]);
    for (size_t l = 2; l < count; l++)
        list_bits(bits[l - 2], n, states + first[l]);
    free(bits);
    model->labels.count = count;
    model->label_first = first;
    model->label_states = states;
    return CSR_OK;
}

/* A branch while its choice is sorted. */
typedef struct branch {
    uint32_t target;
    uint32_t position; /* within the choice: equal targets keep their order */
    double probability;
} branch;

static int compare_branches(const void *a, const void *b)
{
    const branch *x = a, *y = b;
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    return (x->position > y->position) - (x->position < y->position);
}

/* One task of sort_branches: the choices [first, last). */
typedef struct {
    const uint64_t *choice_transitions;
    uint32_t *targets;
    double *probabilities;
    uint64_t first, last;
    int nomem;
} sort_task;

static void *sort_choices(void *arg)
{
    sort_task *k = arg;
    const uint64_t *ct = k->choice_transitions;
    uint32_t *targets = k->targets;
    double *probabilities = k->probabilities;
    branch *tmp = NULL;
    size_t cap = 0;
    for (uint64_t j = k->first; j < k->last; j++) {
        uint64_t b = ct[j], e = ct[j + 1], i;
        for (i = b + 1; i < e && targets[i - 1] <= targets[i]; i++)
            ;
        if (i >= e)
            continue; /* sorted already, the common case */
        if (e - b > cap) {
            cap = e - b;
            branch *bigger = realloc(tmp, cap * sizeof *tmp);
            if (!bigger) {
                k->nomem = 1;
                break;
            }
            tmp = bigger;
        }
        for (i = b; i < e; i++)
            tmp[i - b] = (branch){targets[i], (uint32_t)(i - b), probabilities[i]};
        qsort(tmp, e - b, sizeof *tmp, compare_branches);
        for (i = b; i < e; i++) {
            targets[i] = tmp[i - b].target;
            probabilities[i] = tmp[i - b].probability;
        }
    }
    free(tmp);
    return NULL;
}

/*
 * Each choice's branches in ascending order of target, the order of PRISM's
 * .tra (its UMB export keeps the order of the model's construction: herman7),
 * so that both exports of a model give the same CSR file.  Equal targets keep
 * their order.  A task per CPU over ranges of choices (parallel.h): the check
 * that a choice is sorted already reads every target.
 */
static int sort_branches(reader *r, csr_model *model, uint32_t *targets, double *probabilities)
{
    const uint64_t c = model->num_choices;
    const unsigned tasks = parallel_tasks(model->num_transitions, parallel_grain(1u << 20));
    sort_task task[PARALLEL_MAX_TASKS];
    for (unsigned i = 0; i < tasks; i++)
        task[i] = (sort_task){model->choice_transitions, targets, probabilities, c * i / tasks, c * (i + 1) / tasks, 0};
    parallel_run(sort_choices, task, sizeof task[0], tasks);
    for (unsigned i = 0; i < tasks; i++)
        if (task[i].nomem)
            return csr_fail(r->st, CSR_ERR_NOMEM, "sorting branches");
    return CSR_OK;
}

/* One task of the targets' range check: the first branch of [first, last)
 * whose target is n or more (last: none). */
typedef struct {
    const uint64_t *wide;
    uint64_t n, first, last, bad;
} range_task;

static void *check_targets(void *arg)
{
    range_task *k = arg;
    k->bad = k->last;
    for (uint64_t i = k->first; i < k->last; i++)
        if (k->wide[i] >= k->n) {
            k->bad = i;
            break;
        }
    return NULL;
}

/* The first branch whose target is n or more, t when there is none; a task
 * per CPU over ranges of branches. */
static uint64_t first_bad_target(const uint64_t *wide, uint64_t t, uint64_t n)
{
    const unsigned tasks = parallel_tasks(t, parallel_grain(1u << 20));
    range_task task[PARALLEL_MAX_TASKS];
    for (unsigned i = 0; i < tasks; i++)
        task[i] = (range_task){wide, n, t * i / tasks, t * (i + 1) / tasks, 0};
    parallel_run(check_targets, task, sizeof task[0], tasks);
    for (unsigned i = 0; i < tasks; i++)
        if (task[i].bad < task[i].last)
            return task[i].bad;
    return t;
}

/* The csr_model from the members and the index. */
/* One task of a reward member: its entries checked finite and non-negative
 * (bad: the first that is not, or UINT64_MAX) and put into out.  Values of
 * states or choices: entries [first, last) copied.  Values of branches (ct
 * set): the choices [first, last), each choice's expected value
 * (probability x reward over its branches, in order) added to what out holds
 * (add) or put there. */
typedef struct reward_task {
    const double *v, *probabilities;
    const uint64_t *ct;
    double *out;
    uint64_t first, last, bad;
    int add;
} reward_task;

static void *reward_task_run(void *arg)
{
    reward_task *k = arg;
    k->bad = UINT64_MAX;
    if (!k->ct) {
        for (uint64_t i = k->first; i < k->last; i++)
            if (!(k->v[i] >= 0.0 && k->v[i] <= DBL_MAX)) {
                k->bad = i;
                return NULL;
            }
        if (k->last > k->first)
            memcpy(k->out + k->first, k->v + k->first, (k->last - k->first) * sizeof *k->out);
        return NULL;
    }
    for (uint64_t j = k->first; j < k->last; j++) {
        double sum = k->add ? k->out[j] : 0.0;
        for (uint64_t b = k->ct[j]; b < k->ct[j + 1]; b++) {
            if (!(k->v[b] >= 0.0 && k->v[b] <= DBL_MAX)) {
                k->bad = b; /* branches run in order with their choices: the first */
                return NULL;
            }
            sum += k->probabilities[b] * k->v[b];
        }
        k->out[j] = sum;
    }
    return NULL;
}

/* One reward member (annotations/rewards/ID/OF/values.bin, f64[count]) into
 * out (f64 per state or choice; for "branches", per choice of model: see
 * reward_task), checked; a task per CPU over ranges of its entries. */
static int reward_values(reader *r, const struct reward *w, const char *of, uint64_t count, const csr_model *model,
                         const double *probabilities, double *out, int add)
{
    char path[UMB_MAX_ID_BYTES + 64];
    snprintf(path, sizeof path, "annotations/rewards/%s/%s/values.bin", w->id, of);
    member *m;
    int rc = get_array(r, path, count * 8, 1, &m);
    if (rc)
        return rc;
    const double *v = (const double *)m->data;
    const int branches = strcmp(of, "branches") == 0;
    const uint64_t items = branches ? model->num_choices : count;
    const unsigned tasks = parallel_tasks(items, parallel_grain(1u << 20));
    reward_task task[PARALLEL_MAX_TASKS];
    for (unsigned i = 0; i < tasks; i++)
        task[i] = (reward_task){v, probabilities, branches ? model->choice_transitions : NULL, out,
                                items * i / tasks, items * (i + 1) / tasks, 0, add};
    parallel_run(reward_task_run, task, sizeof task[0], tasks);
    for (unsigned i = 0; i < tasks; i++)
        if (task[i].bad != UINT64_MAX) /* the first such entry: tasks run over increasing ranges */
            return csr_fail(r->st, CSR_ERR_REWARD, "%s: entry %llu is %g (rewards must be finite and non-negative)",
                            path, (unsigned long long)task[i].bad, v[task[i].bad]);
    return CSR_OK;
}

/* The reward structures (format/CSR.md 1.2): state rewards as they are,
 * choice rewards plus each choice's expected branch reward (sum of
 * probability x reward over its branches, taken before the branches are
 * sorted). */
static int build_rewards(reader *r, csr_model *model, const double *probabilities)
{
    const umb_index *x = &r->index;
    if (x->num_rewards == 0)
        return CSR_OK;
    uint64_t n = model->num_states, c = model->num_choices, with_state = 0, with_choice = 0;
    for (size_t i = 0; i < x->num_rewards; i++) {
        with_state += x->rewards[i].states;
        with_choice += x->rewards[i].choices || x->rewards[i].branches;
    }
    const char **names = malloc(x->num_rewards * sizeof *names);
    uint32_t *info = malloc(x->num_rewards * sizeof *info);
    double *srew = with_state ? malloc(with_state * n * sizeof *srew + 1) : NULL;
    double *crew = with_choice ? malloc(with_choice * c * sizeof *crew + 1) : NULL;
    if (!names || !info || (with_state && !srew) || (with_choice && !crew) || csr_adopt(model, info) ||
        csr_adopt(model, srew) || csr_adopt(model, crew)) {
        free(names);
        return csr_fail(r->st, CSR_ERR_NOMEM, "reward structures");
    }
    model->rewards.names = names;
    model->rewards.count = x->num_rewards;
    uint64_t si = 0, ci = 0;
    for (size_t i = 0; i < x->num_rewards; i++) {
        const struct reward *w = &x->rewards[i];
        names[i] = w->name;
        info[i] = (w->states ? CSR_REWARD_STATES : 0) | (w->choices || w->branches ? CSR_REWARD_CHOICES : 0);
        int rc;
        if (w->states && (rc = reward_values(r, w, "states", n, model, probabilities, srew + si++ * n, 0)))
            return rc;
        if (!(w->choices || w->branches))
            continue;
        double *out = crew + ci++ * c;
        if (w->choices && (rc = reward_values(r, w, "choices", c, model, probabilities, out, 0)))
            return rc;
        if (w->branches &&
            (rc = reward_values(r, w, "branches", model->num_transitions, model, probabilities, out, w->choices)))
            return rc;
    }
    model->reward_info = info;
    model->state_rewards = srew;
    model->choice_rewards = crew;
    return CSR_OK;
}

/* The size bits at bit of a valuation row (bit i is bit i % 8 of byte i /
 * 8; the field lies within the row). */
static uint64_t row_field(const unsigned char *row, uint64_t bit, uint64_t size)
{
    if (size == 0)
        return 0;
    const uint64_t first = bit / 8, last = (bit + size - 1) / 8, shift = bit % 8;
    uint64_t x = 0;
    for (uint64_t k = first; k <= last && k < first + 8; k++)
        x |= (uint64_t)row[k] << (8 * (k - first));
    x >>= shift;
    if (last == first + 8) /* 9 bytes: shift > 0 */
        x |= (uint64_t)row[last] << (64 - shift);
    return size < 64 ? x & (((uint64_t)1 << size) - 1) : x;
}

/* A variable's value in the row: 0, or -1 when a uint (plus its offset)
 * does not fit an i64. */
static int row_value(const struct var *v, const unsigned char *row, int64_t *out)
{
    const uint64_t raw = row_field(row, v->bit, v->size);
    switch (v->type) {
    case UMB_VAR_BOOL: *out = raw != 0; return 0;
    case UMB_VAR_INT: /* two's complement of size bits */
        *out = v->size && v->size < 64 && (raw >> (v->size - 1)) ? (int64_t)(raw | ~(((uint64_t)1 << v->size) - 1))
                                                                 : (int64_t)raw;
        return 0;
    default: return raw > (uint64_t)INT64_MAX || __builtin_add_overflow((int64_t)raw, v->offset, out) ? -1 : 0;
    }
}

/* A variable's field where one unaligned 64-bit load reads it (its bit
 * within the first byte plus its size at most 64): rows of at most
 * UMB_FAST_ROW_BYTES bytes are decoded this way (the last rows copied into a
 * buffer with 8 bytes to spare), without a test of the type per field: a
 * field's key (the field, an int's sign bit flipped) grows with the value, so
 * pass 0 takes each variable's least and greatest key, and pass 1 puts key -
 * (the least key), which is value - lower, into the CSR's rows (row_value
 * and csr_put_variable_value field by field otherwise: the same values).
 * A bool of one bit is a uint without offset; a wider one takes the
 * field-by-field path. */
#define UMB_FAST_ROW_BYTES 64
#define UMB_KEY_BLOCK 256 /* rows a block of both passes: 16 KiB of rows at most, in the first cache */
typedef struct fast_var {
    uint64_t byte, shift, mask; /* the field: (the 8 bytes at byte >> shift) & mask */
    uint64_t flip;              /* key = field ^ flip: an int's sign bit, else 0 */
} fast_var;

static inline uint64_t fast_key(const fast_var *f, const unsigned char *row)
{
    uint64_t word;
    memcpy(&word, row + f->byte, 8);
    return ((word >> f->shift) & f->mask) ^ f->flip;
}

/* The value of variable u whose key is key: 0, or -1 where a uint plus its
 * offset does not fit an i64. */
static int key_value(const struct var *u, uint64_t key, int64_t *out)
{
    if (u->type == UMB_VAR_INT) { /* key - 2^(size - 1), size 1 to 64, in two's complement; 0 bits: 0 */
        const uint64_t bias = u->size ? (uint64_t)1 << (u->size - 1) : 0;
        *out = (int64_t)(key - bias);
        return 0;
    }
    return key > (uint64_t)INT64_MAX || __builtin_add_overflow((int64_t)key, u->offset, out) ? -1 : 0;
}

static int compare_name_ptrs(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One task of build_valuations: the states [first, last), pass 0 their
 * least range of each variable (lo, hi: V each, or with fast, the least and
 * greatest keys of the fast variables that are not bools, in ranged's
 * order; bad: the first state whose value does not fit, or UINT64_MAX),
 * pass 1 their values into the rows. */
typedef struct valuation_task {
    const umb_index *x;
    const unsigned char *data;
    csr_model *model;
    uint64_t first, last, bad, bad_var;
    int64_t *lo, *hi;
    const fast_var *fast; /* the fields by one load each, or NULL */
    const uint32_t *ranged; /* fast: the variables that are not bools */
    uint64_t num_ranged;
    const uint64_t *least_key; /* fast, pass 1: each variable's key of its lower bound */
    int pass;
} valuation_task;

/* The field of f in row (a UMB row) into out (a zeroed CSR row) at c's place,
 * as key - least (which fits c's width): the word at c's offset, and the
 * word after where the field crosses into it. */
static inline void put_field(uint64_t *out, const fast_var *f, const csr_variable *c, uint64_t least,
                             const unsigned char *row)
{
    const uint64_t field = fast_key(f, row) - least, w = c->offset >> 6, b = c->offset & 63;
    out[w] |= field << b;
    if (b + c->width > 64) /* (b > 0) */
        out[w + 1] |= field >> (64 - b);
}

/* valuation_task_run where every field is a fast_var: pass 0 the least and
 * greatest keys (a bool's range is [0, 1] already), pass 1 the fields into
 * the zeroed CSR rows, a block of rows a variable at a time (its place in
 * the row fixed by csr_init_valuations; egl N=5 L=8, 84 variables of 156,670
 * states: prism2csr 26.5 -> 23.4 ms against the rows' words gathered in a
 * register one row after the other). */
static void fast_valuations(valuation_task *k)
{
    const uint64_t V = k->x->num_vars, rb = k->x->row_bytes, first = k->first, last = k->last;
    const uint64_t end = k->model->num_states * rb; /* the member's bytes */
    const fast_var *restrict fv = k->fast;
    const unsigned char *data = k->data;
    const csr_variable *restrict cv = k->model->variable_info;
    uint64_t *restrict rows = (uint64_t *)k->model->valuations;
    const uint64_t W = k->model->valuation_words;
    unsigned char copy[UMB_FAST_ROW_BYTES + 8] = {0};
    /* rows read in place where 8 bytes past the last row of a block are still the member's, the rest one
     * by one from copy */
    uint64_t inside = last;
    while (inside > first && inside * rb + 8 > end)
        inside--;
    if (!k->pass) {
        const uint32_t *restrict ranged = k->ranged;
        const uint64_t R = k->num_ranged;
        uint64_t *restrict least = (uint64_t *)k->lo, *restrict most = (uint64_t *)k->hi;
        for (uint64_t r = 0; r < R; r++) {
            least[r] = UINT64_MAX;
            most[r] = 0;
        }
        /* a block of rows a variable at a time (its least and greatest key in registers) */
        for (uint64_t s = first; s < inside; s += UMB_KEY_BLOCK) {
            const uint64_t stop = s + UMB_KEY_BLOCK < inside ? s + UMB_KEY_BLOCK : inside;
            for (uint64_t r = 0; r < R; r++) {
                const fast_var f = fv[ranged[r]];
                uint64_t lo = least[r], hi = most[r];
                for (const unsigned char *row = data + s * rb, *e = data + stop * rb; row < e; row += rb) {
                    const uint64_t key = fast_key(&f, row);
                    lo = key < lo ? key : lo;
                    hi = key > hi ? key : hi;
                }
                least[r] = lo;
                most[r] = hi;
            }
        }
        for (uint64_t s = inside; s < last; s++) {
            memcpy(copy, data + s * rb, rb);
            for (uint64_t r = 0; r < R; r++) {
                const uint64_t key = fast_key(&fv[ranged[r]], copy);
                least[r] = key < least[r] ? key : least[r];
                most[r] = key > most[r] ? key : most[r];
            }
        }
        return;
    }
    /* pass 1: a block of rows a variable at a time (its place in the CSR's row fixed), the last rows from
     * copy */
    const uint64_t *restrict least_key = k->least_key;
    for (uint64_t s = first; s < inside; s += UMB_KEY_BLOCK) {
        const uint64_t stop = s + UMB_KEY_BLOCK < inside ? s + UMB_KEY_BLOCK : inside;
        for (uint64_t v = 0; v < V; v++) {
            /* put_field with the variable's place in registers, a loop for each case (a crossing field) */
            const fast_var f = fv[v];
            const uint64_t least = least_key[v], w = cv[v].offset >> 6, b = cv[v].offset & 63;
            const unsigned char *row = data + s * rb;
            uint64_t *out = rows + s * W + w;
            if (b + cv[v].width <= 64) {
                for (uint64_t x = s; x < stop; x++, row += rb, out += W)
                    *out |= (fast_key(&f, row) - least) << b;
            } else {
                for (uint64_t x = s; x < stop; x++, row += rb, out += W) {
                    const uint64_t field = fast_key(&f, row) - least;
                    out[0] |= field << b;
                    out[1] |= field >> (64 - b);
                }
            }
        }
    }
    for (uint64_t s = inside; s < last; s++) {
        memcpy(copy, data + s * rb, rb);
        for (uint64_t v = 0; v < V; v++)
            put_field(rows + s * W, &fv[v], &cv[v], least_key[v], copy);
    }
}

static void *valuation_task_run(void *arg)
{
    valuation_task *k = arg;
    const umb_index *x = k->x;
    const uint64_t V = x->num_vars;
    k->bad = UINT64_MAX;
    if (k->fast) {
        fast_valuations(k);
        return NULL;
    }
    for (uint64_t s = k->first; s < k->last; s++) {
        const unsigned char *row = k->data + s * x->row_bytes;
        for (uint64_t v = 0; v < V; v++) {
            int64_t value = 0;
            if (row_value(&x->vars[v], row, &value) && !k->pass) {
                k->bad = s;
                k->bad_var = v;
                return NULL;
            }
            if (k->pass) {
                csr_put_variable_value(k->model, s, v, value);
            } else {
                k->lo[v] = value < k->lo[v] ? value : k->lo[v];
                k->hi[v] = value > k->hi[v] ? value : k->hi[v];
            }
        }
    }
    return NULL;
}

/* A variable's range before any state: [0, 1] for a bool, else empty. */
static void range_start(const struct var *u, int64_t *lo, int64_t *hi)
{
    *lo = u->type == UMB_VAR_BOOL ? 0 : INT64_MAX;
    *hi = u->type == UMB_VAR_BOOL ? 1 : INT64_MIN;
}

/* The state valuations (parse_valuations): the least range of each
 * variable over the states, then its values packed into the CSR's rows;
 * each pass a task per CPU over ranges of states (parallel.h). */
static int build_valuations(reader *r, csr_model *model)
{
    const umb_index *x = &r->index;
    const uint64_t n = model->num_states, V = x->num_vars;
    if (V == 0)
        return CSR_OK;
    const double t0 = monotonic_seconds();
    static const char *const name = "valuations/states/valuations.bin";
    uint64_t bytes;
    if (csr_mul_u64(n, x->row_bytes, &bytes))
        return csr_fail(r->st, CSR_ERR_TOO_LARGE, "%s: %llu states of %llu bytes", name, (unsigned long long)n,
                        (unsigned long long)x->row_bytes);
    member *m, *classes;
    int rc;
    if ((rc = get_array(r, name, bytes, 1, &m)) ||
        (rc = get_array(r, "valuations/states/valuation-to-class.bin", n * 4, 0, &classes)))
        return rc;
    for (uint64_t s = 0; classes && s < n; s++) {
        uint32_t c;
        memcpy(&c, classes->data + 4 * s, 4);
        if (c != 0)
            return csr_fail(r->st, CSR_ERR_RANGE,
                            "valuations/states/valuation-to-class.bin: state %llu has class %u, but there is one class",
                            (unsigned long long)s, c);
    }
    valuation_task task[PARALLEL_MAX_TASKS];
    const unsigned count = parallel_tasks(n * V, parallel_grain(1u << 18));
    int64_t *lo = malloc(V * sizeof *lo), *hi = malloc(V * sizeof *hi);
    int64_t *ranges = malloc(2 * count * V * sizeof *ranges);
    uint32_t *types = malloc(V * sizeof *types);
    const char **names = malloc(V * sizeof *names);
    /* (CSR_TEST_VALUATIONS_BY_FIELD: the tests' way to the field-by-field decoding) */
    fast_var *fast = x->row_bytes <= UMB_FAST_ROW_BYTES && !getenv("CSR_TEST_VALUATIONS_BY_FIELD")
                         ? malloc(V * sizeof *fast)
                         : NULL;
    uint32_t *ranged = malloc(V * sizeof *ranged);
    uint64_t *least_key = calloc(V, sizeof *least_key), R = 0;
    for (uint64_t v = 0; fast && v < V; v++) {
        const struct var *u = &x->vars[v];
        if (u->bit % 8 + u->size > 64 || (u->type == UMB_VAR_BOOL && u->size != 1)) { /* across nine bytes; a wide bool */
            free(fast);
            fast = NULL;
            break;
        }
        fast[v] = (fast_var){u->bit / 8, u->bit % 8, u->size == 64 ? ~(uint64_t)0 : ((uint64_t)1 << u->size) - 1,
                             u->type == UMB_VAR_INT && u->size ? (uint64_t)1 << (u->size - 1) : 0};
        if (u->type != UMB_VAR_BOOL && ranged)
            ranged[R++] = (uint32_t)v;
    }
    if (!lo || !hi || !ranges || !types || !names || !ranged || !least_key) {
        rc = csr_fail(r->st, CSR_ERR_NOMEM, "valuations");
        goto done;
    }
    for (uint64_t v = 0; v < V; v++) {
        names[v] = x->vars[v].name;
        types[v] = x->vars[v].type == UMB_VAR_BOOL ? CSR_VAR_BOOL : CSR_VAR_INT;
        range_start(&x->vars[v], &lo[v], &hi[v]);
    }
    for (unsigned i = 0; i < count; i++) {
        task[i] = (valuation_task){x,    m->data, model,  n * i / count, n * (i + 1) / count,
                                   0,    0,       ranges + 2 * i * V, ranges + (2 * i + 1) * V,
                                   fast, ranged,  R,      least_key,     0};
        memcpy(task[i].lo, lo, V * sizeof *lo);
        memcpy(task[i].hi, hi, V * sizeof *hi);
    }
    parallel_run(valuation_task_run, task, sizeof task[0], count);
    if (fast && n) { /* each variable's least and greatest key over the tasks: lo and hi */
        for (uint64_t k = 0; k < R; k++) {
            uint64_t least = UINT64_MAX, most = 0;
            for (unsigned i = 0; i < count; i++) {
                least = (uint64_t)task[i].lo[k] < least ? (uint64_t)task[i].lo[k] : least;
                most = (uint64_t)task[i].hi[k] > most ? (uint64_t)task[i].hi[k] : most;
            }
            const uint32_t v = ranged[k];
            least_key[v] = least;
            if (key_value(&x->vars[v], least, &lo[v]) || key_value(&x->vars[v], most, &hi[v])) {
                /* a uint beyond an i64: pass 0 again field by field, which names the first state where one is */
                free(fast);
                fast = NULL;
                for (unsigned i = 0; i < count; i++) {
                    task[i].fast = NULL;
                    for (uint64_t w = 0; w < V; w++)
                        range_start(&x->vars[w], &task[i].lo[w], &task[i].hi[w]);
                }
                for (uint64_t w = 0; w < V; w++)
                    range_start(&x->vars[w], &lo[w], &hi[w]);
                parallel_run(valuation_task_run, task, sizeof task[0], count);
                break;
            }
        }
    }
    for (unsigned i = 0; !fast && i < count; i++) {
        if (task[i].bad != UINT64_MAX) { /* the first such state: tasks run over increasing ranges */
            rc = csr_fail(r->st, CSR_ERR_RANGE, "%s: state %llu: variable \"%.60s\" does not fit 64 signed bits",
                          name, (unsigned long long)task[i].bad, x->vars[task[i].bad_var].name);
            goto done;
        }
        for (uint64_t v = 0; v < V; v++) {
            lo[v] = task[i].lo[v] < lo[v] ? task[i].lo[v] : lo[v];
            hi[v] = task[i].hi[v] > hi[v] ? task[i].hi[v] : hi[v];
        }
    }
    for (uint64_t v = 0; n == 0 && v < V; v++)
        if (lo[v] > hi[v])
            lo[v] = hi[v] = 0;
    rc = csr_init_valuations(model, V, names, types, lo, hi);
    if (rc == CSR_ERR_STRING_TABLE) {
        qsort(names, V, sizeof *names, compare_name_ptrs);
        for (uint64_t v = 1; v < V; v++)
            if (!strcmp(names[v - 1], names[v])) {
                rc = csr_fail(r->st, CSR_ERR_UMB_INDEX, "valuations: states: two variables are named \"%.60s\"", names[v]);
                goto done;
            }
    }
    if (rc) {
        csr_fail(r->st, rc, "valuations: %llu variables of %llu states", (unsigned long long)V, (unsigned long long)n);
        goto done;
    }
    for (unsigned i = 0; i < count; i++)
        task[i].pass = 1;
    parallel_run(valuation_task_run, task, sizeof task[0], count);
    r->report->variables = V;
done:
    r->report->valuations_s = monotonic_seconds() - t0;
    free(lo), free(hi), free(ranges), free(types), free(names), free(fast), free(ranged), free(least_key);
    return rc;
}

static int build_model(reader *r, csr_model *model, const umb_read_options *opt)
{
    const umb_index *x = &r->index;
    uint64_t n = x->states, c = x->choices, t = x->branches;
    int rc;
    model->model_type = x->players == 0 ? CSR_DTMC : CSR_MDP;
    model->version_major = CSR_VERSION_MAJOR;
    model->num_states = n;
    model->num_choices = c;
    model->num_transitions = t;
    uint64_t *sc, *ct;
    if ((rc = get_offsets(r, model, "state-to-choices.bin", n, c, "state", "choice", &sc)) ||
        (rc = get_offsets(r, model, "choice-to-branches.bin", c, t, "choice", "branche", &ct)))
        return rc;
    model->state_choices = sc;
    model->choice_transitions = ct;
    if (x->players == 0 && c != n)
        return csr_fail(r->st, CSR_ERR_DTMC_CHOICES, "#players is 0 (a DTMC), but #choices %llu is not #states %llu",
                        (unsigned long long)c, (unsigned long long)n);
    if (x->players == 0)
        for (uint64_t s = 0; s < n; s++)
            if (sc[s] != s)
                return csr_fail(r->st, CSR_ERR_DTMC_CHOICES, "#players is 0 (a DTMC), but state %llu has %llu choices",
                                (unsigned long long)s - 1, (unsigned long long)(sc[s] - sc[s - 1]));
    for (uint64_t j = 0; j < c; j++)
        if (ct[j + 1] == ct[j])
            return csr_fail(r->st, CSR_ERR_EMPTY_CHOICE, "choice-to-branches.bin: choice %llu has no branch",
                            (unsigned long long)j);
    /* Targets: u64 to u32 in place, each checked against n first. */
    member *m;
    if ((rc = get_array(r, "branch-to-target.bin", t * 8, 1, &m)))
        return rc;
    uint64_t *wide = take(r, m);
    uint32_t *targets = (uint32_t *)wide;
    const uint64_t bad_branch = first_bad_target(wide, t, n);
    if (bad_branch < t) {
        const uint64_t target = wide[bad_branch];
        drop(r, wide);
        return csr_fail(r->st, CSR_ERR_TARGET_RANGE, "branch-to-target.bin: branch %llu goes to state %llu of %llu",
                        (unsigned long long)bad_branch, (unsigned long long)target, (unsigned long long)n);
    }
    for (uint64_t i = 0; i < t; i++) /* in place, in order: targets[i] overwrites no wide[j] with j > i */
        targets[i] = (uint32_t)wide[i];
    if (!in_memory(r, wide)) {
        uint32_t *shrunk = realloc(wide, (t ? t : 1) * sizeof *targets);
        if (shrunk)
            targets = shrunk;
    }
    if (keep(r, model, targets))
        return csr_fail(r->st, CSR_ERR_NOMEM, "targets");
    model->targets = targets;
    /* Probabilities: absent means 1 (UMBReader's default). */
    if ((rc = get_array(r, "branch-to-probability.bin", t * 8, 0, &m)))
        return rc;
    double *probabilities;
    if (m) {
        probabilities = take(r, m);
    } else {
        probabilities = malloc((t ? t : 1) * sizeof *probabilities);
        for (uint64_t i = 0; probabilities && i < t; i++)
            probabilities[i] = 1.0;
    }
    if (!probabilities || keep(r, model, probabilities))
        return csr_fail(r->st, CSR_ERR_NOMEM, "probabilities");
    model->probabilities = probabilities;
    /* Initial states. */
    uint64_t words = (n + 63) / 64;
    if ((rc = get_array(r, "state-is-initial.bin", words * 8, 0, &m)))
        return rc;
    uint64_t num_initial = m ? count_bits((const uint64_t *)m->data, n) : 0;
    if (num_initial != x->initial)
        return csr_fail(r->st, CSR_ERR_COUNTS, "state-is-initial.bin marks %llu states, #initial-states is %llu",
                        (unsigned long long)num_initial, (unsigned long long)x->initial);
    uint32_t *initial = malloc((num_initial ? num_initial : 1) * sizeof *initial);
    if (!initial || csr_adopt(model, initial))
        return csr_fail(r->st, CSR_ERR_NOMEM, "initial states");
    if (m)
        list_bits((const uint64_t *)m->data, n, initial);
    model->initial_states = initial;
    model->num_initial = num_initial;
    if ((rc = build_labels(r, model)) || (rc = build_actions(r, model)) ||
        (rc = build_rewards(r, model, probabilities)) || (rc = build_valuations(r, model)) ||
        (rc = sort_branches(r, model, targets, probabilities)))
        return rc;
    if ((rc = csr_validate(model, r->st)))
        return rc;
    uint64_t bad;
    const double tol = opt && opt->sum_tolerance > 0 ? opt->sum_tolerance : PRISM_SUM_TOLERANCE;
    double worst = csr_max_sum_error(model, tol, &bad);
    if (bad != UINT64_MAX) {
        if (!opt || !opt->sums_are_warnings)
            return csr_fail(r->st, CSR_ERR_PROBABILITY_SUM, "choice %llu (and maybe others) is off by %.3g",
                            (unsigned long long)bad, worst);
        r->report->first_bad_sum_choice = bad;
        r->report->worst_sum_error = worst;
        for (uint64_t j = 0; j < c; j++) {
            double sum = 0;
            for (uint64_t i = ct[j]; i < ct[j + 1]; i++)
                sum += probabilities[i];
            r->report->bad_sums += (sum - 1 > tol || 1 - sum > tol);
        }
    }
    return CSR_OK;
}

/* Copy the names of s into one block the model owns; 1 when out of memory. */
static int own_names(csr_strings *s, csr_model *model)
{
    size_t total = 0;
    for (uint64_t l = 0; l < s->count; l++)
        total += strlen(s->names[l]) + 1;
    if (!s->count)
        return 0;
    char *blob = malloc(total);
    if (!blob || csr_adopt(model, blob))
        return 1;
    for (uint64_t l = 0; l < s->count; l++) {
        size_t len = strlen(s->names[l]) + 1;
        memcpy(blob, s->names[l], len);
        s->names[l] = blob;
        blob += len;
    }
    return 0;
}

/*
 * The common part of umb_read and umb_read_gzip_file: the archive, opened by
 * open_input (a callback over textin, or a buffer in memory), to the model.
 */
static int read_archive(reader *r, int (*open_input)(reader *, struct archive *), const umb_read_options *opt,
                        csr_model *model)
{
    csr_status *st = r->st;
    umb_report *report = r->report;
    struct archive *a = archive_read_new();
    int rc = CSR_OK;
    if (!a) {
        rc = csr_fail(st, CSR_ERR_NOMEM, "archive reader");
        goto done;
    }
    archive_read_support_format_tar(a);
    archive_read_support_filter_all(a);
    if (open_input(r, a) != ARCHIVE_OK) {
        const char *msg = archive_error_string(a);
        if (!r->failed && msg && strstr(msg, "Unrecognized archive format") && archive_filter_count(a) > 1)
            rc = csr_fail(st, CSR_ERR_ARCHIVE,
                          "%s-compressed data that is not a tar archive: a UMB archive is a tar; a compressed .tra "
                          "must be gzip-compressed (or decompress it first)",
                          archive_filter_name(a, 0));
        else
            rc = archive_failure(r, a, "opening the archive");
        goto done;
    }
    int first = 1;
    for (;;) {
        struct archive_entry *entry;
        int got = archive_read_next_header(a, &entry);
        if (got == ARCHIVE_EOF)
            break;
        if (got < ARCHIVE_WARN) {
            rc = archive_failure(r, a, first ? "not a tar archive" : "reading the archive");
            goto done;
        }
        if (first) {
            int code = archive_filter_code(a, 0);
            if (code == ARCHIVE_FILTER_XZ && strcmp(report->compression, "none") == 0) {
                report->compression = "xz";
            } else if (code != ARCHIVE_FILTER_NONE) {
                rc = csr_fail(st, CSR_ERR_COMPRESSION, "%s%s: UMB archives are gzip, xz or uncompressed",
                              strcmp(report->compression, "gzip") == 0 ? "gzip, then " : "",
                              archive_filter_name(a, 0));
                goto done;
            }
            first = 0;
        }
        const char *name = archive_entry_pathname(entry);
        if (!name || archive_entry_filetype(entry) != AE_IFREG)
            continue; /* folders */
        if (strncmp(name, "./", 2) == 0)
            name += 2;
        if (!wanted_member(name) || (r->skip_valuations && strncmp(name, "valuations/", 11) == 0)) {
            note_skipped(r, name);
            continue; /* libarchive skips the data */
        }
        if ((rc = read_member(r, a, name, archive_entry_size_is_set(entry) ? archive_entry_size(entry) : -1)))
            goto done;
        if (strcmp(name, "index.json") == 0 && (rc = parse_index(r, &r->members[r->num_members - 1])))
            goto done;
    }
    if (first) {
        rc = csr_fail(st, CSR_ERR_ARCHIVE, "an empty archive");
        goto done;
    }
    /* libarchive stops at the tar's end: read the stream to its end all the
     * same, so that a gzip stream cut short (its trailer and check lost) is
     * an error, as it is for the whole-file reader */
    for (long got = 1; r->in && got > 0;) {
        got = textin_read(r->in, r->block, UMB_READ_BLOCK, st);
        if (got < 0) {
            rc = (int)-got;
            goto done;
        }
    }
    if (!r->have_index) {
        rc = csr_fail(st, CSR_ERR_MEMBER_MISSING, "index.json");
        goto done;
    }
    rc = build_model(r, model, opt);
    if (!rc && r->memory_used) { /* the model points into the archive: it owns it now */
        r->memory_adopted = 1;
        if (csr_adopt(model, r->memory)) /* frees it when it fails */
            rc = csr_fail(st, CSR_ERR_NOMEM, "archive");
    }
done:
    if (a)
        archive_read_free(a);
    /* Names of labels and reward structures point into the JSON tree, which
     * is freed below: copy them into blocks of the model's own. */
    if (!rc && (own_names(&model->labels, model) || own_names(&model->rewards, model)))
        rc = csr_fail(st, CSR_ERR_NOMEM, "label and reward names");
    for (size_t i = 0; i < r->num_members; i++) {
        free(r->members[i].name);
        if (!r->members[i].borrowed)
            free(r->members[i].data);
    }
    free(r->members);
    free(r->index.aps);
    free(r->index.rewards);
    free(r->index.vars);
    if (r->json)
        json_decref(r->json);
    if (rc)
        csr_free(model);
    return rc;
}

static void report_start(umb_report **report, umb_report *dummy, csr_model *model, const char *compression)
{
    memset(model, 0, sizeof *model);
    if (!*report)
        *report = dummy;
    memset(*report, 0, sizeof **report);
    (*report)->compression = compression;
    (*report)->tool = "";
}

static int open_callback(reader *r, struct archive *a)
{
    return archive_read_open(a, r, NULL, archive_input, NULL);
}

int umb_read(textin *in, const umb_read_options *opt, csr_model *model, umb_report *report, csr_status *st)
{
    umb_report dummy;
    report_start(&report, &dummy, model, textin_is_gzip(in) ? "gzip" : "none");
    reader r = {.in = in, .st = st, .report = report, .skip_valuations = opt && opt->skip_valuations};
    r.block = malloc(UMB_READ_BLOCK);
    if (!r.block)
        return csr_fail(st, CSR_ERR_NOMEM, "archive reader");
    int rc = read_archive(&r, open_callback, opt, model);
    free(r.block);
    return rc;
}

/* The length of a gzip member's header (RFC 1952: magic, deflate, no
 * reserved flag bits, the optional fields its flags name), or 0 where it is
 * not one or runs into the 8 bytes of the trailer; *crc_ok: whether the
 * header's own CRC-16 (flag FHCRC), where it has one and can be read, is
 * right (zlib, the stream reader, checks it too: both readers must agree). */
static uint64_t gzip_header_end(const unsigned char *in, uint64_t size, int *crc_ok)
{
    *crc_ok = 1;
    if (size < 10)
        return 0;
    const unsigned flags = in[3];
    uint64_t at = 10;
    if (flags & 4) { /* FEXTRA */
        if (at + 2 > size)
            return 0;
        at += 2 + (uint64_t)(in[at] | in[at + 1] << 8);
    }
    for (unsigned f = 8; f <= 16; f *= 2) /* FNAME, FCOMMENT: zero-terminated */
        if (flags & f) {
            while (at < size && in[at])
                at++;
            at++;
        }
    if (flags & 2) { /* FHCRC */
        if (at + 2 > size)
            return 0;
        *crc_ok = ((uint32_t)crc32(0L, in, (uInt)at) & 0xffffu) == (uint32_t)(in[at] | in[at + 1] << 8);
        at += 2;
    }
    const int member = in[0] == 0x1f && in[1] == 0x8b && in[2] == 8 && !(flags & 0xe0);
    return member && at + 8 <= size ? at : 0;
}

/* A little-endian 32-bit field of a gzip trailer (RFC 1952: CRC-32, ISIZE). */
static uint32_t gzip_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int open_memory(reader *r, struct archive *a)
{
    return archive_read_open_memory(a, r->memory, r->memory_length);
}

int umb_read_gzip_file(int fd, const umb_read_options *opt, csr_model *model, umb_report *report, csr_status *st)
{
    umb_report dummy;
    report_start(&report, &dummy, model, "gzip");
    reader r = {.st = st, .report = report, .skip_valuations = opt && opt->skip_valuations};
    /* The compressed file, whole. */
    struct stat info;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size < 18)
        return csr_fail(st, CSR_ERR_TRUNCATED, "not a whole gzip file");
    uint64_t packed = (uint64_t)info.st_size;
    unsigned char *in = malloc(packed);
    if (!in)
        return csr_fail(st, CSR_ERR_NOMEM, "%llu bytes of gzip input", (unsigned long long)packed);
    for (uint64_t done = 0; done < packed;) {
        ssize_t got = pread(fd, in + done, packed - done > (1u << 30) ? (1u << 30) : packed - done, (off_t)done);
        if (got <= 0) {
            free(in);
            if (got < 0 && st)
                st->sys_errno = errno;
            return csr_fail(st, got < 0 ? CSR_ERR_IO : CSR_ERR_TRUNCATED, "%s", got < 0 ? strerror(errno) : "file shrank");
        }
        done += (uint64_t)got;
    }
    /* The trailer's ISIZE is the size modulo 2^32; deflate expands at most 1032:1. */
    uint64_t size = gzip_le32(in + packed - 4);
    uint64_t most = packed * 1032 + 4096;
    const uint64_t in_memory = packed * UMB_IN_MEMORY_RATIO > UMB_IN_MEMORY_FLOOR ? packed * UMB_IN_MEMORY_RATIO
                                                                                 : UMB_IN_MEMORY_FLOOR;
    int header_crc_ok;
    const uint64_t header = gzip_header_end(in, packed, &header_crc_ok);
    if (!header_crc_ok) {
        free(in);
        return csr_fail(st, CSR_ERR_COMPRESSION, "gzip header checksum mismatch");
    }
    /* The deflate stream inflated raw, its CRC-32 checked against the
     * trailer by a task per CPU after (libdeflate's gzip decompression
     * computes it on its one thread: 0.1 s of firewire's 744 MB here). */
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    unsigned char *out = NULL;
    int rc = CSR_OK;
    for (;;) {
        if (!header) {
            rc = csr_fail(st, CSR_ERR_TRUNCATED, "gzip stream damaged or cut short");
            break;
        }
        if (d && size <= most && size > in_memory) {
            rc = UMB_READ_STREAMED; /* (a bomb's zeros, or an archive that compresses unusually well) */
            break;
        }
        if (!d || size > most) {
            rc = d ? csr_fail(st, CSR_ERR_TRUNCATED, "gzip stream damaged or cut short")
                   : csr_fail(st, CSR_ERR_NOMEM, "gzip decompressor");
            break;
        }
        free(out);
        out = malloc(size ? size : 1);
        if (out) {
            advise_huge_pages(out, (size_t)size); /* 512 times fewer faults while inflating */
            parallel_touch(out, (size_t)size);    /* the kernel's zeroing on every CPU */
        }
        if (!out) {
            rc = csr_fail(st, CSR_ERR_NOMEM, "%llu bytes of archive", (unsigned long long)size);
            break;
        }
        size_t in_used = 0, out_used = 0;
        const double t0 = monotonic_seconds();
        uint64_t parallel_used;
        enum libdeflate_result result;
        if (inflate_parallel(in + header, packed - header, out, size, UMB_INFLATE_CHUNK, &parallel_used, NULL)) {
            result = LIBDEFLATE_SUCCESS;
            in_used = (size_t)parallel_used;
            out_used = (size_t)size;
        } else {
            result = libdeflate_deflate_decompress_ex(d, in + header, packed - header, out, size, &in_used, &out_used);
        }
        if (result == LIBDEFLATE_INSUFFICIENT_SPACE) {
            report->inflate_s += monotonic_seconds() - t0;
            size += (uint64_t)1 << 32; /* ISIZE wrapped */
            continue;
        }
        /* the trailer: CRC-32, then ISIZE (at packed - 4 where end + 8 == packed: size came from it) */
        const uint64_t end = header + in_used;
        if (result == LIBDEFLATE_SUCCESS && end + 8 < packed) /* before the size: ISIZE was read from what follows */
            rc = csr_fail(st, CSR_ERR_COMPRESSION,
                          "data after the first gzip member (more members or trailing bytes): PRISM and Storm write one");
        else if (result != LIBDEFLATE_SUCCESS || end + 8 != packed || out_used != size ||
                 gzip_le32(in + end) != csr_crc32(out, size))
            rc = csr_fail(st, CSR_ERR_TRUNCATED, "gzip stream damaged or cut short");
        report->inflate_s += monotonic_seconds() - t0;
        break;
    }
    if (d)
        libdeflate_free_decompressor(d);
    free(in);
    if (!rc) {
        report->bytes = size;
        r.memory = out;
        r.memory_length = size;
        rc = read_archive(&r, open_memory, opt, model);
    }
    if (!r.memory_adopted)
        free(out);
    return rc;
}
