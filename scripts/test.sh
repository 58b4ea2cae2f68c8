#!/bin/bash
# Installs dependencies, builds with -Werror and runs the tests; ends with
# one line "N passed, N failed, N skipped" over every check.
#
#   scripts/test.sh [--full]
#
# The quick run (what CI runs as .ci/run; cold, about 30 minutes): the unit
# and integration tests (make check, out of tree, which also replays each
# fuzz harness's corpus); make distcheck, which rebuilds from the release
# tarball and runs its unit and static checks; make check once more built
# with ASan+UBSan (build-asan/); the Debian 12, 13 and 11 packages (built,
# lintian, the file list); make check again in Debian 13 (trixie) and
# Debian 11 (bullseye) roots (scripts/test-trixie.sh); the real kernels in
# qemu (make check-vm: every kernel booted at least once with its scenario
# checks; the Debian 12, 13 and 11 VMs install those packages, Debian 11's
# on its own stock 5.10).
#
# --full adds the long studies and soaks: each libFuzzer harness for
# FUZZ_SECONDS (60 s; build-fuzz/, clang) and make check-vm-full (the kill
# soaks, the benches in the guest, the instruction counts on every kernel,
# the macro study, the collectors VM). docs/testing.md says what each part
# takes.
set -u
cd "$(dirname "$0")/.."
full=
case "${1:-}" in
--full) full=1 ;;
"") ;;
*) echo "usage: scripts/test.sh [--full]" >&2; exit 2 ;;
esac
scripts/install-deps.sh --test || exit 1
scripts/build.sh --enable-werror || { echo "0 passed, 1 failed"; exit 1; }

passed=0 failed=0 skipped=0
# count FILE (make check's output: each check once, however often printed;
# sets count_failed) and count_tap FILE (a TAP stream; sets tap_failed).
. scripts/test-count.sh
# The VM and Debian 13 stages' tools (qemu, debootstrap): installed once,
# for whichever stage asks first.
vm_deps() {
        [ -n "${vm_deps_status:-}" ] || { ../scripts/install-vm-deps.sh > vm-deps.out 2>&1; vm_deps_status=$?; }
        [ "$vm_deps_status" -eq 0 ] || { cat vm-deps.out; return 1; }
}

# trixie_ready WHAT, bullseye_ready WHAT: whether a Debian 13 (Debian 11)
# stage may run; if not, says why and counts it (a skip, or a failure to
# install debootstrap).
trixie_ready() { root_ready NUMASTATD_SKIP_TRIXIE "$1"; }
bullseye_ready() { root_ready NUMASTATD_SKIP_BULLSEYE "$1"; }
root_ready() {
        if [ -n "${!1:-}" ]; then
                echo "SKIP: $2 ($1 is set)"
                skipped=$((skipped + 1))
                return 1
        fi
        vm_deps && return 0
        echo "FAIL: installing debootstrap (scripts/install-vm-deps.sh)"
        failed=$((failed + 1))
        return 1
}

# stage NAME: heads the next stage's output; each stage's time (wall clock,
# for the CI budget) is printed when the next one starts, and at the end.
stage() {
        [ -z "${stage_name:-}" ] || echo "# stage time: $stage_name: $((SECONDS - stage_start)) s"
        stage_name=$1 stage_start=$SECONDS
        [ -z "$1" ] || echo "== $1 =="
}
stage_name="install and build" stage_start=0

