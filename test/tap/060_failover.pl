# Failover: a streaming standby, made by pg_basebackup with the primary's postgresql.conf (as HA
# tools leave it), is promoted after the primary crashes (pg_ctl -m immediate), and from then on
# never hands out an id the old primary handed out, with any generator.
#
# Every server that becomes a primary does the same work (IdgenTest's ids_generate): live ids
# of all four generators, with Snowflake ids running ahead of the clock (512 per ms), and
# retrospective ids for the same historical times every time. The old primary's ids are read
# from the promoted standby's replicated tables, so the new primary counts duplicates itself.
#
# To make the test as hard as a failover can be, the old primary's clock stands still at an
# instant F while it works (IdgenTest's ids_first_round: each generator packs its values as
# densely as it can, all from F on, and Snowflake ids run 195 ms ahead of the clock), and the new
# primary starts its work just before its own clock reads F (50 ms), so that a new primary that
# only followed its clock would pass through every millisecond the old one used and hand out the
# very same values. Three ways:
#   1. clocks equal: the standby runs on the primary's clock, which stood still through the
#      failover, as if it had taken no time;
#   2. the standby's clock 5 s behind the primary's (libfaketime), and the new primary's work
#      starts once its clock reaches F;
#   3. a synchronous standby (synchronous_standby_names) with a cascading standby behind it:
#      the synchronous one is promoted at once (the commits it acknowledged are all there),
#      works, and the cascading one, which follows it onto the new timeline, is promoted in
#      turn after it crashes, and works again: three primaries, one id space.
# After a promotion the new primary may report 55000 (its clock behind the ids it must stay
# above) for a while: clients retry on 55000 only; any other error fails the test.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use IdgenTest;

my %work = (live_rows => 100000, history_rows => 20000);

# A primary (idgen.node_id = 1, under libfaketime) with the work's tables, and a base backup.
sub primary_with_backup {
    my ($name) = @_;
    my $p = idgen_node($name, node_id => 1, faketime => '+0', init => { allows_streaming => 1 },
        conf => "shared_buffers = 16MB\n");
    start_node($p);
    ids_setup($p, %work);
    $p->backup('base');
    return $p;
}

my %found;

# Waits until the standby has replayed everything the primary has flushed: what a crash of the
# primary leaves behind. Not the insert position (wait_for_catchup's default): under the frozen
# clock of ids_first_round the WAL writer never flushes a partly filled last page (it flushes
# one once wal_writer_delay has passed on the wall clock), so a tail of WAL written after the
# last commit (a standby snapshot, hint bits) can stay unsent for ever, and it is lost by the
# immediate stop that follows anyway. Every commit and every record idgen relies on is flushed.
sub wait_for_flushed {
    my ($primary, $standby) = @_;
    $primary->wait_for_catchup($standby, 'replay', $primary->lsn('flush'));
}

# 1. Clocks equal.
{
    my $p = primary_with_backup('primary_eq');
    my $s = idgen_standby($p, 'base', 'standby_eq', clock_of => $p);
    start_node($s);
    my $f = ids_first_round($p, %work);
    wait_for_flushed($p, $s);
    $p->stop('immediate');
    $s->promote;
    clock_reads($s, $f - 0.3);    # the one clock runs again from just before F
    ids_generate($s, 2, %work, not_before => $f - 0.05);
    $found{'clocks equal'} = ids_check($s, 2, 'failover, clocks equal', %work);
    $s->stop;
}

# 2. The standby's clock 5 s behind the primary's.
{
    my $p = primary_with_backup('primary_behind');
    my $s = idgen_standby($p, 'base', 'standby_behind', faketime => '-5');
    start_node($s);
    my $lag = time - $s->safe_psql('postgres', 'SELECT extract(epoch FROM clock_timestamp())');
    ok($lag > 4.5 && $lag < 6, sprintf('the standby\'s clock is 5 s behind (%.2f s)', $lag));
    my $f = ids_first_round($p, %work);
    wait_for_flushed($p, $s);
    $p->stop('immediate');
    $s->promote;
    ids_generate($s, 2, %work, not_before => $f - 0.05);
    $found{'clock 5 s behind'} = ids_check($s, 2, 'failover, new primary\'s clock 5 s behind', %work);
    $s->stop;
}

# 3. A synchronous standby, and a cascading standby behind it; all on one clock.
{
    my $p = primary_with_backup('primary_sync');
    my $sync = idgen_standby($p, 'base', 'sync_standby', clock_of => $p);
    start_node($sync);
    $sync->backup('base');
    my $cascade = idgen_standby($sync, 'base', 'cascading_standby', clock_of => $p);
    start_node($cascade);
    # Set after the backups were taken, so that a promoted standby does not wait for itself.
    $p->safe_psql('postgres', "ALTER SYSTEM SET synchronous_standby_names = 'sync_standby'");
    $p->reload;
    $p->poll_query_until('postgres',
        q{SELECT sync_state = 'sync' FROM pg_stat_replication WHERE application_name = 'sync_standby'})
        or die 'the synchronous standby did not become synchronous';
    my $f = ids_first_round($p, %work);
    # No waiting: every commit returned once the synchronous standby had flushed it.
    $p->stop('immediate');
    $sync->promote;
    clock_reads($sync, $f - 0.3);
    ids_generate($sync, 2, %work, not_before => $f - 0.05);
    $found{'synchronous standby'} = ids_check($sync, 2, 'failover to the synchronous standby', %work);
    # The cascading standby follows its upstream onto the new timeline; then that one crashes.
    $sync->wait_for_catchup($cascade);
    $sync->stop('immediate');
    $cascade->promote;
    ids_generate($cascade, 3, %work);
    $found{'cascading standby'} = ids_check($cascade, 3, 'then failover to the cascading standby', %work);
    $cascade->stop;
}

diag('duplicates found: ' . join(', ', map { "$_ $found{$_}" } sort keys %found));
done_testing();
