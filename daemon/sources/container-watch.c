/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "container-watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "event-util.h"
#include "log.h"
#include "macro.h"
#include "parsers.h"
#include "readers.h"
#include "mountwatch.h"
#include "owner.h"
#include "rootfs.h"
#include "time-util.h"

#define MOUNT_SETTLE_USEC (100 * USEC_PER_MSEC)         /* a container's mounts come in a burst */
#define MOUNT_SCAN_DEADLINE_USEC (500 * USEC_PER_MSEC)  /* ...but a burst delays the scan no longer */
/* Scans one user's mounts ask for, at most one per this: anyone can mount
 * in a namespace of their own, in a loop. Root's (uid 0) are not held. */
#define MOUNT_SCAN_USER_GAP_USEC (5 * USEC_PER_SEC)
#define MOUNT_BUCKETS 32                /* owners told apart; the rest share one */
#define DIRTY_MAX 256                   /* namespaces mounted in, told apart; beyond, all of their owner's */
#define DIRTY_OWNERS_MAX 32             /* owners all of whose namespaces are looked into again; beyond, all */
/* A scan asks no new look past this: the rest keep what they had. */
#define SCAN_BUDGET_USEC (5 * USEC_PER_SEC)

/* Namespaces looked into in one scan: root's all (owner.h), and at most
 * this many of any other owner (one user's subordinate uids are one), the
 * rest keeping what they had: anyone can make thousands. What is still
 * over SCAN_QUEUE_MAX (many users) is cut, never root's. */
#define SCAN_OWNER_MAX (PROC_INSTANCES_MAX / 2)
#define SCAN_QUEUE_MAX 4096
/* Looks at once, one of them only for root's namespaces, and for one
 * other owner; children killed at their deadline but not gone yet, kept
 * on top. The unit's TasksMax= counts them all. */
#define SCAN_LOOKS 3
#define SCAN_ROOT_LOOKS 1
#define SCAN_LOOKS_PER_OWNER 2
#define SCAN_LINGER 2
/* No read waits for a scan's look: a busy host gets longer than a reader's. */
#define SCAN_LOOK_DEADLINE_USEC USEC_PER_SEC

/* A look's answer stands while the same process stands for its namespace
 * and no mount event came, for this many scans: mount events (Linux 6.14
 * and later) tell of a procfs mounted there later; without them, a look
 * every few scans finds it. */
#define MEMO_SCANS 5

typedef struct ScanItem ScanItem;

/* Mount events of one owner (-1: owners beyond the table, and those
 * sharing mountwatch's last group). */
typedef struct MountBucket {
        uid_t uid;
        bool pending;                   /* events since its last scan */
        usec_t burst_since, last_event, last_scan;      /* CLOCK_MONOTONIC */
} MountBucket;

/* Where mounts came since a scan began: namespaces, owners all of whose
 * namespaces (the kernel could not tell which, or too many), the owners
 * that share mountwatch's last group, or everything (the host's own
 * mounts propagate anywhere). */
typedef struct DirtySet {
        uint64_t ns[DIRTY_MAX];
        size_t n_ns;
        uid_t owners[DIRTY_OWNERS_MAX];
        size_t n_owners;
        bool shared, all;
} DirtySet;

typedef struct OwnerCount {
        uid_t owner;
        size_t n;
} OwnerCount;

typedef struct NsMemo {
        uint64_t ns;
        pid_t pid;
        uint64_t start;         /* of pid: the same process */
        bool found;
        uint64_t dev;           /* ...the instance it found */
        unsigned scan;          /* the scan that looked */
} NsMemo;

struct ContainerWatch {
        char *root;
        ProcInstances instances;
        sd_event *event;
        sd_event_source *timer;
        usec_t period;                  /* 0: no scans */
        uint64_t scans;
        usec_t cost;
        uint64_t scanned_at;
        MountWatch *mounts;             /* NULL: no mount events */
        char *mounts_error;
        MountBucket buckets[MOUNT_BUCKETS];
        size_t n_buckets;
        DirtySet dirty;                 /* mounted in since the last scan began */
        usec_t periodic_at;             /* CLOCK_MONOTONIC: the next periodic scan */
        ContainerWatchChanged changed;
        void *userdata;

