#!/usr/bin/env python3
"""Rewrite patches/qemu/ from a git repository of the series: the way back
from `make export-patches`.

Export the series, change it with git in build/patches/qemu (rebase -i,
amend, reorder), then run this script: each commit after the pristine
root becomes patches/qemu/NNNN-*.patch, and its series line names the
files of ours that the commit adds.  Each file of ours is whole in the
commit that adds it: fold a later change to it into that commit (git
rebase) first, as make export-patches refuses a patch that changes one.
The exporter's identity goes back to the project placeholder.
Our files themselves are not touched: copy the final ones back yourself
if you changed them in the repository."""
import argparse
import glob
import os
import re
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLACEHOLDER = 'R-Car Gen3 QEMU <rcar-gen3@localhost>'
OURS = ['hw', 'include', 'tests/qtest', 'tests/functional', 'docs',
        'configs', 'scripts/rcar-gen3-memmap.py']


def git(repo, *args):
    return subprocess.check_output(('git', '-C', repo) + args, text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('repo', nargs='?',
                    default=os.path.join(TOP, 'build', 'patches', 'qemu'))
    args = ap.parse_args()
    me = '%s <%s>' % (git(TOP, 'config', 'user.name').strip(),
                      git(TOP, 'config', 'user.email').strip())
    ours = set(git(TOP, 'ls-files', *OURS).split())
    root = git(args.repo, 'rev-list', '--max-parents=0', 'HEAD').strip()
    commits = git(args.repo, 'rev-list', '--reverse', f'{root}..HEAD').split()
    outdir = os.path.join(TOP, 'patches', 'qemu')
    with open(os.path.join(outdir, 'series')) as f:
        header = [line for line in f if line.startswith('#')]
    for old in glob.glob(os.path.join(outdir, '*.patch')):
        os.remove(old)
    lines = []
    for n, commit in enumerate(commits, 1):
        added = []
        for entry in git(args.repo, 'diff-tree', '--no-commit-id',
                         '--name-status', '-r', commit).splitlines():
            status, path = entry.split('\t', 1)
            if status == 'A' and path in ours:
                added.append(path)
        name = git(args.repo, 'format-patch', '-1', '--zero-commit',
                   f'--start-number={n}', '-o', outdir, commit, '--', '.',
                   *[f':(exclude){f}' for f in added]).strip()
        with open(name) as f:
            text = f.read()
        text = re.sub(r'^Subject: \[PATCH\] ',
                      f'Subject: [PATCH {n}/{len(commits)}] ', text,
                      count=1, flags=re.M)
        text = text.replace(me, PLACEHOLDER)
        # format-patch folds a long From: over two lines
        text = re.sub(r'^From: .*\n(?: .*\n)*', f'From: {PLACEHOLDER}\n',
                      text, count=1, flags=re.M)
        with open(name, 'w') as f:
            f.write(text)
        lines.append(os.path.basename(name) + ':' +
                     ''.join(' ' + f for f in sorted(added)) + '\n')
    with open(os.path.join(outdir, 'series'), 'w') as f:
        f.writelines(header + lines)
    print(f'{len(commits)} patches in {outdir}')


if __name__ == '__main__':
    main()
