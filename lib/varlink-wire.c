/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The varlink wire format: framing and message (de)serialization. */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "varlink-wire.h"

ssize_t varlink_frame_find(const char *buf, size_t len) {
        const char *nul;

        if (len == 0)
                return -EAGAIN;         /* buf may be NULL: nothing is held */
        nul = memchr(buf, 0, len);
        return nul ? nul - buf : -EAGAIN;
}

json_object *varlink_message_parse(const char *msg, size_t len) {
        json_tokener *tok;
        json_object *o;

        tok = json_tokener_new();
        if (!tok)
                return NULL;
        o = json_tokener_parse_ex(tok, msg, (int) len);
        /* Trailing bytes after the object, or an unfinished one: not a message. */
        if (o && (json_tokener_get_error(tok) != json_tokener_success ||
                  json_tokener_get_parse_end(tok) != len)) {
                json_object_put(o);
                o = NULL;
        }
        json_tokener_free(tok);
        if (o && !json_object_is_type(o, json_type_object)) {
                json_object_put(o);
                return NULL;
        }
        return o;
}

const char *varlink_message_format(json_object *message) {
        /* Plain: no newlines inside a message; no "\/" for every slash. */
        return json_object_to_json_string_ext(message, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static bool is_alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c) {
        return is_alpha(c) || (c >= '0' && c <= '9');
}

/* One part of an interface name: [A-Za-z0-9] first (the first part: a
 * letter), then letters, digits and dashes, not ending in a dash. */
static bool interface_part_is_valid(const char *p, size_t n, bool first) {
        if (n == 0 || !(first ? is_alpha(p[0]) : is_alnum(p[0])) || p[n - 1] == '-')
                return false;
        for (size_t i = 1; i < n; i++)
                if (!is_alnum(p[i]) && p[i] != '-')
                        return false;
        return true;
}

bool varlink_method_name_is_valid(const char *s, size_t len) {
        const char *dot, *p;
        size_t parts = 0;

        if (!s || len == 0 || len > 255 || strnlen(s, len) != len)
                return false;
        dot = memrchr(s, '.', len);
        if (!dot || dot == s)
                return false;
        /* The method: an upper-case letter, then letters and digits. */
        if (dot + 1 == s + len || dot[1] < 'A' || dot[1] > 'Z')
                return false;
        for (p = dot + 2; p < s + len; p++)
                if (!is_alnum(*p))
                        return false;
        /* The interface: dot-separated parts, at least two. */
        for (p = s; p < dot;) {
                const char *end = memchr(p, '.', dot - p);
                size_t n = (end ? end : dot) - p;

                if (!interface_part_is_valid(p, n, parts == 0))
                        return false;
                parts++;
                p += n + (end ? 1 : 0);
                if (end && p == dot)
                        return false;   /* "a..b" or "a.": an empty part */
        }
        return parts >= 2;
}
