# What an ordinary role can do to the plain-SQL edition's locks and to the schema it lives in,
# and what the edition does about it:
# - the sequencer's advisory lock has a key anyone can read (1768842596, the sequence's oid) and
#   take: a role with no grant but CONNECT and USAGE on the schema holds it, and snowflake_next
#   fails within its bound (1 s, or the caller's shorter lock_timeout) with 55P03 naming the
#   sequencer and the holder's pid, instead of waiting forever; a wait that ends in time gives the
#   caller's lock_timeout back; snowflake_drop's wait is bounded the same way;
# - the jump (_idgen_snowflake_jump), which any caller of snowflake_next may call directly,
#   fails after it took its exclusive lock (its sequence's MAXVALUE lowered below now): the
#   session that called it holds no lock afterwards, and other sessions' calls go on;
# - the install refuses (42501), before it creates anything, a schema in which a role other than
#   its owner may create (PUBLIC or a named role), or whose owner is not the installing role,
#   also when it is run again to update.
use strict;
use warnings;
use File::Basename qw(dirname);
use Time::HiRes qw(time);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $edition = dirname(__FILE__) . '/../../hosted/idgen_hosted.sql';
my $node = PostgreSQL::Test::Cluster->new('hosted_locks');
$node->init;
$node->start;
my @app = (extra_params => [ '-U', 'app' ]);
$node->safe_psql('postgres', q{
    CREATE ROLE app LOGIN;
    CREATE ROLE caller LOGIN;
    CREATE ROLE intruder LOGIN;
    CREATE ROLE other LOGIN;
    CREATE DATABASE appdb OWNER app;
});

# psql -f the edition into SCHEMA of appdb as app, as docs/hosted.md says: (exit status, stderr).
sub install {
    my ($schema) = @_;
    local $ENV{PGOPTIONS} = "-c search_path=$schema";
    my ($ret, $out, $err) = $node->psql('appdb', undef,
        extra_params => [ '-U', 'app', '-v', 'ON_ERROR_STOP=1', '-v', 'VERBOSITY=verbose', '-f', $edition ]);
    return ($ret, $err);
}
$node->safe_psql('appdb', 'CREATE SCHEMA idgen', @app);
my ($ret, $err) = install('idgen');
is($ret, 0, 'the edition installs into a schema of its own role') or diag($err);
$node->safe_psql('appdb', q{
    SELECT idgen.idgen_set_node_id(1);
    SELECT idgen.snowflake_create('s', '2024-01-01', 1024);
    GRANT USAGE ON SCHEMA idgen TO caller;
    GRANT SELECT ON ALL TABLES IN SCHEMA idgen TO caller;
    GRANT USAGE ON ALL SEQUENCES IN SCHEMA idgen TO caller;
    GRANT USAGE ON SCHEMA idgen TO intruder;}, @app);
my ($key, $sequence) = split /\|/,
    $node->safe_psql('appdb', q{SELECT serial::oid::integer, serial FROM idgen.snowflake_definitions WHERE name = 's'});

# (seconds, stderr) of SQL run by ROLE in a session of its own; a call that waits for ever is
# stopped after 20 s (and then fails its test).
sub timed {
    my ($role, $sql) = @_;
    my $started = time;
    my ($ret, $out, $err) = $node->psql('appdb', "\\set VERBOSITY verbose\n$sql",
                                        timeout => 20, timed_out => \my $timed_out, extra_params => [ '-U', $role ]);
    return (time - $started, $timed_out ? 'timed out' : $err);
}
my $next = q{SELECT idgen.snowflake_next('s')};
my $margin = 1.5;   # seconds beyond the bound: a psql start and a loaded machine

