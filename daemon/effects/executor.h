/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the daemon changes in the kernel, carried out: the mode written
 * and read back through the kernel's interface (backend.h), the
 * crash-restore state kept beside it in the runtime directory
 * (restore.h), and the last error met, for status. It owns the interface,
 * the runtime directory and that error; it decides nothing. */

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "carry.h"
#include "mode.h"

/* The last error the daemon met (a failed write, an unreadable sysctl). */
typedef struct ErrorRecord {
        uint64_t time;          /* CLOCK_REALTIME µs */
        int error;              /* positive errno */
        char *message;          /* NULL: no error */
} ErrorRecord;

typedef struct Executor Executor;

/* root: the tree whose /proc/sys it writes; runtime_dir: where the
 * crash-restore state lives. Both copied. */
int executor_new(const char *root, const char *runtime_dir, Executor **ret);
Executor *executor_free(Executor *x);

/* Which interface the kernel has (BACKEND_NONE: observing only), and its
 * mode now in *ret_mode (KERNEL_MODE_UNKNOWN if unreadable: the error is
 * kept). Fails only when the kernel cannot be probed at all. */
int executor_probe(Executor *x, KernelMode *ret_mode);
/* Opens the runtime directory and obeys a state file a crashed daemon
 * left: the kernel is put back (*ret_restored, then read the mode again).
 * A directory or a state file not safe to obey is refused, loudly, and
 * the daemon goes on without crash safety or without that state. -EBUSY:
 * the state is a live daemon's, which drives the kernel. */
int executor_recover(Executor *x, bool *ret_restored);

/* Reads the kernel's mode; a failure is logged and kept. */
int executor_read(Executor *x, KernelMode *ret_mode);
/* Writes mode (why: for the log). Before the first write, records restore
 * as the mode a crash must leave. On failure the error is kept, and
 * *ret_mode is the mode read back (the write may have half-happened);
 * else it is mode. */
int executor_write(Executor *x, KernelMode mode, KernelMode restore, const char *why, KernelMode *ret_mode);
/* Records restore again, if the kernel was written (exit_mode changed). */
void executor_keep_restore(Executor *x, KernelMode restore);
/* The kernel was left in its exit mode: the crash-restore state goes,
 * nothing is left for ExecStopPost= or the next start to do. */
void executor_restored(Executor *x);

BackendKind executor_backend(const Executor *x);
/* Whether the kernel was written at least once. */
bool executor_wrote(const Executor *x);
/* The runtime directory, opened and checked; -1: crash safety off. */
int executor_runtime_fd(const Executor *x);
const char *executor_runtime_dir(const Executor *x);

/* The counters carried to the next daemon of this boot (carry.h), beside
 * the crash-restore state. Loads what a previous daemon of this boot left
 * for this root: 0 with *ret filled, -ENOENT for none, -EPERM when it was
 * refused (said in the log: the counters start over). Reads the boot's id
 * under root first. */
int executor_load_counters(Executor *x, CarryState *ret);
/* Whether to save them now: at once when their meaning changed (now: a
 * reset, a source begun, exit), else at most every CARRY_SAVE_USEC. Never
 * without a runtime directory. */
bool executor_counters_due(const Executor *x, bool now);
/* Saves s (its sources; the root and boot are the executor's). A failure
 * costs only continuity after a restart: said once. */
void executor_save_counters(Executor *x, CarryState *s);

const ErrorRecord *executor_last_error(const Executor *x);
/* The kernel reads back the mode wanted: the last error is over. */
void executor_clear_error(Executor *x);
