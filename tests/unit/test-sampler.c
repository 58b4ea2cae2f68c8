/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sampler on a pristine root tree: what a sample tells (the pages
 * allocated, then a rate), the NUMA counters followed through resets ours
 * and someone else's, and the count a restarted daemon continues. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "sampler.h"
#include "tap.h"

static char root[] = "/tmp/test-sampler-XXXXXX";

static void put(const char *rel, const char *text) {
        char path[256];
        FILE *f;

        snprintf(path, sizeof path, "%s%s", root, rel);
        f = fopen(path, "we");
        if (!f)
                abort();
        fputs(text, f);
        fclose(f);
}

/* The kernel as the tree shows it: pages allocated, and numa_hit (the
 * other counters zero), in /proc/vmstat and node0's numastat. */
static void kernel(unsigned long long pgalloc, unsigned long long hit) {
        char text[512];

        snprintf(text, sizeof text,
                 "nr_free_pages 1000\npgalloc_normal %llu\nnuma_hit %llu\nnuma_miss 0\nnuma_foreign 0\n"
                 "numa_interleave 0\nnuma_local 0\nnuma_other 0\n",
                 pgalloc, hit);
        put("/proc/vmstat", text);
        snprintf(text, sizeof text,
                 "numa_hit %llu\nnuma_miss 0\nnuma_foreign 0\ninterleave_hit 0\nlocal_node %llu\nother_node 0\n", hit,
                 hit);
        put("/sys/devices/system/node/node0/numastat", text);
}

static uint64_t continuous_hit(const Sampler *s) {
        NumaCounters c;

        counter_track_continuous(sampler_vmstat(s), &c);
        return c.v[NUMA_HIT];
}

static uint64_t node_continuous_hit(const Sampler *s) {
        size_t n;
        const NodeTrack *t = sampler_nodes(s, &n);
        NumaCounters c;

        if (n != 1)
                return UINT64_MAX;
        counter_track_continuous(&t[0].track, &c);
        return c.v[NUMA_HIT];
}

int main(void) {
        NumaNode node0 = { .id = 0 };
        Topology topo = { .nodes = &node0, .n_nodes = 1 };
        _cleanup_(sampler_freep) Sampler *s = NULL, *next = NULL;
        _cleanup_(carry_state_done) CarryState carried = {};
        char dir[512];
        SampleNews news;

        if (!mkdtemp(root))
                return 1;
        snprintf(dir, sizeof dir, "mkdir -p '%s/proc' '%s/sys/devices/system/node/node0'", root, root);
        if (system(dir) != 0)
                return 1;
        is_int(sampler_new(root, &s), 0, "sampler_new");

        /* The pages allocated from the first sample on; a rate from the second. */
        kernel(1000, 500);
        ok(!sampler_sample(s, USEC_PER_MSEC, false, false, &topo), "counting off: no counter followed");
        ok(sampler_take_news(s, &news) && news.has_pgalloc && news.pgalloc == 1000 && !news.has_rate,
           "the first sample tells the pages allocated, no rate yet");
        ok(!sampler_take_news(s, &news), "told once");
        usleep(2000);
        kernel(3000, 500);
        (void) sampler_sample(s, USEC_PER_MSEC, false, false, &topo);
        ok(sampler_take_news(s, &news) && news.pgalloc == 3000 && news.has_rate && news.rate > 0,
           "the second tells a rate too");
        is_u64(sampler_samples(s), 2, "two samples");
        ok(!sampler_vmstat(s)->started, "counting off: the counters are not followed");

        /* Dropped: a reading at a switch supersedes it. */
        kernel(4000, 500);
        (void) sampler_sample(s, USEC_PER_MSEC, false, false, &topo);
        sampler_drop_pgalloc(s);
        ok(!sampler_take_news(s, &news) || !news.has_pgalloc, "a dropped reading is not told");

        /* Counting on: the counters followed, continuous through resets. */
        ok(sampler_sample(s, USEC_PER_MSEC, true, false, &topo), "the counters begun: the carried state changes");
        ok(!sampler_sample(s, USEC_PER_MSEC, true, false, &topo), "...then not, while they grow");
        kernel(4000, 800);
        (void) sampler_sample(s, USEC_PER_MSEC, true, false, &topo);
        is_u64(continuous_hit(s), 800, "continuous: as the kernel shows, before any reset");
        /* Ours: the snapshot before we zero them. */
        ok(sampler_sample(s, USEC_PER_MSEC, true, true, &topo), "a reset of ours changes the carried state");
        is_u64(sampler_resets(s), 1, "  counted as ours");
        kernel(4000, 100);
        (void) sampler_sample(s, USEC_PER_MSEC, true, false, &topo);
        is_u64(continuous_hit(s), 900, "after our reset: 800 kept, 100 since");
        is_u64(sampler_external_resets(s), 0, "  not taken for someone else's");
        /* Someone else's: the counters went backwards. */
        kernel(4000, 30);
        ok(sampler_sample(s, USEC_PER_MSEC, true, false, &topo), "someone else's reset changes the carried state");
        is_u64(sampler_external_resets(s), 2, "  counted as someone else's, once a source");
        is_u64(continuous_hit(s), 930, "  what was counted before is kept");
        is_u64(node_continuous_hit(s), 930, "a node's numastat, followed the same");

        /* The next daemon of this boot continues the count. */
        sampler_carry_state(s, &carried);
        is_int((int) carried.n, 2, "  /proc/vmstat and node0");
        is_int(sampler_new(root, &next), 0, "the next daemon's sampler");
        sampler_continue_from(next, &carried);
        is_int((int) carried.n, 0, "  the state moved into it");
        kernel(5000, 50);
        (void) sampler_sample(next, USEC_PER_MSEC, true, false, &topo);
        is_u64(continuous_hit(next), 950, "it continues: 930 carried, 20 counted since");
        is_u64(node_continuous_hit(next), 950, "  a node's too");

        /* A kernel without pgalloc lines: no rate, said why. */
        (void) sampler_take_news(next, &news);
        put("/proc/vmstat", "nr_free_pages 1\nnuma_hit 2\n");
        (void) sampler_sample(next, USEC_PER_MSEC, false, false, &topo);
        ok(sampler_rate_error(next) && strstr(sampler_rate_error(next), "pgalloc"), "no pgalloc lines: the rate's error");
        ok(!sampler_take_news(next, &news), "  and nothing to tell");

        {
                char cmd[512];

                snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
                (void) system(cmd);
        }
        return tap_done();
}