        Inspector *inspector;           /* our own: a scan's looks do not take readers' places */
        char **patterns;                /* the statistics files, as configured */
        bool scanning, again;
        unsigned scan_id;
        usec_t scan_began;
        DirtySet scan_dirty;            /* what the scan under way looks into again */
        uint64_t skip[3];               /* the host's procfs superblocks */
        size_t n_skip;
        uint64_t own_user_ns;
        uint64_t host_mntns[2];         /* ours and pid 1's */
        ScanItem **queue;               /* namespaces to look into */
        size_t n_queue, next, pending;
        OwnerCount *owners;             /* ...how many of each owner's so far */
        size_t n_owners;
        uint64_t *seen_ns;              /* every namespace the scan saw, for the mount marks */
        size_t n_seen_ns;
        ProcInstances found;            /* ...what the looks found so far */
        bool found_oom;
        uint64_t *unanswered;           /* namespaces whose look gave no answer: their instance stays */
        size_t n_unanswered;
        NsMemo *memo, *next_memo;       /* answers that stand; the next scan's, being made */
        size_t n_memo, n_next_memo;
        uint64_t looks;                 /* children started, in all */
        size_t skipped, last_skipped;   /* namespaces left alone by the bounds, this scan's and the last's */
        bool budget_spent;              /* the scan under way ran out of time */
};

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);
static void on_look(Inspector *in, InspectOutcome outcome, const void *answer, int *fds, size_t n_fds, void *token,
                    void *userdata);
static void scan_item_free(void *p);
static void on_look_freed(Inspector *in, void *userdata);
static void mount_buckets_scanned(ContainerWatch *w);

int container_watch_new(sd_event *event, const char *root, ContainerWatchChanged changed, void *userdata,
                        ContainerWatch **ret) {
        ContainerWatch *w = calloc(1, sizeof *w);
        int r;

        if (!w)
                return -ENOMEM;
        *w = (ContainerWatch) { .event = sd_event_ref(event), .changed = changed, .userdata = userdata };
        w->root = strdup(root);
        r = w->root ? sd_event_add_time(event, &w->timer, CLOCK_MONOTONIC, USEC_INFINITY, 0, on_timer, w) : -ENOMEM;
        if (r >= 0)
                r = inspector_new(event,
                                  &(InspectLimits) { .slots = SCAN_LOOKS,
                                                     .root_slots = SCAN_ROOT_LOOKS,
                                                     .per_owner = SCAN_LOOKS_PER_OWNER,
                                                     .linger = SCAN_LINGER },
                                  on_look, scan_item_free, w, &w->inspector);
        if (r >= 0) {
                inspector_set_freed(w->inspector, on_look_freed);
                inspector_set_deadline(w->inspector, SCAN_LOOK_DEADLINE_USEC, 0);
        }
        if (r >= 0) {
                (void) sd_event_source_set_description(w->timer, "container-scan");
                r = sd_event_source_set_time_accuracy(w->timer, USEC_PER_SEC);  /* not urgent: coalesce */
        }
        if (r >= 0)
                r = sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
        if (r < 0) {
                container_watch_free(w);
                return r;
        }
        *ret = w;
        return 0;
}

ContainerWatch *container_watch_free(ContainerWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->timer);
        inspector_free(w->inspector);
        for (size_t i = w->next; i < w->n_queue; i++)
                scan_item_free(w->queue[i]);
        free(w->queue);
        free(w->owners);
        free(w->seen_ns);
        proc_instances_done(&w->found);
        free(w->unanswered);
        free(w->memo);
        free(w->next_memo);
        strv_free(w->patterns);
        mount_watch_free(w->mounts);
        free(w->mounts_error);
        proc_instances_done(&w->instances);
        sd_event_unref(w->event);
        free(w->root);
        free(w);
        return NULL;
}

/* ---- a scan: each namespace looked into by a child, off the loop ---- */

