/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A qemu TCG plugin that counts the guest instructions each vCPU executes,
 * and prints the counts whenever the guest executes a marker: the 8-byte NOP
 * "nopl 0x4e55LLLL(%rax,%rax,1)" (0f 1f 84 00 + disp32), LLLL a label the
 * guest chose (tests/vm/alloc-load.c, insn mode). What a phase cost is the
 * difference of two markers' counts on one vCPU: exact, whatever the host
 * was doing meanwhile.
 *
 *   qemu-system-x86_64 -plugin insn-count.so[,ranges=FILE] -d plugin -D LOG ...
 *
 * Each marker prints "mark vcpu=V label=L insns=N filtered=F": N counts every
 * instruction, F only those whose address lies in one of the ranges of FILE
 * (lines "START END" in hex, END exclusive: the page allocator's and the
 * vmstat code's functions, from the kernel's System.map), which leaves page
 * zeroing and the fault path out of the denominator.
 *
 * Counting is per translation block: a block's instructions are added when
 * it starts executing (a block left early by an exception overcounts a
 * little, the same in every round). The marker's own block is counted
 * before its print, in both the start and the end marker of a phase, so it
 * cancels.
 *
 * Debian 12 ships qemu 7.2 without the plugin header (qemu-plugin.h), so the
 * few functions used are declared here, as in plugin API version 1 (qemu
 * 7.x: QEMU_PLUGIN_VERSION 1; version 2 in qemu 8.2 renamed the inline
 * operations, which this plugin does not use). */

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* ---- plugin API, version 1 (qemu 7.2's include/qemu/qemu-plugin.h) ---- */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;         /* used through a pointer only */
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

EXPORT int qemu_plugin_version = 1;
EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);
/* ---- end of the API ---- */

#define MAX_VCPUS 64
#define MARKER_TAG 0x4e55u      /* "NU" in the displacement's upper half */

/* One slot per vCPU, each written by its own vCPU thread only; padded so
 * that two vCPUs never share a cache line. */
static struct {
        uint64_t insns, filtered;
        char pad[48];
} counts[MAX_VCPUS];

typedef struct Range {
        uint64_t start, end;
} Range;
static Range *ranges;
static size_t n_ranges;

/* What a translation block adds when it runs. Kept for the whole run:
 * qemu may run a block long after translating it. */
typedef struct BlockCount {
        uint32_t insns, filtered;
} BlockCount;

static bool in_ranges(uint64_t pc) {
        size_t lo = 0, hi = n_ranges;

        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (pc < ranges[mid].start)
                        hi = mid;
                else if (pc >= ranges[mid].end)
                        lo = mid + 1;
                else
                        return true;
        }
        return false;
}

static void on_block(unsigned int vcpu, void *userdata) {
        const BlockCount *b = userdata;

        if (vcpu < MAX_VCPUS) {
                counts[vcpu].insns += b->insns;
                counts[vcpu].filtered += b->filtered;
        }
}

static void on_marker(unsigned int vcpu, void *userdata) {
        char line[128];

        if (vcpu >= MAX_VCPUS)
                return;
        snprintf(line, sizeof line, "mark vcpu=%u label=%u insns=%" PRIu64 " filtered=%" PRIu64 "\n", vcpu,
                 (unsigned) (uintptr_t) userdata, counts[vcpu].insns, counts[vcpu].filtered);
        qemu_plugin_outs(line);
}

/* The marker's label, or -1: 0f 1f 84 00, then the displacement 0x4e55LLLL. */
static long marker_label(const struct qemu_plugin_insn *insn) {
        const uint8_t *d = qemu_plugin_insn_data(insn);
        uint32_t disp;

        if (qemu_plugin_insn_size(insn) != 8 || d[0] != 0x0f || d[1] != 0x1f || d[2] != 0x84 || d[3] != 0x00)
                return -1;
        disp = (uint32_t) d[4] | (uint32_t) d[5] << 8 | (uint32_t) d[6] << 16 | (uint32_t) d[7] << 24;
        return disp >> 16 == MARKER_TAG ? (long) (disp & 0xffff) : -1;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
        size_t n = qemu_plugin_tb_n_insns(tb);
        BlockCount *b = calloc(1, sizeof *b);

        (void) id;
        if (!b)
                abort();
        b->insns = (uint32_t) n;
        for (size_t i = 0; i < n; i++) {
                struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
                long label = marker_label(insn);

                if (n_ranges && in_ranges(qemu_plugin_insn_vaddr(insn)))
                        b->filtered++;
                if (label >= 0)
                        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS,
                                                               (void *) (uintptr_t) label);
        }
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void on_plugin_exit(qemu_plugin_id_t id, void *userdata) {
        char line[128];

        (void) id, (void) userdata;
        for (unsigned v = 0; v < MAX_VCPUS; v++)
                if (counts[v].insns) {
                        snprintf(line, sizeof line, "total vcpu=%u insns=%" PRIu64 " filtered=%" PRIu64 "\n", v,
                                 counts[v].insns, counts[v].filtered);
                        qemu_plugin_outs(line);
                }
}

static int range_cmp(const void *a, const void *b) {
        const Range *x = a, *y = b;
        return x->start < y->start ? -1 : x->start > y->start;
}

static int load_ranges(const char *path) {
        FILE *f = fopen(path, "re");
        unsigned long long s, e;
        size_t cap = 0;

        if (!f)
                return -1;
        while (fscanf(f, "%llx %llx", &s, &e) == 2) {
                if (e <= s)
                        continue;
                if (n_ranges == cap) {
                        Range *n = realloc(ranges, (cap = cap ? cap * 2 : 64) * sizeof *n);
                        if (!n) {
                                fclose(f);
                                return -1;
                        }
                        ranges = n;
                }
                ranges[n_ranges++] = (Range){ s, e };
        }
        fclose(f);
        qsort(ranges, n_ranges, sizeof *ranges, range_cmp);
        return 0;
}

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
        char line[256];

        (void) info;
        for (int i = 0; i < argc; i++) {
                if (strncmp(argv[i], "ranges=", 7) == 0) {
                        if (load_ranges(argv[i] + 7) < 0) {
                                fprintf(stderr, "insn-count: cannot read %s\n", argv[i] + 7);
                                return -1;
                        }
                } else {
                        fprintf(stderr, "insn-count: unknown argument %s\n", argv[i]);
                        return -1;
                }
        }
        snprintf(line, sizeof line, "insn-count: plugin API 1, %zu address ranges\n", n_ranges);
        qemu_plugin_outs(line);
        qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
        qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
        return 0;
}
