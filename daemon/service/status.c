/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "status.h"
#include "strutil.h"

/* FNV-1a, 64 bit: a digest, not a defence; collisions only cost a Monitor
 * update that is not sent, and need 2^32 changes to be likely. */
typedef struct Digest {
        uint64_t h;
} Digest;

static void digest_bytes(Digest *d, const void *p, size_t n) {
        const unsigned char *b = p;
        for (size_t i = 0; i < n; i++) {
                d->h ^= b[i];
                d->h *= UINT64_C(0x100000001b3);
        }
}

static void digest_str(Digest *d, const char *s) {
        /* NULL and "" differ; the terminator separates fields. */
        if (!s) {
                digest_bytes(d, "\xff", 1);
                return;
        }
        digest_bytes(d, s, strlen(s) + 1);
}

#define digest_val(d, v) ({ __typeof__(v) _v_ = (v); digest_bytes((d), &_v_, sizeof _v_); })

uint64_t status_fingerprint(const Status *s) {
        Digest d = { UINT64_C(0xcbf29ce484222325) };

        digest_val(&d, s->backend);
        digest_val(&d, s->kernel->mode);
        digest_val(&d, s->kernel->auto_state);
        digest_val(&d, s->kernel->trigger_cause);
        digest_val(&d, s->kernel->triggered_by.pid);
        digest_val(&d, s->target_mode);
        digest_val(&d, s->counting);
        digest_val(&d, s->policy);
        digest_val(&d, s->policy_source);
        digest_val(&d, s->dry_run);
        digest_val(&d, s->paused);
        digest_val(&d, s->decision->cause);
        digest_val(&d, s->decision->rule);
        digest_str(&d, s->decision->reason);
        digest_str(&d, s->config_error);
        digest_val(&d, s->last_error->time);
        digest_str(&d, s->last_error->message);

        /* Who reads, not how often. */
        digest_val(&d, s->readers->n);
        for (size_t i = 0; i < s->readers->n; i++) {
                const ReaderEntry *e = &s->readers->entries[i];
                digest_str(&d, e->comm);
                digest_str(&d, e->exe);
                digest_str(&d, e->unit);
                digest_str(&d, e->path);
                digest_val(&d, e->has_uid);
                digest_val(&d, e->uid);
                digest_val(&d, e->ignored);
                digest_str(&d, e->rule);
                digest_val(&d, e->period != 0);        /* found periodic (not the figure itself) */
        }
        /* Holds come and go. */
        digest_val(&d, holds_count(s->holds));
        for (size_t i = 0; i < holds_count(s->holds); i++)
                digest_val(&d, holds_get(s->holds, i)->id);

        digest_val(&d, s->sources.readers);
        digest_str(&d, s->sources.readers_error);
        for (char *const *w = s->sources.watched; w && *w; w++)
                digest_str(&d, *w);
        digest_str(&d, s->sources.rate_error);
        digest_val(&d, s->sources.exit_records);
        digest_str(&d, s->sources.exit_records_error);
        digest_str(&d, s->sources.metrics_error);
        if (s->sources.instances) {     /* containers came or went */
                digest_val(&d, s->sources.instances->n);
                for (size_t i = 0; i < s->sources.instances->n; i++)
                        digest_val(&d, s->sources.instances->items[i].dev);
        }
        digest_val(&d, s->sources.uevents);
        digest_val(&d, s->sources.kernel_log);
        digest_str(&d, s->sources.uevents_error);
        digest_val(&d, s->sources.topology_reloads);
        digest_val(&d, s->topology->n_nodes);
        digest_val(&d, s->history->total);
        return d.h;
}


int status_best(const Status *s, BestFigures *ret) {
        return s->best ? best_planner_figures(s->best, ret) : -ENODATA;
}

bool status_keeps_counting_on(const Status *s, const ReaderEntry *e) {
        return s->policy == POLICY_AUTO && s->counting &&
               readertab_holds_until(e, s->policy_config.linger, s->linger_max) > s->now;
}
