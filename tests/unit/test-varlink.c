/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The varlink protocol layer on socketpairs: framing across reads,
 * pipelining, limits, malformed input, the org.varlink.service methods. */

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "tap.h"
#include "time-util.h"
#include "varlink-client.h"
#include "varlink-server.h"

/* tests/unit/example.varlink, as text (test-varlink-interface.h) and,
 * for the server on sd-varlink, compiled (test-varlink-interface-sd.c). */
#include "test-varlink-interface.h"
#ifdef VARLINK_TEST_SD
#include <systemd/sd-varlink-idl.h>
extern const sd_varlink_interface vl_interface_org_example_test;
#define TEST_INTERFACE_COMPILED (&vl_interface_org_example_test)
#else
#define TEST_INTERFACE_COMPILED NULL
#endif

/* Where sd-varlink's protocol choices differ from the hand-written
 * server's, test-varlink-sd checks sd-varlink's (README, "Hand-written"). */
#ifdef VARLINK_TEST_SD
#define SD 1
#else
#define SD 0
#endif

typedef struct Ctx {
        sd_event *event;
        VarlinkServer *server;
        unsigned disconnects;
} Ctx;

static unsigned echo_calls;     /* Echo calls served, to count them per loop turn */
static unsigned echo_calls_not_root;
static bool echo_prepared;      /* answer with varlink_reply_send() */

static int method_echo(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        _cleanup_json_ json_object *r = json_object_new_object();
        _cleanup_(varlink_reply_unrefp) VarlinkReply *prepared = NULL;
        json_object *v = NULL;
        uid_t uid;

        echo_calls++;
        if (varlink_get_peer_uid(link, &uid) >= 0 && uid != 0)
                echo_calls_not_root++;
        if (json_object_object_get_ex(p, "value", &v))
                json_object_object_add(r, "value", json_object_get(v));
        json_object_object_add(r, "n_params", json_object_new_int(json_object_object_length(p)));
        if (!echo_prepared)
                return varlink_reply(link, r);
        if (varlink_reply_new(r, &prepared) < 0)
                return -ENOMEM;
        return varlink_reply_send(link, prepared);
}

static int method_stream(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        json_object *n_j = NULL;
        int n;
        if (!(flags & VARLINK_METHOD_MORE))
                return varlink_error(link, VARLINK_ERROR_EXPECTED_MORE, NULL);
        if (!json_object_object_get_ex(p, "n", &n_j))
                return varlink_error_invalid_parameter(link, "n");
        n = json_object_get_int(n_j);
        for (int i = 0; i < n; i++) {
                _cleanup_json_ json_object *r = json_object_new_object();
                json_object_object_add(r, "i", json_object_new_int(i));
                if (i + 1 < n)
                        varlink_notify(link, r);
                else
                        varlink_reply(link, r);
        }
        return 0;
}

/* Like a Monitor: one reply now, the call stays open for more. */
static int method_subscribe(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        if (!(flags & VARLINK_METHOD_MORE))
                return varlink_error(link, VARLINK_ERROR_EXPECTED_MORE, NULL);
        return varlink_notify(link, NULL);
}

static int method_fail(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        return -EIO;
}

static void on_disconnect(VarlinkServer *s, Varlink *link, void *userdata) {
        ((Ctx *) userdata)->disconnects++;
}

static void ctx_init(Ctx *c) {
        memset(c, 0, sizeof *c);
        sd_event_new(&c->event);
        varlink_server_new(&c->server);
        varlink_server_set_userdata(c->server, c);
        varlink_server_set_info(c->server, "vendor", "product", "1.0", "https://example.org");
        varlink_server_add_interface(c->server, test_interface, TEST_INTERFACE_COMPILED);
        varlink_server_bind_method(c->server, "org.example.test.Echo", method_echo);
        varlink_server_bind_method(c->server, "org.example.test.Stream", method_stream);
        varlink_server_bind_method(c->server, "org.example.test.Fail", method_fail);
        varlink_server_bind_method(c->server, "org.example.test.Subscribe", method_subscribe);
        varlink_server_bind_disconnect(c->server, on_disconnect);
        varlink_server_attach_event(c->server, c->event, 0);
}

static void ctx_done(Ctx *c) {
        varlink_server_shutdown(c->server);
        varlink_server_unref(c->server);
        sd_event_unref(c->event);
}

/* A client end connected to the server (its server side in *ret_link). */
static int connect_client_link(Ctx *c, Varlink **ret_link) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
                abort();
        if (varlink_server_add_connection(c->server, sv[0], ret_link) < 0) {
                close(sv[0]);
                close(sv[1]);
                return -1;
        }
        return sv[1];
}

static int connect_client(Ctx *c) {
        return connect_client_link(c, NULL);
}

static void send_raw(int fd, const void *data, size_t len) {
        if (write(fd, data, len) != (ssize_t) len)
                abort();
}

static void send_msg(int fd, const char *json) {
        send_raw(fd, json, strlen(json) + 1);
}

typedef struct Replies {
        char *buf;
        size_t len;
        unsigned n;
        bool eof;
} Replies;

