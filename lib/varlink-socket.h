/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

/* A new listening unix socket NAME in the directory DIR_FD (a directory the
 * caller judged safe: nothing on the way is resolved again), created with
 * MODE. Returns the fd, or a negative errno (EADDRINUSE: something is
 * there already). Both varlink servers listen through it. */
int varlink_socket_listen_at(int dir_fd, const char *name, mode_t mode);

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

/* The listening sockets of a server, and accept() on them: each new
 * connection's fd goes to accept(userdata, fd), which takes it (0) or
 * refuses it (< 0: the fd is closed here; -EMFILE, a limit, was logged by
 * the callee, anything else is logged here). */
typedef int (*VarlinkAcceptFn)(void *userdata, int fd);

typedef struct VarlinkListeners {
        struct {
                int fd;
                sd_event_source *io;
        } *v;
        size_t n;
        sd_event *event;                /* once attached */
        int64_t priority;
        VarlinkAcceptFn accept;
        void *userdata;
} VarlinkListeners;

void varlink_listeners_init(VarlinkListeners *l, VarlinkAcceptFn accept, void *userdata);
/* Listens on those added so far and those added after. */
int varlink_listeners_attach(VarlinkListeners *l, sd_event *event, int64_t priority);
/* Takes fd (made non-blocking) on success. */
int varlink_listeners_add_fd(VarlinkListeners *l, int fd);
int varlink_listeners_add_at(VarlinkListeners *l, int dir_fd, const char *name, mode_t mode);
/* Closes them all and drops the event loop. */
void varlink_listeners_done(VarlinkListeners *l);
