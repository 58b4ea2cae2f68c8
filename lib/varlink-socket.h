/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

/* A new listening unix socket NAME in the directory DIR_FD (a directory the
 * caller judged safe: nothing on the way is resolved again), created with
 * MODE. Returns the fd, or a negative errno (EADDRINUSE: something is
 * there already). Both varlink servers listen through it. */
int varlink_socket_listen_at(int dir_fd, const char *name, mode_t mode);
