/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The daemon's varlink server: hand-written in varlink-server.c (Debian 12's
 * libsystemd, 252, has no public varlink), or on systemd's sd-varlink in
 * varlink-server-sd.c where libsystemd is 257 or newer; configure picks
 * one. The interface is shaped after sd-varlink's: same split of
 * server/connection, same method callback signature, same
 * reply/notify/error calls. It knows nothing of the service it carries. */

#include <stdint.h>
#include <systemd/sd-event.h>

#include "varlink-wire.h"

typedef struct VarlinkServer VarlinkServer;
typedef struct Varlink Varlink;

/* A message may not exceed this (bytes, NUL included) unless changed. */
#define VARLINK_BUFFER_MAX_DEFAULT (128U * 1024U)
/* A peer that does not read its replies is dropped past this much output
 * queued for it (a status is some 100 KiB at most); and a peer other than
 * root's, past this much queued for all its uid's connections, or for all
 * connections but root's: what others make the daemon hold is bounded. */
#define VARLINK_OUTPUT_MAX_DEFAULT (1024U * 1024U)
#define VARLINK_OUTPUT_PER_UID_MAX_DEFAULT (2U * 1024U * 1024U)
#define VARLINK_OUTPUT_OTHERS_MAX_DEFAULT (16U * 1024U * 1024U)
#define VARLINK_CONNECTIONS_MAX_DEFAULT 256U
#define VARLINK_CONNECTIONS_PER_UID_MAX_DEFAULT 64U
/* Of connections_max, kept for uid 0: others cannot lock root out. */
#define VARLINK_CONNECTIONS_ROOT_RESERVED_DEFAULT 16U
/* A connection with no call in progress that completes no message this
 * long is closed (µs). */
#define VARLINK_IDLE_TIMEOUT_DEFAULT (30U * 1000U * 1000U)
/* Calls (messages) a uid other than root may send a second, and at once;
 * and all uids but root together (varlink-budget.h). Past them a peer's
 * calls wait, unread. A GetStatus costs some 5 µs, the dearest call here
 * (the catalogue, ListKnownReaders) some 200 µs on a 2-vCPU guest: the
 * shared rate bounds what others make the daemon do to a few percent of
 * a core, and a uid's rate is far above what a person or a collector
 * polling the daemon asks. */
#define VARLINK_CALLS_PER_UID_RATE_DEFAULT 50U
#define VARLINK_CALLS_PER_UID_BURST_DEFAULT 100U
#define VARLINK_CALLS_OTHERS_RATE_DEFAULT 200U
#define VARLINK_CALLS_OTHERS_BURST_DEFAULT 400U

/* parameters is never NULL: a missing, null or {} "parameters" all arrive as
 * an empty object. Return < 0 without having replied and the peer gets
 * VARLINK_ERROR_SYSTEM with the errno. */
typedef int (*VarlinkMethod)(Varlink *link, json_object *parameters, VarlinkMethodFlags flags,
                             void *userdata);
typedef void (*VarlinkDisconnect)(VarlinkServer *server, Varlink *link, void *userdata);

int varlink_server_new(VarlinkServer **ret);
VarlinkServer *varlink_server_ref(VarlinkServer *s);
VarlinkServer *varlink_server_unref(VarlinkServer *s);
void varlink_server_set_userdata(VarlinkServer *s, void *userdata);
/* For org.varlink.service.GetInfo. Strings are copied. */
int varlink_server_set_info(VarlinkServer *s, const char *vendor, const char *product,
                            const char *version, const char *url);
/* Registers an interface by its description text (the .varlink file); the
 * name is taken from its "interface" line. The server on sd-varlink takes
 * the same interface compiled instead (generated from that file at build
 * time); the hand-written one takes the text and ignores compiled. */
struct sd_varlink_interface;
int varlink_server_add_interface(VarlinkServer *s, const char *description,
                                 const struct sd_varlink_interface *compiled);
