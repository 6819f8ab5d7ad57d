# Sourced by scripts/test (after common.sh): the Debian package layer. test_package builds
# postgresql-15-idgen_<version>_amd64.deb from a clean copy of the checkout with
# dpkg-buildpackage -us -uc -b (debian/: pg_buildext), installs it, and runs the pg_regress
# suite against what the package installed, on a fresh cluster (pg_regress's throwaway
# instance), from another clean copy in which nothing was built or installed.
#  - Debian's own PostgreSQL 15 (/usr/lib/postgresql/15/bin): apt-get installs the .deb and
#    removes it afterwards, then the checkout's build is installed again (the package replaced it).
#  - A relocated copy of Debian's 15 (PG_CONFIG=ROOT/usr/lib/postgresql/15/bin/pg_config, as on
#    a machine whose Debian PostgreSQL others use): a fresh copy of it without idgen, where
#    dpkg --root=COPY installs the .deb (its own package database; Depends not checked there).
# What building the package needs: dpkg-buildpackage (dpkg-dev) and debian/control's Build-Depends
# (debhelper provides debhelper-compat; postgresql-server-dev-all pg_buildext). scripts/test
# installs them with the rest before its first build.
DEB_PACKAGES=(dpkg-dev debhelper postgresql-server-dev-all libcurl4-openssl-dev libssl-dev libpq-dev nlohmann-json3-dev)

# A copy of the checkout's sources (no build products) in a new directory DIR/idgen; prints DIR.
clean_copy() {
    local dir
    dir=$(mktemp -d /tmp/idgen-"$1".XXXXXX)
    mkdir "$dir/idgen"
    copy_checkout "$dir/idgen"
    echo "$dir"
}

test_package() {
    install_packages "${DEB_PACKAGES[@]}"
    local version deb build check root pgc
    version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$IDGEN_ROOT/idgen.control")
    deb=postgresql-$PG_MAJOR-idgen_${version}_amd64.deb
    build=$(clean_copy deb-build)
    echo "dpkg-buildpackage -us -uc -b in $build/idgen"
    (cd "$build/idgen" && nice dpkg-buildpackage -us -uc -b >"$build/build.log" 2>&1) ||
        { tail -30 "$build/build.log"; echo "package build failed (log: $build/build.log)"; return 1; }
    [ -f "$build/$deb" ] || { ls "$build"; echo "no $deb"; return 1; }
    echo "built $deb ($(stat -c %s "$build/$deb") bytes)"

    if [ "$PG_BINDIR" = "/usr/lib/postgresql/$PG_MAJOR/bin" ]; then
        root=
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall "$build/$deb" >/dev/null
    else
        root=${PG_BINDIR%/usr/lib/postgresql/$PG_MAJOR/bin}
        [ "$root" != "$PG_BINDIR" ] || { echo "PG_CONFIG is neither Debian's PostgreSQL $PG_MAJOR nor a relocated copy of it"; return 1; }
        local fresh
        fresh=$(mktemp -d /tmp/idgen-deb-root.XXXXXX)
        chmod 755 "$fresh"        # the database user runs its server
        mkdir -p "$fresh/usr/lib/postgresql" "$fresh/usr/share/postgresql" "$fresh/usr/include" \
            "$fresh/var/lib/dpkg/info" "$fresh/var/lib/dpkg/updates"
        touch "$fresh/var/lib/dpkg/status"
        cp -a "$root/usr/lib/postgresql/$PG_MAJOR" "$fresh/usr/lib/postgresql/"
        cp -a "$root/usr/share/postgresql/$PG_MAJOR" "$fresh/usr/share/postgresql/"
        cp -a "$root/usr/include/postgresql" "$fresh/usr/include/"
        rm -f "$fresh/usr/lib/postgresql/$PG_MAJOR/lib/idgen.so" "$fresh/usr/share/postgresql/$PG_MAJOR/extension/idgen"*
        root=$fresh
        as_root dpkg --root="$root" --force-depends -i "$build/$deb" >/dev/null 2>&1
    fi
    pgc=$root/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
    local owner
    owner=$(dpkg ${root:+--root="$root"} -S "$("$pgc" --pkglibdir | sed "s|^$root||")/idgen.so")
    echo "installed: $owner"
    # The package is a release build: no test hooks in it (Makefile: TEST_HOOKS).
    if grep -q IDGEN_TEST_ "$("$pgc" --pkglibdir)/idgen.so"; then
        echo "the package's idgen.so carries test hooks"
        return 1
    fi

    check=$(clean_copy deb-check)
    [ "$(id -u)" -ne 0 ] || chown -R postgres: "$check"
    local ok=0
    as_db_user make -C "$check/idgen" -s installcheck PG_CONFIG="$pgc" || ok=$?

    if [ -z "$root" ]; then
        # Removing the package removes idgen from Debian's 15: the checkout's build goes back.
        as_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "postgresql-$PG_MAJOR-idgen" >/dev/null
        build_and_install
    else
        as_root rm -rf "$root"
    fi
    if [ $ok -eq 0 ]; then rm -rf "$build" "$check"; else echo "(build: $build, regression diffs: $check/idgen)"; fi
    return $ok
}
