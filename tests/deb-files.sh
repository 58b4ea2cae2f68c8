#!/bin/bash
# deb-files.sh BUILDDIR DEB: the package holds what make install installs
# (with prefix /usr and sysconfdir /etc, as the package is configured),
# and the package's own files besides (/usr/share/doc/numastatd); man pages
# compressed. TAP.
set -u
BUILDDIR=$1 DEB=$2
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }

# Units where this release's systemd keeps them, as configure picks in the package.
make -s -C "$BUILDDIR" install DESTDIR="$D/inst" prefix=/usr sysconfdir=/etc \
        systemdsystemunitdir="$(pkg-config --variable=systemdsystemunitdir systemd)" > "$D/install.log" 2>&1
ok $? "make install into a staging directory"
(cd "$D/inst" && find . ! -type d | sed 's|^\.||; s|\.gz$||' | sort) > "$D/make-install"
dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\.||; s|\.gz$||' |
        grep -v '^/usr/share/doc/numastatd/' | sort > "$D/deb"
DIFF=$(diff "$D/make-install" "$D/deb")
ok $([ -z "$DIFF" ]; echo $?) "dpkg-deb -c lists what make install installs ($(wc -l < "$D/deb") files)"
[ -z "$DIFF" ] || echo "$DIFF" | sed 's/^/#   /'
ok $(dpkg-deb -c "$DEB" | grep -q ' ./usr/share/doc/numastatd/copyright$'; echo $?) "  and its copyright file"
ok $(dpkg-deb -f "$DEB" Depends | grep -q 'libnl-genl-3-200'; echo $?) \
   "Depends: from the libraries it links (\${shlibs:Depends}: $(dpkg-deb -f "$DEB" Depends))"
echo "1..$n"
[ "$failed" -eq 0 ]
