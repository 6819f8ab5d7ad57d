# A fleet moving into cluster mode one server at a time, and back, under load: the path that
# docs/cluster-mode.md documents, end to end.
# - a (node id 1) and b (node id 0) start with given node ids, no registry; every server makes
#   snowflake_next and unique_timestamp() ids without a pause, through every restart below;
# - each in turn keeps its node id and joins the registry (idgen.registry beside idgen.node_id):
#   it holds its own node id in etcd, server and sequencer alike;
# - c joins in cluster mode (no idgen.node_id): the lowest free node ids skip a's and b's;
#   a server d given c's node id meanwhile is refused (55000) and says who holds it;
# - a leaves its given node id for cluster mode; then back: every server takes a given node id
#   again (held in etcd), and one at a time leaves the registry.
# No id twice across the three servers, through it all. Without the registry holding a given
# node id (mutation: a given node id not claimed as such), a takes node id 0 from under b.
# One major per test run: cluster mode is idgen's worker and etcd, the same on every major.
use strict;
use warnings;
use IPC::Run;
use Time::HiRes qw(sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;
use IdgenEtcd;

if (my @missing = IdgenEtcd::missing_programs()) {
    plan skip_all => "@missing not installed (Debian packages etcd-server, etcd-client)";
}

my $etcd = IdgenEtcd->new(members => 1);
$etcd->start;
my $registry = "idgen.registry = '" . $etcd->client_urls . "'\nidgen.registry_cluster = 'fleet'\nidgen.registry_lease = 3\n"
  . "idgen.max_wait = '10s'\n";
my $stop = PostgreSQL::Test::Utils::tempdir('load') . '/stop';

my (%server, %load);
sub server {
    my ($name, %opt) = @_;
    my $s = $server{$name} = idgen_node($name, %opt);
    start_node($s);
    $s->safe_psql('postgres', q{CREATE EXTENSION idgen; CREATE TABLE ids (sf bigint, ut bigint)});
    return $s;
}

# A client that makes ids on $s without a pause until the stop file exists; errors (a restart, a
# refusal while the registry is not yet held) are retried.
sub load {
    my ($s) = @_;
    my $sql = q{INSERT INTO ids SELECT snowflake_next('s'), unique_timestamp() FROM generate_series(1, 500)};
    $load{ $s->name } = IPC::Run::start(
        [ 'sh', '-c', 'while [ ! -e "$1" ]; do psql -X -q -d "$2" -c "$3" >/dev/null 2>&1 || sleep 0.1; sleep 0.05; done',
          'load', $stop, $s->connstr('postgres'), $sql ],
        '<', '/dev/null', '>', '/dev/null', '2>', '/dev/null');
}

sub registry_node {
    my ($s, $want) = @_;
    my $got = '';
    for (1 .. 150) {
        $got = $s->safe_psql('postgres', q{SELECT state || ' ' || coalesce(node_id::text, '-') FROM idgen_registry});
        return $got if $got =~ $want;
        sleep(0.2);
    }
    return $got;
}

sub made { my ($s) = @_; return $s->safe_psql('postgres', 'SELECT count(*) FROM ids'); }

# Lets the load run until every given server made more ids.
sub under_load {
    my @servers = @_;
    my %before = map { ($_->name => made($_)) } @servers;
    for (1 .. 100) {
        last unless grep { made($_) <= $before{ $_->name } + 1000 } @servers;
        sleep(0.2);
    }
}

# A restart with $conf appended (a later line wins over an earlier one).
sub reconfigure {
    my ($s, $conf) = @_;
    $s->append_conf('postgresql.conf', $conf);
    $s->restart;
}

my $a = server('a', node_id => 1);
my $b = server('b', node_id => 0);
$_->safe_psql('postgres', q{SELECT snowflake_create('s', '2010-01-01 00:00:00+00', 128)}) for ($a, $b);
load($_) for ($a, $b);
under_load($a, $b);

# Into the registry, keeping the given node ids.
for my $pair ([ $a, 1 ], [ $b, 0 ]) {
    my ($s, $node) = @$pair;
    reconfigure($s, $registry);
    like(registry_node($s, qr/^attached $node$/), qr/^attached $node$/, $s->name . ": in the registry, holding its node id $node");
    under_load($a, $b);
}
like($etcd->etcdctl('get', '--prefix', '--keys-only', '/fleet/node/sequencer/'), qr{/fleet/node/sequencer/s/0\n.*/fleet/node/sequencer/s/1}s,
    "a's and b's sequencer node ids are held in etcd as their own");

# c in cluster mode: its node ids skip those a and b hold.
my $c = server('c', conf => $registry);
$c->safe_psql('postgres', q{SELECT snowflake_create('s', '2010-01-01 00:00:00+00', 128)});
like(registry_node($c, qr/^attached \d+$/), qr/^attached 2$/, 'c (cluster mode): the lowest free node id is 2');
load($c);
under_load($a, $b, $c);
is($c->safe_psql('postgres', q{SELECT snowflake_node('s', max(sf)) FROM ids}), '2', "c's Snowflake ids carry sequencer node id 2");

# d given node id 2, which c holds: refused, and says why.
my $d = server('d', node_id => 2, conf => $registry);
$d->safe_psql('postgres', q{SELECT snowflake_create('s', '2010-01-01 00:00:00+00', 128)});
ok($d->poll_query_until('postgres', q{SELECT last_error LIKE '%node id 2 of server is held by another server%' FROM idgen_registry}),
    'd, given the node id c holds: last_error says another server holds it');
unlike($d->safe_psql('postgres', 'SELECT state FROM idgen_registry'), qr/^attached/, 'd: not attached');
like(psql_error($d, q{SELECT unique_timestamp()}), qr/ERROR:\s+55000/, 'd: generators refuse (55000)');
$d->stop;

# a from its given node id to cluster mode, then back to given node ids, then out of the registry.
reconfigure($a, "idgen.node_id = -1\n");
like(registry_node($a, qr/^attached \d+$/), qr/^attached (1|3)$/, 'a in cluster mode: its former node id or a free one');
under_load($a, $b, $c);
reconfigure($a, "idgen.node_id = 1\n");
like(registry_node($a, qr/^attached 1$/), qr/^attached 1$/, 'a back to its given node id 1, held in etcd');
reconfigure($c, "idgen.node_id = 2\n");
like(registry_node($c, qr/^attached 2$/), qr/^attached 2$/, 'c given node id 2, held in etcd');
under_load($a, $b, $c);
for my $s ($a, $b, $c) {
    reconfigure($s, "idgen.registry = ''\n");
    under_load($a, $b, $c);
}

# The load stops; every id of every server, once.
open my $fh, '>', $stop or die $!;
close $fh;
$_->finish for values %load;
for my $col (qw(sf ut)) {
    my @ids = map { split /\n/, $_->safe_psql('postgres', "SELECT $col FROM ids") } ($a, $b, $c);
    ok(all_unique(@ids), "$col: " . scalar(@ids) . ' ids of three servers through the moves, none twice');
}
$_->stop for ($a, $b, $c);
$etcd->stop;
done_testing();
