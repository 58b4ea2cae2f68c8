/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "parsers.h"
#include "tap.h"

/* Expected values below were computed with awk/grep from the fixture files
 * in tests/data, which are frozen copies; recapturing them means updating
 * these numbers. */

static char *read_fixture(const char *name) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *buf = NULL;
        const char *dir = getenv("TEST_DATA_DIR");
        size_t size = 0, allocated = 0;
        char path[4096];

        if (!dir || !*dir)
                dir = "tests/data";
        if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
                return NULL;

        f = fopen(path, "re");
        if (!f)
                return NULL;

        for (;;) {
                size_t k;

                if (allocated - size < 4096) {
                        char *b = realloc(buf, allocated + 65536);
                        if (!b)
                                return NULL;
                        buf = b;
                        allocated += 65536;
                }
                k = fread(buf + size, 1, allocated - size - 1, f);
                size += k;
                if (k == 0)
                        break;
        }
        if (ferror(f))
                return NULL;

        buf[size] = '\0';
        return TAKE_PTR(buf);
}

static char *fixture(const char *name) {
        char *t = read_fixture(name);
        ok(t, "read fixture %s", name);
        return t;
}

static void test_names(void) {
        static const char * const vm[] = {
                "numa_hit", "numa_miss", "numa_foreign", "numa_interleave", "numa_local", "numa_other",
        };
        static const char * const ns[] = {
                "numa_hit", "numa_miss", "numa_foreign", "interleave_hit", "local_node", "other_node",
        };

        for (NumaCounter c = 0; c < _NUMA_COUNTER_MAX; c++) {
                is_str(numa_counter_vmstat_name(c), vm[c], "vmstat name");
                is_str(numa_counter_numastat_name(c), ns[c], "numastat name");
        }
        ok(!numa_counter_vmstat_name(_NUMA_COUNTER_MAX), "vmstat name: _MAX is NULL");
        ok(!numa_counter_numastat_name(_NUMA_COUNTER_MAX), "numastat name: _MAX is NULL");
        ok(!numa_counter_vmstat_name((NumaCounter) -1), "vmstat name: -1 is NULL");
        ok(!numa_counter_numastat_name((NumaCounter) -1), "numastat name: -1 is NULL");
        ok(!numa_counter_vmstat_name((NumaCounter) 1000), "vmstat name: 1000 is NULL");
}

static void check_numa(const NumaCounters *n, const uint64_t exp[static _NUMA_COUNTER_MAX], const char *what) {
        for (NumaCounter c = 0; c < _NUMA_COUNTER_MAX; c++) {
                char label[128];
                snprintf(label, sizeof(label), "%s: %s", what, numa_counter_vmstat_name(c));
                is_u64(n->v[c], exp[c], label);
        }
}

