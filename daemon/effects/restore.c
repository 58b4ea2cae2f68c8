/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "restore.h"
#include "state-file.h"
#include "safe-dir.h"
#include "strutil.h"

void restore_state_done(RestoreState *s) {
        free(s->root);
        s->root = NULL;
}

char *restore_state_format(const RestoreState *s) {
        char *t;
        if (asprintf(&t, "pid=%d\nbackend=%s\nrestore=%s\nroot=%s\n", (int) s->pid, backend_kind_to_string(s->backend),
                     kernel_mode_to_string(s->restore), s->root ? s->root : "/") < 0)
                return NULL;
        return t;
}

int restore_state_parse(const char *text, RestoreState *ret) {
        _cleanup_free_ char *copy = strdup(text);
        RestoreState s = { .backend = _BACKEND_INVALID, .restore = KERNEL_MODE_UNKNOWN };
        bool have_pid = false;
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *eq = strchr(line, '=');
                if (!eq)
                        goto fail;
                *eq = 0;
                const char *key = line, *value = eq + 1;
                if (streq_ptr(key, "pid")) {
                        uint64_t v;
                        if (parse_uint64(value, &v) < 0 || v == 0 || v > INT32_MAX)
                                goto fail;
                        s.pid = (pid_t) v;
                        have_pid = true;
                } else if (streq_ptr(key, "backend"))
                        s.backend = backend_kind_from_string(value);
                else if (streq_ptr(key, "restore"))
                        s.restore = kernel_mode_from_string(value);
                else if (streq_ptr(key, "root")) {
                        if (value[0] != '/' || s.root)
                                goto fail;
                        s.root = strdup(value);
                        if (!s.root)
                                return -ENOMEM;
                }
                /* Unknown keys: written by a newer daemon; ignore. */
        }
        if (!have_pid || s.backend < 0 || s.backend == BACKEND_NONE || s.restore < 0 ||
            s.restore == KERNEL_MODE_UNKNOWN || !s.root)
                goto fail;
        *ret = s;
        return 0;
fail:
        restore_state_done(&s);
        return -EBADMSG;
}

int restore_dir_open(const char *path, int *ret_fd, char **ret_why) {
        _cleanup_close_ int fd = -1;
        struct stat st;
        const char *why;

        _cleanup_free_ char *path_why = NULL;
        int r;

        /* Nothing on the way there may be someone else's to redirect. */
        r = safe_dir_open(path, SAFE_DIR_CREATE, &fd, &path_why);
        if (r < 0)
                return set_why(ret_why, r, "%s", path_why ? path_why : strerror(-r));
        if (fstat(fd, &st) < 0)
                return -errno;
        why = state_file_unsafe(&st);
        if (why)
                return set_why(ret_why, -EPERM, "%s is not safe for the crash-restore state: %s", path, why);
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int restore_state_save(int dir_fd, const RestoreState *s) {
        _cleanup_free_ char *text = restore_state_format(s);

        return text ? state_file_save(dir_fd, RESTORE_FILE, text) : -ENOMEM;
}

int restore_state_load(int dir_fd, const char *root, RestoreState *ret, char **ret_why) {
        _cleanup_free_ char *text = NULL;
        RestoreState s = {};
        int r;

        r = state_file_load(dir_fd, RESTORE_FILE, RESTORE_FILE_MAX, &text, ret_why);
        if (r < 0)
                return r;
        r = restore_state_parse(text, &s);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return set_why(ret_why, -EPERM, "it does not parse");
        if (!streq_ptr(s.root, root)) {
                r = set_why(ret_why, -EPERM, "it is for root %s, and this daemon drives %s", s.root, root);
                restore_state_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

int restore_state_remove(int dir_fd) {
        if (unlinkat(dir_fd, RESTORE_FILE, 0) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

int restore_apply(int dir_fd, const char *root, bool strict, bool *ret_did) {
        _cleanup_free_ char *error = NULL, *why = NULL;
        RestoreState s = {};
        KernelMode now = KERNEL_MODE_UNKNOWN;
        int r;

        *ret_did = false;
        r = restore_state_load(dir_fd, root, &s, &why);
        if (r == -ENOENT)
                return 0;
        if (r == -EPERM) {
                log_error("Refusing the crash-restore state %s: %s.", RESTORE_FILE, why ? why : "unsafe");
                return strict ? r : 0;
        }
        if (r < 0)
                return log_error_errno(r, "Cannot read the crash-restore state: %m");
        *ret_did = true;

        (void) backend_read(s.root, s.backend, &now, NULL);
        if (now == s.restore)
                log_info("numastatd (pid %d) did not stop cleanly; NUMA statistics are already %s.", (int) s.pid,
                         kernel_mode_to_string(s.restore));
        else {
                r = backend_write(s.root, s.backend, s.restore, &error);
                if (r < 0) {
                        log_error_errno(r, "numastatd (pid %d) did not stop cleanly, and restoring %s failed: %s",
                                        (int) s.pid, kernel_mode_to_string(s.restore), error ? error : "");
                        restore_state_done(&s);
                        return r;       /* keep the file: a later try may work */
                }
                log_notice("numastatd (pid %d) did not stop cleanly; restored NUMA statistics from %s to %s.",
                           (int) s.pid, kernel_mode_to_string(now), kernel_mode_to_string(s.restore));
        }
        restore_state_done(&s);
        r = restore_state_remove(dir_fd);
        if (r < 0)
                return log_error_errno(r, "Cannot remove the crash-restore state: %m");
        return 0;
}
