# The transitions of a move by logical replication where a duplicate first becomes possible, and
# the refusals that must each have a way out:
# - blue/green with both sides writing: a subscription to a publisher with this server's own node
#   id is refused before it is made (no slot is left on the publisher), and its HINT's step (a
#   node id of its own, a restart) lets it subscribe; then the old server A and the new server B
#   both make live ids at the same time while subscribed, B backfills, the subscription is
#   dropped while A goes on (it drains) and B goes on too: no id twice across both;
# - a subscription in a database without idgen keeps the server-wide retrospective ids of the
#   databases with idgen waiting; the very command its HINT names, run where the error is raised,
#   ends the wait;
# - a publisher without idgen made no retrospective ids: nothing waits, in the subscribing
#   database nor in another database with idgen (the subscribing database publishes what it
#   learnt as the subscription's security label); a subscription forgotten in its own database
#   no longer holds up another database either; the label is idgen's to write;
# - a subscription that never brought a row (connect = false, never enabled, no slot) drops as
#   PostgreSQL drops it, with no connection and no message, in a database with idgen and in one
#   without;
# - guard rows left by CREATE SUBSCRIPTIONs that were rolled back are freed when rows run out;
# - idgen_carry_state waits until no worker of the disabled subscription is left applying.
use strict;
use warnings;
use IPC::Run;
use IO::Socket::INET;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes;
use IdgenTest;

my $conf = "wal_level = logical\nmax_wal_senders = 10\nmax_replication_slots = 10\nmax_worker_processes = 16\n";
my $ts = q{'2015-06-15 12:00:00+00'::timestamptz};

sub error_of {
    my ($node, $db, $sql) = @_;
    my ($ret, $out, $err) = $node->psql($db, "\\set VERBOSITY verbose\n$sql");
    return $ret == 0 ? '' : $err;
}

# Live ids of every generator that carries the node id, $n rows in one statement.
sub live_sql {
    my ($table, $n) = @_;
    return "INSERT INTO $table (sf, ut, u1, u7) SELECT snowflake_next('s'), unique_timestamp(), uuid_v1(), uuid_v7() "
      . "FROM generate_series(1, $n)";
}

# Runs each [node, db, sql] at the same time, each as its own psql; waits for all.
sub at_once {
    my @runs = map {
        my ($node, $db, $sql) = @$_;
        my ($out, $err) = ('', '');
        [ IPC::Run::start([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr($db), '-c', $sql ],
              '>', \$out, '2>', \$err), \$err ]
    } @_;
    for (@runs) {
        my ($h, $err) = @$_;
        $h->finish or die "a concurrent statement failed: $$err";
    }
}

my $a = app_server('a', 1, $conf, q{
    CREATE TABLE events (id bigserial PRIMARY KEY, sf bigint, ut bigint, u1 uuid, u7 uuid, ua uuid, un uuid, sa bigint, a7 uuid);
    CREATE PUBLICATION user_table FOR TABLE events;});
$a->safe_psql('app', live_sql('events', 20000));
my $schema = $a->basedir . '/schema.sql';
$a->command_ok([ 'pg_dump', '--schema-only', '--no-publications', '-f', $schema, '-d', $a->connstr('app') ],
    'pg_dump --schema-only of the old database');

# B: the same settings as A, node id included.
my $b = idgen_node('b', node_id => 1, conf => $conf);
start_node($b);
$b->safe_psql('postgres', 'CREATE DATABASE app');
$b->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', $schema, '-d', $b->connstr('app') ], 'b: the schema');
$b->safe_psql('app', q{
    SELECT snowflake_create('s', '2010-01-01 00:00:00+00', 128, backfill_nodes => 4);
    CREATE TABLE canary (id bigserial PRIMARY KEY, sf bigint, ut bigint, u1 uuid, u7 uuid);});
my $subscribe = "CREATE SUBSCRIPTION move CONNECTION '" . $a->connstr . " dbname=app' PUBLICATION user_table";
my $err = error_of($b, 'app', $subscribe);
like($err, qr/ERROR:  55000: CREATE SUBSCRIPTION: the publisher has this server's idgen.node_id \(1\)/,
    'same node id on both sides: CREATE SUBSCRIPTION is refused (55000)');
my ($step) = $err =~ /HINT:  Give this server a node id of its own \((ALTER SYSTEM SET idgen.node_id = \.\.\.;) and a restart\)/;
ok(defined $step, 'its HINT names the step: a node id of its own and a restart');
is($a->safe_psql('app', 'SELECT count(*) FROM pg_replication_slots'), '0', 'the refusal left no slot on the publisher');
is($b->safe_psql('app', 'SELECT count(*) FROM pg_subscription'), '0', 'and no subscription on the subscriber');