static void test_vmstat(void) {
        _cleanup_free_ char *real = fixture("vmstat-6.18.txt"), *nonuma = fixture("vmstat-nonuma.txt");
        VmStat st;

        /* awk '$1 ~ /^numa_(hit|…)$/' and awk '/^pgalloc_/ {s+=$2}' */
        memset(&st, 0xaa, sizeof(st));
        is_int(vmstat_parse(real ?: "", &st), 0, "vmstat-6.18: parses");
        ok(st.has_numa, "vmstat-6.18: has_numa");
        ok(st.has_pgalloc, "vmstat-6.18: has_pgalloc");
        check_numa(&st.numa, (const uint64_t[]) { 839917, 0, 0, 1142, 839917, 0 }, "vmstat-6.18");
        is_u64(st.pgalloc, 928876, "vmstat-6.18: pgalloc sum of 5 pgalloc_ lines");

        memset(&st, 0xaa, sizeof(st));
        is_int(vmstat_parse(nonuma ?: "", &st), 0, "vmstat-nonuma: parses");
        ok(!st.has_numa, "vmstat-nonuma: no numa");
        check_numa(&st.numa, (const uint64_t[]) { 0, 0, 0, 0, 0, 0 }, "vmstat-nonuma zeroed");
        ok(st.has_pgalloc, "vmstat-nonuma: has_pgalloc");
        is_u64(st.pgalloc, 928876, "vmstat-nonuma: pgalloc");

        /* nodeN/vmstat has the same format, fewer lines, no pgalloc_. */
        is_int(vmstat_parse("nr_free_pages 1057433\nnr_zone_inactive_anon 1\n"
                            "numa_hit 838290\nnuma_miss 3\nnuma_foreign 4\nnuma_interleave 1142\n"
                            "numa_local 838287\nnuma_other 3\nnr_inactive_anon 969\n", &st),
               0, "node vmstat: parses");
        check_numa(&st.numa, (const uint64_t[]) { 838290, 3, 4, 1142, 838287, 3 }, "node vmstat");
        ok(st.has_numa && !st.has_pgalloc && st.pgalloc == 0, "node vmstat: no pgalloc");

        /* NUMA balancing counters share the prefix but are not ours. */
        is_int(vmstat_parse("numa_pte_updates 5\nnuma_hit 1\nnuma_hint_faults_local 9\nnuma_hits 77\n", &st),
               0, "numa_ lookalikes: parses");
        check_numa(&st.numa, (const uint64_t[]) { 1, 0, 0, 0, 0, 0 }, "numa_ lookalikes ignored");

        is_int(vmstat_parse("numa_hit 7", &st), 0, "no trailing newline: parses");
        is_u64(st.numa.v[NUMA_HIT], 7, "no trailing newline: value");

        is_int(vmstat_parse("numa_other\t 12 \r\npgalloc_x 18446744073709551615\n", &st), 0, "tabs, CR, max u64");
        is_u64(st.numa.v[NUMA_OTHER], 12, "tabs, CR: value");
        is_u64(st.pgalloc, UINT64_MAX, "pgalloc UINT64_MAX");

        memset(&st, 0xaa, sizeof(st));
        is_int(vmstat_parse("", &st), 0, "empty vmstat parses");
        ok(!st.has_numa && !st.has_pgalloc && st.pgalloc == 0 && st.numa.v[NUMA_HIT] == 0,
           "empty vmstat: nothing set");

        is_int(vmstat_parse("garbage\n\n  \nfoo bar baz\nnr_free_pages x\n", &st), 0,
               "unknown/garbage lines ignored");
        ok(!st.has_numa && !st.has_pgalloc, "garbage: nothing set");

        /* Failures leave *ret alone. */
        memset(&st, 0x5a, sizeof(st));
        is_int(vmstat_parse("numa_hit 12\nnuma_miss", &st), -EINVAL, "truncated line");
        ok(st.numa.v[NUMA_HIT] == UINT64_C(0x5a5a5a5a5a5a5a5a), "failure leaves *ret untouched");
        is_int(vmstat_parse("numa_hit\n", &st), -EINVAL, "missing value");
        is_int(vmstat_parse("numa_hit abc\n", &st), -EINVAL, "non-number");
        is_int(vmstat_parse("numa_hit 12x\n", &st), -EINVAL, "trailing junk in number");
        is_int(vmstat_parse("numa_hit -1\n", &st), -EINVAL, "negative");
        is_int(vmstat_parse("numa_hit +1\n", &st), -EINVAL, "plus sign");
        is_int(vmstat_parse("numa_hit 1 2\n", &st), -EINVAL, "extra field");
        is_int(vmstat_parse("numa_hit 99999999999999999999999\n", &st), -ERANGE, "overflow");
        is_int(vmstat_parse("numa_hit 18446744073709551616\n", &st), -ERANGE, "UINT64_MAX + 1");
        is_int(vmstat_parse("pgalloc_dma 1e5\n", &st), -EINVAL, "pgalloc non-number");
        is_int(vmstat_parse("pgalloc_dma 18446744073709551615\npgalloc_normal 1\n", &st), -ERANGE,
               "pgalloc sum overflow");
        is_int(vmstat_parse(NULL, &st), -EINVAL, "NULL text");
}

static const char numastat_ok[] =
        "numa_hit 1\nnuma_miss 2\nnuma_foreign 3\ninterleave_hit 4\nlocal_node 5\nother_node 6\n";

