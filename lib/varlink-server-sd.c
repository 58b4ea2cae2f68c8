/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The varlink server on systemd's own sd-varlink (libsystemd >= 257): the
 * interface of varlink-server.h, which varlink-server.c implements by hand
 * for older libsystemd (configure picks one). sd-varlink speaks the
 * protocol, answers org.varlink.service and checks each call's parameters
 * against the compiled interface; this file adds what a daemon running as
 * root among other users needs and sd-varlink does not do:
 *
 *  - connection slots kept for root, and a per-uid cap: we accept() and
 *    count ourselves, then hand the socket to sd-varlink;
 *  - an idle timeout for a connection with no call in progress;
 *  - a bound on the output queued for peers that do not read: sd-varlink
 *    says only whether output is pending, so each connection counts what
 *    was sent since its queue was last seen empty, an upper bound;
 *  - a bound on the input held for a peer: sd-varlink buffers up to 16 MiB
 *    of a message per connection (eight connections of one uid would
 *    reach the unit's MemoryMax=), so we read the socket ourselves and
 *    hand sd-varlink, through a pipe, only whole messages of at most
 *    varlink_server_set_buffer_max()'s bytes; a longer one closes the
 *    connection, as the hand-written server does;
 *  - the call budget of uids other than root (varlink-budget.h): each
 *    message is paid for before it is handed on, and while a peer waits
 *    for its turn nothing more is read from it.
 *
 * Parameters cross between json-c, which the service uses, and sd-json as
 * text (lib/json-sd.c). */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <systemd/sd-json.h>
#include <systemd/sd-varlink.h>

#include "json-sd.h"
#include "log.h"
#include "macro.h"
#include "strutil.h"
#include "time-util.h"
#include "varlink-budget.h"
#include "varlink-limits.h"
#include "varlink-server.h"
#include "varlink-socket.h"

/* sd-varlink passes a method callback neither the method's name nor our
 * binding: one trampoline per slot, so this many methods may be bound. */
#define METHODS_MAX 16

struct Varlink {
        unsigned n_ref;
        VarlinkServer *server;
        sd_varlink *link;               /* NULL once disconnected */
        struct ucred ucred;
        sd_event_source *idle;
        bool in_call;                   /* a call awaits its final reply */
        bool call_more;
        unsigned calls_in_a_row;        /* taken since this peer last yielded */
        sd_event_source *resume;        /* dispatches a held call again, below the server's priority */
        size_t sent_unseen;             /* bytes sent since the queue was last seen empty */
        int sock;                       /* ours to read the peer's input from (sd-varlink writes to its own) */
        int pipe_w;                     /* sd-varlink reads whole messages from the other end */
        sd_event_source *input, *pipe_ready;
        char *in;                       /* read, not handed on yet: whole messages, then a part of one */
        size_t in_len, in_size, in_max;         /* in_size grows, as a message needs it, to in_max */
        bool in_eof;                    /* the peer is done sending: sd-varlink's end once all is handed on */
        unsigned paid;                  /* whole messages in `in` the budget granted */
        bool waiting;                   /* for the budget's grant: nothing is read or handed on */
        void *userdata;
        Varlink *next, *prev;
};

struct VarlinkServer {
        unsigned n_ref;
        sd_varlink_server *sd;
        void *userdata;
        sd_event *event;
        int64_t priority;

        struct {
                char *method;
                VarlinkMethod callback;
        } bindings[METHODS_MAX];
        size_t n_bindings;
        VarlinkDisconnect on_disconnect;

        size_t buffer_max;              /* the longest message a new connection may send */
        VarlinkListeners listeners;
        Varlink *connections;
        unsigned n_connections;
        VarlinkLimits limits;
        VarlinkBudget *budget;
};

static void on_sd_disconnect(sd_varlink_server *sd, sd_varlink *link, void *userdata);
static void server_granted(void *conn, unsigned n, void *userdata);

static int server_accept(void *userdata, int fd) {
        return varlink_server_add_connection(userdata, fd, NULL);
}

int varlink_server_new(VarlinkServer **ret) {
        VarlinkServer *s = calloc(1, sizeof *s);
        int r;

        if (!s)
                return -ENOMEM;
        r = sd_varlink_server_new(&s->sd, 0);
        if (r < 0) {
                free(s);
                return r;
        }
        sd_varlink_server_set_userdata(s->sd, s);
        s->buffer_max = VARLINK_BUFFER_MAX_DEFAULT;
        r = sd_varlink_server_bind_disconnect(s->sd, on_sd_disconnect);
        if (r < 0) {
                sd_varlink_server_unref(s->sd);
                free(s);
                return r;
        }
        r = varlink_budget_new(server_granted, s, &s->budget);
        if (r < 0) {
                sd_varlink_server_unref(s->sd);
                free(s);
                return r;
        }
        varlink_budget_set(s->budget, VARLINK_CALLS_PER_UID_RATE_DEFAULT, VARLINK_CALLS_PER_UID_BURST_DEFAULT,
                           VARLINK_CALLS_OTHERS_RATE_DEFAULT, VARLINK_CALLS_OTHERS_BURST_DEFAULT);
        s->n_ref = 1;
        varlink_limits_init(&s->limits);
        varlink_listeners_init(&s->listeners, server_accept, s);
        *ret = s;
        return 0;
}

VarlinkServer *varlink_server_ref(VarlinkServer *s) {
        if (s)
                s->n_ref++;
        return s;
}

VarlinkServer *varlink_server_unref(VarlinkServer *s) {
        if (!s || --s->n_ref > 0)
                return NULL;
        varlink_server_shutdown(s);
        sd_varlink_server_unref(s->sd);
        varlink_budget_free(s->budget);
        sd_event_unref(s->event);
        for (size_t i = 0; i < s->n_bindings; i++)
                free(s->bindings[i].method);
        free(s);
        return NULL;
}

void varlink_server_set_userdata(VarlinkServer *s, void *userdata) {
        s->userdata = userdata;
}

int varlink_server_set_info(VarlinkServer *s, const char *vendor, const char *product,
                            const char *version, const char *url) {
        return sd_varlink_server_set_info(s->sd, vendor, product, version, url ?: "");
}

int varlink_server_add_interface(VarlinkServer *s, const char *description,
                                 const struct sd_varlink_interface *compiled) {
        /* sd-varlink describes the interface from the compiled form. */
        if (!compiled)
                return -EINVAL;
        return sd_varlink_server_add_interface(s->sd, compiled);
}

void varlink_server_set_buffer_max(VarlinkServer *s, size_t bytes) {
        s->buffer_max = bytes;  /* for connections made from now on */
}

void varlink_server_set_idle_timeout(VarlinkServer *s, uint64_t usec) {
        s->limits.idle_timeout = usec;
}

void varlink_server_set_output_max(VarlinkServer *s, size_t bytes) {
        s->limits.output_max = bytes;
}

void varlink_server_set_output_shared_max(VarlinkServer *s, size_t per_uid, size_t others) {
        s->limits.output_per_uid_max = per_uid;
        s->limits.output_others_max = others;
}

void varlink_server_set_connections_max(VarlinkServer *s, unsigned total, unsigned per_uid) {
        s->limits.connections_max = total;
        s->limits.connections_per_uid_max = per_uid;
}

void varlink_server_set_connections_root_reserved(VarlinkServer *s, unsigned n) {
        s->limits.connections_root_reserved = n;
}

void varlink_server_set_calls_max(VarlinkServer *s, unsigned per_uid_rate, unsigned per_uid_burst,
                                  unsigned others_rate, unsigned others_burst) {
        varlink_budget_set(s->budget, per_uid_rate, per_uid_burst, others_rate, others_burst);
}

unsigned varlink_server_current_connections(VarlinkServer *s) {
        return s->n_connections;
}

/* ---- methods ---- */

static VarlinkMethodFlags flags_from_sd(sd_varlink_method_flags_t f) {
        return (f & SD_VARLINK_METHOD_MORE ? VARLINK_METHOD_MORE : 0) |
               (f & SD_VARLINK_METHOD_ONEWAY ? VARLINK_METHOD_ONEWAY : 0);
}

static void varlink_arm_idle(Varlink *v);

/* Calls a peer takes in a row before it yields, as in varlink-server.c.
 * sd-varlink serves a connection's pipelined calls from a defer source
 * that stays pending while it makes progress, and so comes before every
 * source of its priority that became pending since: a peer sending calls
 * without pause would keep the others, and the daemon, waiting. Every
 * few calls one is held unanswered (sd-varlink then reads nothing more
 * from that peer) and dispatched again from a source of lower priority,
 * after whatever else is pending. A oneway call is never held: sd-varlink
 * would not dispatch it again. */
#define VARLINK_CALLS_IN_A_ROW 4

static int varlink_resume_handler(sd_event_source *source, void *userdata) {
        Varlink *v = userdata;

        v->calls_in_a_row = 0;
        if (v->link && sd_varlink_dispatch_again(v->link) < 0)
                varlink_close(v);
        return 0;
}

static int dispatch_slot(size_t slot, sd_varlink *link, sd_json_variant *parameters,
                         sd_varlink_method_flags_t flags) {
        _cleanup_(varlink_unrefp) Varlink *v = varlink_ref(sd_varlink_get_userdata(link));
        _cleanup_json_ json_object *p = NULL;
        VarlinkServer *s = v->server;
        int r;

        if (v->resume && !(flags & SD_VARLINK_METHOD_ONEWAY) && v->calls_in_a_row >= VARLINK_CALLS_IN_A_ROW &&
            sd_event_source_set_enabled(v->resume, SD_EVENT_ONESHOT) >= 0)
                return 0;       /* held: no reply yet */
        v->calls_in_a_row++;

        r = sd_json_to_json_c(parameters, &p);
        if (r < 0)
                return r;
        v->in_call = !(flags & SD_VARLINK_METHOD_ONEWAY);
        v->call_more = flags & SD_VARLINK_METHOD_MORE;
        varlink_arm_idle(v);
        r = s->bindings[slot].callback(v, p, flags_from_sd(flags), s->userdata);
        if (r < 0) {
                log_debug_errno(r, "varlink: %s failed: %m", s->bindings[slot].method);
                v->in_call = false;     /* sd-varlink answers it: io.systemd.System */
        }
        if (!v->in_call)
                varlink_arm_idle(v);
        return r;
}

#define TRAMPOLINE(n)                                                                              \
        static int method_slot_##n(sd_varlink *link, sd_json_variant *parameters,                 \
                                   sd_varlink_method_flags_t flags, void *userdata) {             \
                return dispatch_slot(n, link, parameters, flags);                                 \
        }
