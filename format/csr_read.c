/*
 * csr_read.c - reading a CSR file (format/CSR.md, version 1.x).
 *
 * Regular files are mmapped and the arrays point into the map; pipes are read
 * in one pass, in section order, each known section into its own buffer and
 * unknown optional sections discarded.  Nothing read from the file is trusted
 * before it is checked: header CRC, reserved bits, section layout, section
 * lengths against the counts, section CRCs, zero padding, exact file length,
 * and finally the structural invariants (csr_validate).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc.h"
#include "hugepages.h"
#include "pipe.h"
#include "csr.h"

static uint16_t get_u16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get_u32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get_u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static uint64_t round_up(uint64_t x) { return (x + CSR_ALIGN - 1) & ~(uint64_t)(CSR_ALIGN - 1); }


/* Read exactly len bytes; CSR_ERR_TRUNCATED at end of input. */
static int read_exact(int fd, void *buf, size_t len, uint64_t pos, csr_status *st)
{
    uint8_t *p = buf;
    while (len > 0) {
        size_t chunk = len > ((size_t)1 << 30) ? ((size_t)1 << 30) : len;
        ssize_t got = read(fd, p, chunk);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            if (st) {
                st->sys_errno = errno;
                st->offset = pos;
            }
            return csr_fail(st, CSR_ERR_IO, "%s", strerror(errno));
        }
        if (got == 0) {
            if (st)
                st->offset = pos;
            return csr_fail(st, CSR_ERR_TRUNCATED, "input ends at byte %llu", (unsigned long long)pos);
        }
        p += got;
        pos += (uint64_t)got;
        len -= (size_t)got;
    }
    return CSR_OK;
}

static int all_zero(const uint8_t *p, uint64_t len)
{
    for (uint64_t i = 0; i < len; i++)
        if (p[i])
            return 0;
    return 1;
}

/* The header checksum, then the header fields and the section table,
 * common to both paths.  hdr holds header_length bytes. */
static int parse_header(csr_model *m, const uint8_t *hdr, csr_status *st)
{
    uint32_t count = m->num_sections;
    uint64_t table_end = CSR_FIXED_HEADER_BYTES + (uint64_t)count * CSR_SECTION_ENTRY_BYTES;
    uint32_t stored = get_u32(hdr + table_end);
    if (csr_crc32(hdr, table_end) != stored)
        return csr_fail(st, CSR_ERR_HEADER_CRC, "stored %08x, computed %08x", stored, csr_crc32(hdr, table_end));
    if (!all_zero(hdr + table_end + 4, m->header_length - table_end - 4))
        return csr_fail(st, CSR_ERR_PADDING, "after the header checksum");
    /* The fields behind the checksum. */
    if (m->flags != 0)
        return csr_fail(st, CSR_ERR_RESERVED, "header flags %08x", m->flags);
    if (get_u32(hdr + 60) != 0)
        return csr_fail(st, CSR_ERR_RESERVED, "header bytes 60-63");
    if (m->model_type != CSR_DTMC && m->model_type != CSR_MDP)
        return csr_fail(st, CSR_ERR_MODEL_TYPE, "model type %u", m->model_type);
    if (m->num_states > CSR_MAX_STATES)
        return csr_fail(st, CSR_ERR_TOO_LARGE, "%llu states (at most 2^32)", (unsigned long long)m->num_states);
    if (m->model_type == CSR_DTMC && m->num_choices != m->num_states)
        return csr_fail(st, CSR_ERR_DTMC_CHOICES, "%llu choices for %llu states",
                        (unsigned long long)m->num_choices, (unsigned long long)m->num_states);
    uint64_t expected = m->header_length;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = hdr + CSR_FIXED_HEADER_BYTES + (uint64_t)i * CSR_SECTION_ENTRY_BYTES;
        csr_section *s = &m->sections[i];
        s->type = get_u32(e);
        s->flags = get_u32(e + 4);
        s->offset = get_u64(e + 8);
        s->length = get_u64(e + 16);
        s->crc32 = get_u32(e + 24);
        if (get_u32(e + 28) != 0 || (s->flags & ~CSR_SECTION_OPTIONAL))
            return csr_fail(st, CSR_ERR_RESERVED, "section table entry %u", i);
        if (s->offset != expected)
            return csr_fail(st, CSR_ERR_SECTION_TABLE, "section %u (%s) at byte %llu, expected %llu", i,
                            csr_section_name(s->type), (unsigned long long)s->offset,
                            (unsigned long long)expected);
        uint64_t end;
        if (csr_add_u64(s->offset, s->length, &end) || end > UINT64_MAX - CSR_ALIGN)
            return csr_fail(st, CSR_ERR_SECTION_TABLE, "section %u length %llu", i,
                            (unsigned long long)s->length);
        for (uint32_t j = 0; j < i; j++)
            if (m->sections[j].type == s->type)
                return csr_fail(st, CSR_ERR_SECTION_TABLE, "section %s appears twice",
                                csr_section_name(s->type));
        if (!csr_section_known(s->type) && !(s->flags & CSR_SECTION_OPTIONAL))
            return csr_fail(st, CSR_ERR_SECTION_UNKNOWN, "type %u", s->type);
        expected = round_up(end);
    }
    if (m->file_length != expected)
        return csr_fail(st, CSR_ERR_SECTION_TABLE, "file length %llu, sections end at %llu",
                        (unsigned long long)m->file_length, (unsigned long long)expected);
    return CSR_OK;
}

