/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The varlink wire format (https://varlink.org), shared by the server and
 * the blocking client: NUL-terminated JSON objects on a stream socket, the
 * call flags and the org.varlink.service error names. Needs json-c only. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef enum VarlinkMethodFlags {
        VARLINK_METHOD_ONEWAY = 1 << 0,
        VARLINK_METHOD_MORE = 1 << 1,
} VarlinkMethodFlags;

/* The errors of the org.varlink.service interface. */
#define VARLINK_ERROR_INTERFACE_NOT_FOUND "org.varlink.service.InterfaceNotFound"
#define VARLINK_ERROR_METHOD_NOT_FOUND "org.varlink.service.MethodNotFound"
#define VARLINK_ERROR_METHOD_NOT_IMPLEMENTED "org.varlink.service.MethodNotImplemented"
#define VARLINK_ERROR_INVALID_PARAMETER "org.varlink.service.InvalidParameter"
#define VARLINK_ERROR_PERMISSION_DENIED "org.varlink.service.PermissionDenied"
#define VARLINK_ERROR_EXPECTED_MORE "org.varlink.service.ExpectedMore"
/* What sd-varlink sends when a method fails with an errno and no error of
 * its own; kept so clients see the same thing after a swap. */
#define VARLINK_ERROR_SYSTEM "io.systemd.System"

static inline void json_object_putp(json_object **j) {
        json_object_put(*j);
}
#define _cleanup_json_ __attribute__((cleanup(json_object_putp)))

/* Framing, unit-tested on its own: finds the
 * first NUL-terminated message in buf[0..len). Returns its length without
 * the NUL, or -EAGAIN if none is complete yet. */
ssize_t varlink_frame_find(const char *buf, size_t len);
/* Parses one message; returns a JSON object or NULL if it is not one. */
json_object *varlink_message_parse(const char *msg, size_t len);
/* Whether s (len bytes, NULs included) is "interface.Method": an interface
 * name of two or more dot-separated parts ([A-Za-z] then letters, digits,
 * inner dashes) and a method name ([A-Z][A-Za-z0-9]*). */
bool varlink_method_name_is_valid(const char *s, size_t len);

/* Serializes a message for the wire, without the NUL. NULL if json-c could
 * not (out of memory); the text lives as long as the object. */
const char *varlink_message_format(json_object *message);
