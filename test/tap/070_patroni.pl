# idgen in a Patroni cluster, all on 127.0.0.1: one etcd, three Patroni members with idgen
# preloaded and the SAME idgen.node_id (a standby takes over its primary's node id: the HA use
# case). Four clients generate into a table through the current leader (libpq multi-host,
# target_session_attrs=read-write) with every generator, the retrospective ones on eight
# timestamps that repeat all the time, and each keeps its own record of every id it received.
# Meanwhile the cluster fails over twice: `patronictl failover --force` (a graceful one), then
# a hard loss of the leader (kill -9 of its Patroni and its postmaster). Then, for every
# generator: no value twice in the clients' records (acknowledged ids, and all ids received),
# no value twice in the table, every acknowledged row in the table with the ids the client was
# given (except rows acknowledged by the hard-killed leader and not yet replicated: async
# replication may lose those; counted and reported, not failed), no rolled-back row in the
# table, no row in the table that no client knows.
#
# Needs Debian's `patroni` and `etcd-server` (scripts/lib/common.sh installs them).
# The failover candidate m2 runs with its clock IDGEN_PATRONI_SKEW seconds behind the others
# (default 3; libfaketime through a wrapped bin_dir; 0: no skew), as a standby on another
# machine may: after the graceful failover it must not reissue the live ids its predecessor
# made in those seconds (the wall clock alone no longer keeps them apart).
# IDGEN_TEST_PATRONI=0 skips it; IDGEN_PATRONI_PHASE_SECONDS (default 10) is how long the
# clients run in each of the three phases (before, between and after the failovers), counted
# from the first rows written through the new leader.
# One major per test run: Patroni and etcd drive it; what idgen does there 060 and 100 test on every major and once.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use HTTP::Tiny;
use IPC::Run;
use JSON::PP;
use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