/* Check what locates the header checksum (magic, version, section count,
 * header length) and fill the fields; parse_header checks the rest after
 * the checksum. */
static int parse_fixed_header(csr_model *m, const uint8_t *h, csr_status *st)
{
    if (st)
        st->offset = 0;
    if (memcmp(h, CSR_MAGIC, CSR_MAGIC_LENGTH) != 0)
        return csr_fail(st, CSR_ERR_MAGIC, NULL);
    m->version_major = get_u16(h + 8);
    m->version_minor = get_u16(h + 10);
    if (m->version_major != CSR_VERSION_MAJOR)
        return csr_fail(st, CSR_ERR_VERSION, "file is version %u.%u, this reader reads %u.x%s",
                        m->version_major, m->version_minor, CSR_VERSION_MAJOR,
                        m->version_major > CSR_VERSION_MAJOR ? " (newer major version)" : "");
    m->header_length = get_u32(h + 12);
    m->flags = get_u32(h + 16);
    m->model_type = get_u32(h + 20);
    m->num_states = get_u64(h + 24);
    m->num_choices = get_u64(h + 32);
    m->num_transitions = get_u64(h + 40);
    m->file_length = get_u64(h + 48);
    m->num_sections = get_u32(h + 56);
    if (m->num_sections > CSR_MAX_SECTIONS)
        return csr_fail(st, CSR_ERR_SECTION_TABLE, "%u sections (at most %d)", m->num_sections,
                        CSR_MAX_SECTIONS);
    uint64_t min_length = CSR_FIXED_HEADER_BYTES + (uint64_t)m->num_sections * CSR_SECTION_ENTRY_BYTES + 4;
    if (m->header_length != round_up(min_length))
        return csr_fail(st, CSR_ERR_HEADER_LENGTH, "%llu bytes, expected %llu for %u sections",
                        (unsigned long long)m->header_length, (unsigned long long)round_up(min_length),
                        m->num_sections);
    return CSR_OK;
}

/* Expected byte length of a fixed-size section, or UINT64_MAX if variable.
 * *overflow is set when the counts make the length unrepresentable. */
