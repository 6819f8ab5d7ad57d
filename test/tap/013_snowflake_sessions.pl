# Definitions changed by one session reach the others: a session that cached a sequencer sees
# it dropped and re-created with another (earlier: a later one is refused) epoch at its next statement, and a statement that is
# generating when its sequencer is dropped fails at once instead of running on.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $node = idgen_node('snowflake_sessions', node_id => 2);
start_node($node);
$node->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('e', '2024-01-01 00:00:00+00');
    SELECT snowflake_create('long', max_nodes => 128);
});

my $a = $node->background_psql('postgres', on_error_stop => 0);
my $b = $node->background_psql('postgres');
like($a->query_safe(q{SELECT snowflake_timestamp('e', 0)}), qr/^2024-01-01 00:00:00/,
    'session A reads the first definition (and caches it)');
$b->query_safe(q{SELECT snowflake_drop('e'); SELECT snowflake_create('e', '2023-06-01 00:00:00+00')});
like($a->query_safe(q{SELECT snowflake_timestamp('e', 0)}), qr/^2023-06-01 00:00:00/,
    'session A sees the re-created definition at its next statement');
my $first = $a->query_safe(q{SELECT snowflake_next('e')});
$b->query_safe(q{SELECT snowflake_drop('e')});
$a->query(q{SELECT snowflake_next('e')});
like($a->{stderr}, qr/"e" (does not exist|was dropped)/,
    'session A: a dropped sequencer is gone for a session that used it');
$a->quit;
$b->quit;

# A statement generating from 'long' for ever; a drop from another session stops it.
my ($out, $err) = ('', '');
my $h = IPC::Run::start(
    [ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c',
      q{SELECT count(snowflake_next('long')) FROM (SELECT generate_series(1, 100000000000)) g} ],
    '>', \$out, '2>', \$err, IPC::Run::timeout(60));
sleep 1;
$node->safe_psql('postgres', q{SELECT snowflake_drop('long')});
my $t0 = time;
eval { $h->finish };
cmp_ok(time - $t0, '<=', 5, 'the running statement stopped within seconds of the drop');
like($err, qr/"long" (does not exist|was dropped)/, 'with the sequencer named as gone');
$node->stop;
done_testing();
