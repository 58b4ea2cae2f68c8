/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The [metrics] textfile: the status as Prometheus text for node_exporter,
 * rewritten on change and at most every interval. */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "manager.h"
#include "manager-private.h"
#include "metrics.h"
#include "time-util.h"

/* The file we wrote, gone (a clean stop, or the path changed): a stale
 * file would tell node_exporter an old story. */
void manager_metrics_remove(Manager *m) {
        if (m->metrics.path && textfile_remove(m->metrics.path, &m->metrics.written) > 0)
                log_debug("Removed %s.", m->metrics.path);
        m->metrics.written = (TextfileId) {};
        m->metrics.path = mfree(m->metrics.path);
        m->metrics.last = mfree(m->metrics.last);
}

static void manager_metrics_write(Manager *m) {
        _cleanup_free_ char *text = NULL, *why = NULL;
        Status st;
        int r;

        if (!m->config.metrics_textfile)
                return;
        status_build(m, now_usec(CLOCK_MONOTONIC), &st);
        text = metrics_render(&st);
        if (!text) {
                log_oom();
                return;
        }
        if (streq_ptr(text, m->metrics.last) && streq_ptr(m->metrics.path, m->config.metrics_textfile))
                return;         /* nothing changed: no write */
        r = textfile_write(m->config.metrics_textfile, text, &m->metrics.written, &why);
        if (r < 0) {
                if (!m->metrics.error)
                        log_warning_errno(r, "Cannot write the metrics: %s: %m", strnull(why));
                set_source_error(&m->metrics.error, r, "%s: %m", strnull(why));
                manager_state_changed(m);
                return;
        }
        if (m->metrics.error) {
                m->metrics.error = mfree(m->metrics.error);
                manager_state_changed(m);
        }
        free(m->metrics.last);
        m->metrics.last = TAKE_PTR(text);
        if (!streq_ptr(m->metrics.path, m->config.metrics_textfile)) {
                free(m->metrics.path);
                m->metrics.path = strdup(m->config.metrics_textfile);
        }
        m->metrics.written_at = now_usec(CLOCK_REALTIME);
}

int on_metrics_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        manager_metrics_write(m);
        manager_schedule_metrics(m, false);
        return 0;
}

/* The next write, an interval from now (or at once); none without a textfile. */
void manager_schedule_metrics(Manager *m, bool now) {
        if (!m->metrics.timer)
                return;
        timer_at(m->metrics.timer, !m->config.metrics_textfile ? USEC_INFINITY
                                   : now_usec(CLOCK_MONOTONIC) + (now ? 0 : m->config.metrics_interval));
}
