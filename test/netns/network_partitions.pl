# Cluster mode across real network faults: three etcd members and four servers, each on a host
# of its own (a network namespace), and clients on another host that record every id they
# receive. Links are cut and thinned with iptables on the hosts (IdgenNetns), so the faults are
# the kernel's, not frozen processes:
#   1. a server cut off from etcd while its clients still reach it stops issuing before etcd
#      lets its lease go, so before a fourth server can claim its node id; the fourth server then
#      takes that node id over and issues under it;
#   2. the server comes back: it attaches again under a node id of its own;
#   3. one etcd member is cut off from the two others (a minority partition); a server that
#      lists it first goes on issuing through the others;
#   4. the link of one server loses 30% of its packets both ways, on top of the 300 ms each way
#      that its path to etcd has all along (a relay on its host: the kernel may lack netem): it
#      issues or refuses with 55000, and is attached again once the loss stops (if the loss cost
#      it its lease, its node id of orders went to the server waiting for one).
# At the end every id received (Snowflake ids of one cluster sequencer, and uuid_v7()) is unique
# across the servers, every server's table holds exactly the ids its clients received, no client
# saw an error other than 55000, and every server still runs.
# Needs root (network namespaces), iproute2, iptables, Debian's etcd-server and etcd-client, and
# idgen installed into the PostgreSQL whose binaries come first in PATH. Skipped, saying why,
# when namespaces cannot be made.
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use IPC::Run;
use JSON::PP;
use List::Util qw(max);
use MIME::Base64 qw(decode_base64);
use Time::HiRes qw(time sleep);
use Test::More;
use lib dirname(__FILE__) . '/../lib';
use IdgenNetns;

my @missing = grep { my $p = $_; !grep { -x "$_/$p" } split /:/, $ENV{PATH} } qw(etcd etcdctl initdb pg_ctl psql python3);
plan skip_all => "not installed: @missing" if @missing;
my $net = eval { IdgenNetns->new };
plan skip_all => "network namespaces cannot be made here: $@" unless $net;

my $lease = 6;                 # idgen.registry_lease, seconds
my $cluster = 'partitions';    # idgen.registry_cluster
my $delay_ms = 300;            # each way, on s3's path to etcd
my $base = tempdir('idgen-partitions-XXXXXX', TMPDIR => 1);    # removed at END if every test passed
chmod 0755, $base;
my (undef, undef, $pg_uid, $pg_gid) = getpwnam('postgres') or die 'no postgres user';

sub run_ok {
    my (@cmd) = @_;
    my ($out, $err) = ('', '');
    IPC::Run::run([@cmd], '<', '/dev/null', '>', \$out, '2>', \$err) or die "@cmd: $err$out";
    return $out;
}
sub slurp { my ($f) = @_; open my $fh, '<', $f or return ''; local $/; return <$fh>; }

# ---- the network and etcd ---------------------------------------------------------------
$net->add_host('clients', 2);
my @members = qw(e1 e2 e3);
$net->add_host($members[$_], 11 + $_) for 0 .. 2;
$net->add_host("s$_", 20 + $_) for 1 .. 4;
my %client_url = map { ($_ => 'http://' . $net->address($_) . ':2379') } @members;
my $all_etcd = join(',', map { $client_url{$_} } @members);
my %harness;    # name => IPC::Run harness of a process started by the test

for my $m (@members) {
    my $a = $net->address($m);
    $harness{$m} = IPC::Run::start(
        [ $net->in($m, 'etcd', '--name', $m, '--data-dir', "$base/$m", '--listen-client-urls', "http://$a:2379",
            '--advertise-client-urls', "http://$a:2379", '--listen-peer-urls', "http://$a:2380",
            '--initial-advertise-peer-urls', "http://$a:2380",
            '--initial-cluster', join(',', map { "$_=http://" . $net->address($_) . ':2380' } @members),
            '--initial-cluster-state', 'new', '--initial-cluster-token', "idgen-partitions-$$") ],
        '<', '/dev/null', '>', "$base/$m.log", '2>&1');
}
sub healthy_members {
    my ($out, $err) = ('', '');
    IPC::Run::run([ $net->in('clients', 'etcdctl', "--endpoints=$all_etcd", '--command-timeout=2s', 'endpoint', 'health') ],
        '<', '/dev/null', '>', \$out, '2>', \$err);
    return scalar(() = "$out$err" =~ /is healthy/g);
}
for (my $until = time + 60;; sleep(0.5)) {
    last if healthy_members() == 3;
    BAIL_OUT("etcd not healthy in 60 s:\n" . slurp("$base/e1.log")) if time > $until;
}
note('etcd: three members on their own hosts, healthy');

