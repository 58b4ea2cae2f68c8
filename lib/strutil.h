/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define streq(a, b) (strcmp((a), (b)) == 0)

/* Durations are kept in microseconds, like sd-event's clock. */
typedef uint64_t usec_t;
#define USEC_INFINITY ((usec_t) UINT64_MAX)

/* "500ms", "90s", "5min", "1h 30min", "2.5s"; a bare number means seconds.
 * Returns 0, -EINVAL on bad syntax, -ERANGE on overflow. */
int parse_duration(const char *s, usec_t *ret);
/* Exact rendering in the largest units: "500ms", "1min 30s", "5min". */
char *format_duration(char *buf, size_t size, usec_t usec);
/* The same, rounded to the nearest multiple of accuracy: for durations the
 * daemon measured (a learned period), whose last digits are jitter. */
char *format_duration_approx(char *buf, size_t size, usec_t usec, usec_t accuracy);
/* How learned reader periods are shown: "every 2s 170ms". */
#define PERIOD_ACCURACY (10 * USEC_PER_MSEC)
#define DURATION_MAX 64

/* An absolute path's directory and last component: "/a/b/c" gives "/a/b"
 * and "c", "/c" gives "/" and "c" (both malloc'd). -EINVAL unless path is
 * absolute and ends in a file name (not empty, "." or ".."); -ENOMEM. */
int path_split_file(const char *path, char **ret_dir, char **ret_name);

/* yes/no/true/false/on/off/1/0, case-insensitive: 1, 0, or -EINVAL. */
int parse_boolean(const char *s);
/* Unsigned decimal, whole string, no sign: 0, -EINVAL or -ERANGE. */
int parse_uint64(const char *s, uint64_t *ret);

/* The shortest decimal that reads back as v (strtod), with ".0" if it
 * would read as an integer: 0.1 is "0.1", not "0.10000000000000001", 1 is
 * "1.0". -EINVAL for NaN and infinities (JSON has none), -ENOBUFS if size
 * is too small (32 is enough). */
int format_double_shortest(double v, char *buf, size_t size);

/* Strip leading and trailing white space in place; returns s. */
char *strstrip(char *s);
bool streq_ptr(const char *a, const char *b);
static inline bool isempty(const char *s) {
        return !s || !*s;
}
static inline const char *strnull(const char *s) {
        return s ? s : "(null)";
}
static inline const char *strempty(const char *s) {
        return s ? s : "";
}
/* An ASCII letter, digit or '_': a character of a C or shell name, or of
 * a regex's \w, whatever the locale. */
static inline bool ascii_word_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
/* Returns the rest of s after prefix, or NULL. */
const char *startswith(const char *s, const char *prefix);

/* NULL-terminated string vectors. */
char **strv_free(char **l);
size_t strv_length(char * const *l);
bool strv_equal(char * const *a, char * const *b);     /* NULL is the empty list */
int strv_push(char ***l, char *value);          /* takes ownership of value */
int strv_extend(char ***l, const char *value);  /* copies value */
/* Split on white space; returns -ENOMEM or 0. */
int strv_split_whitespace(const char *s, char ***ret);
static inline void strv_freep(char ***l) {
        strv_free(*l);
}
#define _cleanup_strv_free_ __attribute__((cleanup(strv_freep)))

/* C-style escaping of a string another process chose (a comm, a path, a
 * unit): \n, \t, \\, \" and every byte outside printable ASCII as \xNN, as
 * systemd's cescape() does. The result is printable ASCII: safe for a log
 * line, a terminal, the journal, and valid UTF-8 for JSON. */
/* Writes at most size bytes, always NUL-terminated; a cut never splits an
 * escape. Returns buf. */
char *cescape_buf(const char *s, char *buf, size_t size);
/* malloc'd, or NULL on OOM. */
char *cescape(const char *s);
/* Whether s needs no escaping (printable ASCII other than \ and "). */
bool string_is_safe(const char *s);

/* For functions that refuse with a sentence: replaces *ret_why (if
 * ret_why) with the formatted text and returns r. */
int set_why(char **ret_why, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* What status shows for a failed source, replacing what *slot held; %m is
 * error (a negative or positive errno). Out of memory leaves none. */
void set_source_error(char **slot, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
