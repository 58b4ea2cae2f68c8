/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Crash safety. Before the daemon first changes the kernel's mode it
 * records, in its runtime directory (/run/numastatd by default, systemd's
 * RuntimeDirectory=), the mode the kernel must be left in. A clean stop
 * restores it and removes the file; after a crash or SIGKILL `numastatd
 * --restore` (the unit's ExecStopPost=) or the next start finds the file and
 * restores the mode, so counting is never left off behind a dead daemon.
 *
 * Root obeys this file, so it is handled like untrusted input: the
 * directory must be root's and writable by root alone, the file is opened
 * without following links, must be a regular file of root's, writable by
 * root alone and small, and must name the root this daemon drives. Anything
 * else is refused with a log line, and start-up goes on without it. */

#include <stdbool.h>
#include <sys/types.h>

#include "backend.h"
#include "mode.h"

#define RESTORE_FILE "restore"
#define RESTORE_FILE_MAX 4096

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

/* Opens the runtime directory (made if missing, mode 0755) after checking
 * it is a directory of ours that no one else can write to. On refusal
 * returns -EPERM and sets *ret_why. */
int restore_dir_open(const char *path, int *ret_fd, char **ret_why);

/* Written atomically: a new file (O_EXCL, no links followed) renamed over
 * the old one. */
int restore_state_save(int dir_fd, const RestoreState *s);

/* Reads and checks the state: -ENOENT when there is none; -EPERM (with
 * *ret_why) when the file is refused: not a regular file, not ours,
 * writable by others, too large, malformed, or naming another root than
 * root. */
int restore_state_load(int dir_fd, const char *root, RestoreState *ret, char **ret_why);
int restore_state_remove(int dir_fd);

/* Restores what the state file says and removes it. *ret_did says whether
 * a state was there and obeyed. A refused file is logged and left alone:
 * 0 with *ret_did false, or, with strict, -EPERM. */
int restore_apply(int dir_fd, const char *root, bool strict, bool *ret_did);
