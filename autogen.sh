#!/bin/sh
# Generates configure from configure.ac (needs autoconf, automake, libtool, pkg-config).
set -e
cd "$(dirname "$0")"
autoreconf --force --install --verbose >/dev/null
echo "Now run ./configure && make"
