/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "interface.h"
#include "log.h"
#include "macro.h"
#include "metrics.h"
#include "service.h"
#include "socket-file.h"
#include "status.h"
#include "strutil.h"
#include "time-util.h"
#if VARLINK_SERVER_SD
#include "interface-sd.h"
#define IO_NUMASTATD_COMPILED (&vl_interface_io_numastatd)
#else
#define IO_NUMASTATD_COMPILED NULL
#endif

#define SERVICE_ERROR_APPLY_FAILED "io.numastatd.ApplyFailed"
#define SERVICE_ERROR_CONFIG_INVALID "io.numastatd.ConfigInvalid"
#define SERVICE_ERROR_HOLD_REFUSED "io.numastatd.HoldRefused"
#define SERVICE_ERROR_MONITOR_REFUSED "io.numastatd.MonitorRefused"
/* Monitor subscriptions one uid other than root may hold: each one costs a
 * status rendering per change and a queue. */
#define MONITORS_PER_UID_MAX 8

/* GetStatus replies kept for reuse, as text: while nothing was handled
 * since (the daemon's events, Status.changes) and for at most
 * STATUS_REUSE_USEC (what moves with time alone: the time shares), a
 * caller of the same kind (status_viewer_kind(): root, a uid the status
 * names, or anyone else) gets the same reply. A client pipelining calls
 * costs a lookup and a copy each, and any number of uids the status does
 * not name share one rendering. */
#define STATUS_REUSE_USEC (250 * USEC_PER_MSEC)
#define RENDERED_MAX 8

typedef struct RenderedStatus {
        StatusViewer viewer;
        uint64_t changes, at;
        VarlinkReply *reply;    /* NULL: free */
} RenderedStatus;

struct Service {
        const ServiceOps *ops;
        Manager *manager;
        VarlinkServer *varlink;
        SocketFile socket_file;         /* the socket file we bound ourselves, if any */
        Varlink **monitors;
        size_t n_monitors;
        Holds *holds;
        RenderedStatus rendered[RENDERED_MAX];
        size_t next_rendered;
        uint64_t status_renders;
};

/* What this caller may see (see StatusViewer). */
static StatusViewer link_viewer(Varlink *link) {
        uid_t uid;

        if (varlink_get_peer_uid(link, &uid) < 0)
                return (StatusViewer) { .uid = (uid_t) -1 };    /* unknown: sees the least */
        return (StatusViewer) { .all = uid == 0, .uid = uid };
}

static json_object *status_reply(const Status *st, const StatusViewer *v) {
        json_object *r = json_object_new_object(), *s = status_to_json(st, v);

        if (!r || !s) {
                json_object_put(r);
                json_object_put(s);
                return NULL;
        }
        json_object_object_add(r, "status", s);
        return r;
}

/* Rejects any parameter not in allowed (NULL-terminated). */
static int check_parameters(Varlink *link, json_object *p, const char *const *allowed) {
        json_object_object_foreach(p, key, val) {
                bool found = false;
                (void) val;
                for (size_t i = 0; allowed && allowed[i]; i++)
                        if (strcmp(key, allowed[i]) == 0)
                                found = true;
                if (!found) {
                        varlink_error_invalid_parameter(link, key);
                        return -EINVAL;
                }
        }
        return 0;
}

static int require_root(Varlink *link) {
        uid_t uid;

        if (varlink_get_peer_uid(link, &uid) < 0 || uid != 0) {
                varlink_error(link, VARLINK_ERROR_PERMISSION_DENIED, NULL);
                return -EPERM;
        }
        return 0;
}

static bool same_viewer(const StatusViewer *a, const StatusViewer *b) {
        return a->all == b->all && (a->all || a->uid == b->uid);
}

/* The reply for this caller: kept from before if still true, else made
 * and kept. Borrowed: valid until the next call. */
