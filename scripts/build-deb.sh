#!/usr/bin/env bash
# make deb: a Debian package of our qemu-system-aarch64 that a kernel-CI
# container installs.  KernelCI's kernelci/qemu image and tuxrun's run
# Debian trixie, so the package is built as trixie builds its own: in a
# trixie root made with debootstrap, with trixie's gcc 14 and headers, and
# its Depends computed from trixie's libraries (libglib2.0-0t64...).  The
# binary of this bookworm host, packaged as it is, installs and runs there
# too (trixie's renamed libraries provide the old names: tried), but it
# is a bookworm build, which trixie's compiler has never seen.
#
#   package  qemu-system-rcar-gen3
#   binary   /usr/bin/qemu-system-aarch64-rcar, beside Debian's own
#            qemu-system-aarch64 (qemu-system-arm), which it does not touch
#   data     none of its own: the boards load no file; what -bios and
#            -L name comes from Debian's packages in /usr/share/qemu,
#            where the binary looks (relative to its own path)
#
# The build root is cached by what goes into it; the build itself by the
# content of the QEMU tree (scripts/qemu-tree.sh) and of this script.
# Prints the path of the .deb.
. "$(dirname "$0")/common.sh"

. "$TOP/scripts/deb-root.sh"

# What QEMU's configure needs for QEMU_CONFIGURE_OPTIONS, and dpkg-dev for
# dpkg-shlibdeps
DEB_BUILD_PKGS=(gcc libc6-dev make ninja-build meson pkgconf python3
                python3-venv libglib2.0-dev libfdt-dev libslirp-dev
                zlib1g-dev flex bison dpkg-dev binutils)

"$TOP/scripts/qemu-tree.sh" >/dev/null

version=$(cat "$QEMU_TREE/VERSION")
# Newer commits sort higher (the commit's time first); a tree with
# changes that are not committed says so
commit=$(TZ=UTC git -C "$TOP" log -1 --format='%cd.g%h' \
             --date=format-local:%Y%m%d%H%M%S)
[ -z "$(git -C "$TOP" status --porcelain -- hw include tests patches configs)" ] ||
    commit+=.dirty
deb_version="$version+rcar.$commit"
# The tree's content, not its timestamps: a rebuild only when a file changed
key=$( { (cd "$QEMU_TREE" && find . -path ./build -prune -o -type f -print0 |
          sort -z | xargs -0 sha256sum); cat "$0" "$TOP/scripts/deb-root.sh";
         echo "${QEMU_CONFIGURE_OPTIONS[*]} $deb_version"; } |
       sha256sum | cut -c1-16)
