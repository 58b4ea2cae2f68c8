/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "executor.h"
#include "log.h"
#include "macro.h"
#include "restore.h"
#include "rootfs.h"
#include "strutil.h"
#include "time-util.h"

struct Executor {
        char *root;
        BackendKind backend;
        RootFile mode_file;             /* the backend's sysctl (set by the probe), kept open: read each decision */
        bool wrote;                     /* the kernel, at least once */
        char *runtime_dir;              /* where the crash-restore state lives */
        int runtime_fd;                 /* ...opened and checked; -1: crash safety off */
        ErrorRecord last_error;
        char boot_id[40];               /* this boot's, "" if unknown: carried counters are per boot */
        usec_t counters_saved_at;       /* CLOCK_MONOTONIC: the last save; 0: none yet */
};

/* Between saves nothing is lost: the kernel keeps counting, and the next
 * daemon adds what it counted since the saved reading. Only a reset by
 * someone else after the last save, with every counter grown back past its
 * saved reading before a restart, would pass for growth. An idle daemon
 * need not write every second. */
#define CARRY_SAVE_USEC (60 * USEC_PER_SEC)

int executor_new(const char *root, const char *runtime_dir, Executor **ret) {
        Executor *x;

        x = calloc(1, sizeof *x);
        if (!x)
                return -ENOMEM;
        *x = (Executor) { .root = strdup(root), .runtime_dir = strdup(runtime_dir), .runtime_fd = -1,
                           .mode_file = { .fd = -1 } };
        if (!x->root || !x->runtime_dir) {
                executor_free(x);
                return -ENOMEM;
        }
        *ret = x;
        return 0;
}

Executor *executor_free(Executor *x) {
        if (!x)
                return NULL;
        if (x->runtime_fd >= 0)
                close(x->runtime_fd);
        root_file_close(&x->mode_file);
        free(x->root);
        free(x->runtime_dir);
        free(x->last_error.message);
        free(x);
        return NULL;
}

/* Keeps the error (message taken over) for status. */
static void set_error(Executor *x, int error, char **message) {
        free(x->last_error.message);
        x->last_error = (ErrorRecord) {
                .time = now_usec(CLOCK_REALTIME),
                .error = abs(error),
                .message = TAKE_PTR(*message),
        };
}

void executor_clear_error(Executor *x) {
        free(x->last_error.message);
        x->last_error = (ErrorRecord) {};
}

int executor_probe(Executor *x, KernelMode *ret_mode) {
        int r;

        *ret_mode = KERNEL_MODE_UNKNOWN;
        r = backend_detect(x->root, &x->backend);
        if (r < 0)
                return log_error_errno(r, "Cannot probe the kernel's NUMA statistics interface under %s: %m",
                                       x->root);
        if (x->backend == BACKEND_NONE) {
                log_notice("No NUMA statistics interface under %s/proc/sys/vm: observing only.",
                           streq(x->root, "/") ? "" : x->root);
                return 0;
        }
        root_file_close(&x->mode_file);
        r = root_file_init(&x->mode_file, backend_sysctl_path(x->backend));
        if (r < 0)
                return log_error_errno(r, "Cannot keep %s open: %m", backend_sysctl_path(x->backend));
        (void) executor_read(x, ret_mode);
        log_info("Kernel interface %s, mode %s.", backend_sysctl_path(x->backend), kernel_mode_to_string(*ret_mode));
        return 0;
}

/* The host's pid (a state file names one): whether it is a numastatd
 * other than us. */
