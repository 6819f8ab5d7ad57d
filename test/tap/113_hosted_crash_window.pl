# What a crash does to the plain-SQL edition's ids, as the README's hosted table says: its
# generators draw from sequences, and a sequence is as durable as its WAL. PostgreSQL flushes that
# WAL at the commit of a transaction that drew (synchronous_commit on), not when the value is
# returned; plain SQL cannot flush it sooner (the C extension makes its cover durable before an
# id leaves). So, with the server crashing (immediate stop) before the WAL writer's next flush:
# - ids of a transaction that committed with synchronous_commit on never come back;
# - ids returned to a transaction still open, or one that committed with synchronous_commit off,
#   can come back after the restart: the row of the table that says so is shown true here;
# - snowflake_next's ids do not come back while its ids have not run ahead of the clock: the
#   restarted sequence jumps to the current millisecond.
# The WAL writer waits 10 s between flushes here, so that nothing but a commit flushes the WAL
# before the crash.
use strict;
use warnings;
use File::Basename qw(dirname);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $edition = dirname(__FILE__) . '/../../hosted/idgen_hosted.sql';
my $node = PostgreSQL::Test::Cluster->new('hosted_crash');
$node->init;
$node->append_conf('postgresql.conf', "wal_writer_delay = '10s'\ncheckpoint_timeout = '1h'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE SCHEMA idgen');
{
    local $ENV{PGOPTIONS} = '-c search_path=idgen';
    $node->psql('postgres', undef, on_error_die => 1, extra_params => [ '-v', 'ON_ERROR_STOP=1', '-f', $edition ]);
}
$node->safe_psql('postgres', q{SELECT idgen.idgen_set_node_id(0); SELECT idgen.snowflake_create('orders', '2024-01-01', 1024); CHECKPOINT});

my $ids = q{SELECT idgen.uuid_v1_at('2025-06-01 12:00:00+00')::text FROM generate_series(1, 100)
            UNION ALL SELECT idgen.snowflake_next('orders')::text FROM generate_series(1, 100)};
# Committed with synchronous_commit on, first: its commit flushes the WAL written before it.
my %committed = map { $_ => 1 } split /\n/, $node->safe_psql('postgres', $ids);
# Then returned to a transaction left open, and to one committed with synchronous_commit off.
my $open = $node->background_psql('postgres');
my %uncommitted = map { $_ => 1 } split /\n/, $open->query_safe("BEGIN; $ids");
$uncommitted{$_} = 1 for split /\n/, $node->safe_psql('postgres', "SET synchronous_commit = off; $ids");
$node->stop('immediate');
$open->{run}->kill_kill;
$node->start;

my @after = split /\n/, $node->safe_psql('postgres',
    q{SELECT idgen.uuid_v1_at('2025-06-01 12:00:00+00')::text FROM generate_series(1, 1000)
      UNION ALL SELECT idgen.snowflake_next('orders')::text FROM generate_series(1, 1000)});
my @back_committed = grep { $committed{$_} } @after;
my @back_uncommitted = grep { $uncommitted{$_} } @after;
is(scalar @back_committed, 0, 'ids of a transaction committed with synchronous_commit on never come back');
cmp_ok(scalar @back_uncommitted, '>', 0,
    'ids returned to an open transaction or one committed asynchronously came back after the crash ('
    . scalar(@back_uncommitted) . ' of ' . scalar(keys %uncommitted) . '): the README says so');
is(scalar(grep { /^\d+$/ } @back_uncommitted), 0, 'none of them a snowflake_next id: the clock moved on');

$node->stop;
done_testing();
