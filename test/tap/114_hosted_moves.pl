# Blue/green moves of a database with the plain-SQL edition, as managed services and hand-made
# major upgrades make them, both sides making ids for a while:
# - logical replication of every table (FOR ALL TABLES: the edition's own tables go too), the
#   new server's schema from pg_dump --schema-only, so its sequences start again from 1;
# - logical replication of the user's table only: the sequencers' definitions stay behind;
# - on PostgreSQL 17 and later, a physical copy (pg_basebackup) made a subscriber by
#   pg_createsubscriber, which starts with the old server's sequences where they were.
# Each time the new server's generators refuse (55000) until its owner gives it a node id of its
# own, the one step of the move; the publisher's node id is refused while the subscription lasts.
# Then both servers make ids of every generator (the *_at ones all for one and the same time) and
# no id is equal to another, before the cutover and after it. A standby promoted after the
# publisher stopped (a failover) needs no step and repeats nothing. pg_upgrade into a fresh
# cluster refuses until the owner keeps the node id, and then repeats nothing.
use strict;
use warnings;
use File::Basename qw(dirname);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $edition = dirname(__FILE__) . '/../../hosted/idgen_hosted.sql';
my @app = (extra_params => [ '-U', 'app' ]);
my $make = q{INSERT INTO ids SELECT '%s', idgen.uuid_v7(), idgen.uuid_v7_at('2025-06-01 12:00:00+00'),
    idgen.uuid_v1_at('2025-06-01 12:00:00+00'), idgen.uuid_v6_at('2025-06-01 12:00:00+00'), idgen.snowflake_next('orders')
    FROM generate_series(1, 2000)};
my @columns = qw(v7 v7at v1at v6at sf);

sub server {
    my ($name, %init) = @_;
    my $server = PostgreSQL::Test::Cluster->new($name);
    $server->init(%init);
    $server->start;
    $server->safe_psql('postgres', 'CREATE ROLE app LOGIN; CREATE DATABASE appdb OWNER app');
    return $server;
}
# Every id the server holds, its own and those that came by replication: none twice.
sub none_twice {
    my ($server, $what) = @_;
    my $twice = $server->safe_psql('appdb', 'SELECT ' . join(' + ', map { "count(*) - count(DISTINCT $_)" } @columns) . ' FROM ids');
    is($twice, 0, "$what: no id twice in " . $server->safe_psql('appdb', 'SELECT count(*) FROM ids') . ' rows of every generator');
}
sub refuses {
    my ($server, $pattern, $what) = @_;
    my ($ret, $out, $err) = $server->psql('appdb', q{SELECT idgen.uuid_v1_at('2025-06-01 12:00:00+00')}, @app);
    like($err, $pattern, "$what: the new server's generators refuse until it has a node id");
}

# A server whose database has the edition, installed by its owner, with node id `node`, a
# sequencer, and ids made.
sub original {
    my ($name, $node, %init) = @_;
    my $server = server($name, %init);
    $server->safe_psql('appdb', 'CREATE SCHEMA idgen', @app);
    {
        local $ENV{PGOPTIONS} = '-c search_path=idgen';
        $server->psql('appdb', undef, on_error_die => 1,
                      extra_params => [ '-U', 'app', '-v', 'ON_ERROR_STOP=1', '-f', $edition ]);
    }
    $server->safe_psql('appdb', qq{
        SELECT idgen.idgen_set_node_id($node);
        SELECT idgen.snowflake_create('orders', '2024-01-01', 1024);
        CREATE TABLE ids (side text, v7 uuid, v7at uuid, v1at uuid, v6at uuid, sf bigint);} . sprintf($make, $name), @app);
    return $server;
}

my $old = original('old', 1, allows_streaming => 'logical');
$old->safe_psql('appdb', 'CREATE PUBLICATION users_tables FOR TABLE ids', @app);
$old->safe_psql('appdb', 'CREATE PUBLICATION everything FOR ALL TABLES');

# A new server with the old one's schema, subscribed to a publication.
sub logical_copy {
    my ($name, $publication) = @_;
    my $new = server($name);
    my $schema = PostgreSQL::Test::Utils::tempdir($name) . '/schema.sql';
    $old->command_ok([ 'pg_dump', '--schema-only', '-f', $schema, $old->connstr('appdb') ], "$name: pg_dump --schema-only");
    $new->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', $schema, $new->connstr('appdb') ],
                     "$name: the schema restored");
    $new->safe_psql('appdb', "CREATE SUBSCRIPTION move CONNECTION '" . $old->connstr . " dbname=appdb' PUBLICATION $publication");
    $new->wait_for_subscription_sync($old, 'move', 'appdb');   # (its catalog is per database)
    return $new;
}
# Both sides make ids; the old side's reach the new; the new keeps none twice. Then the cutover:
# the subscription goes and the new server alone makes more.
sub both_write_then_cut_over {
    my ($new, $what) = @_;
    $new->safe_psql('appdb', sprintf($make, $what), @app);
    $old->safe_psql('appdb', sprintf($make, 'old'), @app);
    $old->wait_for_catchup('move');
    none_twice($new, "$what, both servers writing");
    $new->safe_psql('appdb', 'DROP SUBSCRIPTION move');
    $new->safe_psql('appdb', sprintf($make, "$what after the cutover"), @app);
    none_twice($new, "$what, after the cutover");
}