# The HINT's step, then the subscription.
$step =~ s/\.\.\./2/;
$b->safe_psql('postgres', $step);
$b->restart;
$b->safe_psql('app', $subscribe);
$b->poll_query_until('app', 'SELECT count(*) = 20000 FROM events') or die 'b: the initial copy did not arrive';

# Both sides write at the same time while subscribed: A into the published table, B into a
# local one and backfilling the historical rows it copied with the generators that carry its own
# node id (the others wait for the publisher's state).
at_once([ $a, 'app', live_sql('events', 30000) ], [ $b, 'app', live_sql('canary', 30000) ],
    [ $b, 'app', "UPDATE events SET ua = uuid_v1_at($ts + (id % 50) * interval '1 millisecond'), "
      . "a7 = uuid_v7_at($ts + (id % 50) * interval '1 millisecond') WHERE id <= 20000" ]);
$a->wait_for_catchup('move');
$b->safe_psql('app', 'DROP SUBSCRIPTION move');
# The sequencer was defined while B had node id 1: its backfill is moved to B, as snowflake_at's
# refusal says.
$b->safe_psql('app', "UPDATE snowflake_definitions SET backfill_owner = 2 WHERE name = 's'");
# A drains after the DROP while B has taken over; B backfills what waited.
at_once([ $a, 'app', live_sql('events', 30000) ], [ $b, 'app', live_sql('canary', 30000) ],
    [ $b, 'app', "UPDATE events SET un = uuid_v1_at($ts + (id % 50) * interval '1 millisecond', '08:00:2b:01:02:03'), "
      . "sa = snowflake_at('s', $ts + (id % 50) * interval '1 millisecond') WHERE id <= 20000" ]);
# Every live id of both servers: A's whole table (with what it made after the DROP), B's own.
for my $col (qw(sf ut u1 u7)) {
    my @ids = split /\n/, $a->safe_psql('app', "SELECT $col FROM events");
    push @ids, split /\n/, $b->safe_psql('app', "SELECT $col FROM canary");
    is(scalar(@ids), 140000, "$col: every live id of both servers");
    ok(all_unique(@ids), "$col: no id twice across the old and the new server, both writing");
}
is($b->safe_psql('app', q{
    SELECT count(ua) - count(DISTINCT ua), count(a7) - count(DISTINCT a7), count(un) - count(DISTINCT un),
           count(sa) - count(DISTINCT sa), count(ua) FROM events}),
    '0|0|0|0|20000', "b: the backfill while subscribed and after the DROP repeats nothing");

# A subscription in a database without idgen: the databases with idgen wait for their server-wide
# retrospective ids; the HINT's command, run where the error is raised, ends it.
$b->safe_psql('postgres', 'CREATE DATABASE plain');
$b->safe_psql('plain', 'CREATE TABLE events (id bigint PRIMARY KEY, sf bigint, ut bigint, u1 uuid, u7 uuid, ua uuid, un uuid, sa bigint, a7 uuid)');
$b->safe_psql('plain', "CREATE SUBSCRIPTION elsewhere CONNECTION '" . $a->connstr . " dbname=app' PUBLICATION user_table WITH (copy_data = false)");
$err = error_of($b, 'app', "SELECT uuid_v1_at($ts, '08:00:2b:01:02:03')");
like($err, qr/ERROR:  55000: .*database "plain" takes rows from subscription "elsewhere"/,
    'a subscription in a database without idgen: retrospective ids wait in the databases with idgen');
my ($way_out) = $err =~ /HINT:  From here: (SELECT idgen_forget_subscription\([^;]*\);)/;
ok(defined $way_out, 'the HINT names a command to run from here');
$b->safe_psql('app', $way_out);
is(error_of($b, 'app', "SELECT uuid_v1_at($ts, '08:00:2b:01:02:03')"), '', "the HINT's command ends the wait");
$b->safe_psql('plain', 'DROP SUBSCRIPTION elsewhere');

