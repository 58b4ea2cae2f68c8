/* fanotify-probe: checks in a test VM that fanotify sees a reader of a proc or
 * sysfs file the way numastatd watches it (notification group, classic fd
 * mode, FAN_REPORT_PIDFD where the kernel has it).
 *
 *   fanotify-probe FILE
 *
 * Marks FILE, forks a child that reads it (and stays alive until the event is
 * in), waits up to 5 s for an event whose pid is the child's. Prints one line:
 *   "event pid=P mask=0xM pidfd=FD(pid P)|-1|none|unsupported"
 * (unsupported: fanotify_init refused FAN_REPORT_PIDFD; none: no pidfd record;
 * -1: FAN_NOPIDFD)
 * Exit status: 0 seen, 1 not seen, 2 fanotify unusable (message on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fanotify-abi.h"     /* lib/: the same fallbacks the daemon uses */

int main(int argc, char **argv)
{
        const char *path;
        int fd, pidfd_mode = 1, hold[2];
        pid_t child;
        char buf[8192] __attribute__((aligned(8)));
        time_t deadline;

        if (argc != 2) {
                fprintf(stderr, "usage: fanotify-probe FILE\n");
                return 2;
        }
        path = argv[1];
        fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_PIDFD, O_RDONLY | O_CLOEXEC);
        if (fd < 0 && errno == EINVAL) {
                pidfd_mode = 0; /* before 5.15 */
                fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY | O_CLOEXEC);
        }
        if (fd < 0) {
                fprintf(stderr, "fanotify_init: %s\n", strerror(errno));
                return 2;
        }
        if (fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN | FAN_ACCESS | FAN_CLOSE_NOWRITE, AT_FDCWD, path) < 0) {
                fprintf(stderr, "fanotify_mark %s: %s\n", path, strerror(errno));
                return 2;
        }
        if (pipe(hold) < 0) {
                perror("pipe");
                return 2;
        }
        child = fork();
        if (child < 0) {
                perror("fork");
                return 2;
        }
        if (child == 0) {
                char b[4096];
                int rfd = open(path, O_RDONLY);
                if (rfd < 0)
                        _exit(1);
                while (read(rfd, b, sizeof b) > 0)
                        ;
                close(rfd);
                /* stay alive until the parent has the event, so a pidfd can be made */
                close(hold[1]);
                (void)read(hold[0], b, 1);
                _exit(0);
        }
        close(hold[0]);

        deadline = time(NULL) + 5;
        while (time(NULL) < deadline) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                ssize_t len;
                struct fanotify_event_metadata *m;

                if (poll(&p, 1, 1000) <= 0)
                        continue;
                len = read(fd, buf, sizeof buf);
                if (len <= 0)
                        continue;
                for (m = (void *)buf; FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len)) {
                        char pidfd_s[32] = "unsupported";
                        char *info = (char *)m + m->metadata_len;

                        if (pidfd_mode)
                                snprintf(pidfd_s, sizeof pidfd_s, "none");
                        while (info + sizeof(struct fanotify_event_info_header) <= (char *)m + m->event_len) {
                                struct fanotify_event_info_header *h = (void *)info;
                                if (h->len == 0)
                                        break;
                                if (h->info_type == FAN_EVENT_INFO_TYPE_PIDFD) {
                                        int pfd = ((struct fanotify_event_info_pidfd *)h)->pidfd;
                                        snprintf(pidfd_s, sizeof pidfd_s, "%d", pfd);
                                        if (pfd >= 0) {
                                                /* a pidfd's fdinfo says whose it is */
                                                char fi[64], line[128];
                                                FILE *f;
                                                snprintf(fi, sizeof fi, "/proc/self/fdinfo/%d", pfd);
                                                f = fopen(fi, "r");
                                                while (f && fgets(line, sizeof line, f))
                                                        if (strncmp(line, "Pid:", 4) == 0)
                                                                snprintf(pidfd_s, sizeof pidfd_s, "%d(pid %d)",
                                                                         pfd, atoi(line + 4));
                                                if (f)
                                                        fclose(f);
                                                close(pfd);
                                        }
                                }
                                info += h->len;
                        }
                        if (m->fd >= 0)
                                close(m->fd);
                        if (m->pid == child) {
                                printf("event pid=%d mask=0x%llx pidfd=%s\n", (int)m->pid,
                                       (unsigned long long)m->mask, pidfd_s);
                                close(hold[1]);
                                waitpid(child, NULL, 0);
                                return 0;
                        }
                }
        }
        close(hold[1]);
        waitpid(child, NULL, 0);
        printf("no event from pid %d within 5 s\n", (int)child);
        return 1;
}
