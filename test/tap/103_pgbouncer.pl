# idgen behind a connection pooler: pgbouncer in transaction pooling mode, 16 clients over 4
# server connections, every client's transaction on whichever server connection is free. Every
# generator and a backfill run through it at once: no id twice, in any column. Behind such a
# pooler a "session" of idgen's guarantees (ids strictly increasing within a session; a
# backfill session's namespaces) is a server connection, shared by many clients in turn, not a
# client: the ids are unique all the same, and each client's ids are what its transactions got.
# Needs pgbench (PostgreSQL's) and Debian's pgbouncer (skipped without it, with a message).
# One major per test run: pgbouncer in front changes which session calls, not what a major does.
use strict;
use warnings;
use File::Temp ();
use IPC::Run;
use Time::HiRes qw(sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my ($pgbouncer) = grep { -x } qw(/usr/sbin/pgbouncer /usr/bin/pgbouncer);
plan skip_all => 'pgbouncer not installed (Debian package pgbouncer)' unless $pgbouncer;

my $node = idgen_node('behind_pgbouncer', node_id => 5, conf => "max_connections = 20\n");
start_node($node);
$node->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('pooled', '2020-01-01', 1024, backfill_nodes => 16);
    CREATE TABLE ids (sf bigint, u1 uuid, u7 uuid, lu uuid, ut bigint, a1 uuid, a7 uuid, sa bigint);
});

# pgbouncer: transaction pooling, 4 server connections for all clients, no authentication of
# its own (auth_type any: it connects as the test's user, over the server's socket).
my $dir = PostgreSQL::Test::Utils::tempdir('pgbouncer');
my $port = PostgreSQL::Test::Cluster::get_free_port();
my $user = $node->safe_psql('postgres', 'SELECT current_user');
open my $ini, '>', "$dir/pgbouncer.ini" or die $!;
print $ini "[databases]\npostgres = host=" . $node->host . ' port=' . $node->port . " dbname=postgres user=$user\n"
  . "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = $port\nunix_socket_dir =\nauth_type = any\n"
  . "pool_mode = transaction\ndefault_pool_size = 4\nmax_client_conn = 100\nlogfile = $dir/pgbouncer.log\n"
  . "pidfile = $dir/pgbouncer.pid\n";
close $ini;
my $bouncer = IPC::Run::start([ $pgbouncer, "$dir/pgbouncer.ini" ], '<', '/dev/null', '>', "$dir/out.log", '2>&1');
my $ready = 0;
for (1 .. 100) {
    last if ($ready = system('psql', '-X', '-q', '-h', '127.0.0.1', '-p', $port, '-d', 'postgres', '-c', 'SELECT 1') == 0);
    sleep(0.1);
}
ok($ready, 'pgbouncer answers in transaction pooling mode');

# 16 clients for 10 s, each transaction one row of every generator and a backfill of a random
# past time, all through pgbouncer.
open my $script, '>', "$dir/ids.sql" or die $!;
print $script q{INSERT INTO ids SELECT snowflake_next('pooled'), uuid_v1(), uuid_v7(), locality_uuid(), unique_timestamp(),
    uuid_v1_at(t), uuid_v7_at(t), snowflake_at('pooled', t)
FROM (SELECT '2021-01-01 00:00:00+00'::timestamptz + (random() * 1000)::int * interval '1 second' AS t) s;
};
close $script;
my ($out, $err) = ('', '');
my $ok = IPC::Run::run([ 'pgbench', '-n', '-h', '127.0.0.1', '-p', $port, '-c', '16', '-j', '2', '-T', '10',
                         '-f', "$dir/ids.sql", 'postgres' ], '>', \$out, '2>', \$err);
ok($ok, 'pgbench through pgbouncer ran') or diag($err);
my ($clients_seen) = $out =~ /number of clients: (\d+)/;
is($clients_seen, 16, '16 clients');
my $server_conns = $node->safe_psql('postgres', q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()});
cmp_ok($server_conns, '<=', 4, "over at most 4 server connections (pgbouncer's: $server_conns)");

my $rows = $node->safe_psql('postgres', 'SELECT count(*) FROM ids');
cmp_ok($rows, '>', 100, "$rows rows through the pooler");
for my $col (qw(sf u1 u7 lu ut a1 a7 sa)) {
    is($node->safe_psql('postgres', "SELECT count(*) - count(DISTINCT $col) FROM ids"), 0, "$col: no id twice");
}
is($node->safe_psql('postgres', q{SELECT count(*) FROM ids WHERE sf IS NULL OR a1 IS NULL OR sa IS NULL}), 0, 'every row has every id');

kill 'TERM', $bouncer->{KIDS}[0]{PID} if $bouncer->{KIDS} && @{ $bouncer->{KIDS} };
$bouncer->finish;
$node->stop;
done_testing();
