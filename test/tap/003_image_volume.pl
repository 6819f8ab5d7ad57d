# idgen installed from a directory of its own (make image-volume), as PostgreSQL 18's
# extension_control_path and dynamic_library_path and Kubernetes operators' image volumes use it,
# on a copy of the server's installation with every idgen file deleted from it:
# - the server preloads idgen.so from the directory's lib/, with the libraries of its system/
#   (put on LD_LIBRARY_PATH, as CloudNativePG's ld_library_path does); CREATE EXTENSION at the
#   previous version and ALTER EXTENSION UPDATE find their scripts in its share/extension;
#   functions whose library is '$libdir/idgen' (module_pathname) load it through
#   dynamic_library_path;
# - Snowflake ids, uuid_v7() and uuid_v1() made before and after a restart are all distinct, the
#   Snowflake ids increasing across it;
# - the server's own directories hold no idgen: with extension_control_path back to '$system'
#   idgen is not available, and LOAD '$libdir/idgen' finds no file;
# - system/ holds exactly the libraries of idgen.so's closure that the server's own programs
#   (postgres, pg_basebackup) do not load, beyond the C and C++ runtime, and with it on
#   LD_LIBRARY_PATH every one of them resolves there; where the system's library directory holds
#   only what a server image has (a mount namespace of the test's own), the loader finds every
#   library of idgen.so.
# PostgreSQL 18 and later: extension_control_path is 18's.
use strict;
use warnings;
use File::Basename;
use File::Find;
use FindBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use PostgreSQL::Version;
use Test::More;
use IdgenTest;

chomp(my $bindir = `pg_config --bindir`);
my $version = PostgreSQL::Version->new(scalar `pg_config --version`);
plan skip_all => "extension_control_path is PostgreSQL 18's (this is $version)" if $version < 18;

# The server's installation copied (its binaries find share/ and lib/ beside bin/), without idgen.
my $tmp = PostgreSQL::Test::Utils::tempdir;
my ($install, $image) = ("$tmp/postgres", "$tmp/image");
mkdir $install or die "mkdir $install: $!";
PostgreSQL::Test::Utils::system_or_bail('cp', '-a', (map { "$bindir/../$_" } qw(bin lib share)), $install);
unlink glob("$install/share/extension/idgen*"), "$install/lib/idgen.so";
my @left;
find(sub { push @left, $File::Find::name if /^idgen/ }, $install);
is(join(' ', @left), '', 'the copy of the server installation holds no idgen file');

PostgreSQL::Test::Utils::system_or_bail('make', '-s', '-C', "$FindBin::Bin/../..", 'image-volume',
    "DIR=$image", "PG_CONFIG=$bindir/pg_config");

my $node = PostgreSQL::Test::Cluster->new('image_volume', install_path => $install);
$node->init;
$node->append_conf('postgresql.conf', qq{shared_preload_libraries = 'idgen'
extension_control_path = '\$system:$image/share'
dynamic_library_path = '\$libdir:$image/lib'
idgen.node_id = 1
});
# The cluster object puts the copy's lib/ first on LD_LIBRARY_PATH; system/ comes after it.
sub start_with_system {
    local $ENV{LD_LIBRARY_PATH} = "$image/system";
    $node->start;
}
start_with_system();

# The postmaster's binary, and what it mapped (idgen.so was preloaded): idgen.so from lib/, the
# libraries of system/ from system/.
my ($postmaster) = split /\n/, slurp_file($node->data_dir . '/postmaster.pid');
is(readlink("/proc/$postmaster/exe"), "$install/bin/postgres", 'the server runs from the copy');
my %mapped = map { m{ (/\S+)$} ? ($1 => 1) : () } split /\n/, slurp_file("/proc/$postmaster/maps");
ok($mapped{"$image/lib/idgen.so"}, "the server preloaded idgen.so from the directory's lib/");
my @system = sort map { basename($_) } glob("$image/system/*");
is(join(' ', grep { !$mapped{"$image/system/$_"} } @system), '',
    'and every library of system/ (' . scalar(@system) . ') from system/');

my ($created, undef, $create_error) = $node->psql('postgres', q{CREATE EXTENSION idgen VERSION '0.9.7'});
is($created, 0, 'CREATE EXTENSION idgen at the previous version (0.9.7) from the directory') or diag($create_error);
$node->safe_psql('postgres', 'ALTER EXTENSION idgen UPDATE');
is($node->safe_psql('postgres', q{SELECT installed_version = default_version AND installed_version <> '0.9.7'
    FROM pg_available_extensions WHERE name = 'idgen'}), 't', 'ALTER EXTENSION idgen UPDATE reaches the current version');
is($node->safe_psql('postgres', q{SELECT string_agg(DISTINCT probin, ', ') FROM pg_proc
    WHERE oid IN (SELECT objid FROM pg_depend WHERE refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen')
                    AND classid = 'pg_proc'::regclass) AND probin IS NOT NULL}), '$libdir/idgen',
    "the functions name the library '\$libdir/idgen', found through dynamic_library_path");

