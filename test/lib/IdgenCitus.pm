# A Citus cluster for idgen's TAP tests, on loopback: a coordinator and workers, each a server
# with citus and idgen preloaded (citus first, as Citus requires) and a node id of its own (given,
# or, for a node id of undef, its Citus group: idgen.node_id_source = 'citus'), the coordinator
# registered and the workers added to it, the extensions created in the database `postgres`;
# streaming standbys of its nodes.
# Citus reaches its nodes by host and port, so the servers listen on TCP.
package IdgenCitus;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Cluster;
use IdgenTest;

our @EXPORT = qw(citus_installed citus_cluster citus_add_worker citus_server citus_standby);

# Whether Citus is installed into the PostgreSQL under test (scripts/citus builds it).
sub citus_installed {
    my $sharedir = `pg_config --sharedir`;
    chomp $sharedir;
    return -f "$sharedir/extension/citus.control";
}

# A server for the cluster, started, with citus created, not yet added. $node_id: its
# idgen.node_id (undef: its Citus group).
sub citus_server {
    my ($name, $node_id) = @_;
    $PostgreSQL::Test::Cluster::use_tcp = 1;
    $PostgreSQL::Test::Cluster::test_pghost = '127.0.0.1';
    my $source = defined $node_id ? '' : "idgen.node_id_source = 'citus'";
    my $node = idgen_node($name, node_id => $node_id, init => { allows_streaming => 'logical' }, conf => "
shared_preload_libraries = 'citus,idgen'
$source
max_connections = 300
max_wal_senders = 30
max_replication_slots = 30
citus.shard_count = 8
citus.shard_replication_factor = 1
");
    start_node($node);
    $node->safe_psql('postgres', 'CREATE EXTENSION citus');
    return $node;
}

# Adds $worker (citus_server) to the cluster of $coordinator.
sub citus_add_worker {
    my ($coordinator, $worker) = @_;
    $coordinator->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $worker->port . ')');
    return $worker;
}

# A streaming standby of a node of the cluster, from a backup taken now, not yet started.
sub citus_standby {
    my ($node, $name) = @_;
    $node->backup("${name}_base");
    my $standby = idgen_standby($node, "${name}_base", $name);
    # The certificate Citus made for its connections comes out of the backup with group access,
    # which the server refuses for a private key.
    chmod 0600, $standby->data_dir . '/server.key';
    return $standby;
}

# The coordinator (node id $node_ids[0]) and one worker for each further node id, with idgen
# created on the coordinator (Citus creates it on every worker).
sub citus_cluster {
    my (@node_ids) = @_;
    my $coordinator = citus_server('coordinator', $node_ids[0]);
    $coordinator->safe_psql('postgres', "SELECT citus_set_coordinator_host('127.0.0.1', " . $coordinator->port . ')');
    my @workers = map { citus_add_worker($coordinator, citus_server("worker$_", $node_ids[$_])) } 1 .. $#node_ids;
    $coordinator->safe_psql('postgres', 'CREATE EXTENSION idgen');
    return ($coordinator, @workers);
}

1;