out=$BUILD/deb
cached=$CACHE/deb/pkg-$key
if [ -f "$cached/.done" ]; then
    mkdir -p "$out"; rm -f "$out"/*.deb
    cp "$cached"/*.deb "$out/"
    ls "$out"/*.deb; exit 0
fi

root=$(trixie_root build "${DEB_BUILD_PKGS[@]}")
arch=$(in_root "$root" dpkg --print-architecture)
deb=$out/${DEB_PACKAGE}_${deb_version}_$arch.deb
log "copying the QEMU tree into the $DEB_SUITE root"
as_root mkdir -p "$root/build/src" "$root/build/obj"
# By content, not size and time: a file that changed is written again and
# gets a new time, which ninja sees, whatever time its source had
as_root rsync -rlpD --checksum --delete --exclude=/build "$QEMU_TREE"/ \
    "$root/build/src/"

log "building $DEB_BINARY in Debian $DEB_SUITE (prefix /usr)"
# Configured again when the options or configure itself change
options="--prefix=/usr ${QEMU_CONFIGURE_OPTIONS[*]} $(sha256sum < "$QEMU_TREE/configure" | cut -c1-12)"
in_root "$root" /bin/sh -c "cd /build/obj &&
    { { [ -f build.ninja ] && [ \"\$(cat .options)\" = '$options' ]; } ||
      { /build/src/configure ${options% *} >configure.log 2>&1 &&
        echo '$options' > .options; } ||
      { tail -30 configure.log; exit 1; }; } &&
    ninja qemu-system-aarch64 >ninja.log 2>&1 ||
        { tail -30 ninja.log; exit 1; }" >&2 ||
    die "the build in the $DEB_SUITE root failed"

log "packaging $DEB_PACKAGE $deb_version"
pkg=$root/build/pkg
remove_root "$pkg"
as_root mkdir -p "$pkg/usr/bin" "$pkg/usr/share/doc/$DEB_PACKAGE" "$pkg/DEBIAN"
as_root install -m 0755 "$root/build/obj/qemu-system-aarch64" \
    "$pkg/usr/bin/$DEB_BINARY"
in_root "$root" strip --strip-debug --remove-section=.comment \
    "/build/pkg/usr/bin/$DEB_BINARY"
as_root install -m 0644 /dev/stdin "$pkg/usr/share/doc/$DEB_PACKAGE/copyright" <<EOT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: QEMU with the R-Car Gen3 boards
Source: https://www.qemu.org/ and the R-Car Gen3 series (make export-patches)

Files: *
Copyright: QEMU's authors; the R-Car Gen3 QEMU authors
License: GPL-2
 QEMU as a whole is under the GNU General Public License version 2; the
 R-Car Gen3 files are GPL-2.0-or-later.  On Debian systems the full text
 of the GNU General Public License version 2 is in
 /usr/share/common-licenses/GPL-2.
EOT
as_root install -m 0644 /dev/stdin "$pkg/usr/share/doc/$DEB_PACKAGE/README.Debian" <<EOT
$DEB_BINARY is QEMU $version with the Renesas R-Car Gen3 boards:
$(git -C "$TOP" log -1 --format='commit %H of %cd' --date=short).

  $DEB_BINARY -M help | grep -E 'salvator|ebisu|ulcb'

It is qemu-system-aarch64 under its own name, beside Debian's
qemu-system-arm; the firmware and data files that -bios and -L name
come from Debian's packages (qemu-system-data, ipxe-qemu,
qemu-efi-aarch64) in /usr/share/qemu.  A kernel
CI job points its QEMU binary at it (tuxrun --qemu-binary, a LAVA device
type's qemu_binary); see docs/system/arm/rcar-gen3.rst, "Kernel CI".
EOT
# Depends: what dpkg-shlibdeps finds in trixie for the binary's libraries
shlibs=$(in_root "$root" /bin/sh -c "cd /build/pkg && mkdir -p debian &&
    printf 'Source: x\n\nPackage: $DEB_PACKAGE\nArchitecture: any\n' \
        > debian/control &&
    dpkg-shlibdeps -O usr/bin/$DEB_BINARY; rc=\$?; rm -rf debian; exit \$rc" |
    sed -n 's/^shlibs:Depends=//p')
[ -n "$shlibs" ] || die "dpkg-shlibdeps found no library of $DEB_BINARY"
size=$(as_root du -sk --exclude=DEBIAN "$pkg" | cut -f1)
as_root install -m 0644 /dev/stdin "$pkg/DEBIAN/control" <<EOT
Package: $DEB_PACKAGE
Version: $deb_version
Architecture: $arch
Maintainer: $DEB_MAINTAINER
Installed-Size: $size
Depends: $shlibs
Suggests: qemu-system-data, ipxe-qemu, qemu-efi-aarch64
Section: otherosfs
Priority: optional
Description: QEMU with the Renesas R-Car Gen3 boards for kernel CI
 qemu-system-aarch64-rcar: QEMU $version for aarch64 with the R-Car Gen3
 boards (Salvator-XS with H3 and M3-N, Ebisu with E3, the H3, H3e-2G and
 M3-N ULCB starter kits): their SD/MMC hosts with DMA through the IPMMU,
 booting unmodified upstream kernels and device trees.  It installs
 beside Debian's own qemu-system-aarch64.
EOT
mkdir -p "$out"; rm -f "$out"/*.deb
as_root dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >&2
rm -rf "$cached"; mkdir -p "$cached"
cp "$deb" "$cached/"; touch "$cached/.done"
echo "$deb"