# FOR ALL TABLES: the old server's node id arrives as data, with the sequencers' definitions.
my $all = logical_copy('all_tables', 'everything');
refuses($all, qr/this database's idgen node id 1 was given on another server or in another database/, 'FOR ALL TABLES');
my ($ret, $out, $err) = $all->psql('appdb', 'SELECT idgen.idgen_set_node_id(1)', @app);
like($err, qr/node id 1 is the node id of the database this one subscribes to/,
     "FOR ALL TABLES: the publisher's node id is refused while the subscription lasts");
$all->safe_psql('appdb', 'SELECT idgen.idgen_set_node_id(2)', @app);
both_write_then_cut_over($all, 'FOR ALL TABLES');

# The user's table only: no node id and no sequencer came; the sequencer's sequence came with the
# schema, and snowflake_create takes it over.
my $users = logical_copy('users_table', 'users_tables');
refuses($users, qr/this database has no idgen node id/, 'only the user table');
$users->safe_psql('appdb', 'SELECT idgen.idgen_set_node_id(3)', @app);
($ret, $out, $err) = $users->psql('appdb', q{SELECT idgen.snowflake_next('orders')}, @app);
like($err, qr/Snowflake sequencer "orders" does not exist/, 'the sequencer\'s definition did not come');
$users->safe_psql('appdb', q{SELECT idgen.snowflake_create('orders', '2024-01-01', 1024)}, @app);
both_write_then_cut_over($users, 'only the user table');

# pg_createsubscriber: a physical copy, the sequences where the old server's were at the copy.
SKIP: {
    skip 'pg_createsubscriber needs PostgreSQL 17', 5 if $old->pg_version < 17;
    $old->backup('copy');
    my $copy = PostgreSQL::Test::Cluster->new('physical_copy');
    $copy->init_from_backup($old, 'copy', has_streaming => 1);
    $copy->start;
    $old->wait_for_catchup('physical_copy');
    $copy->stop;
    my ($said_out, $said_err) = ('', '');
    ok(IPC::Run::run([ 'pg_createsubscriber', '-D', $copy->data_dir, '-P', $old->connstr('appdb'), '-d', 'appdb',
                       '--subscription', 'move', '-p', $copy->port, '-s', $copy->host ],
                     '<', '/dev/null', '>', \$said_out, '2>', \$said_err),
       'pg_createsubscriber makes the copy a subscriber') or diag("$said_out$said_err");
    $copy->start;
    refuses($copy, qr/this database's idgen node id 1 was given on another server.*/, 'pg_createsubscriber');
    ($ret, $out, $err) = $copy->psql('appdb', 'SELECT idgen.idgen_set_node_id(1)', @app);
    like($err, qr/node id 1 is the node id of the database this one subscribes to/,
         "pg_createsubscriber: the publisher's node id is refused while the subscription lasts");
    $copy->safe_psql('appdb', 'SELECT idgen.idgen_set_node_id(4)', @app);
    both_write_then_cut_over($copy, 'pg_createsubscriber');
}

# A failover: the old server stops, its streaming standby is promoted and goes on, no step.
$old->backup('failover');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($old, 'failover', has_streaming => 1);
$standby->start;
$old->safe_psql('appdb', sprintf($make, 'old before the failover'), @app);
$old->wait_for_catchup('standby');
$old->stop;
$standby->promote;
$standby->safe_psql('appdb', sprintf($make, 'promoted'), @app);
none_twice($standby, 'a promoted standby, with no step');

# pg_upgrade into a fresh cluster (the same major): a new system identifier, so the upgraded
# database refuses until its owner keeps its node id (the old cluster makes no more ids, and the
# sequences came along); its ids then never equal the old ones.
my $before = original('before_upgrade', 5);
$before->stop;
my $upgraded = PostgreSQL::Test::Cluster->new('upgraded');
$upgraded->init;
$upgraded->command_ok([ 'pg_upgrade', '--no-sync', '-b', $before->config_data('--bindir'), '-B', $upgraded->config_data('--bindir'),
                        '-d', $before->data_dir, '-D', $upgraded->data_dir, '-p', $before->port, '-P', $upgraded->port,
                        '-s', $upgraded->host ], 'pg_upgrade into a fresh cluster');
$upgraded->start;
($ret, $out, $err) = $upgraded->psql('appdb', q{SELECT idgen.uuid_v7()}, @app);
like($err, qr/this database's idgen node id 5 was given on another server/, 'pg_upgrade: the upgraded database refuses');
$upgraded->safe_psql('appdb', 'SELECT idgen.idgen_set_node_id(5)', @app);
$upgraded->safe_psql('appdb', sprintf($make, 'after pg_upgrade'), @app);
none_twice($upgraded, 'pg_upgrade, the node id kept');

$_->stop for ($standby, $all, $users, $upgraded);
done_testing();