# The intruder holds the sequencer's lock, exclusively, in a session it keeps open.
my $intruder = $node->background_psql('appdb', extra_params => [ '-U', 'intruder' ]);
my $intruder_pid = $intruder->query_safe('SELECT pg_backend_pid()');
$intruder->query_safe("SELECT pg_advisory_lock(1768842596, $key)");
my ($elapsed, $error) = timed('caller', $next);
like($error, qr/55P03: could not lock Snowflake sequencer "s" within 1000 ms.*DETAIL:.*held by pid $intruder_pid\b.*HINT:.*pg_terminate_backend/s,
     'snowflake_next under a lock held by an ordinary role: 55P03 naming the sequencer and the holder');
cmp_ok($elapsed, '>=', 0.95, sprintf('it waited its bound of 1 s (%.2f s)', $elapsed));
cmp_ok($elapsed, '<', 1 + $margin, sprintf('and no longer (%.2f s)', $elapsed));
($elapsed, $error) = timed('caller', "SET lock_timeout = '200ms'; $next");
like($error, qr/55P03: could not lock Snowflake sequencer "s" within 200 ms/, 'a shorter lock_timeout of the caller is the bound');
cmp_ok($elapsed, '<', 0.2 + $margin, sprintf('and it returns within it (%.2f s)', $elapsed));
($elapsed, $error) = timed('app', "BEGIN; SELECT idgen.snowflake_drop('s'); ROLLBACK");
like($error, qr/55P03: could not lock Snowflake sequencer "s" within 1000 ms/, 'snowflake_drop waits with the same bound');
cmp_ok($elapsed, '<', 1 + $margin, sprintf('(%.2f s)', $elapsed));
# Held shared, the lock keeps the jump's exclusive wait bounded: a sequence behind the clock
# needs one.
$intruder->query_safe("SELECT pg_advisory_unlock(1768842596, $key), pg_advisory_lock_shared(1768842596, $key)");
($elapsed, $error) = timed('caller', "SELECT pg_sleep(0.01); $next");
like($error, qr/55P03: could not lock Snowflake sequencer "s" within 1000 ms.*held by pid $intruder_pid\b.*CONTEXT:.*_idgen_snowflake_jump/s,
     'the jump under a shared lock held by an ordinary role: 55P03 too');
cmp_ok($elapsed, '<', 1 + $margin, sprintf('(%.2f s)', $elapsed));
# A wait that ends in time: the caller's own lock_timeout is back after it, in its transaction.
$intruder->query_safe("SELECT pg_advisory_unlock_shared(1768842596, $key), pg_advisory_lock(1768842596, $key)");
$intruder->query_until(qr/releasing/, "\\echo releasing\nSELECT pg_sleep(0.3), pg_advisory_unlock(1768842596, $key);\n");
my $started = time;
my $shown = $node->safe_psql('appdb', "BEGIN; SET LOCAL lock_timeout = '7s'; $next \\g /dev/null\nSHOW lock_timeout; COMMIT",
                             extra_params => [ '-U', 'caller' ]);
$elapsed = time - $started;
is($shown, '7s', 'a wait granted within the bound gives the caller its lock_timeout back');
cmp_ok($elapsed, '>=', 0.15, sprintf('(it waited: %.2f s)', $elapsed));
$intruder->query_safe('SELECT 1');   # its release has run
is($node->safe_psql('appdb', "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = $intruder_pid"), '0',
   'the intruder let go');
like($node->safe_psql('appdb', $next, extra_params => [ '-U', 'caller' ]), qr/^\d+$/, 'snowflake_next works again');
$intruder->quit;

