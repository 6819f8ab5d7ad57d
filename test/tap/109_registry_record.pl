# The registry worker's record of the registry's generation (idgen.registry in the data
# directory) is a server's own only on the WAL timeline it wrote it on, and one that cannot be
# read stops the worker with the file named:
# - a standby made from a server before etcd forgot, promoted after the cluster was rebuilt,
#   joins the rebuilt generation as a server new to the registry: the other server stays
#   attached (judged as its own, the copied record marked the healthy cluster forgotten), ids go
#   on on both, none twice with those the old primary made;
# - the record damaged: the worker stops with a FATAL naming the file, the view idgen_registry
#   says why, live ids wait; removed (etcd was not rebuilt since), the server joins again.
# One major per test run: cluster mode is idgen's worker and etcd, the same on every major.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(sleep);
use IdgenTest;
use IdgenEtcd;

if (my @missing = IdgenEtcd::missing_programs()) {
    plan skip_all => "@missing not installed (Debian packages etcd-server, etcd-client)";
}

my $etcd = IdgenEtcd->new(members => 1);
$etcd->start;
my $conf = "idgen.registry = '" . $etcd->client_urls . "'\nidgen.registry_cluster = 'record'\n"
  . "idgen.registry_lease = 3\nidgen.max_lead = '1s'\nidgen.max_wait = '10s'\n";

# Attached, and the sequencer's node id claimed again (after a rebuild a moment later).
sub attached {
    my ($s) = @_;
    $s->poll_query_until('postgres', q{SELECT state = 'attached' FROM idgen_registry}) or die $s->name . ' did not attach';
    $s->poll_query_until('postgres', q{SELECT snowflake_next('s') > 0 FROM snowflake_definitions WHERE name = 's'
                                       UNION ALL SELECT true WHERE NOT EXISTS (SELECT FROM snowflake_definitions)})
      or die $s->name . ' issues no Snowflake ids';
}

sub make_ids {
    my ($s, $n) = @_;
    $s->safe_psql('postgres', qq{INSERT INTO ids SELECT unnest(ARRAY[snowflake_next('s')::text, uuid_v7()::text,
                                                                      unique_timestamp()::text])
                                  FROM generate_series(1, $n)});
}

my $s0 = idgen_node('s0', conf => $conf, init => { allows_streaming => 1 });
my $s1 = idgen_node('s1', conf => $conf);
for my $s ($s0, $s1) {
    start_node($s);
    $s->safe_psql('postgres', q{CREATE EXTENSION idgen; CREATE TABLE ids (id text)});
    attached($s);
    $s->safe_psql('postgres', q{SELECT snowflake_create('s', '2010-01-01 00:00:00+00', 128)});
    make_ids($s, 1000);
}

# A standby of s0, made while etcd still held its first generation: its copy of s0's record names it.
$s0->backup('base');
my $standby = idgen_standby($s0, 'base', 'standby');
$standby->start;

# etcd rebuilt empty: both servers notice, seed, and go on once the rebuild ran.
$etcd->wipe;
for my $s ($s0, $s1) {
    $s->poll_query_until('postgres', q{SELECT state = 'forgotten' AND last_error LIKE '%2 server(s) seeded%'
                                       FROM idgen_registry}) or die $s->name . ' did not notice';
}
like($s1->safe_psql('postgres', 'SELECT idgen_registry_rebuild()'), qr/^rebuilt: 2 server\(s\)/, 'the registry rebuilt');
attached($_) for $s0, $s1;
make_ids($s0, 1000);
$s0->wait_for_catchup($standby, 'replay', $s0->lsn('flush'));

# s0 goes; its standby is promoted and joins the rebuilt generation as a server new to it.
$s0->stop;
$standby->promote;
attached($standby);
ok($standby->log_contains(qr/"idgen\.registry" was written on WAL timeline 1, this server runs on timeline 2/),
    'the promoted standby takes its copy of the record for its source\'s');
sleep(3);    # three looks of every worker at the registry's generation
is($s1->safe_psql('postgres', 'SELECT state FROM idgen_registry'), 'attached',
    'the other server stays attached: nobody marked the rebuilt registry forgotten');
is($standby->safe_psql('postgres', 'SELECT state FROM idgen_registry'), 'attached', 'the promoted standby too');
make_ids($_, 1000) for $standby, $s1;
my %seen;
my $repeats = 0;
for my $s ($standby, $s1) {
    $repeats += $seen{$_}++ ? 1 : 0 for split /\n/, $s->safe_psql('postgres', 'SELECT id FROM ids');
}
is(scalar(keys %seen), 3 * 5000, 'every id: s0 before and after the rebuild (through WAL), the promoted standby, s1');
is($repeats, 0, 'none twice');

# A damaged record: the worker stops, naming the file; live ids wait. Removed, the server joins again.
$s1->stop;
my $record = $s1->data_dir . '/idgen.registry';
open my $f, '>', $record or die $!;
print $f 'x' x 300;
close $f;
$s1->start;
ok($s1->poll_query_until('postgres', q{SELECT last_error LIKE 'the file "idgen.registry" in the data directory is unreadable%'
                                       FROM idgen_registry}),
   'a damaged record: the view says which file');
ok($s1->log_contains(qr/FATAL:  idgen registry worker: the file "idgen\.registry" in the data directory is unreadable/),
   'the worker stops with a FATAL naming it');
sleep(2);
isnt($s1->safe_psql('postgres', 'SELECT state FROM idgen_registry'), 'attached', 'and does not attach');
my ($ret, $out, $err) = $s1->psql('postgres', "\\set VERBOSITY verbose\nSELECT snowflake_next('s')");
like($err, qr/ERROR:  55000/, 'live ids wait, then are refused');
$s1->stop;
unlink $record or die $!;
$s1->start;
attached($s1);
make_ids($s1, 10);
pass('removed (etcd not rebuilt since), the server joins again and makes ids');

$_->stop for $standby, $s1;
$etcd->stop;
done_testing();