static bool pid_is_numastatd(pid_t pid) {
        char path[64], comm[32] = "";
        FILE *f;

        if (pid == getpid() || kill(pid, 0) < 0)
                return false;
        snprintf(path, sizeof path, "/proc/%d/comm", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return false;
        if (!fgets(comm, sizeof comm, f))
                comm[0] = 0;
        fclose(f);
        return strncmp(comm, "numastatd", 9) == 0;
}

int executor_recover(Executor *x, bool *ret_restored) {
        _cleanup_free_ char *why = NULL;
        RestoreState st = {};
        int r;

        *ret_restored = false;
        r = restore_dir_open(x->runtime_dir, &x->runtime_fd, &why);
        if (r < 0) {
                log_error("Crash safety is off: %s.", why ? why : "the runtime directory is not usable");
                x->runtime_fd = -1;
                return 0;
        }
        r = restore_state_load(x->runtime_fd, x->root, &st, &why);
        if (r == -ENOENT)
                return 0;
        if (r == -EPERM) {
                log_error("Refusing the crash-restore state in %s: %s. Starting without it.", x->runtime_dir,
                          why ? why : "unsafe");
                return 0;
        }
        if (r >= 0 && pid_is_numastatd(st.pid)) {
                log_error("Another numastatd (pid %d) drives the kernel (state in %s); not starting a second one.",
                          (int) st.pid, x->runtime_dir);
                restore_state_done(&st);
                x->runtime_fd = safe_close(x->runtime_fd);      /* not ours to remove */
                return -EBUSY;
        }
        restore_state_done(&st);
        return restore_apply(x->runtime_fd, x->root, false, ret_restored);
}

int executor_read(Executor *x, KernelMode *ret_mode) {
        _cleanup_free_ char *error = NULL;
        int r;

        r = backend_read_kept(x->root, &x->mode_file, x->backend, ret_mode, &error);
        if (r < 0) {
                log_warning_errno(r, "%s", error ? error : "cannot read the kernel mode");
                if (error)
                        set_error(x, r, &error);
        }
        return r;
}

/* What a crash must leave behind, kept before we first change anything. */
static void save_restore_state(Executor *x, KernelMode restore) {
        RestoreState st = {
                .pid = getpid(),
                .backend = x->backend,
                .restore = restore,
                .root = x->root,
        };
        int r;

        if (x->runtime_fd < 0 || restore == KERNEL_MODE_UNKNOWN)
                return;
        r = restore_state_save(x->runtime_fd, &st);
        if (r < 0)
                log_warning_errno(r, "Cannot record the mode to restore after a crash in %s: %m", x->runtime_dir);
}

void executor_keep_restore(Executor *x, KernelMode restore) {
        if (x->wrote)
                save_restore_state(x, restore);
}

int executor_write(Executor *x, KernelMode mode, KernelMode restore, const char *why, KernelMode *ret_mode) {
        _cleanup_free_ char *error = NULL;
        int r;

        if (!x->wrote)
                save_restore_state(x, restore);
        r = backend_write(x->root, x->backend, mode, &error);
        if (r < 0) {
                log_error_errno(r, "Cannot switch NUMA statistics to %s (%s): %s", kernel_mode_to_string(mode), why,
                                error ? error : "unknown error");
                if (!error)
                        error = strdup("cannot write the kernel mode");
                set_error(x, r, &error);
                /* The write may have half-happened; believe the kernel, not us. */
                *ret_mode = KERNEL_MODE_UNKNOWN;
                (void) backend_read(x->root, x->backend, ret_mode, NULL);
                return r;
        }
        x->wrote = true;
        *ret_mode = mode;
        return 0;
}

void executor_restored(Executor *x) {
        if (x->runtime_fd >= 0)
                (void) restore_state_remove(x->runtime_fd);
}

BackendKind executor_backend(const Executor *x) {
        return x->backend;
}

bool executor_wrote(const Executor *x) {
        return x->wrote;
}

int executor_runtime_fd(const Executor *x) {
        return x->runtime_fd;
}

const char *executor_runtime_dir(const Executor *x) {
        return x->runtime_dir;
}

const ErrorRecord *executor_last_error(const Executor *x) {
        return &x->last_error;
}

int executor_load_counters(Executor *x, CarryState *ret) {
        _cleanup_free_ char *why = NULL, *boot = NULL;
        int r;

        if (root_read_file(x->root, "/proc/sys/kernel/random/boot_id", 64, &boot) >= 0) {
                boot[strcspn(boot, "\n")] = '\0';
                snprintf(x->boot_id, sizeof x->boot_id, "%s", boot);
        }
        if (x->runtime_fd < 0)
                return -ENOENT;
        r = carry_state_load(x->runtime_fd, x->root, x->boot_id, ret, &why);
        if (r == -EPERM)
                log_warning("Not continuing the NUMA counters in %s/%s: %s. They start over.", x->runtime_dir,
                            CARRY_FILE, why ? why : "refused");
        else if (r >= 0)
                log_info("Continuing the NUMA counters a previous daemon kept (%zu sources).", ret->n);
        return r;
}

bool executor_counters_due(const Executor *x, bool now) {
        if (x->runtime_fd < 0)
                return false;
        return now || x->counters_saved_at == 0 ||
               now_usec(CLOCK_MONOTONIC) >= x->counters_saved_at + CARRY_SAVE_USEC;
}

void executor_save_counters(Executor *x, CarryState *s) {
        int r;

        if (x->runtime_fd < 0)
                return;
        if (!s->root) {
                s->root = strdup(x->root);
                if (!s->root)
                        return;
        }
        snprintf(s->boot_id, sizeof s->boot_id, "%s", x->boot_id);
        r = carry_state_save(x->runtime_fd, s);
        if (r < 0 && x->counters_saved_at == 0)
                log_warning_errno(r, "Cannot keep the NUMA counters for a restart in %s: %m", x->runtime_dir);
        x->counters_saved_at = now_usec(CLOCK_MONOTONIC);
}
