/* A FUSE server that answers its mount and nothing else: every lookup,
 * getattr, statfs or open sent to it by anyone but its own child waits
 * forever. What a hostile user with fusermount3 and user_allow_other can
 * put in front of a root daemon (the kernel lets root into a user's FUSE
 * mount only with allow_other, and never into one made in a user
 * namespace).
 *
 *   fuse-stall MODE DIR READY [FILE]
 *
 * MODE root: mounts at DIR; a child takes DIR as its root, drops to uid
 *            65534 and, if FILE is given (opened before the chroot),
 *            pread()s it every 200 ms: a reader whose root is the mount.
 * MODE exe:  mounts at DIR a file "reader", a copy of this program, served
 *            to the child alone; the child runs it as uid 65534 to pread()
 *            FILE (opened before) every 200 ms: a reader whose executable
 *            is the mount's.
 * MODE proc, sys: mounts over /proc, or over /sys with a procfs of its
 *            own at /proc (DIR unused): a container whose statistics files
 *            are the server's.
 * MODE overlay: what any user can do in a user namespace of their own
 *            (unshare -Urm; Linux >= 5.11), no allow_other needed: mounts
 *            at DIR/lower, then an overlay of DIR/top over it at
 *            DIR/merged, whose lookups reach the server with the
 *            overlay's mounter's credentials; a child takes DIR/merged as
 *            its root and pread()s FILE every 200 ms. The child's own
 *            requests (mounting, taking the root) are answered.
 * MODE overlay-ns: the same, the child in a mount namespace of its own
 *            (the only process there): the daemon's container scan looks
 *            into that namespace through it, so in that root.
 * Always in a mount namespace of its own. Once mounted and initialised it
 * creates READY. Each request it leaves unanswered is printed on stdout
 * as "stalled OPCODE pid PID". */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define READER_INODE 2
#define MAX_READ (128 * 1024)

static void die(const char *what) {
        perror(what);
        exit(1);
}

static void reply(int fd, uint64_t unique, int error, const void *data, size_t size) {
        static char buf[sizeof(struct fuse_out_header) + MAX_READ];
        struct fuse_out_header out = {
                .len = (uint32_t) (sizeof out + size), .error = error, .unique = unique
        };

        memcpy(buf, &out, sizeof out);
        if (size)
                memcpy(buf + sizeof out, data, size);
        if (write(fd, buf, sizeof out + size) < 0 && errno != ENOENT)
                die("write /dev/fuse");
}

_Noreturn static void read_forever(int fd) {
        char buf[256];

        for (;;) {
                if (fd >= 0 && pread(fd, buf, sizeof buf, 0) < 0)
                        die("pread");
                usleep(200 * 1000);
        }
}

static void drop_to_nobody(void) {
        if (setgid(65534) < 0 || setuid(65534) < 0)
                die("setuid");
}

static void attr_of(struct fuse_attr *a, uint64_t ino, const struct stat *st) {
        *a = (struct fuse_attr) {
                .ino = ino,
                .size = ino == READER_INODE ? (uint64_t) st->st_size : 0,
                .blocks = ino == READER_INODE ? (uint64_t) st->st_blocks : 0,
                .mode = ino == READER_INODE ? S_IFREG | 0755 : S_IFDIR | 0755,
                .nlink = ino == READER_INODE ? 1 : 2,
                .uid = 65534,
                .gid = 65534,
                .blksize = 4096,
        };
}

/* The child's requests in overlay mode: enough to mount the overlay (the
 * lower layer's root, empty) and take it as its root. */
static void serve_overlay(int fd, const struct fuse_in_header *in) {
        switch (in->opcode) {
        case FUSE_STATFS: {
                struct fuse_statfs_out o = { .st = { .bsize = 4096, .namelen = 255, .frsize = 4096 } };

                reply(fd, in->unique, 0, &o, sizeof o);
                return;
        }
        case FUSE_GETATTR: {
                struct fuse_attr_out a = { .attr = { .ino = FUSE_ROOT_ID, .mode = S_IFDIR | 0755, .nlink = 2,
                                                     .blksize = 4096 } };

                reply(fd, in->unique, 0, &a, sizeof a);
                return;
        }
        case FUSE_LOOKUP:
                reply(fd, in->unique, -ENOENT, NULL, 0);
                return;
        default:
                reply(fd, in->unique, -ENOSYS, NULL, 0);
                return;
        }
}

