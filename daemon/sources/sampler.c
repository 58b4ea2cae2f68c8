/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "sampler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "macro.h"
#include "stats.h"
#include "time-util.h"

struct Sampler {
        char *root;
        uint64_t samples;
        RateMeter rate;
        char *rate_error;
        CounterTrack vmstat;
        NodeTrack *nodes;
        size_t n_nodes;
        /* The files read each sample, kept open: vmstat's, and each node's
         * numastat, in the order of nodes. */
        RootFile vmstat_file;
        RootFile *node_files;
        CarryState carried;     /* the previous daemon's counters, to continue from */
        uint64_t resets, external_resets;
        SampleNews news;
};

int sampler_new(const char *root, Sampler **ret) {
        Sampler *s = calloc(1, sizeof *s);

        if (!s)
                return -ENOMEM;
        s->root = strdup(root);
        if (!s->root) {
                free(s);
                return -ENOMEM;
        }
        (void) root_file_init(&s->vmstat_file, "/proc/vmstat");
        *ret = s;
        return 0;
}

Sampler *sampler_free(Sampler *s) {
        if (!s)
                return NULL;
        carry_state_done(&s->carried);
        root_file_close(&s->vmstat_file);
        for (size_t i = 0; i < s->n_nodes; i++)
                root_file_close(&s->node_files[i]);
        free(s->node_files);
        free(s->nodes);
        free(s->rate_error);
        free(s->root);
        free(s);
        return NULL;
}

void sampler_continue_from(Sampler *s, CarryState *carried) {
        carry_state_done(&s->carried);
        s->carried = *carried;
        *carried = (CarryState) {};
}

/* Node id's index in nodes and node_files, added if new; -1: no memory. */
static ssize_t node_index(Sampler *s, int id) {
        NodeTrack *a;
        RootFile *f;

        for (size_t i = 0; i < s->n_nodes; i++)
                if (s->nodes[i].id == id)
                        return i;
        a = reallocarray(s->nodes, s->n_nodes + 1, sizeof *a);
        if (!a)
                return -1;
        s->nodes = a;
        f = reallocarray(s->node_files, s->n_nodes + 1, sizeof *f);
        if (!f)
                return -1;
        s->node_files = f;
        if (stats_node_numastat_init(&f[s->n_nodes], id) < 0)
                return -1;
        a[s->n_nodes] = (NodeTrack){ .id = id };
        return s->n_nodes++;
}

/* A source's first reading: from the previous daemon's count, if it left
 * one (carry.h). */
static void track_begin(Sampler *s, CounterTrack *t, int id, const NumaCounters *reading) {
        const CarrySource *c = carry_state_find(&s->carried, id);

        if (c)
                counter_track_resume(t, reading, &c->continuous, &c->last);
        else
                counter_track_start(t, reading);
}

/* Returns true when the carried state changed meaning: a source begun, or
 * a reset by someone else. */
static bool track_feed(Sampler *s, CounterTrack *t, int id, const NumaCounters *reading, const char *what) {
        if (!t->started) {
                track_begin(s, t, id, reading);
                return true;
        }
        if (!counter_track_update(t, reading))
                return false;
        s->external_resets++;
        log_notice("NUMA counters of %s went backwards: reset by someone else; kept what was counted before.", what);
        return true;
}

/* A reading for track t: the counters before a reset we cause (the next
 * reading continues from them), or one more reading to follow. */
static bool track_take(Sampler *s, CounterTrack *t, int id, const NumaCounters *reading, const char *what,
                       bool reset) {
        if (!reset)
                return track_feed(s, t, id, reading, what);
        if (!t->started)
                track_begin(s, t, id, reading);
        counter_track_reset(t, reading);
        return true;
}

