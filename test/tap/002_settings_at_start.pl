# Settings fixed at server start (and the failover margin, which decides where a promoted server
# starts its ids) that a server cannot read stop it, naming the setting: for an
# extension's setting PostgreSQL would only warn and use the default, and a default node id,
# cluster name, node or endpoint list would have the server issue ids that are not its own (a
# cluster name with a typo joins the default cluster's id space). Each malformed value below
# must keep the server from starting, with a FATAL that names the setting and the value; a
# valid configuration starts; and a reload to a bad value leaves the running value alone.
use strict;
use warnings;
use Time::HiRes qw(sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my @refused = (
    [ 'idgen.node_id',                 q{'abc'} ],
    [ 'idgen.node_id',                 q{8192} ],
    [ 'idgen.max_sequencers',          q{0} ],
    [ 'idgen.unique_timestamp_digits', q{5} ],
    [ 'idgen.uuid_node',               q{'not a mac'} ],
    [ 'idgen.uuid_node',               q{'03:00:00:00:00:01'} ],
    [ 'idgen.locality_mac',            q{'nonsense'} ],
    [ 'idgen.registry',                q{'127.0.0.1:2379'} ],
    [ 'idgen.registry',                q{'http://127.0.0.1:9 , etcd:2379'} ],
    [ 'idgen.registry_cluster',        q{'bad/name'} ],
    [ 'idgen.registry_cluster',        q{''} ],
    [ 'idgen.registry_lease',          q{'1s'} ],
    [ 'idgen.registry_margin',         q{'lots'} ],
    [ 'idgen.failover_margin',         q{'soon'} ],
    [ 'idgen.failover_margin',         q{'-1s'} ],
    [ 'idgen.node_id_source',          q{'citsu'} ],
);

my $node = idgen_node('settings_at_start');
my $base = slurp_file($node->data_dir . '/postgresql.conf');
my $case = 0;
for my $r (@refused) {
    my ($name, $value) = @$r;
    (my $shown = $value) =~ s/^'(.*)'$/$1/;
    $case++;
    open my $fh, '>', $node->data_dir . '/postgresql.conf' or die $!;
    print $fh $base, "$name = $value\n";
    close $fh;
    my $log_before = -s $node->logfile // 0;   # the log of this start alone
    ok(!$node->start(fail_ok => 1), "$name = $value: the server does not start");
    my $log = substr(slurp_file($node->logfile), $log_before);
    like($log, qr/FATAL:  invalid value for parameter "\Q$name\E": "\Q$shown\E"/, "$name = $value: a FATAL names it");
    unlike($log, qr/WARNING:  invalid value for parameter "\Q$name\E"/, "$name = $value: no fall-back to the default");
    like($log, qr/DETAIL:  It must be 'setting' or 'citus'\./, "$name = $value: the values it takes named")
        if $name eq 'idgen.node_id_source';
}

# Settings valid alone but not together stop it too.
for my $pair ([ "idgen.registry = 'http://127.0.0.1:9'\nidgen.registry_password = 'x'\nidgen.registry_password_file = '/dev/null'\n",
                qr/FATAL:  idgen.registry_password and idgen.registry_password_file cannot both be set/ ],
              [ "idgen.registry = 'http://127.0.0.1:9'\nidgen.registry_lease = 2\nidgen.registry_margin = 1000\n",
                qr/FATAL:  idgen.registry_margin \(1000 ms\) must be less than half of idgen.registry_lease \(2 s\)/ ]) {
    open my $fh, '>', $node->data_dir . '/postgresql.conf' or die $!;
    print $fh $base, $pair->[0];
    close $fh;
    my $log_before = -s $node->logfile // 0;
    ok(!$node->start(fail_ok => 1), 'a combination that cannot hold: the server does not start');
    like(substr(slurp_file($node->logfile), $log_before), $pair->[1], 'and says why');
}

# The same settings, valid: the server starts and uses them.
open my $fh, '>', $node->data_dir . '/postgresql.conf' or die $!;
print $fh $base, "idgen.node_id = 7\nidgen.uuid_node = '02:00:5e:10:00:01'\nidgen.locality_mac = '02:00:5e:00:53:01'\n"
  . "idgen.unique_timestamp_digits = 3\nidgen.max_sequencers = 8\n";
close $fh;
start_node($node);
$node->safe_psql('postgres', 'CREATE EXTENSION idgen');
is($node->safe_psql('postgres', q{SELECT uuid_v1_node(uuid_v1())}), '02:00:5e:10:00:01', 'valid settings: the server starts with them');

# A reload to a bad value leaves the running value: a setting fixed at start cannot change
# without a restart, and one that can is checked as it is read.
$node->append_conf('postgresql.conf', "idgen.node_id = 9\nidgen.uuid_node = 'zz'\nidgen.failover_margin = 'soon'\n");
my $log_before = -s $node->logfile;
$node->reload;
my $log = '';
for (1 .. 100) {
    $log = substr(slurp_file($node->logfile), $log_before);
    last if $log =~ /idgen.failover_margin/;
    sleep 0.1;
}
like($log, qr/parameter "idgen.node_id" cannot be changed without restarting the server/, 'a reload does not change idgen.node_id');
like($log, qr/invalid value for parameter "idgen.failover_margin": "soon"/, 'a reload to a malformed failover margin is refused');
is($node->safe_psql('postgres', q{SELECT current_setting('idgen.node_id') || ' ' || current_setting('idgen.failover_margin')}),
    '7 10s', 'the running values stay');
is($node->safe_psql('postgres', q{SELECT uuid_v1_node(uuid_v1())}), '02:00:5e:10:00:01', 'and so do the ids');
$node->stop;

done_testing();
