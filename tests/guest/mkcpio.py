#!/usr/bin/env python3
"""Write a gzip-compressed "newc" cpio archive, as the kernel's
usr/gen_init_cpio does, from a directory tree plus device nodes, without
needing root for the device nodes.

usage: mkcpio.py ROOT OUTPUT.cpio.gz [--node PATH:MODE:c|b:MAJOR:MINOR ...]
"""

import argparse
import gzip
import os
import stat


def header(ino, mode, nlink, size, rdev, name):
    major, minor = (os.major(rdev), os.minor(rdev)) if rdev else (0, 0)
    fields = (ino, mode, 0, 0, nlink, 0, size, 0, 0, major, minor,
              len(name) + 1, 0)
    return b'070701' + b''.join(b'%08X' % f for f in fields)


def pad4(n):
    return b'\0' * (-n % 4)


def entry(ino, mode, name, data=b'', rdev=0):
    nlink = 2 if stat.S_ISDIR(mode) else 1
    hdr = header(ino, mode, nlink, len(data), rdev, name)
    blob = hdr + name.encode() + b'\0'
    blob += pad4(len(blob))
    return blob + data + pad4(len(data))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('root')
    ap.add_argument('output')
    ap.add_argument('--node', action='append', default=[])
    args = ap.parse_args()

    out = []
    ino = 721
    for spec in args.node:
        path, mode, kind, major, minor = spec.split(':')
        kind_bits = stat.S_IFCHR if kind == 'c' else stat.S_IFBLK
        out.append(entry(ino, kind_bits | int(mode, 8), path.lstrip('/'),
                         rdev=os.makedev(int(major), int(minor))))
        ino += 1
    for dirpath, dirnames, filenames in os.walk(args.root):
        dirnames.sort()
        for name in sorted(dirnames) + sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, args.root)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                data = os.readlink(full).encode()
            elif stat.S_ISREG(st.st_mode):
                with open(full, 'rb') as f:
                    data = f.read()
            else:
                data = b''
            out.append(entry(ino, st.st_mode, rel, data))
            ino += 1
    out.append(entry(0, 0, 'TRAILER!!!'))
    with gzip.open(args.output, 'wb', compresslevel=9) as f:
        f.write(b''.join(out))


if __name__ == '__main__':
    main()
