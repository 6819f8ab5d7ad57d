# pg_createsubscriber (PostgreSQL 17 and later) turns a physical standby into a logical
# subscriber, the way managed services make the new side of a blue/green move: its data
# directory, so idgen.identity and the configuration, are copies of the publisher's.
# - With the publisher's idgen.node_id still in its configuration, the subscription it makes is
#   refused (both servers would issue live ids under one node id): pg_createsubscriber fails and
#   says why.
# - Given a node id of its own, the copy becomes a subscriber with a new system identifier, and
#   idgen makes it a new uuid_v1() identity: live ids of both servers, uuid_v1() included, never
#   equal. (Before: the copy went on with the publisher's uuid_v1() node and clock sequence.)
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $p = idgen_node('publisher', node_id => 1, init => { allows_streaming => 'logical' });
if ($p->pg_version < 17) {
    plan skip_all => 'pg_createsubscriber needs PostgreSQL 17';
}
start_node($p);
$p->safe_psql('postgres', 'CREATE DATABASE app');
$p->safe_psql('app', q{CREATE EXTENSION idgen; CREATE TABLE t (id uuid PRIMARY KEY, made_on text);
    INSERT INTO t SELECT uuid_v1(), 'publisher' FROM generate_series(1, 1000)});
$p->backup('copy');

# A standby of the publisher, stopped, turned into a subscriber.
sub createsubscriber {
    my ($name, $conf) = @_;
    my $s = idgen_standby($p, 'copy', $name);
    $s->append_conf('postgresql.conf', $conf) if $conf;
    start_node($s);
    $p->wait_for_catchup($name);
    $s->stop;
    my ($out, $err) = ('', '');
    my $ok = IPC::Run::run([ 'pg_createsubscriber', '-D', $s->data_dir, '-P', $p->connstr('app'), '-d', 'app',
                             '-p', $s->port, '-s', $s->host ], '<', '/dev/null', '>', \$out, '2>', \$err);
    return ($s, $ok, "$out$err");
}

my ($s, $ok, $said) = createsubscriber('same_node');
ok(!$ok, "with the publisher's node id in its configuration, pg_createsubscriber fails");
like($said, qr/the publisher has this server's idgen.node_id \(1\)/, 'and says why');

($s, $ok, $said) = createsubscriber('subscriber', "idgen.node_id = 2\n");
ok($ok, 'given a node id of its own, pg_createsubscriber makes the copy a subscriber') or diag($said);
start_node($s);
isnt($s->safe_psql('app', 'SELECT uuid_v1_node(uuid_v1())'), $p->safe_psql('app', 'SELECT uuid_v1_node(uuid_v1())'),
    'the copy, a new database system, has a uuid_v1() identity of its own');
like(slurp_file($s->logfile), qr/idgen.identity was made for database system \d+, this is \d+: making a new identity/,
    'and its log says so');
$s->safe_psql('app', q{INSERT INTO t SELECT uuid_v1(), 'subscriber' FROM generate_series(1, 1000)});
$p->safe_psql('app', q{INSERT INTO t SELECT uuid_v1(), 'publisher' FROM generate_series(1, 1000)});
$s->poll_query_until('app', q{SELECT count(*) = 3000 FROM t}) or die "the publisher's rows did not arrive";
is($s->safe_psql('app', q{SELECT count(DISTINCT id) FROM t}), '3000',
    "the publisher's new rows arrive beside the copy's own: no uuid_v1() twice");
is($s->safe_psql('app', 'SELECT coalesce(sum(apply_error_count), 0) FROM pg_stat_subscription_stats'), '0',
    'no apply error');
$_->stop for ($s, $p);
done_testing();
