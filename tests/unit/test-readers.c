/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-event.h>
#include <systemd/sd-login.h>

#include "macro.h"
#include "readers.h"
#include "rootfs.h"
#include "strutil.h"
#include "tap.h"
#include "time-util.h"

#define NODE_DIR "/sys/devices/system/node"

/* ---- what the callback saw (its strings die with the call: copy them) ---- */

typedef struct Seen {
        bool overflow;
        pid_t pid;
        bool pid_verified;
        char *comm, *exe, *unit, *session, *path;
        bool has_uid;
        uid_t uid;
} Seen;

static Seen seen[256];
static size_t n_seen;
static size_t n_own;    /* own reads: handed over as fds, not as reads */
static size_t n_overflows;
static bool quiet;      /* counting overflows only */

static char *strdup_or_null(const char *s) {
        return s ? strdup(s) : NULL;
}

static void on_read(Readers *r, ReadEvent *ev, void *userdata) {
        Seen *s;

        if (ev->own_fd) {
                if (*ev->own_fd >= 0 && fcntl(*ev->own_fd, F_GETFD) >= 0)
                        n_own++;
                return;         /* the source closes what is not taken */
        }
        read_event_attribute(ev);
        n_overflows += ev->overflow;
        if (quiet)
                return;
        if (n_seen >= ELEMENTSOF(seen))
                return;
        s = seen + n_seen++;
        *s = (Seen) {
                .overflow = ev->overflow,
                .pid = ev->pid,
                .pid_verified = ev->pid_verified,
                .comm = strdup_or_null(ev->comm),
                .exe = strdup_or_null(ev->exe),
                .unit = strdup_or_null(ev->unit),
                .session = strdup_or_null(ev->session),
                .path = strdup_or_null(ev->path),
                .has_uid = ev->has_uid,
                .uid = ev->uid,
        };
        printf("# event: overflow=%d pid=%d reliable=%d comm=%s exe=%s unit=%s session=%s uid=%s%u path=%s\n",
               ev->overflow, (int) ev->pid, ev->pid_verified, ev->comm ?: "(null)", ev->exe ?: "(null)",
               ev->unit ?: "(null)", ev->session ?: "(null)", ev->has_uid ? "" : "unknown:", (unsigned) ev->uid,
               ev->path ?: "(null)");
}

static int failures, failure_error;

static void on_fail(Readers *r, int error, void *userdata) {
        failures++;
        failure_error = error;
}

static void seen_reset(void) {
        for (size_t i = 0; i < n_seen; i++) {
                free(seen[i].comm);
                free(seen[i].exe);
                free(seen[i].unit);
                free(seen[i].session);
                free(seen[i].path);
        }
        n_seen = 0;
        n_own = 0;
}

/* Runs the loop until an event from pid arrives (at most 5 s). */
static Seen *wait_for_pid(sd_event *e, pid_t pid) {
        uint64_t deadline = now_usec(CLOCK_MONOTONIC) + 5 * USEC_PER_SEC;

        for (;;) {
                for (size_t i = 0; i < n_seen; i++)
                        if (!seen[i].overflow && seen[i].pid == pid)
                                return seen + i;
                if (now_usec(CLOCK_MONOTONIC) >= deadline)
                        return NULL;
                if (sd_event_run(e, 100 * USEC_PER_MSEC) < 0)
                        return NULL;
        }
}

/* ---- readers ---- */

static void read_file(const char *path) {
        char buf[256];
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                _exit(111);
        /* FAN_ACCESS needs a read that returns data. */
        if (read(fd, buf, sizeof buf) <= 0)
                _exit(112);
        close(fd);
}

/* A reader that outlives its read, so the pidfd check sees it alive. */
static pid_t spawn_reader(const char *first, const char *second) {
        pid_t pid = fork();

        if (pid < 0)
                abort();
        if (pid == 0) {
                (void) prctl(PR_SET_NAME, "numa-reader");
                if (first)
                        read_file(first);
                if (second)
                        read_file(second);
                usleep(300 * 1000);
                _exit(0);
        }
        return pid;
}

/* A reader that is gone at once: cat. */
static pid_t spawn_cat(const char *file) {
        pid_t pid = fork();

        if (pid < 0)
                abort();
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

                if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
                        _exit(113);
                execl("/bin/cat", "cat", file, (char *) NULL);
                _exit(114);
        }
        return pid;
}

