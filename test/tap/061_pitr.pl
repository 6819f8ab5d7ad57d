# Point-in-time recovery: a server restored from a base backup and the WAL archive, to the
# latest point, then promoted, never hands out an id the original server handed out before it
# crashed, with any generator. The original server's ids are read from the restored tables.
#
# The same work and the same worst case as the failover test (060): the original server's
# clock stands still at F while it works (IdgenTest's ids_first_round), and the restored
# server starts its work just before its own clock reads F.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my %work = (live_rows => 100000, history_rows => 20000);

my $p = idgen_node('primary', node_id => 1, faketime => '+0',
    init => { allows_streaming => 1, has_archiving => 1 }, conf => "shared_buffers = 16MB\n");
start_node($p);
ids_setup($p, %work);
$p->backup('base');
my $f = ids_first_round($p, %work);

# A crash ('immediate') leaves the WAL segment in use unarchived: a restore from the archive
# would then end before the last of the work, and what it misses would depend on timing. So the
# segment is switched before the crash and the test waits until the archive holds it: the
# restore then replays everything the server wrote before it crashed, every time.
my ($switch_lsn, $segment) = split /\|/,
    $p->safe_psql('postgres', 'SELECT lsn, pg_walfile_name(lsn) FROM pg_switch_wal() lsn');
$p->poll_query_until('postgres', "SELECT last_archived_wal >= '$segment' FROM pg_stat_archiver")
    or die "segment $segment was not archived";
$p->stop('immediate');

my $r = idgen_standby($p, 'base', 'restored', restoring => 1, clock_of => $p);
start_node($r);
$r->poll_query_until('postgres', "SELECT pg_last_wal_replay_lsn() >= '$switch_lsn'")
    or die 'the restore did not reach the end of the archive';
$r->promote;
clock_reads($r, $f - 0.3);
ids_generate($r, 2, %work, not_before => $f - 0.05);
my $found = ids_check($r, 2, 'point-in-time restore to the latest point', %work);
diag("duplicates found: $found");
$r->stop;
done_testing();
