/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The status as Prometheus text exposition (format 0.0.4), for
 * `numastatctl metrics` (io.numastatd.GetMetrics) and the node_exporter
 * textfile collector ([metrics] textfile). Pure: renders a Status.
 *
 * Fixed names dashboards may rely on: numastatd_counting (0 or 1) and
 * numastatd_transitions_total{cause}. Label cardinality is bounded: cause,
 * mode, policy and backend by their enums; reads by (comm, file, ignored)
 * by the reader table (READERTAB_MAX programs and files) and the watched
 * files; nodes by the topology. */

#include "status.h"

/* Returns the text (malloc'd), or NULL on OOM. */
char *metrics_render(const Status *s);
