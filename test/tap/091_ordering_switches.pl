# idgen.ordering = 'session' when the order of things is unusual, with the server's
# clock frozen so that a run never goes stale by itself:
#  - switched to 'strict' and back by reloads while one session holds a run: that session's ids
#    never go back (its run is dropped under 'strict', not kept for later);
#  - the clock stepped back after another session saw a later millisecond: the first session's
#    run, of an earlier millisecond, is dropped, so its next id sorts above the other's.
# Both for uuid_v7() and snowflake_next(). Mutation checks in docs/guarantees.md (keeping the run under
# 'strict', or ignoring the latest millisecond seen).
# One major per test run: the orders live in idgen's own shared memory, the same on every major.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Test::More;
use IdgenTest;

my $node = idgen_node('switches', node_id => 3, faketime => '+0');
start_node($node);
$node->safe_psql('postgres', q{CREATE EXTENSION idgen; SELECT snowflake_create('s');});
my $t = time + 10;
freeze_clock($node, $t);

# Waits until session $a sees idgen.ordering = $want (a reload reaches a session between statements).
sub wait_for_ordering {
    my ($a, $want) = @_;
    for (1 .. 100) {
        return 1 if $a->query_safe('SHOW idgen.ordering') eq $want;
        select(undef, undef, undef, 0.05);
    }
    return 0;
}

sub set_ordering {
    my ($value) = @_;
    $node->safe_psql('postgres', "ALTER SYSTEM SET idgen.ordering = '$value'; SELECT pg_reload_conf();");
}

for my $g ([ 'uuid_v7', 'uuid_v7()', 'uuid' ], [ 'snowflake', q{snowflake_next('s')}, 'bigint' ]) {
    my ($name, $call, $type) = @$g;
    my $a = $node->background_psql('postgres');
    $a->query_safe("CREATE TEMP TABLE mine (n serial, v $type)");
    $a->query_safe("INSERT INTO mine (v) SELECT $call FROM generate_series(1, 100)");  # runs of 64: some left
    set_ordering('strict');
    ok(wait_for_ordering($a, 'strict'), "$name: the session sees 'strict'");
    $node->safe_psql('postgres', "SELECT $call FROM generate_series(1, 10)");  # another session, strict
    $a->query_safe("INSERT INTO mine (v) SELECT $call FROM generate_series(1, 10)");
    set_ordering('session');
    ok(wait_for_ordering($a, 'session'), "$name: the session sees 'session' again");
    $a->query_safe("INSERT INTO mine (v) SELECT $call FROM generate_series(1, 10)");
    is($a->query_safe('SELECT count(*) FROM (SELECT v, lag(v) OVER (ORDER BY n) AS prev FROM mine) s WHERE v <= prev'),
        '0', "$name: the session's ids strictly increase across 'session', 'strict' and 'session' again");

    # The clock steps back: A holds a run of second $t, B sees second $t + 2, the clock goes back.
    $a->query_safe("INSERT INTO mine (v) SELECT $call FROM generate_series(1, 100)");
    freeze_clock($node, $t + 2);
    my $b_id = $node->safe_psql('postgres', "SELECT $call");
    freeze_clock($node, $t);
    my $a_id = $a->query_safe("SELECT $call");
    is($node->safe_psql('postgres', "SELECT '$a_id'::$type > '$b_id'::$type"), 't',
        "$name: after the clock stepped back, the session's next id sorts above one of a later millisecond");
    $a->quit;
}

$node->stop;
done_testing();
