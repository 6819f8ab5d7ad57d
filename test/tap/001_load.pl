# Loading idgen with and without shared_preload_libraries: the codec works either way; the
# live generators say clearly what is missing (the preload, or a node id).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
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
like(psql_error($no_id, q{SELECT unique_timestamp()}), qr/55000: unique_timestamp\(\): idgen.node_id -1 does not fit/,
    'unique_timestamp without a node id: 55000 naming the settings');
like($no_id->safe_psql('postgres', q{SELECT uuid_v1_node(uuid_v1())::text}), qr/^.[13579bdf]:/,
    'uuid_v1 needs no node id: a random multicast node by default');
my $random_node = $no_id->safe_psql('postgres', q{SELECT uuid_v1_node(uuid_v1())});
$no_id->restart;
is($no_id->safe_psql('postgres', q{SELECT uuid_v1_node(uuid_v1())}), $random_node,
    'the random node is kept across restarts (idgen.identity)');
$no_id->stop;

# idgen.uuid_node = 'mac' takes a real interface's address; an explicit address is used as is;
# a malformed one is refused with a WARNING and the default ('random') is used, as PostgreSQL
# does for every extension setting it cannot accept at start.
my @macs = map { chomp(my $m = slurp_file($_)); $m } glob('/sys/class/net/*/address');
my $mac = idgen_node('uuid_node_mac', conf => "idgen.uuid_node = 'mac'\nidgen.locality_mac = '02:00:5e:00:53:01'\n");
start_node($mac);
$mac->safe_psql('postgres', 'CREATE EXTENSION idgen');
my $hw = $mac->safe_psql('postgres', q{SELECT uuid_v1_node(uuid_v1())});
ok((grep { $_ eq $hw } @macs), "idgen.uuid_node = 'mac': the node $hw is an interface's address");
is($mac->safe_psql('postgres', q{SELECT locality_uuid_mac(locality_uuid())}), 'e005301',
    'idgen.locality_mac: its last 28 bits');
$mac->stop;
$mac->append_conf('postgresql.conf', "idgen.uuid_node = '02:00:5e:00:53:02'\n");
start_node($mac);
is($mac->safe_psql('postgres', q{SELECT uuid_v1_node(uuid_v1())}), '02:00:5e:00:53:02',
    'an explicit idgen.uuid_node is used as is');
$mac->stop;
# A malformed node, or a node 03:... (the automatic nodes of retrospective UUIDs), stops the
# server (002_settings_at_start.pl has every such setting).
$mac->append_conf('postgresql.conf', "idgen.uuid_node = '03:00:00:00:00:05'\n");
ok(!$mac->start(fail_ok => 1), 'a node 03:... as idgen.uuid_node stops the server');
like(slurp_file($mac->logfile), qr/are reserved for the automatic nodes of uuid_v1_at/,
    'and the log says the automatic nodes of retrospective UUIDs hold it');

# A random node may start with 03, the automatic nodes' prefix (one draw in 128): uuid_v1()
# uses it with the locally administered bit cleared, on every start alike.
my $legacy = idgen_node('legacy_identity', uuid_identity => [ (0x03 << 40) | (0x0a << 32) | 0x0b0c0d0e, 77 ]);
start_node($legacy);
$legacy->safe_psql('postgres', 'CREATE EXTENSION idgen');
is($legacy->safe_psql('postgres', q{SELECT uuid_v1_node(uuid_v1()) || ' ' || uuid_v1_clock_seq(uuid_v1())}),
    '01:0a:0b:0c:0d:0e 77', 'a random node 03:... of an older identity file is used as 01:...');
$legacy->stop;

# A lease file of 0.6.0 (format 2), whose given-node space (kind 2) counted 5 namespaces under
# the mapping that skipped the live clock sequence: they may hold clock sequences up to 5, so
# the first namespace under the fixed mapping is 6.
my $cells = pack('VVQ<Q<VV', 2, 0, (0x0800 << 32) | 0x2b010203, 5, 3, 1) . ("\0" x (32 * 63));
write_durable_record($legacy, 'idgen.leases', 0x1D6E4C32, $cells);
start_node($legacy);
is($legacy->safe_psql('postgres', q{SELECT uuid_v1_clock_seq(uuid_v1_at('2015-01-01 00:00:00+00', '08:00:2b:01:02:03'))}),
    '6', "a lease file of 0.6.0: the given node's namespaces continue above the old mapping's");
$legacy->stop;

done_testing();
