/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The counters carried across daemon restarts: the file's format, what is
 * refused in it, and the arithmetic that continues a count. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carry.h"
#include "counters.h"
#include "macro.h"
#include "tap.h"

static NumaCounters nc(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f) {
        return (NumaCounters) { .v = { a, b, c, d, e, f } };
}

static void test_format_parse(void) {
        CarryState s = { .root = (char *) "/", .n = 2 }, p = {};
        char *text;

        snprintf(s.boot_id, sizeof s.boot_id, "0b2f2b1c-7d3c-4f6e-9a61-3e0f5c1d2a44");
        s.sources[0] = (CarrySource) { .id = CARRY_VMSTAT, .continuous = nc(100, 2, 3, 4, 95, 7), .last = nc(50, 1, 1, 2, 45, 3) };
        s.sources[1] = (CarrySource) { .id = 1, .continuous = nc(40, 1, 1, 1, 40, 3), .last = nc(20, 1, 0, 1, 20, 1) };
        text = carry_state_format(&s);
        ok(text && strstr(text, "source=-1 100 2 3 4 95 7 50 1 1 2 45 3\n"), "format: one line per source");
        is_int(carry_state_parse(text, &p), 0, "what is written parses back");
        ok(p.n == 2 && p.sources[1].id == 1 && p.sources[1].continuous.v[4] == 40 && p.sources[0].last.v[0] == 50 &&
                   strcmp(p.root, "/") == 0 && strcmp(p.boot_id, s.boot_id) == 0,
           "  the same sources, root and boot");
        ok(carry_state_find(&p, CARRY_VMSTAT) == &p.sources[0] && !carry_state_find(&p, 7), "find by source");
        carry_state_done(&p);
        free(text);

        static const char *const bad[] = {
                "boot=x\nsource=0 1 2 3 4 5 6 1 2 3 4 5 6\n",                          /* no root */
                "root=/\nsource=0 1 2 3 4 5 6 1 2 3 4 5 6\n",                          /* no boot */
                "root=relative\nboot=x\n",                                              /* a relative root */
                "root=/\nboot=x\nsource=0 1 2 3 4 5 6 1 2 3 4 5\n",                    /* 11 numbers */
                "root=/\nboot=x\nsource=0 1 2 3 4 5 6 1 2 3 4 5 6 7\n",                /* 13 */
                "root=/\nboot=x\nsource=0 1 2 3 4 5 -6 1 2 3 4 5 6\n",                 /* negative */
                "root=/\nboot=x\nsource=0 1 2 3 4 5 6x 1 2 3 4 5 6\n",                 /* junk */
                "root=/\nboot=x\nsource=0 1 2 3 4 5 99999999999999999999 1 2 3 4 5 6\n", /* overflow */
                "root=/\nboot=x\nsource=-2 1 2 3 4 5 6 1 2 3 4 5 6\n",                 /* no such source */
                "root=/\nboot=x\nsource=4096 1 2 3 4 5 6 1 2 3 4 5 6\n",
                "root=/\nboot=x\nsource=0 1 2 3 4 5 6 1 2 3 4 5 6\nsource=0 1 2 3 4 5 6 1 2 3 4 5 6\n", /* twice */
                "root=/\nroot=/\nboot=x\n",
                "root=/\nboot=x\nno equals sign\n",
                "root=/\nboot=0123456789012345678901234567890123456789\n",             /* too long */
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                CarryState q = {};
                is_int(carry_state_parse(bad[i], &q), -EBADMSG, "refused: malformed state");
        }
        /* More sources than the state holds: refused whole, not cut. */
        {
                char *many = NULL;
                size_t size = 0;
                FILE *f = open_memstream(&many, &size);
                CarryState q = {};

                fprintf(f, "root=/\nboot=x\n");
                for (int i = 0; i <= CARRY_SOURCES_MAX; i++)
                        fprintf(f, "source=%d 1 2 3 4 5 6 1 2 3 4 5 6\n", i);
                fclose(f);
                is_int(carry_state_parse(many, &q), -EBADMSG, "refused: more sources than 65");
                free(many);
        }
        {
                CarryState q = {};
                is_int(carry_state_parse("root=/\nboot=\nfuture=key\n", &q), 0, "unknown keys (a newer daemon's) are ignored");
                carry_state_done(&q);
        }
}

static void test_resume(void) {
        CarryState s = { .n = 1 };
        CounterTrack t;
        NumaCounters c;

        /* The earlier daemon had counted 1000 hits, the kernel showing 300. */
        s.sources[0] = (CarrySource) { .id = 0, .continuous = nc(1000, 10, 10, 5, 990, 20), .last = nc(300, 3, 3, 1, 290, 6) };
        /* No reset since: the kernel shows 350; 50 more were counted. */
        counter_track_resume(&t, &(NumaCounters) { .v = { 350, 3, 3, 1, 340, 6 } }, &s.sources[0].continuous,
                             &s.sources[0].last);
        counter_track_continuous(&t, &c);
        is_u64(c.v[0], 1050, "resumed: 1000 carried + 50 counted since (kernel 300 -> 350)");
        is_u64(c.v[4], 1040, "  every counter (local 990 + 50)");
        counter_track_update(&t, &(NumaCounters) { .v = { 400, 3, 3, 1, 390, 6 } });
        counter_track_continuous(&t, &c);
        is_u64(c.v[0], 1100, "  and it goes on counting (kernel 400)");

        /* The kernel zeroed the counters meanwhile (counting went off): it
         * shows 20, all counted since the reset. */
        counter_track_resume(&t, &(NumaCounters) { .v = { 20, 0, 0, 0, 20, 0 } }, &s.sources[0].continuous,
                             &s.sources[0].last);
        counter_track_continuous(&t, &c);
        is_u64(c.v[0], 1020, "resumed after a reset: 1000 carried + 20");
        is_u64(c.v[1], 10, "  a counter that did not grow stays at what was carried");
        counter_track_total(&t, &c);
        is_u64(c.v[0], 0, "  nothing counted yet by this daemon itself");
}

int main(void) {
        test_format_parse();
        test_resume();
        return tap_done();
}
