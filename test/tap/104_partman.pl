# pg_partman managing tables keyed by idgen's ids, as its users run it: daily partitions made by
# create_parent() and ahead of time by run_maintenance(), and rows, backfilled for past days and
# live from the column default, in the partition of the time inside their id.
#  - Snowflake ids, on every pg_partman (4.7, Debian 12's package, on 15; 5 on 17 and 18): an
#    integer control column whose interval is one day's worth of ids, snowflake_min_id of the
#    epoch plus a day, so that partitions start at the epoch's midnights.
#  - Version-7 UUIDs, on pg_partman 5 (its time encoder and decoder for uuid columns):
#    uuid_v7_min encodes, uuid_v7_timestamp decodes through a one-line wrapper that takes text,
#    which is what pg_partman passes it.
# Skipped, with a message, only where pg_partman is not installed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $node = idgen_node('partman', node_id => 3, conf => "timezone = 'UTC'\n");
start_node($node);
my $partman = $node->safe_psql('postgres', q{SELECT default_version FROM pg_available_extensions WHERE name = 'pg_partman'});
if ($partman eq '') {
    $node->stop;
    plan skip_all => 'pg_partman not installed (Debian package postgresql-15-partman on 15; scripts/postgres builds it into 17 and 18)';
}
my ($partman_major) = $partman =~ /^(\d+)/;
note("pg_partman $partman");
$node->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    CREATE SCHEMA partman;
    CREATE EXTENSION pg_partman SCHEMA partman;
});

# Where the rows of `parent` went and what pg_partman made, against the time inside each id:
# `key_time` is the time inside a row's id, `start_time`/`end_time` a partition's bounds as
# times (the end exclusive), from show_partition_info()'s columns (alias i; its child_end_id is
# the last id in the partition, one less than the bound). Rows: past days' backfilled ones (every
# 37 minutes and both sides of each midnight) and 100 live ones, then run_maintenance().
sub check_partitions {
    my ($parent, $key_time, $start_time, $end_time) = @_;
    my $parts = qq{(SELECT p.partition_tablename AS child, $start_time AS start_time, $end_time AS end_time
                    FROM partman.show_partitions('public.$parent') p,
                         LATERAL partman.show_partition_info(p.partition_schemaname || '.' || p.partition_tablename,
                                                             p_parent_table := 'public.$parent') i)};
    is($node->safe_psql('postgres', qq{
        SELECT count(*) FILTER (WHERE start_time <> date_trunc('day', start_time) OR end_time <> start_time + interval '1 day')
        FROM $parts s}), 0, "$parent: every partition is one day, from midnight to midnight");
    is($node->safe_psql('postgres', qq{SELECT max(start_time)::date - current_date FROM $parts s}), 3,
       "$parent: run_maintenance() made partitions up to 3 days ahead");
    is($node->safe_psql('postgres', qq{SELECT min(start_time)::date - current_date FROM $parts s}), -3,
       "$parent: from the start partition 3 days back");
    my $rows = $node->safe_psql('postgres', qq{
        SELECT count(*), count(*) FILTER (WHERE $key_time >= s.start_time AND $key_time < s.end_time),
               count(DISTINCT s.child)
        FROM public.$parent r JOIN $parts s ON s.child = r.tableoid::regclass::text});
    my $all = $node->safe_psql('postgres', "SELECT count(*) FROM public.$parent");
    my ($in_children, $in_their_day, $days) = split /\|/, $rows;
    is($in_children, $all, "$parent: all $all rows are in the day partitions, none in the default");
    is($in_their_day, $all, "$parent: each in the partition of the time inside its id");
    is($days, 4, "$parent: rows in the 3 past days' partitions and today's");
}

# Past days' times to backfill: every 37 minutes from 3 days back, and the last microsecond
# (millisecond for Snowflake) before each of the last two midnights and the midnight itself.
sub backfill_times {
    my ($step) = @_;
    return qq{(SELECT t FROM generate_series(date_trunc('day', now()) - interval '3 days', now() - interval '1 second', interval '37 minutes') t
               UNION ALL SELECT d - interval '$step' FROM generate_series(date_trunc('day', now()) - interval '1 day', date_trunc('day', now()), interval '1 day') d
               UNION ALL SELECT d FROM generate_series(date_trunc('day', now()) - interval '1 day', date_trunc('day', now()), interval '1 day') d) v};
}

# ---- Snowflake ids: integer control, one day's worth of ids per partition -------------------------
my $type = $partman_major >= 5 ? q{p_type := 'range'} : q{p_type := 'native'};
$node->safe_psql('postgres', qq{
    SELECT snowflake_create('orders', '2024-01-01', max_nodes => 1024, backfill_nodes => 8);
    CREATE TABLE orders (
        id bigint NOT NULL DEFAULT snowflake_next('orders'),
        created_at timestamptz NOT NULL DEFAULT now()
    ) PARTITION BY RANGE (id);
    SELECT partman.create_parent('public.orders', 'id', $type,
        p_interval := snowflake_min_id('2024-01-02', '2024-01-01', 1024)::text,
        p_premake := 3,
        p_start_partition := snowflake_min_id(date_trunc('day', now()) - interval '3 days', '2024-01-01', 1024)::text);
    INSERT INTO orders (id, created_at) SELECT snowflake_at('orders', t), t FROM } . backfill_times('1 millisecond') . q{;
    INSERT INTO orders (created_at) SELECT now() FROM generate_series(1, 100);
    SELECT partman.run_maintenance('public.orders');
});
check_partitions('orders', q{snowflake_timestamp(r.id, '2024-01-01', 1024)},
                 q{snowflake_timestamp(i.child_start_id, '2024-01-01', 1024)}, q{snowflake_timestamp(i.child_end_id + 1, '2024-01-01', 1024)});

# ---- Version-7 UUIDs: pg_partman 5's time encoder and decoder ------------------------------------
SKIP: {
    skip "pg_partman $partman has no time encoder for uuid columns (5 has)", 6 if $partman_major < 5;
    $node->safe_psql('postgres', q{
        CREATE FUNCTION uuid_v7_timestamp_of_text(id text) RETURNS timestamptz
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN uuid_v7_timestamp(id::uuid);
        CREATE TABLE events (
            id uuid NOT NULL DEFAULT uuid_v7(),
            created_at timestamptz NOT NULL DEFAULT now()
        ) PARTITION BY RANGE (id);
        SELECT partman.create_parent('public.events', 'id', '1 day',
            p_time_encoder := 'public.uuid_v7_min', p_time_decoder := 'public.uuid_v7_timestamp_of_text',
            p_premake := 3, p_start_partition := (date_trunc('day', now()) - interval '3 days')::text);
        INSERT INTO events (id, created_at) SELECT uuid_v7_at(t), t FROM } . backfill_times('1 microsecond') . q{;
        INSERT INTO events (created_at) SELECT now() FROM generate_series(1, 100);
        SELECT partman.run_maintenance('public.events');
    });
    check_partitions('events', q{uuid_v7_timestamp(r.id)}, q{i.child_start_time}, q{i.child_end_time});
}

$node->stop;
done_testing();
