/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include "varlink-server.h"

/* The daemon's own varlink socket file (--socket=, or the config's socket=)
 * when systemd does not pass one. Root creates it, replaces a stale one and
 * removes it at exit: every step through a directory judged safe
 * (safe-dir.h) and pinned by fd, and the removal only of the very socket
 * bound, so that no one who can write where the path leads can redirect
 * what root creates or removes. */
typedef struct SocketFile {
        int dir_fd;
        char *name;
        char *path;             /* for messages */
        dev_t dev;
        ino_t ino;
} SocketFile;

#define SOCKET_FILE_NULL ((SocketFile) { .dir_fd = -1 })

/* Binds PATH for SERVER with MODE. Refuses (and logs why) a path through
 * directories others control, a live socket (another daemon), and anything
 * there that is not a socket. */
int socket_file_listen(SocketFile *f, VarlinkServer *server, const char *path, mode_t mode);

/* Removes the socket if it is still the one bound; forgets it either way. */
void socket_file_remove(SocketFile *f);