static void test_numastat(void) {
        _cleanup_free_ char *real = fixture("numastat-node0.txt");
        NumaCounters nc;

        is_int(numastat_parse(real ?: "", &nc), 0, "numastat-node0: parses");
        check_numa(&nc, (const uint64_t[]) { 840115, 0, 0, 1142, 840115, 0 }, "numastat-node0");

        is_int(numastat_parse(numastat_ok, &nc), 0, "numastat 1..6: parses");
        check_numa(&nc, (const uint64_t[]) { 1, 2, 3, 4, 5, 6 }, "numastat 1..6");

        /* Order does not matter, extra lines are ignored. */
        is_int(numastat_parse("other_node 60\nfuture_field 99\nlocal_node 50\ninterleave_hit 40\n"
                              "numa_foreign 30\nnuma_miss 20\nnuma_hit 10", &nc),
               0, "shuffled + extra line: parses");
        check_numa(&nc, (const uint64_t[]) { 10, 20, 30, 40, 50, 60 }, "shuffled");

        memset(&nc, 0x5a, sizeof(nc));
        is_int(numastat_parse("numa_hit 1\nnuma_miss 2\nnuma_foreign 3\ninterleave_hit 4\nlocal_node 5\n", &nc),
               -EINVAL, "missing other_node");
        ok(nc.v[NUMA_HIT] == UINT64_C(0x5a5a5a5a5a5a5a5a), "failure leaves *ret untouched");
        is_int(numastat_parse("numa_hit 1\nnuma_miss 2\nnuma_foreign 3\nnuma_interleave 4\nnuma_local 5\nnuma_other 6\n",
                              &nc),
               -EINVAL, "vmstat spelling is not numastat");
        is_int(numastat_parse("", &nc), -EINVAL, "empty");
        is_int(numastat_parse("\n\n", &nc), -EINVAL, "blank lines");
        is_int(numastat_parse("numa_hit 1\nnuma_miss 2\nnuma_foreign 3\ninterleave_hit 4\nlocal_node 5\nother_node",
                              &nc),
               -EINVAL, "truncated last line");
        is_int(numastat_parse("numa_hit 1\nnuma_miss two\nnuma_foreign 3\ninterleave_hit 4\nlocal_node 5\nother_node 6\n",
                              &nc),
               -EINVAL, "non-number");
        is_int(numastat_parse("numa_hit 99999999999999999999999\nnuma_miss 2\nnuma_foreign 3\ninterleave_hit 4\n"
                              "local_node 5\nother_node 6\n",
                              &nc),
               -ERANGE, "overflow");
        is_int(numastat_parse("numa_hit 1\nnuma_hit 1\nnuma_miss 2\nnuma_foreign 3\ninterleave_hit 4\n"
                              "local_node 5\nother_node 6\n",
                              &nc),
               -EINVAL, "duplicate line");
}

static void check_zone(const ZoneThreshold *z, int node, const char *name, unsigned ncpus, unsigned tmax,
                       uint64_t drift, const char *what) {
        char label[128];

        snprintf(label, sizeof(label), "%s: node %d %s: node", what, node, name);
        is_int(z->node, node, label);
        snprintf(label, sizeof(label), "%s: node %d %s: name", what, node, name);
        is_str(z->name, name, label);
        snprintf(label, sizeof(label), "%s: node %d %s: ncpus", what, node, name);
        is_int(z->ncpus, ncpus, label);
        snprintf(label, sizeof(label), "%s: node %d %s: threshold_max", what, node, name);
        is_int(z->threshold_max, tmax, label);
        snprintf(label, sizeof(label), "%s: node %d %s: drift_max", what, node, name);
        is_u64(z->drift_max, drift, label);
}