static uint64_t fixed_length(const csr_model *m, uint32_t type, int *overflow)
{
    uint64_t items, size, out;
    switch (type) {
    case CSR_SEC_STATE_CHOICES: items = m->num_states + 1; size = 8; break;
    case CSR_SEC_CHOICE_TRANSITIONS:
        if (m->num_choices == UINT64_MAX) { *overflow = 1; return 0; }
        items = m->num_choices + 1; size = 8; break;
    case CSR_SEC_TARGETS: items = m->num_transitions; size = 4; break;
    case CSR_SEC_PROBABILITIES: items = m->num_transitions; size = 8; break;
    case CSR_SEC_CHOICE_ACTIONS: items = m->num_choices; size = 4; break;
    case CSR_SEC_PERMUTATION: items = m->num_states; size = 4; break;
    case CSR_SEC_SEGMENT_INFO: items = 1; size = 16; break;
    default: return UINT64_MAX;
    }
    if (csr_mul_u64(items, size, &out)) {
        *overflow = 1;
        return 0;
    }
    return out;
}

static int check_section_length(const csr_model *m, const csr_section *s, csr_status *st)
{
    int overflow = 0;
    uint64_t want = fixed_length(m, s->type, &overflow);
    if (st)
        st->offset = s->offset;
    if (overflow)
        return csr_fail(st, CSR_ERR_TOO_LARGE, "section %s for the header's counts", csr_section_name(s->type));
    if (want != UINT64_MAX && s->length != want)
        return csr_fail(st, CSR_ERR_SECTION_LENGTH, "section %s: %llu bytes, expected %llu",
                        csr_section_name(s->type), (unsigned long long)s->length, (unsigned long long)want);
    if ((s->type == CSR_SEC_INITIAL_STATES || s->type == CSR_SEC_LABEL_STATES) && s->length % 4)
        return csr_fail(st, CSR_ERR_SECTION_LENGTH, "section %s: %llu bytes, not a multiple of 4",
                        csr_section_name(s->type), (unsigned long long)s->length);
    if ((s->type == CSR_SEC_LABEL_FIRST || s->type == CSR_SEC_VALUATIONS) && s->length % 8)
        return csr_fail(st, CSR_ERR_SECTION_LENGTH, "section %s: %llu bytes, not a multiple of 8",
                        csr_section_name(s->type), (unsigned long long)s->length);
    if (s->length > SIZE_MAX / 2)
        return csr_fail(st, CSR_ERR_TOO_LARGE, "section %s: %llu bytes", csr_section_name(s->type),
                        (unsigned long long)s->length);
    return CSR_OK;
}

/* Split a string table into names; the table must end with NUL. */
static int parse_strings(csr_strings *out, const char *data, uint64_t length, const char *what,
                         csr_status *st)
{
    out->count = 0;
    out->names = NULL;
    if (length == 0)
        return CSR_OK;
    if (data[length - 1] != '\0')
        return csr_fail(st, CSR_ERR_STRING_TABLE, "%s does not end with a NUL byte", what);
    uint64_t count = 0;
    for (uint64_t i = 0; i < length; i++)
        count += data[i] == '\0';
    const char **names = malloc(count * sizeof *names);
    if (!names)
        return csr_fail(st, CSR_ERR_NOMEM, "%s: %llu names", what, (unsigned long long)count);
    uint64_t k = 0;
    const char *p = data;
    while (k < count) {
        names[k++] = p;
        p += strlen(p) + 1;
    }
    out->names = names;
    out->count = count;
    return CSR_OK;
}

/* Point the model's arrays at the section data and check the cross-section
 * lengths; data[i] is the bytes of sections[i] (NULL for skipped ones). */
