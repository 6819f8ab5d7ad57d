# The failover margin is adopted also when the promoted standby replays no WAL record at all:
# PostgreSQL calls a resource manager's cleanup only when redo replayed something, and a standby
# restarted after its primary's clean shutdown, then promoted, replays nothing ("redo is not
# required"). idgen notes at startup that the server is in archive recovery and adopts the
# margin at the first generator call after it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $p = idgen_node('primary', node_id => 1, init => { allows_streaming => 1 },
    conf => "idgen.failover_margin = '7s'\n");
start_node($p);
$p->safe_psql('postgres', q{CREATE EXTENSION idgen; SELECT snowflake_create('ids');});
$p->backup('base');
my $s = idgen_standby($p, 'base', 'standby');
start_node($s);
$p->safe_psql('postgres', q{SELECT count(snowflake_next('ids')) FROM generate_series(1, 1000)});
$p->wait_for_catchup($s);
my $replayed = $s->safe_psql('postgres', q{SELECT durable_horizon FROM idgen_state WHERE generator = 'uuid_v1'});
$p->stop('fast');          # a clean shutdown: its checkpoint is the last record
restart_node($s, 'fast');  # the standby's restartpoint moves to it
$s->promote;
like($s->safe_psql('postgres', q{SELECT uuid_v1() IS NOT NULL}), qr/^t$/, 'the new primary generates');
is($s->safe_psql('postgres', qq{
        SELECT adopted_from, adopted_horizon >= '$replayed'::timestamptz + interval '7 s'
        FROM idgen_state WHERE generator = 'uuid_v1'}),
    'archive recovery|t', 'the margin was adopted though redo replayed no record');
ok($s->safe_psql('postgres', qq{SELECT uuid_v1_timestamp(uuid_v1()) >= '$replayed'::timestamptz + interval '7 s'})
   eq 't', 'ids start above the replayed horizon plus the margin');
$s->stop('fast');
done_testing();