static void test_zoneinfo(void) {
        _cleanup_free_ char *real = fixture("zoneinfo-6.18.txt"), *two = fixture("zoneinfo-2node.txt");
        ZoneThreshold *z = NULL;
        size_t n = 0;

        /* grep -c '^Node' → 5; thresholds per zone from awk. The DMA zone
         * carries the node's "per-node stats" block. */
        is_int(zoneinfo_parse(real ?: "", &z, &n), 0, "zoneinfo-6.18: parses");
        if (is_int(n, 5, "zoneinfo-6.18: 5 zones")) {
                check_zone(&z[0], 0, "DMA", 2, 4, 8, "6.18");
                check_zone(&z[1], 0, "DMA32", 2, 24, 48, "6.18");
                check_zone(&z[2], 0, "Normal", 2, 20, 40, "6.18");
                check_zone(&z[3], 0, "Movable", 0, 0, 0, "6.18");
                check_zone(&z[4], 0, "Device", 0, 0, 0, "6.18");
        }
        free(z);
        z = NULL;

        /* Node 1's per-node stats sit under Normal, its first populated zone. */
        is_int(zoneinfo_parse(two ?: "", &z, &n), 0, "zoneinfo-2node: parses");
        if (is_int(n, 8, "zoneinfo-2node: 8 zones")) {
                check_zone(&z[0], 0, "DMA", 4, 4, 16, "2node");
                check_zone(&z[1], 0, "DMA32", 4, 8, 32, "2node");
                check_zone(&z[2], 0, "Normal", 4, 12, 48, "2node");
                check_zone(&z[3], 0, "Movable", 0, 0, 0, "2node");
                check_zone(&z[4], 1, "DMA", 0, 0, 0, "2node");
                check_zone(&z[5], 1, "DMA32", 0, 0, 0, "2node");
                check_zone(&z[6], 1, "Normal", 4, 16, 64, "2node");
                check_zone(&z[7], 1, "Movable", 0, 0, 0, "2node");
        }
        free(z);
        z = NULL;

        /* Per-CPU thresholds that differ tell max from sum; empty zone last,
         * without trailing newline. */
        is_int(zoneinfo_parse("Node 12, zone   Normal\n"
                              "  pages free     5\n"
                              "  pagesets\n"
                              "    cpu: 0\n"
                              "              count: 1\n"
                              "  vm stats threshold: 3\n"
                              "    cpu: 1\n"
                              "  vm stats threshold: 125\n"
                              "    cpu: 7\n"
                              "  vm stats threshold:\t7 \n"
                              "  node_unreclaimable:  0\n"
                              "Node 12, zone  Movable\n"
                              "  pages free     0",
                              &z, &n),
               0, "mixed thresholds: parses");
        if (is_int(n, 2, "mixed thresholds: 2 zones")) {
                check_zone(&z[0], 12, "Normal", 3, 125, 135, "mixed");
                check_zone(&z[1], 12, "Movable", 0, 0, 0, "mixed");
        }
        free(z);
        z = NULL;

        /* Longest name that fits char[16]. */
        is_int(zoneinfo_parse("Node 0, zone 123456789012345\n", &z, &n), 0, "15-char zone name");
        if (n == 1)
                is_str(z[0].name, "123456789012345", "15-char zone name kept");
        free(z);
        z = NULL;

        z = (ZoneThreshold *) 0x1;
        n = 77;
        is_int(zoneinfo_parse("", &z, &n), -EINVAL, "empty zoneinfo");
        ok(z == (ZoneThreshold *) 0x1 && n == 77, "failure leaves *ret untouched");
        z = NULL;
        is_int(zoneinfo_parse("hello\nworld\n", &z, &n), -EINVAL, "garbage");
        is_int(zoneinfo_parse("numa_hit 1\nnuma_miss 2\n", &z, &n), -EINVAL, "vmstat is not zoneinfo");
        is_int(zoneinfo_parse("  vm stats threshold: 4\nNode 0, zone DMA\n", &z, &n), -EINVAL,
               "threshold before any zone");
        is_int(zoneinfo_parse("Node x, zone DMA\n", &z, &n), -EINVAL, "bad node number");
        is_int(zoneinfo_parse("Node -1, zone DMA\n", &z, &n), -EINVAL, "negative node");
        is_int(zoneinfo_parse("Node 0 zone DMA\n", &z, &n), -EINVAL, "missing comma");
        is_int(zoneinfo_parse("Node 0, zone\n", &z, &n), -EINVAL, "truncated header");
        is_int(zoneinfo_parse("Node 0, zone DMA extra\n", &z, &n), -EINVAL, "extra word in header");
        is_int(zoneinfo_parse("Node 0, zone 1234567890123456\n", &z, &n), -EINVAL, "zone name too long");
        is_int(zoneinfo_parse("Node 99999999999999999999999, zone DMA\n", &z, &n), -ERANGE, "node overflow");
        is_int(zoneinfo_parse("Node 2147483648, zone DMA\n", &z, &n), -ERANGE, "node > INT_MAX");
        is_int(zoneinfo_parse("Node 0, zone DMA\n  vm stats threshold: x\n", &z, &n), -EINVAL,
               "threshold non-number");
        is_int(zoneinfo_parse("Node 0, zone DMA\n  vm stats threshold:\n", &z, &n), -EINVAL,
               "threshold truncated");
        is_int(zoneinfo_parse("Node 0, zone DMA\n  vm stats threshold: -4\n", &z, &n), -EINVAL,
               "threshold negative");
        is_int(zoneinfo_parse("Node 0, zone DMA\n  vm stats threshold: 99999999999999999999999\n", &z, &n),
               -ERANGE, "threshold overflow");
        is_int(zoneinfo_parse("Node 0, zone DMA\n  vm stats threshold: 4294967296\n", &z, &n), -ERANGE,
               "threshold > UINT_MAX");
        is_int(zoneinfo_parse("Node 0, zone DMA\nNode 0, zone Normal\nNodeX\n", &z, &n), -EINVAL,
               "malformed later header");
        ok(!z, "no allocation leaked out on failure");
}