# s3 reaches etcd through a relay on its own host that holds every byte 300 ms each way.
my @relay_ports = (23791 .. 23793);
$harness{relay} = IPC::Run::start(
    [ $net->in('s3', 'python3', dirname(__FILE__) . '/../lib/delay_relay.py', $delay_ms,
        map { "127.0.0.1:$relay_ports[$_]=" . $net->address($members[$_]) . ':2379' } 0 .. 2) ],
    '<', '/dev/null', '>', "$base/relay.log", '2>&1');

# ---- servers ----------------------------------------------------------------------------------
# What each server's idgen.registry lists: s2 lists the member that will be cut off first.
my %registry = (
    s1 => $all_etcd, s4 => $all_etcd,
    s2 => join(',', map { $client_url{$_} } qw(e3 e1 e2)),
    s3 => join(',', map { "http://127.0.0.1:$_" } @relay_ports),
);
# A slow link: the calls that wait for the registry worker (snowflake_create, a horizon to move)
# may wait longer than the default second on s3.
my %extra_conf = (s3 => "idgen.max_wait = '5s'");
sub as_postgres { my ($host, @cmd) = @_; return $net->in($host, 'runuser', '-u', 'postgres', '--', @cmd); }
sub data_dir { my ($s) = @_; return "$base/$s"; }

