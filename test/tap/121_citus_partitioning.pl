# Time partitioning on Citus: a distributed table range-partitioned by the time inside its
# version-7 UUID key (daily bounds from uuid_v7_min, as docs/partitioning.md shows for one
# server), filled with live ids (the column default, on the coordinator and, by an INSERT ...
# SELECT pushed down, on the workers) and with backfilled ones (uuid_v7_at on each shard). On
# every worker every row lies in the partition of its id's day, none in the default partition,
# and a query for the last hour scans one partition per shard.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;
use IdgenCitus;

plan skip_all => 'Citus is not installed (scripts/citus builds it)' unless citus_installed();

my ($coordinator, $w1, $w2) = citus_cluster(1, 11, 12);

# Partitions for yesterday, today and tomorrow (UTC days), and a default one that must stay empty.
$coordinator->safe_psql('postgres', q{
    SET TIME ZONE 'UTC';
    CREATE TABLE events (k int NOT NULL, created_at timestamptz NOT NULL, id uuid NOT NULL DEFAULT uuid_v7())
        PARTITION BY RANGE (id);
    DO $$
    DECLARE d date;
    BEGIN
        FOR i IN -1 .. 1 LOOP
            d := current_date + i;
            EXECUTE format('CREATE TABLE events_%s PARTITION OF events FOR VALUES FROM (%L) TO (%L)',
                           to_char(d, 'YYYYMMDD'), uuid_v7_min(d::timestamptz), uuid_v7_min((d + 1)::timestamptz));
        END LOOP;
    END $$;
    CREATE TABLE events_other PARTITION OF events DEFAULT;
    SELECT create_distributed_table('events', 'k');
    CREATE TABLE source (k int NOT NULL, created_at timestamptz NOT NULL);
    SELECT create_distributed_table('source', 'k', colocate_with => 'events');
    INSERT INTO source SELECT g, now() - (g % 47) * interval '1 hour' FROM generate_series(1, 3000) g;
});

# Live ids: three on the coordinator, 3,000 made on the workers (a colocated INSERT ... SELECT
# is pushed down); then backfilled ids of the source's times, on each shard of the workers.
$coordinator->safe_psql('postgres', q{
    INSERT INTO events (k, created_at) VALUES (1, now()), (2, now()), (3, now());
    INSERT INTO events (k, created_at) SELECT k, now() FROM source;
    INSERT INTO events (k, created_at, id) SELECT k, created_at, '00000000-0000-7000-8000-000000000000' FROM source
        WHERE created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 day';
});
my $moved = $coordinator->safe_psql('postgres', q{
    SELECT string_agg(result, '; ') FROM run_command_on_shards('events',
        $$UPDATE %s SET id = uuid_v7_at(created_at) WHERE id = '00000000-0000-7000-8000-000000000000'$$)
    WHERE NOT success});
is($moved, '', 'the backfill ran on every shard, moving each row to the partition of its time');

# (tableoid is read on the worker: the shard of a partition, events_YYYYMMDD_<shard id>.)
is($coordinator->safe_psql('postgres', q{
    SELECT count(*) FILTER (WHERE split_part(tableoid::regclass::text, '_', 2) = 'other'),
           count(*) FILTER (WHERE to_char(uuid_v7_timestamp(id) AT TIME ZONE 'UTC', 'YYYYMMDD')
                                  <> split_part(tableoid::regclass::text, '_', 2)),
           count(*) > 3003
    FROM events}), '0|0|t', 'every row in the partition of its id\'s day, none in the default one');
is($coordinator->safe_psql('postgres', q{SELECT count(DISTINCT id) = count(*) FROM events}), 't', 'no id twice');
for my $w ($w1, $w2) {
    is($w->safe_psql('postgres', q{
        SELECT count(*) > 0 FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid
        WHERE c.relname LIKE 'events_2%' AND c.relkind = 'r'}), 't', $w->name . ' holds partitions of the shards');
}

# The last hour (bounded on both sides, or tomorrow's and the default partition stay in): each
# worker prunes its shards' partitions when the scan starts (now() is evaluated there), leaving
# the partition of today (and yesterday's too in the first hour of a UTC day).
my $plan = $coordinator->safe_psql('postgres', q{
    SET citus.explain_all_tasks = on;
    EXPLAIN (COSTS OFF) SELECT count(*) FROM events
        WHERE id >= uuid_v7_min(now() - interval '1 hour') AND id < uuid_v7_min(now() + interval '1 second')});
my @scans = $plan =~ /Scan(?: using \S+)? on (events_\w+?)_\d+ /g;
my %days = map { ("events_$_" => 1) } split /\n/, $coordinator->safe_psql('postgres', q{
    SELECT DISTINCT to_char(t AT TIME ZONE 'UTC', 'YYYYMMDD') FROM unnest(ARRAY[now() - interval '1 hour', now()]) t});
my $tasks = () = $plan =~ /-> +Task/g;
ok($tasks > 0 && @scans == $tasks * keys(%days) && !grep({ !$days{$_} } @scans),
    "a query for the last hour scans only the partition of its day in each shard ($tasks tasks)")
    or diag($plan);

done_testing();
