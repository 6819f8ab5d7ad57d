# idgen.ordering under real processes, for every live generator. 8 clients make ids in
# bursts of 1 to 100 with pauses of 1 to 3 ms between them, so that sessions keep leftover runs
# across milliseconds. Each id is stored with its session, its number in call order, the time
# its call began (t0) and ended (t1), a sort key (the id, or the 60-bit time of version 1, or
# the millisecond of locality UUIDs, which are not ordered within one) and the end of its
# millisecond.
#  - 'session' (the default): no id twice; every session's ids strictly increase (locality UUIDs
#    do not sort within a millisecond: not for them); no id sorts below an id
#    whose millisecond ended before its call began (ordered across sessions to the millisecond);
#  - 'strict' (after a reload): no id sorts below an id whose call ended before its call began.
# Both checks can fail: a run used after its millisecond passed breaks the first (mutation
# check in docs/guarantees.md), runs left on in 'strict' break the second.
# One major per test run: the orders live in idgen's own shared memory, the same on every major.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Test::More;
use IdgenTest;

my $node = idgen_node('ordering', node_id => 9, conf => "idgen.unique_timestamp_digits = 3\n");
start_node($node);
$node->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('s');
    CREATE SEQUENCE call_order;
});

# generator => [SQL call, sort key of v, end of v's millisecond, type of the key, ordered in a session]
my %generators = (
    snowflake_next => [q{snowflake_next('s')}, 'v', q{date_trunc('milliseconds', snowflake_timestamp('s', v)) + interval '1 ms'}, 'bigint', 1],
    uuid_v1 => [q{uuid_v1()},
        q{('x' || substr(v::text, 16, 3) || substr(v::text, 10, 4) || substr(v::text, 1, 8))::bit(60)::bigint},
        q{date_trunc('milliseconds', uuid_v1_timestamp(v)) + interval '1 ms'}, 'bigint', 1],
    uuid_v6 => [q{uuid_v6()}, 'v', q{date_trunc('milliseconds', uuid_v6_timestamp(v)) + interval '1 ms'}, 'uuid', 1],
    uuid_v7 => [q{uuid_v7()}, 'v', q{date_trunc('milliseconds', uuid_v7_timestamp(v)) + interval '1 ms'}, 'uuid', 1],
    unique_timestamp => [q{unique_timestamp()}, 'v',
        q{date_trunc('milliseconds', unique_timestamp_to_timestamptz(v)) + interval '1 ms'}, 'bigint', 1],
    locality_uuid => [q{locality_uuid()}, 'locality_uuid_timestamp(v)',
        q{locality_uuid_timestamp(v) + interval '1 ms'}, 'timestamptz', 0],
);

sub load {
    my ($g, $mode) = @_;
    my ($call, $key, $tick_end, $type) = @{ $generators{$g} };
    my $t = "ids_${g}_$mode";
    $node->safe_psql('postgres', "CREATE TABLE $t (pid int, n bigint, t0 timestamptz, t1 timestamptz, k $type, tick_end timestamptz, v text)");
    $node->pgbench('--no-vacuum --client=8 --jobs=2 --transactions=150', 0,
        [qr{processed: 1200/1200}], [qr{^$}], "$g, $mode: 8 clients in bursts",
        { "burst_${g}_$mode" => "\\set n random(1, 100)\n\\set pause random(1, 3)\n"
            . "INSERT INTO $t SELECT pg_backend_pid(), nextval('call_order'), t0, clock_timestamp(), $key, $tick_end, v "
            . "FROM (SELECT clock_timestamp() AS t0, $call AS v FROM generate_series(1, :n) OFFSET 0) s;\n"
            . "\\sleep :pause ms\n" });
    return $t;
}

# Rows whose key is below that of a row which had ended (its millisecond, or its call) when
# theirs began. A millisecond's end is exact ('<='); two calls' clock readings in one
# microsecond do not tell which came first ('<'). Equal keys (locality UUIDs of one millisecond) are grouped first, so that a
# running minimum over the keys above (frame head fixed: computed incrementally) does it.
sub sorted_below_ended {
    my ($t, $ended, $op) = @_;
    return $node->safe_psql('postgres', qq{
        WITH by_key AS (SELECT k, min($ended) AS ended FROM $t GROUP BY k),
             above AS (SELECT k, min(ended) OVER (ORDER BY k DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS above_ended
                       FROM by_key)
        SELECT count(*) FROM $t JOIN above USING (k) WHERE above_ended $op t0});
}

for my $g (sort keys %generators) {
    my $t = load($g, 'session');
    my ($count, $distinct, $distinct_ids) = split /\|/,
        $node->safe_psql('postgres', "SELECT count(*), count(DISTINCT k), count(DISTINCT v) FROM $t");
    ok($count > 10000, "$g, session: $count ids");
    is($distinct_ids, $count, "$g, session: no id twice");
    if ($generators{$g}[4]) {
        is($distinct, $count, "$g, session: all distinct");
        is($node->safe_psql('postgres', qq{
            SELECT count(*) FROM (SELECT k, lag(k) OVER (PARTITION BY pid ORDER BY n) AS prev FROM $t) s WHERE k <= prev}),
            '0', "$g, session: each session's ids strictly increase");
    }
    is(sorted_below_ended($t, 'tick_end', '<='), '0',
        "$g, session: no id sorts below an id whose millisecond ended before its call began");
}

$node->safe_psql('postgres', q{ALTER SYSTEM SET idgen.ordering = 'strict'; SELECT pg_reload_conf();});
$node->poll_query_until('postgres', q{SHOW idgen.ordering}, 'strict') or die 'idgen.ordering did not change';
for my $g (grep { $generators{$_}[4] } sort keys %generators) {
    my $t = load($g, 'strict');
    is(sorted_below_ended($t, 't1', '<'), '0',
        "$g, strict: no id sorts below an id whose call ended before its call began");
}

$node->stop;
done_testing();
