#!/usr/bin/env bash
# TAP: every commit subject since the project adopted the rule has at
# most 72 characters, so that `git log --oneline` reads on one screen;
# the why goes in the body.  Commits before $SINCE are history.
. "$(dirname "$0")/common.sh"

SINCE=6d0efe5           # the last commit with a longer subject
MAX=72

if git -C "$TOP" cat-file -e "$SINCE^{commit}" 2>/dev/null; then
    range=$SINCE..HEAD
else
    range="-50 HEAD"    # a shallow clone: its newest commits
fi
# One case, so that tests/suites.list need not follow the history
# shellcheck disable=SC2086
long=$(git -C "$TOP" log --no-merges --format='%h %s' $range |
       awk -v max="$MAX" 'length($0) - index($0, " ") > max')
count=$(git -C "$TOP" rev-list --no-merges --count $range)
if [ -z "$long" ]; then
    echo "ok 1 $count commit subjects ($range) of at most $MAX characters"
else
    echo "not ok 1 commit subjects ($range) over $MAX characters:"
    echo "$long" | sed 's/^/#   /'
fi
echo "1..1"
[ -z "$long" ]
