# An etcd that forgets (restored from a snapshot, rebuilt empty behind the same endpoints, the
# cluster's keys deleted) while the servers run and make ids: they notice by themselves (etcd's
# revision went back; the registry's generation key is gone), mark the registry forgotten, stop
# issuing what depends on it, bring what they know durably back into it (namespace counters, a
# floor above every id they issued), and go on once SELECT idgen_registry_rebuild() - the
# command their errors name - has run on one of them. Two servers make live ids (snowflake_next,
# uuid_v7(), unique_timestamp()) in every round and backfill the same timestamps (uuid_v1_at(ts),
# uuid_v1_at(ts, node), uuid_v7_at), in the second round the first server alone, so that its
# namespace batches lie above all the other counted; the restored etcd has lost that round's
# batches and horizons. A load of live ids runs through each loss and rebuild. No id twice
# across all rounds and both servers.
# One major per test run: cluster mode is idgen's worker and etcd, the same on every major.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(sleep);
use IPC::Run;
use IdgenTest;
use IdgenEtcd;

if (my @missing = IdgenEtcd::missing_programs()) {
    plan skip_all => "@missing not installed (Debian packages etcd-server, etcd-client)";
}

my $etcd = IdgenEtcd->new(members => 1);
$etcd->start;
my $conf = "idgen.registry = '" . $etcd->client_urls . "'\nidgen.registry_cluster = 'forgets'\n"
  . "idgen.registry_lease = 3\nidgen.max_lead = '1s'\nidgen.max_wait = '10s'\n";
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

# Live ids on every server for $seconds, about 150 calls a second each, a call that fails (while the
# registry is forgotten) tried again: rows of round 0.
sub load {
    my ($seconds) = @_;
    return map {
        IPC::Run::start([ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $_->connstr('postgres'), '-c', qq{
            DO \$\$ DECLARE ends timestamptz := clock_timestamp() + interval '$seconds s';
            BEGIN
                WHILE clock_timestamp() < ends LOOP
                    BEGIN
                        INSERT INTO ids SELECT 0, 'live', unnest(ARRAY[snowflake_next('s')::text, uuid_v7()::text,
                                                                         unique_timestamp()::text]);
                    EXCEPTION WHEN object_not_in_prerequisite_state THEN NULL;
                    END;
                    PERFORM pg_sleep(0.005);
                END LOOP;
            END \$\$} ], '<', '/dev/null', '>', \my $out, '2>', \my $err)
    } @servers;
}

# etcd forgets (with $forget) under load; the servers notice and wait; the rebuild ends the wait.
sub forget_and_rebuild {
    my ($forget, $what) = @_;
    my @load = load(12);
    sleep(2);
    $forget->();
    for my $s (@servers) {
        $s->poll_query_until('postgres', q{SELECT state = 'forgotten' AND last_error LIKE '%2 server(s) seeded%'
                                           FROM idgen_registry}) or die $s->name . " did not notice ($what)";
    }
    my ($ret, $out, $err) = $servers[0]->psql('postgres', q{SELECT snowflake_next('s')});
    like($err, qr/registry forgot what it held.*\n.*\n?HINT:.*SELECT idgen_registry_rebuild\(\)/s,
         "$what: live ids refused, the HINT names the command");
    my $rebuilt = $servers[1]->safe_psql('postgres', 'SELECT idgen_registry_rebuild()');
    like($rebuilt, qr/^rebuilt: 2 server\(s\) had seeded/, "$what: the command rebuilds the registry");
    attached($_) for @servers;
    ok($_->finish, "$what: the load ran through") for @load;
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

forget_and_rebuild(sub { $etcd->restore_snapshot($snapshot) }, 'etcd restored from a snapshot');
round(3);
my ($repeats, $ids) = repeats();
cmp_ok($ids, '>', (3 * 2 * 6 - 3) * $rows, 'every id of three rounds and the load on both servers');
is($repeats, 0, 'etcd restored from a snapshot that lost a round, under load: no id twice');

forget_and_rebuild(sub { $etcd->wipe }, 'etcd rebuilt empty');
round(4);
($repeats, $ids) = repeats();
cmp_ok($ids, '>', (4 * 2 * 6 - 3) * $rows, 'every id of four rounds and the load on both servers');
is($repeats, 0, 'etcd rebuilt empty, under load: no id twice');

# The cluster's keys deleted by hand, etcd running all along (its revision goes on: only the
# missing generation key tells).
forget_and_rebuild(sub { $etcd->etcdctl('del', '--prefix', '/forgets/') }, 'the cluster\'s keys deleted');
round(5);
($repeats, $ids) = repeats();
cmp_ok($ids, '>', (5 * 2 * 6 - 3) * $rows, 'every id of five rounds and the load on both servers');
is($repeats, 0, 'the cluster\'s keys deleted, under load: no id twice');

$_->stop for @servers;
$etcd->stop;
done_testing();