# A publisher without idgen: nothing to wait for.
my $c = idgen_node('c', node_id => 3, conf => $conf);
start_node($c);
$c->safe_psql('postgres', 'CREATE TABLE plain_rows (id int PRIMARY KEY); CREATE PUBLICATION p FOR TABLE plain_rows');
$b->safe_psql('app', 'CREATE TABLE plain_rows (id int PRIMARY KEY)');
$b->safe_psql('app', "CREATE SUBSCRIPTION from_c CONNECTION '" . $c->connstr . " dbname=postgres' PUBLICATION p");
is(error_of($b, 'app', "SELECT uuid_v1_at($ts, '08:00:2b:01:02:03'), snowflake_at('s', $ts)"), '',
    'a publisher without idgen: retrospective ids do not wait');
$b->safe_psql('postgres', 'CREATE DATABASE other');
$b->safe_psql('other', 'CREATE EXTENSION idgen');
is(error_of($b, 'other', "SELECT uuid_v1_at($ts, '08:00:2b:01:02:03'), uuid_v7_at($ts)"), '',
    'nor in another database with idgen: the subscribing database published it');
is($b->safe_psql('postgres', q{SELECT label FROM pg_seclabels WHERE objtype = 'subscription' AND objname = 'from_c'}),
   'publisher-without-idgen -1', "as the subscription's security label");
like(error_of($b, 'app', q{SECURITY LABEL FOR idgen ON SUBSCRIPTION from_c IS 'gone'}), qr/ERROR:  22023: "gone" is not an idgen guard/,
    'a label idgen could not have written is refused');
like(error_of($b, 'app', q{SECURITY LABEL ON SUBSCRIPTION from_c IS 'x'}), qr/ERROR:  \w+: no security label providers have been loaded/,
    'a SECURITY LABEL that does not name idgen meets PostgreSQL as it is without idgen');
$b->safe_psql('app', 'DROP SUBSCRIPTION from_c');
# A subscription to a publisher with idgen (and this server's node id unknown to it): every
# database with idgen waits; forgotten in its own database, it holds up none.
$b->safe_psql('app', "CREATE SUBSCRIPTION to_a CONNECTION '" . $a->connstr . " dbname=app' PUBLICATION user_table WITH (copy_data = false, enabled = false)");
like(error_of($b, 'other', "SELECT uuid_v1_at($ts, '08:00:2b:01:02:03')"), qr/ERROR:  55000: .*database "app" takes rows from subscription "to_a"/,
    'a publisher with idgen: another database waits');
$b->safe_psql('app', "SELECT idgen_forget_subscription('to_a')");
is(error_of($b, 'other', "SELECT uuid_v1_at($ts, '08:00:2b:01:02:03')"), '',
    'forgotten in its own database, it holds up no other');
$b->safe_psql('app', 'DROP SUBSCRIPTION to_a');

# A subscription that never brought a row drops as PostgreSQL drops it, with idgen or without.
for my $db ('app', 'plain') {
    $b->safe_psql($db, q{SET client_min_messages = error;
        CREATE SUBSCRIPTION never_used CONNECTION 'dbname=regress_doesnotexist' PUBLICATION p WITH (connect = false);
        ALTER SUBSCRIPTION never_used SET (slot_name = NONE)});
    my ($ret, $out, $stderr) = $b->psql($db, 'DROP SUBSCRIPTION never_used');
    is("$ret|$stderr", '0|', "$db: a subscription that never brought a row drops with no connection and no message");
}

# Rolled back after its guard row was written, 70 times (more than the table's rows): the rows
# are freed when needed, so a real subscription still gets its own.
for (1 .. 70) {
    $b->safe_psql('app', "BEGIN; CREATE SUBSCRIPTION rolled_back CONNECTION '" . $a->connstr
          . " dbname=app' PUBLICATION user_table WITH (create_slot = false, enabled = false); ROLLBACK;");
}
$b->safe_psql('app', "CREATE SUBSCRIPTION kept CONNECTION '" . $a->connstr
      . " dbname=app' PUBLICATION user_table WITH (create_slot = false, enabled = false, slot_name = NONE)");
is(error_of($b, 'app', "SELECT idgen_forget_subscription('kept')"), '',
    'after 70 rolled-back subscriptions, a new one still gets its guard row');
$b->safe_psql('app', 'DROP SUBSCRIPTION kept');

# A subscription disabled while its worker is inside a transaction (here waiting for a lock)
# still commits that transaction after the DISABLE: idgen_carry_state waits for its workers to
# stop, refuses while one has not, and takes the state over once none is left.
$a->safe_psql('app', 'CREATE TABLE held (id int PRIMARY KEY); CREATE PUBLICATION held_pub FOR TABLE held');
$b->safe_psql('app', 'CREATE TABLE held (id int PRIMARY KEY)');
$b->safe_psql('app', "CREATE SUBSCRIPTION held_case CONNECTION '" . $a->connstr . " dbname=app' PUBLICATION held_pub");
$b->poll_query_until('app', q{SELECT count(*) = 1 FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid
                              WHERE s.subname = 'held_case' AND r.srsubstate = 'r'}) or die 'held_case: no sync';