TRAMPOLINE(0) TRAMPOLINE(1) TRAMPOLINE(2) TRAMPOLINE(3) TRAMPOLINE(4) TRAMPOLINE(5) TRAMPOLINE(6)
TRAMPOLINE(7) TRAMPOLINE(8) TRAMPOLINE(9) TRAMPOLINE(10) TRAMPOLINE(11) TRAMPOLINE(12)
TRAMPOLINE(13) TRAMPOLINE(14) TRAMPOLINE(15)

static const sd_varlink_method_t method_slots[METHODS_MAX] = {
        method_slot_0,  method_slot_1,  method_slot_2,  method_slot_3,  method_slot_4,  method_slot_5,
        method_slot_6,  method_slot_7,  method_slot_8,  method_slot_9,  method_slot_10, method_slot_11,
        method_slot_12, method_slot_13, method_slot_14, method_slot_15,
};

int varlink_server_bind_method(VarlinkServer *s, const char *method, VarlinkMethod callback) {
        size_t slot = s->n_bindings;
        int r;

        if (slot >= METHODS_MAX)
                return -E2BIG;
        for (size_t i = 0; i < s->n_bindings; i++)
                if (streq(s->bindings[i].method, method))
                        return -EEXIST;
        s->bindings[slot].method = strdup(method);
        if (!s->bindings[slot].method)
                return -ENOMEM;
        r = sd_varlink_server_bind_method(s->sd, method, method_slots[slot]);
        if (r < 0) {
                s->bindings[slot].method = mfree(s->bindings[slot].method);
                return r;
        }
        s->bindings[slot].callback = callback;
        s->n_bindings++;
        return 0;
}

