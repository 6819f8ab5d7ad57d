# The plain-SQL edition packaged for pg_tle, as a hosted service's user installs it: the README's
# command (psql -f hosted/register_pg_tle.sql from the checkout) registers it, a role that is not
# a superuser runs CREATE EXTENSION idgen_hosted, makes ids, and a pg_dump / pg_restore of the
# database carries the sequencers and the UUID serial numbers over: the restored copy makes more
# ids, none of them one it had made before.
#
# pg_tle is in no Debian package, so a stand-in extension named pg_tle
# (test/fixtures/pg_tle_stand_in.sql) provides its registration function, and this test writes
# what was registered out as a control file and a script where PostgreSQL 18's
# extension_control_path finds them: CREATE EXTENSION then runs the registered script as pg_tle
# would have it run, as an extension script with the control pg_tle writes (superuser, trusted
# and relocatable all false, pg_tle required). The restore goes into a database of the same
# server whose administrator created pg_tle, and finds the registration as before; restoring
# elsewhere needs pg_tle there, as every pg_tle extension does. Before 18 there is no such path
# and the test is skipped.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Copy qw(copy);
use File::Path qw(make_path);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = abs_path(dirname(__FILE__) . '/../..');
my $node = PostgreSQL::Test::Cluster->new('hosted_pg_tle');
plan skip_all => 'needs extension_control_path (PostgreSQL 18) to stand in for pg_tle' if $node->pg_version < 18;

my $share = PostgreSQL::Test::Utils::tempdir('pg_tle_share');
make_path("$share/extension");
PostgreSQL::Test::Utils::append_to_file("$share/extension/pg_tle.control",
    "comment = 'stand-in for pg_tle'\ndefault_version = '1.0'\nrelocatable = false\n");
copy("$root/test/fixtures/pg_tle_stand_in.sql", "$share/extension/pg_tle--1.0.sql") or die $!;
$node->init;
$node->append_conf('postgresql.conf', "extension_control_path = '$share:\$system'");
$node->start;
$node->safe_psql('postgres', 'CREATE ROLE app LOGIN; CREATE DATABASE appdb OWNER app; CREATE DATABASE restored OWNER app');

# The README's commands, from the top of the checkout: pg_tle by the administrator, then the registration.
$node->safe_psql($_, 'CREATE EXTENSION IF NOT EXISTS pg_tle') for qw(appdb restored);
my ($out, $err) = ('', '');
my $ok = IPC::Run::run([ 'psql', '-X', '-d', $node->connstr('appdb'), '-f', 'hosted/register_pg_tle.sql' ],
                       '>', \$out, '2>', \$err, init => sub { chdir $root or die $! });
ok($ok, 'psql -f hosted/register_pg_tle.sql registers the edition') or diag($err);
my ($control_version) = PostgreSQL::Test::Utils::slurp_file("$root/idgen.control") =~ /^default_version = '(.*)'/m;
is($node->safe_psql('appdb', q{SELECT version FROM pgtle.registered WHERE name = 'idgen_hosted'}), $control_version,
   "registered as idgen_hosted $control_version");

# What pg_tle would keep in its catalog, where extension_control_path finds it.
my ($description, $ext) = map { $node->safe_psql('appdb', "SELECT $_ FROM pgtle.registered WHERE name = 'idgen_hosted'") }
    qw(description ext);
$description =~ s/'/''/g;
PostgreSQL::Test::Utils::append_to_file("$share/extension/idgen_hosted.control",
    "comment = '$description'\ndefault_version = '$control_version'\nsuperuser = false\ntrusted = false\nrelocatable = false\n"
    . "requires = 'pg_tle'\n");
PostgreSQL::Test::Utils::append_to_file("$share/extension/idgen_hosted--$control_version.sql", "$ext\n");

my @app = (extra_params => [ '-U', 'app' ]);
$node->safe_psql('appdb', 'CREATE SCHEMA idgen; CREATE EXTENSION idgen_hosted SCHEMA idgen', @app);
is($node->safe_psql('appdb', q{
    SELECT count(*) > 20 AND count(*) FILTER (WHERE NOT EXISTS (
        SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')) = 0
    FROM pg_proc p WHERE p.pronamespace = 'idgen'::regnamespace}),
   't', 'a role that is not a superuser creates the extension; every function of the edition is its member');
is($node->safe_psql('appdb', q{SELECT array(SELECT c::regclass::text FROM pg_extension, unnest(extconfig) c
                                           WHERE extname = 'idgen_hosted' ORDER BY 1)}),
   '{idgen._idgen_snowflake_retired,idgen._idgen_uuid_serial,idgen.snowflake_definitions}', 'its state is the extension\'s configuration');
is($node->safe_psql('appdb', q{SET timezone = 'UTC'; SELECT idgen.uuid_v1_timestamp('c232ab00-9414-11ec-b3c8-9f6bdeced846')}),
   '2022-02-22 19:22:22+00', 'a decoder answers');

# Ids before the dump: a fixed time for the UUIDs, so that only their serial numbers keep them apart.
my $make = q{INSERT INTO ids SELECT '%s', idgen.uuid_v1_at('2025-06-01 12:00:00+00'), idgen.uuid_v7_at('2025-06-01 12:00:00+00'),
                                  idgen.snowflake_next('orders') FROM generate_series(1, 20000)};
$node->safe_psql('appdb', q{
    SELECT idgen.snowflake_create('orders', '2024-01-01', 1024);
    CREATE TABLE ids (phase text, v1at uuid, v7at uuid, sf bigint);
} . sprintf($make, 'before_dump'), @app);

my $dump = PostgreSQL::Test::Utils::tempdir('pg_tle_dump') . '/appdb.dump';
# pg_tle itself is the administrator's, in both databases: the dump leaves it out.
$node->command_ok([ 'pg_dump', '-Fc', '-U', 'app', '--exclude-extension=pg_tle', '-f', $dump, $node->connstr('appdb') ],
                  'pg_dump of the database');
$node->command_ok([ 'pg_restore', '-U', 'app', '-d', $node->connstr('restored'), $dump ],
                  'pg_restore into another database');
is($node->safe_psql('restored', 'SELECT name FROM idgen.snowflake_definitions'), 'orders', 'the sequencer is restored');
$node->safe_psql('restored', sprintf($make, 'after_restore'), @app);
for my $column (qw(v1at v7at sf)) {
    is($node->safe_psql('restored', "SELECT count(*) - count(DISTINCT $column) FROM ids"), 0,
       "$column: 40,000 ids before the dump and after the restore, none twice");
}

$node->stop;
done_testing();