static int attach_sections(csr_model *m, const uint8_t *const *data, csr_status *st)
{
    const uint8_t *by_type[CSR_SEC_LAST + 1] = {0};
    uint64_t length[CSR_SEC_LAST + 1] = {0};
    int present[CSR_SEC_LAST + 1] = {0};
    static const uint8_t empty[8];
    for (uint32_t i = 0; i < m->num_sections; i++) {
        uint32_t t = m->sections[i].type;
        if (csr_section_known(t)) {
            by_type[t] = data[i] ? data[i] : empty;
            length[t] = m->sections[i].length;
            present[t] = 1;
        }
    }
    static const uint32_t required[] = {CSR_SEC_STATE_CHOICES, CSR_SEC_CHOICE_TRANSITIONS, CSR_SEC_TARGETS,
                                        CSR_SEC_INITIAL_STATES};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!present[required[i]])
            return csr_fail(st, CSR_ERR_SECTION_MISSING, "%s", csr_section_name(required[i]));
    if (present[CSR_SEC_LABEL_NAMES] != present[CSR_SEC_LABEL_FIRST] ||
        present[CSR_SEC_LABEL_NAMES] != present[CSR_SEC_LABEL_STATES])
        return csr_fail(st, CSR_ERR_SECTION_MISSING, "LABEL_NAMES, LABEL_FIRST and LABEL_STATES go together");
    if (present[CSR_SEC_ACTION_NAMES] != present[CSR_SEC_CHOICE_ACTIONS])
        return csr_fail(st, CSR_ERR_SECTION_MISSING, "ACTION_NAMES and CHOICE_ACTIONS go together");
    m->state_choices = (const uint64_t *)by_type[CSR_SEC_STATE_CHOICES];
    m->choice_transitions = (const uint64_t *)by_type[CSR_SEC_CHOICE_TRANSITIONS];
    m->targets = (const uint32_t *)by_type[CSR_SEC_TARGETS];
    m->probabilities = (const double *)by_type[CSR_SEC_PROBABILITIES];
    m->initial_states = (const uint32_t *)by_type[CSR_SEC_INITIAL_STATES];
    m->num_initial = length[CSR_SEC_INITIAL_STATES] / 4;
    int rc;
    if (present[CSR_SEC_LABEL_NAMES]) {
        if ((rc = parse_strings(&m->labels, (const char *)by_type[CSR_SEC_LABEL_NAMES],
                                length[CSR_SEC_LABEL_NAMES], "LABEL_NAMES", st)))
            return rc;
        if (length[CSR_SEC_LABEL_FIRST] != (m->labels.count + 1) * 8)
            return csr_fail(st, CSR_ERR_SECTION_LENGTH, "LABEL_FIRST: %llu bytes for %llu labels",
                            (unsigned long long)length[CSR_SEC_LABEL_FIRST], (unsigned long long)m->labels.count);
        m->label_first = (const uint64_t *)by_type[CSR_SEC_LABEL_FIRST];
        m->label_states = (const uint32_t *)by_type[CSR_SEC_LABEL_STATES];
        if (m->label_first[m->labels.count] != length[CSR_SEC_LABEL_STATES] / 4)
            return csr_fail(st, CSR_ERR_SECTION_LENGTH, "LABEL_STATES: %llu entries, LABEL_FIRST ends at %llu",
                            (unsigned long long)(length[CSR_SEC_LABEL_STATES] / 4),
                            (unsigned long long)m->label_first[m->labels.count]);
    }
    if (present[CSR_SEC_ACTION_NAMES]) {
        if ((rc = parse_strings(&m->actions, (const char *)by_type[CSR_SEC_ACTION_NAMES],
                                length[CSR_SEC_ACTION_NAMES], "ACTION_NAMES", st)))
            return rc;
        m->choice_actions = (const uint32_t *)by_type[CSR_SEC_CHOICE_ACTIONS];
    }
    if (present[CSR_SEC_REWARD_NAMES] != present[CSR_SEC_REWARD_INFO])
        return csr_fail(st, CSR_ERR_SECTION_MISSING, "REWARD_NAMES and REWARD_INFO come together");
    if (present[CSR_SEC_REWARD_NAMES]) {
        if ((rc = parse_strings(&m->rewards, (const char *)by_type[CSR_SEC_REWARD_NAMES],
                                length[CSR_SEC_REWARD_NAMES], "REWARD_NAMES", st)))
            return rc;
        if (m->rewards.count == 0 || length[CSR_SEC_REWARD_INFO] != m->rewards.count * 4)
            return csr_fail(st, CSR_ERR_SECTION_LENGTH, "REWARD_INFO: %llu bytes for %llu reward structures",
                            (unsigned long long)length[CSR_SEC_REWARD_INFO], (unsigned long long)m->rewards.count);
        m->reward_info = (const uint32_t *)by_type[CSR_SEC_REWARD_INFO];
        uint64_t with_state = 0, with_choice = 0, want;
        for (uint64_t r = 0; r < m->rewards.count; r++) {
            if (m->reward_info[r] & ~(CSR_REWARD_STATES | CSR_REWARD_CHOICES))
                return csr_fail(st, CSR_ERR_RESERVED, "REWARD_INFO of reward structure %llu: reserved bits 0x%x set",
                                (unsigned long long)r, m->reward_info[r]);
        }
        csr_reward_counts(m, m->rewards.count, &with_state, &with_choice);
        if (present[CSR_SEC_STATE_REWARDS] != (with_state > 0) || present[CSR_SEC_CHOICE_REWARDS] != (with_choice > 0))
            return csr_fail(st, CSR_ERR_SECTION_MISSING,
                            "STATE_REWARDS / CHOICE_REWARDS do not match REWARD_INFO (%llu and %llu structures)",
                            (unsigned long long)with_state, (unsigned long long)with_choice);
        if (with_state && (csr_mul_u64(with_state * 8, m->num_states, &want) || want != length[CSR_SEC_STATE_REWARDS]))
            return csr_fail(st, CSR_ERR_SECTION_LENGTH, "STATE_REWARDS: %llu bytes, expected %llu states x %llu",
                            (unsigned long long)length[CSR_SEC_STATE_REWARDS], (unsigned long long)m->num_states,
                            (unsigned long long)with_state);
        if (with_choice &&
            (csr_mul_u64(with_choice * 8, m->num_choices, &want) || want != length[CSR_SEC_CHOICE_REWARDS]))
            return csr_fail(st, CSR_ERR_SECTION_LENGTH, "CHOICE_REWARDS: %llu bytes, expected %llu choices x %llu",
                            (unsigned long long)length[CSR_SEC_CHOICE_REWARDS], (unsigned long long)m->num_choices,
                            (unsigned long long)with_choice);
        m->state_rewards = (const double *)by_type[CSR_SEC_STATE_REWARDS];
        m->choice_rewards = (const double *)by_type[CSR_SEC_CHOICE_REWARDS];
    } else if (present[CSR_SEC_STATE_REWARDS] || present[CSR_SEC_CHOICE_REWARDS]) {
        return csr_fail(st, CSR_ERR_SECTION_MISSING, "reward values without REWARD_NAMES");
    }
    int valuation_parts = present[CSR_SEC_VARIABLE_NAMES] + present[CSR_SEC_VARIABLE_INFO] + present[CSR_SEC_VALUATIONS];
    if (valuation_parts != 0 && valuation_parts != 3)
        return csr_fail(st, CSR_ERR_SECTION_MISSING, "VARIABLE_NAMES, VARIABLE_INFO and VALUATIONS go together");
    if (valuation_parts) {
        if ((rc = parse_strings(&m->variables, (const char *)by_type[CSR_SEC_VARIABLE_NAMES],
                                length[CSR_SEC_VARIABLE_NAMES], "VARIABLE_NAMES", st)))
            return rc;
        const uint64_t V = m->variables.count;
        if (V == 0)
            return csr_fail(st, CSR_ERR_STRING_TABLE, "VARIABLE_NAMES holds no name");
        if (length[CSR_SEC_VARIABLE_INFO] / sizeof(csr_variable) != V ||
            length[CSR_SEC_VARIABLE_INFO] % sizeof(csr_variable))
            return csr_fail(st, CSR_ERR_SECTION_LENGTH, "VARIABLE_INFO: %llu bytes for %llu variables (32 each)",
                            (unsigned long long)length[CSR_SEC_VARIABLE_INFO], (unsigned long long)V);
        m->variable_info = (const csr_variable *)by_type[CSR_SEC_VARIABLE_INFO];
        /* W from the widths (at most 64 each: no overflow); csr_validate
         * checks them further, and the offsets */
        uint64_t bits = 0, want;
        for (uint64_t v = 0; v < V; v++) {
            if (m->variable_info[v].width > 64)
                return csr_fail(st, CSR_ERR_VARIABLE, "VARIABLE_INFO: variable %llu (\"%.40s\"): width %u (1 to 64)",
                                (unsigned long long)v, m->variables.names[v], m->variable_info[v].width);
            bits += m->variable_info[v].width;
        }
        m->valuation_words = bits / 64 + (bits % 64 != 0);
        if (csr_mul_u64(m->valuation_words * 8, m->num_states, &want) || want != length[CSR_SEC_VALUATIONS])
            return csr_fail(st, CSR_ERR_SECTION_LENGTH, "VALUATIONS: %llu bytes, expected %llu states x %llu words",
                            (unsigned long long)length[CSR_SEC_VALUATIONS], (unsigned long long)m->num_states,
                            (unsigned long long)m->valuation_words);
        m->valuations = (const uint64_t *)by_type[CSR_SEC_VALUATIONS];
    }
    m->permutation = (const uint32_t *)by_type[CSR_SEC_PERMUTATION];
    int segment_parts = present[CSR_SEC_SEGMENT_INFO] + present[CSR_SEC_SEGMENT_FIRST] +
                        present[CSR_SEC_SEGMENT_TARGETS] + present[CSR_SEC_SEGMENT_CHOICES];
    if (segment_parts != 0 && segment_parts != 4)
        return csr_fail(st, CSR_ERR_SECTION_MISSING, "the four SEGMENT_ sections go together");
    if (segment_parts) {
        const uint8_t *info = by_type[CSR_SEC_SEGMENT_INFO];
        uint32_t lanes;
        memcpy(&m->segment_bound, info, 4);
        memcpy(&lanes, info + 4, 4);
        memcpy(&m->interleaved_states, info + 8, 8);
        if (lanes != CSR_SEGMENT_LANES || m->segment_bound == 0 || m->segment_bound > CSR_SEGMENT_MAX_BOUND ||
            m->interleaved_states > m->num_states)
            return csr_fail(st, CSR_ERR_SEGMENTS, "SEGMENT_INFO: bound %u, %u lanes, %llu interleaved states",
                            m->segment_bound, lanes, (unsigned long long)m->interleaved_states);
        m->num_segments = (m->interleaved_states + CSR_SEGMENT_LANES - 1) / CSR_SEGMENT_LANES;
        if (length[CSR_SEC_SEGMENT_FIRST] != (m->num_segments + 1) * 8)
            return csr_fail(st, CSR_ERR_SECTION_LENGTH, "SEGMENT_FIRST: %llu bytes for %llu segments",
                            (unsigned long long)length[CSR_SEC_SEGMENT_FIRST], (unsigned long long)m->num_segments);
        m->segment_first = (const uint64_t *)by_type[CSR_SEC_SEGMENT_FIRST];
        uint64_t entries = m->segment_first[m->num_segments];
        if (length[CSR_SEC_SEGMENT_TARGETS] / 4 != entries || length[CSR_SEC_SEGMENT_TARGETS] % 4 ||
            length[CSR_SEC_SEGMENT_CHOICES] != entries)
            return csr_fail(st, CSR_ERR_SECTION_LENGTH, "SEGMENT_TARGETS, SEGMENT_CHOICES: not %llu entries",
                            (unsigned long long)entries);
        m->segment_targets = (const uint32_t *)by_type[CSR_SEC_SEGMENT_TARGETS];
        m->segment_choices = by_type[CSR_SEC_SEGMENT_CHOICES];
    }
    return CSR_OK;
}