static bool reap(pid_t pid) {
        int status;

        if (waitpid(pid, &status, 0) != pid)
                return false;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                printf("# child %d exited with status 0x%x\n", (int) pid, status);
                return false;
        }
        return true;
}

/* ---- the tree ---- */

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        return remove(path) < 0 ? -1 : 0;
}

static void make_file(const char *root, const char *path, const char *content) {
        _cleanup_free_ char *full = NULL;
        FILE *f;

        if (root_path(root, path, &full) < 0)
                abort();
        /* mkdir -p of the parent */
        for (char *s = strchr(full + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                if (mkdir(full, 0755) < 0 && errno != EEXIST) {
                        perror(full);
                        abort();
                }
                *s = '/';
        }
        f = fopen(full, "we");
        if (!f || fputs(content, f) < 0 || fclose(f) != 0) {
                perror(full);
                abort();
        }
}

static char *full_path(const char *root, const char *path) {
        char *full;

        if (root_path(root, path, &full) < 0)
                abort();
        return full;
}

static bool is_tmpfs(const char *path) {
        struct statfs sfs;

        return statfs(path, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC;
}

static char *expected_unit(void) {
        char *u = NULL;

        /* Children share the test's cgroup, so they share its unit. */
        if (sd_pid_get_unit(0, &u) < 0 && sd_pid_get_user_unit(0, &u) < 0)
                u = NULL;
        return u;
}

static char *expected_session(void) {
        char *s = NULL;

        if (sd_pid_get_session(0, &s) < 0)
                s = NULL;
        return s;
}

static void check_attributed(Readers *r, const Seen *s, pid_t pid, const char *path, const char *what) {
        _cleanup_free_ char *self_exe = realpath("/proc/self/exe", NULL);
        _cleanup_free_ char *unit = expected_unit(), *session = expected_session();

        is_int(s->pid, pid, "reader pid");
        ok(!s->overflow, "%s: not an overflow", what);
        is_str(s->path, path, "path as configured, root prefix stripped");
        is_str(s->comm, "numa-reader", "comm of the reader");
        is_str(s->exe, self_exe, "exe of the reader (this test binary)");
        ok(s->has_uid && s->uid == 0, "%s: uid 0 known", what);
        ok(s->pid_verified == readers_have_pidfd(r), "%s: pid_verified iff pidfd support", what);
        ok(streq_ptr(s->unit, unit), "%s: unit is the test's (%s)", what, unit ?: "none");
        ok(streq_ptr(s->session, session), "%s: session is the test's (%s)", what, session ?: "none");
}

static void test_tree(const char *root) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        _cleanup_(readers_freep) Readers *r = NULL;
        _cleanup_free_ char *vmstat = full_path(root, "/proc/vmstat"),
                            *node0 = full_path(root, NODE_DIR "/node0/numastat"),
                            *node1 = full_path(root, NODE_DIR "/node1/numastat"),
                            *node2 = full_path(root, NODE_DIR "/node2/numastat"),
                            *meminfo = full_path(root, NODE_DIR "/node1/meminfo"),
                            *cat_real = realpath("/bin/cat", NULL);
        char *patterns[] = { "/proc/vmstat", NODE_DIR "/node*/numastat", NULL };
        char *expected3[] = { "/proc/vmstat", NODE_DIR "/node0/numastat", NODE_DIR "/node1/numastat", NULL };
        char *expected4[] = { "/proc/vmstat", NODE_DIR "/node0/numastat", NODE_DIR "/node1/numastat",
                              NODE_DIR "/node2/numastat", NULL };
        char *vmstat_only[] = { "/proc/vmstat", NULL };
        Seen *s;
        pid_t pid;
        int k;

        make_file(root, "/proc/vmstat", "nr_free_pages 1\nnuma_hit 2\n");
        make_file(root, NODE_DIR "/node0/numastat", "numa_hit 10\nnuma_miss 0\n");
        make_file(root, NODE_DIR "/node1/numastat", "numa_hit 11\nnuma_miss 1\n");
        make_file(root, NODE_DIR "/node1/meminfo", "Node 1 MemTotal: 1 kB\n");

        if (sd_event_new(&e) < 0)
                abort();

        is_int(readers_new(NULL, on_read, on_fail, NULL, &r), -EINVAL, "readers_new without an event loop");
        k = readers_new(e, on_read, on_fail, NULL, &r);
        if (k == -EPERM) {
                tap_skip("fanotify_init: EPERM (no CAP_SYS_ADMIN in this container)");
                return;
        }
        is_int(k, 0, "readers_new");
        if (k < 0)
                return;
        printf("# FAN_REPORT_PIDFD: %s\n", readers_have_pidfd(r) ? "yes" : "no");
        ok(strv_length(readers_watched(r)) == 0, "nothing watched before readers_watch");

        is_int(readers_watch(r, root, patterns, NULL, NULL), 3, "readers_watch marks vmstat + 2 node files");
        ok(strv_equal(readers_watched(r), expected3), "watched paths are the configured spellings");

        /* The test is the daemon here: its own reads never count. The child's
         * read afterwards is the sentinel: events arrive in order. */
        seen_reset();
        read_file(node0);
        read_file(vmstat);
        pid = spawn_reader(meminfo, node1);
        s = wait_for_pid(e, pid);
        ok(s, "read of node1 by a child is reported");
        if (s)
                check_attributed(r, s, pid, NODE_DIR "/node1/numastat", "node1 reader");
        is_int(n_seen, 1, "own reads and the unwatched meminfo read give no event");
        is_int(n_own, 2, "  the own reads come as fds to the files read (node0, vmstat)");
        ok(reap(pid), "reader child exited cleanly");

        /* cat exits at once: attributed (a zombie keeps its pid) or reported
         * by pid alone, both fine. */
        seen_reset();
        pid = spawn_cat(vmstat);
        s = wait_for_pid(e, pid);
        ok(s, "read by cat is reported");
        if (s) {
                is_str(s->path, "/proc/vmstat", "cat: path");
                ok(!s->comm || strcmp(s->comm, "cat") == 0, "cat: comm is cat or unknown (%s)", s->comm ?: "null");
                ok(!s->exe || streq_ptr(s->exe, cat_real), "cat: exe is %s or unknown (%s)", cat_real,
                   s->exe ?: "null");
                ok(!s->pid_verified || readers_have_pidfd(r), "cat: reliable only with a pidfd");
        }
        ok(reap(pid), "cat exited cleanly");

        /* Reaped before the loop runs: with a pidfd the kernel says FAN_NOPIDFD,
         * the pid may be anyone's by now, so nothing is attributed. */
        seen_reset();
        pid = spawn_cat(node0);
        ok(reap(pid), "early-reaped cat exited cleanly");
        s = wait_for_pid(e, pid);
        ok(s, "read by an already reaped cat is reported");
        if (s) {
                is_str(s->path, NODE_DIR "/node0/numastat", "reaped: path");
                ok(!s->pid_verified, "reaped: pid not reliable");
                if (readers_have_pidfd(r))
                        ok(!s->comm && !s->exe && !s->has_uid && !s->unit, "reaped: no attribution (FAN_NOPIDFD)");
                else    /* without a pidfd attribution is a best-effort guess: nothing to assert */
                        printf("# reaped without pidfd: comm=%s\n", s->comm ?: "(null)");
        }

        /* A node appears: re-marking picks it up and keeps the others. */
        make_file(root, NODE_DIR "/node2/numastat", "numa_hit 12\n");
        is_int(readers_watch(r, root, patterns, NULL, NULL), 4, "readers_watch again marks 4");
        ok(strv_equal(readers_watched(r), expected4), "watched list has node2");
        seen_reset();
        pid = spawn_reader(node2, NULL);
        s = wait_for_pid(e, pid);
        ok(s, "read of the new node2 is reported");
        if (s)
                check_attributed(r, s, pid, NODE_DIR "/node2/numastat", "node2 reader");
        ok(reap(pid), "node2 reader exited cleanly");

        seen_reset();
        pid = spawn_reader(node0, NULL);
        s = wait_for_pid(e, pid);
        ok(s && streq_ptr(s->path, NODE_DIR "/node0/numastat"), "node0 still watched after re-marking");
        ok(reap(pid), "node0 reader exited cleanly");

        /* Re-marking removes old marks: node1 is silent, vmstat is the sentinel. */
        is_int(readers_watch(r, root, vmstat_only, NULL, NULL), 1, "readers_watch with vmstat only marks 1");
        ok(strv_equal(readers_watched(r), vmstat_only), "watched list is vmstat only");
        seen_reset();
        pid = spawn_reader(node1, vmstat);
        s = wait_for_pid(e, pid);
        ok(s && streq_ptr(s->path, "/proc/vmstat"), "vmstat read reported");
        is_int(n_seen, 1, "node1 no longer watched: no event for it");
        ok(reap(pid), "reader exited cleanly");

        /* Patterns that match nothing are not an error; bad ones are. */
        is_int(readers_watch(r, root, (char *[]) { NODE_DIR "/node9*/numastat", NULL }, NULL, NULL), 0, "no match: 0 marks");
        ok(strv_length(readers_watched(r)) == 0, "no match: nothing watched");
        is_int(readers_watch(r, root, (char *[]) { "proc/vmstat", NULL }, NULL, NULL), -EINVAL, "relative pattern: -EINVAL");
        is_int(readers_watch(r, root, (char *[]) { "/proc/vmstat", "/proc/vmstat", NULL }, NULL, NULL), 1,
               "duplicate patterns mark once");
        is_int(readers_watch(r, root, (char *[]) { NODE_DIR "/node*", NULL }, NULL, NULL), 0,
               "directories are not marked");
        is_int(readers_watch(r, root, NULL, NULL, NULL), 0, "no patterns: 0 marks");

        /* Views: the same files as another mount namespace sees them (a
         * procfs of its own is other inodes). Each inode is marked once, the
         * path is the configured one, and a view that fails is skipped. */
        {
                _cleanup_free_ char *view = full_path(root, "/view"),
                                    *view_vmstat = full_path(root, "/view/proc/vmstat");
                char *views[] = { view, (char *) root, (char *) "/nonexistent-view", NULL };

                make_file(root, "/view/proc/vmstat", "nr_free_pages 1\n");
                is_int(readers_watch(r, root, vmstat_only, views, NULL), 2,
                       "a view with its own inode adds a mark; the same inode and a missing view add none");
                ok(strv_equal(readers_watched(r), vmstat_only), "watched lists the path once");
                seen_reset();
                pid = spawn_reader(view_vmstat, NULL);
                s = wait_for_pid(e, pid);
                ok(s && streq_ptr(s->path, "/proc/vmstat"), "a read in the view is reported as /proc/vmstat");
                ok(reap(pid), "view reader exited cleanly");
                seen_reset();
                pid = spawn_reader(vmstat, NULL);
                s = wait_for_pid(e, pid);
                ok(s && streq_ptr(s->path, "/proc/vmstat"), "and a read of the root's still is");
                ok(reap(pid), "root reader exited cleanly");
        }
}

static void test_real_proc(void) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        _cleanup_(readers_freep) Readers *r = NULL;
        char *patterns[] = { "/proc/vmstat", NULL };
        size_t own;
        Seen *s;
        pid_t pid;
        int k;

        if (sd_event_new(&e) < 0)
                abort();
        k = readers_new(e, on_read, on_fail, NULL, &r);
        if (k == -EPERM) {
                tap_skip("fanotify_init: EPERM");
                return;
        }
        is_int(k, 0, "readers_new for the real /proc");
        if (k < 0)
                return;

        /* Real sysfs node files accept marks too. */
        if (access(NODE_DIR "/node0/numastat", R_OK) >= 0) {
                char *nodes[] = { NODE_DIR "/node*/numastat", NULL };

                k = readers_watch(r, "/", nodes, NULL, NULL);
                ok(k >= 1, "readers_watch(\"/\", node*/numastat) marks %d >= 1", k);
                seen_reset();
                pid = spawn_reader(NODE_DIR "/node0/numastat", NULL);
                s = wait_for_pid(e, pid);
                ok(s && streq_ptr(s->path, NODE_DIR "/node0/numastat") && streq_ptr(s->comm, "numa-reader"),
                   "a child's read of the real node0/numastat is reported");
                ok(reap(pid), "node0 reader exited cleanly");
        } else
                tap_skip("no " NODE_DIR "/node0/numastat (no CONFIG_NUMA)");

        k = readers_watch(r, "/", patterns, NULL, NULL);
        is_int(k, 1, "readers_watch(\"/\", /proc/vmstat) marks 1");
        if (k != 1)
                return;
        ok(strv_equal(readers_watched(r), patterns), "watched is /proc/vmstat");

        /* Others may read /proc/vmstat too: look for our child's event only. */
        seen_reset();
        pid = spawn_reader("/proc/vmstat", NULL);
        s = wait_for_pid(e, pid);
        ok(s, "a child's read of the real /proc/vmstat is reported");
        if (s)
                check_attributed(r, s, pid, "/proc/vmstat", "/proc/vmstat reader");
        ok(reap(pid), "/proc/vmstat reader exited cleanly");

        seen_reset();
        read_file("/proc/vmstat");
        pid = spawn_reader("/proc/vmstat", NULL);
        ok(wait_for_pid(e, pid), "sentinel read of /proc/vmstat reported");
        own = 0;
        for (size_t i = 0; i < n_seen; i++)
                if (seen[i].pid == getpid())
                        own++;
        is_int(own, 0, "own read of the real /proc/vmstat not reported");
        ok(reap(pid), "sentinel reader exited cleanly");
}

