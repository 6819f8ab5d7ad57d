# Node ids on Citus without one typed per node: with idgen.node_id_source = 'citus' every node's
# node id is its Citus group, so the coordinator and the workers issue under distinct ones (0, 1,
# 2), a server not yet added refuses to generate (it reads the coordinator's group until then), a
# worker added later gets a fresh one, a worker the coordinator disabled refuses until activated, live ids made everywhere never repeat, and a worker's
# standby promoted in its place continues its primary's node id above everything the primary
# issued. The setting beside idgen.node_id is refused at server start.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;
use IdgenCitus;

plan skip_all => 'Citus is not installed (scripts/citus builds it)' unless citus_installed();

my ($coordinator, $w1, $w2) = citus_cluster(undef, undef, undef);
$coordinator->safe_psql('postgres', q{SELECT snowflake_create('orders', '2020-01-01 00:00:00+00', 1024)});
sub node_of { my ($n) = @_; return $n->safe_psql('postgres', q{SELECT snowflake_node('orders', snowflake_next('orders'))}); }
is(join(',', map { node_of($_) } $coordinator, $w1, $w2), '0,1,2', 'each node issues under its Citus group');

# A server with Citus that the coordinator has not added yet reads group 0, the coordinator's.
my $w3 = citus_server('worker3', undef);
$w3->safe_psql('postgres', 'CREATE EXTENSION idgen');
my ($ret, $out, $err) = $w3->psql('postgres', q{SELECT uuid_v7()});
like($err, qr/not an active node of a Citus cluster \(group 0 is not an active primary in pg_dist_node\)/,
     'a server not yet added refuses to generate');
citus_add_worker($coordinator, $w3);
is(node_of($w3), '3', 'a worker added later gets a fresh node id');

# A worker the coordinator disabled refuses: Citus no longer sends it metadata, so its own still
# says it is active, and it asks the coordinator (a backend that read its group already, within
# 10 s). Activated again, it generates again.
$coordinator->safe_psql('postgres', "SELECT citus_disable_node('127.0.0.1', " . $w3->port . ', synchronous => true)');
is($w3->safe_psql('postgres', q{SELECT isactive FROM pg_dist_node WHERE groupid = 3}), 't',
   'the disabled worker\'s own metadata still says it is active');
($ret, $out, $err) = $w3->psql('postgres', q{SELECT snowflake_next('orders')});
like($err, qr/not an active node of a Citus cluster \(group 3 is not an active primary in pg_dist_node\).*citus_activate_node/s,
     'a worker the coordinator disabled refuses to generate (55000)');
$coordinator->safe_psql('postgres', "SELECT citus_activate_node('127.0.0.1', " . $w3->port . ')');
is(node_of($w3), '3', 'and generates again once activated');

# Live ids on every node at once: the default on the coordinator and, pushed down, on the workers.
$coordinator->safe_psql('postgres', q{
    CREATE TABLE source (k int);
    SELECT create_distributed_table('source', 'k');
    INSERT INTO source SELECT g FROM generate_series(1, 20000) g;
    CREATE TABLE orders (k int, id bigint DEFAULT snowflake_next('orders'), u uuid DEFAULT uuid_v7());
    SELECT create_distributed_table('orders', 'k', colocate_with => 'source');
    INSERT INTO orders (k) SELECT k FROM source;
    INSERT INTO orders (k) SELECT g FROM generate_series(1, 5000) g;
});
is($coordinator->safe_psql('postgres', q{
    SELECT count(*) = count(DISTINCT id) AND count(*) = count(DISTINCT u),
           string_agg(DISTINCT snowflake_node('orders', id)::text, ',' ORDER BY snowflake_node('orders', id)::text)
    FROM orders}), 't|0,1,2,3', 'live ids from the four nodes: none twice');

# A worker's standby, promoted after the worker dies, continues its node id above its ids.
my $standby = citus_standby($w1, 'worker1_standby');
start_node($standby);
$w1->safe_psql('postgres', q{CREATE TABLE before AS SELECT snowflake_next('orders') AS id FROM generate_series(1, 5000)});
$w1->wait_for_catchup($standby);
$w1->stop('immediate');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'no promotion';
is($standby->safe_psql('postgres', q{
    SELECT snowflake_node('orders', snowflake_next('orders')),
           (SELECT max(id) FROM before) < snowflake_next('orders')}), '1|t',
   'the promoted standby of worker 1 issues under group 1, above its primary');

# idgen.node_id beside the Citus source: two sources of one node id, refused at start.
my $both = PostgreSQL::Test::Cluster->new('both');
$both->init;
$both->append_conf('postgresql.conf', "shared_preload_libraries = 'idgen'\nidgen.node_id_source = 'citus'\nidgen.node_id = 5\n");
ok(!$both->start(fail_ok => 1), 'idgen.node_id beside idgen.node_id_source = citus: the server does not start');
like(slurp_file($both->logfile), qr/idgen.node_id_source = 'citus' takes the node id from Citus/, 'and says why');

done_testing();