/* One namespace to look into, and what its process is. */
typedef struct ScanItem {
        ContainerWatch *w;
        unsigned scan;          /* the scan it was asked for */
        uint64_t ns;
        uid_t owner;            /* the namespace's (owner.h): whose share its look takes */
        size_t rank;            /* how many of its owner's came before it */
        pid_t pid;
        uint64_t start;
        ProcIds ids;            /* the process's, as seen now: what the look takes */
        bool in_user_ns;
        char *comm;
} ScanItem;

static void scan_item_free(void *p) {
        ScanItem *it = p;

        if (!it)
                return;
        free(it->comm);
        free(it);
}

/* What our own procfs and the kernel's namespace objects tell of pid,
 * nothing of its root: its ids, start time, comm and user namespace. */
static ScanItem *scan_item_new(ContainerWatch *w, uint64_t ns, pid_t pid, uid_t owner) {
        ScanItem *it = calloc(1, sizeof *it);
        char path[64];

        if (!it)
                return NULL;
        *it = (ScanItem) { .w = w, .scan = w->scan_id, .ns = ns, .owner = owner, .pid = pid };
        /* A process in the middle of a set-user-ID execution is not looked
         * through: its namespace keeps what it had. */
        if (process_ids(pid, &it->ids) < 0 || !proc_ids_settled(&it->ids))
                goto fail;
        if (process_start_time(pid, &it->start) < 0)
                goto fail;
        snprintf(path, sizeof path, "/" PID_FMT "/comm", pid);
        if (root_read_file("/proc", path, 64, &it->comm) >= 0)
                it->comm[strcspn(it->comm, "\n")] = '\0';
        it->in_user_ns = process_ns(pid, "user") != w->own_user_ns;
        return it;
fail:
        scan_item_free(it);
        return NULL;
}

/* Root's first (our own user namespace's before those root made), then
 * every other owner's in turns: each one's first before anyone's second. */
