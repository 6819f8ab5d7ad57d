# Moves: a database taken to a fresh server by pg_dump -Fc / pg_restore, and a cluster taken to
# a fresh one by pg_upgrade (15 to 15), with the same settings (idgen preloaded, the same
# idgen.node_id). In both, the new server backfills the same historical times again and makes
# live ids: none of them may equal an id of the restored (or upgraded) rows. And a dump from a
# server whose clock ran a day ahead: refused at the restore until the setting its HINT names.
#
# The same work and the same worst case as the failover test (060): the old server's clock
# stands still at F while it works (IdgenTest's ids_first_round), and the new server starts its
# work just before its own clock reads F. The servers' live uuid_v1() clock sequences are
# chosen, not drawn: the old one's lowest (0), the new ones' high (16,000). 0.6.0 numbered the
# clock sequences of uuid_v1_at(ts, node) past each server's own live one, so there the 500
# rows on one microsecond took clock sequences 1 to 50 on the old server, and the new ones
# used 50 again: 10 repeats on every run (as many as a clock sequence holds in a microsecond).
use strict;
use warnings;
use File::Spec;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my %work = (live_rows => 100000, history_rows => 10000, db => 'app');
my %found;

my $old = idgen_node('old', node_id => 1, faketime => '+0', conf => "shared_buffers = 16MB\n",
    uuid_identity => [ (0x0b << 40) | 1, 0 ]);
start_node($old);
is($old->safe_psql('postgres', 'CREATE EXTENSION idgen; SELECT uuid_v1_clock_seq(uuid_v1()), uuid_v1_node(uuid_v1()); DROP EXTENSION idgen'),
    '0|0b:00:00:00:00:01', 'the old server makes live UUIDs with the chosen identity');
$old->safe_psql('postgres', 'CREATE DATABASE app');
ids_setup($old, %work);
my $f = ids_first_round($old, %work);

# pg_dump -Fc, and pg_restore into a fresh server's new database.
my $dump = $old->basedir . '/app.dump';
$old->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $old->connstr('app') ], 'pg_dump -Fc of the database');
my $restored = idgen_node('restored', node_id => 1, faketime => '+0', conf => "shared_buffers = 16MB\n",
    uuid_identity => [ (0x0b << 40) | 2, 16000 ]);
start_node($restored);
$restored->safe_psql('postgres', 'CREATE DATABASE app');
$restored->command_ok([ 'pg_restore', '-d', $restored->connstr('app'), $dump ], 'pg_restore into a fresh server');
clock_reads($restored, $f - 0.3);
ids_generate($restored, 2, %work, not_before => $f - 0.05);
$found{'dump and restore'} = ids_check($restored, 2, 'pg_dump and pg_restore to a fresh server', %work);
$restored->stop;

# pg_upgrade from the old cluster (stopped) to a fresh one, both with idgen preloaded. It
# starts both servers itself (on the real clock: nothing generates meanwhile), and writes its
# logs and sockets where it runs: a directory of the test's own.
$old->stop;
my $upgraded = idgen_node('upgraded', node_id => 1, faketime => '+0', conf => "shared_buffers = 16MB\n",
    uuid_identity => [ (0x0b << 40) | 3, 16000 ]);
my $bindir = $old->config_data('--bindir');
my $workdir = PostgreSQL::Test::Utils::tempdir_short;
chdir $workdir or die "cannot enter $workdir: $!";
command_ok([ 'pg_upgrade', '--no-sync', '-b', $bindir, '-B', $bindir,
        '-d', $old->data_dir, '-D', $upgraded->data_dir, '-p', $old->port, '-P', $upgraded->port, '-s', $workdir ],
    'pg_upgrade 15 to 15 into a fresh cluster');
start_node($upgraded);
clock_reads($upgraded, $f - 0.3);
ids_generate($upgraded, 2, %work, not_before => $f - 0.05);
$found{'pg_upgrade'} = ids_check($upgraded, 2, 'pg_upgrade to a fresh cluster', %work);
$upgraded->stop;

diag('duplicates found: ' . join(', ', map { "$_ $found{$_}" } sort keys %found));

# A dump from a server whose clock ran a day ahead: its horizon is refused when the restore
# loads it (55000, nothing adopted), and the setting the HINT names lets a rerun of that table's
# data adopt it: the new server's ids then run above the old one's.
my $ahead = idgen_node('ahead', node_id => 2, faketime => '+1d');
start_node($ahead);
$ahead->safe_psql('postgres', 'CREATE DATABASE app');
$ahead->safe_psql('app', 'CREATE EXTENSION idgen; CREATE TABLE t (id uuid); INSERT INTO t SELECT uuid_v7() FROM generate_series(1, 100)');
my $ahead_dump = $ahead->basedir . '/ahead.dump';
$ahead->command_ok([ 'pg_dump', '-Fc', '-f', $ahead_dump, '-d', $ahead->connstr('app') ], 'pg_dump of a server a day ahead');
my $last_ahead = $ahead->safe_psql('app', 'SELECT id FROM t ORDER BY id DESC LIMIT 1');
$ahead->stop;
my $behind = idgen_node('behind', node_id => 2);
start_node($behind);
$behind->safe_psql('postgres', 'CREATE DATABASE app');
my ($out, $err) = ('', '');
IPC::Run::run([ 'pg_restore', '-d', $behind->connstr('app'), $ahead_dump ], '>', \$out, '2>', \$err);
like($err, qr/idgen will not adopt a moved database's horizon \d+ s ahead of this server's clock/,
    'a horizon a day ahead of the clock: the restore refuses to adopt it');
is($behind->safe_psql('app', "SELECT count(*) FROM idgen_state WHERE adopted_from IS NOT NULL OR lead > interval '1 minute'"),
    '0', 'and nothing was adopted');
my ($setting) = $err =~ /PGOPTIONS='(-c idgen\.max_adopted_lead=\d+)'/;
ok(defined $setting, 'the HINT names the setting for pg_restore');
{
    local $ENV{PGOPTIONS} = $setting;
    $behind->command_ok([ 'pg_restore', '--data-only', '-t', 'reserved_state', '-d', $behind->connstr('app'), $ahead_dump ],
        'the rerun of reserved_state with it');
}
is($behind->safe_psql('app', "SELECT uuid_v7() > '$last_ahead'::uuid"), 't', 'adopted: the new server\'s ids run above the old one\'s');
$behind->stop;
done_testing();
