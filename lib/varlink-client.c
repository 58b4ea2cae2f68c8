/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Blocking varlink client: one call at a time, or one "more" call whose
 * replies are read as they come. Enough for numastatctl and the tests. */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "macro.h"
#include "time-util.h"
#include "varlink-client.h"

#define CLIENT_BUFFER_MAX (16U * 1024U * 1024U)

struct VarlinkClient {
        int fd;
        uint64_t timeout_usec;
        char *in;
        size_t in_len, in_alloc;
        char *error_id;
};

int varlink_client_connect_address(VarlinkClient **ret, const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_close_ int fd = -1;
        VarlinkClient *c;

        if (strlen(path) >= sizeof sa.sun_path)
                return -ENAMETOOLONG;
        strcpy(sa.sun_path, path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                return -errno;
        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        c->fd = TAKE_FD(fd);
        c->timeout_usec = 30 * USEC_PER_SEC;
        *ret = c;
        return 0;
}

VarlinkClient *varlink_client_free(VarlinkClient *c) {
        if (!c)
                return NULL;
        if (c->fd >= 0)
                close(c->fd);
        free(c->in);
        free(c->error_id);
        free(c);
        return NULL;
}

void varlink_client_set_timeout(VarlinkClient *c, uint64_t usec) {
        c->timeout_usec = usec;
}

/* Waits until fd is ready for events, or the deadline (0: none) passes. */
static int client_poll(int fd, short events, uint64_t deadline) {
        struct pollfd p = { .fd = fd, .events = events };
        int timeout_ms = -1, r;

        if (deadline) {
                uint64_t now = now_usec(CLOCK_MONOTONIC);
                if (now >= deadline)
                        return -ETIMEDOUT;
                timeout_ms = (int) ((deadline - now + 999) / 1000);
        }
        r = poll(&p, 1, timeout_ms);
        if (r < 0)
                return errno == EINTR ? 0 : -errno;
        if (r == 0)
                return -ETIMEDOUT;
        return 1;
}

static uint64_t client_deadline(const VarlinkClient *c) {
        return c->timeout_usec ? now_usec(CLOCK_MONOTONIC) + c->timeout_usec : 0;
}

int varlink_client_send(VarlinkClient *c, const char *method, json_object *parameters,
                        VarlinkMethodFlags flags) {
        _cleanup_json_ json_object *m = json_object_new_object();
        uint64_t deadline = client_deadline(c);
        const char *text;
        size_t len, done = 0;

        if (!m || !method)
                return -ENOMEM;
        if (json_object_object_add(m, "method", json_object_new_string(method)) < 0 ||
            (parameters && json_object_object_add(m, "parameters", json_object_get(parameters)) < 0) ||
            ((flags & VARLINK_METHOD_MORE) &&
             json_object_object_add(m, "more", json_object_new_boolean(true)) < 0) ||
            ((flags & VARLINK_METHOD_ONEWAY) &&
             json_object_object_add(m, "oneway", json_object_new_boolean(true)) < 0))
                return -ENOMEM;

        text = varlink_message_format(m);
        if (!text)
                return -ENOMEM;
        len = strlen(text) + 1;         /* the NUL is the message separator */
        /* A daemon that stopped reading must not hang the caller: the socket
         * is non-blocking and every wait has the reply's deadline. */
        while (done < len) {
                ssize_t n = send(c->fd, text + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n < 0) {
                        int r;
                        if (errno == EINTR)
                                continue;
                        if (errno != EAGAIN)
                                return -errno;
                        r = client_poll(c->fd, POLLOUT, deadline);
                        if (r < 0)
                                return r;
                        continue;
                }
                done += n;
        }
        return 0;
}

static int client_fill(VarlinkClient *c, uint64_t deadline) {
        ssize_t n;
        int r;

        r = client_poll(c->fd, POLLIN, deadline);
        if (r <= 0)
                return r;

        if (c->in_alloc - c->in_len < 4096) {
                size_t want = c->in_alloc ? c->in_alloc * 2 : 16384;
                char *b;
                if (want > CLIENT_BUFFER_MAX)
                        return -EMSGSIZE;
                b = realloc(c->in, want);
                if (!b)
                        return -ENOMEM;
                c->in = b;
                c->in_alloc = want;
        }
        n = recv(c->fd, c->in + c->in_len, c->in_alloc - c->in_len, MSG_DONTWAIT);
        if (n < 0)
                return errno == EINTR || errno == EAGAIN ? 0 : -errno;
        if (n == 0)
                return -ECONNRESET;
        c->in_len += n;
        return 0;
}

int varlink_client_get_fd(VarlinkClient *c) {
        return c->fd;
}

int varlink_client_wait(VarlinkClient *c, json_object **ret_parameters, const char **ret_error,
                        bool *ret_continues) {
        uint64_t deadline = client_deadline(c);
        _cleanup_json_ json_object *m = NULL;
        json_object *p = NULL, *e = NULL, *cont = NULL;
        ssize_t len;
        int r;

        while ((len = varlink_frame_find(c->in, c->in_len)) == -EAGAIN) {
                r = client_fill(c, deadline);
                if (r < 0)
                        return r;
        }
        m = varlink_message_parse(c->in, (size_t) len);
        memmove(c->in, c->in + len + 1, c->in_len - len - 1);
        c->in_len -= len + 1;
        if (!m)
                return -EBADMSG;

        c->error_id = (free(c->error_id), NULL);
        if (json_object_object_get_ex(m, "error", &e)) {
                if (!json_object_is_type(e, json_type_string))
                        return -EBADMSG;
                c->error_id = strdup(json_object_get_string(e));
                if (!c->error_id)
                        return -ENOMEM;
        }
        json_object_object_get_ex(m, "parameters", &p);
        if (p && !json_object_is_type(p, json_type_object))
                return -EBADMSG;
        json_object_object_get_ex(m, "continues", &cont);

        if (ret_parameters)
                *ret_parameters = p ? json_object_get(p) : json_object_new_object();
        if (ret_error)
                *ret_error = c->error_id;
        if (ret_continues)
                *ret_continues = cont && json_object_get_boolean(cont);
        return 0;
}