int varlink_server_bind_method(VarlinkServer *s, const char *method, VarlinkMethod callback);
int varlink_server_bind_disconnect(VarlinkServer *s, VarlinkDisconnect callback);
/* The most a message may take; applies to connections accepted after. */
void varlink_server_set_buffer_max(VarlinkServer *s, size_t bytes);
/* µs; 0: none. */
void varlink_server_set_idle_timeout(VarlinkServer *s, uint64_t usec);
void varlink_server_set_output_max(VarlinkServer *s, size_t bytes);
/* Output queued for all connections of one uid other than 0, and for all of
 * them together (bytes). */
void varlink_server_set_output_shared_max(VarlinkServer *s, size_t per_uid, size_t others);
void varlink_server_set_connections_max(VarlinkServer *s, unsigned total, unsigned per_uid);
/* How many of the total only uid 0 may take. */
void varlink_server_set_connections_root_reserved(VarlinkServer *s, unsigned n);
/* The call budget: calls a second and at once per uid other than 0, and
 * for all of them together; a rate of 0 is no limit. */
void varlink_server_set_calls_max(VarlinkServer *s, unsigned per_uid_rate, unsigned per_uid_burst,
                                  unsigned others_rate, unsigned others_burst);
unsigned varlink_server_current_connections(VarlinkServer *s);

int varlink_server_attach_event(VarlinkServer *s, sd_event *event, int64_t priority);
/* Binds and listens on a new unix socket NAME in the directory DIR_FD (a
 * directory the caller judged safe: nothing on the way is resolved again),
 * created with MODE. Something already there is EADDRINUSE: the caller
 * decides what may be replaced. */
int varlink_server_listen_at(VarlinkServer *s, int dir_fd, const char *name, mode_t mode);
/* Takes a listening socket, e.g. from sd_listen_fds_with_names(). */
int varlink_server_listen_fd(VarlinkServer *s, int fd);
/* Takes an already connected socket (tests use socketpair()). */
int varlink_server_add_connection(VarlinkServer *s, int fd, Varlink **ret);
/* Closes every connection and listening socket. */
void varlink_server_shutdown(VarlinkServer *s);

Varlink *varlink_ref(Varlink *link);
Varlink *varlink_unref(Varlink *link);
void *varlink_get_userdata(Varlink *link);
void varlink_set_userdata(Varlink *link, void *userdata);
VarlinkServer *varlink_get_server(Varlink *link);
int varlink_get_peer_uid(Varlink *link, uid_t *ret);
int varlink_get_peer_pid(Varlink *link, pid_t *ret);
bool varlink_is_connected(Varlink *link);
/* Bytes held for the peer's unfinished input (0 when it has none). */
size_t varlink_input_allocated(Varlink *link);
void varlink_close(Varlink *link);

/* Final reply to the current call. parameters may be NULL (empty object);
 * it is serialized at once and not kept. */
int varlink_reply(Varlink *link, json_object *parameters);
/* A "continues": true reply; only for calls made with "more". */
int varlink_notify(Varlink *link, json_object *parameters);
int varlink_error(Varlink *link, const char *error_id, json_object *parameters);
int varlink_error_invalid_parameter(Varlink *link, const char *name);

/* A reply serialized once, for an answer many calls share (a status that
 * does not change between them): each call then costs a copy of its
 * text, not a rendering. Reference-counted; the parameters are not kept. */
typedef struct VarlinkReply VarlinkReply;
int varlink_reply_new(json_object *parameters, VarlinkReply **ret);
VarlinkReply *varlink_reply_ref(VarlinkReply *r);
VarlinkReply *varlink_reply_unref(VarlinkReply *r);
/* The final reply to the current call: what varlink_reply() with the
 * parameters r was made from sends, byte for byte. */
int varlink_reply_send(Varlink *link, VarlinkReply *r);

static inline void varlink_unrefp(Varlink **l) {
        varlink_unref(*l);
}
static inline void varlink_server_unrefp(VarlinkServer **s) {
        varlink_server_unref(*s);
}
static inline void varlink_reply_unrefp(VarlinkReply **r) {
        varlink_reply_unref(*r);
}