static void replies_free(Replies *r) {
        free(r->buf);
        memset(r, 0, sizeof *r);
}

/* Runs the server loop until want replies arrived on fd, EOF, or 2 s. */
static void collect(Ctx *c, int fd, unsigned want, Replies *r) {
        struct timespec start, now;
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
                char b[65536];
                ssize_t n;

                sd_event_run(c->event, 10 * 1000);
                while ((n = read(fd, b, sizeof b)) > 0) {
                        r->buf = realloc(r->buf, r->len + n + 1);
                        memcpy(r->buf + r->len, b, n);
                        r->len += n;
                        for (ssize_t i = 0; i < n; i++)
                                if (b[i] == 0)
                                        r->n++;
                }
                if (n == 0) {
                        r->eof = true;
                        return;
                }
                if (want && r->n >= want)
                        return;
                clock_gettime(CLOCK_MONOTONIC, &now);
                if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 > (want ? 2000 : 300))
                        return;
        }
}

/* The i-th reply as JSON (caller puts it). */
static json_object *reply_at(Replies *r, unsigned i) {
        size_t off = 0;
        for (unsigned k = 0; k < i; k++)
                off += strlen(r->buf + off) + 1;
        if (off >= r->len)
                return NULL;
        return json_tokener_parse(r->buf + off);
}

static const char *get_path(json_object *o, const char *a, const char *b) {
        json_object *x = NULL, *y = NULL;
        if (!o || !json_object_object_get_ex(o, a, &x))
                return NULL;
        if (!b)
                return json_object_get_string(x);
        if (!json_object_object_get_ex(x, b, &y))
                return NULL;
        return json_object_get_string(y);
}

/* Collects one reply on fd and checks it is the error error_id (named, in the
 * check's name, by its last part); with parameter, that it names that
 * parameter. */
static void expect_error(Ctx *c, int fd, const char *error_id, const char *parameter, const char *what) {
        Replies r = {};
        json_object *o;
        char name[256];

        collect(c, fd, 1, &r);
        o = reply_at(&r, 0);
        snprintf(name, sizeof name, "%s: %s", what, strrchr(error_id, '.') + 1);
        is_str(get_path(o, "error", NULL), error_id, name);
        if (parameter)
                is_str(get_path(o, "parameters", "parameter"), parameter, "  naming the parameter");
        json_object_put(o);
        replies_free(&r);
}

static void run_for(Ctx *c, unsigned ms) {
        uint64_t end = now_usec(CLOCK_MONOTONIC) + ms * USEC_PER_MSEC;
        while (now_usec(CLOCK_MONOTONIC) < end)
                sd_event_run(c->event, 10 * USEC_PER_MSEC);
}

static void test_split_message(void) {
        Ctx c;
        Replies r = {};
        const char *msg = "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"value\":\"split\"}}";
        ctx_init(&c);
        int fd = connect_client(&c);

        send_raw(fd, msg, 10);
        collect(&c, fd, 0, &r);
        is_int(r.n, 0, "half a message: no reply yet");
        send_raw(fd, msg + 10, strlen(msg) - 10);
        collect(&c, fd, 0, &r);
        is_int(r.n, 0, "whole text without NUL: still no reply");
        send_raw(fd, "", 1);
        collect(&c, fd, 1, &r);
        is_int(r.n, 1, "NUL completes the message: one reply");
        json_object *j = reply_at(&r, 0);
        is_str(get_path(j, "parameters", "value"), "split", "reply carries the parameter");
        json_object_put(j);
        replies_free(&r);
        close(fd);
        ctx_done(&c);
}

static void test_pipelined(void) {
        Ctx c;
        Replies r = {};
        char buf[1024];
        size_t len = 0;
        ctx_init(&c);
        int fd = connect_client(&c);

        /* Three calls in one write, and a streaming call in between. */
        const char *calls[] = {
                "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"value\":\"one\"}}",
                "{\"method\":\"org.example.test.Stream\",\"parameters\":{\"n\":3},\"more\":true}",
                "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"value\":\"two\"},\"oneway\":true}",
                "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"value\":\"three\"}}",
        };
        for (size_t i = 0; i < ELEMENTSOF(calls); i++) {
                memcpy(buf + len, calls[i], strlen(calls[i]) + 1);
                len += strlen(calls[i]) + 1;
        }
        send_raw(fd, buf, len);
        collect(&c, fd, 5, &r);
        is_int(r.n, 5, "1 + 3 streamed + 1 replies (the oneway call gets none)");
        const char *expect_value[] = { "one", NULL, NULL, NULL, "three" };
        for (unsigned i = 0; i < 5 && i < r.n; i++) {
                json_object *j = reply_at(&r, i), *cont = NULL;
                char name[64];
                snprintf(name, sizeof name, "reply %u in call order", i);
                if (expect_value[i])
                        is_str(get_path(j, "parameters", "value"), expect_value[i], name);
                else {
                        char want[4];
                        snprintf(want, sizeof want, "%u", i - 1);
                        is_str(get_path(j, "parameters", "i"), want, name);
                        bool continues = json_object_object_get_ex(j, "continues", &cont) &&
                                         json_object_get_boolean(cont);
                        ok(continues == (i < 3), "continues set on all but the last streamed reply");
                }
                json_object_put(j);
        }
        replies_free(&r);
        close(fd);
        ctx_done(&c);
}

