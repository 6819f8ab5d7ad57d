# Cluster mode against an etcd as production runs it: https:// endpoints whose certificates are
# checked against a CA, client certificates required (etcd's --client-cert-auth), and etcd's
# user authentication. A server with the right CA, certificate and password attaches and issues
# ids; when its token stops being valid ("invalid auth token": it expired unused, or, as here,
# an administrator turned auth off and on again) the server takes a new one at its next request
# and goes on. One with another CA, an expired
# certificate, no certificate or a wrong password never attaches, refuses every generator that
# carries a node id with 55000, and says why in idgen_registry.last_error, the cause first (a
# client certificate refused shows to libcurl as one of three codes at random). A fleet of four
# servers refused at once asks etcd at most about once a second each, backing off (before: tens
# of handshakes a second per server). The password comes from a file that only the server's
# operating-system user reads: a monitoring role (pg_monitor) sees its path, never the password;
# a file others may read keeps the server from starting.
# Needs Debian's etcd-server, etcd-client and openssl (skipped without them).
# One major per test run: cluster mode is idgen's worker and etcd, the same on every major.
use strict;
use warnings;
use Time::HiRes qw(time sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use FindBin;
use IPC::Run;
use Test::More;
use IdgenTest;
use IdgenEtcd;

if (my @missing = (IdgenEtcd::missing_programs(), grep { !-x "/usr/bin/$_" } qw(openssl faketime))) {
    plan skip_all => "@missing not installed (Debian packages etcd-server, etcd-client, openssl, faketime)";
}

my $certs = IdgenEtcd::make_certificates(PostgreSQL::Test::Utils::tempdir('certs'));
my $etcd = IdgenEtcd->new(members => 1, tls => $certs);
$etcd->start;
# Users: root (etcd's auth needs it) and idgen, who may read and write the cluster's keys only:
# docs/cluster-mode.md's commands, run as written there with this test's paths and address.
my $password_file = PostgreSQL::Test::Utils::tempdir('password') . '/etcd-password';
PostgreSQL::Test::Utils::append_to_file($password_file, "idgen-secret\n");
chmod 0600, $password_file;
my $root_password = "$password_file-root";
PostgreSQL::Test::Utils::append_to_file($root_password, "root-secret\n");
my ($doc_steps) = slurp_file("$FindBin::Bin/../../docs/cluster-mode.md") =~ /<!-- run by test\/tap\/102_registry_tls.pl -->\s*```sh\n(.*?)```/s
  or die 'docs/cluster-mode.md: the etcdctl steps are gone';
my %replace = ('https://10.0.0.1:2379' => $etcd->client_urls, '/etc/etcd/ca.pem' => $certs->{ca},
               '/etc/etcd/admin.pem' => $certs->{client_cert}, '/etc/etcd/admin-key.pem' => $certs->{client_key},
               '/etc/etcd/root-password' => $root_password, '/etc/idgen/etcd-password' => $password_file,
               '/shop/' => '/tls/');
$doc_steps =~ s/\Q$_\E/$replace{$_}/g for keys %replace;
my ($steps_out, $steps_err) = ('', '');
ok(IPC::Run::run([ 'sh', '-ec', $doc_steps ], '<', '/dev/null', '>', \$steps_out, '2>', \$steps_err),
    "docs/cluster-mode.md's etcdctl steps run as written") or diag($steps_err);
$etcd->{user} = 'root:root-secret';
$etcd->etcdctl('role', 'grant-permission', 'idgen', '--prefix=true', 'readwrite', '/tls2/');

my %good = (registry_cacert => $certs->{ca}, registry_cert => $certs->{client_cert},
            registry_key => $certs->{client_key}, registry_user => 'idgen', registry_password_file => $password_file);
sub conf {
    my (%set) = @_;
    return "idgen.registry = '" . $etcd->client_urls . "'\nidgen.registry_cluster = 'tls'\nidgen.registry_lease = 3\n"
      . join('', map { "idgen.$_ = '$set{$_}'\n" } grep { defined $set{$_} } sort keys %set);
}

sub registry_state {
    my ($s) = @_;
    return $s->safe_psql('postgres', q{SELECT state || ' ' || coalesce(node_id::text, '-') FROM idgen_registry});
}

sub wait_for_state {
    my ($s, $want, $seconds) = @_;
    my $until = time + $seconds;
    my $state = '';
    while (time < $until) {
        $state = registry_state($s);
        return $state if $state =~ $want;
        sleep(0.2);
    }
    return $state;
}

# ---- The right credentials: attached; and still attached once etcd forgot its token ---------
my $good = idgen_node('tls_good', conf => conf(%good));
start_node($good);
$good->safe_psql('postgres', 'CREATE EXTENSION idgen');
like(wait_for_state($good, qr/^attached \d+$/, 30), qr/^attached \d+$/, 'TLS, client certificate and password file: attached');
$good->safe_psql('postgres', 'CREATE ROLE monitor LOGIN IN ROLE pg_monitor');
is($good->safe_psql('postgres', q{SET ROLE monitor; SELECT current_setting('idgen.registry_password_file') = }
      . "'$password_file', (SELECT count(*) FROM pg_settings WHERE setting LIKE '%idgen-secret%')"), 't|0',
    'a member of pg_monitor reads the password file\'s path, never the password');
my %ids;
my ($twice, $refused) = (0, 0);
my $draw = sub {
    my ($ret, $out) = $good->psql('postgres', q{SELECT uuid_v7() FROM generate_series(1, 1000)});
    if ($ret == 0) { for (split /\n/, $out) { $twice++ if $ids{$_}++; } }
    else { $refused++; }
};
$draw->() for 1 .. 3;
like($etcd->etcdctl('get', '--prefix', '--keys-only', '/tls/node/server/'), qr{/tls/node/server/\d+}, 'its node id key is in etcd');

# The view shows the cluster and how many servers hold a node id in it: a second server of the
# cluster makes two; one whose cluster name differs (a typo, say) finds itself alone.
my $second = idgen_node('tls_second', conf => conf(%good));
start_node($second);
$second->safe_psql('postgres', 'CREATE EXTENSION idgen');
my $elsewhere = idgen_node('tls_elsewhere', conf => conf(%good) . "idgen.registry_cluster = 'tls2'\n");
start_node($elsewhere);
$elsewhere->safe_psql('postgres', 'CREATE EXTENSION idgen');
sub cluster_servers {
    my ($s, $want) = @_;
    my $got = '';
    for (1 .. 50) {
        $got = $s->safe_psql('postgres', q{SELECT cluster || ' ' || coalesce(servers::text, '-') FROM idgen_registry});
        last if $got eq $want;
        sleep(0.2);
    }
    return $got;
}
is(cluster_servers($good, 'tls 2'), 'tls 2', 'two servers in cluster tls, seen from the first');
is(cluster_servers($second, 'tls 2'), 'tls 2', 'and from the second');
is(cluster_servers($elsewhere, 'tls2 1'), 'tls2 1', 'a server whose cluster name differs is alone in its own');
$second->stop;
$elsewhere->stop;
is(cluster_servers($good, 'tls 1'), 'tls 1', 'the others gone (their node ids given back), the first is alone');
$etcd->etcdctl('auth', 'disable');    # every token etcd handed out is forgotten
$etcd->etcdctl('auth', 'enable');
# Keep-alives need no token (etcd does not check them); what does is every key the server reads
# or writes: a new sequencer's definition and its node id.
my ($next, $tries) = ('', 0);
my $until = time + 15;
while (time < $until) {
    $tries++;
    my ($ret, $out) = $good->psql('postgres', q{SELECT snowflake_create('after') \g /dev/null
SELECT snowflake_next('after')});
    if ($ret == 0) { $next = $out; last; }
    sleep(0.2);
}
like($next, qr/^\d+$/, "after its token became invalid, a new sequencer's node id was claimed (a new token taken; $tries tries)");
$draw->() for 1 .. 3;
is($refused, 0, 'no uuid_v7() call refused meanwhile');
like(registry_state($good), qr/^attached \d+$/, 'and still attached');
is($twice, 0, scalar(keys %ids) . ' ids across the new token, none twice');

# ---- The registry horizon: one transaction for every node id held ------------------------------
# A node id whose key someone deleted makes that transaction fail: each is then written on its
# own, the lost one withdrawn, and the published horizon never runs past what etcd stored for
# the node ids still held.
$good->safe_psql('postgres', q{SELECT snowflake_create('pair'); SELECT snowflake_next('pair')});
$etcd->etcdctl('del', '--prefix', '/tls/node/sequencer/pair/');
my $published = sub { $good->safe_psql('postgres', q{SELECT (extract(epoch FROM horizon) * 1000000)::bigint FROM idgen_registry}) };
my $before = $published->();
my $deadline = time + 30;
sleep(0.2) while $published->() <= $before && time < $deadline;    # the next advance (every few seconds)
my $after = $published->();
cmp_ok($after, '>', $before, 'the registry horizon moved on after a node key was deleted by hand');
my ($server_node) = registry_state($good) =~ /^attached (\d+)$/;
my $stored = $etcd->get_prefix("/tls/horizon/server/$server_node")->{"/tls/horizon/server/$server_node"} // 0;
cmp_ok($stored, '>=', $after, "etcd stored the server's node id's horizon at or above the published one");

# ---- Each wrong credential: never attached, 55000, and the view says why --------------------
my $bad = idgen_node('tls_bad');
my $base = slurp_file($bad->data_dir . '/postgresql.conf');
my $handshake = qr/etcd refused the TLS handshake: this server's client certificate is expired, from another CA, or missing/;
my %tls_cases = (
    'another CA for etcd\'s certificate'  => [ { %good, registry_cacert => $certs->{other_ca} }, qr/etcd's certificate is not trusted/ ],
    'a client certificate of another CA' => [ { %good, registry_cert => $certs->{foreign_cert}, registry_key => $certs->{foreign_key} }, $handshake ],
    'an expired client certificate'      => [ { %good, registry_cert => $certs->{expired_cert}, registry_key => $certs->{expired_key} }, $handshake ],
    'no client certificate'              => [ { %good, registry_cert => undef, registry_key => undef }, $handshake ],
);
my @cases = ((map { [ $_, @{ $tls_cases{$_} } ] } sort keys %tls_cases),
    [ 'a wrong password', { %good, registry_password_file => undef, registry_password => 'guess' },
      qr/authenticating as etcd user "idgen".*(authentication failed|invalid)/i ]);
for my $case (@cases) {
    my ($what, $settings, $why) = @$case;
    open my $fh, '>', $bad->data_dir . '/postgresql.conf' or die $!;
    print $fh $base, conf(%$settings);
    close $fh;
    start_node($bad);
    $bad->safe_psql('postgres', 'CREATE EXTENSION IF NOT EXISTS idgen');
    my $error = '';
    my $until = time + 15;
    while (time < $until) {    # the worker's first tries may still be under way
        $error = $bad->safe_psql('postgres', q{SELECT coalesce(last_error, '') FROM idgen_registry});
        last if $error =~ $why;
        sleep(0.2);
    }
    like($error, $why, "$what: idgen_registry.last_error says why, the cause first (" . length($error) . ' bytes)');
    unlike(registry_state($bad), qr/^attached/, "$what: never attached");
    like(psql_error($bad, q{SELECT uuid_v7()}), qr/ERROR:\s+55000|detached from the registry/, "$what: uuid_v7() refused with 55000");
    $bad->stop;
}

# A fleet refused at once, each server for one of the TLS reasons: etcd logs every handshake it
# refuses; 10 s of four servers backing off make a few dozen at most (one a second each, less as
# the waits grow), where asking again at once made tens a second per server.
my @fleet = map {
    my $n = idgen_node("fleet$_", conf => conf(%{ $tls_cases{ (sort keys %tls_cases)[$_] }[0] }));
    start_node($n);
    $n;
} 0 .. 3;
sleep(3);    # past the first tries
my $before_lines = $etcd->log_lines(qr/rejected connection/);
sleep(10);
my $fleet_lines = $etcd->log_lines(qr/rejected connection/) - $before_lines;
cmp_ok($fleet_lines, '<=', 44, "four servers refused at once: $fleet_lines refused handshakes in etcd's log in 10 s");
$_->stop for @fleet;

# A password file that others may read: the server does not start.
chmod 0644, $password_file;
my $loose = idgen_node('loose', conf => conf(%good));
ok(!$loose->start(fail_ok => 1), 'a password file readable by others: the server does not start');
like(slurp_file($loose->logfile), qr/FATAL:  idgen.registry_password_file ".*" is readable by others/, 'and says why');
chmod 0600, $password_file;

like(registry_state($good), qr/^attached \d+$/, 'the good server stayed attached throughout');
$good->stop;
$etcd->stop;
done_testing();
