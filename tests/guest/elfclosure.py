#!/usr/bin/env python3
#
# Copy ELF binaries from an unpacked package tree into a root file system,
# with the dynamic loader and every shared library they need, found the way
# the loader would (DT_NEEDED, recursively, in the multiarch directories).
#
# Usage: elfclosure.py STAGE ROOT BINARY...   (paths relative to STAGE)
#
# SPDX-License-Identifier: GPL-2.0-or-later

import os
import re
import shutil
import subprocess
import sys

LIB_DIRS = ('usr/lib/aarch64-linux-gnu', 'lib/aarch64-linux-gnu', 'usr/lib',
            'lib')
READELF = os.getenv('READELF', 'aarch64-linux-gnu-readelf')


def elf_info(path):
    out = subprocess.run([READELF, '-d', '-l', path], check=True,
                         capture_output=True, text=True).stdout
    needed = re.findall(r'\(NEEDED\)\s+Shared library: \[(.+?)\]', out)
    interp = re.findall(r'Requesting program interpreter: (.+?)\]', out)
    runpath = [d.lstrip('/') for paths in
               re.findall(r'\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: '
                          r'\[(.+?)\]', out)
               for d in paths.split(':')]
    return needed, interp, runpath


def copy_path(stage, root, rel):
    """Copy stage/rel to root/rel, following symlinks inside the stage."""
    src, dst = os.path.join(stage, rel), os.path.join(root, rel)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.islink(src):
        target = os.readlink(src)
        if not os.path.lexists(dst):
            os.symlink(target, dst)
        resolved = os.path.normpath(os.path.join(os.path.dirname(rel), target)
                                    if not target.startswith('/')
                                    else target.lstrip('/'))
        return copy_path(stage, root, resolved)
    if not os.path.lexists(dst):
        shutil.copy2(src, dst)
    return rel


def find_lib(stage, name, runpath=()):
    for d in (*runpath, *LIB_DIRS):
        rel = os.path.join(d, name)
        if os.path.lexists(os.path.join(stage, rel)):
            return rel
    sys.exit(f'elfclosure: no {name} in the unpacked packages')


def find_interp(stage, path):
    """The loader at the path the binary names; merged-/usr packages ship
    /lib/... as /usr/lib/..., and the root has /lib -> usr/lib."""
    rel = path.lstrip('/')
    for cand in (rel, os.path.join('usr', rel)):
        if os.path.lexists(os.path.join(stage, cand)):
            return cand
    sys.exit(f'elfclosure: no loader {path} in the unpacked packages')


def main():
    stage, root, binaries = sys.argv[1], sys.argv[2], sys.argv[3:]
    todo = list(binaries)
    done = set()
    while todo:
        rel = copy_path(stage, root, todo.pop())
        if rel in done:
            continue
        done.add(rel)
        needed, interp, runpath = elf_info(os.path.join(stage, rel))
        for path in interp:
            todo.append(find_interp(stage, path))
        for name in needed:
            todo.append(find_lib(stage, name, runpath))
    print(f'elfclosure: {len(done)} files for {len(binaries)} binaries')


if __name__ == '__main__':
    main()
