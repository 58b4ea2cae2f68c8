/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "log.h"
#include "macro.h"
#include "time-util.h"
#include "varlink-limits.h"
#include "varlink-server.h"

#define REFUSED_LOG_INTERVAL (10 * USEC_PER_SEC)

void varlink_limits_init(VarlinkLimits *l) {
        *l = (VarlinkLimits) {
                .connections_max = VARLINK_CONNECTIONS_MAX_DEFAULT,
                .connections_per_uid_max = VARLINK_CONNECTIONS_PER_UID_MAX_DEFAULT,
                .connections_root_reserved = VARLINK_CONNECTIONS_ROOT_RESERVED_DEFAULT,
                .output_max = VARLINK_OUTPUT_MAX_DEFAULT,
                .output_per_uid_max = VARLINK_OUTPUT_PER_UID_MAX_DEFAULT,
                .output_others_max = VARLINK_OUTPUT_OTHERS_MAX_DEFAULT,
                .idle_timeout = VARLINK_IDLE_TIMEOUT_DEFAULT,
        };
}

static void log_refused(VarlinkLimits *l, const struct ucred *peer) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        if (l->refused_logged_at != 0 && now < l->refused_logged_at + REFUSED_LOG_INTERVAL) {
                l->refused_since_log++;
                return;
        }
        log_warning("varlink: connection limit reached, refusing pid " PID_FMT " (uid %u)%s%.0u%s.", peer->pid,
                    (unsigned) peer->uid, l->refused_since_log ? "; refused " : "", l->refused_since_log,
                    l->refused_since_log ? " more since the last such line" : "");
        l->refused_logged_at = now;
        l->refused_since_log = 0;
}

bool varlink_limits_admit(VarlinkLimits *l, unsigned n_connections, unsigned n_of_uid, const struct ucred *peer) {
        /* The last few slots are root's. */
        unsigned cap = l->connections_max;

        if (peer->uid != 0)
                cap -= MIN(l->connections_root_reserved, l->connections_max);
        if (n_connections < cap && n_of_uid < l->connections_per_uid_max)
                return true;
        log_refused(l, peer);
        return false;
}

bool varlink_limits_output_over(const VarlinkLimits *l, uid_t uid, size_t queued, size_t of_uid, size_t of_others,
                                size_t len) {
        if (queued + len > l->output_max)
                return true;
        if (uid == 0)
                return false;
        return of_uid + len > l->output_per_uid_max || of_others + len > l->output_others_max;
}
