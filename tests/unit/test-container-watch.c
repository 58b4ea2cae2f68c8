/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The container scan: each mount namespace looked into by a child, what
 * it found kept open; a namespace whose answer still stands is not looked
 * into again; a container gone is dropped. The container is a child of
 * ours with a mount and pid namespace and a procfs of its own. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "container-watch.h"
#include "macro.h"
#include "spawn.h"
#include "tap.h"

static int changes;

static void on_changed(ContainerWatch *w, void *userdata) {
        changes++;
}

static int on_give_up(sd_event_source *s, uint64_t usec, void *userdata) {
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

/* Runs the loop until the watch has made n scans in all (10 s at most: a
 * failure, not a wait). */
static bool run_until_scans(sd_event *e, ContainerWatch *w, uint64_t n) {
        _cleanup_(sd_event_source_unrefp) sd_event_source *limit = NULL;

        if (sd_event_add_time_relative(e, &limit, CLOCK_MONOTONIC, 10 * USEC_PER_SEC, 0, on_give_up, NULL) < 0)
                return false;
        while (container_watch_scans(w) < n)
                if (sd_event_run(e, UINT64_MAX) < 0 || sd_event_get_state(e) == SD_EVENT_FINISHED)
                        return false;
        return true;
}

/* Scans, and runs the loop until the scan is done (it may be at once:
 * every answer standing). */
static bool scan_now(sd_event *e, ContainerWatch *w) {
        uint64_t n = container_watch_scans(w) + 1;

        container_watch_scan(w);
        return run_until_scans(e, w, n);
}

/* A container: new mount and pid namespaces, a procfs of its own at
 * /proc, waiting. Its pid 1 takes commands through *cmd: 'u' unmounts
 * /proc, 'm' mounts it again; each outcome (0 or an errno) comes back
 * through *result. */
typedef struct Container {
        int cmds[2], results[2];
} Container;

static void container_body(int ready, void *userdata) {
        Container *x = userdata;
        unsigned char outcome = 0;
        pid_t inner;
        char c;

        if (unshare(CLONE_NEWNS | CLONE_NEWPID) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                _exit(100);
        inner = fork();         /* pid 1 of the new namespace */
        if (inner != 0) {
                waitpid(inner, NULL, 0);
                _exit(0);
        }
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                _exit(101);
        (void) write(ready, "x", 1);
        while (read(x->cmds[0], &c, 1) == 1) {
                /* A look into it (another daemon's, a test's beside this
                 * one) holds it for a moment: busy for 2 s is held for good. */
                for (int i = 0; c == 'u' && i < 100; i++) {
                        outcome = umount("/proc") < 0 ? (unsigned char) errno : 0;
                        if (outcome != EBUSY)
                                break;
                        usleep(20 * 1000);
                }
                if (c != 'u')
                        outcome = mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ?
                                          (unsigned char) errno : 0;
                (void) write(x->results[1], &outcome, 1);
        }
        for (;;)
                pause();
}

static pid_t container_new(int *cmd, int *result) {
        Container x;
        pid_t pid;

        if (pipe(x.cmds) < 0 || pipe(x.results) < 0)
                abort();
        pid = fork_ready(container_body, &x);
        close(x.cmds[0]);
        close(x.results[1]);
        *cmd = x.cmds[1];
        *result = x.results[0];
        return pid;
}

/* The container's pid 1 does c: its outcome, or -1. */
static int container_do(int cmd, int result, char c) {
        unsigned char outcome;

        if (write(cmd, &c, 1) != 1 || read(result, &outcome, 1) != 1)
                return -1;
        return outcome;
}

static void write_or_die(const char *path, const char *s) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);

        if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t) strlen(s))
                _exit(102);
        close(fd);
}

/* uid 65534 in a user and mount namespace of its own (unshare -Urm),
 * mounting a tmpfs every 20 ms. */
static void churner_body(int ready, void *userdata) {
        become_nobody(NULL, 0);
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);        /* cleared by the uid change */
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
                _exit(101);
        write_or_die("/proc/self/setgroups", "deny");
        write_or_die("/proc/self/uid_map", "0 65534 1");
        write_or_die("/proc/self/gid_map", "0 65534 1");
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                _exit(103);
        (void) write(ready, "x", 1);
        /* Each one stays (stacked): a mount gone before the daemon reads
         * its event asks for no scan at all. */
        for (int i = 0;; i++) {
                if (i < 500 && mount("t", "/mnt", "tmpfs", 0, NULL) < 0)
                        _exit(104);
                usleep(20 * 1000);
        }
}