# The jump fails after it took its exclusive lock: the sequence may not go as far as now (a
# MAXVALUE just above its last value), so its setval fails. Called directly by the caller, in a
# session that stays open.
my ($last, $max) = split /\|/, $node->safe_psql('appdb', "SELECT pg_sequence_last_value('$sequence'), seqmax FROM pg_sequence WHERE seqrelid = '$sequence'::regclass");
$node->safe_psql('appdb', "ALTER SEQUENCE $sequence MAXVALUE " . ($last + 3));
my $direct = $node->background_psql('appdb', on_error_stop => 0, extra_params => [ '-U', 'caller' ]);
my $direct_pid = $direct->query_safe('SELECT pg_backend_pid()');
$direct->query(q{SELECT pg_sleep(0.01); SELECT idgen._idgen_snowflake_jump('s')});
like($direct->{stderr}, qr/out of bounds|reached maximum value/, 'the jump, called directly, fails after taking its lock');
is($node->safe_psql('appdb', "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = $direct_pid
                              AND classid = 1768842596 AND objid = ${key}::oid"),
   '0', 'the session that called it holds no lock of the sequencer afterwards');
$node->safe_psql('appdb', "ALTER SEQUENCE $sequence MAXVALUE $max");
($elapsed, $error) = timed('caller', "SELECT pg_sleep(0.01); $next; $next");
is($error, '', 'another session\'s snowflake_next works, jumps included');
cmp_ok($elapsed, '<', 1, sprintf('at once (%.2f s)', $elapsed));
$direct->quit;

# The install refuses a schema others may create in, or owned by a role the installer is not,
# before it creates anything. Each case: 42501, the command to fix it in the hint, nothing made.
my %refused = (
    'CREATE granted to PUBLIC' => [ 'GRANT CREATE ON SCHEMA open_to_all TO PUBLIC', 'open_to_all',
        qr/42501: idgen will not be installed into schema open_to_all: roles other than its owner may create in it \(PUBLIC\).*HINT:  REVOKE CREATE ON SCHEMA open_to_all FROM PUBLIC;/s ],
    'CREATE granted to a role' => [ 'GRANT CREATE ON SCHEMA open_to_one TO other', 'open_to_one',
        qr/42501: idgen will not be installed into schema open_to_one: roles other than its owner may create in it \(other\).*HINT:  REVOKE CREATE ON SCHEMA open_to_one FROM other;/s ],
);
for my $case (sort keys %refused) {
    my ($grant, $schema, $expected) = @{ $refused{$case} };
    $node->safe_psql('appdb', "CREATE SCHEMA $schema; $grant", @app);
    my ($ret, $err) = install($schema);
    isnt($ret, 0, "$case: the install fails");
    like($err, $expected, "$case: 42501, with the REVOKE to run");
    is($node->safe_psql('appdb', "SELECT (SELECT count(*) FROM pg_class WHERE relnamespace = '$schema'::regnamespace)
                                        + (SELECT count(*) FROM pg_proc WHERE pronamespace = '$schema'::regnamespace)"),
       '0', "$case: it created nothing");
    $node->safe_psql('appdb', "REVOKE CREATE ON SCHEMA $schema FROM " . ($schema eq 'open_to_all' ? 'PUBLIC' : 'other'), @app);
    ($ret, $err) = install($schema);
    is($ret, 0, "$case: revoked as the hint says, it installs") or diag($err);
}
$node->safe_psql('appdb', 'CREATE SCHEMA theirs AUTHORIZATION other; GRANT USAGE ON SCHEMA theirs TO app');
($ret, $err) = install('theirs');
like($err, qr/42501: idgen will not be installed into schema theirs: its owner other is not a role that app acts as/,
     'a schema owned by a role the installer is not a member of: refused (42501)');
is($node->safe_psql('appdb', "SELECT count(*) FROM pg_proc WHERE pronamespace = 'theirs'::regnamespace"), '0', 'nothing made');
# Run again to update, into a schema opened to others since: refused, the edition as it was (a
# comment the file sets, changed here, is not set again).
$node->safe_psql('appdb', q{COMMENT ON FUNCTION idgen.uuid_v7() IS 'as it was'; GRANT CREATE ON SCHEMA idgen TO PUBLIC}, @app);
($ret, $err) = install('idgen');
like($err, qr/42501: idgen will not be installed into schema idgen: roles other than its owner may create in it \(PUBLIC\)/,
     'an update into a schema others may create in: refused');
is($node->safe_psql('appdb', q{SELECT obj_description('idgen.uuid_v7()'::regprocedure, 'pg_proc')}), 'as it was',
   'the edition is left as it was');

$node->stop;
done_testing();
