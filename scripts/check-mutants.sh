#!/bin/bash
# check-mutants.sh [NAME...]: breaks the daemon on purpose, one break at a
# time, in a copy of this tree (tracked files as they are now, edits
# included), builds it, runs the tests that should catch the break, and
# reports the breaks no test caught. `make check-mutants` runs it; not part
# of CI (about 45 minutes for all, as root: the integration tests need it).
# Exits 1 if a break went uncaught or did not apply.
#
# A break is NAME, FILE, the exact text to replace (once), what replaces it,
# and the tests to run (make check TESTS=...). When a break no longer
# applies (the code moved), the script says so: update the text here.
#
# check-mutants.sh --applies: builds and runs nothing; says, as TAP, whether
# each break's text is in its file exactly once (tests/mutants-apply.sh,
# part of make check, so that a break does not go stale unseen).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --applies ]; then
        n=0 failed=0
        mutant() {
                local name=$1 file=$2 old=$3 count
                n=$((n + 1))
                count=$(OLD=$old python3 -c 'import os, sys; print(open(sys.argv[1]).read().count(os.environ["OLD"]))' \
                        "$top/$file" 2>/dev/null)
                if [ "$count" = 1 ]; then
                        echo "ok $n - mutant $name applies to $file"
                else
                        echo "not ok $n - mutant $name applies to $file (its text is there ${count:-0} times, not once)"
                        failed=$((failed + 1))
                fi
        }
else
        work=$(mktemp -d /tmp/numastatd-mutants-XXXXXX)
        trap 'rm -rf "$work"' EXIT
fi
only=" $* "

