/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "cause.h"
#include "string-table.h"
#include "strutil.h"

static const char *const cause_table[_CAUSE_MAX] = {
        [CAUSE_STARTUP] = "startup",
        [CAUSE_READ] = "read",
        [CAUSE_LOST_READS] = "lost-reads",
        [CAUSE_PRESSURE_ABOVE] = "pressure-above",
        [CAUSE_PRESSURE_BELOW] = "pressure-below",
        [CAUSE_OPERATOR] = "operator",
        [CAUSE_RELOAD] = "reload",
        [CAUSE_EXTERNAL] = "external",
        [CAUSE_READERS_UNSEEN] = "readers-unseen",
        [CAUSE_EXIT] = "exit",
        [CAUSE_IGNORED_READ] = "ignored-read",
        [CAUSE_UNSEEN_READ] = "unseen-read",
        [CAUSE_ARMED_SAMPLE] = "armed-sample",
        [CAUSE_REARM] = "rearm",
        [CAUSE_HOLD] = "hold",
};

DEFINE_STRING_TABLE_LOOKUP(cause, Cause)

static void copy(char *dst, size_t size, const char *src) {
        snprintf(dst, size, "%s", src ? src : "");
}

void reader_ref_set(ReaderRef *r, pid_t pid, bool pid_verified, bool has_uid, uid_t uid, const char *comm,
                    const char *unit, const char *path) {
        *r = (ReaderRef) {
                .pid = pid,
                .pid_verified = pid_verified,
                .has_uid = has_uid,
                .uid = has_uid ? uid : 0,
        };
        copy(r->comm, sizeof r->comm, comm);
        copy(r->unit, sizeof r->unit, unit);
        copy(r->path, sizeof r->path, path);
}

ReaderRef reader_ref_redact(const ReaderRef *r) {
        ReaderRef x = { .redacted = true };

        memcpy(x.comm, r->comm, sizeof x.comm);
        memcpy(x.path, r->path, sizeof x.path);
        return x;
}

char *reader_ref_format_who(const ReaderRef *r, char *buf, size_t size) {
        char comm[READER_COMM_MAX * 4], unit[READER_UNIT_MAX * 4], uid[32];

        cescape_buf(r->comm, comm, sizeof comm);
        cescape_buf(r->unit, unit, sizeof unit);
        if (r->has_uid)
                snprintf(uid, sizeof uid, "%u", (unsigned) r->uid);
        else
                snprintf(uid, sizeof uid, "?");

        if (r->redacted && *comm)
                snprintf(buf, size, "%s (another user's process)", comm);
        else if (r->redacted)
                snprintf(buf, size, "another process");
        else if (isempty(r->comm))
                /* Short-lived readers (a one-off cat) can be gone before we look. */
                snprintf(buf, size, "pid %d (exited before it could be attributed)", (int) r->pid);
        else
                snprintf(buf, size, "%s (pid %d, uid %s%s%s)", comm, (int) r->pid, uid, *unit ? ", " : "", unit);
        return buf;
}

char *reader_ref_format(const ReaderRef *r, char *buf, size_t size) {
        char who[READER_REF_TEXT_MAX], path[READER_PATH_MAX * 4];

        reader_ref_format_who(r, who, sizeof who);
        cescape_buf(r->path, path, sizeof path);
        snprintf(buf, size, "%s read %s", who, path);
        return buf;
}
