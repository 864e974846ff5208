#!/usr/bin/env python3
"""Compile our own C files once more with -Werror.

QEMU is configured with --disable-werror, so that a warning in one of
QEMU's own files (Debian's tree, a newer compiler) does not stop the
build.  Our files must still be warning-free: this takes each of them
from the build's compile_commands.json, adds -Werror and compiles it to
a scratch object.  A file that warns fails the build, with the warning.

Usage: werror-check.py TOP QEMU_TREE QEMU_BUILD

The result is kept in QEMU_BUILD/.werror-ok under a hash of our files,
the patches and the commands, so that an unchanged tree is not compiled
twice; the hash decides, the stamp is never trusted on its own.
"""

import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile

# Where our C files live, relative to the top of the repository and to
# the QEMU tree alike (the overlay places them at the same paths)
OUR_DIRS = ('hw', 'tests/qtest')


def our_files(top):
    for d in OUR_DIRS:
        for root, _, names in os.walk(os.path.join(top, d)):
            for name in names:
                if name.endswith('.c'):
                    yield os.path.relpath(os.path.join(root, name), top)


def strict_command(entry, scratch):
    """The entry's compiler command, with -Werror and a scratch output"""
    args = shlex.split(entry['command'])
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in ('-o', '-MQ', '-MF'):
            skip = True
            continue
        if arg == '-MD':
            continue
        out.append(arg)
    return out + ['-Werror', '-o', scratch]


def digest(top, entries):
    h = hashlib.sha256()
    paths = sorted(p for d in ('hw', 'include', 'tests/qtest',
                               'patches/qemu')
                   for p in (os.path.join(r, n)
                             for r, _, ns in os.walk(os.path.join(top, d))
                             for n in ns))
    for p in paths:
        h.update(p.encode())
        with open(p, 'rb') as f:
            h.update(f.read())
    for e in entries:
        h.update(e['command'].encode())
    return h.hexdigest()


def main():
    top, tree, build = sys.argv[1:4]
    with open(os.path.join(build, 'compile_commands.json')) as f:
        db = json.load(f)
    by_file = {}
    for e in db:
        path = os.path.realpath(os.path.join(e['directory'], e['file']))
        by_file.setdefault(path, []).append(e)

    entries, unbuilt = [], []
    for rel in sorted(our_files(top)):
        found = by_file.get(os.path.realpath(os.path.join(tree, rel)))
        if found:
            entries.append((rel, found[0]))
        else:
            unbuilt.append(rel)

    stamp = os.path.join(build, '.werror-ok')
    key = digest(top, [e for _, e in entries])
    if os.path.exists(stamp) and open(stamp).read().strip() == key:
        return 0

    def compile_one(item):
        rel, entry = item
        with tempfile.TemporaryDirectory() as tmp:
            cmd = strict_command(entry, os.path.join(tmp, 'o.o'))
            r = subprocess.run(cmd, cwd=entry['directory'],
                               capture_output=True, text=True)
        return rel, r.returncode, r.stderr

    failed = []
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        for rel, rc, err in ex.map(compile_one, entries):
            if rc:
                failed.append(rel)
                sys.stderr.write(err)
    if failed:
        print('error: our files warn under -Werror: ' + ', '.join(failed),
              file=sys.stderr)
        return 1
    with open(stamp, 'w') as f:
        f.write(key + '\n')
    print(f'-Werror: {len(entries)} of our files compile without warnings'
          + (f' ({len(unbuilt)} not in this build: {", ".join(unbuilt)})'
             if unbuilt else ''), file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