/* A TAP description must stay on one line. */
static const char *escape(const char *s, char *buf, size_t size) {
        size_t j = 0;

        for (; *s && j + 3 < size; s++) {
                if (*s == '\n' || *s == '\t') {
                        buf[j++] = '\\';
                        buf[j++] = *s == '\n' ? 'n' : 't';
                } else
                        buf[j++] = *s;
        }
        buf[j] = '\0';
        return buf;
}

static void check_cpus(const char *s, const unsigned *exp, size_t n_exp) {
        _cleanup_free_ unsigned *cpus = NULL;
        size_t n = 99;
        char label[128], e[64];
        int r;

        r = cpulist_parse(s, &cpus, &n);
        s = escape(s, e, sizeof(e));
        snprintf(label, sizeof(label), "cpulist \"%s\": parses", s);
        is_int(r, 0, label);
        snprintf(label, sizeof(label), "cpulist \"%s\": count", s);
        if (!is_int(r < 0 ? 0 : n, n_exp, label))
                return;
        snprintf(label, sizeof(label), "cpulist \"%s\": content", s);
        ok(n_exp == 0 || (cpus && memcmp(cpus, exp, n_exp * sizeof(unsigned)) == 0), "%s", label);
}

static void check_cpus_bad(const char *s, int err) {
        unsigned *cpus = (unsigned *) 0x1;
        size_t n = 77;
        char label[128], e[64];

        snprintf(label, sizeof(label), "cpulist \"%s\": rejected", escape(s, e, sizeof(e)));
        is_int(cpulist_parse(s, &cpus, &n), err, label);
        snprintf(label, sizeof(label), "cpulist \"%s\": *ret untouched", e);
        ok(cpus == (unsigned *) 0x1 && n == 77, "%s", label);
}

