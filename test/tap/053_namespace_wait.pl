# A session that finds every namespace of an id space held waits for one to be handed back, on a
# condition variable that every park broadcasts: it sleeps while it waits (no look every
# millisecond) and wakes as soon as the holder's session ends. A sequencer with one reserved
# node has one namespace for snowflake_at: one session holds it, a second asks, the first ends.
# One major per test run: the namespace pool and its condition variable are idgen's own shared memory.
use strict;
use warnings;
use IPC::Run;
use Time::HiRes qw(time sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $node = idgen_node('namespace_wait', node_id => 1, conf => "idgen.max_wait = '20s'\n");
$node->start;
$node->safe_psql('postgres', q{CREATE EXTENSION idgen; SELECT snowflake_create('one', '2024-01-01', 1024, 1)});

my $holder = $node->background_psql('postgres');
$holder->query_safe(q{SELECT snowflake_at('one', '2025-01-01 00:00:00+00')});

# The waiter: its call runs until the holder's session ends.
my ($out, $err) = ('', '');
my $waiter = IPC::Run::start(
    [ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c',
      q{SET application_name = 'waiter'; SELECT snowflake_at('one', '2025-01-02 00:00:00+00')} ],
    '>', \$out, '2>', \$err);
$node->poll_query_until('postgres', q{SELECT wait_event_type = 'Extension' FROM pg_stat_activity
                                      WHERE application_name = 'waiter' AND state = 'active'})
  or die 'the waiter never waited';
my $pid = $node->safe_psql('postgres', q{SELECT pid FROM pg_stat_activity WHERE application_name = 'waiter'});

# At rest: how often the waiting backend wakes in 2 seconds (a look every millisecond would be
# some 2,000 switches; sleeping on the condition variable, with its recheck every 100 ms, some 20).
sub switches {
    my ($status) = grep { /^voluntary_ctxt_switches:/ } split /\n/, slurp_file("/proc/$pid/status");
    return (split /\s+/, $status)[1];
}
my $before = switches();
sleep(2);
my $woke = switches() - $before;
cmp_ok($woke, '<', 200, "the waiting backend sleeps: $woke wake-ups in 2 s");

# The holder's session ends and parks its namespace: the waiter gets it at once.
my $ended = time();
$holder->quit;
$waiter->finish;
my $after = time() - $ended;
like($out, qr/^\d+$/, 'the waiter got an id from the namespace handed back') or diag($err);
cmp_ok($after, '<', 1.0, sprintf('and returned %.0f ms after the holder ended', $after * 1000));

$node->stop;
done_testing();
