# idgen_backfill on a Citus distributed table, called on the coordinator: 20,000 rows over 2
# workers (8 shards), 2,000 of them with an id already, filled shard by shard in batches of 500,
# each batch made on the worker that holds the shard (its ids carry that worker's node id, so no
# two workers make the same one); canceled on the coordinator mid-run and resumed with the same
# CALL. At every stop each worker's progress rows count exactly the rows filled there (they
# commit together), the coordinator's at most one batch fewer; at the end every NULL is filled,
# the ids that were there are kept, no id is twice, each carries its row's time and its worker's
# node id, and the coordinator's progress view says done with every shard. An error on a worker
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
sub start_run {
    my %r = (out => '', err => '');
    $r{h} = IPC::Run::start(
        [ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-d', $coordinator->connstr('postgres'), '-c', $CALL . ')' ],
        '>', \$r{out}, '2>', \$r{err});
    return \%r;
}
sub progress { $coordinator->safe_psql('postgres', "SELECT $_[0] FROM idgen_backfill_progress WHERE relation = 'ev'::regclass") }
sub filled { $coordinator->safe_psql('postgres', 'SELECT count(*) FROM ev WHERE id IS NOT NULL AND k % 10 <> 0') }
# The rows each worker's shard rows count, summed over the workers.
sub workers_count {
    return $coordinator->safe_psql('postgres', q{
        SELECT sum(result::bigint) FROM run_command_on_workers(
            $$SELECT coalesce(sum(rows_done), 0) FROM idgen_backfill_runs WHERE relation::text LIKE 'ev\_%'$$)});
}

# ---- canceled on the coordinator mid-run -----------------------------------------------------------
my $run = start_run();
$coordinator->poll_query_until('postgres', q{SELECT rows_done >= 6000 FROM idgen_backfill_progress WHERE relation = 'ev'::regclass})
  or die 'the run did not reach 6,000 rows';
is(progress('state'), 'first pass', 'the coordinator shows the run in its first pass');
like(progress('shard'), qr/^\d+$/, 'and the shard it is in');
$coordinator->safe_psql('postgres', 'SELECT pg_cancel_backend(' . progress('pid') . ')');
$run->{h}->finish;
like($run->{err}, qr/canceling statement due to user request/, 'pg_cancel_backend on the coordinator stops the run');
# A batch the worker was running when the cancel came ends there (committed or not) on its own.
$coordinator->poll_query_until('postgres', q{SELECT sum(result::int) = 0 FROM run_command_on_workers(
    $$SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%_backfill_shard(%' AND pid <> pg_backend_pid()$$)})
  or die 'a worker still runs a batch';
is(progress('state'), 'stopped', 'the view shows it stopped');
my ($done, $filled, $on_workers) = (progress('rows_done'), filled(), workers_count());
cmp_ok($filled, '<', $NULLS, "it stopped part way ($filled of $NULLS rows filled)");
is($on_workers, $filled, 'the workers\' progress rows count exactly the rows filled on them');
ok($done <= $filled && $filled - $done <= 500, "the coordinator's count ($done) is at most one batch behind");

# ---- resumed with the same CALL ---------------------------------------------------------------------
$run = start_run();
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

# ---- an error on a worker reaches the coordinator with its SQLSTATE --------------------------------------
$coordinator->safe_psql('postgres', q{
    CREATE TABLE untimed (k bigint PRIMARY KEY, created_at timestamptz, id uuid);
    SELECT create_distributed_table('untimed', 'k');
    INSERT INTO untimed (k, created_at) SELECT g, CASE WHEN g <> 77 THEN now() END FROM generate_series(1, 200) g;
});
my ($ret, $out, $err) = $coordinator->psql('postgres', q{CALL idgen_backfill('untimed', 'id', 'uuid_v7_at', 'created_at', batch_rows => 10)},
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

done_testing();
