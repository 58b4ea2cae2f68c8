/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The sampler: readings of the statistics files under root. From the
 * pgalloc_* lines (which no mode affects) the pages allocated and the
 * allocation rate; from the NUMA counters (/proc/vmstat and each node's
 * numastat) continuous counts that survive the resets switching causes,
 * and a daemon's restart (carried in carry.h's state). It reads when told
 * and tells no one: what a sample found is taken (sampler_take_news())
 * by whoever may feed the engine then. */

#include <stdbool.h>
#include <stdint.h>

#include "carry.h"
#include "counters.h"
#include "strutil.h"
#include "topology.h"

typedef struct Sampler Sampler;

/* What the last samples found and no one has taken yet. */
typedef struct SampleNews {
        bool has_pgalloc;
        uint64_t pgalloc;       /* the pages allocated so far */
        bool has_rate;
        double rate, interval_rate;     /* RateMeter's */
        usec_t at;              /* CLOCK_MONOTONIC: the sample's */
} SampleNews;

int sampler_new(const char *root, Sampler **ret);
Sampler *sampler_free(Sampler *s);
static inline void sampler_freep(Sampler **s) {
        sampler_free(*s);
}

/* The counters a previous daemon left, to continue from (moved from
 * *carried, which is left empty). */
void sampler_continue_from(Sampler *s, CarryState *carried);

/* One sample, at the interval the rate is measured over. counters: follow
 * the NUMA counters too (the kernel counts, or is about to reset them);
 * reset: the kernel is about to zero them, this reading keeps what they
 * held. Returns true when the counters' state changed meaning (a source
 * begun, a reset), which the carried state must follow now. */
bool sampler_sample(Sampler *s, usec_t interval, bool counters, bool reset, const Topology *topology);
/* The daemon's own read of a file it samples, as fanotify reported it:
 * takes *fd (leaving -1) if it is one of the files kept open, whose
 * samples then read through it, unreported (rootfs.h). */
bool sampler_adopt_quiet_fd(Sampler *s, int *fd);
/* Takes what the samples found since the last call; false: nothing. */
bool sampler_take_news(Sampler *s, SampleNews *ret);
/* A reading taken elsewhere supersedes the pages allocated not yet taken. */
void sampler_drop_pgalloc(Sampler *s);

/* The counters as the next daemon of this boot continues them: the
 * sources only (the root and boot are the keeper's). */
void sampler_carry_state(const Sampler *s, CarryState *ret);

/* Read-only views, for status. */
const RateMeter *sampler_rate(const Sampler *s);
const char *sampler_rate_error(const Sampler *s);       /* why there is no rate, if known */
uint64_t sampler_samples(const Sampler *s);             /* readings of the statistics files */
const CounterTrack *sampler_vmstat(const Sampler *s);
const NodeTrack *sampler_nodes(const Sampler *s, size_t *ret_n);
uint64_t sampler_resets(const Sampler *s);              /* resets we caused and compensated */
uint64_t sampler_external_resets(const Sampler *s);     /* resets found in the readings */