static void test_cpulist(void) {
        _cleanup_free_ unsigned *cpus = NULL;
        size_t n;

        check_cpus("0-3,8,10-11", (const unsigned[]) { 0, 1, 2, 3, 8, 10, 11 }, 7);
        check_cpus("0-3,8,10-11\n", (const unsigned[]) { 0, 1, 2, 3, 8, 10, 11 }, 7);
        check_cpus(" \t5 \n", (const unsigned[]) { 5 }, 1);
        check_cpus("0", (const unsigned[]) { 0 }, 1);
        check_cpus("7-7", (const unsigned[]) { 7 }, 1);
        check_cpus("3,1,2,2,0-1,1-2", (const unsigned[]) { 0, 1, 2, 3 }, 4);
        check_cpus("10-12,0,11-14,4-5,6", (const unsigned[]) { 0, 4, 5, 6, 10, 11, 12, 13, 14 }, 9);
        check_cpus("4294967295", (const unsigned[]) { UINT_MAX }, 1);
        check_cpus("4294967294-4294967295,0", (const unsigned[]) { 0, UINT_MAX - 1, UINT_MAX }, 3);
        check_cpus("", NULL, 0);
        check_cpus("\n", NULL, 0);
        check_cpus("  \n", NULL, 0);

        /* Exactly the limit is fine; duplicates do not count against it. */
        n = 0;
        is_int(cpulist_parse("0-1048575,17,1000-2000\n", &cpus, &n), 0, "cpulist 1<<20 CPUs: parses");
        if (is_int(n, 1 << 20, "cpulist 1<<20 CPUs: count")) {
                bool ordered = true;
                for (size_t i = 0; i < n; i++)
                        if (cpus[i] != i)
                                ordered = false;
                ok(ordered, "cpulist 1<<20 CPUs: 0..1048575 in order");
        }

        check_cpus_bad("3-1", -EINVAL);
        check_cpus_bad("a", -EINVAL);
        check_cpus_bad("1,,2", -EINVAL);
        check_cpus_bad("1,", -EINVAL);
        check_cpus_bad(",1", -EINVAL);
        check_cpus_bad(",", -EINVAL);
        check_cpus_bad("-1", -EINVAL);
        check_cpus_bad("1-", -EINVAL);
        check_cpus_bad("1-2-3", -EINVAL);
        check_cpus_bad("1 2", -EINVAL);
        check_cpus_bad("1, 2", -EINVAL);
        check_cpus_bad("0x1", -EINVAL);
        check_cpus_bad("+1", -EINVAL);
        check_cpus_bad("0-7:2/4", -EINVAL);
        check_cpus_bad("0-1048576", -EINVAL);
        check_cpus_bad("0-524287,524288-1048576", -EINVAL);
        check_cpus_bad("0-4294967295", -EINVAL);
        check_cpus_bad("4294967296", -EINVAL);
        check_cpus_bad("99999999999999999999999", -EINVAL);
        check_cpus_bad("0-99999999999999999999999", -EINVAL);
}

static void test_meminfo(void) {
        _cleanup_free_ char *real = fixture("node0-meminfo.txt");
        uint64_t b;

        b = 0;
        is_int(node_meminfo_total_bytes(real ?: "", &b), 0, "node0-meminfo: parses");
        is_u64(b, UINT64_C(4548812) * 1024, "node0-meminfo: MemTotal bytes");

        is_int(node_meminfo_total_bytes("Node 3 MemFree:  1 kB\nNode 3 MemTotal:       16305452 kB\n", &b), 0,
               "node 3: parses");
        is_u64(b, UINT64_C(16305452) * 1024, "node 3: bytes");
        is_int(node_meminfo_total_bytes("Node 0 MemTotal: 18014398509481983 kB", &b), 0, "largest that fits");
        is_u64(b, UINT64_MAX - 1023, "largest that fits: bytes");

        b = 42;
        is_int(node_meminfo_total_bytes("Node 0 MemTotal: 18014398509481984 kB\n", &b), -ERANGE, "bytes overflow");
        is_u64(b, 42, "failure leaves *ret untouched");
        is_int(node_meminfo_total_bytes("Node 0 MemTotal: 99999999999999999999999 kB\n", &b), -ERANGE,
               "number overflow");
        is_int(node_meminfo_total_bytes("Node 0 MemFree: 5 kB\n", &b), -ENOENT, "absent");
        is_int(node_meminfo_total_bytes("", &b), -ENOENT, "empty");
        is_int(node_meminfo_total_bytes("MemTotal:  16305452 kB\n", &b), -ENOENT, "/proc/meminfo is not node meminfo");
        is_int(node_meminfo_total_bytes("Node 0 MemTotal:\n", &b), -EINVAL, "truncated line");
        is_int(node_meminfo_total_bytes("Node 0 MemTotal: 12", &b), -EINVAL, "missing unit");
        is_int(node_meminfo_total_bytes("Node 0 MemTotal: 12 MB\n", &b), -EINVAL, "wrong unit");
        is_int(node_meminfo_total_bytes("Node 0 MemTotal: abc kB\n", &b), -EINVAL, "non-number");
        is_int(node_meminfo_total_bytes("Node 0 MemTotal: 12 kB x\n", &b), -EINVAL, "trailing junk");
        is_u64(b, 42, "still untouched");
}

/* Every prefix of every fixture is a plausible short read: no parser may
 * crash or read past the end (ASan/valgrind watch), and each must either
 * succeed or return a negative errno. */
