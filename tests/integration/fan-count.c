/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fan-count READY PID FILE...: counts reads of FILEs as fanotify reports
 * them to a group of its own (FAN_ACCESS marks, as the daemon's): creates
 * READY once marked, then on SIGTERM prints "PID N" (the reads by PID)
 * and "others N". Needs root. Tells a test whether a process's reads of a
 * file are reported at all. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig) {
        stop = 1;
}

int main(int argc, char **argv) {
        struct sigaction sa = { .sa_handler = on_term };
        unsigned long by_pid = 0, others = 0;
        char buf[8192];
        pid_t pid;
        int fan, ready;

        if (argc < 4) {
                fprintf(stderr, "usage: fan-count READY PID FILE...\n");
                return 2;
        }
        pid = (pid_t) strtol(argv[2], NULL, 10);
        fan = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY | O_CLOEXEC);
        if (fan < 0) {
                perror("fanotify_init");
                return 1;
        }
        for (int i = 3; i < argc; i++)
                if (fanotify_mark(fan, FAN_MARK_ADD, FAN_ACCESS, AT_FDCWD, argv[i]) < 0) {
                        perror(argv[i]);
                        return 1;
                }
        /* No SA_RESTART: the signal ends the blocking read. */
        sigaction(SIGTERM, &sa, NULL);
        ready = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (ready < 0) {
                perror(argv[1]);
                return 1;
        }
        close(ready);
        while (!stop) {
                ssize_t n = read(fan, buf, sizeof buf);
                const struct fanotify_event_metadata *m = (const void *) buf;

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        perror("read");
                        return 1;
                }
                for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
                        if (m->fd >= 0)
                                close(m->fd);
                        if (m->pid == pid)
                                by_pid++;
                        else
                                others++;
                }
        }
        printf("%d %lu\nothers %lu\n", (int) pid, by_pid, others);
        return 0;
}
