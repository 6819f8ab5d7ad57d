# The plain-SQL edition as a pg_tle extension, with pg_tle itself (1.5.2, built into each tested
# major from its release by scripts/pg_tle), as a hosted service's user installs it:
# - the README's three commands: pg_tle created by the administrator, hosted/register_pg_tle.sql
#   run by a role in pgtle_admin, CREATE EXTENSION idgen_hosted by a role that is not a
#   superuser, after pgcrypto (in a schema of its own); every function of the edition is the
#   extension's member, its state (the mask keys too) the extension's configuration; CREATE
#   EXTENSION into a schema where PUBLIC may create is refused;
# - pg_dump (pg_tle's own schema left out) restored into a database where pg_tle and the
#   registration came first: the copy makes more ids, none it had made before, and masks as the
#   original did (its keys, pgcrypto found);
# - an update from the edition's previous version (0.9.3's file, from the repository's history),
#   registered and created as a user of 0.9.3 would have: the registration run again from this
#   checkout, then ALTER EXTENSION idgen_hosted UPDATE; ids after it never equal ids before;
#   masking refuses there until pgcrypto is created and the owner binds the edition to it.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = abs_path(dirname(__FILE__) . '/../..');
my $node = PostgreSQL::Test::Cluster->new('hosted_pg_tle');
my $share = $node->config_data('--sharedir');
plan skip_all => 'pg_tle is not installed (scripts/pg_tle PG_CONFIG builds it)' unless -f "$share/extension/pg_tle.control";
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_tle'");
$node->start;
$node->safe_psql('postgres', 'CREATE ROLE app LOGIN');
$node->safe_psql('postgres', "CREATE DATABASE $_ OWNER app") for qw(appdb restored updated);
# The administrator's part: pg_tle in each database, and the right to register extensions.
$node->safe_psql($_, 'CREATE EXTENSION IF NOT EXISTS pg_tle') for qw(appdb restored updated);
$node->safe_psql('postgres', 'GRANT pgtle_admin TO app');

# psql -f FILE in database DB as app, from the top of the checkout (FILE reads the edition from there).
sub psql_file {
    my ($db, $file) = @_;
    my ($out, $err) = ('', '');
    my $ok = IPC::Run::run([ 'psql', '-X', '-U', 'app', '-d', $node->connstr($db), '-f', $file ],
                           '>', \$out, '2>', \$err, init => sub { chdir $root or die $! });
    diag($err) unless $ok;
    return $ok;
}
ok(psql_file('appdb', 'hosted/register_pg_tle.sql'), 'psql -f hosted/register_pg_tle.sql registers the edition');
my ($control_version) = PostgreSQL::Test::Utils::slurp_file("$root/idgen.control") =~ /^default_version = '(.*)'/m;
is($node->safe_psql('appdb', q{SELECT default_version FROM pgtle.available_extensions() WHERE name = 'idgen_hosted'}),
   $control_version, "registered as idgen_hosted $control_version");

