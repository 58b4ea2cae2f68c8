/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* make bench-idle's floor: the least a program can do that wakes once a
 * second and reads the files the daemon samples. It waits on a timerfd
 * through epoll, as sd-event does, and at each tick rereads each file
 * named from offset 0 through an fd kept open, as the daemon does. Runs
 * until killed; the bench reads its CPU time as it reads the daemon's.
 * Usage: tick FILE... */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define FILES_MAX 16

int main(int argc, char **argv) {
        struct itimerspec every_second = { .it_interval = { 1, 0 }, .it_value = { 1, 0 } };
        struct epoll_event ev = { .events = EPOLLIN };
        int fds[FILES_MAX], n = 0, ep, timer;
        char buf[65536];
        uint64_t expired;

        for (int i = 1; i < argc && n < FILES_MAX; i++) {
                fds[n] = open(argv[i], O_RDONLY | O_CLOEXEC);
                if (fds[n] < 0) {
                        perror(argv[i]);
                        return 1;
                }
                n++;
        }
        ep = epoll_create1(EPOLL_CLOEXEC);
        timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (ep < 0 || timer < 0 || timerfd_settime(timer, 0, &every_second, NULL) < 0 ||
            epoll_ctl(ep, EPOLL_CTL_ADD, timer, &ev) < 0) {
                perror("timer");
                return 1;
        }
        for (;;) {
                if (epoll_wait(ep, &ev, 1, -1) < 0 || read(timer, &expired, sizeof expired) < 0)
                        continue;
                for (int i = 0; i < n; i++)
                        /* One read each: a short read ends a file outside
                         * procfs' seq files, as the bench's tree's are. */
                        if (pread(fds[i], buf, sizeof buf, 0) < 0)
                                return 1;
        }
}
