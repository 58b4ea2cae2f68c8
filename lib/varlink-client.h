/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Blocking varlink client: one call at a time, or one "more" call whose
 * replies are read as they come. Enough for numastatctl and the tests; it
 * needs json-c only (no event loop, no libsystemd). */

#include <stdint.h>

#include "varlink-wire.h"

typedef struct VarlinkClient VarlinkClient;

int varlink_client_connect_address(VarlinkClient **ret, const char *path);
VarlinkClient *varlink_client_free(VarlinkClient *c);
void varlink_client_set_timeout(VarlinkClient *c, uint64_t usec); /* per reply; 0: none */
/* The connection's socket, to poll on beside other fds. */
int varlink_client_get_fd(VarlinkClient *c);
/* Sends a call. flags: VARLINK_METHOD_MORE / _ONEWAY. parameters may be NULL. */
int varlink_client_send(VarlinkClient *c, const char *method, json_object *parameters,
                        VarlinkMethodFlags flags);
/* Waits for the next reply. *ret_parameters (owned by the caller) is the
 * reply's parameters object; *ret_error the error id or NULL (valid until
 * the next call); *ret_continues whether more replies follow.
 * -ETIMEDOUT, -ECONNRESET (peer closed), -EBADMSG (not varlink). */
int varlink_client_wait(VarlinkClient *c, json_object **ret_parameters, const char **ret_error,
                        bool *ret_continues);
/* send + wait, for single-reply calls: the same over either implementation. */
static inline int varlink_client_call(VarlinkClient *c, const char *method, json_object *parameters,
                                      json_object **ret_parameters, const char **ret_error) {
        int r = varlink_client_send(c, method, parameters, 0);
        if (r < 0)
                return r;
        return varlink_client_wait(c, ret_parameters, ret_error, NULL);
}

static inline void varlink_client_freep(VarlinkClient **c) {
        varlink_client_free(*c);
}
