/*
 * numparse.h - number tokens of the project's text formats (internal).
 *
 * Tokens end at a space, a tab, '\r', '\n' or NUL (the end of the line).  Unsigned integers are
 * decimal digits only, checked for u64 overflow.  Reals are decimal
 * ([digits][.digits][e[+-]digits]) with Clinger's exact fast path (a mantissa
 * below 2^53 scaled by an exact power of ten up to 10^22 is one correctly
 * rounded operation) and strtod for everything else, so results are always
 * correctly rounded.
 */
#ifndef NUMPARSE_H
#define NUMPARSE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline int num_is_space(char c) { return c == ' ' || c == '\t'; }
static inline int num_token_end(char c) { return c == ' ' || c == '\t' || c == '\0' || c == '\n' || c == '\r'; }

static inline const char *num_skip_spaces(const char *p)
{
    while (num_is_space(*p))
        p++;
    return p;
}

/* Parse a u64 at *p; on success advance *p past it and return 0. */
static inline int num_parse_u64(const char **p, uint64_t *out)
{
    const char *s = *p, *start = s;
    uint64_t v = 0;
    unsigned d;
    while ((d = (unsigned)(unsigned char)*s - '0') < 10) {
        v = v * 10 + d; /* may wrap past 19 digits: checked below */
        s++;
    }
    if (s == start || !num_token_end(*s))
        return -1;
    if (s - start > 19) { /* 20 digits or more: redo with overflow checks */
        v = 0;
        for (const char *q = start; q < s; q++) {
            d = (unsigned)(*q - '0');
            if (v > (UINT64_MAX - d) / 10)
                return -1;
            v = v * 10 + d;
        }
    }
    *p = s;
    *out = v;
    return 0;
}

/* Parse a real at *p; on success advance *p past it and return 0. */
static inline int num_parse_double(const char **p, double *out)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *s = *p;
    if (*s >= '0' && *s <= '9') {
        uint64_t mant = 0;
        int sig = 0, exp10 = 0, ok = 1;
        const char *q = s;
        while (*q >= '0' && *q <= '9') {
            if (mant || *q != '0') {
                if (sig < 19)
                    mant = mant * 10 + (uint64_t)(*q - '0');
                else
                    ok = 0; /* more digits than the fast path holds */
                sig++;
            }
            q++;
        }
        if (*q == '.') {
            q++;
            while (*q >= '0' && *q <= '9') {
                if (mant || *q != '0') {
                    if (sig < 19)
                        mant = mant * 10 + (uint64_t)(*q - '0'), exp10--;
                    else
                        ok = 0;
                    sig++;
                } else {
                    exp10--;
                }
                q++;
            }
        }
        if (*q == 'e' || *q == 'E') {
            const char *e = q + 1;
            int neg = 0, ev = 0, digits = 0;
            if (*e == '+' || *e == '-')
                neg = *e++ == '-';
            while (*e >= '0' && *e <= '9') {
                if (ev < 100000)
                    ev = ev * 10 + (*e - '0');
                e++;
                digits++;
            }
            if (!digits)
                ok = 0;
            exp10 += neg ? -ev : ev;
            q = e;
        }
        if (ok && num_token_end(*q) && mant <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
            *out = exp10 < 0 ? (double)mant / pow10[-exp10] : (double)mant * pow10[exp10];
            *p = q;
            return 0;
        }
    }
    /* Slow path: strtod on a NUL-terminated copy of the token. */
    char tok[128];
    size_t len = 0;
    while (!num_token_end(s[len]))
        if (++len >= sizeof tok)
            return -1;
    if (len == 0)
        return -1;
    memcpy(tok, s, len);
    tok[len] = '\0';
    if (strpbrk(tok, "xX")) /* hexadecimal: C's strtod reads it, PRISM and Storm never write it */
        return -1;
    char *end;
    double v = strtod(tok, &end);
    if (end != tok + len)
        return -1;
    *out = v;
    *p = s + len;
    return 0;
}

#endif