sub start_server {
    my ($s) = @_;
    my $dir = data_dir($s);
    mkdir $dir or die "$dir: $!";
    chown $pg_uid, $pg_gid, $dir;
    run_ok(as_postgres($s, 'initdb', '-D', $dir, '-A', 'trust', '-U', 'postgres', '--no-sync', '--locale=C'));
    open my $conf, '>>', "$dir/postgresql.conf" or die $!;
    print $conf join("\n", "listen_addresses = '" . $net->address($s) . "'", "unix_socket_directories = '$dir'",
        "shared_preload_libraries = 'idgen'", "idgen.registry = '$registry{$s}'", "idgen.registry_cluster = '$cluster'",
        "idgen.registry_lease = $lease", 'fsync = off', "log_line_prefix = '%m [%p] '", $extra_conf{$s} // '', ''), "\n";
    close $conf;
    open my $hba, '>>', "$dir/pg_hba.conf" or die $!;
    print $hba "host all postgres 10.231.0.0/24 trust\n";
    close $hba;
    run_ok(as_postgres($s, 'pg_ctl', '-D', $dir, '-l', "$dir/log", '-w', 'start'));
}

sub psql_cmd {
    my ($s, $sql) = @_;
    return $net->in('clients', 'psql', '-XAtq', '-h', $net->address($s), '-U', 'postgres', '-d', 'postgres',
        '-v', 'ON_ERROR_STOP=1', '-c', $sql);
}
sub sql { my ($s, $sql) = @_; my $out = run_ok(psql_cmd($s, $sql)); chomp $out; return $out; }

# Polls $check->() until it is true, for at most $seconds; returns how long it took, or undef.
sub wait_for {
    my ($seconds, $check) = @_;
    my $t0 = time;
    while (1) {
        return time - $t0 if eval { $check->() };
        return undef if time - $t0 > $seconds;
        sleep(0.2);
    }
}

my $create = q{SELECT snowflake_create('orders', '2024-01-01 00:00:00+00', max_nodes => 128, backfill_nodes => 125)};
sub set_up_server {
    my ($s) = @_;
    start_server($s);
    sql($s, 'CREATE EXTENSION idgen');
    my $took = wait_for(30, sub { registry_state($s) eq 'attached' });
    defined $took or BAIL_OUT("$s did not attach to the registry in 30 s");
    note(sprintf('%s attached to the registry %.1f s after its start', $s, $took));
    sql($s, $create);
    sql($s, 'CREATE TABLE ids (id bigint PRIMARY KEY, u uuid UNIQUE NOT NULL)');
}
sub orders_node { my ($s) = @_; return sql($s, q{SELECT coalesce(node_id::text, 'none') FROM snowflake_sequencers WHERE name = 'orders'}); }
sub registry_state { my ($s) = @_; return sql($s, 'SELECT state FROM idgen_registry'); }

set_up_server($_) for qw(s1 s2 s3);
for my $s (qw(s1 s2 s3)) {
    ok(defined wait_for(20, sub { orders_node($s) ne 'none' }), "$s holds a node id of orders") or BAIL_OUT("$s is not attached");
}
note('orders: node ids ' . join(', ', map { "$_ " . orders_node($_) } qw(s1 s2 s3)) . ' (three live node ids, all held)');

# ---- clients --------------------------------------------------------------------------------------
# One client per server on the clients' host, in a loop until told to stop: a batch of 20 rows
# inserted, each with snowflake_next('orders') and uuid_v7(). Each line of its file:
#   START END ok ID UUID             an id received (START and END: the batch's times)
#   START END error SQLSTATE TEXT    the batch refused (SQLSTATE 'none': no SQLSTATE)
my $client_script = <<'EOS';
while [ ! -e "$STOP" ]; do
    t0=$(date +%s.%N)
    if out=$(PGCONNECT_TIMEOUT=10 psql -XAtq -F ' ' -h "$HOST" -U postgres -d postgres -v ON_ERROR_STOP=1 \
            -v VERBOSITY=verbose -c "$SQL" 2>&1); then
        t1=$(date +%s.%N); printf '%s\n' "$out" | sed "s/^/$t0 $t1 ok /"
    else
        t1=$(date +%s.%N)
        code=$(printf '%s\n' "$out" | sed -n 's/^ERROR: *\([0-9A-Z]\{5\}\):.*/\1/p' | head -n 1)
        echo "$t0 $t1 error ${code:-none} $(printf '%s' "$out" | head -n 1)"
    fi
    sleep 0.05
done
EOS
my $batch = q{INSERT INTO ids SELECT snowflake_next('orders'), uuid_v7() FROM generate_series(1, 20) RETURNING id, u};
sub start_client {
    my ($s) = @_;
    $harness{"client-$s"} = IPC::Run::start([ $net->in('clients', 'env', "STOP=$base/stop", 'HOST=' . $net->address($s),
        "SQL=$batch", 'bash', '-c', $client_script) ], '<', '/dev/null', '>', "$base/client-$s", '2>&1');
}
# What $s's client got: [ { start, end, ok => [id, uuid] | error => SQLSTATE, text } ].
sub outcomes {
    my ($s) = @_;
    my @out;
    for (split /\n/, slurp("$base/client-$s")) {
        my ($t0, $t1, $kind, @rest) = split / /;
        push @out, $kind eq 'ok' ? { start => $t0, end => $t1, ok => [ @rest[0, 1] ] }
                                 : { start => $t0, end => $t1, error => $rest[0], text => "@rest[1..$#rest]" };
    }
    return @out;
}
sub ids_between {
    my ($s, $from, $to) = @_;
    return grep { $_->{ok} && $_->{start} >= $from && $_->{end} <= $to } outcomes($s);
}
start_client($_) for qw(s1 s2 s3);

# Watches etcd's node keys from the clients' host, each event timestamped on arrival.
$harness{watch} = IPC::Run::start([ $net->in('clients', 'bash', '-c',
    qq{etcdctl --endpoints=$all_etcd watch --prefix /$cluster/node/ -w json | while IFS= read -r l; do echo "\$(date +%s.%N) \$l"; done}) ],
    '<', '/dev/null', '>', "$base/watch", '2>', "$base/watch.err");
# When the watch saw key $key deleted after $after: the time, or undef.
sub deleted_at {
    my ($key, $after) = @_;
    for (split /\n/, slurp("$base/watch")) {
        my ($t, $json) = split / /, $_, 2;
        next if $t < $after;
        my $r = eval { decode_json($json) } or next;
        for my $e (@{ $r->{Events} // $r->{events} // [] }) {
            return $t if ($e->{type} // 0) && decode_base64($e->{kv}{key}) eq $key;
        }
    }
    return undef;
}

sleep(4);
ok(scalar(ids_between($_, 0, time)) > 0, "$_ issues") for qw(s1 s2 s3);

# ---- 1. a server cut off from etcd, not from its clients --------------------------------------------
my $x = orders_node('s1');
my $t_cut = time;
$net->cut('s1', map { $net->address($_) } @members);
note("s1 (node id $x of orders) cut off from etcd; its clients still reach it");
set_up_server('s4');
start_client('s4');
my $took = wait_for(4 * $lease, sub { orders_node('s4') eq $x });
if (!defined $took) {
    note('s4 did not claim the node id by itself: snowflake_attach');
    sql('s4', q{SELECT snowflake_attach('orders')});
}
is(orders_node('s4'), $x, "s4 took over s1's node id $x") or BAIL_OUT('no takeover');
note(sprintf('s4 held node id %s %.1f s after the cut', $x, time - $t_cut));
sleep(2);
my $expired = deleted_at("/$cluster/node/sequencer/orders/$x", $t_cut);
ok(defined $expired, "etcd let s1's key of node id $x go (its lease expired)") or BAIL_OUT('no expiry seen');
my @s1_after = grep { $_->{end} > $t_cut } outcomes('s1');
my ($last_ok) = sort { $b <=> $a } map { $_->{end} } grep { $_->{ok} } @s1_after;
$last_ok //= $t_cut;
cmp_ok($last_ok, '<', $expired, 's1 issued its last id before etcd let its lease go');
cmp_ok($last_ok, '<=', $t_cut + $lease, 's1 stopped issuing within one lease of the cut');
note(sprintf('s1: last id %.2f s after the cut, %.2f s before etcd dropped its key', $last_ok - $t_cut, $expired - $last_ok));
my @s1_refusals = grep { $_->{error} } @s1_after;
ok(@s1_refusals > 0, 's1 refuses once cut off');
is_deeply([ grep { $_ ne '55000' } map { $_->{error} } @s1_refusals ], [], "s1's refusals are all 55000")
  or diag(join("\n", map { $_->{text} } @s1_refusals[0 .. 4]));
my $s4_node_ids = sql('s4', q{SELECT count(*) FROM ids WHERE snowflake_node('orders', id) = } . $x);
cmp_ok($s4_node_ids, '>', 0, "s4 issues under node id $x ($s4_node_ids ids so far)");

# ---- 2. the cut-off server comes back --------------------------------------------------------------
$net->heal('s1');
$took = wait_for(3 * $lease, sub { registry_state('s1') eq 'attached' });
ok(defined $took, 's1 attached again once healed');
is(orders_node('s1'), 'none', 's1 holds no node id of orders: the three are held by s2, s3, s4');

# ---- 3. a minority etcd member -------------------------------------------------------------------
my $t_minority = time;
$net->cut('e3', map { $net->address($_) } qw(e1 e2));
note('e3 cut off from e1 and e2 (the servers still reach it); s2 lists it first');
sleep(3 * $lease);
my $t_minority_end = time;
for my $s (qw(s2 s3 s4)) {
    ok(scalar(ids_between($s, $t_minority_end - $lease, $t_minority_end)) > 0,
       "$s issued in the last $lease s of the minority partition");
    my @ends = map { $_->{end} } ids_between($s, $t_minority, $t_minority_end);
    my $gap = max(0, map { $ends[$_] - $ends[ $_ - 1 ] } 1 .. $#ends);
    note(sprintf('%s: longest wait between ids during the minority partition %.2f s', $s, $gap));
}
$net->heal('e3');

# ---- 4. a lossy, slow link -----------------------------------------------------------------------
ok(scalar(ids_between('s3', $t_cut, $t_minority_end)) > 0, 's3 issued over its 300 ms path to etcd');
my $t_loss = time;
$net->lossy('s3', 0.3);
note('s3 loses 30% of its packets both ways');
sleep(3 * $lease);
my $t_loss_end = time;
$net->heal('s3');
my @lossy = grep { $_->{start} >= $t_loss && $_->{end} <= $t_loss_end } outcomes('s3');
note(sprintf('s3 during the loss: %d ids received, %d batches refused', scalar(grep { $_->{ok} } @lossy),
    scalar(grep { $_->{error} } @lossy)));
# The loss may have cost s3 its lease, and its node id of orders then went to s1, which waits
# for one: s3 must attach again and issue what it can.
$took = wait_for(4 * $lease, sub { registry_state('s3') eq 'attached' });
ok(defined $took, 's3 attached to the registry once the loss stops');
note('s3 lost its lease ' . sql('s3', 'SELECT detaches FROM idgen_registry') . ' time(s) in all');
if ((my $node = orders_node('s3')) ne 'none') {
    ok(defined wait_for(2 * $lease, sub { scalar(ids_between('s3', time - 1, time)) > 0 }), "s3 issues again under node id $node");
} else {
    is(sql('s3', 'SELECT uuid_v7() IS NOT NULL'), 't', 's3 issues uuid_v7() again');
    note('s3 holds no node id of orders now: ' . join(', ', map { "$_ holds " . orders_node($_) } qw(s1 s2 s4)));
}

# ---- the ids --------------------------------------------------------------------------------------
open my $stop, '>', "$base/stop" or die $!;
close $stop;
$harness{"client-$_"}->finish for qw(s1 s2 s3 s4);
my (%seen, @twice, $received);
for my $s (qw(s1 s2 s3 s4)) {
    my @got = map { $_->{ok} } grep { $_->{ok} } outcomes($s);
    $received += @got;
    # A connection that the lossy link broke (no SQLSTATE: the client's error, not the server's)
    # is the network's failure; its batch may have committed with no reply.
    my @lost = grep { $s eq 's3' && ($_->{error} // '') eq 'none' && $_->{start} < $t_loss_end } outcomes($s);
    note("$s: " . scalar(@lost) . ' connections broken by the lossy link: ' . $lost[0]{text}) if @lost;
    my %table = map { ($_ => 1) } split /\n/, sql($s, q{SELECT id || ' ' || u FROM ids});
    my %got = map { ("$_->[0] $_->[1]" => 1) } @got;
    is_deeply([ sort grep { !$table{$_} } keys %got ], [], "$s: every id its clients received is in its table");
    my @unreceived = grep { !$got{$_} } keys %table;
    cmp_ok(scalar(@unreceived), '<=', 20 * @lost, "$s: its table holds no id its clients did not receive"
        . (@lost ? ' (but for the batches whose reply the lossy link lost)' : ''));
    for my $pair (@got) {
        for my $v (@$pair) { push @twice, "$v ($seen{$v} and $s)" if $seen{$v}; $seen{$v} //= $s; }
    }
    my @other = grep { $_->{error} && $_->{error} ne '55000' } outcomes($s);
    is(scalar(@other) - scalar(@lost), 0, "$s: its clients saw no error but 55000")
      or diag(join("\n", map { $_->{text} } @other[0 .. 4]));
    ok(eval { run_ok(as_postgres($s, 'pg_ctl', '-D', data_dir($s), 'status')) =~ /server is running/ }, "$s still runs");
}
is(scalar(@twice), 0, "no id twice among the $received rows received (Snowflake ids and uuid_v7)")
  or diag(join("\n", @twice[0 .. 9]));

done_testing();

END {
    local $?;
    return unless defined $base;    # skipped before anything was made
    for my $s (qw(s1 s2 s3 s4)) {
        system(as_postgres($s, 'pg_ctl', '-D', data_dir($s), '-m', 'immediate', 'stop', '-s')) if -e data_dir($s) . '/postmaster.pid';
    }
    eval { $_->kill_kill(grace => 1) } for values %harness;
    if (Test::More->builder->is_passing) { system('rm', '-rf', $base); }
    else { diag("logs of the servers, etcd and the clients kept under $base"); }
}
