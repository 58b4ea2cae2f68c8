/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "strutil.h"

#define WHITESPACE " \t\n\r\v\f"

static bool is_space(char c) {
        /* Not isspace(): that one depends on the locale. */
        return c != 0 && strchr(WHITESPACE, c);
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

static bool is_alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static const struct {
        const char *name;
        usec_t usec;
} duration_units[] = {
        { "us",      1                      },
        { "usec",    1                      },
        { "ms",      USEC_PER_MSEC          },
        { "msec",    USEC_PER_MSEC          },
        { "s",       USEC_PER_SEC           },
        { "sec",     USEC_PER_SEC           },
        { "second",  USEC_PER_SEC           },
        { "seconds", USEC_PER_SEC           },
        { "m",       60 * USEC_PER_SEC      },
        { "min",     60 * USEC_PER_SEC      },
        { "minute",  60 * USEC_PER_SEC      },
        { "minutes", 60 * USEC_PER_SEC      },
        { "h",       3600 * USEC_PER_SEC    },
        { "hr",      3600 * USEC_PER_SEC    },
        { "hour",    3600 * USEC_PER_SEC    },
        { "hours",   3600 * USEC_PER_SEC    },
        { "d",       86400 * USEC_PER_SEC   },
        { "day",     86400 * USEC_PER_SEC   },
        { "days",    86400 * USEC_PER_SEC   },
};

static int duration_unit(const char *s, size_t n, usec_t *ret) {
        if (n == 0) {
                *ret = USEC_PER_SEC;    /* a bare number means seconds */
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(duration_units); i++)
                if (strlen(duration_units[i].name) == n && strncmp(duration_units[i].name, s, n) == 0) {
                        *ret = duration_units[i].usec;
                        return 0;
                }
        return -EINVAL;
}

/* Fraction digits kept: with at most 9, the split multiplication below can't
 * overflow, and later digits only matter below a microsecond for every unit
 * up to hours (at most 87us for days). */
#define FRACTION_DIGITS_MAX 9

/* One "<number>[ ]<unit>" component at *p; advances *p past it. */
static int parse_component(const char **p, const char *end, usec_t *ret) {
        const char *s = *p;
        uint64_t whole = 0, frac = 0, frac_div = 1;
        bool any_digit = false;
        usec_t mult;
        int r;

        for (; is_digit(*s); s++) {
                unsigned d = (unsigned) (*s - '0');
                if (whole > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                whole = whole * 10 + d;
                any_digit = true;
        }

        if (*s == '.') {
                s++;
                if (!is_digit(*s))
                        return -EINVAL;         /* "5." or "." */
                for (unsigned n = 0; is_digit(*s); s++, n++)
                        if (n < FRACTION_DIGITS_MAX) {
                                frac = frac * 10 + (uint64_t) (*s - '0');
                                frac_div *= 10;
                        }
                any_digit = true;
        }

        if (!any_digit)
                return -EINVAL;

        const char *unit = s + strspn(s, " \t"), *unit_end = unit;
        while (unit_end < end && is_alpha(*unit_end))
                unit_end++;
        if (unit_end > unit)
                s = unit_end;
        else if (s + strspn(s, WHITESPACE) < end)
                /* Only the last component may omit its unit: "1h 30" is
                 * 1h 30s, but "30 1h" is more likely a typo than a sum. */
                return -EINVAL;
        r = duration_unit(unit, (size_t) (unit_end - unit), &mult);
        if (r < 0)
                return r;

        if (whole != 0 && mult > UINT64_MAX / whole)
                return -ERANGE;
        usec_t v = whole * mult;

        /* mult * frac / frac_div without overflowing: split mult first. */
        usec_t f = (mult / frac_div) * frac + (mult % frac_div) * frac / frac_div;
        if (v > UINT64_MAX - f)
                return -ERANGE;

        *p = s;
        *ret = v + f;
        return 0;
}

int parse_duration(const char *s, usec_t *ret) {
        usec_t sum = 0;
        int r;

        if (!s)
                return -EINVAL;

        s += strspn(s, WHITESPACE);
        size_t n = strlen(s);
        while (n > 0 && is_space(s[n - 1]))
                n--;
        if (n == 0)
                return -EINVAL;

        if (n == strlen("infinity") && strncmp(s, "infinity", n) == 0) {
                *ret = USEC_INFINITY;
                return 0;
        }

        const char *p = s, *end = s + n;
        while (p < end) {
                usec_t v;

                r = parse_component(&p, end, &v);
                if (r < 0)
                        return r;
                if (sum > UINT64_MAX - v)
                        return -ERANGE;
                sum += v;

                p += strspn(p, WHITESPACE);
        }

        /* UINT64_MAX is spelled "infinity"; reaching it by arithmetic is overflow. */
        if (sum == USEC_INFINITY)
                return -ERANGE;

        *ret = sum;
        return 0;
}

char *format_duration(char *buf, size_t size, usec_t usec) {
        static const struct {
                const char *suffix;
                usec_t usec;
        } table[] = {
                { "d",   86400 * USEC_PER_SEC },
                { "h",   3600 * USEC_PER_SEC  },
                { "min", 60 * USEC_PER_SEC    },
                { "s",   USEC_PER_SEC         },
                { "ms",  USEC_PER_MSEC        },
                { "us",  1                    },
        };
        size_t l = 0;
        int k;

        if (!buf || size == 0)
                return NULL;

        if (usec == USEC_INFINITY)
                k = snprintf(buf, size, "infinity");
        else if (usec == 0)
                k = snprintf(buf, size, "0");
        else {
                k = 0;
                for (size_t i = 0; i < ELEMENTSOF(table) && usec > 0; i++) {
                        usec_t n = usec / table[i].usec;
                        if (n == 0)
                                continue;
                        usec -= n * table[i].usec;

                        k = snprintf(buf + l, size - l, "%s%" PRIu64 "%s", l > 0 ? " " : "", n, table[i].suffix);
                        if (k < 0 || (size_t) k >= size - l)
                                return NULL;
                        l += (size_t) k;
                }
                return buf;
        }

        if (k < 0 || (size_t) k >= size)
                return NULL;
        return buf;
}

char *format_duration_approx(char *buf, size_t size, usec_t usec, usec_t accuracy) {
        if (usec != USEC_INFINITY && accuracy > 1 && usec >= accuracy) {
                usec_t rest = usec % accuracy;

                usec -= rest;
                /* Half up, short of infinity. */
                if (rest >= accuracy - accuracy / 2 && usec < USEC_INFINITY - accuracy)
                        usec += accuracy;
        }
        return format_duration(buf, size, usec);
}

int path_split_file(const char *path, char **ret_dir, char **ret_name) {
        _cleanup_free_ char *dir = NULL, *name = NULL;
        const char *slash;

        if (!path || path[0] != '/')
                return -EINVAL;
        slash = strrchr(path, '/');
        if (!slash[1] || streq(slash + 1, ".") || streq(slash + 1, ".."))
                return -EINVAL;
        name = strdup(slash + 1);
        dir = strndup(path, slash == path ? 1 : (size_t) (slash - path));
        if (!name || !dir)
                return -ENOMEM;
        *ret_dir = TAKE_PTR(dir);
        *ret_name = TAKE_PTR(name);
        return 0;
}

int parse_boolean(const char *s) {
        static const char *const yes[] = { "1", "yes", "true", "on" };
        static const char *const no[] = { "0", "no", "false", "off" };

        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcasecmp(s, yes[i]) == 0)
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (strcasecmp(s, no[i]) == 0)
                        return 0;
        return -EINVAL;
}

int parse_uint64(const char *s, uint64_t *ret) {
        uint64_t v = 0;

        /* By hand: strtoull() skips white space and accepts a '-' sign. */
        if (isempty(s))
                return -EINVAL;
        for (; *s; s++) {
                if (!is_digit(*s))
                        return -EINVAL;
                unsigned d = (unsigned) (*s - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

char *strstrip(char *s) {
        if (!s)
                return NULL;

        size_t skip = strspn(s, WHITESPACE);
        size_t n = strlen(s + skip);
        while (n > 0 && is_space(s[skip + n - 1]))
                n--;
        memmove(s, s + skip, n);
        s[n] = 0;
        return s;
}

bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}

const char *startswith(const char *s, const char *prefix) {
        if (!s || !prefix)
                return NULL;
        size_t n = strlen(prefix);
        if (strncmp(s, prefix, n) != 0)
                return NULL;
        return s + n;
}

char **strv_free(char **l) {
        if (!l)
                return NULL;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
        return NULL;
}

size_t strv_length(char * const *l) {
        size_t n = 0;

        if (!l)
                return 0;
        while (l[n])
                n++;
        return n;
}

bool strv_equal(char * const *a, char * const *b) {
        size_t n = strv_length(a);

        if (n != strv_length(b))
                return false;
        for (size_t i = 0; i < n; i++)
                if (strcmp(a[i], b[i]) != 0)
                        return false;
        return true;
}

int strv_push(char ***l, char *value) {
        /* Ownership passes even on failure, so callers can hand over TAKE_PTR(x). */
        if (!value)
                return 0;

        size_t n = strv_length(*l);
        char **m = reallocarray(*l, n + 2, sizeof(char *));
        if (!m) {
                free(value);
                return -ENOMEM;
        }
        m[n] = value;
        m[n + 1] = NULL;
        *l = m;
        return 0;
}

int strv_extend(char ***l, const char *value) {
        if (!value)
                return 0;

        char *v = strdup(value);
        if (!v)
                return -ENOMEM;
        return strv_push(l, v);
}

int strv_split_whitespace(const char *s, char ***ret) {
        _cleanup_strv_free_ char **l = NULL;
        int r;

        /* Always a vector, possibly empty, so callers can tell "none" from OOM. */
        l = calloc(1, sizeof(char *));
        if (!l)
                return -ENOMEM;

        for (const char *p = s ? s : "";;) {
                p += strspn(p, WHITESPACE);
                if (!*p)
                        break;
                size_t n = strcspn(p, WHITESPACE);
                char *w = strndup(p, n);
                if (!w)
                        return -ENOMEM;
                r = strv_push(&l, w);
                if (r < 0)
                        return r;
                p += n;
        }

        *ret = TAKE_PTR(l);
        return 0;
}

static size_t cescape_char(unsigned char c, char out[static 5]) {
        static const char hex[] = "0123456789abcdef";

        switch (c) {
        case '\n': memcpy(out, "\\n", 2); return 2;
        case '\t': memcpy(out, "\\t", 2); return 2;
        case '\r': memcpy(out, "\\r", 2); return 2;
        case '\\': memcpy(out, "\\\\", 2); return 2;
        case '"': memcpy(out, "\\\"", 2); return 2;
        }
        if (c < ' ' || c >= 127) {
                out[0] = '\\';
                out[1] = 'x';
                out[2] = hex[c >> 4];
                out[3] = hex[c & 15];
                return 4;
        }
        out[0] = (char) c;
        return 1;
}

char *cescape_buf(const char *s, char *buf, size_t size) {
        size_t len = 0;

        if (size == 0)
                return buf;
        for (; s && *s; s++) {
                char e[5];
                size_t n = cescape_char((unsigned char) *s, e);
                if (len + n >= size)
                        break;
                memcpy(buf + len, e, n);
                len += n;
        }
        buf[len] = '\0';
        return buf;
}

char *cescape(const char *s) {
        size_t n = s ? strlen(s) : 0;
        char *buf;

        if (n > (SIZE_MAX - 1) / 4)
                return NULL;
        buf = malloc(n * 4 + 1);
        if (!buf)
                return NULL;
        return cescape_buf(s, buf, n * 4 + 1);
}

bool string_is_safe(const char *s) {
        for (; s && *s; s++) {
                char e[5];
                if (cescape_char((unsigned char) *s, e) != 1)
                        return false;
        }
        return true;
}

int set_why(char **ret_why, int r, const char *fmt, ...) {
        va_list ap;
        char *s;

        if (!ret_why)
                return r;
        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        free(*ret_why);
        *ret_why = s;
        return r;
}

int format_double_shortest(double v, char *buf, size_t size) {
        int n = 0;

        if (!isfinite(v))
                return -EINVAL;
        for (int digits = 1; digits <= 17; digits++) {
                n = snprintf(buf, size, "%.*g", digits, v);
                if (n < 0 || (size_t) n >= size)
                        return -ENOBUFS;
                if (strtod(buf, NULL) == v)
                        break;
        }
        if (!strpbrk(buf, ".eEn")) {
                if ((size_t) n + 2 >= size)
                        return -ENOBUFS;
                strcpy(buf + n, ".0");
        }
        return 0;
}

void set_source_error(char **slot, int error, const char *fmt, ...) {
        va_list ap;

        free(*slot);
        errno = abs(error);
        va_start(ap, fmt);
        if (vasprintf(slot, fmt, ap) < 0)
                *slot = NULL;
        va_end(ap);
}
