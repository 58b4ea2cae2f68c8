/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The varlink server fed arbitrary bytes on a socketpair: the frame
 * splitter (the input arrives cut where its first byte says), the message
 * parser, the dispatch to methods and to org.varlink.service, and the
 * replies, with a method that answers, one that streams, one that stays
 * open and one that fails. */
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "log.h"
#include "varlink-server.h"

static const char interface[] =
        "interface org.example.fuzz\n"
        "method Echo(value: ?string) -> (value: ?string)\n"
        "method Stream(n: int) -> (i: int)\n"
        "method Subscribe() -> ()\n"
        "method Fail() -> ()\n";

static int method_echo(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        return varlink_reply(link, p);
}

static int method_stream(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        json_object *n_j = NULL;
        int n;

        if (!(flags & VARLINK_METHOD_MORE))
                return varlink_error(link, VARLINK_ERROR_EXPECTED_MORE, NULL);
        if (!json_object_object_get_ex(p, "n", &n_j) || !json_object_is_type(n_j, json_type_int))
                return varlink_error_invalid_parameter(link, "n");
        n = json_object_get_int(n_j);
        for (int i = 0; i < n && i < 8; i++)
                if (i + 1 < n && i + 1 < 8)
                        varlink_notify(link, NULL);
                else
                        varlink_reply(link, NULL);
        return 0;
}

static int method_subscribe(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        return varlink_notify(link, NULL);
}

static int method_fail(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        return -EIO;
}

/* What the server wrote: every frame it ends with a NUL must be a JSON
 * object made of varlink's reply keys, whatever the input was. */
typedef struct Replies {
        char frame[65536];
        size_t n;
        unsigned answers, errors;
} Replies;

static void check_frame(Replies *o) {
        json_object *j = json_tokener_parse(o->frame), *v;

        if (!j || !json_object_is_type(j, json_type_object))
                abort();
        json_object_object_foreach(j, key, val) {
                (void) val;
                if (strcmp(key, "parameters") != 0 && strcmp(key, "error") != 0 && strcmp(key, "continues") != 0)
                        abort();
        }
        if (json_object_object_get_ex(j, "error", &v)) {
                if (!json_object_is_type(v, json_type_string) || !strchr(json_object_get_string(v), '.'))
                        abort();
                o->errors++;
        } else
                o->answers++;
        json_object_put(j);
}

static void drain(int fd, Replies *o) {
        char buf[65536];
        ssize_t k;

        while ((k = read(fd, buf, sizeof buf)) > 0)
                for (ssize_t i = 0; i < k; i++) {
                        if (o->n == sizeof o->frame - 1)
                                abort();        /* a reply larger than any the server may write */
                        o->frame[o->n++] = buf[i];
                        if (buf[i] == '\0') {
                                check_frame(o);
                                o->n = 0;
                        }
                }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        VarlinkServer *server = NULL;
        sd_event *event = NULL;
        size_t chunk, off = 0;
        int sv[2];
        static Replies out;

        out = (Replies) {};
        log_set_max_level(LOG_CRIT);
        if (sd_event_new(&event) < 0 || varlink_server_new(&server) < 0)
                abort();
        varlink_server_set_buffer_max(server, 4096);
        /* The call budget paces by the clock (test-varlink checks it): as
         * any uid, the same input gets the same verdict. */
        varlink_server_set_calls_max(server, 0, 0, 0, 0);
        varlink_server_add_interface(server, interface, NULL);
        varlink_server_bind_method(server, "org.example.fuzz.Echo", method_echo);
        varlink_server_bind_method(server, "org.example.fuzz.Stream", method_stream);
        varlink_server_bind_method(server, "org.example.fuzz.Subscribe", method_subscribe);
        varlink_server_bind_method(server, "org.example.fuzz.Fail", method_fail);
        varlink_server_attach_event(server, event, 0);
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
                abort();
        if (varlink_server_add_connection(server, sv[0], NULL) < 0)
                abort();

        /* The first byte says how the rest arrives: in chunks of 1..256. */
        chunk = size > 0 ? (size_t) data[0] + 1 : 1;
        if (size > 0)
                data++, size--;
        while (off < size) {
                size_t n = size - off < chunk ? size - off : chunk;
                if (send(sv[1], data + off, n, MSG_NOSIGNAL) < 0)
                        break;          /* the server closed: done */
                off += n;
                for (int i = 0; i < 4 && sd_event_run(event, 0) > 0; i++)
                        drain(sv[1], &out);
        }
        shutdown(sv[1], SHUT_WR);
        for (int i = 0; i < 16 && sd_event_run(event, 0) > 0; i++)
                drain(sv[1], &out);
        drain(sv[1], &out);
        close(sv[1]);
        fuzz_verdict(out.answers > 0);  /* accepted: at least one call answered without an error */
        varlink_server_shutdown(server);
        varlink_server_unref(server);
        sd_event_unref(event);
        return 0;
}