/* The child's requests in exe mode: enough to exec the one file. */
static void serve_child(int fd, const struct fuse_in_header *in, int selffd, const struct stat *self) {
        switch (in->opcode) {
        case FUSE_LOOKUP: {
                struct fuse_entry_out e = { .nodeid = READER_INODE };

                if (in->nodeid != FUSE_ROOT_ID || strcmp((const char *) (in + 1), "reader") != 0) {
                        reply(fd, in->unique, -ENOENT, NULL, 0);
                        return;
                }
                attr_of(&e.attr, READER_INODE, self);
                reply(fd, in->unique, 0, &e, sizeof e);
                return;
        }
        case FUSE_GETATTR: {
                struct fuse_attr_out a = {};

                attr_of(&a.attr, in->nodeid, self);
                reply(fd, in->unique, 0, &a, sizeof a);
                return;
        }
        case FUSE_OPEN: {
                struct fuse_open_out o = { .fh = 1, .open_flags = FOPEN_KEEP_CACHE };

                reply(fd, in->unique, 0, &o, sizeof o);
                return;
        }
        case FUSE_READ: {
                const struct fuse_read_in *r = (const void *) (in + 1);
                static char data[MAX_READ];
                ssize_t n = pread(selffd, data, r->size < MAX_READ ? r->size : MAX_READ, (off_t) r->offset);

                reply(fd, in->unique, n < 0 ? -EIO : 0, data, n < 0 ? 0 : (size_t) n);
                return;
        }
        case FUSE_FLUSH:
        case FUSE_RELEASE:
                reply(fd, in->unique, 0, NULL, 0);
                return;
        default:
                reply(fd, in->unique, -ENOSYS, NULL, 0);
                return;
        }
}

static bool is_overlay(const char *mode) {
        return strcmp(mode, "overlay") == 0 || strcmp(mode, "overlay-ns") == 0;
}

/* Mounts the overlay, says it is ready, and reads file with it as root
 * (in a mount namespace of its own, with own_ns). */