int varlink_server_bind_disconnect(VarlinkServer *s, VarlinkDisconnect callback) {
        s->on_disconnect = callback;
        return 0;
}

/* ---- connections ---- */

Varlink *varlink_ref(Varlink *v) {
        if (v)
                v->n_ref++;
        return v;
}

static void input_done(Varlink *v) {
        v->input = sd_event_source_disable_unref(v->input);
        v->pipe_ready = sd_event_source_disable_unref(v->pipe_ready);
        v->sock = safe_close(v->sock);
        v->pipe_w = safe_close(v->pipe_w);
        v->in = mfree(v->in);
        v->in_len = v->in_size = 0;
}

Varlink *varlink_unref(Varlink *v) {
        if (!v || --v->n_ref > 0)
                return NULL;
        input_done(v);
        sd_event_source_disable_unref(v->idle);
        sd_event_source_disable_unref(v->resume);
        sd_varlink_unref(v->link);
        free(v);
        return NULL;
}

void *varlink_get_userdata(Varlink *v) {
        return v->userdata;
}

void varlink_set_userdata(Varlink *v, void *userdata) {
        v->userdata = userdata;
}

VarlinkServer *varlink_get_server(Varlink *v) {
        return v->server;
}

int varlink_get_peer_uid(Varlink *v, uid_t *ret) {
        if (v->ucred.pid <= 0)
                return -ENODATA;
        *ret = v->ucred.uid;
        return 0;
}

