/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Crash safety. Before the daemon first changes the kernel's mode it
 * records, in a state file beside its socket (/run/numastatd/restore), the
 * mode the kernel must be left in. A clean stop restores it and removes the
 * file; after a crash or SIGKILL `numastatd --restore` (the unit's
 * ExecStopPost=) or the next start finds the file and restores the mode, so
 * counting is never left off behind a dead daemon. */

#include <stdbool.h>
#include <sys/types.h>

#include "backend.h"
#include "mode.h"

typedef struct RestoreState {
        pid_t pid;              /* the daemon that wrote it */
        BackendKind backend;
        KernelMode restore;     /* what to leave the kernel in */
        char *root;
} RestoreState;

void restore_state_done(RestoreState *s);

/* "pid=42\nbackend=numa_stat\nrestore=strict\nroot=/\n". Pure. */
char *restore_state_format(const RestoreState *s);
int restore_state_parse(const char *text, RestoreState *ret);

/* DIR/restore for a socket DIR/NAME. */
int restore_state_path(const char *socket_path, char **ret);

/* Written atomically (temporary file and rename). */
int restore_state_save(const char *path, const RestoreState *s);
/* -ENOENT when there is nothing to restore. */
int restore_state_load(const char *path, RestoreState *ret);

/* Restores what the state file at path says and removes it. *ret_did says
 * whether anything was there. Logs what it did. */
int restore_apply(const char *path, bool *ret_did);
