# A database moved by pg_dump/pg_restore between cluster mode and a standalone server, and between
# two clusters, with the same node id on both sides: the retrospective ids that carry the node id
# (uuid_v1_at(ts), uuid_v7_at) made after the move never repeat those made before it. In cluster
# mode a node id's namespaces are counted in its own space (the registry's counter, and the
# server's table under the node id), outside it in the server's one space: a dump must carry
# both, and each side must start above both.
# - cluster "one" (c0 holds node id 0, c1 node id 1): c1 backfills;
# - its dump restored into a standalone server with idgen.node_id = 1, which backfills the same
#   timestamps;
# - that database's dump restored into cluster "two" on the server holding node id 1, which
#   backfills them again; and c1's first dump restored there too, beside it (cluster to cluster).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;
use IdgenEtcd;

if (my @missing = IdgenEtcd::missing_programs()) {
    plan skip_all => "@missing not installed (Debian packages etcd-server, etcd-client)";
}

my $etcd = IdgenEtcd->new(members => 1);
$etcd->start;
my $rows = 5000;    # 100 rows on each of 50 microseconds

sub cluster_conf {
    my ($cluster) = @_;
    return "idgen.registry = '" . $etcd->client_urls . "'\nidgen.registry_cluster = '$cluster'\n"
      . "idgen.registry_lease = 3\nidgen.max_wait = '10s'\n";
}

sub server {
    my ($name, %opt) = @_;
    my $s = idgen_node($name, %opt);
    start_node($s);
    $s->safe_psql('postgres', 'CREATE EXTENSION idgen');
    $s->poll_query_until('postgres', q{SELECT state = 'attached' FROM idgen_registry}) or die "$name did not attach"
      unless defined $opt{node_id};
    return $s;
}

sub held_node { my ($s) = @_; return $s->safe_psql('postgres', 'SELECT node_id FROM idgen_registry'); }

sub backfill {
    my ($s, $db, $round) = @_;
    $s->safe_psql($db, qq{
        INSERT INTO ids SELECT $round, uuid_v1_at(t), uuid_v7_at(t)
        FROM (SELECT '2015-06-15 12:00:00+00'::timestamptz + (i % 50) * interval '1 microsecond' AS t
              FROM generate_series(1, $rows) i) h});
}

sub repeats {
    my ($s, $db) = @_;
    return $s->safe_psql($db, 'SELECT count(v1) - count(DISTINCT v1), count(v7) - count(DISTINCT v7), count(*) FROM ids');
}

# Dumps $db of $from and restores it into a new database $to_db of $to.
sub move {
    my ($from, $db, $to, $to_db) = @_;
    my $file = $from->basedir . "/$db-" . time() . '.dump';
    $from->command_ok([ 'pg_dump', '-Fc', '-f', $file, '-d', $from->connstr($db) ], "pg_dump of $db on " . $from->name);
    $to->safe_psql('postgres', "CREATE DATABASE $to_db");
    $to->command_ok([ 'pg_restore', '-d', $to->connstr($to_db), $file ], "pg_restore into $to_db on " . $to->name);
    return $file;
}

# Cluster "one": node ids 0 and 1.
my $c0 = server('c0', conf => cluster_conf('one'));
my $c1 = server('c1', conf => cluster_conf('one'));
is(held_node($c0) . ' ' . held_node($c1), '0 1', 'cluster one: c0 holds node id 0, c1 node id 1');
$c1->safe_psql('postgres', 'CREATE DATABASE app');
$c1->safe_psql('app', 'CREATE EXTENSION idgen; CREATE TABLE ids (round int, v1 uuid, v7 uuid)');
backfill($c1, 'app', 1);
is(repeats($c1, 'app'), "0|0|$rows", 'c1 (cluster one, node id 1): no repeat');

# Cluster mode to a standalone server with the same node id.
my $standalone = server('standalone', node_id => 1);
my $first_dump = move($c1, 'app', $standalone, 'app');
backfill($standalone, 'app', 2);
is(repeats($standalone, 'app'), '0|0|' . 2 * $rows, 'cluster mode to a standalone server of the same node id: no repeat');

# A standalone server to cluster mode, on the server holding the same node id in cluster "two".
my $t0 = server('t0', conf => cluster_conf('two'));
my $t1 = server('t1', conf => cluster_conf('two'));
is(held_node($t1), '1', 'cluster two: t1 holds node id 1');
move($standalone, 'app', $t1, 'app');
backfill($t1, 'app', 3);
is(repeats($t1, 'app'), '0|0|' . 3 * $rows, 'a standalone server to cluster mode, same node id: no repeat');

# Cluster to cluster: c1's first dump into cluster two, beside the database moved before.
$t1->safe_psql('postgres', 'CREATE DATABASE app2');
$t1->command_ok([ 'pg_restore', '-d', $t1->connstr('app2'), $first_dump ], 'pg_restore of c1\'s dump into app2 on t1');
backfill($t1, 'app2', 4);
is(repeats($t1, 'app2'), '0|0|' . 2 * $rows, 'cluster one to cluster two, same node id: no repeat');

$_->stop for ($c0, $c1, $standalone, $t0, $t1);
$etcd->stop;
done_testing();
