# Guarantee 1: 8 concurrent clients x 100,000 Snowflake ids into a UNIQUE column; every id
# unique, and increasing in call order within each statement.
# One major per test run: the contention is on idgen's own shared-memory words, the same on every major.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Test::More;
use IdgenTest;

my $node = idgen_node('snowflake_concurrency', node_id => 5);
start_node($node);
$node->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('s');
    CREATE TABLE ids (id bigint PRIMARY KEY, client int, xid xid8, ord int);
});

# 100 transactions per client, 1,000 ids each.
$node->pgbench(
    '--no-vacuum --client=8 --jobs=2 --transactions=100',
    0,
    [qr{processed: 800/800}],
    [qr{^$}],
    '8 clients x 100,000 ids inserted without a unique violation',
    {
        'idgen_ids' => q{INSERT INTO ids SELECT snowflake_next('s'), :client_id, pg_current_xact_id(), g FROM generate_series(1, 1000) g;}
    });

is($node->safe_psql('postgres', q{SELECT count(*), count(DISTINCT id) FROM ids}),
    '800000|800000', '800,000 ids, all distinct');
is($node->safe_psql('postgres', q{SELECT count(DISTINCT client) FROM ids}), '8', 'from 8 clients');
is( $node->safe_psql('postgres', q{
        SELECT count(*) FROM (SELECT id, lag(id) OVER (PARTITION BY xid ORDER BY ord) AS prev FROM ids) s
        WHERE id <= prev}),
    '0', 'strictly increasing in call order within every statement');
is($node->safe_psql('postgres', q{SELECT count(*) FROM ids WHERE snowflake_node('s', id) <> 5}),
    '0', 'every id carries node 5');
is($node->safe_psql('postgres', q{SELECT ids_issued FROM snowflake_sequencers}), '800000',
    'the view counts every id');
$node->stop;
done_testing();
