# idgen_backfill on a table of 200,000 rows in batches of 2,000, while 4 pgbench sessions insert
# rows (their ids from the column's default) and update other columns of the existing ones:
# stopped by pg_cancel_backend, by pg_terminate_backend and by a crash, each time started again;
# held back by a standby whose replay is paused (max_replication_lag), and let go when it
# resumes; a second run refused while one runs. No pgbench transaction fails; at every stop the
# progress row counts exactly the rows filled (they commit together); at the end no id is NULL,
# none is twice, each carries its row's time, and a trigger counting every write of the id
# column shows each row written once. Then a run stopped by the primary's crash and resumed on its
# standby, promoted: the progress row came with the WAL, every row filled once.
use strict;
use warnings;
use IPC::Run;
use Time::HiRes qw(sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $ROWS = 200_000;
my $node = idgen_node('online_backfill', node_id => 5, init => { allows_streaming => 1 });
start_node($node);
$node->safe_psql('postgres', qq{
    CREATE EXTENSION idgen;
    CREATE TABLE ev (k bigserial PRIMARY KEY, created_at timestamptz NOT NULL, payload integer NOT NULL DEFAULT 0, id uuid);
    INSERT INTO ev (created_at) SELECT '2016-01-01 00:00:00+00'::timestamptz + g * interval '1.5 ms' FROM generate_series(1, $ROWS) g;
    -- Every write of the id column, by whom: "filled once" is one row here per row of ev.
    CREATE TABLE id_writes (k bigint NOT NULL, old_id uuid, new_id uuid);
    CREATE FUNCTION count_id_writes() RETURNS trigger LANGUAGE plpgsql AS \$\$
    BEGIN INSERT INTO id_writes VALUES (NEW.k, OLD.id, NEW.id); RETURN NEW; END \$\$;
    CREATE TRIGGER id_writes AFTER UPDATE ON ev FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION count_id_writes();
    -- New rows take their ids from the default (the recipe's step before the backfill).
    ALTER TABLE ev ALTER COLUMN id SET DEFAULT uuid_v7();
    ANALYZE ev;
});
$node->backup('base');
my $standby = idgen_standby($node, 'base', 'standby');
start_node($standby);

my $dir = PostgreSQL::Test::Utils::tempdir('online_backfill');
open my $f, '>', "$dir/app.sql" or die $!;
print $f "\\set k random(1, $ROWS)\nUPDATE ev SET payload = payload + 1 WHERE k = :k;\n"
  . "INSERT INTO ev (created_at) VALUES (clock_timestamp());\n";
close $f;
sub app_load {
    my ($seconds) = @_;
    my %r = (out => '', err => '');
    $r{h} = IPC::Run::start(
        [ 'pgbench', '-n', '-h', $node->host, '-p', $node->port, '-c', '4', '-j', '2', '-T', $seconds,
          '-f', "$dir/app.sql", 'postgres' ],
        '>', \$r{out}, '2>', \$r{err});
    return \%r;
}
sub app_done {
    my ($r, $what) = @_;
    $r->{h}->finish;
    is($r->{h}->result(0), 0, "$what: pgbench ended well") or diag($r->{err});
    like($r->{out}, qr/number of failed transactions: 0 /, "$what: no transaction failed");
    unlike($r->{out} . $r->{err}, qr/ERROR|abort/, "$what: no session saw an error");
}

my $CALL = q{CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'created_at', batch_rows => 2000, pause => '30 ms'};
sub start_run {
    my ($extra) = @_;
    my %r = (out => '', err => '');
    $r{h} = IPC::Run::start(
        [ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c', $CALL . ($extra // '') . ')' ],
        '>', \$r{out}, '2>', \$r{err});
    return \%r;
}
sub progress { $node->safe_psql('postgres', "SELECT $_[0] FROM idgen_backfill_progress WHERE relation = 'ev'::regclass") }
sub wait_rows {
    my ($rows) = @_;
    $node->poll_query_until('postgres',
        "SELECT rows_done >= $rows AND state = 'first pass' FROM idgen_backfill_progress WHERE relation = 'ev'::regclass")
      or die "the run did not reach $rows rows";
}
# The progress row and the rows filled commit together, whatever stopped the run.
sub progress_matches_data {
    my ($what) = @_;
    my ($done, $writes, $filled) = split /\|/, $node->safe_psql('postgres', qq{
        SELECT (SELECT rows_done FROM idgen_backfill_runs WHERE relation = 'ev'::regclass),
               (SELECT count(*) FROM id_writes), (SELECT count(*) FROM ev WHERE k <= $ROWS AND id IS NOT NULL)});
    is($writes, $done, "$what: the progress row counts every row filled ($done)");
    is($filled, $done, "$what: as many rows of the table hold an id");
}

# 1. Canceled, then terminated, under the application's load.
my $app = app_load(20);
my $run = start_run();
wait_rows(20_000);
my $pid = progress('pid');
$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
$run->{h}->finish;
like($run->{err}, qr/canceling statement due to user request/, 'pg_cancel_backend stops the run');
is(progress('state'), 'stopped', 'the view shows it stopped');
progress_matches_data('after the cancel');

$run = start_run();
wait_rows(60_000);
$pid = progress('pid');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
$run->{h}->finish;
like($run->{err}, qr/terminating connection/, 'pg_terminate_backend stops the run');
is(progress('state'), 'stopped', 'the view shows it stopped');
progress_matches_data('after the terminate');
app_done($app, 'cancel and terminate');

# 2. A crash.
$run = start_run();
wait_rows(100_000);
$node->stop('immediate');
$run->{h}->finish;
start_node($node);
is(progress('state'), 'stopped', 'after the crash: stopped');
progress_matches_data('after the crash');

# 3. Held back by a standby that replays nothing; a second run meanwhile refused; let go once it
#    replays again. The bound is on bytes of WAL not replayed: pg_stat_replication.replay_lsn
#    stays where replay paused while the standby goes on receiving.
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
$standby->safe_psql('postgres', 'SELECT pg_wal_replay_pause()');
$app = app_load(25);
$run = start_run(q{, max_replication_lag => pg_size_bytes('4MB')});
$node->poll_query_until('postgres', q{SELECT state = 'waiting for replicas' FROM idgen_backfill_progress WHERE relation = 'ev'::regclass})
  or die 'the run never waited for the standby';
my $held = progress('rows_done');
sleep(3);
is(progress('rows_done'), $held, "while the standby replays nothing the run fills nothing (at $held rows)");
my ($lag, $sent_ahead) = split /\|/, $node->safe_psql('postgres', q{
    SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), pg_wal_lsn_diff(write_lsn, replay_lsn) FROM pg_stat_replication});
cmp_ok($lag, '>', 4 * 1024 * 1024, "the standby is $lag bytes behind in replay");
note("the standby has received $sent_ahead bytes more than it replayed");
my $second = $node->psql('postgres', $CALL . ')', stderr => \my $second_err, extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($second_err, qr/55006: idgen_backfill: column id of public.ev is being backfilled by process \d+/, 'a second run is refused (55006) while one runs');
$standby->safe_psql('postgres', 'SELECT pg_wal_replay_resume()');
$run->{h}->finish;
is($run->{h}->result(0), 0, 'once the standby replays, the run finishes') or diag($run->{err});
like($run->{err}, qr/bytes behind \(max_replication_lag 4194304\): waiting/, 'it said what it waited for');
app_done($app, 'the wait for the standby');

# 4. Every row filled, once, with an id of its own time.
my ($state, $waits) = split /\|/, progress('state, lag_waits');
is($state, 'done', 'the run is done');
cmp_ok($waits, '>=', 1, "it waited $waits times for the standby");
is($node->safe_psql('postgres', 'SELECT count(*) FROM ev WHERE id IS NULL'), '0', 'no id is NULL');
my ($all, $apps) = split /\|/, $node->safe_psql('postgres', qq{SELECT count(*), count(*) FILTER (WHERE k > $ROWS) FROM ev});
cmp_ok($apps, '>', 1000, "the application inserted $apps rows meanwhile");
is($node->safe_psql('postgres', 'SELECT count(*) - count(DISTINCT id) FROM ev'), '0', "no id twice among $all");
is($node->safe_psql('postgres', qq{SELECT count(*) FROM ev WHERE k <= $ROWS AND uuid_v7_timestamp(id) <> created_at}),
   '0', 'each backfilled id carries its row\'s time');
my ($writes, $rows_written, $most, $not_from_null) = split /\|/, $node->safe_psql('postgres', q{
    SELECT count(*), count(DISTINCT k), max(n), sum(n) FILTER (WHERE NOT from_null)
    FROM (SELECT k, count(*) AS n, bool_and(old_id IS NULL) AS from_null FROM id_writes GROUP BY k) w});
is($rows_written, $ROWS, 'every row was filled');
is($most, 1, "each row was written once ($writes writes in all)");
ok(!$not_from_null, 'and only from NULL');
is(progress('rows_done'), $ROWS, 'the progress row counts them all');

# 5. A promotion mid-run: the primary stopped at once, its standby promoted, the same CALL there.
#    The progress row travels in the WAL with the rows it counts, so the promoted server resumes
#    after the last batch it replayed, and no row is filled twice.
$node->safe_psql('postgres', qq{
    CREATE TABLE ev2 (k bigserial PRIMARY KEY, created_at timestamptz NOT NULL, id uuid);
    INSERT INTO ev2 (created_at) SELECT '2017-01-01 00:00:00+00'::timestamptz + g * interval '1.5 ms' FROM generate_series(1, $ROWS) g;
    CREATE TABLE id2_writes (k bigint NOT NULL, old_id uuid);
    CREATE FUNCTION count_id2_writes() RETURNS trigger LANGUAGE plpgsql AS \$\$
    BEGIN INSERT INTO id2_writes VALUES (NEW.k, OLD.id); RETURN NEW; END \$\$;
    CREATE TRIGGER id2_writes AFTER UPDATE ON ev2 FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION count_id2_writes();
    ANALYZE ev2;
});
my $CALL2 = q{CALL idgen_backfill('ev2', 'id', 'uuid_v7_at', 'created_at', batch_rows => 2000, pause => '30 ms')};
my %r2 = (out => '', err => '');
$r2{h} = IPC::Run::start([ 'psql', '-X', '-d', $node->connstr('postgres'), '-c', $CALL2 ], '>', \$r2{out}, '2>', \$r2{err});
$node->poll_query_until('postgres', q{SELECT rows_done >= 60000 FROM idgen_backfill_runs WHERE relation = 'ev2'::regclass})
  or die 'the run on ev2 did not reach 60,000 rows';
$node->stop('immediate');
$r2{h}->finish;
$standby->promote;
my ($replayed, $writes2, $filled2) = split /\|/, $standby->safe_psql('postgres', qq{
    SELECT (SELECT rows_done FROM idgen_backfill_runs WHERE relation = 'ev2'::regclass),
           (SELECT count(*) FROM id2_writes), (SELECT count(*) FROM ev2 WHERE id IS NOT NULL)});
cmp_ok($replayed, '>', 0, "the promoted standby has the progress row ($replayed rows done)");
is($filled2, $replayed, 'counting exactly the rows it holds filled');
$standby->safe_psql('postgres', $CALL2);
my ($state2, $done2, $nulls2, $twice2, $writers2, $most2, $not_null2) = split /\|/, $standby->safe_psql('postgres', q{
    SELECT (SELECT phase FROM idgen_backfill_runs WHERE relation = 'ev2'::regclass),
           (SELECT rows_done FROM idgen_backfill_runs WHERE relation = 'ev2'::regclass),
           (SELECT count(*) FROM ev2 WHERE id IS NULL), (SELECT count(*) - count(DISTINCT id) FROM ev2),
           (SELECT count(DISTINCT k) FROM id2_writes), (SELECT max(n) FROM (SELECT count(*) AS n FROM id2_writes GROUP BY k) w),
           (SELECT count(*) FROM id2_writes WHERE old_id IS NOT NULL)});
is($state2, 'done', 'the same CALL on the promoted server finishes the run');
is($done2, $ROWS, 'its progress row counts every row');
is($nulls2, '0', 'no id is NULL');
is($twice2, '0', 'no id twice');
is($writers2, $ROWS, 'every row was filled');
is($most2, 1, 'each once');
is($not_null2, '0', 'and only from NULL');
$standby->stop;
done_testing();