static VarlinkReply *status_reply_kept(Service *svc, const StatusViewer *caller) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        _cleanup_json_ json_object *r = NULL;
        RenderedStatus *slot;
        StatusViewer v;
        Status st;

        svc->ops->status(svc->manager, now, &st);
        v = status_viewer_kind(&st, caller);
        for (size_t i = 0; i < RENDERED_MAX; i++) {
                RenderedStatus *k = &svc->rendered[i];

                if (k->reply && same_viewer(&k->viewer, &v) && k->changes == st.changes &&
                    now - k->at < STATUS_REUSE_USEC)
                        return k->reply;
        }
        slot = &svc->rendered[svc->next_rendered];
        svc->next_rendered = (svc->next_rendered + 1) % RENDERED_MAX;
        slot->reply = varlink_reply_unref(slot->reply);
        r = status_reply(&st, &v);
        if (!r || varlink_reply_new(r, &slot->reply) < 0)
                return NULL;
        slot->viewer = v;
        slot->changes = st.changes;
        slot->at = now;
        svc->status_renders++;
        return slot->reply;
}

static int method_get_status(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        Service *svc = userdata;
        StatusViewer v = link_viewer(link);
        VarlinkReply *r;

        if (check_parameters(link, p, NULL) < 0)
                return 0;
        r = status_reply_kept(svc, &v);
        if (!r)
                return -ENOMEM;
        return varlink_reply_send(link, r);
}

uint64_t service_status_renders(const Service *svc) {
        return svc ? svc->status_renders : 0;
}

static int method_get_counters(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        Service *svc = userdata;
        _cleanup_json_ json_object *r = NULL;
        json_object *c;
        Status st;
        bool fresh;

        if (check_parameters(link, p, NULL) < 0)
                return 0;
        fresh = svc->ops->sample_for_caller(svc->manager);
        svc->ops->status(svc->manager, now_usec(CLOCK_MONOTONIC), &st);
        r = json_object_new_object();
        c = status_counters_to_json(&st, fresh);
        if (!r || !c) {
                json_object_put(c);
                return -ENOMEM;
        }
        json_object_object_add(r, "counters", c);
        return varlink_reply(link, r);
}

static int method_list_known_readers(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        Service *svc = userdata;
        _cleanup_json_ json_object *r = json_object_new_object();
        json_object *masked = json_object_new_array();
        Status st;

        if (check_parameters(link, p, NULL) < 0) {
                json_object_put(masked);
                return 0;
        }
        svc->ops->status(svc->manager, now_usec(CLOCK_MONOTONIC), &st);
        if (!r || !masked) {
                json_object_put(masked);
                return -ENOMEM;
        }
        for (char **n = st.known_readers ? st.known_readers->masked : NULL; n && *n; n++)
                json_object_array_add(masked, json_object_new_string(*n));
        json_object_object_add(r, "enabled", json_object_new_boolean(st.known_readers != NULL));
        json_object_object_add(r, "known_readers", catalogue_to_json(st.known_readers));
        json_object_object_add(r, "masked", masked);
        json_object_object_add(r, "dirs", catalogue_dirs_json(st.known_readers));
        return varlink_reply(link, r);
}

/* An error reply: a message for people, and the errno when there is one. */
static int reply_error(Varlink *link, const char *error, const char *message, int error_number) {
        _cleanup_json_ json_object *e = json_object_new_object();

        if (!e)
                return -ENOMEM;
        json_object_object_add(e, "message", json_object_new_string(message));
        if (error_number != 0)
                json_object_object_add(e, "errno", json_object_new_int(abs(error_number)));
        return varlink_error(link, error, e);
}

static int method_get_metrics(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        Service *svc = userdata;
        _cleanup_json_ json_object *r = NULL;
        _cleanup_free_ char *text = NULL;
        Status st;

        if (check_parameters(link, p, NULL) < 0)
                return 0;
        (void) svc->ops->sample_for_caller(svc->manager);
        svc->ops->status(svc->manager, now_usec(CLOCK_MONOTONIC), &st);
        text = metrics_render(&st);
        r = json_object_new_object();
        if (!text || !r)
                return -ENOMEM;
        json_object_object_add(r, "text", json_object_new_string(text));
        return varlink_reply(link, r);
}

