/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Varlink server: connections, dispatch in call order, org.varlink.service.
 * See varlink-server.h for why this is hand-written. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "time-util.h"
#include "varlink-budget.h"
#include "varlink-limits.h"
#include "varlink-server.h"
#include "varlink-socket.h"

typedef enum VarlinkState {
        VARLINK_IDLE,           /* ready to take the next call from the input */
        VARLINK_CALL,           /* a call is being served; later calls wait */
        VARLINK_DISCONNECTED,
} VarlinkState;

struct Varlink {
        unsigned n_ref;
        VarlinkServer *server;
        Varlink *next, *prev;

        int fd;
        sd_event_source *io;
        sd_event_source *defer;         /* resumes input after an async reply */
        VarlinkState state;
        VarlinkMethodFlags call_flags;
        bool got_eof;
        bool backlog;                   /* whole calls wait in the input for the next turn: read no more */
        bool waiting;                   /* ...for its uid's call budget (varlink-budget.h): read no more */
        unsigned paid;                  /* calls the budget granted, not yet taken */

        char *in;
        size_t in_len, in_alloc;
        size_t buffer_max;              /* the server's limit when this connection came */
        sd_event_source *idle;          /* disconnects a peer that says nothing whole */
        char *out;
        size_t out_len, out_index, out_alloc;

        struct ucred ucred;
        void *userdata;
};

typedef struct VarlinkBinding {
        char *method;
        VarlinkMethod callback;
} VarlinkBinding;

typedef struct VarlinkInterface {
        char *name;
        char *description;
} VarlinkInterface;

struct VarlinkServer {
        unsigned n_ref;
        void *userdata;
        sd_event *event;
        int64_t priority;

        char *vendor, *product, *version, *url;
        VarlinkInterface *interfaces;
        size_t n_interfaces;
        VarlinkBinding *bindings;
        size_t n_bindings;
        VarlinkDisconnect on_disconnect;

        VarlinkListeners listeners;

        Varlink *connections;
        unsigned n_connections;
        size_t buffer_max;
        VarlinkLimits limits;
        VarlinkBudget *budget;
};

static const char service_interface_description[] =
        "# The Varlink Service Interface is provided by every varlink service. It\n"
        "# describes the service and the interfaces it implements.\n"
        "interface org.varlink.service\n"
        "\n"
        "# Get a list of all the interfaces a service provides and information\n"
        "# about the implementation.\n"
        "method GetInfo() -> (\n"
        "  vendor: string,\n"
        "  product: string,\n"
        "  version: string,\n"
        "  url: string,\n"
        "  interfaces: []string\n"
        ")\n"
        "\n"
        "# Get the description of an interface that is implemented by this service.\n"
        "method GetInterfaceDescription(interface: string) -> (description: string)\n"
        "\n"
        "# The requested interface was not found.\n"
        "error InterfaceNotFound (interface: string)\n"
        "\n"
        "# The requested method was not found\n"
        "error MethodNotFound (method: string)\n"
        "\n"
        "# The interface defines the requested method, but the service does not\n"
        "# implement it.\n"
        "error MethodNotImplemented (method: string)\n"
        "\n"
        "# One of the passed parameters is invalid.\n"
        "error InvalidParameter (parameter: string)\n"
        "\n"
        "# Client is denied access\n"
        "error PermissionDenied ()\n"
        "\n"
        "# Method is expected to be called with 'more' set to true, but wasn't\n"
        "error ExpectedMore ()\n";

#define SERVICE_INTERFACE "org.varlink.service"

/* ---- server object ---- */

static int server_accept(void *userdata, int fd) {
        return varlink_server_add_connection(userdata, fd, NULL);
}

static void server_granted(void *conn, unsigned n, void *userdata);