static int read_mapped(int fd, uint64_t size, csr_model *m, csr_status *st)
{
    if (size < CSR_FIXED_HEADER_BYTES) {
        uint8_t head[CSR_MAGIC_LENGTH];
        if (size >= CSR_MAGIC_LENGTH && pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
            memcmp(head, CSR_MAGIC, CSR_MAGIC_LENGTH) != 0) {
            if (st)
                st->offset = 0;
            return csr_fail(st, CSR_ERR_MAGIC, NULL);
        }
        return csr_fail(st, CSR_ERR_TRUNCATED, "%llu bytes", (unsigned long long)size);
    }
    void *base = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) {
        if (st)
            st->sys_errno = errno;
        return csr_fail(st, CSR_ERR_IO, "mmap: %s", strerror(errno));
    }
    m->map_base = base;
    m->map_length = (size_t)size;
    const uint8_t *b = base;
    int rc = parse_fixed_header(m, b, st);
    if (rc)
        return rc;
    if (m->header_length > size)
        return csr_fail(st, CSR_ERR_TRUNCATED, "header of %llu bytes in a file of %llu",
                        (unsigned long long)m->header_length, (unsigned long long)size);
    if ((rc = parse_header(m, b, st)))
        return rc;
    if (size < m->file_length)
        return csr_fail(st, CSR_ERR_TRUNCATED, "%llu bytes, header says %llu", (unsigned long long)size,
                        (unsigned long long)m->file_length);
    if (size > m->file_length)
        return csr_fail(st, CSR_ERR_TRAILING, "%llu bytes, header says %llu", (unsigned long long)size,
                        (unsigned long long)m->file_length);
    const uint8_t *data[CSR_MAX_SECTIONS];
    for (uint32_t i = 0; i < m->num_sections; i++) {
        const csr_section *s = &m->sections[i];
        if ((rc = check_section_length(m, s, st)))
            return rc;
        data[i] = b + s->offset;
        if (csr_crc32(data[i], s->length) != s->crc32)
            return csr_fail(st, CSR_ERR_SECTION_CRC, "section %s", csr_section_name(s->type));
        if (!all_zero(b + s->offset + s->length, round_up(s->offset + s->length) - s->offset - s->length)) {
            if (st)
                st->offset = s->offset + s->length;
            return csr_fail(st, CSR_ERR_PADDING, "after section %s", csr_section_name(s->type));
        }
    }
    if (st)
        st->offset = UINT64_MAX;
    return attach_sections(m, data, st);
}

