# Sourced by the scripts in scripts/: what both README commands need on a fresh Debian 12
# machine, as root (CI) or as a user with sudo.
set -euo pipefail

IDGEN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PG_MAJOR=15                 # the major of Debian 12's packages, the one every layer runs on
# PG_CONFIG picks another PostgreSQL installation (its bin directory holds pg_config);
# by default Debian's PostgreSQL 15, installed below when missing. scripts/postgres MAJOR
# provides others (17, 18) and prints their pg_config.
PG_BINDIR=$(dirname "${PG_CONFIG:-/usr/lib/postgresql/$PG_MAJOR/bin/pg_config}")
export PATH="$PG_BINDIR:$PATH"

# Makes the PostgreSQL of this pg_config the one later commands build for and run.
use_postgres() {
    PG_BINDIR=$(dirname "$1")
    export PATH="$PG_BINDIR:$PATH"
}
# The version ("17.11") and the major ("17") of the PostgreSQL a pg_config belongs to.
pg_version() { "$1" --version | sed -e 's/^PostgreSQL //' -e 's/ .*//'; }
pg_major() { pg_version "$1" | sed -e 's/[^0-9].*//'; }

IDGEN_PACKAGES=(
    build-essential postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR postgresql-contrib
    libgtest-dev libipc-run-perl faketime libfaketime python3
    libclang-rt-14-dev
    libcurl4-openssl-dev nlohmann-json3-dev libpq-dev
    patroni etcd-server etcd-client python3-psycopg2 openssl pgbouncer postgresql-$PG_MAJOR-partman
    iproute2 iptables
    libkrb5-dev   # the gssapi headers that PostgreSQL 15's server headers include (building pg_tle: scripts/pg_tle)
    clang-format-14   # the layout of the C++ (.clang-format), which scripts/check-structure checks
)

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# PostgreSQL's initdb and postgres refuse to run as root: as root, servers and the tests that
# start them run as the postgres user; anyone else runs them as themselves.
db_user() {
    if [ "$(id -u)" -eq 0 ]; then echo postgres; else id -un; fi
}
as_db_user() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

install_packages() {
    local missing=()
    for p in "${IDGEN_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        say "Debian packages: all present"
        return
    fi
    say "Installing Debian packages: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

build_and_install() {
    say "Building idgen and installing it into PostgreSQL $(pg_version "$PG_BINDIR/pg_config") ($PG_BINDIR)"
    make -C "$IDGEN_ROOT" -s PG_CONFIG="$PG_BINDIR/pg_config" all
    as_root make -C "$IDGEN_ROOT" -s PG_CONFIG="$PG_BINDIR/pg_config" install
}

# A third party's release the tests build or run (Citus, pg_tle, pg_uuidv7) into DIR/TARBALL: from
# the directory IDGEN_VENDOR_DIR names (by default a vendor directory kept beside the checkout),
# or, where it is absent, downloaded from URL; either way it must have the SHA-256 given.
# Usage: fetch_vendored TARBALL SHA256 URL DIR
fetch_vendored() {
    local tarball=$1 sha256=$2 url=$3 dir=$4
    local vendored=${IDGEN_VENDOR_DIR:-$IDGEN_ROOT/../shared/vendor}/$tarball
    if [ -f "$vendored" ]; then
        cp "$vendored" "$dir/$tarball"
    else
        say "$tarball: not in $(dirname "$vendored"); downloading $url"
        curl -fsSL -o "$dir/$tarball" "$url" ||
            { echo "$0: $tarball is not in $(dirname "$vendored") and could not be downloaded from $url" >&2; return 1; }
    fi
    echo "$sha256  $dir/$tarball" | sha256sum -c --quiet - ||
        { echo "$0: $tarball does not have the SHA-256 of its release ($sha256)" >&2; return 1; }
}

# A directory the database user can write to, holding a copy of the checkout when that user
# is not us (a root checkout may live where postgres cannot even read).
db_workdir() {
    local dir
    dir=$(mktemp -d /tmp/idgen-"$1".XXXXXX)
    if [ "$(id -u)" -eq 0 ]; then
        cp -a "$IDGEN_ROOT"/. "$dir"/
        chown -R postgres: "$dir"
    else
        ln -s "$IDGEN_ROOT" "$dir/src"
        dir="$dir/src"
    fi
    echo "$dir"
}
