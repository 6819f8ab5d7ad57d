# A hot standby hands out no id: every generator, live and retrospective, refuses there with
# SQLSTATE 25006 (read_only_sql_transaction), as PostgreSQL's own writes do, since whatever a
# standby handed out its primary would not know of. Every decoder and reader still works there
# and reads the replicated ids exactly as the primary does; and replay goes on.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $p = idgen_node('primary', node_id => 1, init => { allows_streaming => 1 });
start_node($p);
$p->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('ids', '2010-01-01 00:00:00+00', 8192, backfill_nodes => 64);
});
$p->backup('base');
my $s = idgen_standby($p, 'base', 'standby');
start_node($s);

# Values of every generator, made on the primary, replicated.
my $sample = q{
    SELECT snowflake_next('ids') AS sf, uuid_v1() AS u1, locality_uuid() AS lu, locality_uuid(true) AS ls,
           unique_timestamp() AS ut, uuid_v1_at(ts) AS ua, uuid_v1_at(ts, '08:00:2b:01:02:03') AS un,
           snowflake_at('ids', ts) AS sa, uuid_v7() AS u7, uuid_v7_at(ts) AS a7, uuid_v6() AS u6,
           uuid_v6_at(ts) AS a6
    FROM (SELECT '2015-06-15 12:00:00.123456+00'::timestamptz + g * interval '1 ms' AS ts
          FROM generate_series(1, 100) g) h};
$p->safe_psql('postgres', "CREATE TABLE samples AS $sample");
$p->wait_for_catchup($s);

my @generators = (
    q{snowflake_next('ids')}, q{uuid_v1()}, q{locality_uuid()}, q{locality_uuid(true)},
    q{locality_uuid(false)}, q{unique_timestamp()}, q{uuid_v1_at('2015-06-15 12:00:00+00')},
    q{uuid_v1_at('2015-06-15 12:00:00+00', '08:00:2b:01:02:03')},
    q{snowflake_at('ids', '2015-06-15 12:00:00+00')}, q{uuid_v7()}, q{uuid_v7_at('2015-06-15 12:00:00+00')},
    q{uuid_v6()}, q{uuid_v6_at('2015-06-15 12:00:00+00')}, q{uuid_v6_at('2015-06-15 12:00:00+00', '08:00:2b:01:02:03')},
);
for my $g (@generators) {
    like(psql_error($s, "SELECT $g"), qr/ERROR:\s+25006:/, "$g on a hot standby: 25006");
}
# The same from PL/pgSQL, each refusal caught by its condition name.
my ($ret, $out, $err) = $s->psql('postgres', q{
    DO $$
    DECLARE n int := 0;
    BEGIN
        BEGIN PERFORM snowflake_next('ids'); EXCEPTION WHEN read_only_sql_transaction THEN n := n + 1; END;
        BEGIN PERFORM uuid_v1(); EXCEPTION WHEN read_only_sql_transaction THEN n := n + 1; END;
        BEGIN PERFORM locality_uuid(); EXCEPTION WHEN read_only_sql_transaction THEN n := n + 1; END;
        BEGIN PERFORM unique_timestamp(); EXCEPTION WHEN read_only_sql_transaction THEN n := n + 1; END;
        BEGIN PERFORM uuid_v1_at(now()); EXCEPTION WHEN read_only_sql_transaction THEN n := n + 1; END;
        BEGIN PERFORM snowflake_at('ids', now()); EXCEPTION WHEN read_only_sql_transaction THEN n := n + 1; END;
        BEGIN PERFORM uuid_v7(); EXCEPTION WHEN read_only_sql_transaction THEN n := n + 1; END;
        BEGIN PERFORM uuid_v7_at(now()); EXCEPTION WHEN read_only_sql_transaction THEN n := n + 1; END;
        RAISE NOTICE 'refused: %', n;
    END $$});
like($err, qr/refused: 8/, 'PL/pgSQL catches each refusal as read_only_sql_transaction');
is($s->safe_psql('postgres', 'SELECT count(*) FROM (SELECT uuid_v1() FROM samples WHERE false) s'), '0',
    'a query that calls no generator still runs');

# Every decoder and reader: on the standby exactly what the primary says, for every sample.
my @decoders = (
    q{uuid_v1_timestamp(u1)}, q{uuid_v1_clock_seq(u1)}, q{uuid_v1_node(u1)}, q{uuid_version(u1)},
    q{uuid_v1_timestamp(ua)}, q{uuid_v1_clock_seq(ua)}, q{uuid_v1_node(ua)},
    q{uuid_v1_timestamp(un)}, q{uuid_v1_node(un)}, q{uuid_version(ua)},
    q{snowflake_timestamp('ids', sf)}, q{snowflake_node('ids', sf)}, q{snowflake_counter('ids', sf)},
    q{snowflake_timestamp('ids', sa)}, q{snowflake_node('ids', sa)}, q{snowflake_counter('ids', sa)},
    q{snowflake_min_id('ids', uuid_v1_timestamp(ua))},
    q{locality_uuid_timestamp(lu)}, q{locality_uuid_pid(lu)}, q{locality_uuid_mac(lu)},
    q{locality_uuid_counter(lu)}, q{locality_uuid_timestamp(ls)},
    q{unique_timestamp_text(ut)}, q{unique_timestamp_host(ut)}, q{unique_timestamp_to_timestamptz(ut)},
    q{form_uuid_v1(uuid_v1_timestamp(ua), 13256, '9f:6b:de:ce:d8:46')},
    q{uuid_v7_timestamp(u7)}, q{uuid_v7_timestamp(a7)}, q{uuid_v7_min(uuid_v7_timestamp(a7))},
    q{uuid_v6_timestamp(u6)}, q{uuid_v6_timestamp(a6)}, q{uuid_v6_to_v1(a6)}, q{uuid_v1_to_v6(ua)},
);
for my $d (@decoders) {
    my $q = "SELECT string_agg(($d)::text, ',' ORDER BY sf) FROM samples";
    my $on_primary = $p->safe_psql('postgres', $q);
    isnt($on_primary, '', "$d gives values on the primary");
    is($s->safe_psql('postgres', $q), $on_primary, "$d on the standby: the primary's values");
}
my $view = q{SELECT name, max_nodes, backfill_nodes, node_bits, counter_bits FROM snowflake_sequencers};
is($s->safe_psql('postgres', $view), $p->safe_psql('postgres', $view), 'the view snowflake_sequencers reads on the standby');

# Replay goes on after the refusals.
$p->safe_psql('postgres', "INSERT INTO samples $sample");
$p->wait_for_catchup($s);
is($s->safe_psql('postgres', 'SELECT count(*), count(DISTINCT sf), count(DISTINCT u1) FROM samples'), '200|200|200',
    'the standby replays what the primary generates afterwards');

$s->stop;
$p->stop;
done_testing();
