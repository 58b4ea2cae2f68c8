#!/bin/sh
# Configures and builds numastatd out of tree in ./build (VPATH), or in
# $BUILD_DIR (build-asan, build-fuzz: scripts/test.sh). Extra arguments go to
# configure (CC=clang is one).
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
[ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ] || ./autogen.sh >/dev/null
builddir=${BUILD_DIR:-build}
mkdir -p "$builddir"
cd "$builddir"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ] || [ $# -gt 0 ]; then
        "$top/configure" --sysconfdir=/etc "$@" >configure.out || { cat configure.out config.log >&2; exit 1; }
fi
make -j"$(nproc)" >make.out 2>&1 || { cat make.out >&2; exit 1; }
echo "build.sh: built $builddir/numastatd and $builddir/numastatctl"
