#!/usr/bin/env bash
# Cross-build a static arm64 fio from Debian 13's fio source package.
# Debian's arm64 fio binary pulls in librbd, glusterfs, RDMA, PMEM, ...;
# a static build with only the built-in engines (psync, io_uring, libaio-less)
# fits in the initramfs.  The result is cached under a hash of the source
# version and the compiler, and linked as build/guest/fio.
. "$(dirname "$0")/common.sh"

CROSS=${CROSS:-aarch64-linux-gnu-}
ver=$(apt_private_update trixie; apt_private trixie apt-cache showsrc fio 2>/dev/null |
      sed -n 's/^Version: //p' | head -n1)
[ -n "$ver" ] || die "Debian 13 has no fio source package"
key=$( { echo "fio $ver"; ${CROSS}gcc --version | head -n1; cat "$0"; } | sha256sum | cut -c1-12)
out=$CACHE/fio/fio-arm64-$key
mkdir -p "$GUEST" "$CACHE/fio"
if [ ! -x "$out" ]; then
    src=$BUILD/fio-src
    rm -rf "$src"; mkdir -p "$src"
    log "fetching the fio $ver source (Debian 13)"
    (cd "$src" && apt_private trixie apt-get -q source "fio=$ver" >&2)
    tree=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name 'fio-*' | head -n1)
    [ -n "$tree" ] || die "apt-get source fio did not unpack a tree"
    log "cross-building a static fio"
    (cd "$tree" &&
     ./configure --cc="${CROSS}gcc" --build-static --disable-native \
         --disable-numa --disable-rdma --disable-rados \
         --disable-rbd --disable-gfapi --disable-libnfs --disable-pmem \
         --disable-xnvme --disable-libblkio --disable-tcmalloc >&2 &&
     make -j"$(nproc)" fio >&2)
    ${CROSS}strip -o "$out.tmp" "$tree/fio"
    mv "$out.tmp" "$out"
fi
ln -sf "$out" "$GUEST/fio"
echo "$GUEST/fio"