/* A queue kept behind past READERS_BEHIND_MAX_USEC: taken as lost reads. */
static void test_behind(const char *root) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        _cleanup_(readers_freep) Readers *r = NULL;
        _cleanup_free_ char *vmstat = full_path(root, "/proc/vmstat");
        char *patterns[] = { "/proc/vmstat", NULL };
        uint64_t lost;
        int k = 0;

        if (sd_event_new(&e) < 0 || readers_new(e, on_read, on_fail, NULL, &r) < 0 ||
            readers_watch(r, root, patterns, NULL, NULL) != 1)
                abort();
        /* More readers than one flush takes (READERS_BATCH_READS reads of
         * the queue): each its own process, so no event merges. */
        for (int i = 0; i < 1500; i++) {
                pid_t pid = fork();

                if (pid == 0) {
                        read_file(vmstat);
                        _exit(0);
                }
                if (pid < 0 || waitpid(pid, NULL, 0) < 0)
                        abort();
        }
        quiet = true;
        n_overflows = 0;
        ok(readers_flush(r) == 1, "a flush leaves the events of 1500 readers queued");
        ok(n_overflows == 0 && readers_behind_lost(r) == 0, "  behind for less than the bound: none taken as lost");
        readers_set_behind_max(r, 0);
        k = readers_flush(r);
        ok(k == 1 && n_overflows == 1 && readers_behind_lost(r) == 1,
           "still behind past the bound: what is queued is taken as lost reads, once");
        while ((k = readers_flush(r)) > 0)
                ;
        readers_set_behind_max(r, READERS_BEHIND_MAX_USEC);
        lost = readers_behind_lost(r);
        read_file(vmstat);      /* our own: an event that is no read */
        ok(k == 0 && readers_flush(r) == 0 && readers_behind_lost(r) == lost, "  drained: behind no more");
        quiet = false;
}