my $lock = $b->background_psql('app');
$lock->query_safe('BEGIN; LOCK TABLE held IN ACCESS EXCLUSIVE MODE');
$a->safe_psql('app', 'INSERT INTO held VALUES (1)');
$b->poll_query_until('app', q{SELECT count(*) > 0 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                              WHERE c.relname = 'held' AND NOT l.granted}) or die 'held_case: the worker did not wait';
$b->safe_psql('app', 'ALTER SUBSCRIPTION held_case DISABLE');
like(error_of($b, 'app', "SELECT idgen_carry_state('held_case')"),
    qr/ERROR:  55000: idgen_carry_state: subscription "held_case" is disabled, but its workers are still applying/,
    'a worker still inside a transaction after the DISABLE: idgen_carry_state refuses');
$lock->query_safe('COMMIT');
$lock->quit;
$b->poll_query_until('app', 'SELECT count(*) = 1 FROM held') or die 'held_case: the row did not arrive';
is(error_of($b, 'app', "SELECT idgen_carry_state('held_case')"), '', 'once its workers stopped, the state is taken over');
$b->safe_psql('app', 'DROP SUBSCRIPTION held_case');

# A subscription whose only table left its publication (ALTER SUBSCRIPTION ... REFRESH PUBLICATION
# forgets the table) still brought rows: with the publisher gone, its DROP still refuses until the
# state is taken over or declared not needed.
$a->safe_psql('app', 'CREATE TABLE r (id int PRIMARY KEY); INSERT INTO r VALUES (1); CREATE PUBLICATION refreshed FOR TABLE r');
$b->safe_psql('app', 'CREATE TABLE r (id int PRIMARY KEY)');
$b->safe_psql('app', "CREATE SUBSCRIPTION refresh_case CONNECTION '" . $a->connstr . " dbname=app' PUBLICATION refreshed");
$b->poll_query_until('app', 'SELECT count(*) = 1 FROM r') or die 'refresh_case: the copy did not arrive';
$a->safe_psql('app', 'ALTER PUBLICATION refreshed DROP TABLE r');
$b->safe_psql('app', 'ALTER SUBSCRIPTION refresh_case REFRESH PUBLICATION');
is($b->safe_psql('app', "SELECT count(*) FROM pg_subscription_rel"), '0', 'refresh_case: the refresh forgot the table');
$a->safe_psql('app', 'SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE NOT active');
$a->stop;
$b->safe_psql('app', 'ALTER SUBSCRIPTION refresh_case DISABLE; ALTER SUBSCRIPTION refresh_case SET (slot_name = NONE)');
like(error_of($b, 'app', 'DROP SUBSCRIPTION refresh_case'), qr/ERROR:  55000: DROP SUBSCRIPTION: idgen could not take over/,
    'refresh_case: a subscription that brought rows and then lost its table still takes the state over at its DROP');
# Its publisher now takes the connection and never answers (a socket listening where nobody
# accepts): the DROP reading it ends with the cancel of statement_timeout, not after the 10 s the
# read allows itself (5 s leaves a wide margin either way).
my $port = PostgreSQL::Test::Cluster::get_free_port();
$b->safe_psql('app', "ALTER SUBSCRIPTION refresh_case CONNECTION 'host=127.0.0.1 port=$port dbname=app'");
my $hole = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1', LocalPort => $port, Proto => 'tcp', ReuseAddr => 1)
  or die "listening on $port: $!";
my $started = Time::HiRes::time();
my $cancelled = error_of($b, 'app', "SET statement_timeout = '500ms'; DROP SUBSCRIPTION refresh_case");
my $took = Time::HiRes::time() - $started;
like($cancelled, qr/ERROR:  57014: canceling statement due to statement timeout/,
    'refresh_case: a DROP SUBSCRIPTION waiting on a publisher that never answers is cancelled');
cmp_ok($took, '<', 5, sprintf('refresh_case: at once (%.1f s), not after the read\'s 10 s', $took));
close $hole;
$b->safe_psql('app', "SELECT idgen_forget_subscription('refresh_case'); DROP SUBSCRIPTION refresh_case");
$_->stop for ($b, $c);
done_testing();
