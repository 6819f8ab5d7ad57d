# idgen_backfill on a Citus distributed table, called on the coordinator: 20,000 rows over 2
# workers (8 shards), 2,000 of them with an id already, filled shard by shard in batches of 500,
# each batch made on the worker that holds the shard (its ids carry that worker's node id, so no
# two workers make the same one); canceled on the coordinator mid-run and resumed with the same
# CALL. At every stop each worker's progress rows count exactly the rows filled there (they
# commit together), the coordinator's at most one batch fewer; at the end every NULL is filled,
# the ids that were there are kept, no id is twice, each carries its row's time and its worker's
# node id, and the coordinator's progress view says done with every shard. A distributed table
# partitioned by time (3 partitions of 8 shards each) is filled the same way, partition by
# partition, canceled and resumed: every row once, the ids filled before the cancel kept. With
# max_replication_lag the run waits while a streaming standby of the worker of the next batch is
# paused in replay (no batch on that worker meanwhile), and goes on once it replays; a role that
# cannot read that worker's standbys is refused (42501, the worker named), and a worker that cannot
# answer stops the run (08000, the worker named). An error on a worker
# (a row without a time) reaches the coordinator with its SQLSTATE and the shard named; a
# reference table is refused.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;
use IdgenCitus;

plan skip_all => 'Citus is not installed (scripts/citus builds it)' unless citus_installed();

my $ROWS = 20_000;
my ($ret, $out, $err);
my ($coordinator, $w1, $w2) = citus_cluster(undef, undef, undef);
$coordinator->safe_psql('postgres', qq{
    CREATE TABLE ev (k bigint PRIMARY KEY, created_at timestamptz NOT NULL, id uuid);
    SELECT create_distributed_table('ev', 'k');
    INSERT INTO ev (k, created_at) SELECT g, '2016-01-01 00:00:00+00'::timestamptz + g * interval '1.5 ms' FROM generate_series(1, $ROWS) g;
    -- Ids that are there before the run (made on the coordinator, node id 0) must stay.
    CREATE TABLE before_run (k bigint PRIMARY KEY, id uuid NOT NULL);
    SELECT create_reference_table('before_run');
    INSERT INTO before_run SELECT k, uuid_v7() FROM generate_series(10, $ROWS, 10) k;
    UPDATE ev SET id = b.id FROM before_run b WHERE ev.k = b.k;
});
my $NULLS = $ROWS - $ROWS / 10;