int varlink_get_peer_pid(Varlink *v, pid_t *ret) {
        if (v->ucred.pid <= 0)
                return -ENODATA;
        *ret = v->ucred.pid;
        return 0;
}

size_t varlink_input_allocated(Varlink *v) {
        return v->in ? v->in_size : 0;  /* ours; sd-varlink's holds whole messages only */
}

bool varlink_is_connected(Varlink *v) {
        return v->link != NULL;
}

/* sd-varlink tells of a connection gone, closed by either side. */
static void on_sd_disconnect(sd_varlink_server *sd, sd_varlink *link, void *userdata) {
        VarlinkServer *s = userdata;
        Varlink *v = sd_varlink_get_userdata(link);

        if (!v || v->link != link)
                return;
        if (v->waiting)
                varlink_budget_forget(s->budget, v);
        v->waiting = false;
        v->idle = sd_event_source_disable_unref(v->idle);
        v->resume = sd_event_source_disable_unref(v->resume);
        input_done(v);
        if (v->prev)
                v->prev->next = v->next;
        else
                s->connections = v->next;
        if (v->next)
                v->next->prev = v->prev;
        v->next = v->prev = NULL;
        s->n_connections--;
        sd_varlink_set_userdata(link, NULL);
        v->link = sd_varlink_unref(v->link);
        if (s->on_disconnect)
                s->on_disconnect(s, v, s->userdata);
        varlink_unref(v);       /* the server's reference */
}

void varlink_close(Varlink *v) {
        if (v->link)
                (void) sd_varlink_close(v->link);      /* calls on_sd_disconnect */
}

/* A connection with no call in progress must complete a call within the
 * idle timeout, or it goes (see varlink-server.c). */
static void varlink_arm_idle(Varlink *v) {
        if (!v->idle)
                return;
        /* Waiting for its budget is waiting for us, not idling. */
        if (v->in_call || v->waiting) {
                (void) sd_event_source_set_enabled(v->idle, SD_EVENT_OFF);
                return;
        }
        (void) sd_event_source_set_time_relative(v->idle, v->server->limits.idle_timeout);
        (void) sd_event_source_set_enabled(v->idle, SD_EVENT_ONESHOT);
}

static int varlink_idle_handler(sd_event_source *source, uint64_t usec, void *userdata) {
        Varlink *v = userdata;

        log_debug("varlink: peer pid " PID_FMT " sent no complete call in time, disconnecting.", v->ucred.pid);
        varlink_close(v);
        return 0;
}

/* What may still be queued for v's peer: nothing if sd-varlink has no
 * output pending, else at most what was sent since it last had none. */
static size_t output_queued(Varlink *v) {
        int events;

        if (!v->link)
                return 0;
        events = sd_varlink_get_events(v->link);
        if (events >= 0 && !(events & EPOLLOUT))
                v->sent_unseen = 0;
        return v->sent_unseen;
}

