# idgen on Citus: a coordinator and two workers on loopback, each with its own idgen.node_id.
# Live ids in a distributed table's defaults come from the coordinator and from the workers (an
# INSERT ... SELECT pushed down), none twice. A distributed table is backfilled with retrospective
# ids that carry the server's node id (uuid_v7_at, uuid_v1_at(ts)) on the workers that hold its
# shards, by the documented recipe (Citus refuses volatile functions in a distributed UPDATE;
# run_command_on_shards runs the UPDATE on each shard). A shard is then moved by logical
# replication (citus_move_shard_placement), every shard backfilled again at the same timestamps,
# the rebalancer (citus_rebalance_start) moves one back, and a third round runs. Each move
# completes and leaves no subscription behind (idgen's DROP SUBSCRIPTION takes the source
# worker's state over under the password rule PostgreSQL applies to the subscription itself:
# Citus's subscriptions belong to a role that is no superuser when they are dropped),
# retrospective ids on the target are not refused afterwards, and no id of any round repeats
# anywhere in the cluster. (The node ids are set by hand here, so snowflake_at keeps its rule of
# one server per sequencer's backfill; on every worker at once with the node ids from Citus:
# test/tap/124_citus_sequencers.pl.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;
use IdgenCitus;

plan skip_all => 'Citus is not installed (scripts/citus builds it)' unless citus_installed();

my ($coordinator, $w1, $w2) = citus_cluster(1, 11, 12);
is($w1->safe_psql('postgres', "SELECT extversion <> '' FROM pg_extension WHERE extname = 'idgen'"),
    't', 'CREATE EXTENSION idgen on the coordinator reaches the workers');

# Node ids set by hand (not Citus's groups): the sequencer is created on every node.
$coordinator->safe_psql('postgres', q{SELECT run_command_on_all_nodes(
    $$SELECT snowflake_create('orders', '2020-01-01 00:00:00+00', 1024, backfill_nodes => 4)$$)});
$coordinator->safe_psql('postgres', q{
    CREATE TABLE events (k int, created_at timestamptz, u7 uuid, u1 uuid);
    SELECT create_distributed_table('events', 'k');
    CREATE TABLE seen (k int, u7 uuid, u1 uuid);
    SELECT create_distributed_table('seen', 'k', colocate_with => 'events');
    INSERT INTO events (k, created_at)
        SELECT g, timestamptz '2024-03-01 00:00:00+00' + (g % 20) * interval '1 hour'
        FROM generate_series(1, 4000) g;
});

# One round of the backfill recipe on every shard, the ids kept in `seen`.
sub backfill {
    my ($round) = @_;
    my $failed = $coordinator->safe_psql('postgres', q{
        SELECT string_agg(result, '; ') FROM run_command_on_shards('events',
            $$UPDATE %s SET u7 = uuid_v7_at(created_at), u1 = uuid_v1_at(created_at)$$) WHERE NOT success});
    is($failed, '', "round $round: the backfill ran on every shard");
    $coordinator->safe_psql('postgres', 'INSERT INTO seen SELECT k, u7, u1 FROM events');
}

# Live ids in a distributed table's defaults, made on the coordinator (INSERT ... VALUES, and an
# INSERT ... SELECT that Citus pulls up to it) and on the workers (an INSERT ... SELECT between
# colocated tables, pushed down to each shard): each server's ids carry its node id.
$coordinator->safe_psql('postgres', q{
    CREATE TABLE orders (k int, id bigint DEFAULT snowflake_next('orders'), u uuid DEFAULT uuid_v7());
    SELECT create_distributed_table('orders', 'k', colocate_with => 'events');
    INSERT INTO orders (k) VALUES (1), (2), (3);
    INSERT INTO orders (k) SELECT g FROM generate_series(1, 2000) g;
    INSERT INTO orders (k) SELECT k FROM events;
});
is($coordinator->safe_psql('postgres', q{
    SELECT count(*), count(DISTINCT id), count(DISTINCT u) FROM orders}), '6003|6003|6003',
    'live ids made on the coordinator and on the workers: none twice');
is($coordinator->safe_psql('postgres', q{
    SELECT string_agg(DISTINCT snowflake_node('orders', id)::text, ',' ORDER BY snowflake_node('orders', id)::text)
    FROM orders}), '1,11,12', 'the coordinator and both workers made them, each under its node id');

my ($refused) = $coordinator->psql('postgres', q{UPDATE events SET u7 = uuid_v7_at(created_at)});
isnt($refused, 0, 'a distributed UPDATE with a retrospective generator is refused by Citus (hence the recipe)');

backfill(1);

my $shard = $coordinator->safe_psql('postgres', qq{
    SELECT s.shardid FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)
    JOIN pg_dist_node n ON n.groupid = p.groupid
    WHERE s.logicalrelid = 'events'::regclass AND n.nodeport = @{[ $w1->port ]}
    ORDER BY s.shardid LIMIT 1});
$coordinator->safe_psql('postgres', "SELECT citus_move_shard_placement($shard, '127.0.0.1', "
    . $w1->port . ", '127.0.0.1', " . $w2->port . ", 'force_logical')");
is($coordinator->safe_psql('postgres', qq{
    SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid) WHERE p.shardid = $shard}),
    $w2->port, 'the shard moved to the second worker');
for my $w ($w1, $w2) {
    is($w->safe_psql('postgres', 'SELECT count(*) FROM pg_subscription'), '0',
        $w->name . ': the move left no subscription behind');
}
# While a subscription exists, snowflake_at waits (55000) in its database: so it is free again.
is($w2->safe_psql('postgres', q{SELECT snowflake_at('orders', now()) > 0}), 't',
    'retrospective ids on the target are not refused after the move');

backfill(2);

# The rebalancer moves shards back (the first worker holds fewer now) with the same logical
# replication, as background jobs.
$coordinator->safe_psql('postgres', q{SELECT citus_rebalance_start(shard_transfer_mode => 'force_logical');
                                      SELECT citus_rebalance_wait()});
my $placed = $coordinator->safe_psql('postgres', qq{
    SELECT count(*) FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid) JOIN pg_dist_shard s USING (shardid)
    WHERE s.logicalrelid = 'events'::regclass AND n.nodeport = @{[ $w1->port ]}});
is($placed, '4', 'the rebalancer moved a shard back to the first worker');
for my $w ($w1, $w2) {
    is($w->safe_psql('postgres', 'SELECT count(*) FROM pg_subscription'), '0',
        $w->name . ': the rebalance left no subscription behind');
}

backfill(3);

my $counts = $coordinator->safe_psql('postgres', q{
    SELECT count(*), count(DISTINCT u7), count(DISTINCT u1) FROM seen});
is($counts, '12000|12000|12000', 'three rounds of retrospective ids across the cluster, the move and the rebalance: none twice');

done_testing();
