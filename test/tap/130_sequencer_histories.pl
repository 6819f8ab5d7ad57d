# Random histories of the Snowflake sequencers, checked in the manner of Jepsen's Elle: 3 or 4
# sessions on one server interleave snowflake_create (2 or 3 colliding names; random epochs, some
# later than the name's last definition; every layout, node counts, presets, backfill nodes),
# snowflake_drop, snowflake_next in batches, snowflake_at, BEGIN / COMMIT / ROLLBACK, savepoints,
# errors inside transactions, PREPARE TRANSACTION with COMMIT or ROLLBACK PREPARED from any
# session, snowflake_convert, clients leaving mid-transaction and now and then an immediate
# restart, as a PRNG seeded from a printed seed schedules them (test/lib/sequencer_histories.py
# drives them and explains the choices). Tests that walk the paths someone thought of let 0.9.7
# hand out ids twice after a rolled-back create and after a name was defined again with a later
# epoch, and leak every sequencer slot through rolled-back creates; this one finds its own paths.
# The invariant, after every history: every id returned under a name to any transaction,
# whatever became of it (committed, rolled back, prepared then either, lost in a crash), differs
# from every other id returned under that name in that database, over every definition of the
# name and every history of the run; each decodes, under the definition its statement saw, to
# the time of its call (snowflake_at: its ts) and to the server's node id (snowflake_at: a
# reserved backfill node); and with the sessions gone and the names dropped a new sequencer can
# still be created and drawn from (no slot leaked). Of every three histories two run on the C
# extension and one on the plain-SQL edition (hosted/idgen_hosted.sql, in a schema of another
# database; no snowflake_at or snowflake_convert there).
# One major per test run: what it checks is idgen's own slots, caches and callbacks, the same on every major.
# IDGEN_HISTORIES=N runs N histories (default 1,000); IDGEN_HISTORY_SEED=S replays the run of
# seed S, and IDGEN_HISTORY_FIRST=I with IDGEN_HISTORIES=K its histories I to I+K-1 alone (each
# violation reported names the ones to replay). A replay makes the same choices; what depends
# on timing (which statement waits on a lock, the epochs taken from the clock) may differ.
use strict;
use warnings;
use FindBin;
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $histories = $ENV{IDGEN_HISTORIES} // 1000;
my $seed = $ENV{IDGEN_HISTORY_SEED} // int(rand(2**31));
my $first = $ENV{IDGEN_HISTORY_FIRST} // 0;
my $node_id = 5;            # a live node id in every layout, also in javascript's 16 nodes less 8 for backfill
my $max_sequencers = 8;     # a few slots, so that leaked ones show within a few histories
note "seed $seed";
diag("seed $seed ($histories histories from $first; IDGEN_HISTORY_SEED=$seed replays them)");

my $node = idgen_node('sequencer_histories', node_id => $node_id, conf => qq{
max_prepared_transactions = 10
idgen.max_sequencers = $max_sequencers
deadlock_timeout = '100ms'
log_statement = none
log_min_error_statement = panic
});
start_node($node);
$node->safe_psql('postgres', q{
    CREATE DATABASE c_edition;
    CREATE ROLE app LOGIN;
    CREATE DATABASE hosted_edition OWNER app;
});
$node->safe_psql('c_edition', 'CREATE EXTENSION idgen');
# The plain-SQL edition as README's "On a hosted service" installs it: a role that is not a
# superuser, psql -f into a schema of its own, the database's node id set by its owner.
$node->safe_psql('hosted_edition', 'CREATE SCHEMA idgen', extra_params => [ '-U', 'app' ]);
{
    local $ENV{PGOPTIONS} = '-c search_path=idgen';
    $node->psql('hosted_edition', undef, on_error_die => 1,
        extra_params => [ '-U', 'app', '-v', 'ON_ERROR_STOP=1', '-f', "$FindBin::Bin/../../hosted/idgen_hosted.sql" ]);
}
$node->safe_psql('hosted_edition', "SELECT idgen.idgen_set_node_id($node_id)", extra_params => [ '-U', 'app' ]);

my $python = -x '/usr/bin/python3' ? '/usr/bin/python3' : 'python3';
my $summary_file = $node->basedir . '/summary.json';
my $log_file = $node->basedir . '/histories.log';
my ($out, $err) = ('', '');
my $pg_ctl = ($node->config_data('--bindir'))[0] . '/pg_ctl';
my $ran = IPC::Run::run(
    [ $python, "$FindBin::Bin/../lib/sequencer_histories.py",
      '--host', $node->host, '--port', $node->port, '--superuser', scalar(getpwuid($<)),
      '--c-db', 'c_edition', '--hosted-db', 'hosted_edition', '--hosted-user', 'app', '--hosted-schema', 'idgen',
      '--pg-ctl', $pg_ctl, '--data-dir', $node->data_dir, '--log-file', $node->logfile,
      '--node-id', $node_id, '--max-sequencers', $max_sequencers,
      '--seed', $seed, '--histories', $histories, '--first', $first,
      '--summary', $summary_file, '--log', $log_file ],
    '>', \$out, '2>', \$err, IPC::Run::timeout(600 + $histories));
ok($ran, 'the driver ran to its end') or diag("driver:\n$out$err");
note $err if $err;
die "no summary from the driver\n" unless -e $summary_file;
my $summary = decode_json(slurp_file($summary_file));

# The histories did what they are for: every kind of operation ran, and succeeded at times
# (checked on runs of 1,000 histories or more, where each succeeds dozens of times at least).
is($summary->{histories}, $histories, "$histories histories in $summary->{seconds} s, $summary->{ids} ids, "
    . "$summary->{restarts} immediate restarts");
my %stats = %{ $summary->{stats} };
note join "\n", map {
    my $k = $_;
    sprintf('%-16s %s', $k, join(', ', map { "$_ $stats{$k}{$_}" } sort keys %{ $stats{$k} }))
} sort keys %stats;
if ($histories >= 1000) {
    for my $kind (qw(create drop next at begin commit rollback savepoint rollback_to release prepare
                     finish_prepared convert disconnect restart)) {
        cmp_ok($stats{$kind}{ok} // 0, '>', 0, "some $kind succeeded");
    }
}

note "ids of the plain-SQL edition's documented meeting (a rolled-back creation's ids and the name "
   . "made again otherwise; docs/hosted.md): $summary->{documented_meetings}";
# The invariant.
is($summary->{violations}, 0, 'every id returned once under its name, decoding to its definition\'s '
    . 'time and node (' . join(', ', map { "$_: $summary->{violation_kinds}{$_}" } sort keys %{ $summary->{violation_kinds} }) . ')')
  or diag(join("\n", @{ $summary->{evidence} }) . "\n(each history, operation by operation: $log_file)");
is($summary->{slot_probe_failure_count}, 0, 'after every history a new sequencer still works (no slot leaked)')
  or diag(join("\n", @{ $summary->{slot_probe_failures} }));
my @counts = @{ $summary->{slot_counts} };
note sprintf('sequencer slots in use (of %d) with no sequencer defined: %s', $max_sequencers,
    join(', ', map { "history $_->{hist} $_->{when}: " . ($_->{in_use} // '?') } @counts));

$node->stop;
done_testing();