static int root_first(const void *a, const void *b) {
        const ScanItem *x = *(ScanItem * const *) a, *y = *(ScanItem * const *) b;

        if ((x->owner == 0) != (y->owner == 0))
                return x->owner == 0 ? -1 : 1;
        if (x->owner == 0 && x->in_user_ns != y->in_user_ns)
                return x->in_user_ns ? 1 : -1;
        if (x->owner != 0 && x->rank != y->rank)
                return x->rank < y->rank ? -1 : 1;
        if (x->owner != y->owner)
                return x->owner < y->owner ? -1 : 1;
        return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static bool memo_stands(ContainerWatch *w, const ScanItem *it);
static void unanswered_add(ContainerWatch *w, uint64_t ns);

/* How many of owner's namespaces the scan has taken so far (counted). */
static size_t owner_take(ContainerWatch *w, uid_t owner) {
        OwnerCount *a;

        for (size_t i = 0; i < w->n_owners; i++)
                if (w->owners[i].owner == owner)
                        return w->owners[i].n++;
        a = reallocarray(w->owners, w->n_owners + 1, sizeof *a);
        if (!a)
                return SIZE_MAX;
        w->owners = a;
        w->owners[w->n_owners++] = (OwnerCount) { .owner = owner, .n = 1 };
        return 0;
}

static void seen_ns_add(ContainerWatch *w, uint64_t ns) {
        uint64_t *a = reallocarray(w->seen_ns, w->n_seen_ns + 1, sizeof *a);

        if (a) {
                w->seen_ns = a;
                w->seen_ns[w->n_seen_ns++] = ns;
        }
}

/* Each namespace the scan can see: whose it is first (root's are always
 * taken, another owner's up to SCAN_OWNER_MAX, the rest keep what they
 * had, costing nothing more); a mount-event mark (once), so that a procfs
 * mounted there later is found at once; and a look, unless the last
 * answer stands. */
static void collect_ns(uint64_t ns, pid_t pid, void *userdata) {
        ContainerWatch *w = userdata;
        ScanItem *it, **a;
        uid_t owner;
        size_t rank;

        if (mntns_owner(pid, &owner) < 0)
                owner = (uid_t) -1;     /* gone, or cannot be told: anyone's, never root's */
        rank = owner_take(w, owner);
        /* Beyond its share: not looked into, and what it had goes (an
         * owner's instances stay within the share). */
        if (owner != 0 && rank >= SCAN_OWNER_MAX) {
                w->skipped++;
                return;
        }
        seen_ns_add(w, ns);
        if (w->mounts)
                (void) mount_watch_add(w->mounts, pid, ns, owner);
        a = reallocarray(w->queue, w->n_queue + 1, sizeof *a);
        if (!a)
                return;
        w->queue = a;
        it = scan_item_new(w, ns, pid, owner);
        if (!it) {
                unanswered_add(w, ns);
                return;
        }
        it->rank = rank;
        if (memo_stands(w, it)) {
                scan_item_free(it);
                return;
        }
        w->queue[w->n_queue++] = it;
}

static void scan_finish(ContainerWatch *w);

static void unanswered_add(ContainerWatch *w, uint64_t ns) {
        uint64_t *a = reallocarray(w->unanswered, w->n_unanswered + 1, sizeof *a);

        if (!a)
                return;
        w->unanswered = a;
        w->unanswered[w->n_unanswered++] = ns;
}

/* Moves instance x, found before, into found: its files are found's now
 * (marked, their fds closed); the old set keeps who it was, for the
 * comparison. */
static void carry(ProcInstance *x, ProcInstances *found) {
        ProcInstance identity = { .dev = x->dev, .mntns = x->mntns, .since = x->since,
                                  .by_mount_event = x->by_mount_event };

        if (proc_instances_add(found, x) > 0)
                *x = identity;
}

/* An instance found before, whose namespace is still there but gave no
 * answer this time (a slow look, a namespace left alone after a timeout):
 * kept, with its marks, rather than dropped. */
static void keep_unanswered(ContainerWatch *w, ProcInstances *found) {
        for (size_t i = 0; i < w->instances.n; i++) {
                ProcInstance *x = &w->instances.items[i];

                if (x->paths && u64_listed(w->unanswered, w->n_unanswered, x->mntns) &&
                    !proc_instances_have(found, x->dev))
                        carry(x, found);
        }
}

static void memo_add(ContainerWatch *w, const NsMemo *m) {
        NsMemo *a = reallocarray(w->next_memo, w->n_next_memo + 1, sizeof *a);

        if (!a)
                return;
        w->next_memo = a;
        w->next_memo[w->n_next_memo++] = *m;
}

/* Whether mounts since the scan began may have changed what a look into
 * it finds. */
static bool dirty_covers(const ContainerWatch *w, const DirtySet *d, uint64_t ns, uid_t owner) {
        if (d->all || u64_listed(d->ns, d->n_ns, ns))
                return true;
        for (size_t i = 0; i < d->n_owners; i++)
                if (d->owners[i] == owner)
                        return true;
        /* The last group's mounts: any owner's without a group of its own. */
        return d->shared && owner != 0 && !mount_watch_owner_grouped(w->mounts, owner);
}

/* Whether the last answer for its namespace still stands: then what it
 * found is carried into this scan, and no look is needed. */
static bool memo_stands(ContainerWatch *w, const ScanItem *it) {
        for (size_t i = 0; i < w->n_memo; i++) {
                const NsMemo *m = &w->memo[i];
                ProcInstance *x = NULL;

                if (m->ns != it->ns)
                        continue;
                if (m->pid != it->pid || m->start != it->start || dirty_covers(w, &w->scan_dirty, it->ns, it->owner) ||
                    w->scan_id - m->scan >= MEMO_SCANS)
                        return false;
                for (size_t j = 0; m->found && j < w->instances.n; j++)
                        if (w->instances.items[j].dev == m->dev && w->instances.items[j].paths)
                                x = &w->instances.items[j];
                if (m->found && !x)
                        return false;   /* dropped since (the bound): look again */
                if (x && !proc_instances_have(&w->found, m->dev))
                        carry(x, &w->found);
                memo_add(w, m);
                return true;
        }
        return false;
}

/* Asks for the next looks, as far as the inspector takes them. */
static void scan_pump(ContainerWatch *w) {
        InstanceAsk ask = { .patterns = w->patterns };

        while (w->next < w->n_queue) {
                ScanItem *it = w->queue[w->next];

                /* Over its time: what is left keeps what it had (a host
                 * with thousands of namespaces is scanned in parts). */
                if (now_usec(CLOCK_MONOTONIC) - w->scan_began > SCAN_BUDGET_USEC) {
                        unanswered_add(w, it->ns);
                        scan_item_free(it);
                        w->next++;
                        w->budget_spent = true;
                        continue;
                }

                InspectTarget t = { .pid = it->pid, .start = it->start, .owner = it->owner, .ids = it->ids,
                                    .mntns = it->ns };
                int r = inspector_ask(w->inspector, &t, instance_inspect, &ask, sizeof ask, it);

                /* No place now: a look of ours under way frees one as it
                 * ends. With none under way the places are held by
                 * children that linger (stuck in the kernel, maybe for
                 * good): the rest of the scan keeps what it had. */
                if ((r == -EBUSY || r == -EDQUOT) && w->pending > 0)
                        break;
                w->next++;
                if (r < 0) {
                        /* Its namespace timed out lately, or worse: not looked into. */
                        unanswered_add(w, it->ns);
                        scan_item_free(it);
                        continue;
                }
                w->pending++;
                w->looks++;
        }
        if (w->next == w->n_queue && w->pending == 0)
                scan_finish(w);
}

static void on_look(Inspector *in, InspectOutcome outcome, const void *answer, int *fds, size_t n_fds, void *token,
                    void *userdata) {
        ScanItem *it = token;
        ContainerWatch *w = it->w;
        const InstanceAnswer *a = answer;
        ProcInstance x;

        if (outcome == INSPECT_PENDING)
                return;         /* none asked for: no patience set */
        w->pending--;
        if (outcome != INSPECT_ANSWERED)
                unanswered_add(w, it->ns);
        else
                memo_add(w, &(NsMemo) { .ns = it->ns, .pid = it->pid, .start = it->start,
                                        .found = a->found && !u64_listed(w->skip, w->n_skip, a->dev), .dev = a->dev,
                                        .scan = w->scan_id });
        if (outcome == INSPECT_ANSWERED && a->found && !u64_listed(w->skip, w->n_skip, a->dev)) {
                x = (ProcInstance) {
                        .in_user_ns = it->in_user_ns,
                        .owner = it->owner,
                        .dev = a->dev,
                        .pid = it->pid,
                        .comm = TAKE_PTR(it->comm),
                        .mntns = it->ns,
                        .since = now_usec(CLOCK_REALTIME),
                };
                if (proc_instance_take_files(&x, a, fds, n_fds) < 0 || proc_instances_add(&w->found, &x) < 0)
                        w->found_oom = true;
        }
        scan_item_free(it);
        scan_pump(w);
}

/* A child reaped: a look refused for want of a place may start now. */
static void on_look_freed(Inspector *in, void *userdata) {
        ContainerWatch *w = userdata;

        if (w->scanning)
                scan_pump(w);
}

static bool skip_add(ContainerWatch *w, const char *path) {
        struct stat st;

        if (w->n_skip >= ELEMENTSOF(w->skip) || stat(path, &st) < 0)
                return false;
        w->skip[w->n_skip++] = (uint64_t) st.st_dev;
        return true;
}

void container_watch_scan(ContainerWatch *w) {
        _cleanup_free_ char *rooted = NULL;
        int r;

        if (!w)
                return;
        if (w->scanning) {
                w->again = true;        /* once this one is done */
                return;
        }
        w->scanning = true;
        w->scan_id++;
        w->scan_began = now_usec(CLOCK_MONOTONIC);
        w->n_skip = 0;
        /* Ours, pid 1's and the watched root's are the host's (our /proc and
         * pid 1's root are trusted: nothing another user made). */
        (void) skip_add(w, "/proc/vmstat");
        (void) skip_add(w, "/proc/1/root/proc/vmstat");
        if (root_path(w->root, "/proc/vmstat", &rooted) >= 0)
                (void) skip_add(w, rooted);
        w->own_user_ns = process_ns(0, "user");
        w->host_mntns[0] = process_ns(0, "mnt");
        w->host_mntns[1] = process_ns(1, "mnt");
        w->queue = mfree(w->queue);
        w->n_queue = w->next = 0;
        w->owners = mfree(w->owners);
        w->n_owners = 0;
        w->seen_ns = mfree(w->seen_ns);
        w->n_seen_ns = 0;
        w->skipped = 0;
        w->found = (ProcInstances) {};
        w->found_oom = false;
        w->budget_spent = false;
        mount_buckets_scanned(w);
        r = proc_namespaces_each("/proc", collect_ns, w);
        if (r < 0)
                log_debug_errno(r, "Cannot scan /proc for other procfs instances: %m");
        else
                mount_watch_retain(w->mounts, w->seen_ns, w->n_seen_ns);
        /* Root's namespaces are looked into first, and all of them: anyone
         * can make more of theirs. Past the bound, others' keep what they had. */
        qsort(w->queue, w->n_queue, sizeof *w->queue, root_first);
        while (w->n_queue > SCAN_QUEUE_MAX && w->queue[w->n_queue - 1]->owner != 0) {
                unanswered_add(w, w->queue[w->n_queue - 1]->ns);
                w->skipped++;
                scan_item_free(w->queue[--w->n_queue]);
        }
        scan_pump(w);
}

/* Whether a look brought files (fds) to mark: marked again each time, as
 * a superblock unmounted and mounted anew may come back with the same
 * device and inode numbers, and none of the old marks. */
static bool found_open_files(const ProcInstances *found) {
        for (size_t i = 0; i < found->n; i++)
                for (size_t k = 0; k < found->items[i].n_files; k++)
                        if (found->items[i].fds[k] >= 0)
                                return true;
        return false;
}

/* All looks answered (or not in time): the instances found are the set. */
static void scan_finish(ContainerWatch *w) {
        ProcInstances found = w->found;
        bool changed, mark;

        w->found = (ProcInstances) {};
        if (w->found_oom)
                (void) log_oom();       /* some instances found could not be kept */
        if (w->budget_spent)
                log_debug("The container scan ran out of time: %zu namespace(s) keep what was found there before.",
                          w->n_unanswered);
        keep_unanswered(w, &found);
        w->unanswered = mfree(w->unanswered);
        w->n_unanswered = 0;
        free(w->memo);
        w->memo = TAKE_PTR(w->next_memo);
        w->n_memo = w->n_next_memo;
        w->n_next_memo = 0;
        w->queue = mfree(w->queue);
        w->n_queue = w->next = 0;
        w->owners = mfree(w->owners);
        w->n_owners = 0;
        w->seen_ns = mfree(w->seen_ns);
        w->n_seen_ns = 0;
        w->scanning = false;
        w->last_skipped = w->skipped;
        w->scans++;
        w->cost = now_usec(CLOCK_MONOTONIC) - w->scan_began;
        w->scanned_at = now_usec(CLOCK_REALTIME);
        /* An instance found before keeps its age, and how it was found; a
         * new one in a namespace whose own mount event asked for the scan
         * says so. */
        for (size_t i = 0; i < found.n; i++) {
                bool before = false;

                for (size_t j = 0; j < w->instances.n; j++)
                        if (w->instances.items[j].dev == found.items[i].dev) {
                                found.items[i].since = w->instances.items[j].since;
                                found.items[i].by_mount_event = w->instances.items[j].by_mount_event;
                                before = true;
                        }
                if (!before && u64_listed(w->scan_dirty.ns, w->scan_dirty.n_ns, found.items[i].mntns))
                        found.items[i].by_mount_event = true;
        }
        changed = !proc_instances_same(&found, &w->instances);
        mark = changed || found_open_files(&found);
        for (size_t i = 0; changed && i < found.n; i++) {
                _cleanup_free_ char *comm = NULL;

                if (proc_instances_have(&w->instances, found.items[i].dev))
                        continue;
                comm = cescape(found.items[i].comm ?: "");
                log_info("Watching a container's procfs (device %u:%u), seen by %s (pid " PID_FMT ").",
                         major(found.items[i].dev), minor(found.items[i].dev), strnull(comm), found.items[i].pid);
        }
        if (changed && found.n < w->instances.n)
                log_info("%zu container procfs instance(s) gone.", w->instances.n - found.n);
        /* The same superblocks may be shown by other processes now: the
         * newest look's files and names are kept either way. */
        proc_instances_done(&w->instances);
        w->instances = found;
        if (mark)
                w->changed(w, w->userdata);     /* its owner marks, and closes the fds */
        else
                proc_instances_close_files(&w->instances);      /* marked already */
        if (w->again) {
                w->again = false;
                container_watch_scan(w);
        }
}

/* When the scans a bucket's mounts ask for may run. */
static usec_t bucket_due(const MountBucket *b) {
        usec_t due = MIN(b->last_event + MOUNT_SETTLE_USEC, b->burst_since + MOUNT_SCAN_DEADLINE_USEC);

        if (b->uid != 0 && b->last_scan > 0)
                due = MAX(due, b->last_scan + MOUNT_SCAN_USER_GAP_USEC);
        return due;
}

/* The timer at the next periodic scan, or sooner for mounts. */
static void schedule_next(ContainerWatch *w) {
        usec_t at = w->periodic_at;

        for (size_t i = 0; i < w->n_buckets; i++)
                if (w->buckets[i].pending)
                        at = MIN(at, bucket_due(&w->buckets[i]));
        event_timer_at(w->timer, at);
}

static void schedule(ContainerWatch *w) {
        w->periodic_at = w->period == 0 ? USEC_INFINITY : now_usec(CLOCK_MONOTONIC) + w->period;
        schedule_next(w);
}

/* A scan begins: it serves every mount told so far, and looks into the
 * namespaces mounted in again. */
static void mount_buckets_scanned(ContainerWatch *w) {
        usec_t now = now_usec(CLOCK_MONOTONIC);

        for (size_t i = 0; i < w->n_buckets; i++)
                if (w->buckets[i].pending) {
                        w->buckets[i].pending = false;
                        w->buckets[i].last_scan = now;
                }
        w->scan_dirty = w->dirty;
        w->dirty = (DirtySet) {};
}

static MountBucket *mount_bucket(ContainerWatch *w, uid_t uid) {
        for (size_t i = 0; i < w->n_buckets; i++)
                if (w->buckets[i].uid == uid)
                        return &w->buckets[i];
        if (w->n_buckets < MOUNT_BUCKETS - 1 || uid == (uid_t) -1) {
                w->buckets[w->n_buckets] = (MountBucket) { .uid = uid };
                return &w->buckets[w->n_buckets++];
        }
        return mount_bucket(w, (uid_t) -1);     /* the table is full: the shared one */
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        ContainerWatch *w = userdata;

        container_watch_scan(w);
        schedule(w);
        return 0;
}

/* What a scan is to look into again for a mount seen: its namespace;
 * all of its owner's where the kernel could not tell which, or too many
 * were; all that share the last group's; everything for the host's own
 * (they may propagate anywhere). */
static void dirty_add(const ContainerWatch *w, DirtySet *d, const MountSeen *x) {
        if (x->ns != 0 && (x->ns == w->host_mntns[0] || x->ns == w->host_mntns[1]))
                d->all = true;
        else if (x->ns != 0 && u64_listed(d->ns, d->n_ns, x->ns))
                return;
        else if (x->ns != 0 && d->n_ns < DIRTY_MAX)
                d->ns[d->n_ns++] = x->ns;
        else if (x->owner == (uid_t) -1)
                d->shared = true;
        else {
                for (size_t i = 0; i < d->n_owners; i++)
                        if (d->owners[i] == x->owner)
                                return;
                if (d->n_owners < DIRTY_OWNERS_MAX)
                        d->owners[d->n_owners++] = x->owner;
                else
                        d->all = true;  /* only as many real users, each mounting in a loop */
        }
}

/* Mounts in known namespaces: scan soon (a burst of mounts, as a
 * container starts, is one scan), and look into those namespaces again.
 * Settle, but not forever: a user mounting in a loop must not push the
 * scan away (at most MOUNT_SCAN_DEADLINE_USEC after a burst's first
 * event), nor bring it ever closer (one per MOUNT_SCAN_USER_GAP_USEC for
 * each uid but root's). */
static void on_mounts(MountWatch *mw, const MountSeen *seen, size_t n_seen, void *userdata) {
        ContainerWatch *w = userdata;
        usec_t now;

        if (w->period == 0)
                return;
        now = now_usec(CLOCK_MONOTONIC);
        for (size_t i = 0; i < n_seen; i++) {
                MountBucket *b = mount_bucket(w, seen[i].owner);

                if (!b->pending)
                        b->burst_since = now;
                b->pending = true;
                b->last_event = now;
                dirty_add(w, &w->dirty, &seen[i]);
        }
        schedule_next(w);
}

void container_watch_listen_mounts(ContainerWatch *w) {
        int r;

        if (!w || w->mounts)
                return;
        r = mount_watch_new(w->event, on_mounts, w, &w->mounts);
        if (r < 0) {
                set_source_error(&w->mounts_error, r, "mount events unavailable: %m%s",
                                 r == -EINVAL ? " (kernel < 6.14)" : "");
                log_debug_errno(r, "No mount events (%m): containers are found by the scan only.");
        }
}

int container_watch_set_patterns(ContainerWatch *w, char * const *patterns) {
        char **copy = NULL;

        if (!w)
                return 0;
        for (char * const *p = patterns; p && *p; p++)
                if (strv_extend(&copy, *p) < 0) {
                        strv_free(copy);
                        return -ENOMEM;
                }
        /* Other files to find: no answer found before stands. */
        if (!strv_equal(w->patterns, copy)) {
                w->memo = mfree(w->memo);
                w->n_memo = 0;
        }
        strv_free(w->patterns);
        w->patterns = copy;
        return 0;
}

void container_watch_set_period(ContainerWatch *w, usec_t period) {
        if (!w)
                return;
        w->period = period;
        schedule(w);
}

bool container_watch_forget(ContainerWatch *w) {
        bool had = w && w->instances.n > 0;

        if (!w)
                return false;

        proc_instances_done(&w->instances);
        /* Nothing found before stands: the next scan looks again (and brings
         * fds to mark through). */
        w->memo = mfree(w->memo);
        w->n_memo = 0;
        return had;
}

void container_watch_files_marked(ContainerWatch *w) {
        if (w)
                proc_instances_close_files(&w->instances);
}

/* The views answer for a watch that could not be made (NULL): none. */
const ProcInstances *container_watch_instances(const ContainerWatch *w) {
        static const ProcInstances none = {};

        return w ? &w->instances : &none;
}

uint64_t container_watch_scans(const ContainerWatch *w) {
        return w ? w->scans : 0;
}

uint64_t container_watch_looks(const ContainerWatch *w) {
        return w ? w->looks : 0;
}

size_t container_watch_skipped(const ContainerWatch *w) {
        return w ? w->last_skipped : 0;
}

InspectStats container_watch_look_stats(const ContainerWatch *w) {
        return inspector_stats(w ? w->inspector : NULL);
}

usec_t container_watch_cost(const ContainerWatch *w) {
        return w ? w->cost : 0;
}

uint64_t container_watch_scanned_at(const ContainerWatch *w) {
        return w ? w->scanned_at : 0;
}

bool container_watch_mount_events(const ContainerWatch *w) {
        return w && w->mounts;
}

const char *container_watch_mount_events_error(const ContainerWatch *w) {
        return w ? w->mounts_error : NULL;
}

size_t container_watch_mount_namespaces(const ContainerWatch *w) {
        return w ? mount_watch_count(w->mounts) : 0;
}