static int method_hold(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        static const char *const allowed[] = { "reason", "timeout", NULL };
        Service *svc = userdata;
        json_object *reason_j = NULL, *timeout_j = NULL;
        _cleanup_json_ json_object *r = NULL;
        const char *reason = NULL, *why = NULL;
        int64_t timeout = 0;
        uint64_t id = 0;
        int k;

        if (check_parameters(link, p, allowed) < 0)
                return 0;
        if (!(flags & VARLINK_METHOD_MORE))
                return varlink_error(link, VARLINK_ERROR_EXPECTED_MORE, NULL);
        if (holds_of_link(svc->holds, link) != 0)
                return varlink_error_invalid_parameter(link, "more");   /* one hold per connection */
        if (json_object_object_get_ex(p, "reason", &reason_j) && !json_object_is_type(reason_j, json_type_null)) {
                if (!json_object_is_type(reason_j, json_type_string) ||
                    json_object_get_string_len(reason_j) >= HOLD_REASON_MAX ||
                    memchr(json_object_get_string(reason_j), 0, (size_t) json_object_get_string_len(reason_j)))
                        return varlink_error_invalid_parameter(link, "reason");
                reason = json_object_get_string(reason_j);
        }
        if (json_object_object_get_ex(p, "timeout", &timeout_j) && !json_object_is_type(timeout_j, json_type_null)) {
                if (!json_object_is_type(timeout_j, json_type_int))
                        return varlink_error_invalid_parameter(link, "timeout");
                timeout = json_object_get_int64(timeout_j);
                if (timeout <= 0 || (uint64_t) timeout > HOLD_TIMEOUT_MAX_USEC)
                        return varlink_error_invalid_parameter(link, "timeout");
        }
        why = svc->ops->hold_refused(svc->manager, &k);
        if (!why)
                k = holds_add(svc->holds, link, reason, (usec_t) timeout, &id, &why);
        if (k < 0)
                return why ? reply_error(link, SERVICE_ERROR_HOLD_REFUSED, why, 0) : k;
        if (!svc->ops->counting(svc->manager)) {
                /* In force, but the kernel did not take the write: say so, end it. */
                holds_release(svc->holds, id);
                return reply_error(link, SERVICE_ERROR_APPLY_FAILED, "the kernel did not turn counting on", EIO);
        }
        r = json_object_new_object();
        if (!r)
                return -ENOMEM;
        json_object_object_add(r, "held", json_object_new_boolean(true));
        json_object_object_add(r, "id", json_object_new_int64((int64_t) id));
        return varlink_notify(link, r);
}

static int method_monitor(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        Service *svc = userdata;
        _cleanup_json_ json_object *r = NULL;
        Varlink **a;
        Status st;

        if (check_parameters(link, p, NULL) < 0)
                return 0;
        if (!(flags & VARLINK_METHOD_MORE))
                return varlink_error(link, VARLINK_ERROR_EXPECTED_MORE, NULL);
        StatusViewer v = link_viewer(link);
        if (!v.all) {
                size_t mine = 0;

                for (size_t i = 0; i < svc->n_monitors; i++)
                        mine += link_viewer(svc->monitors[i]).uid == v.uid;
                if (mine >= MONITORS_PER_UID_MAX)
                        return reply_error(link, SERVICE_ERROR_MONITOR_REFUSED,
                                           "too many Monitor subscriptions by this user (8)", 0);
        }
        svc->ops->status(svc->manager, now_usec(CLOCK_MONOTONIC), &st);
        r = status_reply(&st, &v);
        if (!r)
                return -ENOMEM;
        a = reallocarray(svc->monitors, svc->n_monitors + 1, sizeof *a);
        if (!a)
                return -ENOMEM;
        svc->monitors = a;
        a[svc->n_monitors++] = varlink_ref(link);
        return varlink_notify(link, r);
}

static void on_disconnect(VarlinkServer *server, Varlink *link, void *userdata) {
        Service *svc = userdata;

        /* A caller killed or gone never leaves a hold behind. */
        holds_release(svc->holds, holds_of_link(svc->holds, link));

        for (size_t i = 0; i < svc->n_monitors; i++)
                if (svc->monitors[i] == link) {
                        varlink_unref(link);
                        svc->monitors[i] = svc->monitors[--svc->n_monitors];
                        return;
                }
}

