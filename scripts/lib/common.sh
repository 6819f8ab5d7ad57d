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
    libcurl4-openssl-dev nlohmann-json3-dev libpq-dev libssl-dev
    patroni etcd-server etcd-client python3-psycopg2 openssl pgbouncer postgresql-$PG_MAJOR-partman
    iproute2 iptables
    procps            # pgrep, which TAP tests use to find a server's processes
    clang-format-14   # the layout of the C++ (.clang-format), which scripts/check-structure checks
)
# What the scripts that fetch third-party releases need when the vendor directory lacks one
# (fetch_vendored below downloads it): they add it to the packages they declare.
FETCH_PACKAGES=(curl ca-certificates)

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

# Installs those of the PACKAGEs (IDGEN_PACKAGES when none is named) that are missing, in one
# apt-get call. Usage: install_packages [PACKAGE...]
install_packages() {
    [ $# -gt 0 ] || set -- "${IDGEN_PACKAGES[@]}"
    local p missing=()
    for p in "$@"; do
        [[ " ${missing[*]} " == *" $p "* ]] && continue   # named twice (several lists)
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

# Each script that builds or fetches third-party code (scripts/postgres, pg_tle, citus, pg_uuidv7),
# and each README command, declares the Debian packages it needs where it is defined and installs
# them itself (install_packages); asked `--packages` it prints them, one a line, and does nothing
# else, so that scripts/test installs every list in one apt-get call before its first build.
# Usage, in such a script: answer_packages "${1:-}" PACKAGE...
answer_packages() {
    [ "$1" = --packages ] || return 0
    shift
    printf '%s\n' "$@"
    exit 0
}
# The packages the named scripts of scripts/ declare (their --packages), one a line.
script_packages() {
    local s
    for s in "$@"; do "$IDGEN_ROOT/scripts/$s" --packages || return 1; done
}

# The Debian archive this machine's apt already uses for SUITE (bookworm when none is named): the
# URI of the first entry serving it, in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list;
# nothing when there is none. Usage: debian_mirror [SUITE]
debian_mirror() {
    local suite=${1:-bookworm} uri
    uri=$(awk -v s="$suite" '/^URIs:/ { uri = $2 }
        /^Suites:/ && uri { for (i = 2; i <= NF; i++) if ($i == s) { print uri; exit } }' \
        /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    # One-line entries: deb [options] URI SUITE COMPONENT...
    [ -n "$uri" ] || uri=$(awk -v s="$suite" '$1 == "deb" { i = 2
            if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
            if ($(i + 1) == s) { print $i; exit } }' /etc/apt/sources.list 2>/dev/null || true)
    echo "$uri"
}

# What build_and_install passes to make besides PG_CONFIG: scripts/test sets TEST_HOOKS=yes, the
# faults its TAP tests inject (Makefile); the demo builds as a user would.
IDGEN_MAKE_VARIABLES=${IDGEN_MAKE_VARIABLES:-}

build_and_install() {
    say "Building idgen and installing it into PostgreSQL $(pg_version "$PG_BINDIR/pg_config") ($PG_BINDIR)"
    # shellcheck disable=SC2086  # (a list of VARIABLE=value words)
    make -C "$IDGEN_ROOT" -s PG_CONFIG="$PG_BINDIR/pg_config" $IDGEN_MAKE_VARIABLES all
    # shellcheck disable=SC2086
    as_root make -C "$IDGEN_ROOT" -s PG_CONFIG="$PG_BINDIR/pg_config" $IDGEN_MAKE_VARIABLES install
}

# A third party's release the tests build or run (Citus, pg_tle, pg_uuidv7) into DIR/TARBALL: from
# the directory IDGEN_VENDOR_DIR names (by default a vendor directory kept beside the checkout),
# or, where it is absent, downloaded from URL (curl: FETCH_PACKAGES); either way it must have the
# SHA-256 given.
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

# Copies the checkout's sources, without build products, into the existing directory DIR: the
# files git tracks and the untracked ones it does not ignore (uncommitted changes included), or,
# outside a git checkout (or without git), everything, then make clean. Usage: copy_checkout DIR
copy_checkout() {
    local git=(git -c safe.directory="$IDGEN_ROOT" -C "$IDGEN_ROOT")   # also a checkout others own (sudo)
    if "${git[@]}" rev-parse --git-dir >/dev/null 2>&1; then
        (cd "$IDGEN_ROOT" && "${git[@]}" ls-files -z -co --exclude-standard | tar -c --null -T - -f -) | tar -x -C "$1" -f -
    else
        cp -a "$IDGEN_ROOT"/. "$1"/ && make -s -C "$1" clean PG_CONFIG="$PG_BINDIR/pg_config" >/dev/null
    fi
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
