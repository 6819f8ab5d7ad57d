# Loading idgen with and without shared_preload_libraries: the codec works either way; the
# live generators say clearly what is missing (the preload, or a node id).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Test::More;
use IdgenTest;

my $plain = PostgreSQL::Test::Cluster->new('no_preload');
$plain->init;
$plain->start;
$plain->safe_psql('postgres', 'CREATE EXTENSION idgen');
is($plain->safe_psql('postgres', q{SHOW shared_preload_libraries}), '', 'idgen was not preloaded');
is( $plain->safe_psql('postgres',
        q{SELECT form_uuid_v1('2022-02-22 19:22:22+00', 13256, '9f:6b:de:ce:d8:46')}),
    'c232ab00-9414-11ec-b3c8-9f6bdeced846',
    'form_uuid_v1 works without shared_preload_libraries');
$plain->safe_psql('postgres', q{SELECT snowflake_create('s')});
like(psql_error($plain, q{SELECT snowflake_next('s')}),
    qr/55000: snowflake_next\(\) needs idgen in shared_preload_libraries/,
    'snowflake_next without the preload: 55000 naming the setting');
is($plain->safe_psql('postgres', q{SELECT snowflake_node('s', 4194304 * 3 + 512 * 7 + 2)}), '7',
    'decoders need no shared memory');
is($plain->safe_psql('postgres', q{SELECT state FROM snowflake_sequencers}), 'detached',
    'the view says detached');
$plain->stop;

my $no_id = idgen_node('preload_no_node_id');
start_node($no_id);
$no_id->safe_psql('postgres', q{CREATE EXTENSION idgen; SELECT snowflake_create('s')});
like(psql_error($no_id, q{SELECT snowflake_next('s')}),
    qr/55000: Snowflake sequencer "s" is detached on this server.*HINT:  Set idgen.node_id/s,
    'no idgen.node_id: 55000 with a hint naming the setting');
is($no_id->safe_psql('postgres', q{SELECT state || ' ' || coalesce(node_id::text, 'none') FROM snowflake_sequencers}),
    'detached none', 'the view shows no node id');
$no_id->stop;

done_testing();
