/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Children the tests start and wait for: set up (a process of another
 * user, a container), then told ready through a pipe. */

#include <grp.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

/* Forks; the child runs body(ready, userdata), which writes one byte to
 * ready once it is set up (any process it forks may) and does not return
 * (it is _exit()ed if it does). Returns the child's pid once that byte
 * came; aborts if it never does. */
static inline pid_t fork_ready(void (*body)(int ready, void *userdata), void *userdata) {
        int ready[2];
        char c;
        pid_t pid;

        if (pipe(ready) < 0)
                abort();
        pid = fork();
        if (pid < 0)
                abort();
        if (pid == 0) {
                close(ready[0]);
                body(ready[1], userdata);
                _exit(127);
        }
        close(ready[1]);
        if (read(ready[0], &c, 1) != 1)
                abort();
        close(ready[0]);
        return pid;
}

/* In a child: uid and gid 65534, with groups (n of them, maybe none), and
 * dumpable again (set-id changes made it not; a user's process is), or
 * _exit(100). */
static inline void become_nobody(const gid_t *groups, size_t n) {
        if (setgroups(n, groups) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
                _exit(100);
        (void) prctl(PR_SET_DUMPABLE, 1);
}
