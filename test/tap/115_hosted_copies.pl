# Physical copies of a database with the plain-SQL edition. A physical copy keeps the server's
# system identifier and the database's oid, to which the node id is tied, so the edition can only
# tell one by where it runs: a copy started beside its original on the same machine runs from
# another data directory on the same WAL timeline; a failover to a promoted standby and a
# point-in-time restore start a new timeline; a restart keeps both. Each kind is made here and
# what it does is shown:
# - a base backup started beside its original: refuses (55000) until its owner sets a node id; with
#   one of its own, its ids and the original's never meet;
# - the original restarted after a crash: goes on, no step;
# - a point-in-time restore started beside the original, and a standby promoted after its primary
#   stopped (a failover): go on, no step (SQL cannot tell the first from the second: docs/hosted.md
#   says which copies are not seen and the statement to run on one);
# - where the edition's owner may not read data_directory (neither a superuser nor a member of
#   pg_read_all_settings), a copy beside its original is not seen either.
use strict;
use warnings;
use File::Basename qw(dirname);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $edition = dirname(__FILE__) . '/../../hosted/idgen_hosted.sql';
my @app = (extra_params => [ '-U', 'app' ]);

my $original = PostgreSQL::Test::Cluster->new('original');
$original->init(allows_streaming => 1, has_archiving => 1);
$original->start;
$original->safe_psql('postgres', q{CREATE ROLE app LOGIN; CREATE DATABASE appdb OWNER app;
    GRANT pg_read_all_settings TO app});
$original->safe_psql('appdb', 'CREATE SCHEMA idgen', @app);
{
    local $ENV{PGOPTIONS} = '-c search_path=idgen';
    $original->psql('appdb', undef, on_error_die => 1, extra_params => [ '-U', 'app', '-v', 'ON_ERROR_STOP=1', '-f', $edition ]);
}
$original->safe_psql('appdb', q{SELECT idgen.idgen_set_node_id(1); SELECT idgen.snowflake_create('orders', '2024-01-01', 1024)}, @app);

# 2,000 Snowflake ids of a server, drawn one statement at a time so that both servers' draws
# interleave in time.
sub ids_of {
    my ($server) = @_;
    return [ grep { /^\d+$/ } split /\n/,
             $server->safe_psql('appdb', q{SELECT idgen.snowflake_next('orders') FROM generate_series(1, 2000)}, @app) ];
}
sub next_error {
    my ($server) = @_;
    my ($ret, $out, $err) = $server->psql('appdb', q{SELECT idgen.snowflake_next('orders')}, @app);
    return $ret == 0 ? '' : $err;
}
sub started_from_backup {
    my ($name, $backup, %how) = @_;
    my $copy = PostgreSQL::Test::Cluster->new($name);
    $copy->init_from_backup($original, $backup, %how);
    $copy->start;
    return $copy;
}
ids_of($original);

# A base backup started beside its original: the same timeline, another data directory.
$original->backup('beside');
my $beside = started_from_backup('beside', 'beside');
like(next_error($beside), qr/this database's idgen node id 1 was given to the server of another data directory.*HINT:.*idgen_set_node_id\(n\)/s,
     'a base backup started beside its original refuses until its owner sets a node id');
$beside->safe_psql('appdb', 'SELECT idgen.idgen_set_node_id(2)', @app);
my %seen;
my @both = (@{ ids_of($original) }, @{ ids_of($beside) }, @{ ids_of($original) }, @{ ids_of($beside) });
$seen{$_}++ for @both;
is(scalar(grep { $seen{$_} > 1 } keys %seen), 0, 'with a node id of its own, none of its 4,000 ids is one of the original\'s');
$beside->stop;

# The original restarted after a crash: no step.
$original->stop('immediate');
$original->start;
is(next_error($original), '', 'the original restarted after a crash goes on with no step');

# A point-in-time restore beside the original (to the end of the archive; a new timeline): not
# told from a failover, so it goes on as the original's node.
my ($lsn, $segment) = split /\|/, $original->safe_psql('postgres', 'SELECT lsn, pg_walfile_name(lsn) FROM pg_switch_wal() lsn');
$original->poll_query_until('postgres', "SELECT last_archived_wal >= '$segment' FROM pg_stat_archiver")
    or die "segment $segment was not archived";
my $restored = started_from_backup('restored', 'beside', has_restoring => 1, standby => 0);
$restored->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'the restore did not end';
is(next_error($restored), '', 'a point-in-time restore beside the original is not seen: it makes ids as node 1 (docs/hosted.md)');
$restored->stop;

# Where the owner may not read data_directory, a copy beside the original is not seen either.
$original->safe_psql('postgres', 'REVOKE pg_read_all_settings FROM app');
$original->backup('unread');
my $unread = started_from_backup('unread', 'unread');
is(next_error($unread), '', 'an owner that may not read data_directory: a copy beside its original is not seen');
$unread->stop;

# A failover: the primary stops, its streaming standby is promoted (a new timeline), no step.
$original->safe_psql('postgres', 'GRANT pg_read_all_settings TO app');
$original->backup('standby');
my $standby = started_from_backup('standby', 'standby', has_streaming => 1);
$original->wait_for_catchup('standby');
$original->stop;
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'no promotion';
is(next_error($standby), '', 'a standby promoted after its primary stopped goes on with no step');
$standby->stop;
done_testing();
