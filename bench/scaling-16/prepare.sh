#!/usr/bin/env bash
# The 16-core scaling benchmark's packing step (docs/benchmark-scaling-16.md): the machine with
# many cores has no network and no PostgreSQL, so this carries both to it.
# Run from the project's root after `make install`: fills the git-ignored folder .pgdev with
# Debian 12's PostgreSQL 15 packages (debs.txt, unpacked later with dpkg -x, never installed),
# the installed idgen build, the no-op floor from bench/noop.c, and bench.sh. On a machine with
# many cores and no network, `bash .pgdev/bench.sh` then unpacks them under /tmp, starts a
# throwaway cluster as a non-root user and runs pgbench with 1, 2, 4, 8 and 16 clients per
# function; tables go to $OUT (default /tmp/bench_out): scaling.md, scaling.csv, bench.log.
# Knobs: BENCH_T (seconds per run), BENCH_CLIENTS, BENCH_FUNCS ('|'-separated SQL expressions).
set -eu
here=$(cd "$(dirname "$0")" && pwd); d=$PWD/.pgdev
[[ -d .git ]] || { echo "run from the project's root"; exit 1; }
mkdir -p .git/info "$d/idgen"; grep -qx '/.pgdev/' .git/info/exclude 2>/dev/null || echo '/.pgdev/' >>.git/info/exclude
(cd "$d" && apt-get download $(cat "$here/debs.txt"))
lib=$(pg_config --pkglibdir); ext=$(pg_config --sharedir)/extension
cp "$lib/idgen.so" "$ext/idgen.control" "$ext"/idgen--*.sql "$d/idgen/"
gcc -O2 -shared -fPIC -I"$(pg_config --includedir-server)" -o "$d/idgen/bench_noop.so" bench/noop.c
cp "$here/bench.sh" "$d/bench.sh"
du -sh "$d"
