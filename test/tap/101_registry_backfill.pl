# Retrospective ids in cluster mode: four servers that lease their node ids from three etcd
# members backfill the same timestamps at once through uuid_v1_at(ts), uuid_v1_at(ts, node),
# uuid_v6_at(ts), uuid_v7_at and snowflake_at; then one server stops and a new one takes its node
# id over, one etcd member is killed, and the four backfill the same timestamps again. No id may
# repeat across all servers and rounds: namespaces come from the registry's counters (one per
# space, taken a batch at a time by compare-and-swap), not from each server's own. Before them, a
# server backfills the same timestamps outside cluster mode (idgen.node_id 0), then joins the
# cluster once (its counts reach etcd) and leaves, so that node id 0 goes to another server.
# One major per test run: cluster mode is idgen's worker and etcd, the same on every major.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;
use IdgenEtcd;

if (my @missing = IdgenEtcd::missing_programs()) {
    plan skip_all => "@missing not installed (Debian packages etcd-server, etcd-client)";
}

my $prefix = 'backfill';
my $etcd = IdgenEtcd->new;
$etcd->start;
my $conf = "idgen.registry = '" . $etcd->client_urls . "'\nidgen.registry_cluster = '$prefix'\n"
  . "idgen.registry_lease = 3\nidgen.max_wait = '10s'\n";
my $rows = 4000;  # per server and round: 40 rows on each of 100 microseconds

sub server {
    my ($name, %opt) = @_;
    my $s = idgen_node($name, conf => $opt{outside} ? '' : $conf, %opt);
    start_node($s);
    $s->safe_psql('postgres', q{
        CREATE EXTENSION idgen;
        CREATE TABLE ids (round int, generator text, id uuid);
        CREATE TABLE sf (round int, id bigint);});
    attached($s) unless $opt{outside};
    $s->safe_psql('postgres', q{SELECT snowflake_create('s', '2010-01-01 00:00:00+00', 128, backfill_nodes => 4)});
    return $s;
}

sub attached {
    my ($s) = @_;
    $s->poll_query_until('postgres', q{SELECT state = 'attached' FROM idgen_registry})
      or die $s->name . ' did not attach';
}

sub node_id { my ($s) = @_; return $s->safe_psql('postgres', 'SELECT node_id FROM idgen_registry'); }

# Every server backfills the same $rows timestamps through every generator, all at once.
sub backfill_at_once {
    my ($round, @servers) = @_;
    my (%run, %err);
    my $sql = qq{
        INSERT INTO ids SELECT $round, g.name, CASE g.name
                WHEN 'uuid_v1_at(ts)' THEN uuid_v1_at(t) WHEN 'uuid_v1_at(ts, node)' THEN uuid_v1_at(t, '08:00:2b:01:02:03')
                WHEN 'uuid_v6_at(ts)' THEN uuid_v6_at(t) ELSE uuid_v7_at(t) END
        FROM (VALUES ('uuid_v1_at(ts)'), ('uuid_v1_at(ts, node)'), ('uuid_v6_at(ts)'), ('uuid_v7_at(ts)')) g(name),
             (SELECT '2015-06-15 12:00:00+00'::timestamptz + (i % 100) * interval '1 microsecond' AS t
              FROM generate_series(1, $rows) i) h;
        INSERT INTO sf SELECT $round, snowflake_at('s', '2015-06-15 12:00:00+00'::timestamptz + (i % 100) * interval '1 microsecond')
        FROM generate_series(1, $rows) i;};
    for my $s (@servers) {
        $run{ $s->name } = IPC::Run::start([ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $s->connstr('postgres'),
            '-c', $sql ], '<', '/dev/null', '>', \my $out, '2>', \$err{ $s->name });
    }
    for my $name (sort keys %run) { $run{$name}->finish or die "$name: backfill failed: $err{$name}"; }
    is($_->safe_psql('postgres', "SELECT (SELECT count(*) FROM ids WHERE round = $round) + (SELECT count(*) FROM sf WHERE round = $round)"),
        5 * $rows, $_->name . ": round $round backfilled") for @servers;
}

# Every id of every server, per generator family (v1 and v6 UUIDs share their namespaces):
# { id => server }; the number of ids seen twice.
my %seen;
my $repeats = 0;
sub collect {
    my ($s) = @_;
    for my $line (split /\n/, $s->safe_psql('postgres', q{SELECT generator, id::text FROM ids UNION ALL SELECT 'snowflake_at', id::text FROM sf})) {
        my ($generator, $id) = split /\|/, $line;
        $repeats++ if exists $seen{$id};
        $seen{$id} = $s->name;
    }
}

my $s0 = server('s0', outside => 1, node_id => 0);
backfill_at_once(0, $s0);
collect($s0);
$s0->stop;
$s0->append_conf('postgresql.conf', "idgen.node_id = -1\n$conf");
start_node($s0);
attached($s0);
$s0->stop;  # gives node id 0 back

my @servers = map { server("s$_") } 1 .. 4;
is(join(',', sort map { node_id($_) } @servers), '0,1,2,3', 'four servers hold node ids 0 to 3');
backfill_at_once(1, @servers);

# A handover: s1 stops (its node id goes back), s5 takes it; an etcd member is killed.
my $s1 = shift @servers;
my $handed = node_id($s1);
collect($s1);
$s1->stop;
my $s5 = server('s5');
is(node_id($s5), $handed, "s5 took s1's node id $handed");
$etcd->kill_member(0);
push @servers, $s5;
backfill_at_once(2, @servers);
collect($_) for @servers;

is(scalar(keys %seen), (2 * 4 + 1) * 5 * $rows, 'every id of every round collected');
is($repeats, 0, 'no id twice across six servers, one of them before cluster mode, a handover and an etcd member lost');
my $counters = $etcd->get_prefix("/$prefix/backfill/");
ok(exists $counters->{"/$prefix/backfill/uuid_given/" . hex('08002b010203')}, 'the given node\'s counter is in etcd');
ok(exists $counters->{"/$prefix/backfill/uuid_auto/$handed"}, "node id ${handed}'s counter is in etcd");
my $sequencer_key = $s5->safe_psql('postgres', q{
    SELECT (k::numeric + CASE WHEN k < 0 THEN 18446744073709551616 ELSE 0 END)::text FROM idgen_internal._backfill_space_key('s') k});
ok(exists $counters->{"/$prefix/backfill/snowflake/$sequencer_key"}, "sequencer s's counter is in etcd");
# A database moved here from outside the cluster brings its counters (here a restored row: node
# 08:00:2b:0a:0b:0c had leased 5,000 namespaces): the server's next batch starts above them,
# though etcd's counter knew nothing of them.
my $s2 = $servers[0];
$s2->safe_psql('postgres', q{INSERT INTO reserved_state VALUES (9, 6, x'08002b0a0b0c'::bigint, 5000, 42, 0, 0)});
cmp_ok($s2->safe_psql('postgres', q{SELECT uuid_v1_clock_seq(uuid_v1_at('2015-06-15 12:00:00+00', '08:00:2b:0a:0b:0c'))}),
    '>=', 5000, "a moved database's counter: the batch from the registry starts above it");
$_->stop for @servers;
$etcd->stop;
done_testing();
