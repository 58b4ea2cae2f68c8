/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "string-table.h"

static const char *const transition_kind_table[_TRANSITION_KIND_MAX] = {
        [TRANSITION_POLICY] = "policy",
        [TRANSITION_DRY_RUN] = "dry-run",
        [TRANSITION_EXTERNAL] = "external",
        [TRANSITION_EXIT] = "exit",
        [TRANSITION_KERNEL] = "kernel",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(transition_kind, TransitionKind)

char *transition_format_state(const Transition *t, bool to, bool redact, char *buf, size_t size) {
        KernelState k = {
                .mode = to ? t->to : t->from,
                .auto_state = to ? t->to_auto : t->from_auto,
                .trigger_cause = t->cause,
                .triggered_by = redact ? reader_ref_redact(&t->reader) : t->reader,
        };

        if (k.auto_state == AUTO_STATE_TRIGGERED && !(to && t->kind == TRANSITION_KERNEL)) {
                /* Who triggered it is known for the transition that says so. */
                snprintf(buf, size, "auto (triggered)");
                return buf;
        }
        return kernel_state_format(&k, buf, size);
}

const Transition *history_at(const History *h, size_t i) {
        return &h->ring[(h->first + i) % HISTORY_MAX];
}

const Transition *history_add(History *h, const Transition *t) {
        Transition *e;

        if (h->n == HISTORY_MAX) {
                /* Full: the oldest makes room. */
                free(h->ring[h->first].reason);
                free(h->ring[h->first].reason_redacted);
                h->first = (h->first + 1) % HISTORY_MAX;
                h->n--;
        }
        e = &h->ring[(h->first + h->n) % HISTORY_MAX];
        *e = *t;
        e->reason = strdup(t->reason ? t->reason : "");
        e->reason_redacted = t->reason_redacted ? strdup(t->reason_redacted) : NULL;
        h->n++;
        h->total++;
        if (t->cause >= 0 && t->cause < _CAUSE_MAX)
                h->by_cause[t->cause]++;
        return e;
}

void history_done(History *h) {
        for (size_t i = 0; i < h->n; i++) {
                free(h->ring[(h->first + i) % HISTORY_MAX].reason);
                free(h->ring[(h->first + i) % HISTORY_MAX].reason_redacted);
        }
        h->first = h->n = 0;
}