static void test_truncations(void) {
        static const char * const names[] = {
                "vmstat-6.18.txt", "vmstat-nonuma.txt", "zoneinfo-6.18.txt", "zoneinfo-2node.txt",
                "numastat-node0.txt", "node0-meminfo.txt",
        };
        bool good = true;
        unsigned zoneinfo_ok = 0;

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_free_ char *full = read_fixture(names[i]);
                size_t len;

                if (!full) {
                        good = false;
                        continue;
                }
                len = strlen(full);

                for (size_t l = 0; l <= len; l++) {
                        /* An exact-size heap copy, so reading one byte too far is caught. */
                        _cleanup_free_ char *p = strndup(full, l);
                        _cleanup_free_ ZoneThreshold *z = NULL;
                        _cleanup_free_ unsigned *cpus = NULL;
                        NumaCounters nc;
                        VmStat st;
                        uint64_t b;
                        size_t n;
                        int r;

                        if (!p)
                                return (void) ok(false, "strndup");

                        r = vmstat_parse(p, &st);
                        good = good && r <= 0;
                        r = numastat_parse(p, &nc);
                        good = good && r <= 0;
                        r = zoneinfo_parse(p, &z, &n);
                        good = good && r <= 0 && (r < 0 || (z && n > 0));
                        if (r == 0 && strstr(names[i], "zoneinfo"))
                                zoneinfo_ok++;
                        r = node_meminfo_total_bytes(p, &b);
                        good = good && r <= 0;
                        r = cpulist_parse(p, &cpus, &n);
                        good = good && (r == 0 || r == -EINVAL);
                }
        }

        ok(good, "all fixture prefixes parse or fail cleanly");
        /* Cutting zoneinfo between lines still gives zones, so most prefixes succeed. */
        ok(zoneinfo_ok > 1000, "truncated zoneinfo mostly parses (%u prefixes)", zoneinfo_ok);
}

/* The parent of a process, from its stat line: after the comm's last ')'. */
static void test_stat_ppid(void) {
        pid_t p = -1;

        is_int(proc_stat_ppid("4242 (bench) S 17 4242 4242 0 -1 4194560 100\n", &p), 0, "stat: parsed");
        is_int(p, 17, "  its parent");
        p = -1;
        is_int(proc_stat_ppid("99 (a) b) c) R 1 99 99 0", &p), 0, "stat: a comm with ')' and spaces");
        is_int(p, 1, "  its parent, after the last ')'");
        is_int(proc_stat_ppid("1 (init) S 0 1 1", &p), 0, "stat: init's parent is 0");
        is_int(p, 0, "  0");
        is_int(proc_stat_ppid("4242 (bench) S x 1", &p), -EINVAL, "stat: a parent that is no number");
        is_int(proc_stat_ppid("4242 (bench) S ", &p), -EINVAL, "stat: cut short");
        is_int(proc_stat_ppid("4242 (bench", &p), -EINVAL, "stat: no ')'");
        is_int(proc_stat_ppid("4242 (bench) S 99999999999 1", &p), -EINVAL, "stat: a parent out of range");
        is_int(proc_stat_ppid(NULL, &p), -EINVAL, "stat: NULL");
}

/* Which exec of a process: where its arguments lie (fields 48 and 49). */
static void test_stat_image(void) {
        const char *line = "24257 (c a) t) R 24250 24250 17275 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 4903583 3133440 "
                           "388 18446744073709551615 93919672659968 93919672679849 140732740641248 0 0 0 0 0 0 0 0 0 "
                           "17 0 0 0 0 0 0 93919672695856 93919672697472 93920222445568 140732740643458 "
                           "140732740643478 140732740643478 140732740644843 0\n";
        const char *hidden = "7 (z) Z 1 7 7 0 -1 4194380 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 18446744073709551615 0 0 0 "
                             "0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
        uint64_t image = 0, other = 0;
        char moved[512];

        is_int(proc_stat_image(line, &image), 0, "stat image: parsed");
        ok(image == (140732740643458ULL ^ (140732740643478ULL << 32 | 140732740643478ULL >> 32)),
           "  arg_start and arg_end (fields 48, 49), folded");
        /* Another exec: the arguments elsewhere on a new stack. */
        snprintf(moved, sizeof moved, "%.*s140732740612345 140732740612365%s", (int) (strstr(line, "140732740643458") - line),
                 line, strstr(line, " 140732740643478 140732740644843"));
        is_int(proc_stat_image(moved, &other), 0, "stat image: another exec parsed");
        ok(other != image && other != 0, "  another value");
        is_int(proc_stat_image(hidden, &image), 0, "stat image: hidden (a zombie, no ptrace access)");
        ok(image == 0, "  0: unknown");
        is_int(proc_stat_image("1 (old) S 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 1 1 1 1 1 1 0 0 0 0 0 0 0 17 0\n",
                               &image), 0, "stat image: a kernel before 3.5 (the line ends before)");
        ok(image == 0, "  0: unknown");
        is_int(proc_stat_image("4242 (bench) S 17 x", &image), 0, "stat image: cut short");
        is_int(proc_stat_image("4242 (bench", &image), -EINVAL, "stat image: no ')'");
        snprintf(moved, sizeof moved, "%.*sx%s", (int) (strstr(line, "140732740643458") - line), line,
                 strstr(line, " 140732740643478 140732740643478"));
        is_int(proc_stat_image(moved, &image), -EINVAL, "stat image: a field that is no number");
        is_int(proc_stat_image(NULL, &image), -EINVAL, "stat image: NULL");
}