# The caches the VM, Debian 13 and Debian 11 stages need (two kernels,
# five debootstrapped roots, seven in the full run), made in the
# background while make check and the sanitizer and fuzz builds run:
# cold, that is about 30 core-minutes of downloading, unpacking and
# compiling the later stages would otherwise wait for. Each builder holds its cache's lock, so a stage that gets there
# first waits for it; warm, it costs nothing. Whatever fails here is built
# again, and reported, by the stage that needs it. Cold, the two cores are
# busy from start to end, so the priority only decides who waits: at nice 19
# the builds got only what the tests left idle; at nice 5 they get a share,
# and the tests hold under heavier load than that (two nice-0 CPU hogs).
PREFETCH_NICE=5
prefetch() {
        local vm=${NUMASTATD_SKIP_VM:-} trixie=${NUMASTATD_SKIP_TRIXIE:-} bullseye=${NUMASTATD_SKIP_BULLSEYE:-}
        local nice=(nice -n "$PREFETCH_NICE") rc=0
        [ -z "$vm" ] || [ -z "$trixie" ] || [ -z "$bullseye" ] || return 0
        vm_deps || return 1
        prefetch_start=$SECONDS
        # Roots: mostly downloads and dpkg.
        { [ -n "$trixie" ] || "${nice[@]}" ../scripts/test-trixie.sh --root-only || rc=1
          [ -n "$bullseye" ] || "${nice[@]}" ../scripts/test-trixie.sh --suite=bullseye --root-only || rc=1
          [ -n "$vm" ] || "${nice[@]}" ../tests/vm/systemd/build-rootfs.sh || rc=1
          [ -n "$vm" ] || [ -z "$full" ] || "${nice[@]}" ../tests/vm/systemd/build-rootfs.sh collectors || rc=1
          [ -n "$vm" ] || [ -n "$trixie" ] || "${nice[@]}" ../tests/vm/systemd/build-rootfs.sh trixie || rc=1
          [ -n "$vm" ] || [ -n "$bullseye" ] || "${nice[@]}" ../tests/vm/systemd/build-rootfs.sh bullseye || rc=1
          [ -n "$vm" ] || [ -n "$bullseye" ] || [ -z "$full" ] ||
                "${nice[@]}" ../tests/vm/systemd/build-rootfs.sh bullseye-collectors || rc=1
          echo "roots done after $((SECONDS - prefetch_start)) s"
          exit $rc
        } > prefetch-roots.out 2>&1 &
        prefetch_roots=$!
        # Kernels: compiling, about 13 core-minutes each.
        { [ -n "$vm" ] || { "${nice[@]}" ../tests/vm/build-kernel.sh 6.1 && "${nice[@]}" ../tests/vm/build-kernel.sh 5.10; }
          rc=$?
          echo "kernels done after $((SECONDS - prefetch_start)) s"
          exit $rc
        } > prefetch-kernels.out 2>&1 &
        prefetch_kernels=$!
}
prefetch_done() {  # says what the background builds took, once they are over
        [ -n "${prefetch_start:-}" ] || return 0
        wait "$prefetch_roots"; local roots=$?
        wait "$prefetch_kernels"; local kernels=$?
        echo "# prefetch: roots exit $roots, kernels exit $kernels;" \
                "$(tail -n 1 prefetch-roots.out), $(tail -n 1 prefetch-kernels.out) (of $((SECONDS - prefetch_start)) s)"
}

# One test per core: two per core (they mostly wait on the daemon's
# timers) was quicker, but made service.sh miss its states while the
# background builds ran.
check_jobs=$(nproc)
cd build
prefetch
stage "make check"
make -j"$check_jobs" check >check.out 2>&1
check_status=$?
cat check.out
count check.out
if [ $check_status -ne 0 ]; then
        cat test-suite.log
        [ "$count_failed" -gt 0 ] || failed=$((failed + 1))  # a build error
fi

# The tarball: it builds with -Werror, holds every tracked file
# (tests/dist-complete.sh), installs and uninstalls cleanly, and its unit
# and static checks pass. The integration tests ran above, and run again
# under ASan below: not a third time here.
stage "make distcheck"
make -j"$(nproc)" distcheck 'TESTS=$(quick_tests)' >distcheck.out 2>&1
distcheck_status=$?
grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR): |^# |archives ready|^=+$' distcheck.out | grep -vE '^PASS: ' || true
count distcheck.out
if [ $distcheck_status -ne 0 ]; then
        tail -50 distcheck.out
        # A failed check is counted above; a build, install or hook that
        # failed is one failure.
        if [ "$count_failed" -eq 0 ]; then
                failed=$((failed + 1))
                echo "FAIL: make distcheck"
        else
                echo "# make distcheck failed: its $count_failed failed checks are counted above"
        fi
else
        passed=$((passed + 1))
        echo "PASS: make distcheck (the tarball holds every tracked file, builds, passes its unit and static checks, installs and uninstalls cleanly)"
fi

