/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The [metrics] textfile: the status as Prometheus text for node_exporter,
 * rewritten on change and at most every interval. */
#include "log.h"
#include "manager.h"
#include "manager-internal.h"
#include "metrics.h"
#include "metrics-file.h"
#include "time-util.h"

/* The file we wrote, gone (a clean stop, or the path changed). */
void manager_metrics_remove(Manager *m) {
        metrics_file_remove(manager_metrics_file(m));
}

static void manager_metrics_write(Manager *m) {
        _cleanup_free_ char *text = NULL;
        Status st;

        if (!manager_config(m)->metrics_textfile)
                return;
        status_build(m, now_usec(CLOCK_MONOTONIC), &st);
        text = metrics_render(&st);
        if (!text) {
                log_oom();
                return;
        }
        if (metrics_file_update(manager_metrics_file(m), manager_config(m)->metrics_textfile, text) > 0)
                manager_state_changed(m);
}

void manager_handle_metrics_due(Manager *m) {
        manager_metrics_write(m);
        manager_schedule_metrics(m, false);
}

/* The next write, an interval from now (or at once); none without a textfile. */
void manager_schedule_metrics(Manager *m, bool now) {
        sd_event_source *timer = manager_timer(m, MANAGER_TIMER_METRICS);
        const Config *c = manager_config(m);

        if (!timer)
                return;
        event_timer_at(timer, !c->metrics_textfile ? USEC_INFINITY
                                                   : now_usec(CLOCK_MONOTONIC) + (now ? 0 : c->metrics_interval));
}
