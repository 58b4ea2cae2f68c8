/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "parsers.h"

/* More CPUs than this in one list is garbage, not a machine: it bounds the
 * allocation a hostile or corrupted list can cause. */
#define CPULIST_MAX (1U << 20)

static const char * const numa_counter_vmstat_table[_NUMA_COUNTER_MAX] = {
        [NUMA_HIT]        = "numa_hit",
        [NUMA_MISS]       = "numa_miss",
        [NUMA_FOREIGN]    = "numa_foreign",
        [NUMA_INTERLEAVE] = "numa_interleave",
        [NUMA_LOCAL]      = "numa_local",
        [NUMA_OTHER]      = "numa_other",
};

static const char * const numa_counter_numastat_table[_NUMA_COUNTER_MAX] = {
        [NUMA_HIT]        = "numa_hit",
        [NUMA_MISS]       = "numa_miss",
        [NUMA_FOREIGN]    = "numa_foreign",
        [NUMA_INTERLEAVE] = "interleave_hit",
        [NUMA_LOCAL]      = "local_node",
        [NUMA_OTHER]      = "other_node",
};

const char *numa_counter_vmstat_name(NumaCounter c) {
        /* The cast also catches negative values of a signed enum. */
        if ((unsigned) c >= _NUMA_COUNTER_MAX)
                return NULL;
        return numa_counter_vmstat_table[c];
}

const char *numa_counter_numastat_name(NumaCounter c) {
        if ((unsigned) c >= _NUMA_COUNTER_MAX)
                return NULL;
        return numa_counter_numastat_table[c];
}

/* A non-owning view of part of the input; the input is never modified or
 * copied, and nothing relies on NUL termination inside a line. */
typedef struct Span {
        const char *p;
        size_t n;
} Span;

