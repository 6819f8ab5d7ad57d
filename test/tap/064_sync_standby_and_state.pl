# Synchronous replication and the idgen_state view.
# - With a synchronous standby configured, no id is handed out before the WAL that covers it
#   is confirmed: with the standby down, a generator that needs its horizon moved waits, and a
#   canceled wait (statement_timeout) is an error (57014), never an id. Once the standby is
#   back, generation goes on.
# - The view tells the role, the horizon and the LSN that made it durable, waits and errors,
#   and, after a promotion, the state adopted: at least the replayed horizon plus
#   idgen.failover_margin.
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
my $s = idgen_standby($p, 'base', 'sync_standby');
start_node($s);
$p->append_conf('postgresql.conf', "synchronous_standby_names = 'sync_standby'\n");
$p->reload;
$p->poll_query_until('postgres',
    q{SELECT sync_state = 'sync' FROM pg_stat_replication WHERE application_name = 'sync_standby'})
  or die 'the standby never became synchronous';

# Ids over 3 s of wall-clock time: the horizon (1 s ahead) has to move at least twice.
my $three_seconds = q{SELECT count(DISTINCT id) FROM (SELECT snowflake_next('ids') AS id, pg_sleep(0.1)
                                                  FROM generate_series(1, 30)) t};
is($p->safe_psql('postgres', $three_seconds), '30', 'ids with the synchronous standby up');

my $last = $p->safe_psql('postgres', q{SELECT snowflake_timestamp('ids', snowflake_next('ids'))});
is($p->safe_psql('postgres', qq{SELECT role, horizon_lsn IS NOT NULL, durable_horizon > '$last'
                                FROM idgen_state WHERE generator = 'snowflake_next'}),
    'primary|t|t', 'view: primary, the horizon above the last id and durable at an LSN');
is($s->safe_psql('postgres', q{SELECT DISTINCT role FROM idgen_state}), 'standby', 'view on the standby: standby');

# The standby down: the next horizon move cannot be confirmed.
$s->stop('fast');
my $err = psql_error($p, "SET statement_timeout = '4s';\n$three_seconds");
like($err, qr/ERROR:\s+57014: snowflake_next\(\): canceled while waiting for synchronous standbys/,
    'standby down: the wait for it is canceled with 57014, no id handed out');
# A session that asks for no synchronous wait (synchronous_commit = off) moves the horizon for its
# own ids; a session that does wait must not take that move as confirmed.
is($p->safe_psql('postgres', "SET synchronous_commit = off;\n$three_seconds"), '30',
    'standby down, synchronous_commit off: this session generates (as its commits would go)');
like(psql_error($p, q{SET statement_timeout = '2s'; SELECT snowflake_next('ids')}),
    qr/ERROR:\s+57014: snowflake_next\(\): canceled while waiting/,
    'a waiting session does not trust the horizon the other session moved unconfirmed: 57014');
start_node($s);
$p->poll_query_until('postgres',
    q{SELECT sync_state = 'sync' FROM pg_stat_replication WHERE application_name = 'sync_standby'})
  or die 'the standby never became synchronous again';
is($p->safe_psql('postgres', $three_seconds), '30', 'standby back: ids again');

# Waits and errors: no lead and no waiting, so a burst runs out of its millisecond at once.
my $burst = q{SET idgen.max_lead = 0; SET idgen.max_wait = 0;
              SELECT count(snowflake_next('ids')) FROM generate_series(1, 100000)};
like(psql_error($p, $burst), qr/ERROR:\s+55000:/, 'a burst with no lead allowed fails with 55000');
is($p->safe_psql('postgres',
        q{SELECT waits >= 1, clock_errors >= 1 FROM idgen_state WHERE generator = 'snowflake_next'}),
    't|t', 'view: the wait and the error are counted');

# Promotion: the adopted state is the replayed horizon plus the margin.
$p->wait_for_catchup($s);
my $replayed = $s->safe_psql('postgres',
    q{SELECT durable_horizon FROM idgen_state WHERE generator = 'uuid_v1'});
$p->stop('immediate');
$s->promote;
is($s->safe_psql('postgres', qq{
        SELECT role, adopted_from, adopted_horizon >= '$replayed'::timestamptz + interval '7 s',
               next_id_time >= adopted_horizon, failover_margin
        FROM idgen_state WHERE generator = 'uuid_v1'}),
    "primary|archive recovery|t|t|00:00:07", 'view after promotion: the replayed horizon plus the margin adopted');
ok($s->safe_psql('postgres', q{SELECT uuid_v1_timestamp(uuid_v1()) >= adopted_horizon FROM idgen_state
                                 WHERE generator = 'uuid_v1'}) eq 't',
    'the new primary issues above the adopted horizon at once (no wait for its clock)');

$s->stop('fast');
done_testing();