if [ "${1:-}" != --applies ]; then
echo "check-mutants: building a copy in $work"
(cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$work") || exit 1
if ! (cd "$work" && ./autogen.sh && mkdir -p build && cd build &&
      ../configure --sysconfdir=/etc && make -j"$(nproc)") >"$work/build.log" 2>&1; then
        tail -30 "$work/build.log"
        echo "check-mutants: the unbroken copy does not build"
        exit 1
fi

caught=0 missed=0 broken=0
missed_names=
# mutant NAME FILE OLD NEW TEST...
mutant() {
        local name=$1 file=$2 old=$3 new=$4 log
        shift 4
        [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || return 0
        log="$work/$name.log"
        cp "$work/$file" "$work/$file.orig"
        if ! OLD=$old NEW=$new python3 - "$work/$file" <<'PYEND'
import os, sys
p = sys.argv[1]
s = open(p).read()
old, new = os.environ["OLD"], os.environ["NEW"]
if s.count(old) != 1:
    sys.exit(1)
open(p, "w").write(s.replace(old, new))
PYEND
        then
                echo "BROKEN: $name: the text to replace is not in $file exactly once (update check-mutants.sh)"
                broken=$((broken + 1))
                return
        fi
        if ! make -C "$work/build" -j"$(nproc)" >"$log" 2>&1; then
                echo "BROKEN: $name: does not build (see the compiler's error below)"
                grep -m5 'error' "$log"
                broken=$((broken + 1))
        elif make -C "$work/build" check TESTS="$*" >>"$log" 2>&1; then
                echo "MISSED: $name: $* all passed"
                missed=$((missed + 1)) missed_names="$missed_names $name"
        else
                echo "caught: $name: by $(sed -nE 's/^(FAIL|ERROR): ([^ ]*).*/\2/p' "$log" | sort -u | tr '\n' ' ')"
                caught=$((caught + 1))
        fi
        mv "$work/$file.orig" "$work/$file"
        touch "$work/$file"
}
fi

mutant taskstats-register-fails daemon/sources/taskstats.c \
        '        r = possible_cpus(&cpus);' \
        $'        return -EINVAL;\n        r = possible_cpus(&cpus);' \
        tests/unit/test-taskstats tests/integration/exits.sh
mutant fetch-calls-back daemon/sources/taskstats.c \
        '                (void) sd_event_source_set_enabled(t->news, SD_EVENT_ONESHOT);' \
        '                t->callback(t, t->userdata);' \
        tests/unit/test-manager tests/unit/test-taskstats
mutant announce-at-once daemon/manager-turn.c \
        $'                t->status = true;\n        turn_end_due(m);' \
        '                announce(m, t);' \
        tests/unit/test-manager
mutant off-past-queued-reads daemon/core/kernel-state.c \
        'if (reads_queued && (p.action == KERNEL_ACTION_ARM || want == KERNEL_MODE_COARSE)) {' \
        'if (reads_queued && p.action == KERNEL_ACTION_ARM) {' \
        tests/unit/test-kernel-state tests/unit/test-manager
mutant deadline-now-lost daemon/manager-turn.c \
        'if (t->deadline_now)' \
        'if (false)' \
        tests/unit/test-manager
mutant hold-release-first daemon/service/holds.c \
        'SD_EVENT_PRIORITY_NORMAL + 1);' \
        'SD_EVENT_PRIORITY_IMPORTANT - 2);' \
        tests/unit/test-manager
mutant armed-sample-before-reads daemon/manager-ticks.c \
        'if (manager_reads_queued(m)) {' \
        'if (false) {' \
        tests/unit/test-manager
mutant held-read-unsaid daemon/core/policy.c \
        '                d->held_since = s->last_read_held;' \
        '                d->held_since = false;' \
        tests/unit/test-policy
mutant held-read-sticks daemon/core/policy.c \
        $'        s->last_reader = *reader;\n        s->last_read_held = false;' \
        '        s->last_reader = *reader;' \
        tests/unit/test-policy
mutant held-read-untold daemon/manager-reads.c \
        'clock.by_holder = counts && read_by_holder(m, ev);' \
        'clock.by_holder = counts && read_by_holder(m, ev) && false;' \
        tests/integration/linger.sh
mutant arm-without-snapshot daemon/core/kernel-state.c \
        '                p.writes[p.n_writes++] = kernel_state_write(k, KERNEL_MODE_COARSE);' \
        '                p.writes[p.n_writes++] = (KernelWrite) { .mode = KERNEL_MODE_COARSE };' \
        tests/unit/test-kernel-state
mutant linger-max-zero-unbounded daemon/core/engine.c \
        'readertab_expected(&e->readers, now, e->config.linger_max, &until, &i)' \
        'readertab_expected(&e->readers, now, e->config.linger_max ? e->config.linger_max : 3600 * USEC_PER_SEC, &until, &i)' \
        tests/integration/linger.sh
mutant ready-before-first-write daemon/manager.c \
        $'        /* A failed first write is in status; the daemon serves anyway. */\n        (void) manager_apply(m);' \
        $'        (void) sd_notify(false, "READY=1");\n        (void) manager_apply(m);' \
        tests/integration/systemd.sh
mutant no-first-write daemon/manager.c \
        $'        /* A failed first write is in status; the daemon serves anyway. */\n        (void) manager_apply(m);' \
        '' \
        tests/unit/test-manager
mutant no-crash-restore daemon/effects/restore.c \
        $'        *ret_did = false;\n        r = restore_state_load(' \
        $'        *ret_did = false;\n        return 0;\n        r = restore_state_load(' \
        tests/unit/test-restore tests/integration/daemon.sh
mutant no-restore-state-before-write daemon/effects/executor.c \
        $'        if (!x->wrote)\n                save_restore_state(x, restore);' \
        '' \
        tests/unit/test-executor tests/integration/daemon.sh
mutant failed-write-untold daemon/effects/executor.c \
        $'                set_error(x, r, &error);\n                /* The write' \
        '                /* The write' \
        tests/unit/test-executor
mutant metrics-written-once daemon/effects/metrics-file.c \
        'if (streq_ptr(text, f->last) && streq_ptr(f->path, path))' \
        'if (f->written_at != 0 && streq_ptr(f->path, path))' \
        tests/unit/test-metrics-file tests/integration/metrics.sh
mutant vmstat-refuses-all daemon/core/parsers.c \
        $'        VmStat st = {};\n        Span line;\n\n        if (!text || !ret)' \
        $'        VmStat st = {};\n        Span line;\n\n        if (1 || !text || !ret)' \
        tests/fuzz/fuzz-vmstat tests/unit/test-parsers
mutant no-escaping lib/strutil.c \
        'size_t n = cescape_char((unsigned char) *s, e);' \
        'size_t n = 1; e[0] = *s;' \
        tests/unit/test-strutil tests/integration/privacy.sh
mutant no-sustain daemon/core/policy.c \
        'd->sustained = since != 0 && now >= usec_add(since, c->sustain);' \
        'd->sustained = since != 0;' \
        tests/unit/test-policy tests/integration/auto.sh
mutant no-min-dwell daemon/core/policy.c \
        'return now >= usec_add(s->last_switch, c->min_dwell);' \
        'return true;' \
        tests/unit/test-policy tests/integration/core.sh
mutant ignore-rules-never-match daemon/core/rules.c \
        $'        if (rule_is_empty(rule))\n                return false;' \
        '        return false;' \
        tests/unit/test-rules tests/integration/auto.sh
mutant unserved-counted-as-served daemon/core/readertab.c \
        $'        case READ_UNSERVED:\n                e->unserved++;\n                t->unserved++;' \
        $'        case READ_UNSERVED:\n                e->served++;\n                t->served++;' \
        tests/unit/test-readertab tests/integration/service.sh
mutant holder-of-any-uid daemon/manager-reads.c \
        'if (o->pid == pid && o->has_uid && o->uid == uid)' \
        'if (o->pid == pid && o->has_uid)' \
        tests/integration/linger.sh tests/integration/hold.sh
mutant deferred-reason-kept daemon/core/engine.c \
        $'                e->have_deferred = false;\n                break;' \
        '                break;' \
        tests/unit/test-engine
mutant unclaimed-trigger-dropped daemon/core/engine.c \
        '        if (!e->trigger_pending || !engine_read_triggers(e))' \
        '        if (true)' \
        tests/unit/test-engine
mutant rearm-uncounted daemon/core/engine.c \
        $'                if (s->plan.action == KERNEL_ACTION_ARM && s->from.mode == KERNEL_MODE_AUTO)\n                        e->counts.rearms++;' \
        '' \
        tests/unit/test-engine
mutant recorded-before-named daemon/core/engine.c \
        $'        if (!e->read.active)\n                commit(e, fx);' \
        '        commit(e, fx);' \
        tests/unit/test-engine
mutant failed-write-recorded daemon/core/engine.c \
        $'                e->step.failed = true;' \
        '' \
        tests/unit/test-engine
mutant periods-unheard daemon/core/engine.c \
        $'                update_expected(e, now);\n                fx->committed = true;' \
        '                fx->committed = true;' \
        tests/unit/test-engine tests/integration/linger.sh
mutant ledger-flip-unbooked daemon/core/engine.c \
        '        fx->allocated_wanted = counting != e->ledger.counting;' \
        '        fx->allocated_wanted = false;' \
        tests/unit/test-engine
mutant counters-saved-every-sample daemon/effects/executor.c \
        '        return now || x->counters_saved_at == 0 ||' \
        '        return true || x->counters_saved_at == 0 ||' \
        tests/unit/test-executor tests/integration/carry.sh
mutant decision-not-taken daemon/manager-apply.c \
        $'        if (fx->decide) {' \
        $'        if (false) {' \
        tests/unit/test-manager tests/integration/hold.sh
mutant outcome-not-fed-back daemon/manager-apply.c \
        $'        manager_engine_feed(m,\n                            &(EngineEvent) { .type = r < 0 ? ENGINE_EVENT_WRITE_FAILED : ENGINE_EVENT_WRITTEN,' \
        $'        if (0) manager_engine_feed(m,\n                            &(EngineEvent) { .type = r < 0 ? ENGINE_EVENT_WRITE_FAILED : ENGINE_EVENT_WRITTEN,' \
        tests/unit/test-manager
mutant nested-event-handled-inside daemon/manager-dispatch.c \
        $'        if (event_queue_draining(q)) {\n                if (ev->type == MANAGER_EVENT_READ) {' \
        $'        if (false) {\n                if (ev->type == MANAGER_EVENT_READ) {' \
        tests/unit/test-manager
mutant own-read-fd-not-adopted daemon/manager-dispatch.c \
        $'                (void) sampler_adopt_quiet_fd(manager_sampler(m), ev->own_fd);' \
        $'                (void) manager_sampler(m);' \
        tests/integration/daemon.sh
mutant exit-record-by-pid-alone daemon/sources/taskstats.c \
        $'                if (e->pid != q->pid || e->received < q->not_before || e->began > q->read_by + 1 ||\n                    (q->has_uid && e->uid != q->uid))' \
        $'                if (e->pid != q->pid || e->received < q->not_before)' \
        tests/unit/test-taskstats
mutant verdict-of-gone-by-pid-alone daemon/sources/known-probe.c \
        $'        return rd->has_uid && e->has_uid && rd->began > 0 && e->began > 0 &&' \
        $'        return 1 ? 1 : rd->has_uid && e->has_uid && rd->began > 0 && e->began > 0 &&' \
        tests/unit/test-known
mutant look-as-root daemon/sources/inspector.c \
        $'        if (setresuid(uid, uid, uid) < 0)' \
        $'        if (setresuid(0, 0, 0) < 0)' \
        tests/unit/test-inspector
mutant look-without-deadline daemon/sources/inspector.h \
        $'#define INSPECT_DEADLINE_USEC (100 * USEC_PER_MSEC)' \
        $'#define INSPECT_DEADLINE_USEC (100 * USEC_PER_SEC)' \
        tests/unit/test-inspector
mutant arg-files-not-expanded daemon/sources/known-inspect.c \
        $'        if (argv && f->arg_files && known_expand_arg_files(' \
        $'        if (argv && 0 && known_expand_arg_files(' \
        tests/integration/known.sh
mutant re2-read-as-posix daemon/core/known.c \
        $'                if (streq_ptr(f->arg_syntax, "re2") && !regex_in_common_subset(' \
        $'                if (0 && !regex_in_common_subset(' \
        tests/unit/test-known
mutant config-value-echoed daemon/core/known.c \
        $'                        return verdict(true, buf, size, "counts: %s does not set [%s] %s = %s", path,' \
        $'                        return verdict(true, buf, size, "counts: %s does not set [%s] %s = %s", value ?: path,' \
        tests/unit/test-known
mutant late-reads-never-lost daemon/sources/readers.c \
        $'        if (m->at == 0 || now - m->at >= bound) {\n                bool late = m->at != 0;' \
        $'        if (m->at == 0 || now - m->at >= bound) {\n                bool late = false;' \
        tests/unit/test-readers
mutant status-rendered-per-call daemon/service/service.c \
        $'                    now - k->at < STATUS_REUSE_USEC)' \
        $'                    0)' \
        tests/unit/test-manager
mutant scan-looks-again-each-time daemon/sources/container-watch.c \
        $'        if (memo_stands(w, it)) {' \
        $'        if (0) {' \
        tests/unit/test-container-watch
mutant rewatch-by-flush daemon/sources/readers-watch.c \
        $'        k = watch_host(r, &w, fulls, paths);' \
        $'        k = fanotify_mark(r->fd, FAN_MARK_FLUSH, 0, AT_FDCWD, NULL) < 0 ? -errno : watch_host(r, &w, fulls, paths);' \
        tests/unit/test-readers
mutant scan-files-kept-open daemon/sources/container-watch.c \
        $'        if (w)\n                proc_instances_close_files(&w->instances);' \
        $'        if (w)\n                (void) 0;' \
        tests/unit/test-container-watch
mutant mount-scans-not-held-back daemon/sources/container-watch.c \
        $'        if (b->uid != 0 && b->last_scan > 0)' \
        $'        if (0)' \
        tests/unit/test-container-watch
mutant mount-scan-looks-everywhere daemon/sources/container-watch.c \
        $'                if (m->pid != it->pid || m->start != it->start || dirty_covers(w, &w->scan_dirty, it->ns, it->owner) ||' \
        $'                if (m->pid != it->pid || m->start != it->start || w->scanning ||' \
        tests/unit/test-container-watch
mutant remount-not-marked daemon/sources/container-watch.c \
        $'        mark = changed || found_open_files(&found);' \
        $'        mark = changed;' \
        tests/unit/test-container-watch
mutant mounts-not-told-apart daemon/sources/mountwatch.c \
        $'                        if (mnt_id != 0 && !mount_resolve(g, hint, mnt_id, &budget, &x))' \
        $'                        if (0)' \
        tests/integration/hostile.sh
mutant looks-not-rate-limited daemon/sources/inspector.c \
        $'        if (owner == 0)\n                return 0;\n        before_all' \
        $'        if (1)\n                return 0;\n        before_all' \
        tests/unit/test-inspector
mutant look-reads-mount-table daemon/sources/inspector.c \
        $'        if (p->root_magic != 0)\n                return p->root_magic == FUSE_SUPER_MAGIC;' \
        $'        if (p->root_magic != 0 && inspected_mountinfo(p))\n                return p->root_magic == FUSE_SUPER_MAGIC;' \
        tests/unit/test-inspector
mutant behind-while-queue-full daemon/sources/readers.c \
        $'        if (m->at != 0 && consumed >= m->position)' \
        $'        if (0)' \
        tests/unit/test-readers
mutant file-verdict-forever daemon/sources/known-probe.c \
        $'        if (ans->failed || ans->from_files)' \
        $'        if (ans->failed)' \
        tests/unit/test-known
mutant argv-verdict-expires daemon/sources/known-inspect.c \
        $'                          (f->arg_files && (!argv || argv_names_file(argv)));' \
        $'                          (f->arg_files && (!argv || argv_names_file(argv) || 1));' \
        tests/unit/test-known
mutant exec-keeps-verdict daemon/sources/known-probe.c \
        $'        return e->image == 0 || image == 0 || e->image == image;' \
        $'        return true;' \
        tests/unit/test-known
mutant zombie-image-unknown daemon/sources/known-probe.c \
        $'        return e->image == 0 || image == 0 || e->image == image;' \
        $'        return e->image == image;' \
        tests/unit/test-known
mutant old-exec-remembered daemon/sources/known-probe.c \
        $'        *e = (KnownCacheEntry) {};\n}' \
        $'        (void) e;\n}' \
        tests/unit/test-known
mutant child-condition-never-decided daemon/sources/known-probe.c \
        '        e = have_start ? cache_find(cache, &ard, true, start, image, ki, fi) : NULL;' \
        '        e = NULL;' \
        tests/unit/test-known
mutant intermediates-all-forks daemon/sources/known-probe.c \
        '                if (images[j - 1] == 0 || image == 0 || images[j - 1] != image)' \
        '                if (false)' \
        tests/unit/test-known tests/integration/known.sh
mutant look-into-the-topmost daemon/sources/known-probe.c \
        '                        if (n_between == 0 || (run_open && image != 0 && image == run_image))' \
        '                        if (true)' \
        tests/unit/test-known
mutant config-dir-names-ignored daemon/sources/known-root.c \
        $'        if (w->names)\n                return name_listed(w->names, name);' \
        '' \
        tests/integration/known.sh
mutant config-environment-unused daemon/core/known.c \
        '                for (size_t i = 0; f->config_environment && i < ELEMENTSOF(texts); i++) {' \
        '                for (size_t i = 0; false && i < ELEMENTSOF(texts); i++) {' \
        tests/unit/test-known
mutant config-dir-flat daemon/sources/known-root.c \
        "                dir = w->recursive && (de->d_name[0] != '.' || w->hidden) && entry_is_dir(w, d, de, file);" \
        '                dir = false;' \
        tests/integration/known.sh
mutant config-dir-no-dot-names daemon/sources/known-root.c \
        "        return (name[0] != '.' || w->hidden) && suffix_listed(" \
        "        return name[0] != '.' && suffix_listed(" \
        tests/integration/known.sh
mutant config-dir-into-dotdot daemon/sources/known-root.c \
        '                if (dir && startswith(de->d_name, ".."))' \
        '                if (false)' \
        tests/integration/known.sh
mutant config-dir-dangling-as-none daemon/sources/known-root.c \
        $'                if (r == -ENOENT)\n                        r = -ESTALE;' \
        '' \
        tests/integration/known.sh
mutant config-dir-suffixes-ignored daemon/sources/known-root.c \
        'suffix_listed(w->suffixes ?: ".conf", name)' \
        'suffix_listed(".conf", name)' \
        tests/integration/known.sh
mutant config-dir-links-never-followed daemon/sources/known-root.c \
        "        if (!S_ISLNK(st.st_mode) || !w->follow)" \
        "        if (true)" \
        tests/integration/known.sh
mutant config-dir-named-missing-as-none daemon/sources/known-root.c \
        '        if (r == -ENOENT && (path == f->config_dir || below)) {' \
        '        if (r == -ENOENT) {' \
        tests/integration/known.sh
mutant config-dir-named-reads-default-too daemon/core/known.c \
        '        if (!p && !f->config_dir && !f->config_dir_beside && known_file_config_dir(f, argv, argc))' \
        '        if (false)' \
        tests/unit/test-known tests/integration/known.sh
mutant config-dir-beside-ignored daemon/sources/known-inspect.c \
        '        if (facts.config_dir_path && f->config_dir_beside) {' \
        '        if (false) {' \
        tests/integration/known.sh
mutant config-allows-ignored daemon/core/known.c \
        $'        if (!allows)\n                return text_has_line(text, ere);' \
        $'        if (true)\n                return text_has_line(text, ere);' \
        tests/unit/test-known
mutant config-dir-glob-ignored daemon/sources/known-root.c \
        '                      .glob = slash ? slash + 1 : f->config_dir_glob };' \
        '                      .glob = NULL };' \
        tests/integration/known.sh
mutant config-dir-glob-not-below daemon/sources/known-root.c \
        '                r = walk_config_dir(&w, below ?: path, 0);' \
        '                r = walk_config_dir(&w, path, 0);' \
        tests/integration/known.sh
mutant config-dir-arg-not-required daemon/core/known.c \
        '                if (f->config_dir_arg_required && !v)' \
        '                if (false)' \
        tests/unit/test-known
mutant config-forbids-last-line-only daemon/core/known-entry.c \
        $'                        free(*field);\n                        *field = joined;' \
        $'                        free(*field);\n                        *field = strdup(value);\n                        free(joined);' \
        tests/unit/test-known
mutant cache-forgets-what-was-read daemon/sources/known-probe.c \
        '        format_to(e->looked, sizeof e->looked, "%s", ans->looked);' \
        '' \
        tests/unit/test-known
mutant explain-says-not-what-was-read client/numastatctl.c \
        $'        if (jstr(x, "looked"))\n                printf("    read: %s\\n", jstr(x, "looked"));' \
        '' \
        tests/integration/known.sh
mutant config-dir-holds-anything daemon/core/known.c \
        $'                        if (!v || strncmp(v, dir, dl) != 0 || v[dl] != \'/\' || strstr(v, "/../") ||\n                            (vl >= 3 && streq(v + vl - 3, "/..")))' \
        '                        if (false)' \
        tests/unit/test-known tests/integration/known.sh
mutant joins-only-the-same-why daemon/core/readertab.c \
        '        return e->ignored == !v->counts && streq_ptr(e->verdict, v->verdict) && streq_ptr(e->source, v->source);' \
        '        return e->ignored == !v->counts && streq_ptr(e->why, v->why);' \
        tests/unit/test-readertab
mutant exiting-never-waits daemon/core/parked.c \
        '        return now >= r->since + PARKED_EXITING_MAX_USEC || !lookup->exiting(r, lookup->userdata);' \
        '        return true;' \
        tests/unit/test-parked
mutant exiting-waits-forever daemon/core/parked.c \
        '        return now >= r->since + PARKED_EXITING_MAX_USEC || !lookup->exiting(r, lookup->userdata);' \
        '        return !lookup->exiting(r, lookup->userdata);' \
        tests/unit/test-parked
mutant ratelimit-never-waits lib/event-ratelimit.c \
        $'        if (++rl->dispatched < rl->burst)\n                return;' \
        $'        if (++rl->dispatched < rl->burst || 1)\n                return;' \
        tests/unit/test-event-ratelimit
mutant ratelimit-never-resumes lib/event-ratelimit.c \
        $'        rl->dispatched = 0;\n        (void) sd_event_source_set_enabled(rl->source, SD_EVENT_ON);' \
        $'        rl->dispatched = 0;' \
        tests/unit/test-event-ratelimit
mutant cost-charged-while-off daemon/core/readertab.c \
        $'        if (!counting)\n                return;\n        t->pressured_on' \
        $'        t->pressured_on' \
        tests/unit/test-readertab
mutant cost-past-the-hold daemon/core/readertab.c \
        $'                if (until > from)' \
        $'                if (until != 0)' \
        tests/unit/test-engine
mutant cost-without-sustain daemon/core/policy.c \
        $'        return usec_add(since, c->sustain);' \
        $'        return since;' \
        tests/unit/test-engine
mutant best-ignores-reads daemon/core/engine.c \
        $'                if (e->readers.added_after != 0)' \
        $'                if (0)' \
        tests/unit/test-engine
mutant best-ignores-holds daemon/core/engine.c \
        $'                if (e->state.holds > 0)' \
        $'                if (0)' \
        tests/unit/test-engine
mutant best-ring-keeps-old-day daemon/core/own-trace.c \
        $'                if (k > t->newest || k < oldest(t))\n                        continue;' \
        $'' \
        tests/unit/test-own-trace
mutant script-any-under-interpreter daemon/sources/known-inspect.c \
        $'                                if (same_file_in_root(p->rootfd, k->scripts[l].path, &st))' \
        $'                                if (1)' \
        tests/integration/known-real.sh
mutant ancestry-skips-strangers daemon/sources/known-probe.c \
        $'                        if (!host_file_among(k->interpreters, k->n_interpreters, a->exe_dev, a->exe_ino) ||' \
        $'                        if (!host_file_among(k->interpreters, k->n_interpreters, a->exe_dev, a->exe_ino) &&' \
        tests/unit/test-known
mutant ancestry-asks-below-a-stranger daemon/sources/known-probe.c \
        '                                unknown = other;' \
        '                                unknown = n_between > 0 ? between[0] : NULL;' \
        tests/unit/test-known
mutant no-crossing-root-binds daemon/sources/known-root.c \
        $'        if (fd != -EXDEV || !looked_at ||' \
        $'        if (1 || !looked_at ||' \
        tests/integration/known-real.sh
mutant failed-look-forever daemon/sources/known-probe.c \
        $'        if (ans->failed || ans->from_files)' \
        $'        if (ans->from_files)' \
        tests/unit/test-known
mutant config-forbids-not-looked-at daemon/core/known.c \
        $'        r = regexec(&re, text, 0, NULL, 0) == 0;' \
        $'        r = 0;' \
        tests/unit/test-known
mutant positional-past-two-word-options daemon/core/known.c \
        $'                        if (!strchr(argv[i], \'=\'))\n                                return -EINVAL;' \
        $'                        if (!strchr(argv[i], \'=\'))\n                                continue;' \
        tests/unit/test-known
mutant positional-any-subcommand daemon/core/known.c \
        $'        if (!argv || n < 2 || !streq(argv[1], subcommand))' \
        $'        if (!argv || n < 2)' \
        tests/unit/test-known
mutant absent-never-found daemon/sources/known-root.c \
        $'                        if (de->d_name[0] != \'.\' && fnmatch(pattern, de->d_name, 0) == 0) {' \
        $'                        if (false) {' \
        tests/unit/test-known
mutant installed-all-listed daemon/sources/known-root.c \
        $'        return ferror(list) ? -EIO : listed < n_names;' \
        $'        return ferror(list) ? -EIO : 0;' \
        tests/unit/test-known
mutant environ-not-judged daemon/core/known.c \
        $'        if (f->environ_forbids && text_has_line(facts->environ_text, f->environ_forbids) != 0)' \
        $'        if (false)' \
        tests/unit/test-known
mutant container-gone-not-told daemon/sources/container-watch.c \
        $'        mark = changed || found_open_files(&found);' \
        $'        mark = found_open_files(&found);' \
        tests/unit/test-container-watch
mutant pipelined-calls-all-at-once lib/varlink-server.c \
        $'#define VARLINK_CALLS_PER_TURN 4' \
        $'#define VARLINK_CALLS_PER_TURN 4096' \
        tests/unit/test-varlink
mutant calls-never-paced lib/varlink-budget.c \
        $'        if (uid == 0 || (b->per_uid.interval == 0 && b->others.interval == 0))' \
        $'        if (true)' \
        tests/unit/test-varlink-budget tests/unit/test-varlink
mutant shared-call-budget-ignored lib/varlink-budget.c \
        $'        unsigned g = MIN(rate_fits(&b->per_uid, mine, now, n), rate_fits(&b->others, b->others_full_at, now, n));' \
        $'        unsigned g = rate_fits(&b->per_uid, mine, now, n);' \
        tests/unit/test-varlink-budget

# Issue 53: the looks bound to the reader, root's first, every owner's share.
mutant timed-out-look-not-counted daemon/manager-reads.c \
        $'        r->answer = (KnownAnswer) { .reader = r->ask.reader, .file = r->ask.file, .counts = true, .failed = true };' \
        $'        r->answer = (KnownAnswer) { .reader = r->ask.reader, .file = r->ask.file, .counts = false, .failed = true };' \
        tests/integration/looks.sh
mutant child-ids-unchecked daemon/sources/inspector.c \
        $'        if (proc_status_ids(status, &now) < 0 || memcmp(now.uid, t->ids.uid, sizeof now.uid) != 0 ||' \
        $'        if (proc_status_ids(status, &now) < 0 || (0 && memcmp(now.uid, t->ids.uid, sizeof now.uid) != 0) ||' \
        tests/unit/test-inspector
mutant answer-not-verified daemon/sources/inspector.c \
        $'            !target_unchanged(&q->target)) {' \
        $'            !(target_unchanged(&q->target) || 1)) {' \
        tests/unit/test-inspector
mutant death-signal-not-rearmed daemon/sources/inspector.c \
        $'        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)\n                return -errno;\n        if (getppid() != parent)' \
        $'        if (0)\n                return -errno;\n        if (getppid() != parent)' \
        tests/unit/test-inspector
mutant lingering-child-not-held daemon/sources/inspector.c \
        $'                if (in->children[i] && in->children[i]->overdue && in->children[i]->target.owner == owner)' \
        $'                if (in->children[i] && in->children[i]->overdue && in->children[i]->target.owner == owner && 0)' \
        tests/unit/test-inspector
mutant no-place-for-root-alone daemon/sources/inspector.c \
        $'                if (others_running >= l->slots - l->root_slots ||' \
        $'                if (others_running >= l->slots ||' \
        tests/unit/test-inspector
mutant owner-by-uid daemon/sources/owner.c \
        $'        r = userns_owner(fd, ret);\n        if (r == -ENOENT) {\n                *ret = uid;' \
        $'        r = -ENOENT;\n        if (r == -ENOENT) {\n                *ret = uid;' \
        tests/integration/looks.sh
mutant owner-share-unbounded daemon/sources/container-watch.c \
        $'        if (owner != 0 && rank >= SCAN_OWNER_MAX) {' \
        $'        if (0) {' \
        tests/integration/hostile.sh
mutant unknown-mount-dirties-all daemon/sources/container-watch.c \
        $'        if (x->ns != 0 && (x->ns == w->host_mntns[0] || x->ns == w->host_mntns[1]))' \
        $'        if (x->ns == 0 || x->ns == w->host_mntns[0] || x->ns == w->host_mntns[1])' \
        tests/integration/looks.sh
mutant why-echoes-argument daemon/core/known.c \
        $'                        return verdict(true, buf, size, "counts: %s is not a regular expression we can check", f->arg);' \
        $'                        return verdict(true, buf, size, "counts: %s \'%s\' is not a regular expression we can check", f->arg, value ?: "");' \
        tests/unit/test-known

if [ "${1:-}" = --applies ]; then
        echo "1..$n"
        [ "$failed" -eq 0 ]
        exit
fi
echo "check-mutants: $caught caught, $missed missed${missed_names:+ ($missed_names )}, $broken did not apply"
[ $missed -eq 0 ] && [ $broken -eq 0 ]
