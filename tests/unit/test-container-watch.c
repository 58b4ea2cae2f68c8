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
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "container-watch.h"
#include "macro.h"
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

/* A container: new mount and pid namespaces, a procfs of its own at
 * /proc, waiting. At SIGUSR1 its pid 1 unmounts /proc and writes the
 * outcome (0 or an errno) to *umount_result. */
static pid_t container_new(int *umount_result) {
        int ready[2], result[2];
        char c;
        pid_t pid;

        if (pipe(ready) < 0 || pipe(result) < 0)
                abort();
        pid = fork();
        if (pid == 0) {
                pid_t inner;

                if (unshare(CLONE_NEWNS | CLONE_NEWPID) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                        _exit(100);
                inner = fork();         /* pid 1 of the new namespace */
                if (inner == 0) {
                        sigset_t usr1;
                        int sig;
                        unsigned char outcome;

                        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                        sigemptyset(&usr1);
                        sigaddset(&usr1, SIGUSR1);
                        (void) sigprocmask(SIG_BLOCK, &usr1, NULL);
                        if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                                _exit(101);
                        (void) write(ready[1], "x", 1);
                        if (sigwait(&usr1, &sig) == 0) {
                                outcome = umount("/proc") < 0 ? (unsigned char) errno : 0;
                                (void) write(result[1], &outcome, 1);
                        }
                        for (;;)
                                pause();
                }
                waitpid(inner, NULL, 0);
                _exit(0);
        }
        close(ready[1]);
        close(result[1]);
        if (read(ready[0], &c, 1) != 1)
                abort();
        close(ready[0]);
        *umount_result = result[0];
        return pid;
}

/* pid 1 of the container c (its only child). */
static pid_t container_init(pid_t c) {
        _cleanup_fclose_ FILE *f = NULL;
        char path[64];
        int pid = 0;

        snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int) c, (int) c);
        f = fopen(path, "re");
        if (!f || fscanf(f, "%d", &pid) != 1)
                return -1;
        return (pid_t) pid;
}

int main(void) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        ContainerWatch *w = NULL;
        char *patterns[] = { "/proc/vmstat", "/proc/zoneinfo", NULL };
        const ProcInstances *p;
        ProcFileId ids[2] = {};
        uint64_t looks;
        size_t before;
        unsigned char outcome = 0xff;
        int umount_result;
        pid_t c;

        if (geteuid() != 0) {
                tap_skip("needs root: namespaces of its own, and looks that take another process's credentials");
                return tap_done();
        }
        if (sd_event_new(&e) < 0 ||
            container_watch_new(e, "/", on_changed, NULL, &w) < 0 || container_watch_set_patterns(w, patterns) < 0)
                abort();

        container_watch_scan(w);
        ok(run_until_scans(e, w, 1), "a scan with no container of ours ends");
        before = container_watch_instances(w)->n;       /* the machine's own, if any */
        changes = 0;

        c = container_new(&umount_result);
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

        /* Nothing of ours keeps its /proc mounted (an O_PATH fd would: EBUSY). */
        ok(kill(container_init(c), SIGUSR1) == 0 && read(umount_result, &outcome, 1) == 1,
           "the container's pid 1 unmounts its /proc");
        is_int(outcome, 0, "  and can (not EBUSY)");
        close(umount_result);

        kill(c, SIGKILL);       /* its pid 1 follows (PR_SET_PDEATHSIG) */
        waitpid(c, NULL, 0);
        /* Until the scan finds it gone: the kill reaches pid 1 on its own time. */
        for (uint64_t n = 4; n < 4 + 20 && container_watch_instances(w)->n > before; n++) {
                container_watch_scan(w);
                if (!run_until_scans(e, w, n))
                        break;
        }
        is_int((int) container_watch_instances(w)->n, (int) before, "after the container went, its instance is dropped");
        is_int(changes, 2, "  and the owner told");

        container_watch_free(w);
        return tap_done();
}
