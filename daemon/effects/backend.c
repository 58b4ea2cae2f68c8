/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend.h"
#include "macro.h"
#include "rootfs.h"
#include "string-table.h"
#include "strutil.h"

static const char *const backend_paths[_BACKEND_MAX] = {
        [BACKEND_NUMA_STATS_MODE] = "/proc/sys/vm/numa_stats_mode",
        [BACKEND_VMSTAT_MODE] = "/proc/sys/vm/vmstat_mode",
        [BACKEND_NUMA_STAT] = "/proc/sys/vm/numa_stat",
};

const char *backend_sysctl_path(BackendKind k) {
        return k >= 0 && k < _BACKEND_MAX ? backend_paths[k] : NULL;
}

int backend_detect(const char *root, BackendKind *ret) {
        static const BackendKind order[] = {
                BACKEND_NUMA_STATS_MODE,
                BACKEND_VMSTAT_MODE,
                BACKEND_NUMA_STAT,
        };

        for (size_t i = 0; i < ELEMENTSOF(order); i++) {
                int r = root_exists(root, backend_paths[order[i]]);
                if (r == 0) {
                        *ret = order[i];
                        return 0;
                }
                if (r != -ENOENT)
                        return r;
        }
        *ret = BACKEND_NONE;
        return 0;
}

KernelMode backend_parse_mode(BackendKind k, const char *text) {
        char buf[32];
        size_t n;

        if (!text)
                return KERNEL_MODE_UNKNOWN;
        n = strlen(text);
        if (n >= sizeof buf)
                return KERNEL_MODE_UNKNOWN;
        memcpy(buf, text, n + 1);
        strstrip(buf);

        if (k == BACKEND_NUMA_STAT) {
                if (strcmp(buf, "1") == 0)
                        return KERNEL_MODE_STRICT;
                if (strcmp(buf, "0") == 0)
                        return KERNEL_MODE_COARSE;
                return KERNEL_MODE_UNKNOWN;
        }
        if (backend_is_patched(k)) {
                /* The patch accepts and may print "Strict" as well as "strict". */
                if (strcasecmp(buf, "strict") == 0)
                        return KERNEL_MODE_STRICT;
                if (strcasecmp(buf, "coarse") == 0)
                        return KERNEL_MODE_COARSE;
                if (strcasecmp(buf, "auto") == 0)
                        return KERNEL_MODE_AUTO;
        }
        return KERNEL_MODE_UNKNOWN;
}

static const char *backend_mode_word(BackendKind k, KernelMode mode) {
        if (k == BACKEND_NUMA_STAT)
                return mode == KERNEL_MODE_STRICT ? "1" : mode == KERNEL_MODE_COARSE ? "0" : NULL;
        return kernel_mode_to_string(mode);
}

static void set_error(char **ret_error, const char *fmt, ...) _printf_(2, 3);
static void set_error(char **ret_error, const char *fmt, ...) {
        va_list ap;
        char *s;

        if (!ret_error)
                return;
        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        free(*ret_error);
        *ret_error = s;
}

int backend_read_kept(const char *root, RootFile *kept, BackendKind k, KernelMode *ret, char **ret_error) {
        _cleanup_free_ char *text = NULL;
        const char *path = backend_sysctl_path(k);
        KernelMode m;
        int r;

        if (!path) {
                *ret = KERNEL_MODE_UNKNOWN;
                return 0;
        }
        r = kept ? root_file_read(root, kept, 4096, &text) : root_read_file(root, path, 4096, &text);
        if (r < 0) {
                errno = -r;
                set_error(ret_error, "cannot read %s: %m", path);
                return r;
        }
        m = backend_parse_mode(k, text);
        if (m == KERNEL_MODE_UNKNOWN) {
                set_error(ret_error, "%s holds '%s', which is not a mode this daemon knows", path,
                          strstrip(text));
                return -EBADMSG;
        }
        *ret = m;
        return 0;
}

int backend_read(const char *root, BackendKind k, KernelMode *ret, char **ret_error) {
        return backend_read_kept(root, NULL, k, ret, ret_error);
}

int backend_write(const char *root, BackendKind k, KernelMode mode, char **ret_error) {
        const char *path = backend_sysctl_path(k);
        const char *word = backend_mode_word(k, mode);
        _cleanup_free_ char *line = NULL;
        KernelMode back;
        int r;

        if (!path) {
                set_error(ret_error, "no kernel interface for NUMA statistics");
                return -EOPNOTSUPP;
        }
        if (!word || !backend_supports(k, mode)) {
                set_error(ret_error, "%s cannot be set to '%s'", path, kernel_mode_to_string(mode));
                return -EOPNOTSUPP;
        }
        if (asprintf(&line, "%s\n", word) < 0)
                return -ENOMEM;
        r = root_write_string(root, path, line);
        if (r < 0) {
                errno = -r;
                set_error(ret_error, "cannot write '%s' to %s: %m", word, path);
                return r;
        }
        /* Always read back: the v3 handler returns success for words it
         * rejects and keeps the old mode. */
        r = backend_read(root, k, &back, ret_error);
        if (r < 0)
                return r;
        if (back != mode) {
                set_error(ret_error, "wrote '%s' to %s but it reads back '%s': the kernel did not take it",
                          word, path, kernel_mode_to_string(back));
                return -EIO;
        }
        return 0;
}