/* Replies waiting on fd, counted (the fd is non-blocking). */
static unsigned drain_replies(int fd) {
        unsigned n = 0;
        char b[65536];
        ssize_t k;

        while ((k = read(fd, b, sizeof b)) > 0)
                for (ssize_t i = 0; i < k; i++)
                        n += b[i] == 0;
        return n;
}

/* A peer pipelining many calls in one send takes a few a loop turn, and
 * another peer's call is answered in between: no one takes the loop. */
static void test_calls_per_turn(void) {
        const char *call = "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"value\":\"p\"}}";
        const unsigned pipelined = 40;
        unsigned most = 0, a_replies = 0, b_replies = 0, a_before_b = pipelined;
        char buf[4096];
        size_t len = 0;
        Ctx c;

        ctx_init(&c);
        int a = connect_client(&c), b = connect_client(&c);
        for (unsigned i = 0; i < pipelined; i++) {
                memcpy(buf + len, call, strlen(call) + 1);
                len += strlen(call) + 1;
        }
        send_raw(a, buf, len);
        send_msg(b, "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"value\":\"b\"}}");
        for (unsigned turn = 0; turn < 10000 && (a_replies < pipelined || b_replies < 1); turn++) {
                unsigned before = echo_calls;

                sd_event_run(c.event, 10 * USEC_PER_MSEC);
                if (echo_calls - before > most)
                        most = echo_calls - before;
                a_replies += drain_replies(a);
                if (!b_replies && (b_replies = drain_replies(b)))
                        a_before_b = a_replies;
        }
        is_int(a_replies, pipelined, "40 calls in one send: all answered");
        ok(most <= 4, "  at most 4 a loop turn (%u)", most);
        ok(b_replies == 1 && a_before_b < pipelined,
           "  another peer's call answered in between (after %u of them)", a_before_b);

        /* Oneway calls get no reply to resume the input from: the rest
         * are still taken, and the call after them answered. */
        const char *oneway = "{\"method\":\"org.example.test.Echo\",\"parameters\":{},\"oneway\":true}";
        unsigned served = echo_calls;
        len = 0;
        for (unsigned i = 0; i < pipelined; i++) {
                memcpy(buf + len, oneway, strlen(oneway) + 1);
                len += strlen(oneway) + 1;
        }
        memcpy(buf + len, call, strlen(call) + 1);
        len += strlen(call) + 1;
        send_raw(a, buf, len);
        a_replies = 0;
        for (unsigned turn = 0; turn < 10000 && a_replies < 1; turn++) {
                sd_event_run(c.event, 10 * USEC_PER_MSEC);
                a_replies += drain_replies(a);
        }
        ok(a_replies == 1 && echo_calls - served == pipelined + 1,
           "40 oneway calls, then a call: all taken, the last answered (%u taken)", echo_calls - served);
        close(a);
        close(b);
        ctx_done(&c);
}

static void test_parameters_forms(void) {
        Ctx c;
        Replies r = {};
        ctx_init(&c);
        int fd = connect_client(&c);

        send_msg(fd, "{\"method\":\"org.example.test.Echo\"}");
        send_msg(fd, "{\"method\":\"org.example.test.Echo\",\"parameters\":null}");
        send_msg(fd, "{\"method\":\"org.example.test.Echo\",\"parameters\":{}}");
        collect(&c, fd, 3, &r);
        is_int(r.n, 3, "three replies");
        for (unsigned i = 0; i < 3; i++) {
                json_object *j = reply_at(&r, i);
                is_str(get_path(j, "parameters", "n_params"), "0", "missing, null and {} parameters are the same");
                ok(!get_path(j, "error", NULL), "and no error");
                json_object_put(j);
        }
        replies_free(&r);
        close(fd);
        ctx_done(&c);
}

static void test_errors(void) {
        Ctx c;
        Replies r = {};
        ctx_init(&c);
        int fd = connect_client(&c);

        send_msg(fd, "{\"method\":\"org.example.test.Nope\"}");
        send_msg(fd, "{\"method\":\"org.example.other.Echo\"}");
        send_msg(fd, "{\"method\":\"org.varlink.service.Nope\"}");
        send_msg(fd, "{\"method\":\"org.example.test.Fail\"}");
        send_msg(fd, "{\"method\":\"org.example.test.Stream\",\"parameters\":{\"n\":1}}");
        collect(&c, fd, 5, &r);
        is_int(r.n, 5, "five error replies");
        static const char *const errors[] = {
                VARLINK_ERROR_METHOD_NOT_FOUND,
                /* sd-varlink does not tell a missing interface from a missing method */
                SD ? VARLINK_ERROR_METHOD_NOT_FOUND : VARLINK_ERROR_INTERFACE_NOT_FOUND,
                VARLINK_ERROR_METHOD_NOT_FOUND,
                VARLINK_ERROR_SYSTEM,
                VARLINK_ERROR_EXPECTED_MORE,
        };
        for (unsigned i = 0; i < 5 && i < r.n; i++) {
                json_object *j = reply_at(&r, i);
                is_str(get_path(j, "error", NULL), errors[i], errors[i]);
                if (i == 0)
                        is_str(get_path(j, "parameters", "method"), "org.example.test.Nope", "names the method");
                if (i == 1 && SD)
                        is_str(get_path(j, "parameters", "method"), "org.example.other.Echo", "names the method");
                else if (i == 1)
                        is_str(get_path(j, "parameters", "interface"), "org.example.other", "names the interface");
                if (i == 3)
                        is_str(get_path(j, "parameters", "errno"), "5", "carries the errno");
                json_object_put(j);
        }
        ok(!r.eof, "errors do not disconnect");
        replies_free(&r);
        close(fd);
        ctx_done(&c);
}