# The whole suite again under AddressSanitizer and UndefinedBehaviorSanitizer:
# any report fails the test it happened in (configure makes them fatal).
stage "make check (ASan+UBSan)"
if ! (cd .. && BUILD_DIR=build-asan scripts/build.sh --enable-sanitizers --enable-werror >/dev/null); then
        echo "FAIL: building with --enable-sanitizers"
        failed=$((failed + 1))
else
        make -C ../build-asan -j"$check_jobs" check >../build-asan/check.out 2>&1
        asan_status=$?
        grep -E '^(FAIL|XPASS|ERROR|SKIP): |^# [A-Z]+: ' ../build-asan/check.out || true
        count ../build-asan/check.out
        if [ $asan_status -ne 0 ]; then
                grep -B2 -A30 -E 'ERROR: (Address|Leak)Sanitizer|runtime error' ../build-asan/test-suite.log | head -80
                # A check that failed without a report: what it printed about it.
                grep -A12 -E '^not ok ' ../build-asan/test-suite.log | head -120
                [ "$count_failed" -gt 0 ] || failed=$((failed + 1))
        fi
fi

# The full run: each libFuzzer harness for FUZZ_SECONDS (60 s each). The
# quick run replays each harness's corpus in make check (plain and under
# ASan+UBSan) instead.
if [ -n "$full" ]; then
        stage "make fuzz (libFuzzer, ${FUZZ_SECONDS:=60} s each)"
        if ! (cd .. && BUILD_DIR=build-fuzz scripts/build.sh CC=clang --enable-fuzzing --enable-werror >/dev/null); then
                echo "FAIL: building the fuzz harnesses with clang"
                failed=$((failed + 1))
        else
                make -s -C ../build-fuzz fuzz FUZZ_SECONDS="$FUZZ_SECONDS" >../build-fuzz/fuzz.out 2>&1
                fuzz_status=$?
                cat ../build-fuzz/fuzz.out
                count_tap ../build-fuzz/fuzz.out
                if [ $fuzz_status -ne 0 ] && [ "$tap_failed" -eq 0 ]; then
                        echo "FAIL: make fuzz stopped before its harnesses ran"
                        failed=$((failed + 1))
                fi
        fi
fi

# The Debian package: built from this checkout, lintian-clean, holding what
# make install installs; the systemd VM test below installs it with dpkg.
stage "Debian package (scripts/build-deb.sh, lintian)"
if deb=$(../scripts/build-deb.sh "$PWD/deb" 2>deb.err | tail -n 1) && [ -f "$deb" ]; then
        echo "PASS: $(basename "$deb") builds, and lintian reports no error and no warning"
        passed=$((passed + 1))
        bash ../tests/deb-files.sh . "$deb" >deb-files.out 2>&1
        cat deb-files.out
        count_tap deb-files.out
        export NUMASTATD_VM_DEB=$deb
else
        tail -n 40 deb.err
        echo "FAIL: building the Debian package (scripts/build-deb.sh); the VM test uses make install"
        failed=$((failed + 1))
fi

# root_package SUITE NAME UNITDIR SYSTEMD: the Debian NAME package, built
# in the SUITE root (made here if not cached) and checked by that suite's
# lintian; its units must be in UNITDIR, where SYSTEMD keeps them. The
# suite's VM test (below) installs it: NUMASTATD_VM_DEB_SUITE.
root_package() {
        local suite=$1 name=$2 unitdir=$3 systemd=$4 deb
        if deb=$(../scripts/build-deb.sh --suite="$suite" "$PWD/deb-$suite" 2>"deb-$suite.err" | tail -n 1) && [ -f "$deb" ]; then
                echo "PASS: $(basename "$deb") builds in the $suite root, and $suite's lintian reports no error and no warning"
                passed=$((passed + 1))
                if dpkg-deb -c "$deb" | grep " \.${unitdir//./\\.}/numastatd\.service\$" > /dev/null; then
                        echo "PASS: its units are in $unitdir, where $systemd keeps them"
                        passed=$((passed + 1))
                else
                        dpkg-deb -c "$deb" | grep -F numastatd.service
                        echo "FAIL: the $suite package's units are not in $unitdir"
                        failed=$((failed + 1))
                fi
                export "NUMASTATD_VM_DEB_${suite^^}=$deb"
        else
                tail -n 40 "deb-$suite.err"
                echo "FAIL: building the $name package (scripts/build-deb.sh --suite=$suite)"
                failed=$((failed + 1))
        fi
}
# The Debian 13 and 11 packages: the trixie and bullseye VM tests install them.
stage "Debian 13 package (scripts/build-deb.sh --suite=trixie, trixie's lintian)"
! trixie_ready "the Debian 13 package" || root_package trixie "Debian 13" /usr/lib/systemd/system "trixie's systemd"
stage "Debian 11 package (scripts/build-deb.sh --suite=bullseye, bullseye's lintian)"
! bullseye_ready "the Debian 11 package" || root_package bullseye "Debian 11" /lib/systemd/system "bullseye's systemd 247"

