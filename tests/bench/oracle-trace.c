/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The oracle (daemon/core/oracle.c) over a trace on stdin, for the macro
 * study (tests/vm/macro-figure.py):
 *
 *     interval USEC
 *     start free                     optional: no past binds the start
 *     no foresight                   optional: the bound without foresight
 *     limits COARSE_ABOVE STRICT_BELOW SUSTAIN_USEC MIN_DWELL_USEC
 *     rate PAGES_PER_SECOND          one per interval, in order
 *     read AT_USEC READER            a counted read
 *
 * prints one line: pages_total= pages_off= share_off= switches= servable=
 * served= schedule= (one digit per interval, 1: off). Exit 1 on bad input. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

static int grow(void **p, size_t *cap, size_t n, size_t size) {
        void *q;

        if (n < *cap)
                return 0;
        *cap = *cap ? *cap * 2 : 64;
        q = realloc(*p, *cap * size);
        if (!q)
                return -ENOMEM;
        *p = q;
        return 0;
}

int main(void) {
        OracleTrace t = {};
        OracleLimits l = {};
        OracleResult r;
        double *rate = NULL, v;
        OracleRead *reads = NULL;
        size_t cap_rate = 0, cap_reads = 0;
        bool *off;
        char line[256];
        unsigned lineno = 0, reader;
        uint64_t at;
        int e;

        while (fgets(line, sizeof line, stdin)) {
                lineno++;
                if (sscanf(line, "interval %" SCNu64, &t.interval) == 1)
                        continue;
                if (strcmp(line, "start free\n") == 0) {
                        t.start_free = true;
                        continue;
                }
                if (strcmp(line, "no foresight\n") == 0) {
                        l.no_foresight = true;
                        continue;
                }
                if (sscanf(line, "limits %lf %lf %" SCNu64 " %" SCNu64, &l.coarse_above, &l.strict_below,
                           &l.sustain, &l.min_dwell) == 4)
                        continue;
                if (sscanf(line, "rate %lf", &v) == 1 && v >= 0) {
                        if (grow((void **) &rate, &cap_rate, t.n, sizeof *rate) < 0)
                                return 1;
                        rate[t.n++] = v;
                        continue;
                }
                if (sscanf(line, "read %" SCNu64 " %u", &at, &reader) == 2) {
                        if (grow((void **) &reads, &cap_reads, t.n_reads, sizeof *reads) < 0)
                                return 1;
                        reads[t.n_reads++] = (OracleRead) { .at = at, .reader = reader };
                        continue;
                }
                if (line[0] == '\n' || line[0] == '#')
                        continue;
                fprintf(stderr, "oracle-trace: line %u: cannot parse: %s", lineno, line);
                return 1;
        }
        t.rate = rate;
        t.reads = reads;
        off = calloc(t.n ? t.n : 1, sizeof *off);
        if (!off)
                return 1;
        e = oracle_schedule(&t, &l, off, &r);
        if (e < 0) {
                fprintf(stderr, "oracle-trace: %s\n", strerror(-e));
                return 1;
        }
        printf("pages_total=%.0f pages_off=%.0f share_off=%.4f switches=%u servable=%zu served=%zu schedule=",
               r.pages_total, r.pages_off, r.pages_total > 0 ? r.pages_off / r.pages_total : 0.0, r.switches,
               r.servable, r.served);
        for (size_t i = 0; i < t.n; i++)
                putchar(off[i] ? '1' : '0');
        putchar('\n');
        free(off);
        free(rate);
        free(reads);
        return 0;
}