static void test_service_interface(void) {
        Ctx c;
        Replies r = {};
        ctx_init(&c);
        int fd = connect_client(&c);

        send_msg(fd, "{\"method\":\"org.varlink.service.GetInfo\"}");
        send_msg(fd, "{\"method\":\"org.varlink.service.GetInterfaceDescription\",\"parameters\":{\"interface\":\"org.example.test\"}}");
        send_msg(fd, "{\"method\":\"org.varlink.service.GetInterfaceDescription\",\"parameters\":{\"interface\":\"org.varlink.service\"}}");
        send_msg(fd, "{\"method\":\"org.varlink.service.GetInterfaceDescription\",\"parameters\":{\"interface\":\"x.y\"}}");
        send_msg(fd, "{\"method\":\"org.varlink.service.GetInterfaceDescription\"}");
        collect(&c, fd, 5, &r);
        is_int(r.n, 5, "five replies");

        json_object *j = reply_at(&r, 0), *p = NULL, *ifaces = NULL;
        is_str(get_path(j, "parameters", "product"), "product", "GetInfo product");
        is_str(get_path(j, "parameters", "version"), "1.0", "GetInfo version");
        json_object_object_get_ex(j, "parameters", &p);
        json_object_object_get_ex(p, "interfaces", &ifaces);
        if (SD) {
                /* sorted, and with io.systemd, whose errors sd-varlink sends */
                is_int(json_object_array_length(ifaces), 3, "three interfaces listed");
                is_str(json_object_get_string(json_object_array_get_idx(ifaces, 0)), "io.systemd", "io.systemd");
                is_str(json_object_get_string(json_object_array_get_idx(ifaces, 1)), "org.example.test", "ours");
                is_str(json_object_get_string(json_object_array_get_idx(ifaces, 2)), "org.varlink.service", "the service");
        } else {
                is_int(json_object_array_length(ifaces), 2, "two interfaces listed");
                is_str(json_object_get_string(json_object_array_get_idx(ifaces, 0)), "org.varlink.service", "service first");
                is_str(json_object_get_string(json_object_array_get_idx(ifaces, 1)), "org.example.test", "then ours");
        }
        json_object_put(j);

        j = reply_at(&r, 1);
        if (SD) {
                /* sd-varlink prints the compiled interface its own way */
                const char *d = get_path(j, "parameters", "description");
                ok(d && strstr(d, "# A test interface.\ninterface org.example.test\n") && strstr(d, "method Echo(") &&
                           strstr(d, "method Subscribe("),
                   "description is the interface, comment included");
        } else
                is_str(get_path(j, "parameters", "description"), test_interface, "description is the interface text");
        json_object_put(j);
        j = reply_at(&r, 2);
        ok(get_path(j, "parameters", "description") &&
                   strstr(get_path(j, "parameters", "description"), "interface org.varlink.service"),
           "org.varlink.service describes itself");
        json_object_put(j);
        j = reply_at(&r, 3);
        is_str(get_path(j, "error", NULL), VARLINK_ERROR_INTERFACE_NOT_FOUND, "unknown interface");
        json_object_put(j);
        j = reply_at(&r, 4);
        is_str(get_path(j, "error", NULL), VARLINK_ERROR_INVALID_PARAMETER, "missing interface parameter");
        is_str(get_path(j, "parameters", "parameter"), "interface", "names it");
        json_object_put(j);
        replies_free(&r);
        close(fd);
        ctx_done(&c);
}

static void test_disconnects(void) {
        static const struct {
                const char *name;
                const char *data;
                size_t len;
        } bad[] = {
                { "malformed JSON", "{nope", 6 },
                { "not an object", "[1,2]", 6 },
                { "no method", "{\"parameters\":{}}", 18 },
                { "method without interface", "{\"method\":\"Echo\"}", 18 },
                { "parameters not an object", "{\"method\":\"a.B\",\"parameters\":3}", 32 },
                { "oneway and more together", "{\"method\":\"a.B\",\"oneway\":true,\"more\":true}", 43 },
                { "trailing bytes after the object", "{\"method\":\"a.B\"}x", 18 },
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                Ctx c;
                Replies r = {};
                ctx_init(&c);
                int fd = connect_client(&c);
                send_raw(fd, bad[i].data, bad[i].len);
                if (SD && strcmp(bad[i].name, "method without interface") == 0) {
                        /* sd-varlink looks the name up, finds none. */
                        expect_error(&c, fd, VARLINK_ERROR_METHOD_NOT_FOUND, NULL, bad[i].name);
                        close(fd);
                        ctx_done(&c);
                        continue;
                }
                collect(&c, fd, 0, &r);
                ok(r.eof && r.n == 0, "%s: disconnected without reply", bad[i].name);
                is_int(varlink_server_current_connections(c.server), 0, "connection released");
                replies_free(&r);
                close(fd);
                ctx_done(&c);
        }
}

