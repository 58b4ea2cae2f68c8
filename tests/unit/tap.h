/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Minimal TAP producer for the unit tests: automake's tap-driver counts
 * every check, so a failure names the exact assertion. */

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned tap_n, tap_failed;

static inline bool tap_ok(bool cond, const char *file, int line, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static inline bool tap_ok(bool cond, const char *file, int line, const char *fmt, ...) {
        va_list ap;
        tap_n++;
        printf("%s %u - ", cond ? "ok" : "not ok", tap_n);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        if (!cond) {
                tap_failed++;
                printf("#   failed at %s:%d\n", file, line);
        }
        fflush(stdout);
        return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(a, b, name)                                                          \
        ({                                                                          \
                long long _a = (long long) (a), _b = (long long) (b);               \
                bool _r = ok(_a == _b, "%s", name);                                 \
                if (!_r)                                                            \
                        printf("#   got %lld, expected %lld\n", _a, _b);            \
                _r;                                                                 \
        })
#define is_u64(a, b, name)                                                          \
        ({                                                                          \
                uint64_t _a = (a), _b = (b);                                        \
                bool _r = ok(_a == _b, "%s", name);                                 \
                if (!_r)                                                            \
                        printf("#   got %" PRIu64 ", expected %" PRIu64 "\n", _a, _b); \
                _r;                                                                 \
        })
#define is_str(a, b, name)                                                          \
        ({                                                                          \
                const char *_a = (a), *_b = (b);                                    \
                bool _r = ok(_a && _b && strcmp(_a, _b) == 0, "%s", name);          \
                if (!_r)                                                            \
                        printf("#   got \"%s\", expected \"%s\"\n", _a ? _a : "(null)", \
                               _b ? _b : "(null)");                                 \
                _r;                                                                 \
        })

/* Runs check(arg) in a child that dropped to uid/gid 65534: what a root test
 * needs for what only an unprivileged user sees (EACCES). */
static inline bool as_nobody(bool (*check)(void *), void *arg) {
        int status = 0;
        pid_t pid = fork();

        if (pid == 0) {
                if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
                        _exit(100);
                _exit(check(arg) ? 0 : 1);
        }
        if (pid < 0 || waitpid(pid, &status, 0) < 0)
                return false;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static inline void tap_skip(const char *why) {
        tap_n++;
        printf("ok %u # SKIP %s\n", tap_n, why);
}

static inline int tap_done(void) {
        printf("1..%u\n", tap_n);
        return tap_failed ? 1 : 0;
}