_Noreturn static void overlay_reader(const char *dir, const char *ready, const char *file, bool own_ns) {
        char opts[8300], merged[4096];
        int rfd = file ? open(file, O_RDONLY | O_CLOEXEC) : -1;

        if (file && rfd < 0)
                die(file);
        snprintf(opts, sizeof opts, "lowerdir=%s/top:%s/lower", dir, dir);
        snprintf(merged, sizeof merged, "%s/merged", dir);
        if (mount("overlay", merged, "overlay", 0, opts) < 0)
                die("mount overlay");
        if (own_ns && unshare(CLONE_NEWNS) < 0)
                die("unshare");
        if (close(open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
                die(ready);
        if (chroot(merged) < 0 || chdir("/") < 0)
                die("chroot");
        read_forever(rfd);
}

int main(int argc, char **argv) {
        static char buf[FUSE_MIN_READ_BUFFER + MAX_READ];
        const char *mode, *dir, *ready, *file;
        pid_t child = 0;
        struct stat self;
        char opts[128];
        int fd, selffd;

        if (argc == 3 && strcmp(argv[1], "--read-fd") == 0)
                read_forever(atoi(argv[2]));
        if (argc < 4 || argc > 5) {
                fprintf(stderr, "usage: fuse-stall root|exe|proc|sys|overlay|overlay-ns DIR READY [FILE]\n");
                return 2;
        }
        mode = argv[1];
        dir = argv[2];
        ready = argv[3];
        file = argc == 5 ? argv[4] : NULL;
        selffd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        if (selffd < 0 || fstat(selffd, &self) < 0)
                die("/proc/self/exe");
        /* A mount namespace of its own: the mount goes with its last process. */
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                die("unshare");
        if (strcmp(mode, "proc") == 0)
                dir = "/proc";
        else if (strcmp(mode, "sys") == 0) {
                /* A procfs of its own too: a container, which the daemon
                 * looks into (the host's procfs is the host's). */
                if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                        die("mount proc");
                dir = "/sys";
        } else if (is_overlay(mode)) {
                static char lower[4096], top[4096], merged[4096];

                snprintf(lower, sizeof lower, "%s/lower", dir);
                snprintf(top, sizeof top, "%s/top", dir);
                snprintf(merged, sizeof merged, "%s/merged", dir);
                if ((mkdir(lower, 0755) < 0 && errno != EEXIST) || (mkdir(top, 0755) < 0 && errno != EEXIST) ||
                    (mkdir(merged, 0755) < 0 && errno != EEXIST))
                        die("mkdir");
                dir = lower;
        } else if (strcmp(mode, "root") != 0 && strcmp(mode, "exe") != 0) {
                fprintf(stderr, "fuse-stall: unknown mode %s\n", mode);
                return 2;
        }
        fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
        if (fd < 0)
                die("/dev/fuse");
        if (is_overlay(mode))
                snprintf(opts, sizeof opts, "fd=%d,rootmode=40755,user_id=%u,group_id=%u", fd, (unsigned) getuid(),
                         (unsigned) getgid());
        else
                snprintf(opts, sizeof opts, "fd=%d,rootmode=40755,user_id=65534,group_id=65534,allow_other", fd);
        if (mount("fuse-stall", dir, "fuse.stall", MS_NOSUID | MS_NODEV, opts) < 0)
                die("mount");
        setvbuf(stdout, NULL, _IOLBF, 0);
        for (;;) {
                struct fuse_in_header *in = (struct fuse_in_header *) buf;
                ssize_t n = read(fd, buf, sizeof buf);

                if (n < 0 && (errno == EINTR || errno == ENOENT))
                        continue;       /* ENOENT: a request interrupted before we read it */
                if (n < 0)
                        die("read /dev/fuse");
                if ((size_t) n < sizeof *in)
                        continue;
                if (in->opcode == FUSE_INIT) {
                        const struct fuse_init_in *ii = (const void *) (in + 1);
                        struct fuse_init_out io = {
                                .major = FUSE_KERNEL_VERSION,
                                .minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ? ii->minor : FUSE_KERNEL_MINOR_VERSION,
                                .max_readahead = ii->max_readahead,
                                .max_write = 4096,
                                .max_background = 16,
                                .congestion_threshold = 12,
                                .time_gran = 1,
                        };
                        char path[4200];

                        reply(fd, in->unique, 0, &io, sizeof io);
                        snprintf(path, sizeof path, "%s/reader", dir);
                        if (is_overlay(mode)) {
                                child = fork();
                                if (child < 0)
                                        die("fork");
                                if (child > 0)
                                        continue;       /* the child says when it is ready */
                                overlay_reader(argv[2], ready, file, strcmp(mode, "overlay-ns") == 0);
                        }
                        if (strcmp(mode, "root") == 0 || strcmp(mode, "exe") == 0) {
                                child = fork();
                                if (child < 0)
                                        die("fork");
                        }
                        if (child == 0 && strcmp(mode, "root") == 0) {
                                int rfd = file ? open(file, O_RDONLY | O_CLOEXEC) : -1;

                                if (file && rfd < 0)
                                        die(file);
                                if (chroot(dir) < 0 || chdir("/") < 0)
                                        die("chroot");
                                drop_to_nobody();
                                read_forever(rfd);
                        }
                        if (child == 0 && strcmp(mode, "exe") == 0) {
                                /* Opened as root: the tree's files need not be readable to 65534. */
                                int rfd = open(file ? file : "/dev/null", O_RDONLY);
                                char arg[16];

                                if (rfd < 0)
                                        die(file);
                                snprintf(arg, sizeof arg, "%d", rfd);
                                drop_to_nobody();
                                execl(path, "reader", "--read-fd", arg, (char *) NULL);
                                die(path);
                        }
                        if (close(open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
                                die(ready);
                        continue;
                }
                if (in->opcode == FUSE_FORGET || in->opcode == FUSE_BATCH_FORGET || in->opcode == FUSE_INTERRUPT)
                        continue;       /* no answer expected */
                if (in->opcode == FUSE_ACCESS) {
                        /* "not implemented": the kernel stops asking, and
                         * lets the child chroot here. */
                        reply(fd, in->unique, -ENOSYS, NULL, 0);
                        continue;
                }
                if (child > 0 && (pid_t) in->pid == child && is_overlay(mode)) {
                        serve_overlay(fd, in);
                        continue;
                }
                if (child > 0 && (pid_t) in->pid == child && strcmp(mode, "exe") == 0) {
                        serve_child(fd, in, selffd, &self);
                        continue;
                }
                printf("stalled %u pid %u\n", in->opcode, in->pid);
        }
}