plan skip_all => 'IDGEN_TEST_PATRONI=0' if ($ENV{IDGEN_TEST_PATRONI} // '1') eq '0';
for my $prog (qw(patroni patronictl etcd)) {
    plan skip_all => "$prog is not installed (Debian packages patroni, etcd-server)"
      unless grep { -x "$_/$prog" } split /:/, $ENV{PATH};
}

my $phase_seconds = $ENV{IDGEN_PATRONI_PHASE_SECONDS} // 10;
my $skew = $ENV{IDGEN_PATRONI_SKEW} // 3;
my $libfaketime = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
my $n_clients = 4;
my $rows_per_txn = 10;
my $pause = 0.005;    # seconds each client waits between transactions: a load, not a flood
my $node_id = 7;
my $python = -x '/usr/bin/python3' ? '/usr/bin/python3' : 'python3';
my $client_py = abs_path('test/patroni/client.py');
my $bindir = dirname(scalar(`which pg_ctl`) =~ s/\s+$//r);
my $base = PostgreSQL::Test::Utils::tempdir('patroni');
my $started = time;

# ---- processes we start, and stopping all of them whatever happens -------------------------
my %pid;    # name => pid of every process this test started
sub spawn {
    my ($name, $log, @cmd) = @_;
    my $p = fork() // die "fork: $!";
    if ($p == 0) {
        open(STDIN, '<', '/dev/null');
        open(STDOUT, '>>', $log) or die "$log: $!";
        open(STDERR, '>&', \*STDOUT);
        exec(@cmd) or die "exec $cmd[0]: $!";
    }
    $pid{$name} = $p;
    return $p;
}
sub alive { my ($p) = @_; return 0 unless $p; return waitpid($p, WNOHANG) == 0; }
sub wait_gone {
    my ($p, $seconds) = @_;
    my $until = time + $seconds;
    while (alive($p)) { return 0 if time > $until; sleep(0.2); }
    return 1;
}
# The postmaster of a member's data directory, when it runs (not our child: no waitpid).
sub postmaster_pid {
    my ($m) = @_;
    open(my $fh, '<', "$m->{dir}/data/postmaster.pid") or return undef;
    my $p = <$fh>;
    chomp $p;
    return ($p && kill(0, $p)) ? $p : undef;
}

my @members;
my $cleaned = 0;
sub cleanup {
    return if $cleaned++;
    for my $n (grep { /^client/ } keys %pid) { kill 'TERM', $pid{$n}; }
    for my $n (grep { /^client/ } keys %pid) { wait_gone($pid{$n}, 10) or kill 'KILL', $pid{$n}; }
    # Replicas first, then the leader: Patroni stops its PostgreSQL on SIGTERM.
    for my $m (sort { ($a->{was_leader} // 0) <=> ($b->{was_leader} // 0) } @members) {
        my $p = $pid{ $m->{name} };
        next unless alive($p);
        kill 'TERM', $p;
        wait_gone($p, 30) or kill 'KILL', $p;
    }
    for my $m (@members) {
        my $pm = postmaster_pid($m) or next;
        kill 'QUIT', $pm;    # immediate shutdown
        for (1 .. 50) { last unless kill(0, $pm); sleep(0.2); }
        kill 'KILL', $pm if kill(0, $pm);
    }
    if (alive($pid{etcd})) { kill 'TERM', $pid{etcd}; wait_gone($pid{etcd}, 10) or kill 'KILL', $pid{etcd}; }
}
END { local $?; cleanup(); }
$SIG{INT} = $SIG{TERM} = sub { cleanup(); exit 1; };

sub wait_for {
    my ($what, $seconds, $cond) = @_;
    my $until = time + $seconds;
    while (time < $until) {
        my $r = eval { $cond->() };
        return $r if $r;
        sleep(0.5);
    }
    die "timed out after $seconds s waiting for $what";
}
sub slurp_or_empty { my ($f) = @_; return -e $f ? slurp_file($f) : ''; }
sub show_logs {
    for my $m (@members) {
        my @l = split /\n/, slurp_or_empty("$m->{dir}/patroni.log");
        diag("---- $m->{name} patroni.log (last 30 lines)\n" . join("\n", @l[ ($#l > 29 ? $#l - 29 : 0) .. $#l ]));
    }
}
$SIG{__DIE__} = sub { show_logs() unless $^S; };

# ---- etcd ------------------------------------------------------------------------------------
my ($etcd_client, $etcd_peer) = map { PostgreSQL::Test::Cluster::get_free_port() } 1 .. 2;
spawn('etcd', "$base/etcd.log", 'etcd', '--name', 'e1', '--data-dir', "$base/etcd",
    '--listen-client-urls', "http://127.0.0.1:$etcd_client", '--advertise-client-urls', "http://127.0.0.1:$etcd_client",
    '--listen-peer-urls', "http://127.0.0.1:$etcd_peer", '--initial-advertise-peer-urls', "http://127.0.0.1:$etcd_peer",
    '--initial-cluster', "e1=http://127.0.0.1:$etcd_peer", '--initial-cluster-state', 'new');
my $http = HTTP::Tiny->new(timeout => 3);
wait_for('etcd', 30, sub { $http->get("http://127.0.0.1:$etcd_client/health")->{content} =~ /"health":\s*"true"/ });

# ---- three Patroni members ---------------------------------------------------------------------
# The configuration of a member (docs/patroni.md shows the same, as the example to copy).
sub member_config {
    my ($m) = @_;
    return <<"YAML";
scope: idgen-test
namespace: /service/
name: $m->{name}
restapi:
  listen: 127.0.0.1:$m->{rest}
  connect_address: 127.0.0.1:$m->{rest}
etcd3:
  hosts: 127.0.0.1:$etcd_client
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 2
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    postgresql:
      use_pg_rewind: true
      parameters:
        shared_preload_libraries: idgen
        wal_level: replica
        hot_standby: 'on'
        wal_log_hints: 'on'
        max_wal_senders: 5
        max_replication_slots: 5
        max_connections: 40
  initdb:
    - encoding: UTF8
    - locale: C
postgresql:
  listen: 127.0.0.1:$m->{port}
  connect_address: 127.0.0.1:$m->{port}
  data_dir: $m->{dir}/data
  bin_dir: $m->{bindir}
  pgpass: $m->{dir}/pgpass
  authentication:
    superuser:
      username: postgres
      password: postgres
    replication:
      username: replicator
      password: replicator
    rewind:
      username: postgres
      password: postgres
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication replicator 127.0.0.1/32 trust
  parameters:
    idgen.node_id: $node_id
    unix_socket_directories: '$m->{dir}'
$m->{extra}
YAML
}

# A bin_dir whose postgres runs under libfaketime, reading the clock offset from DIR/faketime.rc
# (the other programs are links to the real ones). Under libfaketime a SIGALRM can deadlock a
# backend (test/lib/IdgenTest.pm), hence that member's distant deadlock and authentication timeouts.
sub skewed_bindir {
    my ($m, $offset) = @_;
    die "libfaketime is not installed at $libfaketime" unless -e $libfaketime;
    my $dir = "$m->{dir}/bin";
    mkdir $dir or die "$dir: $!";
    opendir(my $dh, $bindir) or die "$bindir: $!";
    for my $f (grep { !/^\./ && $_ ne 'postgres' } readdir $dh) { symlink("$bindir/$f", "$dir/$f") or die $!; }
    PostgreSQL::Test::Utils::append_to_file("$m->{dir}/faketime.rc", "$offset\n");
    PostgreSQL::Test::Utils::append_to_file("$dir/postgres", <<"SH");
#!/bin/sh
LD_PRELOAD=$libfaketime FAKETIME_TIMESTAMP_FILE=$m->{dir}/faketime.rc FAKETIME_NO_CACHE=1 \\
FAKETIME_DONT_FAKE_MONOTONIC=1 exec $bindir/postgres "\$@"
SH
    chmod 0755, "$dir/postgres";
    $m->{extra} = "    deadlock_timeout: 1h\n    authentication_timeout: 10min";
    return $dir;
}

for my $i (1 .. 3) {
    my $m = { name => "m$i", dir => "$base/m$i", bindir => $bindir, extra => '',
              rest => PostgreSQL::Test::Cluster::get_free_port(), port => PostgreSQL::Test::Cluster::get_free_port() };
    mkdir $m->{dir} or die "$m->{dir}: $!";
    chmod 0700, $m->{dir};
    $m->{bindir} = skewed_bindir($m, "-$skew") if $i == 2 && $skew;
    $m->{config} = "$m->{dir}/patroni.yml";
    PostgreSQL::Test::Utils::append_to_file($m->{config}, member_config($m));
    push @members, $m;
}
sub start_member { my ($m) = @_; spawn($m->{name}, "$m->{dir}/patroni.log", 'patroni', $m->{config}); }

# The cluster as a member's REST API sees it: { name => { role, state, ... } }.
sub cluster_view {
    for my $m (grep { alive($pid{ $_->{name} }) } @members) {
        my $r = $http->get("http://127.0.0.1:$m->{rest}/cluster");
        next unless $r->{success};
        return { map { $_->{name} => $_ } @{ decode_json($r->{content})->{members} } };
    }
    return {};
}
sub member_named { my ($n) = @_; return (grep { $_->{name} eq $n } @members)[0]; }
# The running leader (a member object) once its PostgreSQL accepts writes, or undef.
sub current_leader {
    my $view = cluster_view();
    my ($name) = grep { $view->{$_}{role} eq 'leader' && $view->{$_}{state} eq 'running' } keys %$view;
    return undef unless $name;
    my $m = member_named($name);
    return undef unless alive($pid{$name});
    return $http->get("http://127.0.0.1:$m->{rest}/primary")->{status} == 200 ? $m : undef;
}
sub psql_at {
    my ($m, $sql) = @_;
    my ($out, $err) = ('', '');
    IPC::Run::run([ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', "host=127.0.0.1 port=$m->{port} dbname=postgres user=postgres" ],
        '<', \$sql, '>', \$out, '2>', \$err) or die "psql on $m->{name} failed: $err";
    chomp $out;
    return $out;
}
# Whether the other members stream from the leader (pg_basebackup's own walsender, while a
# replica is being built, is named pg_basebackup, not after the member).
sub streaming_replicas {
    my ($leader, $n) = @_;
    my $names = join(',', map { "'$_->{name}'" } grep { $_ != $leader } @members);
    return psql_at($leader, qq{SELECT count(*) FROM pg_stat_replication
                               WHERE state = 'streaming' AND application_name IN ($names)}) >= $n;
}

start_member($members[0]);
my $leader = wait_for('m1 to bootstrap and lead', 90, \&current_leader);
is($leader->{name}, 'm1', 'm1 bootstrapped the cluster');
$leader->{was_leader} = 1;
start_member($_) for @members[1, 2];
wait_for('two streaming replicas', 120, sub { streaming_replicas($leader, 2) });
is(psql_at($_, q{SELECT current_setting('shared_preload_libraries') || ' ' || current_setting('idgen.node_id')}),
    "idgen $node_id", "$_->{name}: idgen preloaded, node id $node_id") for @members;

psql_at($leader, q{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('s', '2010-01-01 00:00:00+00', max_nodes => 128, backfill_nodes => 64);
    CREATE TABLE ids (client int, txn int, rowno int, port int,
                      sf bigint, v1 uuid, loc uuid, ts bigint, v1at uuid, sfat bigint,
                      PRIMARY KEY (client, txn, rowno));
});
my $bootstrap_seconds = time - $started;

# ---- clients, and the two failovers ------------------------------------------------------------
my $stop_file = "$base/stop";
my $conninfo = sprintf('host=%s port=%s dbname=postgres user=postgres target_session_attrs=read-write connect_timeout=3',
    join(',', ('127.0.0.1') x @members), join(',', map { $_->{port} } @members));
for my $c (1 .. $n_clients) {
    spawn("client$c", "$base/client$c.log", $python, $client_py, $conninfo, $c, $rows_per_txn, $pause,
        "$base/client$c.csv", "$base/client$c.json", $stop_file, 20 * $phase_seconds + 300);
}
my %event;    # what happened when (epoch seconds)
# A phase: clients write through the leader for $phase_seconds, counted from their first row
# there (a promoted server may refuse with 55000 for a while, until its clock has caught up).
sub phase {
    my ($before) = @_;
    wait_for("rows written through $leader->{name}", 120,
        sub { psql_at($leader, "SELECT count(*) FROM ids WHERE port = $leader->{port}") > $before });
    sleep($phase_seconds);
}
phase(0);

# 1. A graceful failover to a streaming replica.
my $old = $leader;
my ($candidate) = grep { $_ != $old } @members;
my ($out, $err);
$event{failover} = time;
IPC::Run::run([ 'patronictl', '-c', $old->{config}, 'failover', '--candidate', $candidate->{name}, '--force' ],
    '>', \$out, '2>', \$err);
note("patronictl failover: $out$err");
$leader = wait_for('a new leader after the failover', 90, sub { my $l = current_leader(); $l && $l != $old ? $l : undef });
$event{failover_done} = time;
$leader->{was_leader} = 1;
is($leader->{name}, $candidate->{name}, "patronictl failover: $candidate->{name} leads");
wait_for('the old leader to stream again', 120, sub { streaming_replicas($leader, 2) });
phase(0);

# 2. The leader is lost hard: its Patroni and its postmaster killed at once.
$old = $leader;
my $pm = postmaster_pid($old) or die "no postmaster for $old->{name}";
kill 'KILL', $pid{ $old->{name} }, $pm;
$event{kill} = time;
wait_gone($pid{ $old->{name} }, 10);
$leader = wait_for('a new leader after the hard loss', 120, sub { my $l = current_leader(); $l && $l != $old ? $l : undef });
$event{kill_done} = time;
$leader->{was_leader} = 1;
isnt($leader->{name}, $old->{name}, "after kill -9 of $old->{name}: $leader->{name} leads");
phase(psql_at($leader, "SELECT count(*) FROM ids WHERE port = $leader->{port}"));

PostgreSQL::Test::Utils::append_to_file($stop_file, "stop\n");
for my $c (1 .. $n_clients) {
    wait_gone($pid{"client$c"}, 60) or die "client $c did not stop";
}
my $run_seconds = time - $started;

# ---- the checks ------------------------------------------------------------------------------
my %sum = map { $_ => 0 } qw(committed failed unknown no_rows connects connect_failures connection_losses transactions);
my (@errors, %refusals);
for my $c (1 .. $n_clients) {
    my $s = decode_json(slurp_file("$base/client$c.json"));
    $sum{$_} += $s->{$_} for keys %sum;
    push @errors, map { "client $c: $_" } @{ $s->{errors} };
    $refusals{$_} += $s->{refusals}{$_} for keys %{ $s->{refusals} };
}
is(scalar(@errors), 0, 'no client met an error other than connection loss, 55000 or 25006')
  or diag(join("\n", @errors[0 .. ($#errors > 19 ? 19 : $#errors)]));

# The clients' records, loaded next to the table on the leader.
psql_at($leader, q{
    CREATE TABLE client_ids (client int, txn int, rowno int, status text, port int, at float8,
                             sf bigint, v1 uuid, loc uuid, ts bigint, v1at uuid, sfat bigint);
} . join('', map { "\\copy client_ids FROM '$base/client$_.csv' WITH (FORMAT csv)\n" } 1 .. $n_clients)
  . 'ANALYZE client_ids; ANALYZE ids;');

# Each phase had acknowledged transactions (the failovers happened under load).
my ($p1, $p2, $p3) = split /\|/, psql_at($leader, qq{
    SELECT count(*) FILTER (WHERE at < $event{failover}),
           count(*) FILTER (WHERE at > $event{failover_done} AND at < $event{kill}),
           count(*) FILTER (WHERE at > $event{kill_done})
    FROM client_ids WHERE status = 'committed'});
ok($p1 > 0 && $p2 > 0 && $p3 > 0,
    "rows acknowledged before, between and after the failovers: $p1, $p2, $p3");

my @generators = qw(sf v1 loc ts v1at sfat);
my %label = (sf => q{snowflake_next('s')}, v1 => 'uuid_v1()', loc => 'locality_uuid()',
             ts => 'unique_timestamp()', v1at => 'uuid_v1_at(ts)', sfat => q{snowflake_at('s', ts)});
my %dups;
# Duplicates: rows beyond the first with the same value, and of the values occurring more than
# once, how many came from more than one server.
sub duplicates {
    my ($g, $from) = @_;
    my ($extra, $values, $cross) = split /\|/, psql_at($leader, qq{
        SELECT coalesce(sum(n - 1), 0), count(*), count(*) FILTER (WHERE servers > 1)
        FROM (SELECT $g, count(*) AS n, count(DISTINCT port) AS servers FROM $from GROUP BY $g HAVING count(*) > 1) d});
    return ($extra, $values, $cross);
}
for my $g (@generators) {
    my @ack = duplicates($g, q{(SELECT * FROM client_ids WHERE status = 'committed') c});
    my @all = duplicates($g, 'client_ids');
    my @tab = duplicates($g, 'ids');
    $dups{$g} = { acknowledged => \@ack, received => \@all, table => \@tab };
    is($ack[0], 0, "$label{$g}: no value twice among the ids acknowledged to clients"
        . ($ack[0] ? " ($ack[0] extra rows; $ack[1] values twice or more, $ack[2] of them from two servers)" : ''));
    is($all[0], 0, "$label{$g}: no value twice among all ids clients received, committed or not"
        . ($all[0] ? " ($all[0] extra rows)" : ''));
    is($tab[0], 0, "$label{$g}: no value twice in the table" . ($tab[0] ? " ($tab[0] extra rows)" : ''));
}

# Acknowledged rows missing from the table, by the server that acknowledged them. The
# hard-killed leader may have acknowledged commits its standbys had not received yet (async
# replication): those are reported, not failed. Any other loss fails.
my %lost = map { split /\|/ } split /\n/, psql_at($leader, q{
    SELECT c.port, count(*) FROM client_ids c LEFT JOIN ids i USING (client, txn, rowno)
    WHERE c.status = 'committed' AND i.client IS NULL GROUP BY c.port});
my $lost_hard = delete($lost{ $old->{port} }) // 0;
is(join(',', map { "$_:$lost{$_}" } sort keys %lost), '', 'no acknowledged row lost, but by the hard-killed leader');
is(psql_at($leader, q{
    SELECT count(*) FROM client_ids c JOIN ids i USING (client, txn, rowno)
    WHERE c.status = 'committed' AND (c.port, c.sf, c.v1, c.loc, c.ts, c.v1at, c.sfat)
                          IS DISTINCT FROM (i.port, i.sf, i.v1, i.loc, i.ts, i.v1at, i.sfat)}),
    '0', 'every acknowledged row stored holds exactly the ids its client received');
is(psql_at($leader, q{
    SELECT count(*) FROM client_ids c JOIN ids i USING (client, txn, rowno) WHERE c.status = 'failed'}),
    '0', 'no rolled-back row in the table');
is(psql_at($leader, q{
    SELECT count(*) FROM ids i LEFT JOIN client_ids c USING (client, txn, rowno) WHERE c.client IS NULL}),
    '0', 'no row in the table that no client received');
my ($unknown_in, $unknown_out) = split /\|/, psql_at($leader, q{
    SELECT count(*) FILTER (WHERE i.client IS NOT NULL), count(*) FILTER (WHERE i.client IS NULL)
    FROM client_ids c LEFT JOIN ids i USING (client, txn, rowno) WHERE c.status = 'unknown'});

# ---- the figures -----------------------------------------------------------------------------
my $stored = psql_at($leader, 'SELECT count(*) FROM ids');
diag(sprintf('patroni: %.0f s in all (cluster up in %.0f s), m2 %d s behind, failover took %.1f s, hard loss %.1f s to a new leader',
    $run_seconds, $bootstrap_seconds, $skew, $event{failover_done} - $event{failover}, $event{kill_done} - $event{kill}));
diag(sprintf('clients: %d transactions: %d committed, %d failed, %d unknown (%d rows of them stored, %d not), '
      . '%d without rows; %d connects, %d failed connects, %d connection losses, refusals: %s; %d rows in the table',
    @sum{qw(transactions committed failed unknown)}, $unknown_in // 0, $unknown_out // 0, @sum{qw(no_rows connects connect_failures connection_losses)},
    (join(', ', map { "$_ x$refusals{$_}" } sort keys %refusals) || 'none'), $stored));
diag("acknowledged rows lost with the hard-killed leader $old->{name} (async replication, not a failure): $lost_hard");
diag(sprintf('%-22s %s', 'duplicates (extra rows)', 'acknowledged / all received / table'));
for my $g (@generators) {
    diag(sprintf('  %-22s %s', $label{$g}, join(' / ', map { $dups{$g}{$_}[0] } qw(acknowledged received table))));
}

done_testing();
