/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* What a varlink server running as root among other users keeps to: how
 * many connections (the last few slots root's, a cap per uid), how much
 * output may wait for peers that do not read, how long a connection may
 * sit without a call. Both servers (varlink-server.c, varlink-server-sd.c)
 * hold one and ask it; they count their own connections and queues. */
typedef struct VarlinkLimits {
        unsigned connections_max, connections_per_uid_max, connections_root_reserved;
        size_t output_max, output_per_uid_max, output_others_max;
        uint64_t idle_timeout;          /* µs; 0: none */
        uint64_t refused_logged_at;     /* CLOCK_MONOTONIC µs of the last "refused" line */
        unsigned refused_since_log;
} VarlinkLimits;

/* The defaults of varlink-server.h. */
void varlink_limits_init(VarlinkLimits *l);

/* Whether peer may connect while there are n_connections, n_of_uid of them
 * its uid's. A refusal is logged here, at most once in 10 s (with how many
 * more were refused since). */
bool varlink_limits_admit(VarlinkLimits *l, unsigned n_connections, unsigned n_of_uid, const struct ucred *peer);

/* Whether len more bytes for a peer of uid would pass a limit on what is
 * queued: its connection's (queued), or, not root's, its uid's (of_uid)
 * or all non-root peers' together (of_others), each counted without len. */
bool varlink_limits_output_over(const VarlinkLimits *l, uid_t uid, size_t queued, size_t of_uid, size_t of_others,
                                size_t len);
