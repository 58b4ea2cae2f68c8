/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What older systems lack, provided here: Debian 11's glibc 2.31 has no
 * wrapper for system calls its 5.10 kernel has (pidfds, close_range(),
 * openat2()), nor sigabbrev_np(), and its 5.10 headers lack
 * FUSE_SUPER_MAGIC. configure.ac checks each (config.h). The system call
 * numbers are the same on every architecture since Linux 5.1. (What
 * libsystemd lacks is in event-util.h.) */

#include <errno.h>
#include <linux/magic.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef HAVE_SYS_PIDFD_H
#include <sys/pidfd.h>
#endif

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546  /* Linux 5.11's headers */
#endif
#ifndef P_PIDFD
#define P_PIDFD ((idtype_t) 3)
#endif

#ifndef HAVE_PIDFD_OPEN
static inline int pidfd_open(pid_t pid, unsigned int flags) {
        return (int) syscall(SYS_pidfd_open, pid, flags);
}
#endif

#ifndef HAVE_PIDFD_SEND_SIGNAL
static inline int pidfd_send_signal(int pidfd, int sig, siginfo_t *info, unsigned int flags) {
        return (int) syscall(SYS_pidfd_send_signal, pidfd, sig, info, flags);
}
#endif

#ifndef HAVE_CLOSE_RANGE
static inline int close_range(unsigned int first, unsigned int last, int flags) {
        return (int) syscall(SYS_close_range, first, last, flags);
}
#endif

#ifndef HAVE_SIGABBREV_NP
/* The names of the signals the daemon handles; NULL for others, as glibc. */
static inline const char *sigabbrev_np(int sig) {
        switch (sig) {
        case SIGHUP: return "HUP";
        case SIGINT: return "INT";
        case SIGQUIT: return "QUIT";
        case SIGKILL: return "KILL";
        case SIGPIPE: return "PIPE";
        case SIGTERM: return "TERM";
        case SIGCHLD: return "CHLD";
        case SIGUSR1: return "USR1";
        case SIGUSR2: return "USR2";
        default: return NULL;
        }
}
#endif