static int read_stream(int fd, csr_model *m, csr_status *st)
{
    pipe_grow(fd);
    uint8_t fixed[CSR_FIXED_HEADER_BYTES];
    /* The magic number first, so that text on a pipe is "not a CSR file". */
    csr_status first = {0};
    int rc = read_exact(fd, fixed, CSR_MAGIC_LENGTH, 0, &first);
    if (rc == CSR_ERR_TRUNCATED) {
        if (first.offset == 0)
            return csr_fail(st, CSR_ERR_TRUNCATED, "empty input");
        if (st)
            st->offset = first.offset;
        if (memcmp(fixed, CSR_MAGIC, (size_t)first.offset) == 0)
            return csr_fail(st, CSR_ERR_TRUNCATED, "input ends at byte %llu", (unsigned long long)first.offset);
        if (st)
            st->offset = 0;
        return csr_fail(st, CSR_ERR_MAGIC, NULL);
    }
    if (rc)
        return csr_fail(st, rc, "%s", first.detail);
    if (memcmp(fixed, CSR_MAGIC, CSR_MAGIC_LENGTH) != 0) {
        if (st)
            st->offset = 0;
        return csr_fail(st, CSR_ERR_MAGIC, NULL);
    }
    if ((rc = read_exact(fd, fixed + CSR_MAGIC_LENGTH, sizeof fixed - CSR_MAGIC_LENGTH,
                               CSR_MAGIC_LENGTH, st)))
        return rc;
    if ((rc = parse_fixed_header(m, fixed, st)))
        return rc;
    uint8_t *hdr = malloc(m->header_length);
    if (!hdr)
        return csr_fail(st, CSR_ERR_NOMEM, "header");
    memcpy(hdr, fixed, sizeof fixed);
    rc = read_exact(fd, hdr + sizeof fixed, m->header_length - sizeof fixed, sizeof fixed, st);
    if (!rc)
        rc = parse_header(m, hdr, st);
    free(hdr);
    if (rc)
        return rc;
    const uint8_t *data[CSR_MAX_SECTIONS] = {0};
    uint8_t scratch[65536];
    uint64_t pos = m->header_length;
    for (uint32_t i = 0; i < m->num_sections; i++) {
        const csr_section *s = &m->sections[i];
        if ((rc = check_section_length(m, s, st)))
            return rc;
        int known = csr_section_known(s->type);
        uint64_t padded = round_up(s->offset + s->length) - s->offset;
        if (known) {
            uint8_t *buf = malloc(padded ? (size_t)padded : 1);
            if (buf)
                advise_huge_pages(buf, (size_t)padded); /* 512 times fewer faults while reading */
            if (!buf)
                return csr_fail(st, CSR_ERR_NOMEM, "%llu bytes for section %s", (unsigned long long)padded,
                                csr_section_name(s->type));
            if ((rc = csr_adopt(m, buf)))
                return csr_fail(st, rc, "too many sections");
            if ((rc = read_exact(fd, buf, (size_t)padded, pos, st)))
                return rc;
            if (csr_crc32(buf, s->length) != s->crc32) {
                if (st)
                    st->offset = s->offset;
                return csr_fail(st, CSR_ERR_SECTION_CRC, "section %s", csr_section_name(s->type));
            }
            if (!all_zero(buf + s->length, padded - s->length)) {
                if (st)
                    st->offset = s->offset + s->length;
                return csr_fail(st, CSR_ERR_PADDING, "after section %s", csr_section_name(s->type));
            }
            data[i] = buf;
        } else {
            for (uint64_t left = padded; left > 0;) {
                size_t chunk = left > sizeof scratch ? sizeof scratch : (size_t)left;
                if ((rc = read_exact(fd, scratch, chunk, pos + padded - left, st)))
                    return rc;
                left -= chunk;
            }
        }
        pos += padded;
    }
    /* The stream must end exactly here. */
    ssize_t extra;
    do
        extra = read(fd, scratch, 1);
    while (extra < 0 && errno == EINTR);
    if (extra > 0) {
        if (st)
            st->offset = pos;
        return csr_fail(st, CSR_ERR_TRAILING, "data after byte %llu", (unsigned long long)pos);
    }
    if (st)
        st->offset = UINT64_MAX;
    return attach_sections(m, data, st);
}

