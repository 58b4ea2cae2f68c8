/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include "log.h"

/* Process-wide logging settings: set once at start-up from the command line,
 * read everywhere. This is the only module-level state outside the daemon's
 * context, the same trade-off systemd's log.c makes. */
static int max_level = LOG_INFO;
static const char *ident = NULL;

static const char *const level_names[] = {
        "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

void log_set_ident(const char *i) {
        ident = i;
}

int log_level_from_string(const char *s) {
        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(level_names); i++)
                if (strcasecmp(s, level_names[i]) == 0)
                        return (int) i;
        if (strcasecmp(s, "error") == 0)
                return LOG_ERR;
        if (s[0] >= '0' && s[0] <= '7' && s[1] == 0)
                return s[0] - '0';
        return -EINVAL;
}

static bool stderr_is_journal(void) {
        /* JOURNAL_STREAM names the journal's stream socket; only trust it if
         * stderr is that socket. Checked every time: cheap, and stateless. */
        return getenv("JOURNAL_STREAM") != NULL;
}

int log_internal(int level, int error, const char *fmt, ...) {
        int saved_errno = errno;
        char msg[2048];
        va_list ap;

        error = abs(error);
        /* %m in fmt refers to the error we were given. */
        errno = error;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);

        if (stderr_is_journal())
                fprintf(stderr, "<%d>%s\n", level, msg);
        else if (ident)
                fprintf(stderr, "%s: %s\n", ident, msg);
        else
                fprintf(stderr, "%s\n", msg);

        errno = saved_errno;
        return -error;
}

void log_struct(int level, const char *message_id, const char *message, const char *const *fields) {
        struct iovec iov[64];
        char prio[16], *mid = NULL, *msg = NULL, *ident_field = NULL;
        size_t n = 0;

        if (level > max_level)
                return;
        if (!stderr_is_journal()) {
                log_internal(level, 0, "%s", message);
                return;
        }
        snprintf(prio, sizeof prio, "PRIORITY=%d", level);
        if (asprintf(&mid, "MESSAGE_ID=%s", message_id) < 0 || asprintf(&msg, "MESSAGE=%s", message) < 0 ||
            asprintf(&ident_field, "SYSLOG_IDENTIFIER=%s", ident ? ident : "numastatd") < 0) {
                free(mid);
                free(msg);
                log_internal(level, 0, "%s", message);
                return;
        }
        iov[n++] = (struct iovec){ msg, strlen(msg) };
        iov[n++] = (struct iovec){ mid, strlen(mid) };
        iov[n++] = (struct iovec){ prio, strlen(prio) };
        iov[n++] = (struct iovec){ ident_field, strlen(ident_field) };
        for (size_t i = 0; fields && fields[i] && n < ELEMENTSOF(iov); i++)
                iov[n++] = (struct iovec){ (void *) fields[i], strlen(fields[i]) };
        if (sd_journal_sendv(iov, (int) n) < 0)
                log_internal(level, 0, "%s", message);  /* no journal after all: keep the line */
        free(mid);
        free(msg);
        free(ident_field);
}
