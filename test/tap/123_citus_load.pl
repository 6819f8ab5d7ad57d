# Every way rows reach a distributed table at once, on a Citus cluster whose node ids are its
# groups: 8 clients write over 1,000,000 rows through INSERT ... VALUES (one row and a hundred),
# an INSERT ... SELECT that Citus pulls up to the coordinator, one it pushes down to the workers,
# and COPY, into a table with a snowflake_next key and a uuid_v7() column, while two more clients
# backfill a uuid_v7_at column shard by shard (the recipe for Citus); the sequencer is created on
# the coordinator alone (it reaches the workers by itself). At the end: no id of any
# column twice across the cluster, every backfilled id carries its row's time, and the live ids
# came from the coordinator and both workers.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;
use IdgenCitus;

plan skip_all => 'Citus is not installed (scripts/citus builds it)' unless citus_installed();

my ($coordinator, $w1, $w2) = citus_cluster(undef, undef, undef);
$coordinator->safe_psql('postgres', q{
    SELECT snowflake_create('orders', '2020-01-01 00:00:00+00', 1024);
    CREATE TABLE events (k int, created_at timestamptz, id bigint DEFAULT snowflake_next('orders'),
                         u uuid DEFAULT uuid_v7(), b uuid);
    SELECT create_distributed_table('events', 'k');
    CREATE TABLE source (k int, created_at timestamptz);
    SELECT create_distributed_table('source', 'k', colocate_with => 'events');
    INSERT INTO source SELECT g, timestamptz '2024-03-01 00:00:00+00' + (g % 1000) * interval '1 second'
        FROM generate_series(1, 40000) g;
});

my $ts = q{timestamptz '2024-03-01 00:00:00+00' + (g % 1000) * interval '1 second'};
my $dir = PostgreSQL::Test::Utils::tempdir();
my $iterations = 18;   # 8 clients x 18 x 7,101 rows = 1,022,544 rows
my @clients;
for my $c (0 .. 7) {
    my $sql = '';
    for my $i (1 .. $iterations) {
        my $values = join(',', map { "($_, timestamptz '2024-03-01 00:00:00+00' + interval '$_ second')" } 1 .. 100);
        $sql .= "INSERT INTO events (k, created_at) VALUES ($i, now());\n"
            . "INSERT INTO events (k, created_at) VALUES $values;\n"
            . "INSERT INTO events (k, created_at) SELECT g, $ts FROM generate_series(1, 1000) g;\n"
            . "INSERT INTO events (k, created_at) SELECT k, created_at FROM source WHERE k % 8 = $c;\n"
            . "COPY events (k, created_at) FROM PROGRAM 'seq 1 1000 | sed \"s/\$/,2024-03-01 00:00:00+00/\"' WITH (FORMAT csv);\n";
    }
    PostgreSQL::Test::Utils::append_to_file("$dir/client$c.sql", $sql);
    push @clients, IPC::Run::start([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $coordinator->connstr('postgres'),
                                     '-f', "$dir/client$c.sql" ], '>', \my $out, '2>', \my $err);
}
my $backfill = q{SELECT count(*) FROM run_command_on_shards('events',
    $$UPDATE %s SET b = uuid_v7_at(created_at) WHERE b IS NULL$$) WHERE NOT success};
for my $c (1 .. 2) {
    PostgreSQL::Test::Utils::append_to_file("$dir/backfill$c.sql", "$backfill;\nSELECT pg_sleep(0.5);\n" x 6);
    push @clients, IPC::Run::start([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $coordinator->connstr('postgres'),
                                     '-f', "$dir/backfill$c.sql" ], '>', \my $out, '2>', \my $err);
}
my $finished = grep { $_->finish } @clients;
is($finished, 10, 'the 8 writing clients and the 2 backfilling ones ran without an error');
is($coordinator->safe_psql('postgres', $backfill), '0', 'the last backfill pass ran on every shard');

my $rows = $coordinator->safe_psql('postgres', 'SELECT count(*) FROM events');
cmp_ok($rows, '>=', 1_000_000, "over 1,000,000 rows ($rows)");
is($coordinator->safe_psql('postgres', q{
    SELECT count(DISTINCT id) = count(*), count(DISTINCT u) = count(*), count(DISTINCT b) = count(*)
    FROM events}), 't|t|t', 'no snowflake_next, uuid_v7() or uuid_v7_at id twice across the cluster');
is($coordinator->safe_psql('postgres', q{
    SELECT count(*) FROM events
    WHERE date_trunc('milliseconds', uuid_v7_timestamp(b)) <> date_trunc('milliseconds', created_at)}), '0',
    'every backfilled id carries its row\'s time');
is($coordinator->safe_psql('postgres', q{
    SELECT string_agg(DISTINCT snowflake_node('orders', id)::text, ',' ORDER BY snowflake_node('orders', id)::text)
    FROM events}), '0,1,2', 'the live ids came from the coordinator and both workers');

done_testing();
