# Three servers, each with its own idgen.node_id (and, for locality UUIDs, its own
# idgen.locality_mac), generate with every generator at the same time; one of them gathers
# everything through dblink: no value of any generator occurs twice across the servers.
# Their clocks are frozen at one instant, so all of them start in the same millisecond with
# their counters at zero: only the node ids keep their values apart (with equal node ids
# this test finds collisions). uuid_v1_at(clock_timestamp()) puts all of its UUIDs on that one
# microsecond on every server. Then the node-id check of the README finds a fourth server
# started with a node id that is already taken.
# One major per test run: what keeps the servers apart is idgen's node id in each id's bits.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my %generators = (
    snowflake => ['bigint', q{snowflake_next('orders')}],
    uuid_v1   => ['uuid',   q{uuid_v1()}],
    locality  => ['uuid',   q{locality_uuid()}],
    unique_ts => ['bigint', q{unique_timestamp()}],
    backfill  => ['uuid',   q{uuid_v1_at(clock_timestamp())}],
    uuid_v7   => ['uuid',   q{uuid_v7()}],
    backfill7 => ['uuid',   q{uuid_v7_at(clock_timestamp())}],
);
my $per_server = 100000;

my @servers;
for my $id (1 .. 3) {
    my $s = idgen_node("server$id", node_id => $id, faketime => '+0',
        conf => "idgen.locality_mac = '02:00:5e:00:00:0$id'\n");
    start_node($s);
    $s->safe_psql('postgres', q{
        CREATE EXTENSION idgen;
        SELECT snowflake_create('orders', '2024-01-01 00:00:00+00', 1024);
    });
    for my $g (sort keys %generators) {
        $s->safe_psql('postgres', "CREATE TABLE $g (v $generators{$g}[0])");
    }
    push @servers, $s;
}

# All servers generate at once, one psql each, at the same frozen instant.
set_clock($_, '2030-01-01 00:00:00') for @servers;
my @runs;
for my $s (@servers) {
    my $sql = join('', map { "INSERT INTO $_ SELECT $generators{$_}[1] FROM generate_series(1, $per_server);\n" }
                        sort keys %generators);
    push @runs, IPC::Run::start([ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $s->connstr('postgres') ],
        '<', \$sql, '>', \my $out, '2>', \my $err);
}
ok($_->finish, 'a server generated all its values') for @runs;
set_clock($_, '+0') for @servers;

# Gather on server 1 through dblink.
my $hub = $servers[0];
$hub->safe_psql('postgres', 'CREATE EXTENSION dblink');
for my $g (sort keys %generators) {
    my $type = $generators{$g}[0];
    my @parts = ("SELECT v FROM $g");
    for my $s (@servers[1 .. 2]) {
        my $conn = $s->connstr('postgres');
        push @parts, "SELECT v FROM dblink(\$c\$$conn\$c\$, 'SELECT v FROM $g') AS t(v $type)";
    }
    my $all = join(' UNION ALL ', @parts);
    is($hub->safe_psql('postgres', "SELECT count(*), count(DISTINCT v) FROM ($all) s"),
        (3 * $per_server) . '|' . (3 * $per_server), "$g: no value twice across three servers");
}
# And each server's values carry its own node.
is($hub->safe_psql('postgres',
        q{SELECT count(DISTINCT snowflake_node('orders', v)) FROM snowflake WHERE snowflake_node('orders', v) <> 1}), '0',
    'server 1 wrote only node 1 Snowflake ids');

# The check users can run (README, Guarantees): node ids shared by more than one server.
sub shared_node_ids {
    my @links = map { "SELECT n FROM dblink(\$c\$" . $_->connstr('postgres') . "\$c\$, 'SHOW idgen.node_id') AS t(n text)" } @_;
    return $hub->safe_psql('postgres', 'SELECT n, count(*) FROM (SELECT current_setting(\'idgen.node_id\') AS n UNION ALL '
        . join(' UNION ALL ', @links) . ') s GROUP BY n HAVING count(*) > 1');
}
is(shared_node_ids(@servers[1 .. 2]), '', 'the node-id check finds nothing among distinct node ids');
my $twin = idgen_node('server4', node_id => 2);
start_node($twin);
is(shared_node_ids(@servers[1 .. 2], $twin), '2|2', 'the node-id check finds a server started with a taken node id');

$_->stop for @servers, $twin;
done_testing();
