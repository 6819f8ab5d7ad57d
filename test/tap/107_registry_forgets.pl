# An etcd that forgets (restored from a snapshot, or rebuilt empty behind the same endpoints),
# brought back by the procedure docs/cluster-mode.md gives: every server of the cluster stopped
# before etcd answers again, a reserve (2 x idgen.max_lead + idgen.registry_lease) waited after
# the last one stopped, then every server that backfilled in cluster mode started before any of
# them backfills. Two servers make live ids (snowflake_next, uuid_v7(), unique_timestamp()) in
# every round and backfill the same timestamps (uuid_v1_at(ts), uuid_v1_at(ts, node), uuid_v7_at),
# in the second round the first server alone, so that its namespace batches lie above all the
# other counted; the restored etcd has lost that round's batches and horizons, and the servers
# come back in the other order, so that each takes the node id the other held. No id twice
# across all rounds and both servers.
# One major per test run: cluster mode is idgen's worker and etcd, the same on every major.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(sleep);
use IdgenTest;
use IdgenEtcd;

if (my @missing = IdgenEtcd::missing_programs()) {
    plan skip_all => "@missing not installed (Debian packages etcd-server, etcd-client)";
}

my $etcd = IdgenEtcd->new(members => 1);
$etcd->start;
my $conf = "idgen.registry = '" . $etcd->client_urls . "'\nidgen.registry_cluster = 'forgets'\n"
  . "idgen.registry_lease = 3\nidgen.max_lead = '1s'\nidgen.max_wait = '10s'\n";
my $reserve_s = 2 * 1 + 3;
my $rows = 3000;    # per server and round: 300 rows on each of 10 microseconds (namespace batches each round)

sub attached {
    my ($s) = @_;
    $s->poll_query_until('postgres', q{SELECT state = 'attached' FROM idgen_registry}) or die $s->name . ' did not attach';
}

my @servers = map { idgen_node("s$_", conf => $conf) } 0 .. 1;
for my $s (@servers) {
    start_node($s);
    $s->safe_psql('postgres', 'CREATE EXTENSION idgen');
    attached($s);
    $s->safe_psql('postgres', q{SELECT snowflake_create('s', '2010-01-01 00:00:00+00', 128);
        CREATE TABLE ids (round int, generator text, id text)});
}
sub held { return join(' ', map { $_->safe_psql('postgres', 'SELECT node_id FROM idgen_registry') } @servers); }
is(held(), '0 1', 's0 holds node id 0, s1 node id 1');

# Round $round: every server makes live ids; those in @backfilling (all by default) backfill.
sub round {
    my ($round, @backfilling) = @_;
    @backfilling = @servers unless @backfilling;
    for my $s (@servers) {
        $s->safe_psql('postgres', qq{
            INSERT INTO ids SELECT $round, g, CASE g WHEN 'v1' THEN uuid_v1_at(t)::text
                                                       WHEN 'v1 node' THEN uuid_v1_at(t, '08:00:2b:01:02:03')::text
                                                       ELSE uuid_v7_at(t)::text END
            FROM unnest(ARRAY['v1', 'v1 node', 'v7']) g,
                 (SELECT '2015-06-15 12:00:00+00'::timestamptz + (i % 10) * interval '1 microsecond' AS t
                  FROM generate_series(1, $rows) i) h
            WHERE } . (grep({ $_ == $s } @backfilling) ? 'true' : 'false') . qq{;
            INSERT INTO ids SELECT $round, 'live', unnest(ARRAY[snowflake_next('s')::text, uuid_v7()::text,
                                                                 unique_timestamp()::text])
            FROM generate_series(1, $rows)});
    }
}

# Stops every server, lets etcd forget with $forget, waits the reserve (and until the node id
# keys a restored snapshot brings back have expired with their leases), and starts the servers
# again in the other order.
sub forget_and_return {
    my ($forget) = @_;
    $_->stop for @servers;
    my $stopped = Time::HiRes::time();
    $forget->();
    sleep($reserve_s - (Time::HiRes::time() - $stopped)) if Time::HiRes::time() - $stopped < $reserve_s;
    my $until = time + 30;
    sleep(0.2) while %{ $etcd->get_prefix('/forgets/node/') } && time < $until;
    @servers = reverse @servers;
    for my $s (@servers) {
        start_node($s);
        attached($s);
    }
}

sub repeats {
    my %seen;
    my $repeats = 0;
    for my $s (@servers) {
        for my $id (split /\n/, $s->safe_psql('postgres', q{SELECT generator || ' ' || id FROM ids})) {
            $repeats++ if $seen{$id}++;
        }
    }
    return ($repeats, scalar keys %seen);
}

# The sum of etcd's namespace counters.
sub counted {
    my $sum = 0;
    $sum += $_ for grep { /^\d+$/ } values %{ $etcd->get_prefix('/forgets/backfill/') };
    return $sum;
}

round(1);
my $snapshot = PostgreSQL::Test::Utils::tempdir('snapshot') . '/etcd.db';
$etcd->snapshot_save($snapshot);
my $at_snapshot = counted();
round(2, $servers[0]);    # s0 alone: its namespaces lie above all that s1 counted
cmp_ok(counted(), '>', $at_snapshot, 'round 2 leased namespace batches that the snapshot does not have');

forget_and_return(sub { $etcd->restore_snapshot($snapshot) });
is(held(), '0 1', 'after the restore each server holds the node id the other held');
round(3);
my ($repeats, $ids) = repeats();
is($ids, (3 * 2 * 6 - 3) * $rows, 'every id of three rounds on both servers');
is($repeats, 0, 'etcd restored from a snapshot that lost a round: no id twice');

forget_and_return(sub { $etcd->wipe });
round(4);
($repeats, $ids) = repeats();
is($ids, (4 * 2 * 6 - 3) * $rows, 'every id of four rounds on both servers');
is($repeats, 0, 'etcd rebuilt empty: no id twice');

$_->stop for @servers;
$etcd->stop;
done_testing();