static bool output_over(Varlink *v, size_t len) {
        size_t of_uid = 0, of_others = 0;

        for (Varlink *c = v->server->connections; c; c = c->next) {
                if (c->ucred.uid == 0)
                        continue;
                of_others += output_queued(c);
                if (c->ucred.uid == v->ucred.uid)
                        of_uid += output_queued(c);
        }
        return varlink_limits_output_over(&v->server->limits, v->ucred.uid, output_queued(v), of_uid, of_others, len);
}

/* Sends p (len bytes as text) to the current call. */
static int varlink_send_sd(Varlink *v, const char *error_id, sd_json_variant *p, size_t len, bool continues) {
        int r;

        if (!v->link)
                return -ENOTCONN;
        if (!v->in_call)
                return -EBUSY;
        if (continues && !v->call_more)
                return -EPROTO;
        if (output_over(v, len)) {
                log_warning("varlink: peer pid " PID_FMT " (uid %u) does not read its replies (%zu KiB queued), "
                            "disconnecting.", v->ucred.pid, (unsigned) v->ucred.uid, output_queued(v) / 1024);
                varlink_close(v);
                return 0;       /* a dropped peer is not the method's failure */
        }
        if (error_id)
                r = sd_varlink_error(v->link, error_id, p);
        else if (continues)
                r = sd_varlink_notify(v->link, p);
        else
                r = sd_varlink_reply(v->link, p);
        if (r < 0)
                return r;
        v->sent_unseen += len;
        if (!continues) {
                v->in_call = false;
                varlink_arm_idle(v);
        }
        return 0;
}

static int varlink_send(Varlink *v, const char *error_id, json_object *parameters, bool continues) {
        _cleanup_(sd_json_variant_unrefp) sd_json_variant *p = NULL;
        size_t len;
        int r;

        if (!v->link)
                return -ENOTCONN;
        r = json_c_to_sd_json(parameters, &p, &len);
        if (r < 0)
                return r;
        return varlink_send_sd(v, error_id, p, len, continues);
}

int varlink_reply(Varlink *v, json_object *parameters) {
        return varlink_send(v, NULL, parameters, false);
}

int varlink_notify(Varlink *v, json_object *parameters) {
        return varlink_send(v, NULL, parameters, true);
}

int varlink_error(Varlink *v, const char *error_id, json_object *parameters) {
        return varlink_send(v, error_id, parameters, false);
}

int varlink_error_invalid_parameter(Varlink *v, const char *name) {
        _cleanup_json_ json_object *p = json_object_new_object();

        if (!p)
                return -ENOMEM;
        json_object_object_add(p, "parameter", json_object_new_string(name));
        return varlink_error(v, VARLINK_ERROR_INVALID_PARAMETER, p);
}

/* The parameters converted to sd-json once: sd-varlink still prints
 * them for each call (it takes no text), but the json-c printing and the
 * parsing back are done once. */
struct VarlinkReply {
        unsigned n_ref;
        sd_json_variant *parameters;
        size_t len;             /* as text, for the output bound */
};

int varlink_reply_new(json_object *parameters, VarlinkReply **ret) {
        VarlinkReply *r = calloc(1, sizeof *r);
        int k;

        if (!r)
                return -ENOMEM;
        k = json_c_to_sd_json(parameters, &r->parameters, &r->len);
        if (k < 0) {
                free(r);
                return k;
        }
        r->n_ref = 1;
        *ret = r;
        return 0;
}

VarlinkReply *varlink_reply_ref(VarlinkReply *r) {
        if (r)
                r->n_ref++;
        return r;
}

VarlinkReply *varlink_reply_unref(VarlinkReply *r) {
        if (r && --r->n_ref == 0) {
                sd_json_variant_unref(r->parameters);
                free(r);
        }
        return NULL;
}

int varlink_reply_send(Varlink *v, VarlinkReply *r) {
        return varlink_send_sd(v, NULL, r->parameters, r->len, false);
}

/* ---- the peer's input, handed on whole ---- */

static unsigned count_messages(const char *p, size_t len) {
        unsigned n = 0;

        for (const char *e; len > 0 && (e = memchr(p, '\0', len)); len -= (size_t) (e + 1 - p), p = e + 1)
                n++;
        return n;
}