static pid_t churner_new(void) {
        return fork_ready(churner_body, NULL);
}

/* Runs the loop for usec (the mounts' scans come on their own). */
static void run_for(sd_event *e, usec_t usec) {
        usec_t until = now_usec(CLOCK_MONOTONIC) + usec;

        while (now_usec(CLOCK_MONOTONIC) < until)
                if (sd_event_run(e, until - now_usec(CLOCK_MONOTONIC)) < 0)
                        break;
}

static int run(void);

/* The test runs as pid 1 of a pid namespace of its own, with a /proc of
 * its own: the scans see its containers only, not those of the tests run
 * beside it. A child makes the namespace and waits for pid 1: no process
 * that lives on after that pid 1 may be in it (LeakSanitizer, at exit,
 * starts a thread of its own, which needs a living pid 1). */
static int wait_exit(pid_t pid) {
        int status;

        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
                return EXIT_FAILURE;
        return WEXITSTATUS(status);
}

int main(void) {
        pid_t maker;

        if (geteuid() != 0) {
                tap_skip("needs root: namespaces of its own, and looks that take another process's credentials");
                return tap_done();
        }
        fflush(stdout);
        maker = fork();
        if (maker == 0) {
                pid_t pid;

                if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
                        perror("unshare");
                        _exit(EXIT_FAILURE);
                }
                pid = fork();
                if (pid == 0) {
                        if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
                                perror("mount /proc");
                                _exit(EXIT_FAILURE);
                        }
                        exit(run());
                }
                _exit(wait_exit(pid));
        }
        return wait_exit(maker);
}