/* One rendering per viewer this round: root's, or one uid's. */
typedef struct Rendered {
        StatusViewer viewer;
        json_object *reply;
} Rendered;

void service_notify_monitors(Service *svc, const Status *st) {
        _cleanup_free_ Varlink **copy = NULL;
        _cleanup_free_ Rendered *done = NULL;
        size_t n = svc ? svc->n_monitors : 0, n_done = 0;

        if (n == 0)
                return;
        /* Iterate on a copy: a failed send disconnects and edits the list. */
        copy = malloc(n * sizeof *copy);
        done = calloc(n, sizeof *done);
        if (!copy || !done) {
                log_oom();
                return;
        }
        for (size_t i = 0; i < n; i++)
                copy[i] = varlink_ref(svc->monitors[i]);
        for (size_t i = 0; i < n; i++) {
                StatusViewer v = link_viewer(copy[i]);
                json_object *r = NULL;

                /* Each caller gets what it may see, rendered once per viewer. */
                for (size_t k = 0; k < n_done && !r; k++)
                        if (done[k].viewer.all == v.all && (v.all || done[k].viewer.uid == v.uid))
                                r = done[k].reply;
                if (!r) {
                        r = status_reply(st, &v);
                        if (r)
                                done[n_done++] = (Rendered) { .viewer = v, .reply = r };
                }
                if (!r)
                        log_oom();
                else if (varlink_is_connected(copy[i]))
                        (void) varlink_notify(copy[i], r);
                varlink_unref(copy[i]);
        }
        for (size_t k = 0; k < n_done; k++)
                json_object_put(done[k].reply);
}

static int method_set_policy(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        static const char *const allowed[] = { "policy", "dry_run", NULL };
        Service *svc = userdata;
        _cleanup_json_ json_object *reply = NULL;
        json_object *policy_j = NULL, *dry_j = NULL;
        Policy policy;
        int dry_run = -1, r;

        if (require_root(link) < 0 || check_parameters(link, p, allowed) < 0)
                return 0;
        if (!json_object_object_get_ex(p, "policy", &policy_j) ||
            !json_object_is_type(policy_j, json_type_string) ||
            (policy = policy_from_string(json_object_get_string(policy_j))) < 0)
                return varlink_error_invalid_parameter(link, "policy");
        if (json_object_object_get_ex(p, "dry_run", &dry_j) && !json_object_is_type(dry_j, json_type_null)) {
                if (!json_object_is_type(dry_j, json_type_boolean))
                        return varlink_error_invalid_parameter(link, "dry_run");
                dry_run = json_object_get_boolean(dry_j);
        }

        r = svc->ops->set_policy(svc->manager, policy, dry_run);
        if (r < 0)
                return reply_error(link, SERVICE_ERROR_APPLY_FAILED,
                                   svc->ops->last_error(svc->manager) ?: "cannot apply", r);
        reply = json_object_new_object();
        if (!reply)
                return -ENOMEM;
        /* Whether dry run is in force now: a call without dry_run keeps it. */
        json_object_object_add(reply, "dry_run", json_object_new_boolean(r > 0));
        return varlink_reply(link, reply);
}

static int method_reload(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        Service *svc = userdata;
        _cleanup_free_ char *error = NULL;
        int r;

        if (require_root(link) < 0 || check_parameters(link, p, NULL) < 0)
                return 0;
        r = svc->ops->reload(svc->manager, &error);
        if (r < 0)
                return reply_error(link, SERVICE_ERROR_CONFIG_INVALID, error ?: "invalid configuration", 0);
        return varlink_reply(link, NULL);
}

static void on_holds_changed(const Holds *holds, void *userdata) {
        Service *svc = userdata;

        svc->ops->holds_changed(svc->manager, holds);
}

