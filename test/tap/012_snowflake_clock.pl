# Guarantees 2, 3 and 4 with libfaketime moving a live server's clock: the clock stepping
# back an hour while running and across a restart, and a frozen clock exhausting the counter.
# Never a duplicate or an id below an earlier one; a clear error instead, and no endless hang.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Test::More;
use Time::HiRes qw(time);
use IdgenTest;

my $node = idgen_node('snowflake_clock', node_id => 3, faketime => '+0');
start_node($node);
$node->safe_psql('postgres', q{CREATE EXTENSION idgen; SELECT snowflake_create('s')});
my $sql_max = q{SELECT max(snowflake_next('s')) FROM generate_series(1, 10000)};

my $before = $node->safe_psql('postgres', $sql_max);

# The clock steps back an hour in the running server.
set_clock($node, '-1h');
my $t0 = time;
like(psql_error($node, q{SELECT snowflake_next('s')}),
    qr/55000: snowflake_next\(\): the wall clock is 3[56]\d{5} ms behind the ids already issued/,
    'clock back an hour: 55000 saying how far behind');
cmp_ok(time - $t0, '<', 5, 'the error comes after idgen.max_wait, not an endless hang');

# A superuser may let ids run an hour ahead: they continue above the last one.
my $ahead = $node->safe_psql('postgres',
    qq{SET idgen.max_lead = '2h'; SELECT min(snowflake_next('s')) FROM generate_series(1, 1000)});
cmp_ok($ahead, '>', $before, 'with a larger max_lead, ids continue above the last one');

set_clock($node, '+0');
my $back = $node->safe_psql('postgres', $sql_max);
cmp_ok($back, '>', $ahead, 'clock restored: ids continue increasing');

# Across a restart with the clock an hour back: the durable horizon is ahead of the clock.
$node->stop('immediate');
set_clock($node, '-1h');
start_node($node);
like(psql_error($node, q{SELECT snowflake_next('s')}), qr/55000: .*behind the ids already issued/,
    'restart with the clock an hour back: 55000, no id below the horizon');
my $resumed = $node->safe_psql('postgres',
    q{SET idgen.max_lead = '2h'; SELECT min(snowflake_next('s')) FROM generate_series(1, 1000)});
cmp_ok($resumed, '>', $back, 'after the restart, ids resume above every earlier id');
set_clock($node, '+0');
$node->stop;

# A frozen clock: 10 ms of lead is 11 milliseconds x 512 ids of the default layout, then
# calls fail at once (max_wait 0) instead of wrapping or reusing a counter.
my $frozen = idgen_node('snowflake_frozen', node_id => 3, faketime => '+0');
start_node($frozen);
$frozen->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('s');
    CREATE FUNCTION drain(n int) RETURNS int LANGUAGE plpgsql AS $$
    DECLARE i int := 0;
    BEGIN
        LOOP
            PERFORM snowflake_next('s');
            i := i + 1;
            EXIT WHEN i >= n;
        END LOOP;
        RETURN i;
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
        RETURN i;
    END $$;
});
set_clock($frozen, '2030-01-01 00:00:00');
is($frozen->safe_psql('postgres',
        q{SET idgen.max_lead = 10; SET idgen.max_wait = 0; SELECT drain(100000)}),
    '5632', 'frozen clock: exactly 11 ms x 512 ids, then a clean error');
like(psql_error($frozen, q{SET idgen.max_lead = 10; SET idgen.max_wait = 0; SELECT snowflake_next('s')}),
    qr/55000: .*behind the ids already issued/, 'and the error is 55000');
set_clock($frozen, '+0');
$frozen->stop('immediate');
done_testing();
