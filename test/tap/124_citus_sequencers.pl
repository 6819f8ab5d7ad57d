# Snowflake sequencers reach every node of a Citus cluster by themselves (idgen.node_id_source =
# 'citus'): snowflake_create on the coordinator defines the sequencer on every worker at once, a
# worker added later takes it from the coordinator the first time it needs it (also for a role that
# may not create sequencers), a worker defines a sequencer itself only as the coordinator does
# (42710 naming both, 55000 for a name the coordinator lacks), a worker holding another definition under the name makes the
# coordinator's create fail and leaves nothing behind, and snowflake_drop on the coordinator drops
# it everywhere (also a sequencer the workers kept from a create the coordinator rolled back). Then snowflake_at on every worker at once (the backfill recipe run on each shard):
# each node backfills in its own group's window of the reserved node ids, so no id repeats and every
# id carries its row's time.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;
use IdgenCitus;

plan skip_all => 'Citus is not installed (scripts/citus builds it)' unless citus_installed();

my ($coordinator, $w1, $w2) = citus_cluster(undef, undef, undef);
sub definitions {
    my ($n) = @_;
    return $n->safe_psql('postgres',
        q{SELECT string_agg(format('%s %s %s %s %s', name, epoch AT TIME ZONE 'UTC', max_nodes, backfill_nodes, layout), '; ' ORDER BY name)
          FROM snowflake_definitions});
}

# ---- created on the coordinator: on every worker at once -------------------------------------------
$coordinator->safe_psql('postgres', q{SELECT snowflake_create('orders', '2020-01-01 00:00:00+00', 1000, backfill_nodes => 4)});
my $orders = 'orders 2020-01-01 00:00:00 1024 4 idgen';
is(definitions($_), $orders, $_->name . ' holds the coordinator\'s definition at once') for $w1, $w2;
is(join(',', map { $_->safe_psql('postgres', q{SELECT snowflake_node('orders', snowflake_next('orders'))}) } $coordinator, $w1, $w2),
   '0,1,2', 'each node issues under its own group');
# The same create again does nothing anywhere.
$coordinator->safe_psql('postgres', q{SELECT snowflake_create('orders', '2020-01-01 00:00:00+00', 1024, backfill_nodes => 4)});
is(definitions($w2), $orders, 'the same create again changes nothing');

# ---- a worker defines only the coordinator's sequencers, as the coordinator does -------------------------
my ($ret, $out, $err) = $w1->psql('postgres', q{SELECT snowflake_create('invoices', '2024-01-01 00:00:00+00', 128)});
like($err, qr/ERROR:  Snowflake sequencer "invoices" does not exist on the Citus coordinator.*HINT:  Create it on the coordinator/s,
     'a worker refuses to define a name the coordinator does not have');
is(definitions($w1), $orders, 'and keeps nothing of it');

# ---- a worker holding another definition under the name (made before it joined, or by 0.9.7) ---------
# Citus's own connections are not asked back (the coordinator's create reaches the workers through
# run_command_on_workers before it commits): a session that names itself as one makes the worker
# hold a definition of its own.
$w1->safe_psql('postgres', q{SET application_name = 'citus_run_command gpid=1';
    SELECT snowflake_create('invoices', '2024-01-01 00:00:00+00', 128)});
($ret, $out, $err) = $coordinator->psql('postgres', q{SELECT snowflake_create('invoices', '2020-01-01 00:00:00+00', 1024)});
like($err, qr/ERROR:  snowflake_create: a Citus worker did not take it: .*already exists with a different definition/,
     'a worker with another definition of the name makes the create fail');
is($coordinator->safe_psql('postgres', q{SELECT count(*) FROM snowflake_definitions WHERE name = 'invoices'}), '0',
   'and the coordinator keeps nothing of it');
$w1->safe_psql('postgres', q{SELECT snowflake_drop('invoices')});

# ---- a worker added later: takes the definition the first time it needs it ----------------------------
my $w3 = citus_add_worker($coordinator, citus_server('worker3', undef));
is(definitions($w3), '', 'a worker added later holds no sequencer yet');
# Defining it itself, it may only define it as the coordinator does.
($ret, $out, $err) = $w3->psql('postgres', q{SELECT snowflake_create('orders', '2020-01-01 00:00:00+00', 1024)});
like($err, qr/ERROR:  Snowflake sequencer "orders" has another definition on the Citus coordinator\nDETAIL:  The coordinator's has epoch .* max_nodes 1024, backfill_nodes 4 and layout idgen; this one epoch .* max_nodes 1024, backfill_nodes 0 and layout idgen\./,
     'a worker refuses its own definition of a name that differs from the coordinator\'s (42710, naming both)');
