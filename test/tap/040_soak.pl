# The soak: 8 clients insert values of every generator into UNIQUE columns while the script
# crashes the server (pg_ctl -m immediate) and steps its clock back and forth (libfaketime)
# at random moments. At the end: no duplicate (a client would have met 23505), no committed
# batch lost, every generator increasing from each server run to the next, and the figures.
# IDGEN_SOAK_SECONDS sets the length (60 by default; e.g. 600 for a long local run).
# One major per test run: the soak repeats, at length, what 011, 012 and 020 test on every major.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $seconds = $ENV{IDGEN_SOAK_SECONDS} // 60;
my $clients = 8;
my $rows_per_batch = 200;
srand($ENV{IDGEN_SOAK_SEED} // time);

my $node = idgen_node('soak', node_id => 5, faketime => '+0', conf => "idgen.max_lead = '1min'\n");
start_node($node);
$node->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('s', max_nodes => 256);
    CREATE TABLE ids (
        run int, batch bigint,
        sf bigint UNIQUE, v1 uuid UNIQUE, loc uuid UNIQUE, ts bigint UNIQUE, v7 uuid UNIQUE,
        v1_ticks bigint GENERATED ALWAYS AS (('x' || substr(v1::text, 16, 3) || substr(v1::text, 10, 4) || substr(v1::text, 1, 8))::bit(60)::bigint) STORED
    );
});

# A client: one autocommitted statement per batch, each printing "batch|rows" once committed.
my $dir = $node->basedir;
sub start_client {
    my ($run, $c) = @_;
    my $script = "$dir/client_${run}_$c.sql";
    open(my $fh, '>', $script) or die $!;
    for my $k (1 .. 100000) {
        my $batch = ($run * 100 + $c) * 1000000 + $k;
        print $fh "WITH ins AS (INSERT INTO ids (run, batch, sf, v1, loc, ts, v7) "
          . "SELECT $run, $batch, snowflake_next('s'), uuid_v1(), locality_uuid(), unique_timestamp(), uuid_v7() "
          . "FROM generate_series(1, $rows_per_batch) RETURNING 1) SELECT $batch, count(*) FROM ins;\n";
    }
    close $fh;
    my $out = "$dir/client_${run}_$c.out";
    my $err = "$dir/client_${run}_$c.err";
    return IPC::Run::start([ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-f', $script ],
        '>', $out, '2>', $err);
}
sub start_clients { my ($run) = @_; return map { start_client($run, $_) } 1 .. $clients; }
sub stop_clients { for (@_) { $_->kill_kill; eval { $_->finish }; } }

my ($run, $crashes, $steps) = (1, 0, 0);
my @running = start_clients($run);
my $end = time + $seconds;
while (time < $end) {
    sleep(1 + int(rand(4)));
    if (rand() < 0.4) {
        $node->stop('immediate');
        stop_clients(@running);
        start_node($node);
        $crashes++;
        $run++;
        @running = start_clients($run);
    } else {
        set_clock($node, sprintf('%+d', int(rand(41)) - 20));  # -20 .. +20 s from the real clock
        $steps++;
    }
}
set_clock($node, '+0');
stop_clients(@running);

# What the clients were told: every committed batch, and every error by SQLSTATE-free message.
my (%acknowledged, %errors);
for my $f (glob("$dir/client_*.out")) {
    for (split /\n/, slurp_file($f)) { $acknowledged{$1} = $2 if /^(\d+)\|(\d+)$/; }
}
for my $f (glob("$dir/client_*.err")) {
    for (split /\n/, slurp_file($f)) {
        next unless /ERROR:\s+(.*)/;
        (my $e = $1) =~ s/\d+/N/g;
        $errors{$e}++;
    }
}
my $duplicates = grep { /duplicate key/ } keys %errors;
is($duplicates, 0, 'no client met a unique violation');

# Every acknowledged batch is there, whole.
my %stored = map { split /\|/ } split /\n/, $node->safe_psql('postgres',
    q{SELECT batch, count(*) FROM ids GROUP BY batch});
my $lost = grep { ($stored{$_} // 0) != $acknowledged{$_} } keys %acknowledged;
is($lost, 0, 'every committed batch survived the crashes: ' . scalar(keys %acknowledged) . ' batches');

my $total = $node->safe_psql('postgres', 'SELECT count(*) FROM ids');
is($node->safe_psql('postgres',
        'SELECT count(DISTINCT sf) = count(*) AND count(DISTINCT v1) = count(*) AND count(DISTINCT loc) = count(*) AND count(DISTINCT ts) = count(*) AND count(DISTINCT v7) = count(*) FROM ids'),
    't', "all $total rows distinct in every generator");

# Each server run's values lie above the previous run's, for every generator.
for my $col ('sf', 'v1_ticks', 'ts', q{(extract(epoch FROM locality_uuid_timestamp(loc)) * 1000)::bigint}, 'v7::text') {
    is($node->safe_psql('postgres', qq{
        SELECT count(*) FROM (
            SELECT run, min($col) AS lo, lag(max($col)) OVER (ORDER BY run) AS prev_hi FROM ids GROUP BY run
        ) s WHERE lo <= prev_hi}), '0', "$col: every run above the one before");
}

diag(sprintf("soak: %d s, %d rows in %d committed batches, %d crashes, %d clock steps, %d runs",
    $seconds, $total, scalar(keys %acknowledged), $crashes, $steps, $run));
diag("errors clients saw: " . (join('; ', map { "$errors{$_} x $_" } sort keys %errors) || 'none'));
cmp_ok($crashes + $steps, '>', 0, 'the soak crashed the server or moved its clock');
$node->stop;
done_testing();
