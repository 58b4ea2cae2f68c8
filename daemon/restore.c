/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "restore.h"
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

int restore_state_path(const char *socket_path, char **ret) {
        _cleanup_free_ char *copy = strdup(socket_path);
        char *p;

        if (!copy)
                return -ENOMEM;
        if (asprintf(&p, "%s/restore", dirname(copy)) < 0)
                return -ENOMEM;
        *ret = p;
        return 0;
}

int restore_state_save(const char *path, const RestoreState *s) {
        _cleanup_free_ char *text = restore_state_format(s), *tmp = NULL;
        _cleanup_close_ int fd = -1;
        size_t len;

        if (!text || asprintf(&tmp, "%s.tmp", path) < 0)
                return -ENOMEM;
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        len = strlen(text);
        if (write(fd, text, len) != (ssize_t) len || fsync(fd) < 0) {
                int r = errno ? -errno : -EIO;
                unlink(tmp);
                return r;
        }
        if (rename(tmp, path) < 0) {
                int r = -errno;
                unlink(tmp);
                return r;
        }
        return 0;
}

int restore_state_load(const char *path, RestoreState *ret) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        char buf[4096];
        size_t n;

        if (!f)
                return -errno;
        n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        return restore_state_parse(buf, ret);
}

int restore_apply(const char *path, bool *ret_did) {
        _cleanup_free_ char *error = NULL;
        RestoreState s = {};
        KernelMode now = KERNEL_MODE_UNKNOWN;
        int r;

        *ret_did = false;
        r = restore_state_load(path, &s);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return log_error_errno(r, "Cannot read the restore state %s: %m", path);
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
        if (unlink(path) < 0 && errno != ENOENT)
                return log_error_errno(errno, "Cannot remove %s: %m", path);
        return 0;
}