static bool is_blank(char c) {
        /* Deliberately not isspace(): locale independent, and '\n' is a line
         * separator, never part of a line. */
        return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

/* Returns the next line (without '\n') and advances *p past it; false at the end. */
static bool next_line(const char **p, Span *ret) {
        const char *s = *p, *e;

        if (!s || !*s)
                return false;

        e = strchr(s, '\n');
        if (!e)
                e = s + strlen(s);
        *ret = (Span) { s, (size_t) (e - s) };
        *p = *e ? e + 1 : e;
        return true;
}

static void span_skip_blank(Span *s) {
        while (s->n > 0 && is_blank(*s->p)) {
                s->p++;
                s->n--;
        }
}

static void span_strip(Span *s) {
        span_skip_blank(s);
        while (s->n > 0 && is_blank(s->p[s->n - 1]))
                s->n--;
}

/* Pops the next blank-separated word off *s; an empty span once none is left. */
static Span span_word(Span *s) {
        Span w;

        span_skip_blank(s);
        w.p = s->p;
        for (w.n = 0; w.n < s->n && !is_blank(w.p[w.n]); w.n++)
                ;
        s->p += w.n;
        s->n -= w.n;
        return w;
}

static bool span_eq(Span s, const char *str) {
        size_t l = strlen(str);
        return s.n == l && memcmp(s.p, str, l) == 0;
}

static bool span_startswith(Span s, const char *prefix) {
        size_t l = strlen(prefix);
        return s.n >= l && memcmp(s.p, prefix, l) == 0;
}

static bool span_is_empty_after_strip(Span s) {
        span_strip(&s);
        return s.n == 0;
}

/* Whole span must be decimal digits (no sign, no blanks). Syntax errors win
 * over overflow, so "1e99999999999999999999" is -EINVAL, not -ERANGE. */
static int span_to_u64(Span s, uint64_t *ret) {
        uint64_t v = 0;
        bool overflow = false;

        if (s.n == 0)
                return -EINVAL;

        for (size_t i = 0; i < s.n; i++) {
                unsigned d;

                if (!is_digit(s.p[i]))
                        return -EINVAL;

                d = (unsigned) (s.p[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                        overflow = true;
                else
                        v = v * 10 + d;
        }

        if (overflow)
                return -ERANGE;

        *ret = v;
        return 0;
}

static int span_to_unsigned(Span s, unsigned *ret) {
        uint64_t v;
        int r;

        r = span_to_u64(s, &v);
        if (r < 0)
                return r;
        if (v > UINT_MAX)
                return -ERANGE;

        *ret = (unsigned) v;
        return 0;
}

/* "name value" with nothing after the value. A missing value (a truncated
 * line) or trailing junk is -EINVAL. */
static int parse_name_value(Span line, Span *ret_name, uint64_t *ret_value) {
        Span name, value;
        int r;

        name = span_word(&line);
        value = span_word(&line);
        if (!span_is_empty_after_strip(line))
                return -EINVAL;

        r = span_to_u64(value, ret_value);
        if (r < 0)
                return r;

        *ret_name = name;
        return 0;
}

static int lookup_counter(const char * const table[static _NUMA_COUNTER_MAX], Span name) {
        for (NumaCounter c = 0; c < _NUMA_COUNTER_MAX; c++)
                if (span_eq(name, table[c]))
                        return (int) c;
        return -ENOENT;
}

int vmstat_parse(const char *text, VmStat *ret) {
        VmStat st = {};
        Span line;

        if (!text || !ret)
                return -EINVAL;

        while (next_line(&text, &line)) {
                Span probe = line, name, dummy;
                uint64_t v;
                int c, r;

                /* Only look at the value of lines we care about, so that a field
                 * a future kernel prints differently cannot break us. */
                name = span_word(&probe);
                c = lookup_counter(numa_counter_vmstat_table, name);
                if (c < 0 && !span_startswith(name, "pgalloc_"))
                        continue;

                r = parse_name_value(line, &dummy, &v);
                if (r < 0)
                        return r;

                if (c >= 0) {
                        st.numa.v[c] = v;
                        st.has_numa = true;
                } else {
                        if (st.pgalloc > UINT64_MAX - v)
                                return -ERANGE;
                        st.pgalloc += v;
                        st.has_pgalloc = true;
                }
        }

        *ret = st;
        return 0;
}

int numastat_parse(const char *text, NumaCounters *ret) {
        NumaCounters nc = {};
        bool seen[_NUMA_COUNTER_MAX] = {};
        Span line;

        if (!text || !ret)
                return -EINVAL;

        while (next_line(&text, &line)) {
                Span probe = line, name;
                uint64_t v;
                int c, r;

                name = span_word(&probe);
                c = lookup_counter(numa_counter_numastat_table, name);
                if (c < 0)
                        continue;

                /* The kernel prints each line once; a repeat means the text is
                 * not a single numastat file. */
                if (seen[c])
                        return -EINVAL;

                r = parse_name_value(line, &name, &v);
                if (r < 0)
                        return r;

                nc.v[c] = v;
                seen[c] = true;
        }

        for (NumaCounter c = 0; c < _NUMA_COUNTER_MAX; c++)
                if (!seen[c])
                        return -EINVAL;

        *ret = nc;
        return 0;
}

/* "Node 0, zone      DMA" (the kernel's "Node %d, zone %8s"). */
static int parse_zone_header(Span line, ZoneThreshold *ret) {
        Span w, name;
        unsigned node;
        int r;

        if (!span_eq(span_word(&line), "Node"))
                return -EINVAL;

        w = span_word(&line);
        if (w.n < 2 || w.p[w.n - 1] != ',')
                return -EINVAL;
        w.n--;
        r = span_to_unsigned(w, &node);
        if (r < 0)
                return r;
        if (node > INT_MAX)
                return -ERANGE;

        if (!span_eq(span_word(&line), "zone"))
                return -EINVAL;

        name = span_word(&line);
        if (name.n == 0 || name.n >= sizeof(ret->name))
                return -EINVAL;
        if (!span_is_empty_after_strip(line))
                return -EINVAL;

        *ret = (ZoneThreshold) { .node = (int) node };
        memcpy(ret->name, name.p, name.n);
        ret->name[name.n] = '\0';
        return 0;
}

int zoneinfo_parse(const char *text, ZoneThreshold **ret, size_t *ret_n) {
        _cleanup_free_ ZoneThreshold *zones = NULL;
        size_t n = 0, allocated = 0;
        Span line;
        int r;

        if (!text || !ret || !ret_n)
                return -EINVAL;

        while (next_line(&text, &line)) {
                Span body = line;

                /* Zone headers are the only lines starting with "Node"; a
                 * malformed one must fail rather than merge two zones. */
                if (span_startswith(line, "Node")) {
                        if (n >= allocated) {
                                size_t k = allocated > 0 ? allocated * 2 : 8;
                                ZoneThreshold *z;

                                if (k > SIZE_MAX / sizeof(ZoneThreshold))
                                        return -ENOMEM;
                                z = realloc(zones, k * sizeof(ZoneThreshold));
                                if (!z)
                                        return -ENOMEM;
                                zones = z;
                                allocated = k;
                        }

                        r = parse_zone_header(line, &zones[n]);
                        if (r < 0)
                                return r;
                        n++;
                        continue;
                }

                span_skip_blank(&body);
                if (span_startswith(body, "vm stats threshold:")) {
                        Span value = body;
                        ZoneThreshold *z;
                        unsigned t;

                        if (n == 0)
                                return -EINVAL;
                        z = &zones[n - 1];

                        value.p += strlen("vm stats threshold:");
                        value.n -= strlen("vm stats threshold:");
                        span_strip(&value);
                        r = span_to_unsigned(value, &t);
                        if (r < 0)
                                return r;

                        if (z->ncpus == UINT_MAX || z->drift_max > UINT64_MAX - t)
                                return -ERANGE;
                        z->ncpus++;
                        z->drift_max += t;
                        if (t > z->threshold_max)
                                z->threshold_max = t;
                        continue;
                }

                /* Everything else inside a zone (per-node stats, watermarks,
                 * pagesets, node_unreclaimable, …) is of no interest. Text
                 * before the first header though means this is not zoneinfo. */
                if (n == 0 && body.n > 0 && !span_is_empty_after_strip(body))
                        return -EINVAL;
        }

        /* Every kernel has at least one zone; nothing parsed means wrong input. */
        if (n == 0)
                return -EINVAL;

        *ret = TAKE_PTR(zones);
        *ret_n = n;
        return 0;
}

typedef struct CpuRange {
        unsigned lo, hi;
} CpuRange;

static int cpu_range_compare(const void *a, const void *b) {
        const CpuRange *x = a, *y = b;

        if (x->lo != y->lo)
                return x->lo < y->lo ? -1 : 1;
        if (x->hi != y->hi)
                return x->hi < y->hi ? -1 : 1;
        return 0;
}

/* "LO" or "LO-HI", LO <= HI. */
static int cpu_range_parse(Span item, CpuRange *ret) {
        const char *dash = memchr(item.p, '-', item.n);

        if (!dash) {
                if (span_to_unsigned(item, &ret->lo) < 0)
                        return -EINVAL;
                ret->hi = ret->lo;
                return 0;
        }
        if (span_to_unsigned((Span) { item.p, (size_t) (dash - item.p) }, &ret->lo) < 0 ||
            span_to_unsigned((Span) { dash + 1, item.n - (size_t) (dash - item.p) - 1 }, &ret->hi) < 0 ||
            ret->lo > ret->hi)
                return -EINVAL;
        return 0;
}

/* Sorts and merges overlapping and adjacent ranges in place, so that their
 * sizes count distinct CPUs and the expansion comes out sorted and unique.
 * Returns the new count. */
static size_t cpu_ranges_merge(CpuRange *ranges, size_t n) {
        size_t m = 0;

        qsort(ranges, n, sizeof(CpuRange), cpu_range_compare);
        for (size_t i = 1; i < n; i++) {
                if ((uint64_t) ranges[i].lo <= (uint64_t) ranges[m].hi + 1) {
                        if (ranges[i].hi > ranges[m].hi)
                                ranges[m].hi = ranges[i].hi;
                } else
                        ranges[++m] = ranges[i];
        }
        return m + 1;
}

int cpulist_parse(const char *s, unsigned **ret, size_t *ret_n) {
        _cleanup_free_ CpuRange *ranges = NULL;
        _cleanup_free_ unsigned *cpus = NULL;
        size_t n_ranges = 0, n_cpus = 0, commas = 0;
        uint64_t total = 0;
        Span all;

        if (!s || !ret || !ret_n)
                return -EINVAL;

        all = (Span) { s, strlen(s) };
        /* The sysfs files end in "\n"; allow any surrounding white space. */
        while (all.n > 0 && (is_blank(*all.p) || *all.p == '\n')) {
                all.p++;
                all.n--;
        }
        while (all.n > 0 && (is_blank(all.p[all.n - 1]) || all.p[all.n - 1] == '\n'))
                all.n--;
        if (all.n == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }

        for (size_t i = 0; i < all.n; i++)
                commas += all.p[i] == ',';
        ranges = calloc(commas + 1, sizeof(CpuRange));
        if (!ranges)
                return -ENOMEM;
        for (Span rest = all;;) {
                const char *comma = memchr(rest.p, ',', rest.n);
                Span item = { rest.p, comma ? (size_t) (comma - rest.p) : rest.n };

                if (cpu_range_parse(item, &ranges[n_ranges++]) < 0)
                        return -EINVAL;
                if (!comma)
                        break;
                rest.n -= (size_t) (comma - rest.p) + 1;
                rest.p = comma + 1;
        }
        n_ranges = cpu_ranges_merge(ranges, n_ranges);

        for (size_t i = 0; i < n_ranges; i++) {
                total += (uint64_t) ranges[i].hi - ranges[i].lo + 1;
                if (total > CPULIST_MAX)
                        return -EINVAL;
        }
        cpus = malloc((size_t) total * sizeof(unsigned));
        if (!cpus)
                return -ENOMEM;
        for (size_t i = 0; i < n_ranges; i++)
                /* Counting with a 64-bit index: hi may be UINT_MAX. */
                for (uint64_t c = ranges[i].lo; c <= ranges[i].hi; c++)
                        cpus[n_cpus++] = (unsigned) c;

        *ret = TAKE_PTR(cpus);
        *ret_n = n_cpus;
        return 0;
}

int node_meminfo_total_bytes(const char *text, uint64_t *ret) {
        Span line;

        if (!text || !ret)
                return -EINVAL;

        while (next_line(&text, &line)) {
                Span w;
                uint64_t node, kb;
                int r;

                /* "Node 0 MemTotal:       16305452 kB" */
                if (!span_eq(span_word(&line), "Node"))
                        continue;
                if (span_to_u64(span_word(&line), &node) < 0)
                        continue;
                if (!span_eq(span_word(&line), "MemTotal:"))
                        continue;

                r = span_to_u64(span_word(&line), &kb);
                if (r < 0)
                        return r;

                w = span_word(&line);
                if (!span_eq(w, "kB") || !span_is_empty_after_strip(line))
                        return -EINVAL;

                if (kb > UINT64_MAX / 1024)
                        return -ERANGE;

                *ret = kb * 1024;
                return 0;
        }

        return -ENOENT;
}

const char *proc_stat_fields(const char *stat) {
        const char *p = stat ? strrchr(stat, ')') : NULL;

        return p && p[1] == ' ' && p[2] ? p + 2 : NULL;
}

int proc_stat_ppid(const char *stat, pid_t *ret) {
        const char *f = proc_stat_fields(stat);
        char *end;
        long v;

        /* "S PPID ..." */
        if (!f || f[1] != ' ')
                return -EINVAL;
        errno = 0;
        v = strtol(f + 2, &end, 10);
        if (errno || end == f + 2 || (*end != ' ' && *end != '\n' && *end != '\0') || v < 0 || v > INT_MAX)
                return -EINVAL;
        *ret = (pid_t) v;
        return 0;
}

int proc_stat_starttime(const char *stat, uint64_t *ret) {
        const char *f = proc_stat_fields(stat);
        unsigned long long start;

        /* From the state (field 3), starttime is the 20th field. */
        if (!f || sscanf(f, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                         &start) != 1)
                return -EINVAL;
        *ret = start;
        return 0;
}

/* Field n (as proc(5) numbers them, from 3, the state) of stat's fields
 * f as an unsigned number; -ENODATA if the line ends before it. */
static int stat_field_u64(const char *f, unsigned n, uint64_t *ret) {
        unsigned long long v;
        char *end;

        for (unsigned i = 3; i < n; i++) {
                f = strchr(f, ' ');
                if (!f)
                        return -ENODATA;
                f++;
        }
        if (*f < '0' || *f > '9')
                return *f == '\0' || *f == '\n' ? -ENODATA : -EINVAL;
        errno = 0;
        v = strtoull(f, &end, 10);
        if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
                return -EINVAL;
        *ret = v;
        return 0;
}

int proc_stat_image(const char *stat, uint64_t *ret) {
        const char *f = proc_stat_fields(stat);
        uint64_t arg_start, arg_end;
        int r;

        if (!f)
                return -EINVAL;
        r = stat_field_u64(f, 48, &arg_start);
        if (r >= 0)
                r = stat_field_u64(f, 49, &arg_end);
        if (r == -ENODATA)
                arg_start = arg_end = 0;        /* a kernel before 3.5 */
        else if (r < 0)
                return r;
        /* Rotated, so that the start and the end do not cancel out. */
        *ret = arg_start ^ (arg_end << 32 | arg_end >> 32);
        return 0;
}

/* "\nUid:\t1000\t1000\t1000\t1000\n": the four values after key. */
static int status_four(const char *status, const char *key, unsigned ret[4]) {
        const char *p = strstr(status, key);
        int used = 0;

        if (!p)
                return -EINVAL;
        p += strlen(key);
        if (sscanf(p, " %u %u %u %u%n", &ret[0], &ret[1], &ret[2], &ret[3], &used) != 4 ||
            (p[used] != '\n' && p[used] != '\0'))
                return -EINVAL;
        return 0;
}

int proc_status_ids(const char *status, ProcIds *ret) {
        unsigned uid[4], gid[4];
        const char *p;
        ProcIds ids = {};

        if (!status || status_four(status, "\nUid:", uid) < 0 || status_four(status, "\nGid:", gid) < 0)
                return -EINVAL;
        for (size_t i = 0; i < 4; i++) {
                ids.uid[i] = (uid_t) uid[i];
                ids.gid[i] = (gid_t) gid[i];
        }
        /* "\nGroups:\t65534 100 \n", or "\nGroups:\t\n" with none. */
        p = strstr(status, "\nGroups:");
        if (!p)
                return -EINVAL;
        p += strlen("\nGroups:");
        for (;;) {
                unsigned long g;
                char *end;

                p += strspn(p, " \t");
                if (*p == '\n' || *p == '\0')
                        break;
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                errno = 0;
                g = strtoul(p, &end, 10);
                if (errno != 0 || g >= UINT32_MAX)
                        return -EINVAL;
                if (ids.n_groups == PROC_GROUPS_MAX)
                        return -E2BIG;
                ids.groups[ids.n_groups++] = (gid_t) g;
                p = end;
        }
        *ret = ids;
        return 0;
}

bool proc_ids_settled(const ProcIds *ids) {
        for (size_t i = 1; i < 4; i++)
                if (ids->uid[i] != ids->uid[0] || ids->gid[i] != ids->gid[0])
                        return false;
        return true;
}
