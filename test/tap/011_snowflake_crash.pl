# Guarantee 4: a crash (pg_ctl -m immediate) in the middle of generation, and a restart: no
# id the clients received before the crash is handed out again, and generation resumes
# above all of them, although a bulk load had run the ids seconds ahead of the wall clock.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $node = idgen_node('snowflake_crash', node_id => 9);
start_node($node);
$node->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    SELECT snowflake_create('s');  -- 512 ids per ms: the bulk load runs ids ahead of the clock
    CREATE TABLE ids (id bigint PRIMARY KEY);
});

# A client that asks for ids one statement at a time and writes down each one it receives.
my $script = $node->basedir . '/ids.sql';
my $received = $node->basedir . '/received.txt';
open(my $fh, '>', $script) or die $!;
print $fh "SELECT snowflake_next('s');\n" for 1 .. 2000000;
close $fh;
my $client = IPC::Run::start(
    [ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
      '-f', $script, '-o', $received ],
    '>', \my $client_out, '2>', \my $client_err);
my $load = $node->background_psql('postgres');
$load->query_until(qr/started/, q{
    \echo started
    SELECT count(snowflake_next('s')) FROM (SELECT generate_series(1, 1000000000)) g;
});
sleep 2;
$node->stop('immediate');
eval { $client->finish };  # psql stops at the lost connection
eval { $load->quit };

my @before = grep { /^\d+$/ } split /\n/, slurp_file($received);
cmp_ok(scalar @before, '>', 1000, 'the client received ids before the crash (' . scalar(@before) . ')');
ok(all_unique(@before), 'all distinct before the crash');

start_node($node);
my ($max_before) = sort { $b <=> $a } @before;
is($node->safe_psql('postgres', qq{SELECT snowflake_timestamp('s', $max_before) > clock_timestamp()}), 't',
    'the ids received before the crash ran ahead of the clock past the restart (so only the horizon protects them)');
my @after = split /\n/, $node->safe_psql('postgres',
    q{SELECT snowflake_next('s') FROM generate_series(1, 200000)});
my ($min_after) = sort { $a <=> $b } @after;
cmp_ok($min_after, '>', $max_before, 'after the restart, every id is above every id received before');
ok(all_unique(@before, @after), 'no id handed out twice across the crash');

# Ids committed before a crash stay unique against ids generated after it.
$node->safe_psql('postgres', q{INSERT INTO ids SELECT snowflake_next('s') FROM generate_series(1, 100000)});
$node->stop('immediate');
start_node($node);
$node->safe_psql('postgres', q{INSERT INTO ids SELECT snowflake_next('s') FROM generate_series(1, 100000)});
is($node->safe_psql('postgres', q{SELECT count(*), count(DISTINCT id) FROM ids}), '200000|200000',
    'a UNIQUE column takes ids from before and after a crash');

# The horizon is durable: a second crash right away still resumes above everything.
my $last = $node->safe_psql('postgres', q{SELECT max(id) FROM ids});
$node->stop('immediate');
start_node($node);
cmp_ok($node->safe_psql('postgres', q{SELECT snowflake_next('s')}), '>', $last,
    'a second crash and restart resume above the last id');
ok(-f $node->data_dir . '/idgen.horizon', 'the horizon file is in the data directory');

# Sony's layout counts 10 ms ticks of 256 ids: a bulk load runs its ids seconds ahead of the
# clock, a crash follows at once, and the restart resumes above them (the horizon read in ticks).
$node->safe_psql('postgres', q{SELECT snowflake_create('sony', preset => 'sonyflake')});
my $sony_last = $node->safe_psql('postgres',
    q{SET idgen.max_lead = '60s'; SELECT max(snowflake_next('sony')) FROM generate_series(1, 300000)});
is($node->safe_psql('postgres', qq{SELECT snowflake_timestamp('sony', $sony_last) > clock_timestamp() + interval '3 seconds'}),
    't', "Sony's layout: the bulk load ran its ids ahead of the clock");
$node->stop('immediate');
start_node($node);
cmp_ok($node->safe_psql('postgres', q{SET idgen.max_lead = '60s'; SELECT snowflake_next('sony')}), '>', $sony_last,
    "Sony's layout: after the crash, above every id of the bulk load");
$node->stop;
done_testing();