int service_new(const ServiceOps *ops, Manager *m, sd_event *event, Service **ret) {
        static const struct {
                const char *name;
                VarlinkMethod method;
        } methods[] = {
                { "io.numastatd.GetStatus", method_get_status },
                { "io.numastatd.GetCounters", method_get_counters },
                { "io.numastatd.GetMetrics", method_get_metrics },
                { "io.numastatd.ListKnownReaders", method_list_known_readers },
                { "io.numastatd.Hold", method_hold },
                { "io.numastatd.Monitor", method_monitor },
                { "io.numastatd.SetPolicy", method_set_policy },
                { "io.numastatd.Reload", method_reload },
        };
        Service *svc;
        int r;

        svc = calloc(1, sizeof *svc);
        if (!svc)
                return log_oom();
        *svc = (Service) { .ops = ops, .manager = m };
        svc->socket_file = SOCKET_FILE_NULL;   /* apart: gcc 10 takes a compound literal here for missing fields */
        r = holds_new(event, on_holds_changed, svc, &svc->holds);
        if (r >= 0)
                r = varlink_server_new(&svc->varlink);
        if (r < 0) {
                service_free(svc);
                return log_oom();
        }
        varlink_server_set_userdata(svc->varlink, svc);
        r = varlink_server_set_info(svc->varlink, "numastatd project", PACKAGE_NAME, PACKAGE_VERSION,
                                    PACKAGE_URL);
        if (r >= 0)
                r = varlink_server_add_interface(svc->varlink, io_numastatd_varlink, IO_NUMASTATD_COMPILED);
        for (size_t i = 0; i < ELEMENTSOF(methods) && r >= 0; i++)
                r = varlink_server_bind_method(svc->varlink, methods[i].name, methods[i].method);
        if (r >= 0)
                r = varlink_server_bind_disconnect(svc->varlink, on_disconnect);
        if (r >= 0)
                r = varlink_server_attach_event(svc->varlink, event, 0);
        if (r < 0) {
                service_free(svc);
                return log_error_errno(r, "Cannot set up the varlink service: %m");
        }
        *ret = svc;
        return 0;
}

Service *service_free(Service *svc) {
        if (!svc)
                return NULL;
        for (size_t i = 0; i < svc->n_monitors; i++)
                varlink_unref(svc->monitors[i]);
        free(svc->monitors);
        for (size_t i = 0; i < RENDERED_MAX; i++)
                varlink_reply_unref(svc->rendered[i].reply);
        holds_free(svc->holds);
        varlink_server_unref(svc->varlink);
        socket_file_remove(&svc->socket_file);
        free(svc);
        return NULL;
}

int service_listen(Service *svc, const char *path) {
        char **names = NULL;
        int n, r;

        /* Socket activation: systemd hands us the socket named "varlink". */
        n = sd_listen_fds_with_names(true, &names);
        if (n < 0)
                return log_error_errno(n, "Cannot take sockets from systemd: %m");
        for (int i = 0; i < n; i++) {
                int fd = SD_LISTEN_FDS_START + i;
                if (n == 1 || streq_ptr(names[i], "varlink")) {
                        r = varlink_server_listen_fd(svc->varlink, fd);
                        if (r < 0)
                                log_error_errno(r, "Cannot listen on the socket systemd passed: %m");
                        strv_free(names);
                        if (r < 0)
                                return r;
                        log_debug("Listening on the varlink socket passed by systemd.");
                        return 0;
                }
        }
        strv_free(names);

        return socket_file_listen(&svc->socket_file, svc->varlink, path, 0666);
}

int service_add_connection(Service *svc, int fd) {
        return varlink_server_add_connection(svc->varlink, fd, NULL);
}

void service_shutdown(Service *svc) {
        if (!svc)
                return;
        holds_stop(svc->holds);
        varlink_server_shutdown(svc->varlink);  /* every client, Monitor ones too */
        socket_file_remove(&svc->socket_file);
}

size_t service_monitors(const Service *svc) {
        return svc ? svc->n_monitors : 0;
}

const Holds *service_holds(const Service *svc) {
        return svc ? svc->holds : NULL;
}

void service_release_hold(Service *svc, uint64_t id) {
        holds_release(svc->holds, id);
}