/* A process's ids, from /proc/PID/status: all four uids and gids, and its
 * groups; settled only when each set is one id (not mid set-user-ID). */
static void test_status_ids(void) {
        const char *su = "Name:\tsu\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t65534\t0\t0\t0\n"
                         "Gid:\t65534\t65534\t65534\t65534\nFDSize:\t64\nGroups:\t65534 100 \nNStgid:\t1\n";
        const char *plain = "Name:\tcat\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n"
                            "Groups:\t\nNSpid:\t1\n";
        char many[2048] = "x\nUid:\t1\t1\t1\t1\nGid:\t1\t1\t1\t1\nGroups:\t";
        ProcIds ids;

        is_int(proc_status_ids(su, &ids), 0, "status: parsed");
        ok(ids.uid[0] == 65534 && ids.uid[1] == 0 && ids.uid[2] == 0 && ids.uid[3] == 0, "  its four uids");
        ok(ids.gid[0] == 65534 && ids.gid[3] == 65534, "  its four gids");
        ok(ids.n_groups == 2 && ids.groups[0] == 65534 && ids.groups[1] == 100, "  its groups");
        ok(!proc_ids_settled(&ids), "  set-user-ID root under way: not settled");
        is_int(proc_status_ids(plain, &ids), 0, "status: no groups");
        ok(ids.n_groups == 0 && ids.uid[2] == 1000, "  none, and its uids");
        ok(proc_ids_settled(&ids), "  one uid, one gid: settled");
        ids.gid[3] = 0;
        ok(!proc_ids_settled(&ids), "  a fs gid of its own: not settled");
        is_int(proc_status_ids("Uid:\t1\t1\t1\t1\n", &ids), -EINVAL, "status: no Uid line after a newline");
        is_int(proc_status_ids("x\nUid:\t1\t1\t1\nGid:\t1\t1\t1\t1\nGroups:\n", &ids), -EINVAL,
               "status: three uids");
        is_int(proc_status_ids("x\nUid:\t1\t1\t1\t1\t1\nGid:\t1\t1\t1\t1\nGroups:\n", &ids), -EINVAL,
               "status: five uids");
        is_int(proc_status_ids("x\nUid:\t1\t1\t1\t1\nGid:\t1\t1\t1\t1\n", &ids), -EINVAL, "status: no Groups");
        is_int(proc_status_ids("x\nUid:\t1\t1\t1\t1\nGid:\t1\t1\t1\t1\nGroups:\t1 x\n", &ids), -EINVAL,
               "status: a group that is no number");
        is_int(proc_status_ids(NULL, &ids), -EINVAL, "status: NULL");
        for (int i = 0; i <= PROC_GROUPS_MAX; i++)
                snprintf(many + strlen(many), sizeof many - strlen(many), "%d ", i);
        strcat(many, "\n");
        is_int(proc_status_ids(many, &ids), -E2BIG, "status: more than PROC_GROUPS_MAX groups");
}

int main(void) {
        test_names();
        test_vmstat();
        test_numastat();
        test_zoneinfo();
        test_cpulist();
        test_meminfo();
        test_truncations();
        test_stat_ppid();
        test_stat_image();
        test_status_ids();
        return tap_done();
}
