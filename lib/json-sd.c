/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json-sd.h"
#include "macro.h"
#include "strutil.h"

int json_c_to_sd_json(json_object *o, sd_json_variant **ret, size_t *ret_len) {
        const char *text;

        *ret = NULL;
        if (ret_len)
                *ret_len = sizeof "{}";
        if (!o)
                return 0;
        text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        if (!text)
                return -ENOMEM;
        if (ret_len)
                *ret_len = strlen(text) + 1;
        return sd_json_parse(text, 0, ret, NULL, NULL);
}

/* sd-json prints a double with all 21 digits (9.910350012917855666572e-01),
 * and json-c keeps a parsed number's text: each goes back to the shortest
 * form that reads the same, as the daemon sent it. */
static int shortest_doubles(json_object *o) {
        char buf[32];
        char *text;
        size_t n;
        int r;

        switch (json_object_get_type(o)) {
        case json_type_double:
                r = format_double_shortest(json_object_get_double(o), buf, sizeof buf);
                if (r < 0)
                        return r;
                text = strdup(buf);
                if (!text)
                        return -ENOMEM;
                json_object_set_serializer(o, json_object_userdata_to_json_string, text, json_object_free_userdata);
                return 0;
        case json_type_object:
                json_object_object_foreach(o, key, value) {
                        (void) key;
                        r = shortest_doubles(value);
                        if (r < 0)
                                return r;
                }
                return 0;
        case json_type_array:
                n = json_object_array_length(o);
                for (size_t i = 0; i < n; i++) {
                        r = shortest_doubles(json_object_array_get_idx(o, i));
                        if (r < 0)
                                return r;
                }
                return 0;
        default:
                return 0;
        }
}

int sd_json_to_json_c(sd_json_variant *v, json_object **ret) {
        _cleanup_free_ char *text = NULL;
        int r;

        if (!v) {
                *ret = json_object_new_object();
                return *ret ? 0 : -ENOMEM;
        }
        if (!sd_json_variant_is_object(v))
                return -EBADMSG;
        r = sd_json_variant_format(v, 0, &text);
        if (r < 0)
                return r;
        *ret = varlink_message_parse(text, strlen(text));
        if (!*ret)
                return -EBADMSG;
        r = shortest_doubles(*ret);
        if (r < 0)
                *ret = (json_object_put(*ret), NULL);
        return r;
}
