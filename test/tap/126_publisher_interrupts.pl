# A backend waiting on a publisher that took the connection and never answers (idgen_carry_state,
# as DROP SUBSCRIPTION reads a publisher's state) is served every interrupt while it waits: a
# ProcSignalBarrier, which any DROP DATABASE on the server sends to every backend, leaves it
# waiting on the same connection (a wait that closed the connection and then went on used it
# freed: the server crashed and restarted), and a cancel still ends it within a second.
use strict;
use warnings;
use IO::Socket::INET;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();
use IdgenTest;

my $node = idgen_node('publisher_interrupts', node_id => 1);
start_node($node);
$node->safe_psql('postgres', q{CREATE EXTENSION idgen;
    CREATE SUBSCRIPTION s CONNECTION 'host=127.0.0.1 port=1 dbname=postgres' PUBLICATION p
        WITH (connect = false, enabled = false)});
my $started = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');

# A "publisher" that takes connections (the kernel accepts them into the backlog) and never answers.
my $silent = IO::Socket::INET->new(Listen => 5, LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp')
    or die "no listening socket: $!";
my $port = $silent->sockport;

my ($out, $err) = ('', '');
my $waiter = IPC::Run::start(
    [ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
      "SELECT idgen_carry_state('s', 'host=127.0.0.1 port=$port dbname=postgres connect_timeout=60')" ],
    '>', \$out, '2>', \$err, IPC::Run::timeout(60));
$node->poll_query_until('postgres',
    q{SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE 'SELECT idgen_carry_state%' AND wait_event = 'Extension'})
    or die 'idgen_carry_state does not wait on the publisher';
my $pid = $node->safe_psql('postgres', q{SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT idgen_carry_state%'});

# DROP DATABASE sends a ProcSignalBarrier and waits until every backend has absorbed it.
$node->safe_psql('postgres', 'CREATE DATABASE scratch');
$node->safe_psql('postgres', 'DROP DATABASE scratch');
Time::HiRes::sleep(0.5);
is($node->safe_psql('postgres', "SELECT wait_event FROM pg_stat_activity WHERE pid = $pid"), 'Extension',
   'a DROP DATABASE elsewhere on the server: the backend absorbed the barrier and still waits on the publisher');
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $started, 'the server did not crash');

my $cancelled_at = Time::HiRes::time();
$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
$waiter->finish;
my $took = Time::HiRes::time() - $cancelled_at;
like($err, qr/canceling statement due to user request/, 'a cancel ends the wait');
cmp_ok($took, '<', 1, sprintf('within a second (%.3f s)', $took));
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $started, 'and the server is still the same');
$node->stop;
done_testing();