my @app = (extra_params => [ '-U', 'app' ]);
$node->safe_psql('appdb', 'CREATE SCHEMA crypto; CREATE EXTENSION pgcrypto SCHEMA crypto', @app);
$node->safe_psql('appdb', 'CREATE SCHEMA idgen; CREATE EXTENSION idgen_hosted SCHEMA idgen', @app);
is($node->safe_psql('appdb', q{
    SELECT count(*) > 20 AND count(*) FILTER (WHERE NOT EXISTS (
        SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')) = 0
    FROM pg_proc p WHERE p.pronamespace = 'idgen'::regnamespace}),
   't', 'a role that is not a superuser creates the extension; every function of the edition is its member');
is($node->safe_psql('appdb', q{SELECT array(SELECT c::regclass::text FROM pg_extension, unnest(extconfig) c
                                           WHERE extname = 'idgen_hosted' ORDER BY c::regclass::text COLLATE "C")}),
   '{idgen._idgen_node,idgen._idgen_snowflake_retired,idgen._idgen_uuid_serial,idgen.idgen_mask_keys,idgen.snowflake_definitions}',
   'its state is the extension\'s configuration');
$node->safe_psql('appdb', q{SELECT idgen.id_mask_key_create('orders')}, @app);
my $masked = $node->safe_psql('appdb', q{SELECT idgen.id_mask(4242, 'orders')}, @app);
is($node->safe_psql('appdb', qq{SELECT idgen.id_unmask($masked, 'orders')}, @app), 4242, 'it masks with pgcrypto found in its schema');
is($node->safe_psql('appdb', q{SET timezone = 'UTC'; SELECT idgen.uuid_v1_timestamp('c232ab00-9414-11ec-b3c8-9f6bdeced846')}),
   '2022-02-22 19:22:22+00', 'a decoder answers');

# Ids before the dump: a fixed time for the UUIDs, so that only their serial numbers keep them apart.
my $make = q{INSERT INTO ids SELECT '%s', idgen.uuid_v1_at('2025-06-01 12:00:00+00'), idgen.uuid_v7_at('2025-06-01 12:00:00+00'),
                                  idgen.snowflake_next('orders') FROM generate_series(1, 20000)};
$node->safe_psql('appdb', q{
    SELECT idgen.idgen_set_node_id(1);
    SELECT idgen.snowflake_create('orders', '2024-01-01', 1024);
    CREATE TABLE ids (phase text, v1at uuid, v7at uuid, sf bigint);
} . sprintf($make, 'before_dump'), @app);

my $dump = PostgreSQL::Test::Utils::tempdir('pg_tle_dump') . '/appdb.dump';
# pg_tle is the target's own, as the administrator made it there, with the registrations its
# schema keeps: the dump leaves that schema out, the restore the extension (its entry and
# comment, which only its owner may set), and the target gets pg_tle and the registration first.
# The restore runs as app, who made idgen_hosted and so owns it again (README: the same steps).
$node->command_ok([ 'pg_dump', '-Fc', '-U', 'app', '--exclude-schema=pgtle', '-f', $dump, $node->connstr('appdb') ],
                  'pg_dump of the database');
ok(psql_file('restored', 'hosted/register_pg_tle.sql'), 'the target database registers the edition first');
# As an extension script the edition checks the extension's schema (first in search_path there):
# one in which other roles may create is refused, as the plain file refuses it.
my ($refused_ret, $refused_out, $refused_err) = $node->psql('restored', q{\set VERBOSITY verbose
    CREATE SCHEMA open_to_all;
    GRANT CREATE ON SCHEMA open_to_all TO PUBLIC;
    CREATE EXTENSION idgen_hosted SCHEMA open_to_all;}, @app);
like($refused_err, qr/42501: idgen will not be installed into schema open_to_all: roles other than its owner may create in it \(PUBLIC\)/,
     'CREATE EXTENSION into a schema where PUBLIC may create: refused (42501)');
$node->safe_psql('restored', 'DROP SCHEMA open_to_all', @app);
my $list = "$dump.list";
PostgreSQL::Test::Utils::append_to_file($list,
    join('', grep { !/ EXTENSION - pg_tle | EXTENSION pg_tle $/ } `pg_restore -l $dump`));
$node->command_ok([ 'pg_restore', '-U', 'app', '-L', $list, '-d', $node->connstr('restored'), $dump ],
                  'pg_restore into another database, pg_tle left out');
is($node->safe_psql('restored', 'SELECT name FROM idgen.snowflake_definitions'), 'orders', 'the sequencer is restored');
# pg_restore creates the extensions in its own order, idgen_hosted before pgcrypto (nothing tells
# it otherwise): masking refuses until the owner binds the edition to pgcrypto (docs/hosted.md).
my (undef, undef, $unbound_err) = $node->psql('restored', q{SELECT idgen.id_mask(4242, 'orders')}, @app);
like($unbound_err, qr/idgen's masking needs the extension pgcrypto.*SELECT idgen\._idgen_mask_bind\(\)/s,
     'restored: masking refuses, the command in its hint');
is($node->safe_psql('restored', q{SELECT idgen._idgen_mask_bind(); SELECT idgen.id_mask(4242, 'orders')}, @app),
   "masking uses crypto.encrypt\n$masked", 'bound by its owner, the restored copy masks as the original: its keys, pgcrypto found');
# The restored database is a copy beside its original: it makes no id until it has a node id of
# its own here (the original's came with the dump, set on another database).
my ($ret, $out, $err) = $node->psql('restored', q{SELECT idgen.uuid_v7()}, @app);
like($err, qr/this database's idgen node id 1 was given on another server or in another database/,
     'the restored copy refuses until its owner gives it a node id');
$node->safe_psql('restored', 'SELECT idgen.idgen_set_node_id(2)', @app);
$node->safe_psql('restored', sprintf($make, 'after_restore'), @app);
for my $column (qw(v1at v7at sf)) {
    is($node->safe_psql('restored', "SELECT count(*) - count(DISTINCT $column) FROM ids"), 0,
       "$column: 40,000 ids before the dump and after the restore, none twice");
}

# An update from 0.9.3: its edition and its registration script as they were (version 0.9.3,
# reading that edition), then the registration of this checkout and ALTER EXTENSION ... UPDATE.
my $old = PostgreSQL::Test::Utils::tempdir('edition_0_9_3');
my ($edition_ok, $register_ok) = map {
    # (eval: where git itself is missing, IPC::Run dies rather than returning false)
    eval { IPC::Run::run([ 'git', '-C', $root, 'show', "193d200:hosted/$_" ], '>', "$old/$_", '2>', \my $git_err) }
} qw(idgen_hosted.sql register_pg_tle.sql);
SKIP: {
    skip 'no git history here: the update from 0.9.3 needs its edition', 10 unless $edition_ok && $register_ok;
    my $register = PostgreSQL::Test::Utils::slurp_file("$old/register_pg_tle.sql");
    $register =~ s{cat hosted/idgen_hosted.sql}{cat $old/idgen_hosted.sql};
    $register =~ s{^\\set version .*$}{\\set version 0.9.3}m;
    PostgreSQL::Test::Utils::append_to_file("$old/register_0_9_3.sql", $register);
    ok(psql_file('updated', "$old/register_0_9_3.sql"), '0.9.3 registered as it was');
    $node->safe_psql('updated', q{CREATE SCHEMA idgen; CREATE EXTENSION idgen_hosted SCHEMA idgen;
        SELECT idgen.snowflake_create('orders', '2024-01-01', 1024);
        CREATE TABLE ids (phase text, v1at uuid, v7at uuid, sf bigint);} . sprintf($make, 'before_update'), @app);
    is($node->safe_psql('updated', q{SELECT extversion FROM pg_extension WHERE extname = 'idgen_hosted'}), '0.9.3',
       'idgen_hosted 0.9.3 made ids');
    ok(psql_file('updated', 'hosted/register_pg_tle.sql'), "this checkout's registration adds $control_version and the update path");
    $node->safe_psql('updated', 'ALTER EXTENSION idgen_hosted UPDATE', @app);
    my ($ret, $out, $err) = $node->psql('updated', q{SELECT idgen.uuid_v7()}, @app);
    like($err, qr/this database has no idgen node id/, 'after the update the generators wait for a node id');
    $node->safe_psql('updated', 'SELECT idgen.idgen_set_node_id(0)', @app);
    is($node->safe_psql('updated', q{SELECT extversion FROM pg_extension WHERE extname = 'idgen_hosted'}), $control_version,
       "ALTER EXTENSION idgen_hosted UPDATE takes it to $control_version");
    $node->safe_psql('updated', sprintf($make, 'after_update'), @app);
    $node->safe_psql('updated', q{SELECT idgen.id_mask_key_create('orders')}, @app);
    ($ret, $out, $err) = $node->psql('updated', q{SELECT idgen.id_mask(4242, 'orders')}, @app);
    like($err, qr/idgen's masking needs the extension pgcrypto/, 'updated where pgcrypto is not: masking refuses');
    $node->safe_psql('updated', 'CREATE EXTENSION pgcrypto; SELECT idgen._idgen_mask_bind()', @app);
    is($node->safe_psql('updated', q{SELECT idgen.id_unmask(idgen.id_mask(4242, 'orders'), 'orders')}, @app), 4242,
       'pgcrypto created and bound by the extension\'s owner: it masks');
    is($node->safe_psql('updated', q{SELECT count(*) FROM pg_depend d WHERE d.objid = 'idgen._idgen_aes(bytea, bytea)'::regprocedure
                                                              AND d.deptype = 'e'}), 1,
       'the bound function is still the extension\'s member');
    is($node->safe_psql('updated', q{SELECT count(*) - count(DISTINCT v1at) + count(*) - count(DISTINCT v7at)
                                            + count(*) - count(DISTINCT sf) FROM ids}),
       0, 'ids after the update: none equal to one before');
    is($node->safe_psql('updated', q{SELECT count(*) FROM pg_proc WHERE proname = '_idgen_snowflake_next'}), 1,
       "what 0.9.3 had and $control_version has not is gone");
}

$node->stop;
done_testing();