# Debian 13 (trixie): make check, built with trixie's gcc 14 and
# libsystemd 257 (the daemon and client on sd-varlink), in a trixie root
# (debootstrap, cached) on this kernel. The quick run takes the checks
# that need no daemon of their own (test-varlink-sd among them), the
# integration tests of the varlink service and the read flood (before
# libsystemd 248 the event source rate limit is our own); the full run all
# of them (the rest is the same code on the same kernel as make check
# above, and the trixie VM runs the daemon on sd-varlink under systemd 257).
root_tests='$(quick_tests) tests/integration/daemon.sh tests/integration/socket.sh tests/integration/numastatctl.sh tests/integration/limits.sh tests/integration/privacy.sh tests/integration/flood.sh'
[ -z "$full" ] || root_tests=
# root_check SUITE NAME: make check (root_tests) in the SUITE root
# (scripts/test-trixie.sh); a root, build or make check that stops before
# its checks is one failure.
root_check() {
        local suite=$1 name=$2 status
        NUMASTATD_TRIXIE_TESTS=$root_tests ../scripts/test-trixie.sh --suite="$suite" > "$suite.out" 2> "$suite.err"
        status=$?
        grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR): |^# (TOTAL|PASS|SKIP|FAIL|ERROR): ' "$suite.out" | grep -vE '^PASS: ' || true
        cat "$suite.err"
        count "$suite.out"
        if [ $status -ne 0 ] && [ "$count_failed" -eq 0 ]; then
                tail -40 "$suite.out"
                echo "FAIL: the $name root, its build or its make check stopped before its checks (see above)"
                failed=$((failed + 1))
        fi
}
stage "make check in a Debian 13 (trixie) root${root_tests:+ (its quick set)}"
! trixie_ready "Debian 13 make check" || root_check trixie "Debian 13"

# Debian 11 (bullseye): the same, built with gcc 10 against glibc 2.31,
# libsystemd 247 and 5.10's headers (the fallbacks numastatd(8) OLDER
# SYSTEMS lists), on this kernel. The bullseye VM runs the package on
# Debian 11's own kernel.
stage "make check in a Debian 11 (bullseye) root${root_tests:+ (its quick set)}"
! bullseye_ready "Debian 11 make check" || root_check bullseye "Debian 11"

# The real-kernel tests: kernels in qemu (tests/vm/), last, so that on a
# cold machine the background builds have every stage before to finish in.
# NUMASTATD_SKIP_VM=1 leaves them out, and says so.
vm_target=check-vm
[ -z "$full" ] || vm_target=check-vm-full
stage "make $vm_target"
if [ -n "${NUMASTATD_SKIP_VM:-}" ]; then
        echo "SKIP: make $vm_target (NUMASTATD_SKIP_VM is set)"
        skipped=$((skipped + 1))
elif ! vm_deps; then
        echo "FAIL: installing the VM test dependencies"
        failed=$((failed + 1))
else
        make "$vm_target" > check-vm.out 2> check-vm.err
        vm_status=$?
        cat check-vm.out
        count_tap check-vm.out
        if [ $vm_status -ne 0 ] && [ "$tap_failed" -eq 0 ]; then
                tail -40 check-vm.err
                echo "FAIL: make $vm_target stopped before its checks (see above)"
                failed=$((failed + 1))
        fi
fi

stage ""
prefetch_done
echo "# total time: $SECONDS s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
