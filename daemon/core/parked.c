/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "parked.h"

struct ParkedReads {
        ParkedRead reads[PARKED_MAX];   /* oldest first */
        size_t n;
};

void parked_read_done(ParkedRead *p) {
        free(p->path);
        free(p->comm);
        *p = (ParkedRead) {};
}

ParkedReads *parked_reads_new(void) {
        return calloc(1, sizeof(ParkedReads));
}

ParkedReads *parked_reads_free(ParkedReads *p) {
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n; i++)
                parked_read_done(&p->reads[i]);
        free(p);
        return NULL;
}

size_t parked_reads_count(const ParkedReads *p) {
        return p ? p->n : 0;
}

/* Moves read i out to *ret, closing the gap. */
static void take(ParkedReads *p, size_t i, ParkedRead *ret) {
        *ret = p->reads[i];
        memmove(p->reads + i, p->reads + i + 1, (p->n - i - 1) * sizeof *p->reads);
        p->n--;
}

int parked_reads_add(ParkedReads *p, pid_t pid, uint64_t since, const char *path, const char *comm,
                     const uid_t *uid, ParkedRead *ret_evicted) {
        ParkedRead copy = {
                .pid = pid,
                .since = since,
                .path = path ? strdup(path) : NULL,
                .comm = comm ? strdup(comm) : NULL,
                .has_uid = uid != NULL,
                .uid = uid ? *uid : 0,
        };
        int evicted = 0;

        if ((path && !copy.path) || (comm && !copy.comm)) {
                parked_read_done(&copy);
                return -ENOMEM;
        }
        if (p->n >= PARKED_MAX) {
                take(p, 0, ret_evicted);        /* bounded memory: the oldest goes, handled as it is */
                evicted = 1;
        }
        p->reads[p->n++] = copy;
        return evicted;
}

uint64_t exit_record_not_before(uint64_t taken) {
        return taken > PARKED_LOOKBACK_USEC ? taken - PARKED_LOOKBACK_USEC : 0;
}

static bool parked_read_due(const ParkedRead *r, uint64_t now, const ParkedLookup *lookup) {
        if (!lookup || lookup->has_record(r, lookup->userdata))
                return true;
        if (now < r->since + PARKED_DEADLINE_USEC)
                return false;
        return now >= r->since + PARKED_EXITING_MAX_USEC || !lookup->exiting(r, lookup->userdata);
}

bool parked_reads_take_due(ParkedReads *p, uint64_t now, const ParkedLookup *lookup, ParkedRead *ret) {
        for (size_t i = 0; p && i < p->n; i++)
                if (parked_read_due(&p->reads[i], now, lookup)) {
                        take(p, i, ret);
                        return true;
                }
        return false;
}

uint64_t parked_reads_next(const ParkedReads *p, uint64_t now) {
        uint64_t next = UINT64_MAX;

        for (size_t i = 0; p && i < p->n; i++) {
                uint64_t deadline = p->reads[i].since + PARKED_DEADLINE_USEC;

                if (now >= deadline)
                        deadline = p->reads[i].since + PARKED_EXITING_MAX_USEC;
                next = MIN(next, MIN(now + PARKED_POLL_USEC, deadline));
        }
        return next;
}
