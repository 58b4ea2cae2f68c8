/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "own-trace.h"

typedef struct OwnTraceSlot {
        float pages, pages_off; /* 24 bits of precision: pages/s to 1e-7 */
} OwnTraceSlot;

struct OwnTrace {
        OwnTraceSlot slots[OWN_TRACE_SLOTS];
        uint64_t needed[OWN_TRACE_SLOTS / 64 + 1];      /* a bit a slot */
        bool started;
        uint64_t origin;        /* the start: slot 0 begins here */
        uint64_t slot_usec;
        uint64_t n_slots;       /* the window: OWN_TRACE_SLOTS, or 24 hours of slots if fewer */
        uint64_t newest;        /* the newest slot's number since the start */
};

int own_trace_new(OwnTrace **ret) {
        OwnTrace *t = calloc(1, sizeof *t);

        if (!t)
                return -ENOMEM;
        *ret = t;
        return 0;
}

OwnTrace *own_trace_free(OwnTrace *t) {
        free(t);
        return NULL;
}

void own_trace_start(OwnTrace *t, uint64_t now, uint64_t slot_usec) {
        memset(t->slots, 0, sizeof t->slots);
        memset(t->needed, 0, sizeof t->needed);
        t->started = true;
        t->origin = now;
        t->slot_usec = MAX(slot_usec, OWN_TRACE_MIN_SLOT_USEC);
        t->n_slots = MIN((uint64_t) OWN_TRACE_SLOTS, OWN_TRACE_WINDOW_USEC / t->slot_usec);
        t->newest = 0;
}

uint64_t own_trace_slot_usec(const OwnTrace *t) {
        return t->slot_usec;
}

static size_t position(const OwnTrace *t, uint64_t number) {
        return (size_t) (number % t->n_slots);
}

static void set_needed(OwnTrace *t, uint64_t number, bool on) {
        size_t p = position(t, number);

        if (on)
                t->needed[p / 64] |= UINT64_C(1) << (p % 64);
        else
                t->needed[p / 64] &= ~(UINT64_C(1) << (p % 64));
}

static bool get_needed(const OwnTrace *t, uint64_t number) {
        size_t p = position(t, number);

        return t->needed[p / 64] & (UINT64_C(1) << (p % 64));
}

static uint64_t number_at(const OwnTrace *t, uint64_t at) {
        return at > t->origin ? (at - t->origin) / t->slot_usec : 0;
}

/* The oldest slot still kept. */
static uint64_t oldest(const OwnTrace *t) {
        return t->newest >= t->n_slots ? t->newest - t->n_slots + 1 : 0;
}

/* Moves the ring on to at's slot, clearing the slots it passes; returns
 * at's slot number (the oldest kept, if at is before it). */
static uint64_t advance(OwnTrace *t, uint64_t at) {
        uint64_t n = number_at(t, at);

        if (n > t->newest) {
                for (uint64_t k = MAX(t->newest + 1, n >= t->n_slots ? n - t->n_slots + 1 : 0); k <= n; k++) {
                        t->slots[position(t, k)] = (OwnTraceSlot) {};
                        set_needed(t, k, false);
                }
                t->newest = n;
        }
        return MAX(n, oldest(t));
}

void own_trace_pages(OwnTrace *t, uint64_t now, uint64_t pages, bool off) {
        OwnTraceSlot *s;

        if (!t->started || pages == 0)
                return;
        s = &t->slots[position(t, advance(t, now))];
        s->pages += (float) pages;
        if (off)
                s->pages_off += (float) pages;
}

void own_trace_need(OwnTrace *t, uint64_t from, uint64_t to) {
        if (!t->started || to < from)
                return;
        for (uint64_t k = MAX(number_at(t, from), oldest(t)), last = advance(t, to); k <= last; k++)
                set_needed(t, k, true);
}

bool own_trace_needed_at(const OwnTrace *t, uint64_t at) {
        uint64_t n = number_at(t, at);

        return t->started && n <= t->newest && n >= oldest(t) && get_needed(t, n);
}

void own_trace_window_done(OwnTraceWindow *w) {
        free(w->rate);
        free(w->needed);
        *w = (OwnTraceWindow) {};
}

int own_trace_window(const OwnTrace *t, uint64_t now, OwnTraceWindow *ret) {
        uint64_t end = t->started ? number_at(t, now) : 0, first;       /* [first, end): whole slots */
        OwnTraceWindow w = {};

        first = end > t->n_slots ? end - t->n_slots : 0;
        if (end <= first)
                return -ENODATA;
        w.slot_usec = t->slot_usec;
        w.n = (size_t) (end - first);
        w.start_free = first > 0;
        w.rate = calloc(w.n, sizeof *w.rate);
        w.needed = calloc(w.n, sizeof *w.needed);
        if (!w.rate || !w.needed) {
                own_trace_window_done(&w);
                return -ENOMEM;
        }
        for (size_t i = 0; i < w.n; i++) {
                uint64_t k = first + i;
                const OwnTraceSlot *s = &t->slots[position(t, k)];

                /* Slots the ring has not reached since (nothing booked) hold
                 * what it kept a day before: they are empty. */
                if (k > t->newest || k < oldest(t))
                        continue;
                w.rate[i] = (double) s->pages * 1e6 / (double) t->slot_usec;
                w.needed[i] = get_needed(t, k);
                w.pages_total += s->pages;
                w.pages_off_own += s->pages_off;
        }
        *ret = w;
        return 0;
}
