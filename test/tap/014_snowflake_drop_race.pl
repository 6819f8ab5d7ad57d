# A sequencer dropped and re-created over and over while other sessions draw from it:
# the re-created sequencer takes over the slot on the same node and starts above the
# bound of the dropped one, so no id repeats, also for draws in flight during a release, and
# the ids of one statement stay strictly increasing across the switch.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $seconds = 15;
my $node = idgen_node('snowflake_drop_race', node_id => 3);
start_node($node);
$node->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('s');
    CREATE UNLOGGED TABLE ids (id bigint, xid xid8, ord int);
    -- A statement that reads the definition just before a drop commits may find it dropped when
    -- it binds (42704); that batch is simply lost. Everything else must go through.
    CREATE FUNCTION draw(n int) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO ids SELECT snowflake_next('s'), pg_current_xact_id(), g FROM generate_series(1, n) g;
    EXCEPTION WHEN undefined_object THEN
        NULL;
    END $$;
});

# One session drops and re-creates 's' (one transaction each time, so the name always exists)
# while four sessions draw.
my $recreate = $node->basedir . '/recreate.sql';
append_to_file($recreate, "BEGIN;\nSELECT snowflake_drop('s');\nSELECT snowflake_create('s');\nCOMMIT;\n");
my ($rout, $rerr) = ('', '');
my $dropper = IPC::Run::start(
    [ 'pgbench', '--no-vacuum', '--client=1', "--time=$seconds", "--file=$recreate",
      '-h', $node->host, '-p', $node->port, 'postgres' ],
    '>', \$rout, '2>', \$rerr, IPC::Run::timeout(5 * $seconds));
$node->pgbench(
    "--no-vacuum --client=4 --jobs=2 --time=$seconds",
    0,
    [qr{processed: [1-9]}],
    [qr{^$}],
    'four sessions draw while the sequencer is dropped and re-created',
    { 'idgen_draw' => q{SELECT draw(500);} });
ok($dropper->finish, 'the dropping session ran without an error') or diag($rerr);

my $recreations = $node->safe_psql('postgres', q{SELECT max(id) - 1 FROM snowflake_definitions});
cmp_ok($recreations, '>=', 100, "the sequencer was dropped and re-created $recreations times");
my ($ids, $distinct) = split /\|/, $node->safe_psql('postgres', q{SELECT count(*), count(DISTINCT id) FROM ids});
cmp_ok($ids, '>=', 100000, "$ids ids drawn");
is($distinct, $ids, 'no id repeats across the incarnations of the sequencer');
is( $node->safe_psql('postgres', q{
        SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY xid ORDER BY ord) AS prev FROM ids) s
        WHERE id <= prev}),
    '0', 'strictly increasing in call order within every statement, across re-creations');
is($node->safe_psql('postgres', q{SELECT count(*) FROM ids WHERE snowflake_node('s', id) <> 3}),
    '0', 'every id carries node 3');
$node->stop;
done_testing();
