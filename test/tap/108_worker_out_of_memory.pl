# The registry worker out of memory: it exits alone with FATAL, and the postmaster starts it
# again, where an allocation failure under -fno-exceptions used to end in std::terminate (SIGABRT)
# and the crash restart of every backend. The failure is injected from the server's environment
# (IDGEN_TEST_WORKER_OUT_OF_MEMORY), which only a test build reads (make TEST_HOOKS=yes, as
# scripts/test builds); no etcd is needed, the worker fails before it calls one.
# One major per test run: the worker's memory handling is idgen's own.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $library = `pg_config --pkglibdir`;
chomp $library;
plan skip_all => 'idgen was built without test hooks (make TEST_HOOKS=yes)'
  unless slurp_file("$library/idgen.so") =~ /IDGEN_TEST_WORKER_OUT_OF_MEMORY/;

my $node = idgen_node('worker_oom', conf => "idgen.registry = 'http://127.0.0.1:9'\n");
{
    local $ENV{IDGEN_TEST_WORKER_OUT_OF_MEMORY} = '1';
    $node->start;
}
my $session = $node->background_psql('postgres');
my $pid = $session->query_safe('SELECT pg_backend_pid()');

# The worker fails, and is started again (bgw_restart_time 1 s), at least twice.
my $log = sub { slurp_file($node->logfile) };
my $waited = 0;
while ((() = $log->() =~ /FATAL:  out of memory in idgen's registry worker/g) < 2 && $waited < 30) {
    sleep(1);
    $waited++;
}
cmp_ok(scalar(() = $log->() =~ /FATAL:  out of memory in idgen's registry worker/g), '>=', 2,
    'the worker out of memory exits with FATAL, and is started again');
unlike($log->(), qr/terminating any other active server processes|was terminated by signal/,
    'no crash restart: no process was killed by a signal');
is($session->query_safe('SELECT pg_backend_pid()'), $pid, 'a session connected before goes on in the same backend');
$session->quit;

$node->stop;
done_testing();