/* The length of the first n messages in v->in (n of them are whole). */
static size_t messages_length(const Varlink *v, unsigned n) {
        const char *p = v->in, *end = v->in + v->in_len;

        while (n-- > 0)
                p = (const char *) memchr(p, '\0', (size_t) (end - p)) + 1;
        return (size_t) (p - v->in);
}

/* Pays for the whole messages read (the budget may make v wait), and
 * hands sd-varlink those paid, as far as the pipe takes them. Then reads
 * on only once all that is whole went on: a peer waiting for its turn,
 * or for sd-varlink, is not read. */
static void input_flush(Varlink *v) {
        unsigned whole = count_messages(v->in, v->in_len), sent;
        size_t len, done = 0;

        /* Until all is paid or v waits: a part granted, the rest is asked for. */
        while (whole > v->paid && !v->waiting) {
                uint64_t now;
                unsigned g;

                if (sd_event_now(v->server->event, CLOCK_MONOTONIC, &now) < 0)
                        now = now_usec(CLOCK_MONOTONIC);
                g = varlink_budget_take(v->server->budget, v, v->ucred.uid, whole - v->paid, now);
                v->paid += g;
                if (g == 0) {
                        v->waiting = true;
                        varlink_arm_idle(v);
                }
        }
        len = messages_length(v, v->paid);
        while (done < len) {
                ssize_t n = write(v->pipe_w, v->in + done, len - done);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                done += (size_t) n;
        }
        sent = count_messages(v->in, done);
        v->paid -= sent;
        whole -= sent;
        memmove(v->in, v->in + done, v->in_len - done);
        v->in_len -= done;

        /* Paid but not taken by the pipe: on when it is writable again. */
        (void) sd_event_source_set_enabled(v->pipe_ready, v->paid > 0 ? SD_EVENT_ON : SD_EVENT_OFF);
        if (v->input)
                (void) sd_event_source_set_enabled(v->input, whole == 0 ? SD_EVENT_ON : SD_EVENT_OFF);
        if (v->in_eof && whole == 0)
                v->pipe_w = safe_close(v->pipe_w);      /* sd-varlink sees the end of its input */
}

static void server_granted(void *conn, unsigned n, void *userdata) {
        Varlink *v = conn;

        v->waiting = false;
        v->paid += n;
        varlink_arm_idle(v);
        /* Handed on from the loop (the budget's grant must not take): the
         * pipe is writable unless sd-varlink is behind. */
        (void) sd_event_source_set_enabled(v->pipe_ready, SD_EVENT_ON);
}

static int on_pipe_ready(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Varlink *v = userdata;

        if (revents & (EPOLLERR | EPOLLHUP)) {
                varlink_close(v);       /* sd-varlink closed its end */
                return 0;
        }
        input_flush(v);
        return 0;
}

static int on_input(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        _cleanup_(varlink_unrefp) Varlink *v = varlink_ref(userdata);
        ssize_t n;

        if (v->in_len == v->in_size) {
                size_t size = v->in_size ? MIN(v->in_size * 2, v->in_max) : MIN((size_t) 4096, v->in_max);
                char *in = realloc(v->in, size);

                if (!in) {
                        varlink_close(v);
                        return 0;
                }
                v->in = in;
                v->in_size = size;
        }
        n = read(v->sock, v->in + v->in_len, v->in_size - v->in_len);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
        if (n <= 0) {
                /* The peer is done sending: what is whole goes on, then
                 * sd-varlink sees the end of its input. */
                v->in_eof = true;
                v->input = sd_event_source_disable_unref(v->input);
                input_flush(v);
                return 0;
        }
        v->in_len += (size_t) n;
        input_flush(v);
        if (v->in_len == v->in_max && !memchr(v->in, '\0', v->in_len)) {
                log_debug("varlink: peer pid " PID_FMT " (uid %u) sent a message over %zu KiB, disconnecting.",
                          v->ucred.pid, (unsigned) v->ucred.uid, v->in_max / 1024);
                varlink_close(v);
        }
        return 0;
}

