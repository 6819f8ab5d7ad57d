# Cluster mode: servers without idgen.node_id lease their node ids (the server's
# and one per cluster sequencer) from a three-member etcd cluster, all on 127.0.0.1. The test
# walks through what the registry must survive and checks, all along, that no id of any
# generator (snowflake_next per sequencer, uuid_v7(), unique_timestamp()) is ever issued
# twice across the servers:
#   1. four servers attach with distinct node ids and generate at once;
#   2. one etcd member is killed: generation goes on for more than two lease times;
#   3. all etcd members are killed: every server detaches within the lease (+2 s slack) and
#      refuses with 55000; etcd comes back and every server attaches again (the time is printed);
#   4. a server's registry worker alone is frozen (SIGSTOP) beyond the lease: its backends
#      refuse by themselves; then a whole server is frozen beyond its lease, a fifth server takes
#      its node ids, and the frozen one, woken, refuses or issues only under node ids of its own;
#   5. a node id handed over to a server whose clock is 5 s behind: its ids stay above the
#      previous holder's;
#   6. a sequencer defined differently elsewhere is refused (42710); a drop on one server
#      destroys the sequencer on every other server;
#   7. a sequencer with four live node ids on six servers: two are refused until one gives
#      its node id back, which a waiting server takes on the watch's word (at rest, the servers
#      read etcd less than once a second each);
#   8. what a server does to its own node ids: a drop and at once a create of the same name with
#      another definition; ten detach/attach rounds that must not run the ids ahead of the clock
#      (a node id given back stores what was really issued under it); its registry worker
#      terminated alone, restarted, attached again without an id twice, and a session open
#      across the restart attached again on its next call; a definition replaced elsewhere
#      while its worker is stopped, then snowflake_attach here: 42710, and the old node id
#      given back; a drop here then leaves the cluster's new definition alone.
# Needs Debian's etcd-server and etcd-client (skipped without them).
# One major per test run: cluster mode is idgen's worker and etcd, the same on every major.
use strict;
use warnings;
use IPC::Run;
use List::Util qw(max min);
use Time::HiRes qw(time sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;
use IdgenEtcd;

if (my @missing = IdgenEtcd::missing_programs()) {
    plan skip_all => "@missing not installed (Debian packages etcd-server, etcd-client)";
}

my $lease = 3;         # idgen.registry_lease, seconds
my $prefix = 'test';   # idgen.registry_cluster
my $test_started = time;
my $etcd = IdgenEtcd->new;
$etcd->start;
my $registry_conf = "idgen.registry = '" . $etcd->client_urls . "'\n"
  . "idgen.registry_cluster = '$prefix'\nidgen.registry_lease = $lease\n";

# ---- servers and what they say ------------------------------------------------------------
# A started server in the cluster (no idgen.node_id) with the extension; %opt as idgen_node's.
sub registry_server {
    my ($name, %opt) = @_;
    my $s = idgen_node($name, conf => $registry_conf, %opt);
    start_node($s);
    $s->safe_psql('postgres', 'CREATE EXTENSION idgen');
    return $s;
}

sub registry_row {
    my ($s) = @_;
    my %row;
    @row{qw(state node_id detaches)} = split /\|/, $s->safe_psql('postgres',
        q{SELECT state, coalesce(node_id::text, 'none'), detaches FROM idgen_registry});
    return \%row;
}
my $registry_state = 'SELECT state FROM idgen_registry';
sub sequencer_state { my ($seq) = @_; return "SELECT state FROM snowflake_sequencers WHERE name = '$seq'"; }
# The node id this server holds for the sequencer ('none' when it holds none).
sub sequencer_node {
    my ($s, $seq) = @_;
    return $s->safe_psql('postgres', "SELECT coalesce(node_id::text, 'none') FROM snowflake_sequencers WHERE name = '$seq'");
}

# Polls $sql on every server until it returns $want, for at most $seconds; returns
# { server name => seconds it took } of the servers that got there.
sub poll_all {
    my ($sql, $want, $seconds, @servers) = @_;
    my ($t0, %took) = (time);
    while (1) {
        for my $s (grep { !defined $took{ $_->name } } @servers) {
            $took{ $s->name } = time - $t0 if $s->safe_psql('postgres', $sql) eq $want;
        }
        last if keys %took == @servers || time - $t0 > $seconds;
        sleep(0.1);
    }
    return \%took;
}

# poll_all, each server's arrival a test; dies when one does not arrive (what follows needs it).
sub reaches {
    my ($what, $sql, $want, $seconds, @servers) = @_;
    my $took = poll_all($sql, $want, $seconds, @servers);
    ok(defined $took->{ $_->name }, "$what: " . $_->name . " within $seconds s") for @servers;
    die "$what: not every server got there" unless keys %$took == @servers;
    note("$what: " . join(', ', map { sprintf('%s %.1f s', $_, $took->{$_}) } sort keys %$took));
    return $took;
}

# ---- ids ---------------------------------------------------------------------------------
# Every id made in this test: { generator => { value => server } }. Snowflake ids are kept per
# sequencer (two sequencers may make the same number).
my %issued;
sub generators { my ($seq) = @_; return ("snowflake_next('$seq')", 'uuid_v7()', 'unique_timestamp()'); }
sub generate_sql { my ($seq, $n) = @_; return 'SELECT ' . join(', ', generators($seq)) . " FROM generate_series(1, $n)"; }
sub parse_rows { my ($out) = @_; return map { [ split /\|/ ] } grep { length } split /\n/, $out; }

# Records the rows (one column per generator) $server made; tests that none of their ids was
# made before in this test (the rows of each server of $by_server: { name => [rows] }).
sub no_id_twice {
    my ($what, $seq, $by_server) = @_;
    my @gens = generators($seq);
    my ($n, @twice) = (0);
    for my $name (sort keys %$by_server) {
        for my $row (@{ $by_server->{$name} }) {
            for my $i (0 .. $#gens) {
                my $v = $row->[$i];
                push @twice, "$gens[$i] = $v by $issued{$gens[$i]}{$v} and $name" if exists $issued{ $gens[$i] }{$v};
                $issued{ $gens[$i] }{$v} //= $name;
                $n++;
            }
        }
    }
    is(scalar(@twice), 0, "$what: none of $n new ids was made before in this test") or diag(join("\n", @twice[0 .. min(9, $#twice)]));
}

# Every server makes $n rows at once (one psql each); returns { name => [rows] }; dies if one fails.
sub generate_at_once {
    my ($seq, $n, @servers) = @_;
    my (%out, %err, %run);
    for my $s (@servers) {
        $run{ $s->name } = IPC::Run::start([ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $s->connstr('postgres'),
            '-c', generate_sql($seq, $n) ], '<', '/dev/null', '>', \$out{ $s->name }, '2>', \$err{ $s->name });
    }
    for my $name (sort keys %run) { $run{$name}->finish or die "$name: generating failed: $err{$name}"; }
    my %rows = map { $_ => [ parse_rows($out{$_}) ] } keys %out;
    is(scalar(@{ $rows{$_} }), $n, "$_: $n rows of ids") for sort keys %rows;
    return \%rows;
}

# Each server makes one row every 0.2 s for $seconds, each row with the server node id the
# server says it holds as its last column; returns { name => [rows] } and { name => [errors] }
# (each with its SQLSTATE).
sub generate_for {
    my ($seq, $seconds, @servers) = @_;
    my $sql = 'SELECT ' . join(', ', generators($seq), '(SELECT node_id FROM idgen_registry)');
    my ($t0, %rows, %errors) = (time);
    while (time - $t0 < $seconds) {
        for my $s (@servers) {
            my ($ret, $out, $err) = $s->psql('postgres', "\\set VERBOSITY verbose\n$sql");
            if ($ret == 0) { push @{ $rows{ $s->name } }, parse_rows($out); }
            else { push @{ $errors{ $s->name } }, $err; }
        }
        sleep(0.2);
    }
    return (\%rows, \%errors);
}

my $detached_error = qr/ERROR:\s+55000: idgen is detached from the registry/;
# A refusal for want of a node id: the server's (detached) or the sequencer's (not claimed yet).
sub no_node_error { my ($seq) = @_; return qr/$detached_error|ERROR:\s+55000: Snowflake sequencer "$seq" is detached on this server/; }
sub refuses_all {
    my ($what, $s, $error, @exprs) = @_;
    like(psql_error($s, "SELECT $_"), $error, "$what: " . $s->name . ": $_ refused") for @exprs;
}

# The node ids $s holds, by etcd pool ('server', and 'sequencer/NAME' for each of @seqs).
sub held_by {
    my ($s, @seqs) = @_;
    return { server => registry_row($s)->{node_id}, map { ("sequencer/$_" => sequencer_node($s, $_)) } @seqs };
}
# Whether etcd has the key of each node id in $held (as held_by returns), as [pool, 0|1].
sub node_keys_present {
    my ($held) = @_;
    my $keys = $etcd->get_prefix("/$prefix/node/");
    return map { [ $_, exists $keys->{"/$prefix/node/$_/$held->{$_}"} ? 1 : 0 ] } sort keys %$held;
}

# Puts a key (with no lease) on every node id of $pool below $id that nobody holds, so that $id
# is the lowest free node id of the pool (the one the next claim takes); returns the keys.
sub block_below {
    my ($pool, $id) = @_;
    my $held = $etcd->get_prefix("/$prefix/node/$pool/");
    my @keys = grep { !exists $held->{$_} } map { "/$prefix/node/$pool/$_" } 0 .. $id - 1;
    $etcd->put($_, 'taken by the test') for @keys;
    return @keys;
}

# How many of the Snowflake ids of $seq carry node id $node (asked on $s).
sub ids_of_node {
    my ($s, $seq, $node, @ids) = @_;
    return $s->safe_psql('postgres',
        "SELECT count(*) FROM unnest('{" . join(',', @ids) . "}'::bigint[]) id WHERE snowflake_node('$seq', id) = $node");
}

# ---- freezing a whole server ---------------------------------------------------------------
my @frozen;    # processes stopped now: woken at the end whatever happens
sub freeze_pids { my (@pids) = @_; kill('STOP', @pids) == @pids or die "SIGSTOP @pids: $!"; push @frozen, @pids; }
sub postmaster { my ($s) = @_; return (split /\n/, slurp_file($s->data_dir . '/postmaster.pid'))[0]; }
sub registry_workers { my ($s) = @_; return split ' ', `pgrep -P @{[ postmaster($s) ]} -f 'idgen registry worker'`; }
sub freeze_server {
    my ($s) = @_;
    my $pm = postmaster($s);
    freeze_pids($pm);    # first, so it forks no child meanwhile
    my @children = split ' ', `pgrep -P $pm`;
    freeze_pids(@children);
    note($s->name . ': postmaster and ' . scalar(@children) . ' children stopped');
}
sub thaw { kill 'CONT', reverse @frozen; @frozen = (); }
END { thaw() if @frozen; }

# ---- 1. four servers attach and generate at once ------------------------------------------
my @servers = map { registry_server("s$_") } 1 .. 4;
reaches('started', $registry_state, 'attached', 60, @servers);
my %server_node = map { $_->name => registry_row($_)->{node_id} } @servers;
is(scalar(keys %{ { reverse %server_node } }), 4, 'four distinct server node ids: ' . join(', ', map { "$_ $server_node{$_}" } sort keys %server_node));
is_deeply([ sort keys %{ $etcd->get_prefix("/$prefix/node/server/") } ],
    [ sort map { "/$prefix/node/server/$_" } values %server_node ], 'etcd holds exactly those server node ids');

my $orders = q{snowflake_create('orders', '2024-01-01 00:00:00+00', 1024)};
$_->safe_psql('postgres', "SELECT $orders") for @servers;    # s1 registers it, the others find it so
ok(exists $etcd->get_prefix("/$prefix/sequencer/")->{"/$prefix/sequencer/orders"}, 'orders is registered in etcd');
reaches('orders', sequencer_state('orders'), 'attached', 10, @servers);
my %orders_node;
for my $s (@servers) {
    my ($node, $held) = split /\|/, $s->safe_psql('postgres',
        q{SELECT snowflake_node('orders', snowflake_next('orders')), (SELECT node_id FROM snowflake_sequencers WHERE name = 'orders')});
    is($node, $held, $s->name . ": snowflake_next('orders') carries the node id the server holds ($held)");
    $orders_node{ $s->name } = $node;
}
is(scalar(keys %{ { reverse %orders_node } }), 4, 'four distinct node ids of orders');
is_deeply([ sort keys %{ $etcd->get_prefix("/$prefix/node/sequencer/orders/") } ],
    [ sort map { "/$prefix/node/sequencer/orders/$_" } values %orders_node ], 'etcd holds exactly those node ids of orders');
no_id_twice('four servers at once', 'orders', generate_at_once('orders', 3000, @servers));

# ---- 2. one etcd member killed -------------------------------------------------------------
# The first URL of idgen.registry, made a follower first: the servers must go on through the
# other members, without an election in between.
$etcd->put('/harness/probe', 'kept');
$etcd->make_follower(0);
my %detaches = map { $_->name => registry_row($_)->{detaches} } @servers;
$etcd->kill_member(0);
my ($rows, $errors) = generate_for('orders', 2 * $lease + 1, @servers);
is_deeply($errors, {}, 'one etcd member killed: every call made its ids for ' . (2 * $lease + 1) . ' s');
no_id_twice('one etcd member killed', 'orders', $rows);
is_deeply({ map { $_->name => registry_row($_)->{detaches} } @servers }, \%detaches, 'one etcd member killed: no server detached');
is($etcd->get_prefix('/harness/')->{'/harness/probe'}, 'kept', 'one etcd member killed: etcd answers');
$etcd->start;

# ---- 3. all etcd members stopped, then back ----------------------------------------------------
# Killed, so that etcd is gone at one instant (a graceful stop lets the leader linger on).
$etcd->kill_all;
reaches('all etcd members killed: detached', $registry_state, 'detached', $lease + 2, @servers);
refuses_all('detached', $_, $detached_error, generators('orders')) for @servers;
my $back = time;
$etcd->start;
my $healthy = time - $back;
my $reattach = reaches('etcd back: attached again', $registry_state, 'attached', 60, @servers);
note(sprintf('etcd healthy %.1f s after its start; every server attached again %.1f s after its start',
    $healthy, $healthy + max(values %$reattach)));
is($etcd->get_prefix('/harness/')->{'/harness/probe'}, 'kept', 'etcd kept its keys through a full stop');
reaches('etcd back: orders', sequencer_state('orders'), 'attached', 10, @servers);
no_id_twice('after the registry came back', 'orders', generate_at_once('orders', 3000, @servers));

# ---- 4. a registry worker frozen, then a whole server frozen, beyond the lease -------------------
# Only the worker: nothing tells the backends that the lease ran out, they must see it themselves.
my $lonely = $servers[0];
my @worker = registry_workers($lonely);
is(scalar(@worker), 1, $lonely->name . ': one registry worker') or die 'no registry worker to freeze';
freeze_pids(@worker);
($rows, $errors) = generate_for('orders', $lease + 2, $lonely);
no_id_twice('registry worker frozen', 'orders', $rows);
is(scalar(grep { !/$detached_error/ } @{ $errors->{ $lonely->name } // [] }), 0, 'registry worker frozen: every refusal is 55000 detached');
refuses_all('registry worker frozen for ' . ($lease + 2) . ' s', $lonely, $detached_error, generators('orders'));
thaw();
reaches('registry worker woken', $registry_state, 'attached', 60, $lonely);
reaches('registry worker woken: orders', sequencer_state('orders'), 'attached', 10, $lonely);

my $sleeper = $servers[3];
my %held = %{ held_by($sleeper, 'orders') };
my $orders_held = $held{'sequencer/orders'};
freeze_server($sleeper);
sleep(3 * $lease);
ok(!$_->[1], "frozen server: its lease expired, $_->[0] node id $held{$_->[0]} is free") for node_keys_present(\%held);
my @blockers = map { block_below($_, $held{$_}) } sort keys %held;
note('keys put to make those the lowest free node ids: ' . scalar(@blockers));
my $s5 = registry_server('s5');
$s5->safe_psql('postgres', "SELECT $orders");
reaches('fifth server', $registry_state, 'attached', 60, $s5);
reaches('fifth server: orders', sequencer_state('orders'), 'attached', 10, $s5);
is(registry_row($s5)->{node_id}, $held{server}, "s5 took the frozen server's server node id $held{server}");
is(sequencer_node($s5, 'orders'), $orders_held, "s5 took the frozen server's orders node id $orders_held");
$etcd->del($_) for @blockers;
thaw();
($rows, $errors) = generate_for('orders', 2 * $lease, $sleeper, $s5);
my @sleeper_errors = @{ $errors->{ $sleeper->name } // [] };
note(sprintf('woken server: %d calls refused, %d made ids', scalar(@sleeper_errors), scalar(@{ $rows->{ $sleeper->name } // [] })));
my $refusal = no_node_error('orders');
is(scalar(grep { !/$refusal/ } @sleeper_errors), 0, 'woken server: every refusal is 55000 for want of a node id')
  or diag(join("\n", @sleeper_errors));
is_deeply($errors->{ $s5->name } // [], [], 's5 made its ids all along');
my @woken_rows = @{ $rows->{ $sleeper->name } // [] };
is(scalar(grep { $_->[3] eq $held{server} } @woken_rows), 0, "woken server: no id made while it says it holds s5's server node id");
my @woken_ids = map { $_->[0] } @woken_rows;
is(ids_of_node($s5, 'orders', $orders_held, @woken_ids), 0, 'woken server: no Snowflake id under the node id s5 holds now');
no_id_twice('woken server and s5', 'orders', $rows);
reaches('woken server', $registry_state, 'attached', 60, $sleeper);
reaches('woken server: orders', sequencer_state('orders'), 'attached', 10, $sleeper);
isnt(registry_row($sleeper)->{node_id}, $held{server}, 'woken server: another server node id than before');
isnt(sequencer_node($sleeper, 'orders'), $orders_held, 'woken server: another orders node id than before');
no_id_twice('woken server and s5 at once', 'orders', generate_at_once('orders', 3000, $sleeper, $s5));
push @servers, $s5;

# ---- 5. a node id handed over to a server whose clock is 5 s behind ------------------------
my $handover = q{snowflake_create('handover', '2024-01-01 00:00:00+00', 1024)};
my $a = registry_server('a');
$a->safe_psql('postgres', "SELECT $handover");
reaches('a', sequencer_state('handover'), 'attached', 60, $a);
# Nothing starts or stops between a's stop and b's start, so b's claims take the node ids a
# gave back (the lowest free of each pool): the handover's and the server's.
my %a_held = %{ held_by($a, 'handover') };
my $handover_held = $a_held{'sequencer/handover'};
ok($_->[1], "a's $_->[0] node id $a_held{$_->[0]} is in etcd") for node_keys_present(\%a_held);
my @from_a = @{ generate_at_once('handover', 3000, $a)->{a} };
no_id_twice('a before the handover', 'handover', { a => \@from_a });
$a->stop;
ok(!$_->[1], "a's clean stop gave $_->[0] node id $a_held{$_->[0]} back") for node_keys_present(\%a_held);
my $horizons = $etcd->get_prefix("/$prefix/horizon/");
ok(exists $horizons->{"/$prefix/horizon/$_/$a_held{$_}"}, "etcd keeps the horizon of $_ node id $a_held{$_}") for sort keys %a_held;
my $b = registry_server('b', faketime => '-5');
$b->safe_psql('postgres', "SELECT $handover");
reaches('b (clock 5 s behind)', sequencer_state('handover'), 'attached', 60, $b);
is(sequencer_node($b, 'handover'), $handover_held, "b took handover node id $handover_held");
is(registry_row($b)->{node_id}, $a_held{server}, "b took server node id $a_held{server}");
my ($out, $tries) = psql_retry($b, 'postgres', generate_sql('handover', 3000));
note("b generated after $tries attempts");
my @from_b = parse_rows($out);
# Same sequencer and node id (Snowflake), same server node id in the last digits (unique_timestamp):
# b's values must start above a's.
for my $col ([ 0, "snowflake_next('handover')" ], [ 2, 'unique_timestamp()' ]) {
    my ($i, $gen) = @$col;
    my ($max_a, $min_b) = (max(map { $_->[$i] } @from_a), min(map { $_->[$i] } @from_b));
    cmp_ok($min_b, '>', $max_a, "b's $gen values (from $min_b) are all above a's (up to $max_a)");
}
is(ids_of_node($b, 'handover', $handover_held, map { $_->[0] } @from_b), scalar(@from_b),
    "b's Snowflake ids all carry node id $handover_held");
no_id_twice('b after the handover', 'handover', { b => \@from_b });
push @servers, $b;

# ---- 6. a different definition elsewhere; a drop on one server --------------------------------
like(psql_error($b, q{SELECT snowflake_create('orders', '2025-01-01 00:00:00+00', 1024)}), qr/ERROR:\s+42710:/,
    "b: orders with another epoch than the cluster's: 42710");
my @orders_servers = grep { $_->name ne 'b' } @servers;
$orders_servers[0]->safe_psql('postgres', q{SELECT snowflake_drop('orders')});
my @others = @orders_servers[1 .. $#orders_servers];
reaches('orders dropped on ' . $orders_servers[0]->name, sequencer_state('orders'), 'destroyed', 10, @others);
refuses_all('orders destroyed', $_, qr/ERROR:\s+55000:/, q{snowflake_next('orders')}) for @others;

# ---- 7. four live node ids, six servers ---------------------------------------------------------
# One epoch for all of them (now() differs between the servers).
my $epoch = $servers[0]->safe_psql('postgres', q{SELECT date_trunc('second', now() - interval '1 day')});
$_->safe_psql('postgres', "SELECT snowflake_create('few', '$epoch', max_nodes => 128, backfill_nodes => 124)") for @servers;
my %few;    # name => node id held ('none' when detached)
for (my $until = time + 10;; sleep(0.2)) {
    %few = map { $_->name => sequencer_node($_, 'few') } @servers;
    last if (grep { $_ ne 'none' } values %few) == 4 || time > $until;
}
is_deeply([ sort grep { $_ ne 'none' } values %few ], [ 0 .. 3 ], 'few: four servers hold its four live node ids');
my @attached = grep { $few{ $_->name } ne 'none' } @servers;
my @refused = grep { $few{ $_->name } eq 'none' } @servers;
is(scalar(@refused), 2, 'few: two servers hold none') or die 'few: the rest needs two servers without a node id';
is(($_->psql('postgres', q{SELECT snowflake_next('few') > 0}))[1], 't', $_->name . ': snowflake_next(few) works') for @attached;
refuses_all('few', $_, qr/ERROR:\s+55000: Snowflake sequencer "few" is detached on this server/, q{snowflake_next('few')})
  for @refused;
# Six servers at rest, two of them waiting for a node id of few: each worker watches the node
# and sequencer keys and reads them only when the watch reports a change (and every 10 s), not
# every second (two reads a second each, and one more per waiting sequencer: some 70 in 5 s).
my $ranges_before = $etcd->requests('Range');
sleep(5);
my $ranges = $etcd->requests('Range') - $ranges_before;
cmp_ok($ranges, '<', 5 * @servers, scalar(@servers) . ' servers at rest for 5 s: fewer etcd reads than one per server a second');
note("etcd range requests in 5 s at rest: $ranges");
my $freed = $few{ $attached[0]->name };
$attached[0]->safe_psql('postgres', q{SELECT snowflake_detach('few')});
is(sequencer_node($attached[0], 'few'), 'none', $attached[0]->name . ': snowflake_detach gave node id ' . $freed . ' back');
my $taken = poll_all(sequencer_state('few'), 'attached', 2 * $lease, @refused);
note(sprintf('node id %s taken by a waiting server %.2f s after the detach', $freed, min(values %$taken))) if %$taken;
if (!%$taken) {
    note('nobody claimed the freed node id by itself: snowflake_attach on ' . $refused[0]->name);
    is($refused[0]->safe_psql('postgres', q{SELECT snowflake_attach('few')}), $freed, $refused[0]->name . ': snowflake_attach took it');
}
is_deeply([ sort map { sequencer_node($_, 'few') } @refused ], [ sort($freed, 'none') ],
    "few: one of the two refused servers holds node id $freed now");
is(sequencer_node($attached[0], 'few'), 'none', $attached[0]->name . ' stays detached from few');

# ---- 8. a server's own node ids: drop and re-create, detach/attach, its worker restarted ---------
my ($one, $two) = @servers[0, 1];
$_->safe_psql('postgres', q{SELECT snowflake_create('again', '2024-01-01 00:00:00+00', 128)}) for $one, $two;
no_id_twice('again, first definition', 'again', generate_at_once('again', 2000, $one, $two));
# The drop's destroy and the create's registration reach the worker in one round: it is stopped
# while the drop commits and the create asks, and resumed before the create gives up
# (idgen.max_wait, 1 s). The destroy must go first, and the create must not be taken for a
# conflict with the definition being destroyed.
my ($worker_one) = registry_workers($one);
freeze_pids($worker_one);
my $race = IPC::Run::start(['psql', '-X', '-At', '-d', $one->connstr('postgres'),
    '-c', q{SELECT snowflake_drop('again')}, '-c', q{SELECT snowflake_create('again', '2023-01-01 00:00:00+00', 128)}],
    '>', \my $race_out, '2>&1');
sleep(0.4);
thaw();
$race->finish;
unlike($race_out // '', qr/ERROR/, $one->name . ': a drop and at once a create with another epoch, the worker stopped '
    . 'in between: accepted (the destroy goes first)') or diag($race_out);
reaches('again redefined on ' . $one->name, sequencer_state('again'), 'attached', 10, $one);
reaches('again redefined elsewhere', sequencer_state('again'), 'destroyed', 10, $two);
my $lead = q{SELECT extract(epoch FROM snowflake_timestamp('again', x) - clock_timestamp()) FROM snowflake_next('again') x};
$one->safe_psql('postgres', q{SELECT snowflake_detach('again'), snowflake_attach('again')}) for 1 .. 10;
cmp_ok($one->safe_psql('postgres', $lead), '<', 2,
    $one->name . ': after ten detach/attach rounds its ids are less than 2 s ahead of its clock');
# A session that used the sequencer before its server's worker restarted uses it after (the new
# worker withdrew every node id: the session's next call must ask for one again).
my $long = IPC::Run::start(['psql', '-X', '-At', '-d', $one->connstr('postgres'),
    '-c', q{SELECT snowflake_next('again') > 0; SELECT pg_sleep(4); SELECT snowflake_next('again') > 0}],
    '>', \my $long_out, '2>&1');
sleep(0.5);
my ($worker) = registry_workers($one);
ok(defined $worker && kill('TERM', $worker), $one->name . ': registry worker terminated');
my $restarted = poll_all(q{SELECT attaches > 1 AND state = 'attached' FROM idgen_registry}, 't', 15, $one);
ok(defined $restarted->{ $one->name }, $one->name . ': attached again after its worker restarted');
$long->finish;
is($long_out // '', "t\n\nt\n", $one->name . ': a session open across the worker restart attaches again on its next call');
$two->safe_psql('postgres', q{SELECT snowflake_drop('again'); SELECT snowflake_create('again', '2023-01-01 00:00:00+00', 128)});
no_id_twice('after the worker restart', 'again', generate_at_once('again', 2000, $one, $two));

# A sequencer dropped and defined otherwise elsewhere while this server's worker is stopped,
# and snowflake_attach asked here before the worker's next look at the definitions: the answer
# is the conflict, and the old definition's node id goes back (destroyed here too), not kept.
my $old_node = sequencer_node($one, 'again');
isnt($old_node, 'none', $one->name . ": holds node id $old_node of again");
($worker) = registry_workers($one);
freeze_pids($worker);
$two->safe_psql('postgres', q{SELECT snowflake_drop('again'); SELECT snowflake_create('again', '2022-01-01 00:00:00+00', 128)});
my $attach = IPC::Run::start(['psql', '-X', '-At', '-v', 'VERBOSITY=verbose', '-d', $one->connstr('postgres'),
    '-c', q{SELECT snowflake_attach('again')}],
    '>', \my $attach_out, '2>&1');
sleep(0.3);
thaw();
$attach->finish;
like($attach_out // '', qr/ERROR:\s+42710:/, $one->name . ': snowflake_attach of the old definition: 42710');
reaches('again defined otherwise', sequencer_state('again'), 'destroyed', 5, $one);
like(psql_error($one, q{SELECT snowflake_next('again')}), qr/ERROR:\s+55000:/, $one->name . ': the old definition refused');
unlike($etcd->get_prefix("/$prefix/node/sequencer/again/")->{"/$prefix/node/sequencer/again/$old_node"} // '',
    qr/ port @{[ $one->port ]} pid /, $one->name . ": gave node id $old_node of again back");
# What the error's hint says there: snowflake_drop. It drops this server's definition, not the
# one the cluster took from elsewhere: two's stays (two looks at the definitions every second).
$one->safe_psql('postgres', q{SELECT snowflake_drop('again')});
sleep(2.5);
is($two->safe_psql('postgres', sequencer_state('again')), 'attached',
    $one->name . ': its drop of the replaced definition left ' . $two->name . "'s attached");
is(($two->psql('postgres', q{SELECT snowflake_next('again') > 0}))[1], 't', $two->name . ': snowflake_next(again) works');

note(sprintf('100_registry: %.0f s in all', time - $test_started));
$_->stop for @servers;
done_testing();
