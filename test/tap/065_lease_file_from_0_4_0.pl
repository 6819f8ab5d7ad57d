# Upgrading from 0.4.0 carries the lease file's state: 0.4.0 wrote idgen.leases in format 1 (the
# counters alone, no offset bounds). This test writes such a file byte for byte (magic, size,
# cells, CRC-32C, as src/pg/durability/durable_record.cpp reads them) into a server's data directory and
# starts this version on it:
# - a given UUID node that had leased 5 namespaces goes on above them: 0.4.0's namespaces
#   skipped the live clock sequence, so they may hold clock sequences up to 5, and the first
#   namespace now is 6 (the space counts 7);
# - a sequencer whose only reserved node 0.4.0 leased is used up (54000): 0.4.0 kept no bound
#   of the offsets it handed out, so its namespaces must never be recycled, not even after the
#   pool is gone (a restart).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

# Format 1: 64 cells of (kind uint32, database uint32, key uint64, next uint64).
sub write_v1_leases {
    my ($node, @cells) = @_;
    my $payload = '';
    $payload .= pack('L L Q Q', @$_) for @cells;
    $payload .= "\0" x (64 * 24 - length $payload);
    write_durable_record($node, 'idgen.leases', 0x1D6E4C31, $payload);
}

my $node = idgen_node('from_040', node_id => 7);
start_node($node);
$node->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('old', '2010-01-01 00:00:00+00', 8192, backfill_nodes => 1);
});
my ($db, $key) = split /\|/, $node->safe_psql('postgres', q{
    SELECT oid, idgen_internal._backfill_space_key('old') FROM pg_database WHERE datname = current_database()});
$node->stop;
# The server's own file (format 2) is replaced by 0.4.0's: node 08:00:2b:01:02:03 had leased 5,
# sequencer 'old' its only one.
write_v1_leases($node, [ 2, 0, hex('08002b010203'), 5 ], [ 3, $db, $key, 1 ]);
start_node($node);

my $spaces = q{SELECT id_space, namespaces_leased FROM idgen_backfill_spaces ORDER BY 1};
is($node->safe_psql('postgres', q{SELECT count(DISTINCT uuid_v1_at('2015-01-01+00', '08:00:2b:01:02:03'))
                                  FROM generate_series(1, 3)}), '3', 'the given node generates');
is($node->safe_psql('postgres', $spaces), "node 08:00:2b:01:02:03|7\nsequencer old|1",
    'the counters of the 0.4.0 file go on: the node leased namespace 6, above the old mapping\'s');
like(psql_error($node, q{SELECT snowflake_at('old', '2015-01-01+00')}), qr/ERROR:\s+54000:/,
    "'old' used its only namespace under 0.4.0: 54000, not a recycled namespace");
restart_node($node);
like(psql_error($node, q{SELECT snowflake_at('old', '2015-01-01+00')}), qr/ERROR:\s+54000:/,
    "after a restart (the file now in format 2) still 54000: 0.4.0's namespaces are never recycled");
is($node->safe_psql('postgres', $spaces), "node 08:00:2b:01:02:03|7\nsequencer old|1",
    'the restart kept the counters');
$node->stop;
done_testing();
