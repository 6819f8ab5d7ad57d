# The codec works in a server where idgen is not in shared_preload_libraries: it needs
# no shared memory, and loading the module late must not fail.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('no_preload');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION idgen');
is( $node->safe_psql('postgres',
        q{SELECT form_uuid_v1('2022-02-22 19:22:22+00', 13256, '9f:6b:de:ce:d8:46')}),
    'c232ab00-9414-11ec-b3c8-9f6bdeced846',
    'form_uuid_v1 without shared_preload_libraries');
is($node->safe_psql('postgres', q{SHOW shared_preload_libraries}), '', 'idgen was not preloaded');
$node->stop;
done_testing();