/* The events' age from byte positions (behind_step), on a fake clock. */
static void test_behind_step(void) {
        BehindMark m = {};
        uint64_t consumed = 0, now = 1000000;
        int late = 0;

        /* A flood the loop keeps up with: 8 KiB always queued, 16 KiB read
         * every 10 ms. The queue is never empty, no event waits 20 ms. */
        for (int i = 0; i < 50; i++, now += 10000) {
                consumed += 16384;
                late += behind_step(&m, now, consumed, 8192, READERS_BEHIND_MAX_USEC);
        }
        is_int(late, 0, "a queue never empty, each event read within 20 ms: never late (500 ms of it)");

        /* A loop that falls behind: 1 KiB read every 10 ms of 60 KiB queued. */
        m = (BehindMark) {};
        late = 0;
        for (int i = 0; i < 25; i++, now += 10000) {
                consumed += 1024;
                late += behind_step(&m, now, consumed, 61440, READERS_BEHIND_MAX_USEC);
        }
        is_int(late, 2, "a queue read slower than it fills: late once each 100 ms (250 ms: twice)");
        ok(!behind_step(&m, now, consumed, 0, READERS_BEHIND_MAX_USEC) && m.at == 0, "  empty: no mark");
}

/* Marks renewed while readers read: each read is seen. The file read is
 * the last to mark, after many: a flush and a new start would leave it
 * unmarked for most of each renewal. */
