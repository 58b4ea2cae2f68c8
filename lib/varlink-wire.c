/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The varlink wire format: framing and message (de)serialization. */

#include <errno.h>
#include <string.h>

#include "varlink-wire.h"

ssize_t varlink_frame_find(const char *buf, size_t len) {
        const char *nul = memchr(buf, 0, len);
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