int csr_peek_transitions(const char *path, uint64_t *transitions)
{
    uint8_t h[64];
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return CSR_ERR_IO;
    ssize_t got = pread(fd, h, sizeof h, 0);
    close(fd);
    if (got < 0)
        return CSR_ERR_IO;
    if (got < (ssize_t)sizeof h)
        return CSR_ERR_TRUNCATED;
    if (memcmp(h, CSR_MAGIC, CSR_MAGIC_LENGTH) != 0)
        return CSR_ERR_MAGIC;
    if (get_u16(h + 8) != CSR_VERSION_MAJOR)
        return CSR_ERR_VERSION;
    *transitions = get_u64(h + 40);
    return CSR_OK;
}

int csr_read_fd(int fd, csr_model *m, csr_status *st)
{
    memset(m, 0, sizeof *m);
    if (st) {
        st->code = CSR_OK;
        st->sys_errno = 0;
        st->line = 0;
        st->offset = UINT64_MAX;
        st->detail[0] = '\0';
    }
    struct stat sb;
    int rc;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && lseek(fd, 0, SEEK_CUR) == 0)
        rc = read_mapped(fd, (uint64_t)sb.st_size, m, st);
    else
        rc = read_stream(fd, m, st);
    if (!rc)
        rc = csr_validate(m, st);
    if (rc)
        csr_free(m);
    return rc;
}
