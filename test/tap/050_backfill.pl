# Retrospective ids at scale: 1,000,000 historical rows in random order (30% sharing
# their timestamp with others, 20,000 on one microsecond) are backfilled by 4 sessions at once
# with uuid_v1_at, uuid_v7_at and snowflake_at; the server crashes (pg_ctl -m immediate); the same rows are
# backfilled again by 4 new sessions; then live uuid_v1(), uuid_v7() and snowflake_next() run. Over all of
# it: no id twice, and every id's embedded time equal to its row's (to the microsecond for
# UUIDs, to the millisecond for Snowflake ids).
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $rows = 1000000;
my $sessions = 4;
my $node = idgen_node('backfill', node_id => 7);
start_node($node);
# 128 nodes, the top 16 for backfill: 32,768 ids per millisecond per reserved node.
$node->safe_psql('postgres', qq{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('bf', '2010-01-01 00:00:00+00', 128, backfill_nodes => 16);
    CREATE TABLE events (i int, ts timestamptz, u1 uuid, s1 bigint, u2 uuid, s2 bigint, w1 uuid, w2 uuid);
    -- 700,000 rows on their own microsecond over a year, 280,000 in groups of ten, 20,000 on one.
    INSERT INTO events (i, ts)
    SELECT g, CASE
        WHEN g <= 700000 THEN '2015-01-01 00:00:00+00'::timestamptz + (g::bigint * 2654435761 % 31536000000000) * interval '1 microsecond'
        WHEN g <= 980000 THEN '2015-01-01 00:00:00+00'::timestamptz + (g % 28000) * interval '1117 milliseconds 3 microseconds'
        ELSE '2015-06-15 12:00:00.123456+00' END
    FROM generate_series(1, $rows) g ORDER BY random();
});
is($node->safe_psql('postgres', q{
    SELECT count(*) FILTER (WHERE n > 1) FROM (SELECT count(*) OVER (PARTITION BY ts) AS n FROM events) s}),
    '300000', '30% of the rows share their timestamp');

# $sessions sessions at once, each backfilling its share of the rows into columns $u, $s, $w.
sub backfill {
    my ($u, $s, $w) = @_;
    my @clients = map {
        IPC::Run::start([ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c',
            "UPDATE events SET $u = uuid_v1_at(ts), $s = snowflake_at('bf', ts), $w = uuid_v7_at(ts) WHERE i % $sessions = $_" ],
            '>', \my $out, '2>', \my $err)
    } 0 .. $sessions - 1;
    my $failed = 0;
    for (@clients) { $_->finish; $failed++ if $_->result != 0; }
    is($failed, 0, "$sessions sessions backfilled $u, $s and $w");
}

backfill('u1', 's1', 'w1');
$node->stop('immediate');
start_node($node);
backfill('u2', 's2', 'w2');
$node->safe_psql('postgres', q{
    CREATE TABLE live AS SELECT uuid_v1() AS u, snowflake_next('bf') AS s, uuid_v7() AS w FROM generate_series(1, 100000)});

is($node->safe_psql('postgres', q{
    SELECT count(*) FILTER (WHERE uuid_v1_timestamp(u1) = ts AND uuid_v1_timestamp(u2) = ts
                              AND uuid_v7_timestamp(w1) = ts AND uuid_v7_timestamp(w2) = ts),
           count(*) FILTER (WHERE snowflake_timestamp('bf', s1) = date_trunc('milliseconds', ts)
                              AND snowflake_timestamp('bf', s2) = date_trunc('milliseconds', ts))
    FROM events}), "$rows|$rows", 'every id carries its row\'s time (microsecond for both UUID versions / millisecond)');
is($node->safe_psql('postgres', q{
    SELECT count(*) - count(DISTINCT u) FROM (
        SELECT u1 AS u FROM events UNION ALL SELECT u2 FROM events UNION ALL SELECT u FROM live) s}),
    '0', 'no UUID twice among 2,100,000: both backfills, across the crash, and live uuid_v1()');
is($node->safe_psql('postgres', q{
    SELECT count(*) - count(DISTINCT s) FROM (
        SELECT s1 AS s FROM events UNION ALL SELECT s2 FROM events UNION ALL SELECT s FROM live) s}),
    '0', 'no Snowflake id twice among 2,100,000: both backfills, across the crash, and live snowflake_next()');
is($node->safe_psql('postgres', q{
    SELECT count(*) - count(DISTINCT w) FROM (
        SELECT w1 AS w FROM events UNION ALL SELECT w2 FROM events UNION ALL SELECT w FROM live) s}),
    '0', 'no version-7 UUID twice among 2,100,000: both backfills, across the crash, and live uuid_v7()');
is($node->safe_psql('postgres', q{
    SELECT count(*) FILTER (WHERE snowflake_node('bf', s) < 112) FROM live}),
    '100000', 'live ids stay on the live node ids, below the 16 reserved for backfill');
# How much of the id spaces the two backfills took (a lease per session and per clearing of
# its table; none lost to the crash but those leased and not yet used).
diag('namespaces used: ' . $node->safe_psql('postgres', q{
    SELECT count(DISTINCT uuid_v1_node(u)) || ' UUID nodes, ' ||
           count(DISTINCT snowflake_node('bf', s)) || ' Snowflake nodes'
    FROM (SELECT u1 AS u, s1 AS s FROM events UNION ALL SELECT u2, s2 FROM events) x}));
$node->stop;
done_testing();