static void test_limits(void) {
        Ctx c;
        Replies r = {}, r2 = {};
        char big[3000];
        ctx_init(&c);
        varlink_server_set_buffer_max(c.server, 1024);

        int slow = connect_client(&c);
        int flood = connect_client(&c);
        int good = connect_client(&c);

        /* A client that sent half a message does not stall the others. Both
         * servers: sd-varlink is handed only whole messages within the limit. */
        send_raw(slow, "{\"method\":", 10);
        memset(big, 'x', sizeof big);
        send_raw(flood, big, sizeof big);
        send_msg(good, "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"value\":\"ok\"}}");
        collect(&c, flood, 0, &r);
        ok(r.eof, "oversized message: disconnected");
        collect(&c, good, 1, &r2);
        is_int(r2.n, 1, "other client answered meanwhile");
        is_int(varlink_server_current_connections(c.server), 2, "slow and good still connected");
        is_int(c.disconnects, 1, "disconnect callback ran once");
        replies_free(&r);
        replies_free(&r2);

        /* Connection limits. */
        varlink_server_set_connections_max(c.server, 3, 3);
        int third = connect_client(&c);
        ok(third >= 0, "third connection accepted at max 3");
        int fourth = connect_client(&c);
        ok(fourth < 0, "fourth connection refused at max 3");
        varlink_server_set_connections_max(c.server, 10, 3);
        fourth = connect_client(&c);
        ok(fourth < 0, "refused by the per-uid limit too");
        varlink_server_set_connections_max(c.server, 10, 10);

        /* A peer that never reads its replies is dropped at the output limit. */
        varlink_server_set_output_max(c.server, 4096);
        int deaf = connect_client(&c);
        int sz = 4096;
        setsockopt(deaf, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
        unsigned before = c.disconnects;
        /* Echo, not a service method: sd-varlink answers those itself. */
        char echo[1000];
        memset(echo, 'x', sizeof echo);
        memcpy(echo, "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"value\":\"", 57);
        memcpy(echo + sizeof echo - 4, "\"}}", 4);
        for (int i = 0; i < 2000 && c.disconnects == before; i++) {
                /* The server may stop reading meanwhile: a full socket is fine. */
                if (write(deaf, echo, sizeof echo) < 0 && errno != EAGAIN)
                        break;
                sd_event_run(c.event, 1000);
        }
        is_int(c.disconnects, before + 1, "peer that does not read is disconnected");

        close(slow);
        close(good);
        close(third);
        close(deaf);
        ctx_done(&c);
}

static void test_half_close(void) {
        Ctx c;
        Replies r = {};
        ctx_init(&c);
        int fd = connect_client(&c);

        send_msg(fd, "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"value\":\"bye\"}}");
        shutdown(fd, SHUT_WR);
        collect(&c, fd, 0, &r);
        is_int(r.n, 1, "a call sent before shutdown(SHUT_WR) is answered");
        ok(r.eof, "then the server closes");
        replies_free(&r);
        close(fd);
        ctx_done(&c);
}

/* A reply made once (varlink_reply_new()) is sent as varlink_reply() would
 * send its parameters, byte for byte, to any number of calls. */
static void test_prepared_reply(void) {
        /* Non-ASCII, a slash and an escaped quote: printed as json-c prints them. */
        const char *call = "{\"method\":\"org.example.test.Echo\","
                           "\"parameters\":{\"value\":\"\u00e9t\u00e9 / \\\" 1.5\"}}";
        Replies plain = {}, kept = {};
        Ctx c;
        int fd;

        ctx_init(&c);
        fd = connect_client(&c);
        send_msg(fd, call);
        collect(&c, fd, 1, &plain);
        echo_prepared = true;
        for (int i = 0; i < 3; i++)
                send_msg(fd, call);
        collect(&c, fd, 3, &kept);
        echo_prepared = false;
        is_int(kept.n, 3, "a prepared reply answers each of three calls");
        ok(plain.n == 1 && kept.len == 3 * plain.len && memcmp(kept.buf, plain.buf, plain.len) == 0 &&
                   memcmp(kept.buf + plain.len, plain.buf, plain.len) == 0,
           "  with what varlink_reply() sends, byte for byte: %.*s", (int) plain.len, plain.buf ? plain.buf : "");
        replies_free(&plain);
        replies_free(&kept);
        close(fd);
        ctx_done(&c);
}

/* The call budget of uids other than root (varlink-budget.h), in the
 * server: a peer of another uid that pipelines past its burst has its
 * calls answered at its rate, and all of them in the end; root's calls,
 * meanwhile, are never held. */
static void test_call_budget(void) {
        const char *other = "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"value\":\"o\"}}";
        const char *mine = "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"value\":\"r\"}}";
        char dir[] = "/tmp/test-varlink-XXXXXX", path[64], buf[4096];
        unsigned root_replies = 0, by_one_second = 0, other_when_root_done = 0;
        uint64_t first = 0, end;
        size_t len = 0;
        int dfd, root, status = -1;
        pid_t pid;
        Ctx c;

        if (geteuid() != 0) {
                tap_skip("the call budget: needs root, for a peer of another uid");
                return;
        }
        ctx_init(&c);
        varlink_server_set_calls_max(c.server, 10, 5, 0, 0);  /* 10 a second, 5 at once; no shared bucket */
        if (!mkdtemp(dir) || chmod(dir, 0755) < 0 || (dfd = open(dir, O_DIRECTORY | O_CLOEXEC)) < 0 ||
            varlink_server_listen_at(c.server, dfd, "s", 0666) < 0)
                abort();
        snprintf(path, sizeof path, "%s/s", dir);
        pid = fork();
        if (pid == 0) {
                /* uid 65534: 20 calls in one send, then their replies (10 s at most). */
                struct sockaddr_un sa = { .sun_family = AF_UNIX };
                unsigned got = 0;
                int fd;

                strcpy(sa.sun_path, path);
                if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
                        _exit(100);
                fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                        _exit(101);
                for (int i = 0; i < 20; i++) {
                        memcpy(buf + len, other, strlen(other) + 1);
                        len += strlen(other) + 1;
                }
                if (write(fd, buf, len) != (ssize_t) len)
                        _exit(102);
                alarm(10);
                while (got < 20) {
                        ssize_t n = read(fd, buf, sizeof buf);
                        if (n <= 0)
                                _exit(103);
                        for (ssize_t i = 0; i < n; i++)
                                got += buf[i] == '\0';
                }
                _exit(0);
        }
        /* Root pipelines 40 calls once the other's first is answered. */
        root = connect_client(&c);
        for (int i = 0; i < 40; i++) {
                memcpy(buf + len, mine, strlen(mine) + 1);
                len += strlen(mine) + 1;
        }
        echo_calls_not_root = 0;
        end = now_usec(CLOCK_MONOTONIC) + 10 * USEC_PER_SEC;
        while (now_usec(CLOCK_MONOTONIC) < end && (status < 0 || root_replies < 40)) {
                sd_event_run(c.event, 10 * USEC_PER_MSEC);
                if (!first && echo_calls_not_root > 0) {
                        first = now_usec(CLOCK_MONOTONIC);
                        send_raw(root, buf, len);
                }
                if (first && !by_one_second && now_usec(CLOCK_MONOTONIC) >= first + USEC_PER_SEC)
                        by_one_second = echo_calls_not_root;
                if (first && root_replies < 40 && (root_replies += drain_replies(root)) >= 40)
                        other_when_root_done = echo_calls_not_root;
                if (status < 0 && waitpid(pid, &status, WNOHANG) <= 0)
                        status = -1;
        }
        if (first && !by_one_second)
                by_one_second = echo_calls_not_root;    /* all done within the second */
        ok(by_one_second >= 5 && by_one_second <= 5 + 10 + 1,
           "uid 65534, 20 calls in one send: %u answered in its first second (5 at once, then 10 a second)",
           by_one_second);
        ok(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && echo_calls_not_root == 20,
           "  all 20 answered in the end (%u), none dropped (exit %d)", echo_calls_not_root,
           status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        ok(root_replies == 40 && other_when_root_done < 20,
           "root's 40 calls, sent meanwhile, answered while the other's still waited (%u of 20 done then)",
           other_when_root_done);
        if (status < 0) {
                kill(pid, SIGKILL);
                waitpid(pid, NULL, 0);
        }
        close(root);
        ctx_done(&c);
        (void) unlinkat(dfd, "s", 0);
        close(dfd);
        (void) rmdir(dir);
}

static void test_framing_helpers(void) {
        is_int(varlink_frame_find("abc", 3), -EAGAIN, "no NUL: incomplete");
        is_int(varlink_frame_find("ab\0cd", 5), 2, "first NUL found");
        is_int(varlink_frame_find("", 0), -EAGAIN, "empty buffer");
        json_object *o = varlink_message_parse("{\"a\":1}", 7);
        ok(o != NULL, "object parses");
        json_object_put(o);
        ok(varlink_message_parse("{\"a\":1", 6) == NULL, "truncated object rejected");
        ok(varlink_message_parse("\"str\"", 5) == NULL, "non-object rejected");
        ok(varlink_message_parse("{} {}", 5) == NULL, "two objects in one frame rejected");
}

/* The blocking client against a daemon that accepted nothing and reads
 * nothing: sending a call bigger than the socket buffers must give up at the
 * deadline instead of hanging numastatctl. */
static void test_client_send_timeout(void) {
        char dir[] = "/tmp/numastatd-vl-XXXXXX", path[64];
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        VarlinkClient *c = NULL;
        json_object *p;
        uint64_t t0, t1;
        char *big;
        int lfd, r;

        if (!mkdtemp(dir)) {
                ok(false, "mkdtemp");
                return;
        }
        snprintf(path, sizeof path, "%s/sock", dir);
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
        lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ok(lfd >= 0 && bind(lfd, (struct sockaddr *) &sa, sizeof sa) == 0 && listen(lfd, 4) == 0,
           "a listening socket that never reads");
        is_int(varlink_client_connect_address(&c, path), 0, "client connects (queued in the backlog)");
        if (!c)
                goto out;
        varlink_client_set_timeout(c, 300 * USEC_PER_MSEC);
        big = malloc(8 << 20);
        memset(big, 'x', (8 << 20) - 1);
        big[(8 << 20) - 1] = 0;
        p = json_object_new_object();
        json_object_object_add(p, "value", json_object_new_string(big));
        free(big);
        t0 = now_usec(CLOCK_MONOTONIC);
        /* The hand-written client times out writing it, sd-varlink's
         * waiting for the reply it never gets: the caller sees the same. */
        r = varlink_client_send(c, "org.example.test.Echo", p, 0);
        if (r == 0) {
                json_object *reply = NULL;
                r = varlink_client_wait(c, &reply, NULL, NULL);
                if (reply)
                        json_object_put(reply);
        }
        t1 = now_usec(CLOCK_MONOTONIC);
        is_int(r, -ETIMEDOUT, "a call the peer never reads times out");
        ok(t1 - t0 >= 250 * USEC_PER_MSEC && t1 - t0 < 5 * USEC_PER_SEC,
           "after about the timeout (%" PRIu64 " ms)", (t1 - t0) / USEC_PER_MSEC);
        json_object_put(p);
        varlink_client_free(c);
out:
        close(lfd);
        unlink(path);
        rmdir(dir);
}

/* Runs the loop for about ms milliseconds. */

static void test_idle_and_buffers(void) {
        Ctx c;
        Replies r = {};
        Varlink *quiet_link, *half_link, *monitor_link, *failed_link;
        char big[4000];
        int quiet, half, monitor, failed, early, late;

        ctx_init(&c);
        varlink_server_set_idle_timeout(c.server, 300 * USEC_PER_MSEC);
        quiet = connect_client_link(&c, &quiet_link);
        half = connect_client_link(&c, &half_link);
        monitor = connect_client_link(&c, &monitor_link);
        failed = connect_client_link(&c, &failed_link);
        varlink_ref(quiet_link);
        varlink_ref(half_link);
        varlink_ref(monitor_link);
        varlink_ref(failed_link);
        ok(varlink_input_allocated(quiet_link) == 0, "a new connection holds no input buffer");
        send_raw(half, "{\"method\":", 10);
        send_msg(monitor, "{\"method\":\"org.example.test.Subscribe\",\"more\":true}");
        send_msg(failed, "{\"method\":\"org.example.test.Fail\"}");
        run_for(&c, 100);
        ok(varlink_input_allocated(half_link) > 0, "half a message holds a buffer meanwhile");
        run_for(&c, 500);
        ok(!varlink_is_connected(quiet_link), "a peer that says nothing is disconnected after the idle timeout");
        ok(!varlink_is_connected(half_link), "so is one that sent half a message");
        is_int(varlink_input_allocated(half_link), 0, "  and its buffer is freed");
        ok(varlink_is_connected(monitor_link), "a call in progress (streaming with more) is not idle");
        ok(!varlink_is_connected(failed_link), "a call the method failed is over: its peer is idle, and goes");
        varlink_unref(quiet_link);
        varlink_unref(half_link);
        varlink_unref(monitor_link);
        varlink_unref(failed_link);
        close(quiet);
        close(half);
        close(monitor);
        close(failed);

        /* A changed limit applies to connections made after it. */
        varlink_server_set_idle_timeout(c.server, 0);
        early = connect_client(&c);
        varlink_server_set_buffer_max(c.server, 1024);
        late = connect_client(&c);
        memset(big, 'x', sizeof big);
        memcpy(big, "{\"method\":\"org.example.test.Echo\",\"parameters\":{\"value\":\"", 57);
        memcpy(big + sizeof big - 4, "\"}}", 4);
        send_raw(early, big, sizeof big);
        collect(&c, early, 1, &r);
        is_int(r.n, 1, "a connection made before the limit shrank keeps its own (4 KB call answered)");
        replies_free(&r);
        send_raw(late, big, sizeof big);
        collect(&c, late, 0, &r);
        ok(r.eof, "one made after it gets the new limit (disconnected)");
        replies_free(&r);
        close(early);
        close(late);
        ctx_done(&c);
}

/* stderr into a file for a while, to count log lines. */
static int capture_stderr(FILE **ret) {
        int saved = dup(STDERR_FILENO);
        *ret = tmpfile();
        fflush(stderr);
        dup2(fileno(*ret), STDERR_FILENO);
        return saved;
}

static unsigned count_lines(FILE *f, const char *needle) {
        char line[512];
        unsigned n = 0;
        rewind(f);
        while (fgets(line, sizeof line, f))
                if (strstr(line, needle))
                        n++;
        return n;
}

static void test_refused_log_rate(void) {
        Ctx c;
        FILE *f;
        int saved, fds[2];
        unsigned refused = 0;

        ctx_init(&c);
        varlink_server_set_connections_max(c.server, 2, 2);
        fds[0] = connect_client(&c);
        fds[1] = connect_client(&c);
        saved = capture_stderr(&f);
        for (int i = 0; i < 50; i++)
                if (connect_client(&c) < 0)
                        refused++;
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
        is_int(refused, 50, "50 connections over the limit refused");
        is_int(count_lines(f, "connection limit reached"), 1, "  one log line for all of them (rate-limited)");
        fclose(f);
        close(fds[0]);
        close(fds[1]);
        ctx_done(&c);
}

static void test_hostile_calls(void) {
        static const struct {
                const char *msg;
                const char *what;
        } disconnect[] = {
                { "{\"method\":\"org.example.test.Echo\\u0000x\"}", "a method name with an embedded NUL" },
                { "{\"method\":\"example.Echo\"}", "an interface name of one part" },
                { "{\"method\":\"1org.example.Echo\"}", "an interface name starting with a digit" },
                { "{\"method\":\"org..example.Echo\"}", "an empty interface name part" },
                { "{\"method\":\"org.example-.Echo\"}", "a part ending in a dash" },
                { "{\"method\":\"org.example.test.echo\"}", "a lower-case method name" },
                { "{\"method\":\"org.example.test.Ec-ho\"}", "a dash in a method name" },
        };
        Ctx c;

        ctx_init(&c);
        for (size_t i = 0; i < ELEMENTSOF(disconnect); i++) {
                Replies r = {};
                int fd = connect_client(&c);
                send_msg(fd, disconnect[i].msg);
                if (SD && i > 0) {
                        /* sd-varlink looks the name up, finds none. */
                        expect_error(&c, fd, VARLINK_ERROR_METHOD_NOT_FOUND, NULL, disconnect[i].what);
                } else {
                        collect(&c, fd, 0, &r);
                        ok(r.eof && r.n == 0, "%s: rejected (disconnected without reply)", disconnect[i].what);
                }
                replies_free(&r);
                close(fd);
        }

        static const struct {
                const char *msg;
                const char *error, *parameter;
                const char *what;
        } errors[] = {
                { "{\"method\":\"org.example.test.Echo\",\"upgrade\":true}", VARLINK_ERROR_INVALID_PARAMETER, "upgrade",
                  "a call with upgrade" },
                { "{\"method\":\"org.varlink.service.GetInfo\",\"parameters\":{\"bogus\":1}}",
                  VARLINK_ERROR_INVALID_PARAMETER, "bogus", "GetInfo with a parameter" },
                { "{\"method\":\"org.varlink.service.GetInterfaceDescription\",\"parameters\":"
                  "{\"interface\":\"org.example.test\",\"extra\":true}}",
                  VARLINK_ERROR_INVALID_PARAMETER, "extra", "GetInterfaceDescription with an unknown key" },
        };
        for (size_t i = 0; i < ELEMENTSOF(errors); i++) {
                int fd = connect_client(&c);
                send_msg(fd, errors[i].msg);
                if (SD && i == 0) {
                        /* A key sd-varlink does not know is a protocol error. */
                        Replies r = {};
                        collect(&c, fd, 0, &r);
                        ok(r.eof && r.n == 0, "%s: disconnected without reply", errors[i].what);
                        replies_free(&r);
                } else
                        expect_error(&c, fd, errors[i].error, errors[i].parameter, errors[i].what);
                close(fd);
        }
        ctx_done(&c);
}

static void test_method_names(void) {
        static const struct {
                const char *name;
                bool valid;
        } cases[] = {
                { "org.varlink.service.GetInfo", true },
                { "io.numastatd.GetStatus", true },
                { "io.systemd-x.Foo2", true },
                { "a.b.C", true },
                { "io.numastatd.getStatus", false },
                { "io.numastatd.", false },
                { ".io.numastatd.Get", false },
                { "io.GetStatus", false },      /* an interface has two parts or more */
                { "numastatd.Get_Status", false },
                { "io.-numastatd.Get", false },
                { "GetStatus", false },
                { "", false },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                is_int(varlink_method_name_is_valid(cases[i].name, strlen(cases[i].name)), cases[i].valid,
                       cases[i].name[0] ? cases[i].name : "(empty)");
        ok(!varlink_method_name_is_valid("a.b.C\0D", 7), "a NUL inside: invalid");
}

int main(void) {
        alarm(60);
        test_method_names();
        test_idle_and_buffers();
        test_refused_log_rate();
        test_hostile_calls();
        test_client_send_timeout();
        test_framing_helpers();
        test_split_message();
        test_pipelined();
        test_calls_per_turn();
        test_parameters_forms();
        test_errors();
        test_service_interface();
        test_disconnects();
        test_limits();
        test_half_close();
        test_prepared_reply();
        test_call_budget();
        return tap_done();
}
