/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The varlink client on systemd's own sd-varlink (libsystemd >= 257): the
 * interface of varlink-client.h, which varlink-client.c implements by hand
 * for older libsystemd (configure picks one). Parameters cross between
 * json-c, which the rest of numastatctl uses, and sd-json as text
 * (json-sd.c). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <systemd/sd-json.h>
#include <systemd/sd-varlink.h>

#include "json-sd.h"
#include "macro.h"
#include "strutil.h"
#include "time-util.h"
#include "varlink-client.h"

struct VarlinkClient {
        sd_varlink *link;
        uint64_t timeout_usec;  /* 0: none */
        /* The reply on_reply took, until varlink_client_wait hands it on. */
        bool have_reply;
        int reply_errno;        /* negative: the connection failed instead */
        json_object *reply;
        char *error_id;
        bool continues;
};

/* sd-varlink reports its own failures as errors of the reply: they are the
 * errnos the hand-written client returns. */
static int local_error_to_errno(const char *error_id) {
        if (!error_id)
                return 0;
        if (streq(error_id, SD_VARLINK_ERROR_TIMEOUT))
                return -ETIMEDOUT;
        if (streq(error_id, SD_VARLINK_ERROR_DISCONNECTED))
                return -ECONNRESET;
        if (streq(error_id, SD_VARLINK_ERROR_PROTOCOL))
                return -EBADMSG;
        return 0;
}

static int on_reply(sd_varlink *link, sd_json_variant *parameters, const char *error_id,
                    sd_varlink_reply_flags_t flags, void *userdata) {
        VarlinkClient *c = userdata;
        int r;

        c->have_reply = true;
        c->reply_errno = local_error_to_errno(error_id);
        if (c->reply_errno < 0)
                return 0;
        c->continues = flags & SD_VARLINK_REPLY_CONTINUES;
        if (error_id) {
                c->error_id = strdup(error_id);
                if (!c->error_id) {
                        c->reply_errno = -ENOMEM;
                        return 0;
                }
        }
        r = sd_json_to_json_c(parameters, &c->reply);
        if (r < 0)
                c->reply_errno = r;
        return 0;
}

int varlink_client_connect_address(VarlinkClient **ret, const char *path) {
        VarlinkClient *c;
        int r;

        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        r = sd_varlink_connect_address(&c->link, path);
        if (r >= 0)
                r = sd_varlink_bind_reply(c->link, on_reply);
        if (r < 0) {
                varlink_client_free(c);
                return r;
        }
        sd_varlink_set_userdata(c->link, c);
        varlink_client_set_timeout(c, 30 * USEC_PER_SEC);
        *ret = c;
        return 0;
}

static void client_clear_reply(VarlinkClient *c) {
        c->have_reply = false;
        c->reply_errno = 0;
        c->continues = false;
        if (c->reply)
                json_object_put(c->reply);
        c->reply = NULL;
        c->error_id = (free(c->error_id), NULL);
}

VarlinkClient *varlink_client_free(VarlinkClient *c) {
        if (!c)
                return NULL;
        sd_varlink_close_unref(c->link);
        client_clear_reply(c);
        free(c);
        return NULL;
}

void varlink_client_set_timeout(VarlinkClient *c, uint64_t usec) {
        c->timeout_usec = usec;
        (void) sd_varlink_set_relative_timeout(c->link, usec ? usec : UINT64_MAX);
}

int varlink_client_get_fd(VarlinkClient *c) {
        return sd_varlink_get_fd(c->link);
}

static int client_flush(VarlinkClient *c) {
        uint64_t deadline = c->timeout_usec ? now_usec(CLOCK_MONOTONIC) + c->timeout_usec : 0;
        int r;

        for (;;) {
                uint64_t now = now_usec(CLOCK_MONOTONIC);

                r = sd_varlink_get_events(c->link);
                if (r < 0)
                        return r;
                if (!(r & EPOLLOUT))
                        return 0;

                r = sd_varlink_process(c->link);
                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                if (deadline && now >= deadline)
                        return -ETIMEDOUT;
                r = sd_varlink_wait(c->link, deadline ? deadline - now : UINT64_MAX);
                if (r < 0)
                        return r;
        }
}

int varlink_client_send(VarlinkClient *c, const char *method, json_object *parameters,
                        VarlinkMethodFlags flags) {
        sd_json_variant *p = NULL;
        int r;

        r = json_c_to_sd_json(parameters, &p, NULL);
        if (r < 0)
                return r;
        if (flags & VARLINK_METHOD_MORE)
                r = sd_varlink_observe(c->link, method, p);
        else if (flags & VARLINK_METHOD_ONEWAY)
                r = sd_varlink_send(c->link, method, p);
        else
                r = sd_varlink_invoke(c->link, method, p);
        sd_json_variant_unref(p);
        if (r < 0 || !(flags & VARLINK_METHOD_ONEWAY))
                return r < 0 ? r : 0;
        /* No reply will write a one-way call out: written now, within the
         * timeout (sd_varlink_flush would wait without one). */
        return client_flush(c);
}

int varlink_client_wait(VarlinkClient *c, json_object **ret_parameters, const char **ret_error,
                        bool *ret_continues) {
        int r;

        /* The previous reply's error id was valid until now. */
        client_clear_reply(c);
        while (!c->have_reply) {
                r = sd_varlink_process(c->link);
                if (r == -ENOTCONN)
                        return -ECONNRESET;
                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                r = sd_varlink_wait(c->link, UINT64_MAX);
                if (r < 0)
                        return r;
        }
        if (c->reply_errno < 0)
                return c->reply_errno;

        if (ret_parameters)
                *ret_parameters = TAKE_PTR(c->reply);
        if (ret_error)
                *ret_error = c->error_id;
        if (ret_continues)
                *ret_continues = c->continues;
        c->have_reply = false;
        return 0;
}
