#!/usr/bin/env bash
# Builds a Redis 8 server (vector sets: VADD/VSIM) for the tests of semantic search on vector sets
# (test/integration/search-vector-sets.test.ts). Debian 12 ships Redis 7.0, and no package
# registry this project reaches has a Redis 8 binary for it, but Debian 13's source package does
# have the Redis 8.0.2 source: this script fetches it with apt-get (a private apt configuration, so
# the machine's own sources are not touched), checks its SHA-256, and builds redis-server alone
# with the installed gcc and make (libc malloc: no jemalloc build; ~2-3 min of CPU on 2 cores).
#
# Prints the path of the server. Reuses a build already there. Where: $REDIS8_DIR, else
# /var/cache/agentrooms/redis-8.0.2 (root) or ~/.cache/agentrooms/redis-8.0.2.
set -euo pipefail

VERSION=8.0.2
SHA256=caf3c0069f06fc84c5153bd2a348b204c578de80490c73857bee01d9b5d7401f
if [ -n "${REDIS8_DIR:-}" ]; then dir=$REDIS8_DIR
elif [ "$(id -u)" = 0 ]; then dir=/var/cache/agentrooms/redis-$VERSION
else dir=$HOME/.cache/agentrooms/redis-$VERSION; fi
server=$dir/redis-server

if [ -x "$server" ] && "$server" --version | grep -q "v=$VERSION"; then echo "$server"; exit 0; fi
command -v gcc >/dev/null && command -v make >/dev/null ||
  { echo "redis8: needs gcc and make (apt-get install -y build-essential)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$dir"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian trixie main" > "$work/apt/sources.list"
apt=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache")
echo "redis8: fetching the Redis $VERSION source from Debian (trixie)" >&2
apt-get "${apt[@]}" -qq update >&2
# Only the upstream tarball is needed; the Debian patches and .dsc may live in another suite.
(cd "$work" && apt-get "${apt[@]}" source --download-only redis >&2 || true)
tarball="$work/redis_$VERSION.orig.tar.gz"
[ -f "$tarball" ] || { echo "redis8: the Redis $VERSION source was not found in Debian's trixie sources" >&2; exit 1; }
echo "$SHA256  $tarball" | sha256sum -c --quiet - >&2 ||
  { echo "redis8: the source's SHA-256 is not the one pinned here" >&2; exit 1; }
tar xzf "$tarball" -C "$work"
echo "redis8: building redis-server (make MALLOC=libc)" >&2
make -s -j"$(nproc)" -C "$work/redis-$VERSION/src" MALLOC=libc BUILD_TLS=no redis-server >&2
cp "$work/redis-$VERSION/src/redis-server" "$server.tmp"
mv "$server.tmp" "$server"
"$server" --version >&2
echo "$server"
