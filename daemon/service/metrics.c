/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1   /* open_memstream() */
#endif

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "metrics.h"
#include "strutil.h"

/* A label value: what another process chose (a comm, a path) C-escaped
 * first (printable ASCII then), then as the exposition format wants it
 * (backslash, double quote and newline escaped). */
static void put_label(FILE *f, const char *value) {
        _cleanup_free_ char *c = cescape(value ?: "");

        for (const char *p = c ? c : ""; *p; p++) {
                if (*p == '\\' || *p == '"')
                        fputc('\\', f);
                fputc(*p, f);
        }
}

static void family(FILE *f, const char *name, const char *type, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A sample value as a person would write it: whole numbers without a
 * point, others in the shortest form that reads back the same (not
 * "%.17g"'s 9.1023779999999999), and Prometheus's own words otherwise. */
static void print_value(FILE *f, double v) {
        char buf[32];

        if (isnan(v))
                fputs("NaN", f);
        else if (isinf(v))
                fputs(v > 0 ? "+Inf" : "-Inf", f);
        else if (v > -0x1p53 && v < 0x1p53 && v == (double) (int64_t) v)
                fprintf(f, "%" PRId64, (int64_t) v);
        else if (format_double_shortest(v, buf, sizeof buf) >= 0)
                fputs(buf, f);
        else
                fprintf(f, "%.17g", v);
}

static void one(FILE *f, const char *name, const char *type, const char *help, double v) {
        family(f, name, type, help);
        fprintf(f, "%s ", name);
        print_value(f, v);
        fputc('\n', f);
}

/* Entries differ by exe, uid and unit too: a series sums those alike. */
typedef bool (*SameSeries)(const ReaderEntry *a, const ReaderEntry *b);

/* The sum of value() over entry i and the later entries in its series
 * that are not done yet, marking them done. */
static uint64_t series_sum(const ReaderTable *t, size_t i, bool *done, SameSeries same,
                           uint64_t (*value)(const ReaderEntry *e)) {
        uint64_t sum = 0;

        for (size_t j = i; j < t->n; j++)
                if (!done[j] && same(&t->entries[i], &t->entries[j])) {
                        sum += value(&t->entries[j]);
                        done[j] = true;
                }
        return sum;
}

static bool same_labels(const ReaderEntry *a, const ReaderEntry *b) {
        return streq_ptr(a->comm, b->comm) && streq_ptr(a->path, b->path) && a->ignored == b->ignored &&
               streq_ptr(a->verdict, b->verdict) && streq_ptr(a->source, b->source);
}

static bool same_comm(const ReaderEntry *a, const ReaderEntry *b) {
        return streq_ptr(a->comm, b->comm);
}

static uint64_t entry_count(const ReaderEntry *e) {
        return e->count;
}

static uint64_t entry_unserved(const ReaderEntry *e) {
        return e->unserved;
}

static void reads(FILE *f, const ReaderTable *t) {
        bool *done = calloc(t->n ? t->n : 1, sizeof *done);

        family(f, "numastatd_reads_total", "counter",
               "Reads of the statistics files by program (comm) and file, whether they count (ignored), how that was "
               "judged (verdict: unknown, count-rule, ignore-rule, known, known-counts) and by what (source, FILE:LINE).");
        for (size_t i = 0; done && i < t->n; i++) {
                const ReaderEntry *e = &t->entries[i];
                uint64_t sum;

                if (done[i])
                        continue;
                sum = series_sum(t, i, done, same_labels, entry_count);
                fputs("numastatd_reads_total{comm=\"", f);
                put_label(f, e->comm ? e->comm : "(unattributed)");
                fputs("\",file=\"", f);
                put_label(f, e->path);
                fprintf(f, "\",ignored=\"%s\",verdict=\"%s\",source=\"", e->ignored ? "true" : "false",
                        e->verdict ?: READ_VERDICT_UNKNOWN);
                put_label(f, e->source ?: "");
                fprintf(f, "\"} %" PRIu64 "\n", sum);
        }
        free(done);
}

/* Unserved reads by comm, summed over the entries; what evicted entries
 * had is under "(evicted)", so that the series sum to the total. An
 * entry's evicted counts move there from their comm's series. */
static void unserved(FILE *f, const ReaderTable *t) {
        bool *done = calloc(t->n ? t->n : 1, sizeof *done);
        uint64_t held = 0;

        family(f, "numastatd_reads_unserved_total", "counter",
               "Counted reads that did not find counting on without a break since the reader's previous read, "
               "by program (comm).");
        for (size_t i = 0; done && i < t->n; i++) {
                const ReaderEntry *e = &t->entries[i];
                uint64_t sum;

                if (done[i] || e->unserved == 0)
                        continue;
                sum = series_sum(t, i, done, same_comm, entry_unserved);
                held += sum;
                fputs("numastatd_reads_unserved_total{comm=\"", f);
                put_label(f, e->comm ? e->comm : "(unattributed)");
                fprintf(f, "\"} %" PRIu64 "\n", sum);
        }
        if (done && t->unserved > held)
                fprintf(f, "numastatd_reads_unserved_total{comm=\"(evicted)\"} %" PRIu64 "\n", t->unserved - held);
        free(done);
}

static bool same_comm_verdict(const ReaderEntry *a, const ReaderEntry *b) {
        return streq_ptr(a->comm, b->comm) && streq_ptr(a->verdict, b->verdict);
}

static uint64_t entry_held_on(const ReaderEntry *e) {
        return e->held_on;
}

/* Each reader's cost by comm and verdict: the time its counted reads kept
 * counting on under pressure. Evicted entries' under "(evicted)". */
static void held_on(FILE *f, const ReaderTable *t) {
        bool *done = calloc(t->n ? t->n : 1, sizeof *done);

        family(f, "numastatd_reader_held_on_seconds_total", "counter",
               "Time a program's (comm) counted reads kept counting on under allocation pressure (policy auto, the "
               "rate above coarse_above for sustain), by how its reads were judged (verdict). Each reader that kept "
               "it on is charged in full.");
        for (size_t i = 0; done && i < t->n; i++) {
                const ReaderEntry *e = &t->entries[i];
                uint64_t sum;

                if (done[i] || e->held_on == 0)
                        continue;
                sum = series_sum(t, i, done, same_comm_verdict, entry_held_on);
                fputs("numastatd_reader_held_on_seconds_total{comm=\"", f);
                put_label(f, e->comm ? e->comm : "(unattributed)");
                fprintf(f, "\",verdict=\"%s\"} ", e->verdict ?: READ_VERDICT_UNKNOWN);
                print_value(f, (double) sum / 1e6);
                fputc('\n', f);
        }
        if (t->evicted_held_on > 0) {
                fputs("numastatd_reader_held_on_seconds_total{comm=\"(evicted)\",verdict=\"\"} ", f);
                print_value(f, (double) t->evicted_held_on / 1e6);
                fputc('\n', f);
        }
        free(done);
}

/* The best possible over the last 24 hours beside the daemon's own:
 * gauges over a window that slides. */
static void best(FILE *f, const Status *s) {
        bool have;
        BestFigures b;

        /* The families always, their samples once a whole slot is traced. */
        have = status_best(s, &b) >= 0;
        family(f, "numastatd_window_seconds", "gauge",
               "The window of the daemon's own trace the best possible is judged over (the last 24 hours at most).");
        if (have)
                fprintf(f, "numastatd_window_seconds %" PRIu64 "\n", b.window / 1000000);
        family(f, "numastatd_window_pages_allocated", "gauge", "Pages allocated in the window.");
        if (have) {
                fputs("numastatd_window_pages_allocated ", f);
                print_value(f, b.pages_total);
                fputc('\n', f);
        }
        family(f, "numastatd_window_pages_counting_off", "gauge",
               "Pages allocated in the window with counting off: by the best schedule under the same coarse_above, "
               "strict_below, sustain and min_dwell that serves every counted reader (schedule=\"best\"), and by "
               "numastatd (schedule=\"numastatd\").");
        if (have) {
                fputs("numastatd_window_pages_counting_off{schedule=\"best\"} ", f);
                print_value(f, b.pages_off_best);
                fputs("\nnumastatd_window_pages_counting_off{schedule=\"numastatd\"} ", f);
                print_value(f, b.pages_off_own);
                fputc('\n', f);
        }
}

/* The programs whose reads keep counting on now, by comm: what an alert
 * on counting stuck on under pressure names. */
static void keeping_on(FILE *f, const Status *s) {
        const ReaderTable *t = s->readers;

        family(f, "numastatd_reader_keeps_counting_on", "gauge",
               "1 for each program (comm) whose counted reads keep counting on now (policy auto, within linger or "
               "before its next expected read).");
        for (size_t i = 0; i < t->n; i++) {
                bool seen = false;

                if (!status_keeps_counting_on(s, &t->entries[i]))
                        continue;
                for (size_t j = 0; j < i && !seen; j++)
                        seen = streq_ptr(t->entries[j].comm, t->entries[i].comm) &&
                               status_keeps_counting_on(s, &t->entries[j]);
                if (seen)
                        continue;
                fputs("numastatd_reader_keeps_counting_on{comm=\"", f);
                put_label(f, t->entries[i].comm ? t->entries[i].comm : "(unattributed)");
                fputs("\"} 1\n", f);
        }
}

static void numa(FILE *f, const Status *s) {
        for (NumaCounter c = 0; c < _NUMA_COUNTER_MAX; c++) {
                char name[96], help[192];

                /* numastat's names per node (local_node, other_node), /proc/vmstat's in total. */
                snprintf(name, sizeof name, "numastatd_node_%s_total", numa_counter_numastat_name(c));
                snprintf(help, sizeof help,
                         "Per node %s, as nodeN/numastat shows it, continuous across the resets numastatd "
                         "caused or saw.", numa_counter_numastat_name(c));
                family(f, name, "counter", help);
                for (size_t i = 0; i < s->counters.n_nodes; i++) {
                        NumaCounters v;

                        counter_track_continuous(&s->counters.nodes[i].track, &v);
                        fprintf(f, "%s{node=\"%d\"} %" PRIu64 "\n", name, s->counters.nodes[i].id, v.v[c]);
                }
                snprintf(name, sizeof name, "numastatd_%s_total", numa_counter_vmstat_name(c));
                snprintf(help, sizeof help,
                         "%s of /proc/vmstat (all nodes), continuous across the resets numastatd caused or saw.",
                         numa_counter_vmstat_name(c));
                one(f, name, "counter", help, (double) s->counters.continuous.v[c]);
        }
}

/* Errors as a gauge by kind: 1 while the error stands. */
static void errors(FILE *f, const Status *s) {
        const struct {
                const char *kind;
                bool on;
        } e[] = {
                { "apply", s->last_error && s->last_error->message },
                { "config", s->config_error != NULL },
                { "readers", s->sources.readers_error != NULL },
                { "rate", s->sources.rate_error != NULL },
                { "uevents", s->sources.uevents_error != NULL },
                { "exit_records", s->sources.exit_records_error != NULL },
        };

        family(f, "numastatd_error", "gauge", "1 while an error of this kind stands (numastatctl status says which).");
        for (size_t i = 0; i < ELEMENTSOF(e); i++)
                fprintf(f, "numastatd_error{kind=\"%s\"} %d\n", e[i].kind, e[i].on);
}

char *metrics_render(const Status *s) {
        _cleanup_free_ char *buf = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        size_t size = 0;

        f = open_memstream(&buf, &size);
        if (!f)
                return NULL;

        family(f, "numastatd_info", "gauge", "numastatd's version and the kernel interface it drives.");
        fputs("numastatd_info{version=\"", f);
        put_label(f, s->version);
        fprintf(f, "\",backend=\"%s\"} 1\n", backend_kind_to_string(s->backend));
        one(f, "numastatd_counting", "gauge", "1 if the kernel keeps NUMA statistics now, else 0.", s->counting);
        family(f, "numastatd_kernel_mode", "gauge", "1 for the mode the kernel is in (read back), 0 for the others.");
        for (KernelMode k = 0; k < _KERNEL_MODE_MAX; k++)
                fprintf(f, "numastatd_kernel_mode{mode=\"%s\"} %d\n", kernel_mode_to_string(k), s->kernel->mode == k);
        family(f, "numastatd_policy", "gauge", "1 for the policy in force, 0 for the others.");
        for (Policy p = 0; p < _POLICY_MAX; p++)
                fprintf(f, "numastatd_policy{policy=\"%s\"} %d\n", policy_to_string(p), s->policy == p);
        one(f, "numastatd_dry_run", "gauge", "1 if numastatd decides without writing.", s->dry_run);

        family(f, "numastatd_transitions_total", "counter", "Switches of the kernel's mode, by cause.");
        for (Cause c = 0; c < _CAUSE_MAX; c++)
                fprintf(f, "numastatd_transitions_total{cause=\"%s\"} %" PRIu64 "\n", cause_to_string(c),
                        s->history->by_cause[c]);

        one(f, "numastatd_counting_on_seconds_total", "counter", "Time since start with counting on.",
            (double) s->counters.on_usec / 1e6);
        one(f, "numastatd_counting_off_seconds_total", "counter", "Time since start with counting off.",
            (double) s->counters.off_usec / 1e6);
        if (s->have_rate)
                one(f, "numastatd_allocation_rate_pages_per_second", "gauge",
                    "Pages allocated per second (the pgalloc_* lines of /proc/vmstat), smoothed.", s->rate);
        one(f, "numastatd_coarse_above_pages_per_second", "gauge",
            "[pressure] coarse_above: policy auto turns counting off above this allocation rate.",
            (double) s->policy_config.coarse_above);
        one(f, "numastatd_pages_allocated_counting_off_total", "counter",
            "Pages allocated while counting was off (the benefit ledger).", (double) s->ledger.pages_off);
        one(f, "numastatd_pages_allocated_total", "counter", "Pages allocated since numastatd started.",
            (double) (s->ledger.pages_on + s->ledger.pages_off));
        one(f, "numastatd_resets_carried_total", "counter", "Counter resets numastatd caused and carried over.",
            (double) s->counters.resets_compensated);
        one(f, "numastatd_holds", "gauge", "Holds (numastatctl hold) in force.", (double) holds_count(s->holds));
        one(f, "numastatd_readers", "gauge", "Programs seen reading the statistics files (per file).",
            (double) s->readers->n);
        reads(f, s->readers);
        one(f, "numastatd_reads_served_total", "counter",
            "Counted reads that found counting on without a break since the reader's previous read.",
            (double) s->readers->served);
        unserved(f, s->readers);
        keeping_on(f, s);
        one(f, "numastatd_pressured_seconds_total", "counter",
            "Time under allocation pressure (policy auto, the rate above coarse_above for sustain), when but for "
            "readers and holds counting would be off.",
            (double) s->readers->pressured / 1e6);
        one(f, "numastatd_pressured_counting_on_seconds_total", "counter",
            "Of the time under allocation pressure, how long counting was on.", (double) s->readers->pressured_on / 1e6);
        held_on(f, s->readers);
        best(f, s);
        one(f, "numastatd_first_reads_counting_off_total", "counter",
            "First reads by a reader that found counting off (no policy can serve them).",
            (double) s->readers->first_off);
        numa(f, s);
        errors(f, s);
        one(f, "numastatd_start_time_seconds", "gauge", "When numastatd started, since the epoch.",
            (double) s->started / 1e6);

        if (fflush(f) != 0 || ferror(f))
                return NULL;
        fclose(TAKE_PTR(f));
        return TAKE_PTR(buf);
}
