# Moves by logical replication, as blue/green upgrades and managed services make them: an old
# server A (node id 1) backfills historical rows with every retrospective generator and makes
# live ids; a new server with the same settings but a node id of its own (2: a subscription to a
# publisher of its own node id is refused, test/tap/068_move_transitions.pl) takes the schema
# from pg_dump --schema-only, subscribes, follows A while A goes on working, and takes over when
# the subscription is dropped; then it backfills the same timestamps again. No id may repeat.
# - B: a publication FOR ALL TABLES (idgen's own tables included).
# - C: a publication of the user's table only; A is down when the subscription is to be dropped
#   (disabled, slot_name = NONE, as a dead publisher's subscription is dropped), so idgen cannot
#   take A's state over: the DROP fails and retrospective ids keep waiting until
#   idgen_carry_state (from A, back up) takes it over; then the DROP succeeds and C backfills.
# While subscribed, the new servers refuse the retrospective ids that do not carry their own node
# id (55000), also in their other databases for the generators whose counters the server's
# databases share; those that carry it (uuid_v1_at(ts), uuid_v7_at) go on.
# - On PostgreSQL 16 and later, P and Q (node ids 1 and 2) replicate one table both ways
#   (origin = none) while both insert and backfill it: no primary-key conflict, the generators
#   whose ids carry the node id work on both, the others wait.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $conf = "wal_level = logical\nmax_wal_senders = 10\nmax_replication_slots = 10\n";
my $rows = 5000;

# The backfill of one round: $rows rows on 50 ms of history (100 rows per millisecond, one
# microsecond per 20), through every retrospective generator, and live ids.
sub work {
    my ($node, $round) = @_;
    $node->safe_psql('app', qq{
        INSERT INTO events SELECT $round * 1000000 + g, t, uuid_v1_at(t), uuid_v1_at(t, '08:00:2b:01:02:03'),
                                  snowflake_at('s', t), uuid_v7_at(t), snowflake_next('s'), uuid_v1()
        FROM (SELECT g, '2015-06-15 12:00:00+00'::timestamptz + (g % 50) * interval '1 millisecond'
                                                              + (g % 20) * interval '1 microsecond' AS t
              FROM generate_series(1, $rows) g) h;});
}

# Every id column distinct over all rows; the number of repeats per column.
sub repeats {
    my ($node) = @_;
    return $node->safe_psql('app', q{
        SELECT count(ua) - count(DISTINCT ua), count(un) - count(DISTINCT un), count(sa) - count(DISTINCT sa),
               count(a7) - count(DISTINCT a7), count(sn) - count(DISTINCT sn), count(u1) - count(DISTINCT u1), count(*)
        FROM events});
}

sub sqlstate_of {
    my ($node, $db, $sql) = @_;
    my ($ret, $out, $err) = $node->psql($db, "\\set VERBOSITY verbose\n$sql");
    return $ret == 0 ? 'ok' : $err =~ /ERROR:\s+([0-9A-Z]{5}):/ ? $1 : $err;
}

my $a = app_server('a', 1, $conf, q{
    CREATE TABLE events (i bigint PRIMARY KEY, ts timestamptz, ua uuid, un uuid, sa bigint, a7 uuid, sn bigint, u1 uuid);
    CREATE PUBLICATION all_tables FOR ALL TABLES;
    CREATE PUBLICATION user_table FOR TABLE events;});
work($a, 1);
my $schema = $a->basedir . '/schema.sql';
$a->command_ok([ 'pg_dump', '--schema-only', '--no-publications', '-f', $schema, '-d', $a->connstr('app') ],
    'pg_dump --schema-only of the old database');

# A new server: the schema, a subscription, the guard while it stands.
sub subscriber {
    my ($name, $publication) = @_;
    my $n = idgen_node($name, node_id => 2, conf => $conf);
    start_node($n);
    $n->safe_psql('postgres', 'CREATE DATABASE app');
    $n->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', $schema, '-d', $n->connstr('app') ],
        "$name: the schema");
    $n->safe_psql('app', qq{SELECT snowflake_create('s', '2010-01-01 00:00:00+00', 128, backfill_nodes => 4)})
        if $publication eq 'user_table';  # the definitions travel only with idgen's tables
    $n->safe_psql('app', "CREATE SUBSCRIPTION move CONNECTION '" . $a->connstr . " dbname=app' PUBLICATION $publication");
    $n->poll_query_until('app', "SELECT (SELECT count(*) >= $rows FROM events) AND (SELECT count(*) = 1 FROM snowflake_definitions)")
      or die "$name: the initial copy did not arrive";
    is(sqlstate_of($n, 'app', q{SELECT uuid_v1_at('2015-06-15 12:00:00+00', '08:00:2b:01:02:03')}), '55000',
        "$name: uuid_v1_at(ts, node) waits while the subscription stands");
    is(sqlstate_of($n, 'app', q{SELECT snowflake_at('s', '2015-06-15 12:00:00+00')}), '55000',
        "$name: snowflake_at waits too");
    is(sqlstate_of($n, 'app', q{SELECT uuid_v1_at('2015-06-15 12:00:00+00'), uuid_v7_at('2015-06-15 12:00:00+00')}),
        'ok', "$name: uuid_v1_at(ts) and uuid_v7_at, whose ids carry this server's own node id, go on");
    $n->safe_psql('postgres', 'CREATE EXTENSION idgen');
    is(sqlstate_of($n, 'postgres', q{SELECT uuid_v1_at('2015-06-15 12:00:00+00', '08:00:2b:01:02:03')}), '55000',
        "$name: another database of the server waits too (the counters are the server's)");
    return $n;
}