bool sampler_sample(Sampler *s, usec_t interval, bool counters, bool reset, const Topology *topology) {
        bool changed = false;
        usec_t now;
        VmStat vs;
        int r;

        r = stats_read_vmstat(s->root, &s->vmstat_file, &vs);
        s->samples++;
        /* The rate is per the clock at the reading, not a timer's schedule:
         * a late wakeup must not inflate it. */
        now = now_usec(CLOCK_MONOTONIC);
        if (r >= 0 && !vs.has_pgalloc && !s->rate_error) {
                /* Said once: it will not change while the kernel runs. */
                s->rate_error = strdup("no pgalloc_* lines in /proc/vmstat (a kernel without "
                                       "CONFIG_VM_EVENT_COUNTERS): allocation rate unknown, "
                                       "auto keeps counting on");
                log_warning("%s.", s->rate_error);
        }
        if (r >= 0 && vs.has_pgalloc) {
                s->news.has_pgalloc = true;
                s->news.pgalloc = vs.pgalloc;
                s->news.at = now;
                if (rate_meter_sample(&s->rate, now, vs.pgalloc, 3 * interval, interval)) {
                        s->news.has_rate = true;
                        s->news.rate = s->rate.rate;
                        s->news.interval_rate = s->rate.interval_rate;
                }
        }

        /* While the kernel does not count, the counters stay frozen at zero:
         * nothing to follow until counting is back. */
        if (!counters)
                return false;
        if (r >= 0 && vs.has_numa)
                changed |= track_take(s, &s->vmstat, CARRY_VMSTAT, &vs.numa, "/proc/vmstat", reset);
        for (size_t i = 0; topology && i < topology->n_nodes; i++) {
                int id = topology->nodes[i].id;
                ssize_t k = node_index(s, id);
                NumaCounters c;
                char what[32];

                if (k < 0 || stats_read_node_numastat(s->root, &s->node_files[k], &c) < 0)
                        continue;
                snprintf(what, sizeof what, "node%d", id);
                changed |= track_take(s, &s->nodes[k].track, id, &c, what, reset);
        }
        if (reset)
                s->resets++;
        return changed;
}

bool sampler_adopt_quiet_fd(Sampler *s, int *fd) {
        struct stat st;

        if (fstat(*fd, &st) < 0)
                return false;
        if (root_file_adopt(&s->vmstat_file, fd, &st))
                return true;
        for (size_t i = 0; i < s->n_nodes; i++)
                if (root_file_adopt(&s->node_files[i], fd, &st))
                        return true;
        return false;
}

bool sampler_take_news(Sampler *s, SampleNews *ret) {
        *ret = s->news;
        s->news = (SampleNews) {};
        return ret->has_pgalloc || ret->has_rate;
}

void sampler_drop_pgalloc(Sampler *s) {
        s->news.has_pgalloc = false;
}

void sampler_carry_state(const Sampler *s, CarryState *ret) {
        CarryState c = {};

        if (s->vmstat.started) {
                CarrySource *src = &c.sources[c.n++];

                *src = (CarrySource) { .id = CARRY_VMSTAT, .last = s->vmstat.last };
                counter_track_continuous(&s->vmstat, &src->continuous);
        }
        for (size_t i = 0; i < s->n_nodes && c.n < CARRY_SOURCES_MAX; i++) {
                CarrySource *src;

                if (!s->nodes[i].track.started)
                        continue;
                src = &c.sources[c.n++];
                *src = (CarrySource) { .id = s->nodes[i].id, .last = s->nodes[i].track.last };
                counter_track_continuous(&s->nodes[i].track, &src->continuous);
        }
        *ret = c;
}

const RateMeter *sampler_rate(const Sampler *s) {
        return &s->rate;
}

const char *sampler_rate_error(const Sampler *s) {
        return s->rate_error;
}

uint64_t sampler_samples(const Sampler *s) {
        return s->samples;
}

const CounterTrack *sampler_vmstat(const Sampler *s) {
        return &s->vmstat;
}

const NodeTrack *sampler_nodes(const Sampler *s, size_t *ret_n) {
        *ret_n = s->n_nodes;
        return s->nodes;
}

uint64_t sampler_resets(const Sampler *s) {
        return s->resets;
}

uint64_t sampler_external_resets(const Sampler *s) {
        return s->external_resets;
}