static int run(void) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        ContainerWatch *w = NULL;
        char *patterns[] = { "/proc/vmstat", "/proc/zoneinfo", NULL };
        const ProcInstances *p;
        ProcFileId ids[2] = {};
        uint64_t looks;
        size_t before;
        int cmd, result, n_changes;
        uint64_t scans;
        pid_t c, churner;

        if (sd_event_new(&e) < 0 ||
            container_watch_new(e, "/", on_changed, NULL, &w) < 0 || container_watch_set_patterns(w, patterns) < 0)
                abort();

        container_watch_scan(w);
        ok(run_until_scans(e, w, 1), "a scan with no container of ours ends");
        before = container_watch_instances(w)->n;       /* none: only the test's processes are seen */
        changes = 0;

        c = container_new(&cmd, &result);
        container_watch_scan(w);
        ok(run_until_scans(e, w, 2), "a scan with a container ends");
        is_int((int) container_watch_instances(w)->n, (int) before + 1, "  its procfs is found");
        p = container_watch_instances(w);
        {
                const ProcInstance *x = &p->items[p->n - 1];
                struct stat st;

                ok(x->n_files == 2 && x->fds && fstat(x->fds[0], &st) >= 0 && S_ISREG(st.st_mode) &&
                           (uint64_t) st.st_dev == x->dev,
                   "  with its statistics files, open, on its own procfs");
                ok(x->n_files == 2 && streq(x->paths[0], "/proc/vmstat") && streq(x->paths[1], "/proc/zoneinfo"),
                   "  named as configured");
                ok(x->n_files == 2 && x->ids[0].dev == x->dev && x->ids[0].ino == (uint64_t) st.st_ino,
                   "  and known by their inodes");
                if (x->n_files == 2)
                        memcpy(ids, x->ids, sizeof ids);
        }
        is_int(changes, 1, "  the owner is told once");
        ok(container_watch_looks(w) > 0, "  each namespace was looked into by a child (%llu)",
           (unsigned long long) container_watch_looks(w));
        container_watch_files_marked(w);        /* what the owner does once it marked them */
        p = container_watch_instances(w);
        ok(p->n > 0 && p->items[p->n - 1].fds[0] < 0 && p->items[p->n - 1].fds[1] < 0,
           "once marked, the files' fds are closed");

        looks = container_watch_looks(w);
        container_watch_scan(w);
        ok(run_until_scans(e, w, 3), "a scan of the same namespaces ends");
        is_u64(container_watch_looks(w), looks, "  no child started: each answer still stands");
        is_int((int) container_watch_instances(w)->n, (int) before + 1, "  the container's instance is kept");
        p = container_watch_instances(w);
        ok(p->n > 0 && p->items[p->n - 1].n_files == 2 && p->items[p->n - 1].fds[0] < 0 &&
                   memcmp(p->items[p->n - 1].ids, ids, sizeof ids) == 0,
           "  with its files known by the same inodes, none open");
        is_int(changes, 1, "  and no change told");

        /* Every few scans each namespace is looked into again: its files
         * come back, and are to be marked again, though nothing seems to
         * have changed (a procfs mounted anew can have the same numbers,
         * and none of the old marks). */
        n_changes = changes;
        for (int i = 0; i < 10 && changes == n_changes; i++)
                (void) scan_now(e, w);
        is_int(changes, n_changes + 1,
               "within 10 scans the unchanged container is looked into again, its files given to be marked again");
        p = container_watch_instances(w);
        ok(p->n == before + 1 && p->items[p->n - 1].fds[0] >= 0, "  open again, until marked");
        container_watch_files_marked(w);

        /* Nothing of ours keeps its /proc mounted (an O_PATH fd would: EBUSY). */
        is_int(container_do(cmd, result, 'u'), 0, "the container's pid 1 can unmount its /proc (not EBUSY)");

        /* Mount events: uid 65534 mounting in a loop gets one scan per
         * MOUNT_SCAN_USER_GAP_USEC; root's mount is scanned for at once. */
        container_watch_listen_mounts(w);
        if (!container_watch_mount_events(w)) {
                printf("# %s\n", strnull(container_watch_mount_events_error(w)));
                tap_skip("no mount events on this kernel (before 6.14)");
        } else {
                container_watch_set_period(w, 3600 * USEC_PER_SEC);
                churner = churner_new();
                ok(scan_now(e, w), "a scan sees uid 65534's namespace");     /* and marks it */
                scans = container_watch_scans(w);
                looks = container_watch_looks(w);
                run_for(e, 2 * USEC_PER_SEC);
                ok(container_watch_scans(w) - scans <= 1,
                   "uid 65534 mounting every 20 ms for 2 s: %llu scan(s), at most 1",
                   (unsigned long long) (container_watch_scans(w) - scans));
                ok(container_watch_looks(w) - looks <= 1, "  looking again only into its namespace: %llu look(s)",
                   (unsigned long long) (container_watch_looks(w) - looks));
                scans = container_watch_scans(w);
                n_changes = changes;
                is_int(container_do(cmd, result, 'm'), 0, "root's container mounts its /proc again");
                ok(run_until_scans(e, w, scans + 1) && container_watch_scans(w) - scans <= 2,
                   "  a scan follows (within the timer's second), though uid 65534's are held back");
                ok(container_watch_instances(w)->n == before + 1 && changes == n_changes + 1,
                   "  finds it, and tells the owner to mark it (a new superblock, whatever its numbers)");
                kill(churner, SIGKILL);
                waitpid(churner, NULL, 0);
                /* Its namespace goes on the kernel's time: scans until one
                 * changes nothing, so that what follows is the container's. */
                for (int i = 0; i < 20; i++) {
                        int before_scan = changes;

                        if (!scan_now(e, w) || changes == before_scan)
                                break;
                }
        }

        n_changes = changes;
        kill(c, SIGKILL);       /* its pid 1 follows (PR_SET_PDEATHSIG) */
        waitpid(c, NULL, 0);
        /* Until the scan finds it gone: the kill reaches pid 1 on its own time. */
        for (int i = 0; i < 20 && container_watch_instances(w)->n > before; i++) {
                if (!scan_now(e, w))
                        break;
        }
        is_int((int) container_watch_instances(w)->n, (int) before, "after the container went, its instance is dropped");
        /* At least once: the churner's namespaces, or another test's, may
         * go on the kernel's time during these scans too. */
        ok(changes >= n_changes + 1, "  and the owner told (%d change(s))", changes - n_changes);

        container_watch_free(w);
        return tap_done();
}