int varlink_server_new(VarlinkServer **ret) {
        VarlinkServer *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        if (varlink_budget_new(server_granted, s, &s->budget) < 0) {
                free(s);
                return -ENOMEM;
        }
        varlink_budget_set(s->budget, VARLINK_CALLS_PER_UID_RATE_DEFAULT, VARLINK_CALLS_PER_UID_BURST_DEFAULT,
                           VARLINK_CALLS_OTHERS_RATE_DEFAULT, VARLINK_CALLS_OTHERS_BURST_DEFAULT);
        s->n_ref = 1;
        s->buffer_max = VARLINK_BUFFER_MAX_DEFAULT;
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

static void varlink_server_free(VarlinkServer *s) {
        varlink_server_shutdown(s);
        varlink_budget_free(s->budget);
        sd_event_unref(s->event);
        free(s->vendor);
        free(s->product);
        free(s->version);
        free(s->url);
        for (size_t i = 0; i < s->n_interfaces; i++) {
                free(s->interfaces[i].name);
                free(s->interfaces[i].description);
        }
        free(s->interfaces);
        for (size_t i = 0; i < s->n_bindings; i++)
                free(s->bindings[i].method);
        free(s->bindings);
        free(s);
}

VarlinkServer *varlink_server_unref(VarlinkServer *s) {
        if (s && --s->n_ref == 0)
                varlink_server_free(s);
        return NULL;
}

void varlink_server_set_userdata(VarlinkServer *s, void *userdata) {
        s->userdata = userdata;
}

static int strdup_replace(char **p, const char *v) {
        char *c = strdup(v ? v : "");
        if (!c)
                return -ENOMEM;
        free(*p);
        *p = c;
        return 0;
}

int varlink_server_set_info(VarlinkServer *s, const char *vendor, const char *product,
                            const char *version, const char *url) {
        if (strdup_replace(&s->vendor, vendor) < 0 || strdup_replace(&s->product, product) < 0 ||
            strdup_replace(&s->version, version) < 0 || strdup_replace(&s->url, url) < 0)
                return -ENOMEM;
        return 0;
}

static int interface_name_from_description(const char *d, char **ret) {
        /* The first non-comment, non-blank line is "interface NAME". */
        for (const char *p = d; p && *p;) {
                const char *eol = strchrnul(p, '\n');
                const char *q = p;
                while (q < eol && (*q == ' ' || *q == '\t'))
                        q++;
                if (q < eol && *q != '#') {
                        if (strncmp(q, "interface", 9) != 0 || (q[9] != ' ' && q[9] != '\t'))
                                return -EINVAL;
                        q += 9;
                        while (q < eol && (*q == ' ' || *q == '\t'))
                                q++;
                        const char *e = q;
                        while (e < eol && *e != ' ' && *e != '\t' && *e != '\r')
                                e++;
                        if (e == q)
                                return -EINVAL;
                        *ret = strndup(q, e - q);
                        return *ret ? 0 : -ENOMEM;
                }
                p = *eol ? eol + 1 : NULL;
        }
        return -EINVAL;
}

int varlink_server_add_interface(VarlinkServer *s, const char *description,
                                 const struct sd_varlink_interface *compiled) {
        _cleanup_free_ char *name = NULL;
        VarlinkInterface *n;
        int r;

        r = interface_name_from_description(description, &name);
        if (r < 0)
                return r;
        n = reallocarray(s->interfaces, s->n_interfaces + 1, sizeof *n);
        if (!n)
                return -ENOMEM;
        s->interfaces = n;
        n[s->n_interfaces].description = strdup(description);
        if (!n[s->n_interfaces].description)
                return -ENOMEM;
        n[s->n_interfaces++].name = TAKE_PTR(name);
        return 0;
}

int varlink_server_bind_method(VarlinkServer *s, const char *method, VarlinkMethod callback) {
        VarlinkBinding *n;

        if (!strchr(method, '.'))
                return -EINVAL;
        for (size_t i = 0; i < s->n_bindings; i++)
                if (strcmp(s->bindings[i].method, method) == 0)
                        return -EEXIST;
        n = reallocarray(s->bindings, s->n_bindings + 1, sizeof *n);
        if (!n)
                return -ENOMEM;
        s->bindings = n;
        n[s->n_bindings].method = strdup(method);
        if (!n[s->n_bindings].method)
                return -ENOMEM;
        n[s->n_bindings++].callback = callback;
        return 0;
}

int varlink_server_bind_disconnect(VarlinkServer *s, VarlinkDisconnect callback) {
        s->on_disconnect = callback;
        return 0;
}

void varlink_server_set_buffer_max(VarlinkServer *s, size_t bytes) {
        s->buffer_max = bytes;
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

void varlink_server_set_connections_root_reserved(VarlinkServer *s, unsigned n) {
        s->limits.connections_root_reserved = n;
}

void varlink_server_set_calls_max(VarlinkServer *s, unsigned per_uid_rate, unsigned per_uid_burst,
                                  unsigned others_rate, unsigned others_burst) {
        varlink_budget_set(s->budget, per_uid_rate, per_uid_burst, others_rate, others_burst);
}

void varlink_server_set_connections_max(VarlinkServer *s, unsigned total, unsigned per_uid) {
        s->limits.connections_max = total;
        s->limits.connections_per_uid_max = per_uid;
}

unsigned varlink_server_current_connections(VarlinkServer *s) {
        return s->n_connections;
}

/* ---- connection ---- */

Varlink *varlink_ref(Varlink *v) {
        if (v)
                v->n_ref++;
        return v;
}

static void varlink_free(Varlink *v) {
        sd_event_source_disable_unref(v->io);
        sd_event_source_disable_unref(v->defer);
        sd_event_source_disable_unref(v->idle);
        if (v->fd >= 0)
                close(v->fd);
        free(v->in);
        free(v->out);
        free(v);
}

Varlink *varlink_unref(Varlink *v) {
        if (v && --v->n_ref == 0)
                varlink_free(v);
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
        return v->in_alloc;
}

bool varlink_is_connected(Varlink *v) {
        return v->state != VARLINK_DISCONNECTED;
}

void varlink_close(Varlink *v) {
        VarlinkServer *s = v->server;

        if (v->state == VARLINK_DISCONNECTED)
                return;
        v->state = VARLINK_DISCONNECTED;
        if (v->waiting)
                varlink_budget_forget(s ? s->budget : NULL, v);
        v->waiting = false;
        v->io = sd_event_source_disable_unref(v->io);
        v->defer = sd_event_source_disable_unref(v->defer);
        v->idle = sd_event_source_disable_unref(v->idle);
        v->in = mfree(v->in);
        v->in_len = v->in_alloc = 0;
        if (v->fd >= 0)
                close(v->fd);
        v->fd = -1;

        if (s) {
                if (v->prev)
                        v->prev->next = v->next;
                else
                        s->connections = v->next;
                if (v->next)
                        v->next->prev = v->prev;
                v->next = v->prev = NULL;
                s->n_connections--;
                if (s->on_disconnect)
                        s->on_disconnect(s, v, s->userdata);
        }
        /* Drop the server's reference; holders of their own keep the object. */
        varlink_unref(v);
}

static int varlink_update_events(Varlink *v) {
        uint32_t events = 0;

        if (v->state == VARLINK_DISCONNECTED)
                return 0;
        if (!v->got_eof && !v->backlog && !v->waiting)
                events |= EPOLLIN;
        if (v->out_index < v->out_len)
                events |= EPOLLOUT;
        return sd_event_source_set_io_events(v->io, events);
}

static int varlink_flush(Varlink *v) {
        while (v->out_index < v->out_len) {
                ssize_t n = send(v->fd, v->out + v->out_index, v->out_len - v->out_index,
                                 MSG_DONTWAIT | MSG_NOSIGNAL);
                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                break;
                        return -errno;
                }
                v->out_index += n;
        }
        if (v->out_index == v->out_len)
                v->out_index = v->out_len = 0;
        return varlink_update_events(v);
}

static size_t output_queued(const Varlink *v) {
        return v->out_len - v->out_index;
}

/* Whether len more bytes for v's peer would pass a limit on what is
 * queued (varlink-limits.h). */
static bool output_over(const Varlink *v, size_t len) {
        size_t of_uid = 0, of_others = 0;

        for (const Varlink *c = v->server->connections; c; c = c->next) {
                if (c->ucred.uid == 0)
                        continue;
                of_others += output_queued(c);
                if (c->ucred.uid == v->ucred.uid)
                        of_uid += output_queued(c);
        }
        return varlink_limits_output_over(&v->server->limits, v->ucred.uid, output_queued(v), of_uid, of_others, len);
}

/* Queues len bytes of text (a message and its NUL) and sends what the
 * socket takes. */
static int varlink_enqueue_text(Varlink *v, const char *text, size_t len) {
        int r;

        if (output_over(v, len)) {
                log_warning("varlink: peer pid " PID_FMT " (uid %u) does not read its replies (%zu KiB queued), "
                            "disconnecting.", v->ucred.pid, (unsigned) v->ucred.uid,
                            (v->out_len - v->out_index) / 1024);
                varlink_close(v);
                return -ENOBUFS;
        }
        if (v->out_index > 0) {
                memmove(v->out, v->out + v->out_index, v->out_len - v->out_index);
                v->out_len -= v->out_index;
                v->out_index = 0;
        }
        if (v->out_len + len > v->out_alloc) {
                size_t want = (v->out_len + len) * 2;
                char *n = realloc(v->out, want);
                if (!n)
                        return -ENOMEM;
                v->out = n;
                v->out_alloc = want;
        }
        memcpy(v->out + v->out_len, text, len); /* includes the NUL separator */
        v->out_len += len;

        r = varlink_flush(v);
        if (r < 0) {
                log_debug_errno(r, "varlink: write failed, disconnecting: %m");
                varlink_close(v);
        }
        return r;
}

static int varlink_enqueue(Varlink *v, json_object *message) {
        const char *text = varlink_message_format(message);

        if (!text)
                return -ENOMEM;
        return varlink_enqueue_text(v, text, strlen(text) + 1);
}

static void varlink_arm_idle(Varlink *v);

static void varlink_call_done(Varlink *v) {
        v->state = VARLINK_IDLE;
        varlink_arm_idle(v);
        /* More calls may be waiting in the input; pick them up from the loop,
         * not from inside the reply (the caller may be mid-callback). */
        if (v->defer)
                sd_event_source_set_enabled(v->defer, SD_EVENT_ONESHOT);
}

/* What every reply, error and notification begins with: 1 to send it, 0
 * if the call was oneway (answered by saying nothing), or an error. */
static int varlink_send_check(Varlink *v, bool continues) {
        if (v->state == VARLINK_DISCONNECTED)
                return -ENOTCONN;
        if (v->state != VARLINK_CALL)
                return -EBUSY;  /* no call to answer */
        if (continues && !(v->call_flags & VARLINK_METHOD_MORE))
                return -EPROTO;
        if (v->call_flags & VARLINK_METHOD_ONEWAY) {
                if (!continues)
                        varlink_call_done(v);
                return 0;
        }
        return 1;
}

static json_object *varlink_message_new(const char *error_id, json_object *parameters, bool continues) {
        json_object *m = json_object_new_object();

        if (!m)
                return NULL;
        if (error_id)
                json_object_object_add(m, "error", json_object_new_string(error_id));
        json_object_object_add(m, "parameters",
                               parameters ? json_object_get(parameters) : json_object_new_object());
        if (continues)
                json_object_object_add(m, "continues", json_object_new_boolean(true));
        return m;
}

static int varlink_send(Varlink *v, const char *error_id, json_object *parameters, bool continues) {
        _cleanup_json_ json_object *m = NULL;
        int r;

        r = varlink_send_check(v, continues);
        if (r <= 0)
                return r;
        m = varlink_message_new(error_id, parameters, continues);
        if (!m)
                return -ENOMEM;
        if (!continues)
                varlink_call_done(v);
        r = varlink_enqueue(v, m);
        return r == -ENOBUFS ? 0 : r;   /* a dropped peer is not the method's failure */
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

static int varlink_error_with_string(Varlink *v, const char *error_id, const char *key, const char *value) {
        _cleanup_json_ json_object *p = json_object_new_object();
        if (!p)
                return -ENOMEM;
        json_object_object_add(p, key, json_object_new_string(value));
        return varlink_error(v, error_id, p);
}

int varlink_error_invalid_parameter(Varlink *v, const char *name) {
        return varlink_error_with_string(v, VARLINK_ERROR_INVALID_PARAMETER, "parameter", name);
}

/* The whole message, its NUL included: sending it is a copy. */
struct VarlinkReply {
        unsigned n_ref;
        size_t len;
        char text[];
};

int varlink_reply_new(json_object *parameters, VarlinkReply **ret) {
        _cleanup_json_ json_object *m = varlink_message_new(NULL, parameters, false);
        const char *text = m ? varlink_message_format(m) : NULL;
        size_t len = text ? strlen(text) + 1 : 0;
        VarlinkReply *r;

        if (!text)
                return -ENOMEM;
        r = malloc(sizeof *r + len);
        if (!r)
                return -ENOMEM;
        r->n_ref = 1;
        r->len = len;
        memcpy(r->text, text, len);
        *ret = r;
        return 0;
}

VarlinkReply *varlink_reply_ref(VarlinkReply *r) {
        if (r)
                r->n_ref++;
        return r;
}

VarlinkReply *varlink_reply_unref(VarlinkReply *r) {
        if (r && --r->n_ref == 0)
                free(r);
        return NULL;
}

int varlink_reply_send(Varlink *v, VarlinkReply *reply) {
        int r = varlink_send_check(v, false);

        if (r <= 0)
                return r;
        varlink_call_done(v);
        r = varlink_enqueue_text(v, reply->text, reply->len);
        return r == -ENOBUFS ? 0 : r;   /* a dropped peer is not the method's failure */
}

/* ---- org.varlink.service ---- */

static const VarlinkInterface *server_find_interface(VarlinkServer *s, const char *name) {
        for (size_t i = 0; i < s->n_interfaces; i++)
                if (strcmp(s->interfaces[i].name, name) == 0)
                        return &s->interfaces[i];
        return NULL;
}

static int service_get_info(Varlink *v, json_object *p) {
        VarlinkServer *s = v->server;
        _cleanup_json_ json_object *r = NULL;
        json_object *ifaces;

        /* Checked before anything is allocated: a bad call costs nothing. */
        json_object_object_foreach(p, key, val) {
                (void) val;
                return varlink_error_invalid_parameter(v, key);
        }
        r = json_object_new_object();
        ifaces = json_object_new_array();
        if (!r || !ifaces) {
                json_object_put(ifaces);
                return -ENOMEM;
        }
        json_object_object_add(r, "vendor", json_object_new_string(s->vendor ? s->vendor : ""));
        json_object_object_add(r, "product", json_object_new_string(s->product ? s->product : ""));
        json_object_object_add(r, "version", json_object_new_string(s->version ? s->version : ""));
        json_object_object_add(r, "url", json_object_new_string(s->url ? s->url : ""));
        json_object_array_add(ifaces, json_object_new_string(SERVICE_INTERFACE));
        for (size_t i = 0; i < s->n_interfaces; i++)
                json_object_array_add(ifaces, json_object_new_string(s->interfaces[i].name));
        json_object_object_add(r, "interfaces", ifaces);
        return varlink_reply(v, r);
}

static int service_get_interface_description(Varlink *v, json_object *p) {
        _cleanup_json_ json_object *r = NULL;
        json_object *name_j = NULL;
        const VarlinkInterface *iface;
        const char *name, *description;

        json_object_object_foreach(p, key, val) {
                (void) val;
                if (strcmp(key, "interface") != 0)
                        return varlink_error_invalid_parameter(v, key);
        }
        if (!json_object_object_get_ex(p, "interface", &name_j) ||
            !json_object_is_type(name_j, json_type_string))
                return varlink_error_invalid_parameter(v, "interface");
        name = json_object_get_string(name_j);

        if (strcmp(name, SERVICE_INTERFACE) == 0)
                description = service_interface_description;
        else if ((iface = server_find_interface(v->server, name)))
                description = iface->description;
        else
                return varlink_error_with_string(v, VARLINK_ERROR_INTERFACE_NOT_FOUND, "interface", name);

        r = json_object_new_object();
        if (!r)
                return -ENOMEM;
        json_object_object_add(r, "description", json_object_new_string(description));
        return varlink_reply(v, r);
}

/* ---- dispatch ---- */

static int varlink_dispatch(Varlink *v, json_object *m) {
        VarlinkServer *s = v->server;
        json_object *method_j = NULL, *params = NULL, *flag_j;
        _cleanup_json_ json_object *empty = NULL;
        VarlinkMethodFlags flags = 0;
        VarlinkMethod callback = NULL;
        const char *method, *dot;
        int r;

        if (!json_object_object_get_ex(m, "method", &method_j) ||
            !json_object_is_type(method_j, json_type_string))
                return -EBADMSG;
        method = json_object_get_string(method_j);
        /* "interface.Method" as the varlink grammar has it; a JSON string may
         * hold a NUL (\u0000) that C would silently cut at: not a name. */
        if (!varlink_method_name_is_valid(method, (size_t) json_object_get_string_len(method_j)))
                return -EBADMSG;
        dot = strrchr(method, '.');

        json_object_object_get_ex(m, "parameters", &params);
        if (params && !json_object_is_type(params, json_type_object)) {
                if (!json_object_is_type(params, json_type_null))
                        return -EBADMSG;
                params = NULL;
        }
        if (!params) {
                params = empty = json_object_new_object();
                if (!empty)
                        return -ENOMEM;
        }
        if (json_object_object_get_ex(m, "oneway", &flag_j)) {
                if (!json_object_is_type(flag_j, json_type_boolean))
                        return -EBADMSG;
                if (json_object_get_boolean(flag_j))
                        flags |= VARLINK_METHOD_ONEWAY;
        }
        if (json_object_object_get_ex(m, "more", &flag_j)) {
                if (!json_object_is_type(flag_j, json_type_boolean))
                        return -EBADMSG;
                if (json_object_get_boolean(flag_j))
                        flags |= VARLINK_METHOD_MORE;
        }
        if ((flags & VARLINK_METHOD_ONEWAY) && (flags & VARLINK_METHOD_MORE))
                return -EBADMSG;
        if (json_object_object_get_ex(m, "upgrade", &flag_j)) {
                if (!json_object_is_type(flag_j, json_type_boolean))
                        return -EBADMSG;
                if (json_object_get_boolean(flag_j)) {
                        /* No method here hands the connection over to another
                         * protocol: say so, rather than carry on as if. */
                        v->state = VARLINK_CALL;
                        v->call_flags = flags & ~VARLINK_METHOD_ONEWAY;
                        return varlink_error_invalid_parameter(v, "upgrade");
                }
        }

        v->state = VARLINK_CALL;
        v->call_flags = flags;

        if (strcmp(method, SERVICE_INTERFACE ".GetInfo") == 0)
                r = service_get_info(v, params);
        else if (strcmp(method, SERVICE_INTERFACE ".GetInterfaceDescription") == 0)
                r = service_get_interface_description(v, params);
        else {
                for (size_t i = 0; i < s->n_bindings; i++)
                        if (strcmp(s->bindings[i].method, method) == 0) {
                                callback = s->bindings[i].callback;
                                break;
                        }
                if (callback)
                        r = callback(v, params, flags, s->userdata);
                else {
                        _cleanup_free_ char *iface = strndup(method, dot - method);
                        if (!iface)
                                return -ENOMEM;
                        if (strcmp(iface, SERVICE_INTERFACE) == 0 || server_find_interface(s, iface))
                                r = varlink_error_with_string(v, VARLINK_ERROR_METHOD_NOT_FOUND,
                                                              "method", method);
                        else
                                r = varlink_error_with_string(v, VARLINK_ERROR_INTERFACE_NOT_FOUND,
                                                              "interface", iface);
                }
        }

        if (v->state != VARLINK_CALL)
                return 0;       /* answered (or disconnected) */
        if (r < 0) {
                _cleanup_json_ json_object *p = json_object_new_object();
                log_debug_errno(r, "varlink: %s failed: %m", method);
                if (p)
                        json_object_object_add(p, "errno", json_object_new_int(-r));
                return varlink_error(v, VARLINK_ERROR_SYSTEM, p);
        }
        if (flags & VARLINK_METHOD_ONEWAY)
                varlink_call_done(v);
        /* Otherwise the method answers later (e.g. a Monitor that streams). */
        return 0;
}

/* A connection with no call in progress must complete a message within
 * the idle timeout, or it goes: a peer that connects and says nothing (or
 * half a message) does not hold a buffer and a slot forever. A call in
 * progress (a Monitor streaming, say) is not idle. */
static void varlink_arm_idle(Varlink *v) {
        uint64_t timeout = v->server->limits.idle_timeout;

        if (!v->idle || timeout == 0)
                return;
        /* Waiting for its budget is waiting for us, not idling. */
        if (v->state != VARLINK_IDLE || v->waiting) {
                (void) sd_event_source_set_enabled(v->idle, SD_EVENT_OFF);
                return;
        }
        (void) sd_event_source_set_time_relative(v->idle, timeout);
        (void) sd_event_source_set_enabled(v->idle, SD_EVENT_ONESHOT);
}

static int varlink_idle_handler(sd_event_source *source, uint64_t usec, void *userdata) {
        Varlink *v = userdata;

        log_debug("varlink: peer pid " PID_FMT " sent no complete call in time, disconnecting.", v->ucred.pid);
        varlink_close(v);
        return 0;
}

/* Calls taken from one connection's input in one loop turn. A peer that
 * pipelines thousands in one send gets them served a few at a time,
 * between everyone else's turns, and nothing more is read from it until
 * they are: its socket buffer, not the daemon, holds the rest. */
#define VARLINK_CALLS_PER_TURN 4

/* Pays for the next call in the input, or puts v in the budget's line:
 * nothing more is read from it, nor taken, until its turn. */
static bool varlink_pay_call(Varlink *v) {
        uint64_t now;

        if (v->paid > 0) {
                v->paid--;
                return true;
        }
        if (v->waiting)
                return false;
        if (sd_event_now(v->server->event, CLOCK_MONOTONIC, &now) < 0)
                now = now_usec(CLOCK_MONOTONIC);
        if (varlink_budget_take(v->server->budget, v, v->ucred.uid, 1, now) > 0)
                return true;
        v->waiting = true;
        varlink_arm_idle(v);
        return false;
}

static void server_granted(void *conn, unsigned n, void *userdata) {
        Varlink *v = conn;

        v->waiting = false;
        v->paid += n;
        /* Its input is taken up from the loop (see varlink_call_done()). */
        (void) sd_event_source_set_enabled(v->io, SD_EVENT_ON);
        (void) sd_event_source_set_enabled(v->defer, SD_EVENT_ONESHOT);
        varlink_arm_idle(v);
}

static int varlink_process_input(Varlink *v) {
        bool dispatched = false;
        unsigned calls = 0;

        v->backlog = false;
        while (v->state == VARLINK_IDLE) {
                ssize_t len = varlink_frame_find(v->in, v->in_len);
                _cleanup_json_ json_object *m = NULL;
                int r;

                if (len == -EAGAIN) {
                        if (v->got_eof && v->out_len == 0) {
                                /* Peer is done sending and everything is answered. */
                                varlink_close(v);
                                return 0;
                        }
                        break;
                }
                if (calls++ == VARLINK_CALLS_PER_TURN) {
                        /* The defer source, which every call done enables,
                         * takes the rest on a later turn. */
                        v->backlog = true;
                        break;
                }
                if (!varlink_pay_call(v))
                        break;  /* the budget's grant resumes it */
                m = varlink_message_parse(v->in, (size_t) len);
                memmove(v->in, v->in + len + 1, v->in_len - len - 1);
                v->in_len -= len + 1;
                dispatched = true;
                r = m ? varlink_dispatch(v, m) : -EBADMSG;
                if (r == -EBADMSG) {
                        log_debug("varlink: malformed message from pid " PID_FMT ", disconnecting.",
                                  v->ucred.pid);
                        varlink_close(v);
                        return 0;
                }
                if (r < 0 && v->state != VARLINK_DISCONNECTED) {
                        varlink_close(v);
                        return r;
                }
        }
        if (v->state == VARLINK_DISCONNECTED)
                return 0;
        (void) varlink_update_events(v);
        if (v->in_len == 0 && v->in) {
                /* Nothing pending: give the memory back until the next call. */
                v->in = mfree(v->in);
                v->in_alloc = 0;
        }
        /* A completed call restarts the clock; bytes that complete nothing do not. */
        if (dispatched || v->state != VARLINK_IDLE)
                varlink_arm_idle(v);
        return 0;
}

static int varlink_read(Varlink *v) {
        size_t max = v->buffer_max;
        ssize_t n;

        if (v->in_len >= max) {
                /* A full buffer without a complete message, or more pipelined
                 * input than we hold while a call is served: too much. */
                log_debug("varlink: peer pid " PID_FMT " sent more than %zu bytes, disconnecting.",
                          v->ucred.pid, max);
                return -EMSGSIZE;
        }
        /* Grow as the peer sends: an idle connection holds no buffer. */
        if (v->in_alloc - v->in_len < 4096 && v->in_alloc < max) {
                size_t want = MIN(MAX(v->in_alloc * 2, (size_t) 16384), max);
                char *b = realloc(v->in, want);
                if (!b)
                        return -ENOMEM;
                v->in = b;
                v->in_alloc = want;
        }
        n = recv(v->fd, v->in + v->in_len, v->in_alloc - v->in_len, MSG_DONTWAIT);
        if (n < 0)
                return (errno == EAGAIN || errno == EINTR) ? 0 : -errno;
        if (n == 0) {
                v->got_eof = true;
                return varlink_update_events(v);
        }
        v->in_len += n;
        return 0;
}

static int varlink_io_handler(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        _cleanup_(varlink_unrefp) Varlink *v = varlink_ref(userdata);
        int r;

        if (revents & EPOLLOUT) {
                r = varlink_flush(v);
                if (r < 0) {
                        varlink_close(v);
                        return 0;
                }
        }
        if (revents & EPOLLIN) {
                r = varlink_read(v);
                if (r < 0) {
                        varlink_close(v);
                        return 0;
                }
        }
        /* Hung up with calls still waiting their turn: serve them first
         * (a oneway call counts even if its sender is gone). */
        if ((revents & (EPOLLHUP | EPOLLERR)) && !(revents & EPOLLIN) && !v->backlog && !v->waiting && v->paid == 0) {
                varlink_close(v);
                return 0;
        }
        if ((revents & (EPOLLHUP | EPOLLERR)) && v->waiting) {
                /* epoll reports a hangup whatever we ask for: quiet until
                 * the grant, or it would wake the loop each turn. */
                (void) sd_event_source_set_enabled(v->io, SD_EVENT_OFF);
                return 0;
        }
        (void) varlink_process_input(v);
        return 0;
}

static int varlink_defer_handler(sd_event_source *source, void *userdata) {
        _cleanup_(varlink_unrefp) Varlink *v = varlink_ref(userdata);
        (void) varlink_process_input(v);
        return 0;
}


static unsigned connections_of_uid(VarlinkServer *s, uid_t uid) {
        unsigned n = 0;
        for (Varlink *c = s->connections; c; c = c->next)
                if (c->ucred.uid == uid)
                        n++;
        return n;
}

int varlink_server_add_connection(VarlinkServer *s, int fd, Varlink **ret) {
        socklen_t sl = sizeof(struct ucred);
        Varlink *v;
        int r;

        if (!s->event)
                return -ENXIO;

        v = calloc(1, sizeof *v);
        if (!v)
                return -ENOMEM;
        v->n_ref = 1;   /* the server's reference */
        v->fd = fd;
        v->server = s;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &v->ucred, &sl) < 0)
                v->ucred = (struct ucred){ .pid = 0, .uid = (uid_t) -1, .gid = (gid_t) -1 };

        v->buffer_max = s->buffer_max;
        if (!varlink_limits_admit(&s->limits, s->n_connections, connections_of_uid(s, v->ucred.uid), &v->ucred)) {
                v->fd = -1;     /* the caller still owns fd on failure */
                varlink_free(v);
                return -EMFILE;
        }

        r = sd_event_add_io(s->event, &v->io, fd, EPOLLIN, varlink_io_handler, v);
        if (r >= 0)
                r = sd_event_source_set_priority(v->io, s->priority);
        if (r >= 0 && s->limits.idle_timeout > 0)
                r = sd_event_add_time_relative(s->event, &v->idle, CLOCK_MONOTONIC, s->limits.idle_timeout, 0,
                                               varlink_idle_handler, v);
        if (r >= 0)
                r = sd_event_add_defer(s->event, &v->defer, varlink_defer_handler, v);
        /* Below every source of the server's priority: a defer source stays
         * pending from its first turn, so at the same priority a peer's
         * backlog would come before everything that became pending since. */
        if (r >= 0)
                r = sd_event_source_set_priority(v->defer, s->priority + 1);
        if (r >= 0)
                r = sd_event_source_set_enabled(v->defer, SD_EVENT_OFF);
        if (r < 0) {
                v->fd = -1;
                varlink_free(v);
                return r;
        }

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
