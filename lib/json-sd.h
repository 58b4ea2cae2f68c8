/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* json-c objects, which the service and numastatctl use, to and from
 * sd-json variants, which sd-varlink takes (libsystemd >= 257). They cross
 * as text: a printed object is the one form both libraries agree on. */

#include <systemd/sd-json.h>

#include "varlink-wire.h"

/* *ret is NULL for a NULL o. *ret_len (if not NULL): the printed text's
 * length with its NUL, what it will take on the wire. */
int json_c_to_sd_json(json_object *o, sd_json_variant **ret, size_t *ret_len);
/* An object (an empty one for NULL), its doubles printed in the shortest
 * form that reads back the same. -EBADMSG for anything but an object. */
int sd_json_to_json_c(sd_json_variant *v, json_object **ret);