my $CALL = q{CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'created_at', batch_rows => 500, pause => '20 ms'};
# A CALL in a psql of its own, running on while the test looks.
sub start_call {
    my ($sql) = @_;
    my %r = (out => '', err => '');
    $r{h} = IPC::Run::start(
        [ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d', $coordinator->connstr('postgres'), '-c', $sql ],
        '>', \$r{out}, '2>', \$r{err});
    return \%r;
}
# Cancels a run (start_call) on the coordinator, its backend $pid, and waits for it to end. A batch
# the worker was running when the cancel came ends there (committed or not) on its own.
sub cancel_run {
    my ($r, $pid) = @_;
    $coordinator->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
    $r->{h}->finish;
    $coordinator->poll_query_until('postgres', q{SELECT sum(result::int) = 0 FROM run_command_on_workers(
        $$SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%_backfill_shard(%' AND pid <> pg_backend_pid()$$)})
      or die 'a worker still runs a batch';
}
# Columns of the coordinator's progress view for a table (progress: for ev).
sub progress_of { $coordinator->safe_psql('postgres', "SELECT $_[1] FROM idgen_backfill_progress WHERE relation = '$_[0]'::regclass") }
sub progress { progress_of('ev', $_[0]) }
sub filled { $coordinator->safe_psql('postgres', 'SELECT count(*) FROM ev WHERE id IS NOT NULL AND k % 10 <> 0') }
# The rows each worker's shard rows count, summed over the workers.
sub workers_count {
    return $coordinator->safe_psql('postgres', q{
        SELECT sum(result::bigint) FROM run_command_on_workers(
            $$SELECT coalesce(sum(rows_done), 0) FROM idgen_backfill_runs WHERE relation::text LIKE 'ev\_%'$$)});
}

# ---- canceled on the coordinator mid-run -----------------------------------------------------------
my $run = start_call($CALL . ')');
$coordinator->poll_query_until('postgres', q{SELECT rows_done >= 6000 FROM idgen_backfill_progress WHERE relation = 'ev'::regclass})
  or die 'the run did not reach 6,000 rows';
is(progress('state'), 'first pass', 'the coordinator shows the run in its first pass');
like(progress('shard'), qr/^\d+$/, 'and the shard it is in');
cancel_run($run, progress('pid'));
like($run->{err}, qr/canceling statement due to user request/, 'pg_cancel_backend on the coordinator stops the run');
is(progress('state'), 'stopped', 'the view shows it stopped');
my ($done, $filled, $on_workers) = (progress('rows_done'), filled(), workers_count());
cmp_ok($filled, '<', $NULLS, "it stopped part way ($filled of $NULLS rows filled)");
is($on_workers, $filled, 'the workers\' progress rows count exactly the rows filled on them');
ok($done <= $filled && $filled - $done <= 500, "the coordinator's count ($done) is at most one batch behind");

# ---- resumed with the same CALL ---------------------------------------------------------------------
$run = start_call($CALL . ')');
$run->{h}->finish;
is($run->{h}->result(0), 0, 'the same CALL resumes and finishes') or diag($run->{err});
my ($state, $rows_done, $shard, $shards_done) = split /\|/, progress('state, rows_done, shard, cardinality(shards_done)');
is($state, 'done', 'the coordinator\'s progress view: done');
is($rows_done, $NULLS, 'counting every row filled');
is($shards_done, 8, 'with every shard finished');
is($shard, '', 'and no shard current');
is(workers_count(), $NULLS, 'the workers count as many');
is($coordinator->safe_psql('postgres', 'SELECT count(*) FROM idgen_backfill_runs'), '1', 'the coordinator keeps one progress row');
is(join(',', map { $_->safe_psql('postgres', q{SELECT string_agg(DISTINCT phase, ',') FROM idgen_backfill_runs}) } $w1, $w2), 'done,done',
   'each worker keeps its shards\' rows, done');

# ---- every row filled once, on its worker, with its row's time ---------------------------------------
is($coordinator->safe_psql('postgres', 'SELECT count(*) FROM ev WHERE id IS NULL'), '0', 'no id is NULL');
is($coordinator->safe_psql('postgres', 'SELECT count(*) FROM ev JOIN before_run b USING (k) WHERE ev.id <> b.id'), '0',
   'the ids there before the run are kept');
is($coordinator->safe_psql('postgres', 'SELECT count(*) - count(DISTINCT id) FROM ev'), '0', "no id twice among $ROWS");
is($coordinator->safe_psql('postgres', q{SELECT count(*) FROM ev WHERE k % 10 <> 0 AND uuid_v7_timestamp(id) <> created_at}),
   '0', 'each backfilled id carries its row\'s time');
# The node id sits in the 13 bits after the variant (docs/functions.md); with node ids from Citus
# it is the group of the worker that made it.
is($coordinator->safe_psql('postgres', q{
    SELECT count(DISTINCT p.groupid), count(*) FILTER (WHERE ('x' || substr(e.id::text, 20, 4))::bit(16)::integer & 8191 <> p.groupid)
    FROM ev e JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('ev', e.k)
    WHERE e.k % 10 <> 0}), '2|0',
   'each id was made on the worker that holds its row (its node id is that worker\'s group)');

# ---- called again: nothing left to fill --------------------------------------------------------------
$coordinator->safe_psql('postgres', $CALL . ')');
is(progress('state || rows_done'), 'done0', 'a second CALL fills nothing (the final pass over every shard)');

# ---- a distributed table partitioned by time: partition by partition, shard by shard ----------------------
$coordinator->safe_psql('postgres', q{
    CREATE TABLE pev (k bigint NOT NULL, created_at timestamptz NOT NULL, id uuid, PRIMARY KEY (k, created_at))
        PARTITION BY RANGE (created_at);
    CREATE TABLE pev_2015 PARTITION OF pev FOR VALUES FROM ('2015-01-01 00:00:00+00') TO ('2016-01-01 00:00:00+00');
    CREATE TABLE pev_2016 PARTITION OF pev FOR VALUES FROM ('2016-01-01 00:00:00+00') TO ('2017-01-01 00:00:00+00');
    CREATE TABLE pev_2017 PARTITION OF pev FOR VALUES FROM ('2017-01-01 00:00:00+00') TO ('2018-01-01 00:00:00+00');
    SELECT create_distributed_table('pev', 'k');
    INSERT INTO pev (k, created_at)
    SELECT g, '2015-01-01 00:00:00+00'::timestamptz + (g % 3) * interval '1 year' + g * interval '1 second' FROM generate_series(1, 6000) g;
});
my $PCALL = q{CALL idgen_backfill('pev', 'id', 'uuid_v7_at', 'created_at', batch_rows => 100, pause => '10 ms')};
my $prun = start_call($PCALL);
$coordinator->poll_query_until('postgres',
    q{SELECT rows_done >= 2500 OR state IN ('done', 'stopped') FROM idgen_backfill_progress WHERE relation = 'pev'::regclass})
  or die 'the run of pev neither reached 2,500 rows nor ended';
is(progress_of('pev', 'partition'), 'pev_2016', 'the view shows the partition the run is in');
cancel_run($prun, progress_of('pev', 'pid'));
like($prun->{err}, qr/canceling statement due to user request/, 'pev: canceled on the coordinator');
$coordinator->safe_psql('postgres', 'CREATE TABLE pev_at_cancel AS SELECT k, id FROM pev WHERE id IS NOT NULL');
my $at_cancel = $coordinator->safe_psql('postgres', 'SELECT count(*) FROM pev_at_cancel');
ok($at_cancel > 0 && $at_cancel < 6000, "pev: stopped part way ($at_cancel of 6000 rows filled)");
$prun = start_call($PCALL);
$prun->{h}->finish;
is($prun->{h}->result(0), 0, 'pev: the same CALL resumes and finishes') or diag($prun->{err});
is(progress_of('pev', 'state || rows_done || cardinality(shards_done)'), 'done600024', 'pev: done, every row counted, 24 shards (3 partitions of 8)');
is($coordinator->safe_psql('postgres', q{
    SELECT sum(result::bigint) FROM run_command_on_workers(
        $$SELECT coalesce(sum(rows_done), 0) FROM idgen_backfill_runs WHERE relation::text LIKE 'pev\_%'$$)}), '6000',
   'pev: the workers count each row once');
is($coordinator->safe_psql('postgres', q{
    SELECT count(*) FILTER (WHERE id IS NULL), count(*) - count(DISTINCT id), count(*) FILTER (WHERE uuid_v7_timestamp(id) <> created_at)
    FROM pev}) . '|' . $coordinator->safe_psql('postgres', q{SELECT count(*) FROM pev_at_cancel c JOIN pev p USING (k) WHERE p.id <> c.id}),
   '0|0|0|0', 'pev: no id NULL, none twice, each of its row\'s time, those filled before the cancel kept');
is($coordinator->safe_psql('postgres', q{
    SELECT count(DISTINCT p.groupid), count(*) FILTER (WHERE ('x' || substr(e.id::text, 20, 4))::bit(16)::integer & 8191 <> p.groupid)
    FROM pev e JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('pev', e.k)}), '2|0',
   'pev: each id made on the worker that holds its row');
is(join('|', map { $coordinator->safe_psql('postgres', "SELECT count(*) FROM $_ WHERE id IS NOT NULL") } qw(pev_2015 pev_2016 pev_2017)),
   '2000|2000|2000', 'pev: every row of each partition filled');

# ---- max_replication_lag: the standbys of the worker of the next batch ---------------------------------
# worker1 gets a streaming standby whose replay is paused: the run waits before each batch on
# worker1's shards while that standby is more than the bound behind worker1's WAL.
my $w1_standby = citus_standby($w1, 'w1_standby');
start_node($w1_standby);
$coordinator->safe_psql('postgres', q{
    CREATE TABLE lagged (k bigint PRIMARY KEY, created_at timestamptz NOT NULL, id uuid);
    SELECT create_distributed_table('lagged', 'k');
    INSERT INTO lagged (k, created_at) SELECT g, '2016-01-01 00:00:00+00'::timestamptz + g * interval '1.5 ms' FROM generate_series(1, 8000) g;
});
my $w1_group = $w1->safe_psql('postgres', 'SELECT groupid FROM pg_dist_local_group');
sub on_w1 {   # rows filled on worker1, its batches there
    return $coordinator->safe_psql('postgres', qq{
        SELECT count(*) FROM lagged l JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('lagged', l.k)
        WHERE p.groupid = $w1_group AND l.id IS NOT NULL})
      . '|' . $w1->safe_psql('postgres', q{SELECT coalesce(sum(batches), 0) FROM idgen_backfill_runs WHERE relation::text LIKE 'lagged\_%'});
}
$w1->wait_for_catchup($w1_standby, 'replay', $w1->lsn('insert'));
$w1_standby->safe_psql('postgres', 'SELECT pg_wal_replay_pause()');
my $LCALL = q{CALL idgen_backfill('lagged', 'id', 'uuid_v7_at', 'created_at', batch_rows => 500, max_replication_lag => 16384)};
my $lrun = start_call($LCALL);
$coordinator->poll_query_until('postgres',
    q{SELECT state IN ('waiting for replicas', 'done', 'stopped') FROM idgen_backfill_progress WHERE relation = 'lagged'::regclass})
  or die 'the run of lagged neither waited nor ended';
is(progress_of('lagged', 'state'), 'waiting for replicas', 'the run waits for the paused standby of worker1');
my $held = on_w1();
my $rows_held = progress_of('lagged', 'rows_done');
sleep(3);
is(on_w1(), $held, "no batch on worker1 while its standby replays nothing (rows filled there, batches: $held)");
is(progress_of('lagged', 'rows_done'), $rows_held, "nor anywhere (the run stays before that batch, at $rows_held rows)");
my $behind = $w1->safe_psql('postgres', q{SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) FROM pg_stat_replication});
cmp_ok($behind, '>', 16384, "worker1's standby is $behind bytes behind in replay");
$w1_standby->safe_psql('postgres', 'SELECT pg_wal_replay_resume()');
$lrun->{h}->finish;
is($lrun->{h}->result(0), 0, 'once the standby replays, the run finishes') or diag($lrun->{err});
my $w1_port = $w1->port;
like($lrun->{err}, qr/idgen_backfill: standby w1_standby \(pid \d+\) of worker 127\.0\.0\.1:$w1_port is \d+ bytes behind \(max_replication_lag 16384\): waiting/,
     'it said which worker\'s standby it waited for');
my ($lstate, $lwaits, $lwaited, $lnulls) = split /\|/, $coordinator->safe_psql('postgres', q{
    SELECT state, lag_waits, lag_waited > interval '2 seconds', (SELECT count(*) FROM lagged WHERE id IS NULL)
    FROM idgen_backfill_progress WHERE relation = 'lagged'::regclass});
is("$lstate|$lnulls", 'done|0', 'lagged: done, no id NULL');
cmp_ok($lwaits, '>', 0, "it counted $lwaits waits for the replicas");
is($lwaited, 't', 'and the time waited');
$w1_standby->stop;

# ---- max_replication_lag: the role must read the workers' standbys --------------------------------------
$coordinator->safe_psql('postgres', q{
    CREATE ROLE lagger LOGIN;
    GRANT pg_read_all_stats TO lagger;
    CREATE TABLE lagger_t (k bigint PRIMARY KEY, created_at timestamptz NOT NULL, id uuid);
    SELECT create_distributed_table('lagger_t', 'k');
    ALTER TABLE lagger_t OWNER TO lagger;
    INSERT INTO lagger_t (k, created_at) SELECT g, now() FROM generate_series(1, 100) g;
});
# Citus gave the GRANT to the workers too; taken back on worker2 alone (a worker's own DDL would go
# to every node).
is(join('|', map { $_->safe_psql('postgres', q{SELECT pg_has_role('lagger', 'pg_read_all_stats', 'USAGE')}) } $w1, $w2), 't|t',
   'Citus propagated GRANT pg_read_all_stats to the workers');
$w2->safe_psql('postgres', 'SET citus.enable_ddl_propagation = off; REVOKE pg_read_all_stats FROM lagger');
my $w2_port = $w2->port;
($ret, $out, $err) = $coordinator->psql('postgres',
    "SET ROLE lagger;\nCALL idgen_backfill('lagger_t', 'id', 'uuid_v7_at', 'created_at', max_replication_lag => 16384)",
    extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:  42501: idgen_backfill: max_replication_lag needs to read the standbys' replay positions \(shard \d+ of public\.lagger_t on 127\.0\.0\.1:$w2_port\)/,
     'a role that cannot read a worker\'s standbys: 42501 naming the worker, before the run');
is($coordinator->safe_psql('postgres', q{SELECT count(*) FROM lagger_t WHERE id IS NOT NULL}), '0', 'and nothing filled');

# ---- an error on a worker reaches the coordinator with its SQLSTATE --------------------------------------
$coordinator->safe_psql('postgres', q{
    CREATE TABLE untimed (k bigint PRIMARY KEY, created_at timestamptz, id uuid);
    SELECT create_distributed_table('untimed', 'k');
    INSERT INTO untimed (k, created_at) SELECT g, CASE WHEN g <> 77 THEN now() END FROM generate_series(1, 200) g;
});
($ret, $out, $err) = $coordinator->psql('postgres', q{CALL idgen_backfill('untimed', 'id', 'uuid_v7_at', 'created_at', batch_rows => 10)},
                                           extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:  22004: .* \(shard \d+ of public\.untimed on 127\.0\.0\.1:\d+\)/, 'a row without a time: 22004 from its worker, the shard named');

# ---- a reference table: refused ------------------------------------------------------------------------
$coordinator->safe_psql('postgres', q{
    CREATE TABLE ref (k int PRIMARY KEY, created_at timestamptz NOT NULL, id uuid);
    SELECT create_reference_table('ref');
});
($ret, $out, $err) = $coordinator->psql('postgres', q{CALL idgen_backfill('ref', 'id', 'uuid_v7_at', 'created_at')},
                                        extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:  0A000: idgen_backfill: public\.ref is a Citus table with several copies of a shard.*HINT:  Run Citus's UPDATE with the ids made on the coordinator/s,
     'a reference table is refused (0A000), the HINT giving the UPDATE that keeps its copies the same');

# ---- a worker that cannot answer the lag check: 08000 naming it ------------------------------------------
$w2->stop;
($ret, $out, $err) = $coordinator->psql('postgres', q{CALL idgen_backfill('lagged', 'id', 'uuid_v7_at', 'created_at', max_replication_lag => 16384)},
                                        extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:  08000: idgen_backfill: could not work on shard \d+ of public\.lagged on 127\.0\.0\.1:$w2_port: /,
     'a worker that cannot answer the lag check: 08000 naming it');

done_testing();