# Ids before and after a restart.
$node->safe_psql('postgres', q{SELECT snowflake_create('s'); CREATE TABLE ids (round int, kind text, id text)});
my $make_ids = q{INSERT INTO ids SELECT %d, 'snowflake', snowflake_next('s')::text FROM generate_series(1, 1000);
    INSERT INTO ids SELECT %d, 'uuid_v7', uuid_v7()::text FROM generate_series(1, 1000);
    INSERT INTO ids SELECT %d, 'uuid_v1', uuid_v1()::text FROM generate_series(1, 1000)};
$node->safe_psql('postgres', sprintf($make_ids, (1) x 3));
$node->stop;
start_with_system();
$node->safe_psql('postgres', sprintf($make_ids, (2) x 3));
is($node->safe_psql('postgres', q{SELECT count(*) || ' ' || count(DISTINCT id) FROM ids}), '6000 6000',
    'ids made before and after a restart: 6,000, all distinct');
is($node->safe_psql('postgres', q{SELECT (SELECT min(id::bigint) FROM ids WHERE kind = 'snowflake' AND round = 2)
    > (SELECT max(id::bigint) FROM ids WHERE kind = 'snowflake' AND round = 1)}), 't',
    'the Snowflake ids increase across the restart');

# The server's own directories have no idgen: it is available only through the directory.
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_available_extensions WHERE name = 'idgen'}), '1',
    'idgen is available with the directory in extension_control_path');
is($node->safe_psql('postgres', q{SET extension_control_path = '$system';
    SELECT count(*) FROM pg_available_extensions WHERE name = 'idgen'}), '0',
    "and not with extension_control_path = '\$system', the server's own");
like(psql_error($node, q{LOAD '$libdir/idgen'}), qr/could not access file "\$libdir\/idgen"/,
    "LOAD '\$libdir/idgen' finds no file in the server's own library directory");
$node->stop;

# system/ against a server image's libraries: those the server's own programs load and the C and
# C++ runtime. ldd of the directory's idgen.so, system/ on LD_LIBRARY_PATH.
sub ldd {
    my ($library_path, @files) = @_;
    local $ENV{LD_LIBRARY_PATH} = $library_path;
    delete $ENV{LD_LIBRARY_PATH} unless defined $library_path;
    my $out = `ldd @files`;
    die "ldd @files failed" if $?;
    return map { /^\s*(\S+) => (not found|\S+)/ ? ($1 => $2) : () } split /\n/, $out;
}
my %closure = ldd("$image/system", "$image/lib/idgen.so");
my %server = ldd(undef, "$install/bin/postgres", "$install/bin/pg_basebackup");
my $runtime = qr/^(?:ld-linux.*|lib(?:c|m|dl|pthread|rt|resolv|stdc\+\+|gcc_s))\.so/;
my @needed = sort grep { !$server{$_} && !/$runtime/ } keys %closure;
is(join(' ', grep { !$closure{$_} || $server{$_} || /$runtime/ } @system), '',
    "every file of system/ is a library of idgen.so's closure that the server's programs and the runtime do not bring");
is(join(' ', grep { $closure{$_} ne "$image/system/$_" } @needed), '',
    'every such library (' . scalar(@needed) . ') is in system/ and resolves there');

# This machine has every library, so ldd finds them all here: in a mount namespace of the test's
# own (in a user namespace: no root), the directory of libc is replaced by one holding only the
# server's programs' libraries and the runtime, as a server image's does; there, with system/ on
# LD_LIBRARY_PATH, the loader must find every library of idgen.so.
my $host = dirname($closure{'libc.so.6'});
my ($hidden, $image_like) = ("$tmp/host-libraries", "$tmp/server-image-libraries");
mkdir $_ or die "mkdir $_: $!" for $hidden, $image_like;
my ($loader) = glob("$host/ld-linux*");
my %image_has = map { $_ => 1 } basename($loader), keys %server, grep { /$runtime/ } keys %closure;
symlink("$hidden/$_", "$image_like/$_") or die "symlink $_: $!" for keys %image_has;
SKIP: {
    skip 'no mount namespace of a user namespace here (unshare -rm)', 1 if system('unshare -rm true 2>/dev/null') != 0;
    my $trace = `unshare -rm sh -c 'mount --bind $host $hidden && mount --bind $image_like $host &&
        exec env LD_TRACE_LOADED_OBJECTS=1 LD_LIBRARY_PATH=$image/system $loader $image/lib/idgen.so' 2>&1`;
    my @missing = map { /^\s*(\S+) => not found/ ? $1 : () } split /\n/, $trace;
    ok($trace =~ m{libcurl\.so\.4 => \Q$image\E/system/} && !@missing,
        "with only a server image's libraries, and system/ on LD_LIBRARY_PATH, the loader finds every library of idgen.so")
      or diag("not found: @missing\n$trace");
}
diag("system/: @system");

done_testing();