/* A pipe for sd-varlink's input, and our own reading of the socket. */
static int input_setup(VarlinkServer *s, Varlink *v, int fd, int *ret_pipe_r) {
        int p[2];
        int r;

        v->in_max = MAX(s->buffer_max, (size_t) 64);    /* allocated as input comes */
        v->sock = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (v->sock < 0)
                return -errno;
        if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
                return -errno;
        v->pipe_w = p[1];
        r = sd_event_add_io(s->event, &v->input, v->sock, EPOLLIN, on_input, v);
        if (r >= 0)
                r = sd_event_source_set_priority(v->input, s->priority);
        if (r >= 0)
                r = sd_event_add_io(s->event, &v->pipe_ready, v->pipe_w, EPOLLOUT, on_pipe_ready, v);
        if (r >= 0)
                r = sd_event_source_set_enabled(v->pipe_ready, SD_EVENT_OFF);
        if (r < 0) {
                safe_close(p[0]);
                return r;
        }
        *ret_pipe_r = p[0];
        return 0;
}

/* ---- accepting ---- */


static unsigned connections_of_uid(VarlinkServer *s, uid_t uid) {
        unsigned n = 0;

        for (Varlink *c = s->connections; c; c = c->next)
                n += c->ucred.uid == uid;
        return n;
}

int varlink_server_add_connection(VarlinkServer *s, int fd, Varlink **ret) {
        socklen_t sl = sizeof(struct ucred);
        sd_varlink *link = NULL;
        int r, pipe_r = -1;
        Varlink *v;

        if (!s->event)
                return -ENXIO;
        v = calloc(1, sizeof *v);
        if (!v)
                return -ENOMEM;
        v->n_ref = 1;   /* the server's reference, dropped at disconnect */
        v->server = s;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &v->ucred, &sl) < 0)
                v->ucred = (struct ucred) { .pid = 0, .uid = (uid_t) -1, .gid = (gid_t) -1 };
        if (!varlink_limits_admit(&s->limits, s->n_connections, connections_of_uid(s, v->ucred.uid), &v->ucred)) {
                free(v);
                return -EMFILE;
        }
        if (s->limits.idle_timeout > 0) {
                r = sd_event_add_time_relative(s->event, &v->idle, CLOCK_MONOTONIC, s->limits.idle_timeout, 0,
                                               varlink_idle_handler, v);
                if (r < 0) {
                        free(v);
                        return r;
                }
        }
        r = sd_event_add_defer(s->event, &v->resume, varlink_resume_handler, v);
        if (r >= 0)
                r = sd_event_source_set_priority(v->resume, s->priority + 1);
        if (r >= 0)
                r = sd_event_source_set_enabled(v->resume, SD_EVENT_OFF);
        v->sock = v->pipe_w = -1;
        if (r >= 0)
                r = input_setup(s, v, fd, &pipe_r);
        if (r >= 0) {
                r = sd_varlink_server_add_connection_pair(s->sd, pipe_r, fd, &v->ucred, &link);
                if (r < 0)
                        safe_close(pipe_r);
        }
        if (r < 0) {
                input_done(v);
                sd_event_source_disable_unref(v->idle);
                sd_event_source_disable_unref(v->resume);
                free(v);
                return r;       /* the caller still owns fd */
        }
        v->link = sd_varlink_ref(link);
        sd_varlink_set_userdata(link, v);
        v->next = s->connections;
        if (s->connections)
                s->connections->prev = v;
        s->connections = v;
        s->n_connections++;
        if (ret)
                *ret = v;
        return 0;
}

int varlink_server_attach_event(VarlinkServer *s, sd_event *event, int64_t priority) {
        int r;

        if (s->event)
                return -EBUSY;
        r = sd_varlink_server_attach_event(s->sd, event, priority);
        if (r < 0)
                return r;
        s->event = sd_event_ref(event);
        s->priority = priority;
        r = varlink_budget_attach_event(s->budget, event, priority);
        if (r < 0)
                return r;
        return varlink_listeners_attach(&s->listeners, event, priority);
}

int varlink_server_listen_fd(VarlinkServer *s, int fd) {
        return varlink_listeners_add_fd(&s->listeners, fd);
}

int varlink_server_listen_at(VarlinkServer *s, int dir_fd, const char *name, mode_t mode) {
        return varlink_listeners_add_at(&s->listeners, dir_fd, name, mode);
}

void varlink_server_shutdown(VarlinkServer *s) {
        while (s->connections)
                varlink_close(s->connections);
        varlink_listeners_done(&s->listeners);
}
