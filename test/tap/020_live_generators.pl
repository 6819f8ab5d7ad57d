# uuid_v1(), uuid_v6(), uuid_v7(), locality_uuid() and unique_timestamp() under real processes: 8 concurrent clients
# into UNIQUE columns; a crash followed by a restart with the clock 30 s back (only the durable
# horizon stands between that and repeated values); the clock an hour back in a live server;
# and Python's uuid module agreeing with uuid_v1()'s fields.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

# Each generator, a SQL expression that orders its values as it issues them.
my %order = (
    'uuid_v1()'          => q{('x' || substr(v::text, 16, 3) || substr(v::text, 10, 4) || substr(v::text, 1, 8))::bit(60)::bigint},
    'locality_uuid()'    => q{(extract(epoch FROM locality_uuid_timestamp(v)) * 1000)::bigint},
    'unique_timestamp()' => q{v},
    # The first 64 bits: version 7's millisecond and fraction, version 6's time (and the version).
    'uuid_v7()'          => q{('x' || substr(v::text, 1, 8) || substr(v::text, 10, 4) || substr(v::text, 15, 4))::bit(64)::bigint},
    'uuid_v6()'          => q{('x' || substr(v::text, 1, 8) || substr(v::text, 10, 4) || substr(v::text, 15, 4))::bit(64)::bigint},
);
my @generators = sort keys %order;
my %type = ('uuid_v1()' => 'uuid', 'locality_uuid()' => 'uuid', 'unique_timestamp()' => 'bigint',
            'uuid_v7()' => 'uuid', 'uuid_v6()' => 'uuid');

my $node = idgen_node('live', node_id => 42, faketime => '+0');
start_node($node);
$node->safe_psql('postgres', 'CREATE EXTENSION idgen');

# 8 clients x 50 transactions x 1,000 values, per generator, into a primary key.
for my $g (@generators) {
    (my $t = $g) =~ s/\W//g;
    $node->safe_psql('postgres', "CREATE TABLE $t (v $type{$g} PRIMARY KEY)");
    $node->pgbench('--no-vacuum --client=8 --jobs=2 --transactions=50', 0,
        [qr{processed: 400/400}], [qr{^$}], "$g: 8 clients x 50,000 values, no unique violation",
        { "ins_$t" => "INSERT INTO $t SELECT $g FROM generate_series(1, 1000);" });
    is($node->safe_psql('postgres', "SELECT count(*), count(DISTINCT v) FROM $t"), '400000|400000',
        "$g: 400,000 distinct values");
}

# A crash, then a restart with the clock 30 seconds back: every value after is above every
# value before (for locality_uuid: its millisecond), because generation resumes above the horizon.
my %before;
for my $g (@generators) {
    $before{$g} = $node->safe_psql('postgres', "SELECT max($order{$g}) FROM (SELECT $g AS v FROM generate_series(1, 10000)) s");
}
$node->stop('immediate');
set_clock($node, '-30');
start_node($node);
for my $g (@generators) {
    my $after = $node->safe_psql('postgres',
        "SET idgen.max_lead = '1min'; SELECT min($order{$g}) FROM (SELECT $g AS v FROM generate_series(1, 10000)) s");
    cmp_ok($after, '>', $before{$g}, "$g: after a crash and a restart 30 s back, above every value before");
}
set_clock($node, '+0');

# The clock an hour back in the running server: a clear 55000, never a smaller value.
set_clock($node, '-1h');
for my $g (@generators) {
    like(psql_error($node, "SELECT $g"), qr/55000: \Q$g\E: the wall clock is \d+ ms behind/,
        "$g: clock an hour back: 55000 saying how far behind");
}
set_clock($node, '+0');
for my $g (@generators) {
    my $v = $node->safe_psql('postgres', "SELECT min($order{$g}) FROM (SELECT $g AS v FROM generate_series(1, 1000)) s");
    cmp_ok($v, '>', $before{$g}, "$g: clock back: generation continues above");
}

# Python's uuid module reads uuid_v1()'s fields as idgen does.
my $rows = $node->safe_psql('postgres', q{
    SELECT u, (extract(epoch FROM uuid_v1_timestamp(u)) * 1000000)::bigint, uuid_v1_clock_seq(u),
           ('x' || replace(uuid_v1_node(u)::text, ':', ''))::bit(48)::bigint
    FROM (SELECT uuid_v1() AS u FROM generate_series(1, 200)) s});
my $py = q{
import sys, uuid
bad = 0
for line in sys.stdin:
    u, us, seq, node = line.strip().split('|')
    x = uuid.UUID(u)
    if not (x.version == 1 and x.variant == uuid.RFC_4122 and (x.time - 0x01b21dd213814000) // 10 == int(us)
            and x.clock_seq == int(seq) and x.node == int(node)):
        bad += 1
print(bad)
};
my ($stdout, $stderr);
IPC::Run::run([ 'python3', '-c', $py ], '<', \$rows, '>', \$stdout, '2>', \$stderr);
chomp $stdout;
is($stdout, '0', "Python's uuid module agrees with every field of 200 uuid_v1() values") or diag $stderr;

$node->stop;
done_testing();