is(definitions($w3), '', 'and keeps nothing of it');
$coordinator->safe_psql('postgres', q{CREATE ROLE app LOGIN});
is($w3->safe_psql('postgres', q{SET ROLE app; SELECT snowflake_node('orders', snowflake_next('orders'))}), '3',
   'it issues under its own group, the definition taken from the coordinator (for a role that may not create one)');
is(definitions($w3), $orders, 'and holds the coordinator\'s definition since');
($ret, $out, $err) = $w3->psql('postgres', q{SELECT snowflake_next('nowhere')});
like($err, qr/ERROR:  Snowflake sequencer "nowhere" does not exist/, 'a name the coordinator lacks too: 42704');

# A sequencer whose live node ids stop below a worker's group says so in the group's terms.
$coordinator->safe_psql('postgres', q{SELECT snowflake_create('narrow', '2020-01-01 00:00:00+00', 128, backfill_nodes => 126)});
($ret, $out, $err) = $w2->psql('postgres', q{SELECT snowflake_next('narrow')});
like($err, qr/DETAIL:  this node's Citus group is 2; the sequencer's live node ids are 0\.\.1\.\nHINT:  Create the sequencer with more max_nodes/,
     'a group past the live node ids: the error names the group');

# ---- snowflake_at on every worker at once ------------------------------------------------------------
$coordinator->safe_psql('postgres', q{
    CREATE TABLE events (k int, created_at timestamptz, s bigint);
    SELECT create_distributed_table('events', 'k');
    INSERT INTO events (k, created_at)
        SELECT g, timestamptz '2024-03-01 00:00:00+00' + (g % 100) * interval '1 millisecond' FROM generate_series(1, 4000) g;
});
is($coordinator->safe_psql('postgres', q{SELECT count(*) FROM run_command_on_shards('events',
    $$UPDATE %s SET s = snowflake_at('orders', created_at)$$) WHERE NOT success}), '0',
   'snowflake_at ran on every shard, on every worker at once');
is($coordinator->safe_psql('postgres', q{
    SELECT count(*) = count(DISTINCT s), bool_and(snowflake_node('orders', s) >= 1020),
           bool_and(snowflake_timestamp('orders', s) = date_trunc('milliseconds', created_at))
    FROM events}), 't|t|t',
   'no retrospective id twice across the workers, all on reserved node ids, each with its row\'s time');

# ---- a create undone on the coordinator after the workers took it: its drop still reaches them --------
$coordinator->safe_psql('postgres', q{BEGIN; SELECT snowflake_create('undone', '2020-01-01 00:00:00+00', 1024); ROLLBACK;});
is(join(',', map { $_->safe_psql('postgres', q{SELECT count(*) FROM snowflake_definitions WHERE name = 'undone'}) }
        $coordinator, $w1, $w2), '0,1,1', 'a create rolled back on the coordinator stays on the workers that took it');
$coordinator->safe_psql('postgres', q{SELECT snowflake_drop('undone')});
is(join(',', map { $_->safe_psql('postgres', q{SELECT count(*) FROM snowflake_definitions WHERE name = 'undone'}) }
        $w1, $w2), '0,0', "and the coordinator's drop removes it there, though the coordinator had none");
($ret, $out, $err) = $coordinator->psql('postgres', q{SELECT snowflake_drop('undone')});
like($err, qr/ERROR:  Snowflake sequencer "undone" does not exist/, 'dropped again: no node has it (42704)');

# ---- dropped on the coordinator: everywhere ---------------------------------------------------------
$coordinator->safe_psql('postgres', q{SELECT snowflake_drop('orders')});
for my $n ($coordinator, $w1, $w2, $w3) {
    ($ret, $out, $err) = $n->psql('postgres', q{SELECT snowflake_next('orders')});
    like($err, qr/ERROR:  Snowflake sequencer "orders" does not exist/, $n->name . ': dropped');
}

done_testing();
