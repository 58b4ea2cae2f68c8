/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The io.numastatd varlink service: the methods, and the clients it keeps
 * (Monitor subscribers, holds). It knows nothing of sockets' internals;
 * the varlink layer knows nothing of NUMA. Status comes from a Status
 * snapshot (status.h) only. Its state is private to service.c. */

#include "holds.h"
#include "status.h"

typedef struct Manager Manager;
typedef struct Service Service;

/* What the methods ask of the daemon, given at creation: the service
 * knows these, not the manager's files (manager.h says what each does). */
typedef struct ServiceOps {
        void (*status)(const Manager *m, uint64_t now, Status *ret);
        bool (*sample_for_caller)(Manager *m);
        const char *(*hold_refused)(const Manager *m, int *ret_error);
        void (*holds_changed)(Manager *m, const Holds *holds);
        bool (*counting)(const Manager *m);
        int (*set_policy)(Manager *m, Policy policy, int dry_run);
        const char *(*last_error)(const Manager *m);
        int (*reload)(Manager *m, char **ret_error);
} ServiceOps;

/* The varlink server with the interface and methods bound, attached to
 * event; the methods reach m through ops (which outlives the service). */
int service_new(const ServiceOps *ops, Manager *m, sd_event *event, Service **ret);
/* Lets go of every client; call service_shutdown() first. */
Service *service_free(Service *s);
/* Listens on the socket systemd passed (named "varlink", or the only one),
 * else binds path (socket-file.h). */
int service_listen(Service *s, const char *path);
/* A connection made elsewhere (a socket pair, in tests). */
int service_add_connection(Service *s, int fd);
/* The exit path: released holds go at once, every client (Monitor ones
 * too) is disconnected, the socket file removed. */
void service_shutdown(Service *s);

/* Sends st to every Monitor client. The manager calls it when something a
 * person would call a change happened (see status_fingerprint()). */
void service_notify_monitors(Service *s, const Status *st);
size_t service_monitors(const Service *s);
/* GetStatus replies rendered so far (the rest were reused). */
uint64_t service_status_renders(const Service *s);
/* The holds in force; NULL (none) without a service. */
const Holds *service_holds(const Service *s);
/* For tests: a hold released as its connection's end would release it. */
void service_release_hold(Service *s, uint64_t id);
