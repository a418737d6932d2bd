#!/usr/bin/env bash
# Build a ply's frontier in K parts, one after another, each packed into a compact
# book of its own in OUT (docs/building.md, "A book grown over several sessions").
# A part already in OUT is skipped; a part stopped half-way resumes from WORK, or, on a
# fresh machine, from OUT/partial (where a session ending mid-part lands its rows, packed).
#   scripts/build_parts.sh PLY K OUT [WORK]
#   nice scripts/build_parts.sh 14 64 scripts/data/ply14-parts /tmp/ply14 &
set -euo pipefail
ply=$1 parts=$2 out=$3 work=${4:-/tmp/c4book-parts}
mkdir -p "$out" "$work"
for i in $(seq 1 "$parts"); do
    name=$(printf "part-%02d-of-%02d.db" "$i" "$parts")
    [ -e "$out/$name" ] && continue
    if [ ! -e "$work/$name" ] && [ -e "$out/partial/$name" ]; then
        cp "$out/partial/$name" "$work/$name"
    fi
    c4book build --ply "$ply" --part "$i/$parts" --db "$work/$name" --no-progress
    c4book pack --db "$work/$name"
    # VACUUM INTO: the packed part alone, without the pages its rows left free.
    python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("VACUUM INTO ?", (sys.argv[2],))' \
        "$work/$name" "$out/$name.tmp"
    mv "$out/$name.tmp" "$out/$name"
    rm -f "$work/$name" "$work/$name-wal" "$work/$name-shm" "$out/partial/$name"
    echo "$(date -u +%FT%TZ) $name done"
done
