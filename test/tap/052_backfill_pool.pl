# Retrospective ids that never run out: many short sessions, each opening a
# connection, backfilling five rows (random times over a year, a third repeating the row
# before, one in ten on 1,000 microseconds shared by many sessions) with snowflake_at and
# uuid_v1_at(ts, node), and closing. Every ended session hands its namespaces back; the next
# adopts them. A sequencer with ONE reserved node serves thousands of sessions one after
# another, and goes on across a crash (pg_ctl -m immediate): its namespace, lost from the pool
# with shared memory, is recycled above its durable offset bound; a 16-node one serves four at
# a time across the same crash; the given UUID node serves all of them. Zero duplicates, exact times, no 54000, and
# the view idgen_backfill_spaces shows what was leased. IDGEN_POOL_SESSIONS (default 4,000:
# each session is a connection, about 20 ms on a 2-core machine before idgen does anything)
# sets the total; IDGEN_POOL_SESSIONS=100000 is the long run.
# One major per test run: the namespace pool lives in idgen's own shared memory, the same on every major.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use Time::HiRes qw(sleep);
use IdgenTest;

my $total = $ENV{IDGEN_POOL_SESSIONS} // 4000;
my ($one_n, $many_n, $crash_n, $crash_one_n) =
    (int($total * 0.25), int($total * 0.25), int($total * 0.3), int($total * 0.2));
my $driver = "$FindBin::Bin/short_sessions.py";
# A session that finds every namespace held waits up to idgen.max_wait for one to be handed back
# (the previous session's backend parks a moment after its client left); on a loaded CI machine
# that moment can pass the default 1 s, so the test gives it 10 s.
my $node = idgen_node('pool', node_id => 7, conf => "max_connections = 40\nidgen.max_wait = '10s'\n");
start_node($node);
$node->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('one', '2010-01-01 00:00:00+00', 8192, backfill_nodes => 1);
    SELECT snowflake_create('many', '2010-01-01 00:00:00+00', 128, backfill_nodes => 16);
    CREATE TABLE got_s (seq text, ts timestamptz, id bigint);
    CREATE TABLE got_u (ts timestamptz, id uuid);
});

# Runs the driver: $n sessions by $workers workers over the sequencers; returns the handle.
sub drive {
    my ($n, $workers, $seed, @seqs) = @_;
    my %run = (out => '');
    $run{h} = IPC::Run::start([ '/usr/bin/python3', $driver, $node->connstr('postgres'), $n, $workers, $seed, @seqs ],
        '>', \$run{out}, '2>&1');
    return \%run;
}

sub finish {
    my ($run, $what, $n) = @_;
    $run->{h}->finish;
    my ($line) = $run->{out} =~ /^(sessions=.*)$/m;
    $line //= "no summary: $run->{out}";
    diag("$what: $line");
    is($line, "sessions=$n errors=", "$what: $n sessions, no error");
}

my $t0 = time;
# One reserved node: one session at a time can hold it, each hands it on at its end.
my $one = drive($one_n, 1, 1, 'one');
my $many = drive($many_n, 3, 2, 'many');
finish($one, "'one' (1 reserved node), one session at a time", $one_n);
finish($many, "'many' (16 reserved nodes), three at a time", $many_n);
is($node->safe_psql('postgres', q{
    SELECT namespaces_leased FROM idgen_backfill_spaces WHERE id_space = 'sequencer one'}),
    '1', "the one reserved node was leased once for $one_n sessions");

# Four at a time on 'many' and one at a time on 'one', with a crash in the middle; sessions cut
# off by it run again.
my $crash = drive($crash_n, 4, 3, 'many');
my $crash_one = drive($crash_one_n, 1, 4, 'one');
my $waited = 0;
sub progress { my @p = $crash->{out} =~ /progress (\d+)/g; return @p ? $p[-1] : 0; }
while (progress() < $crash_n / 2 && $waited++ < 1200) { IPC::Run::pump_nb($crash->{h}); sleep 0.1; }
diag('crash after ' . progress() . " of $crash_n sessions");
$node->stop('immediate');
start_node($node);
finish($crash, "'many', four at a time, crash in the middle", $crash_n);
finish($crash_one, "'one', one at a time, crash in the middle", $crash_one_n);
my $sessions = $one_n + $many_n + $crash_n + $crash_one_n;
diag(sprintf('%d sessions in %d s', $sessions, time - $t0));

is($node->safe_psql('postgres', q{SELECT count(*) - count(DISTINCT id) FROM got_s}), '0', 'no Snowflake id twice');
is($node->safe_psql('postgres', q{SELECT count(*) - count(DISTINCT id) FROM got_u}), '0', 'no UUID twice');
is($node->safe_psql('postgres', q{
    SELECT count(*) FILTER (WHERE snowflake_timestamp(seq, id) <> date_trunc('milliseconds', ts)) FROM got_s}),
    '0', 'every Snowflake id carries its row\'s millisecond');
is($node->safe_psql('postgres', q{
    SELECT count(*) FILTER (WHERE uuid_v1_timestamp(id) <> ts OR uuid_v1_node(id) <> '08:00:2b:01:02:03') FROM got_u}),
    '0', 'every UUID carries its row\'s microsecond and the given node');
my $rows = $node->safe_psql('postgres', q{SELECT count(*) FROM got_u});
cmp_ok($rows, '>=', 5 * $sessions, 'every session stored its five rows');
diag("idgen_backfill_spaces:\n" . $node->safe_psql('postgres', q{
    SELECT id_space, namespaces, namespaces_leased, namespaces_pooled, namespaces_in_use, namespaces_spent,
           namespaces_never_leased FROM idgen_backfill_spaces ORDER BY 1}));
cmp_ok($node->safe_psql('postgres', q{
    SELECT namespaces_leased FROM idgen_backfill_spaces WHERE id_space = 'node 08:00:2b:01:02:03'}),
    '<', 100, 'the given UUID node leased fewer than 100 of its 16,383 namespaces');
# The crash lost the pool, yet 'one' never leased a second namespace (it has none): it
# recycled its only one above the durable bound.
is($node->safe_psql('postgres', q{
    SELECT namespaces_leased FROM idgen_backfill_spaces WHERE id_space = 'sequencer one'}),
    '1', "after the crash 'one' still serves from its one namespace");
$node->stop;
done_testing();