# B: FOR ALL TABLES. A goes on working after the initial copy; B follows; DROP SUBSCRIPTION.
my $b = subscriber('b', 'all_tables');
work($a, 2);
$a->wait_for_catchup('move');
is($b->safe_psql('app', 'SELECT count(*) FROM events'), 2 * $rows, 'b: caught up with both rounds of a');
$b->safe_psql('app', 'DROP SUBSCRIPTION move');
# The sequencer's definition came from A, with A's node id as its backfill owner: moved to B now
# that A no longer backfills, as snowflake_at's refusal says.
$b->safe_psql('app', "UPDATE snowflake_definitions SET backfill_owner = 2 WHERE name = 's'");
work($b, 3);
is(repeats($b), '0|0|0|0|0|0|' . 3 * $rows, 'b (FOR ALL TABLES): no id repeats after the move');

# C: the user's table only; A down when the subscription is dropped.
my $c = subscriber('c', 'user_table');
work($a, 4);
$a->wait_for_catchup('move');
$a->stop;
$c->safe_psql('app', 'ALTER SUBSCRIPTION move DISABLE; ALTER SUBSCRIPTION move SET (slot_name = NONE)');
my ($ret, $out, $err) = $c->psql('app', 'DROP SUBSCRIPTION move');
like($err, qr/ERROR:  DROP SUBSCRIPTION: idgen could not take over the publisher's state: could not connect/,
    'c: dropped while a is down: the DROP fails');
is(sqlstate_of($c, 'app', q{SELECT uuid_v1_at('2015-06-15 12:00:00+00', '08:00:2b:01:02:03')}), '55000',
    'c: without the publisher\'s state, retrospective ids wait (55000)');
start_node($a);
$c->safe_psql('app', "SELECT idgen_carry_state('move', '" . $a->connstr . " dbname=app')");
$c->safe_psql('app', 'DROP SUBSCRIPTION move');
work($c, 5);
is(repeats($c), '0|0|0|0|0|0|' . 4 * $rows, 'c (user table, idgen_carry_state): no id repeats after the move');
$a->safe_psql('app', 'SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots');
$_->stop for ($a, $b, $c);

# P and Q: both ways at once (origin = none, PostgreSQL 16 and later).
SKIP: {
    skip 'origin = none needs PostgreSQL 16', 4 if $a->pg_version < 16;
    my %n;
    for my $id (1, 2) {
        my $n = $n{$id} = idgen_node("bidi$id", node_id => $id, conf => $conf);
        start_node($n);
        $n->safe_psql('postgres', 'CREATE DATABASE app');
        $n->safe_psql('app', q{
            CREATE EXTENSION idgen;
            CREATE TABLE t (id uuid PRIMARY KEY, ts timestamptz, made_on int);
            CREATE PUBLICATION t_pub FOR TABLE t;});
    }
    for my $pair ([ 1, 2 ], [ 2, 1 ]) {
        my ($sub, $pub) = @$pair;
        $n{$sub}->safe_psql('app', "CREATE SUBSCRIPTION from_$pub CONNECTION '" . $n{$pub}->connstr
              . " dbname=app' PUBLICATION t_pub WITH (origin = none, copy_data = false)");
    }
    for my $id (1, 2) {
        $n{$id}->safe_psql('app', qq{
            INSERT INTO t SELECT uuid_v1_at(ts), ts, $id FROM (SELECT '2015-06-15 12:00:00+00'::timestamptz + (g % 7) * interval '1 microsecond' AS ts FROM generate_series(1, $rows) g) h;
            INSERT INTO t SELECT uuid_v7_at(ts), ts, $id FROM (SELECT '2015-06-15 12:00:00+00'::timestamptz + (g % 7) * interval '1 microsecond' AS ts FROM generate_series(1, $rows) g) h;
            INSERT INTO t SELECT uuid_v7(), now(), $id FROM generate_series(1, $rows);});
    }
    $n{$_}->poll_query_until('app', 'SELECT count(*) = ' . 6 * $rows . ' FROM t') or die 'bidirectional replication did not converge'
        for (1, 2);
    is($n{1}->safe_psql('app', 'SELECT count(*) FROM t'), 6 * $rows, 'both ways: every row of both servers on server 1');
    is($n{2}->safe_psql('app', 'SELECT count(*) FROM t'), 6 * $rows, 'both ways: and on server 2');
    is($n{1}->safe_psql('app', 'SELECT coalesce(sum(apply_error_count), 0) FROM pg_stat_subscription_stats'), '0',
        'both ways: no apply error (no primary-key conflict)');
    is(sqlstate_of($n{1}, 'app', q{SELECT uuid_v1_at('2015-06-15 12:00:00+00', '08:00:2b:01:02:03')}), '55000',
        'both ways: uuid_v1_at(ts, node), whose ids carry no node id, waits');
    $n{$_}->stop for (1, 2);
}

done_testing();
