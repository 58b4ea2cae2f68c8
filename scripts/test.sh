#!/bin/bash
# Installs dependencies, builds with -Werror and runs every test: the unit
# and integration tests (make check, out of tree), then make distcheck, which
# rebuilds from the release tarball and runs them again. Ends with one line
# "N passed, N failed, N skipped" over every check of both runs.
set -u
cd "$(dirname "$0")/.."
scripts/install-deps.sh || exit 1
scripts/build.sh --enable-werror || { echo "0 passed, 1 failed"; exit 1; }

passed=0 failed=0 skipped=0
count() {  # count LOGFILE: adds automake's per-check result lines
        local p f s
        p=$(grep -cE '^(PASS|XFAIL): ' "$1")
        f=$(grep -cE '^(FAIL|XPASS|ERROR): ' "$1")
        s=$(grep -cE '^SKIP: ' "$1")
        passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

cd build
make -j"$(nproc)" check >check.out 2>&1
check_status=$?
cat check.out
count check.out
if [ $check_status -ne 0 ]; then
        cat test-suite.log
        [ "$(grep -cE '^(FAIL|XPASS|ERROR): ' check.out)" -gt 0 ] || failed=$((failed + 1))  # a build error
fi

echo "== make distcheck =="
make -j"$(nproc)" distcheck >distcheck.out 2>&1
distcheck_status=$?
grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR): |^# |archives ready|^=+$' distcheck.out | grep -vE '^PASS: ' || true
count distcheck.out
if [ $distcheck_status -ne 0 ]; then
        tail -50 distcheck.out
        failed=$((failed + 1))
        echo "FAIL: make distcheck"
else
        passed=$((passed + 1))
        echo "PASS: make distcheck (tarball builds, tests pass, installs and uninstalls cleanly)"
fi

# The real-kernel tests: kernels in qemu (tests/vm/). NUMASTATD_SKIP_VM=1
# leaves them out, and says so.
echo "== make check-vm =="
if [ -n "${NUMASTATD_SKIP_VM:-}" ]; then
        echo "SKIP: make check-vm (NUMASTATD_SKIP_VM is set)"
        skipped=$((skipped + 1))
elif ! ../scripts/install-vm-deps.sh > vm-deps.out 2>&1; then
        cat vm-deps.out
        echo "FAIL: installing the VM test dependencies"
        failed=$((failed + 1))
else
        make check-vm > check-vm.out 2> check-vm.err
        vm_status=$?
        cat check-vm.out
        p=$(grep -cE '^ok [0-9]+' check-vm.out)
        s=$(grep -cE '^ok [0-9]+.*# SKIP' check-vm.out)
        f=$(grep -cE '^not ok [0-9]+' check-vm.out)
        passed=$((passed + p - s)) skipped=$((skipped + s)) failed=$((failed + f))
        if [ $vm_status -ne 0 ] && [ "$f" -eq 0 ]; then
                tail -40 check-vm.err
                echo "FAIL: make check-vm stopped before its checks (see above)"
                failed=$((failed + 1))
        fi
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