#define REWATCH_READERS 200
static void test_rewatch_loses_nothing(const char *root) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        _cleanup_(readers_freep) Readers *r = NULL;
        _cleanup_free_ char *vmstat = full_path(root, "/proc/vmstat");
        char *patterns[] = { NODE_DIR "/node*/numastat", "/proc/vmstat", NULL };
        pid_t pids[REWATCH_READERS], child;
        unsigned renewals = 0;
        size_t n_pids = 0, found = 0;
        uint64_t deadline;
        int pipefd[2], status;

        for (int i = 0; i < 400; i++) {
                char path[128];

                snprintf(path, sizeof path, NODE_DIR "/node%d/numastat", i);
                make_file(root, path, "numa_hit 1\n");
        }
        if (sd_event_new(&e) < 0 || readers_new(e, on_read, on_fail, NULL, &r) < 0 || pipe(pipefd) < 0)
                abort();
        is_int(readers_watch(r, root, patterns, NULL, NULL), 401, "400 node files and vmstat marked");
        seen_reset();

        child = fork();
        if (child < 0)
                abort();
        if (child == 0) {
                close(pipefd[0]);
                for (int i = 0; i < REWATCH_READERS; i++) {
                        pid_t p = fork();

                        if (p == 0) {
                                read_file(vmstat);
                                _exit(0);
                        }
                        if (p < 0 || waitpid(p, NULL, 0) != p || write(pipefd[1], &p, sizeof p) != sizeof p)
                                _exit(1);
                }
                _exit(0);
        }
        close(pipefd[1]);
        while (waitpid(child, &status, WNOHANG) == 0) {
                if (readers_watch(r, root, patterns, NULL, NULL) != 401)
                        break;
                renewals++;
        }
        if (waitpid(child, &status, WNOHANG) == 0)
                (void) waitpid(child, &status, 0);
        ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%d readers read while the marks were renewed %u times",
           REWATCH_READERS, renewals);
        while (n_pids < REWATCH_READERS && read(pipefd[0], &pids[n_pids], sizeof pids[0]) == sizeof pids[0])
                n_pids++;
        close(pipefd[0]);

        deadline = now_usec(CLOCK_MONOTONIC) + 5 * USEC_PER_SEC;
        while (now_usec(CLOCK_MONOTONIC) < deadline) {
                found = 0;
                for (size_t i = 0; i < n_pids; i++)
                        for (size_t j = 0; j < n_seen; j++)
                                if (seen[j].pid == pids[i]) {
                                        found++;
                                        break;
                                }
                if (found == n_pids || sd_event_run(e, 100 * USEC_PER_MSEC) < 0)
                        break;
        }
        ok(renewals > 0 && n_pids == REWATCH_READERS && found == n_pids,
           "every read was seen: %zu of %zu, over %u renewals", found, n_pids, renewals);
        seen_reset();
}

int main(void) {
        _cleanup_free_ char *root = NULL;
        bool mounted = false;

        if (geteuid() != 0) {
                tap_skip("needs CAP_SYS_ADMIN for fanotify_init");
                return tap_done();
        }

        /* A "[" in the root proves glob(3) takes the root literally. */
        if (is_tmpfs("/dev/shm")) {
                root = strdup("/dev/shm/test-readers[1]-XXXXXX");
                if (!root || !mkdtemp(root))
                        abort();
        } else {
                root = strdup("/tmp/test-readers[1]-XXXXXX");
                if (!root || !mkdtemp(root))
                        abort();
                if (mount("tmpfs", root, "tmpfs", 0, "mode=0755") < 0) {
                        perror("mount tmpfs");
                        abort();
                }
                mounted = true;
        }
        ok(is_tmpfs(root), "tree is on tmpfs: %s", root);

        test_tree(root);
        test_real_proc();
        test_behind(root);
        test_behind_step();
        test_rewatch_loses_nothing(root);
        ok(readers_free(NULL) == NULL, "readers_free(NULL)");
        seen_reset();

        if (mounted)
                (void) umount2(root, MNT_DETACH);
        else
                (void) nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        (void) rmdir(root);

        return tap_done();
}
