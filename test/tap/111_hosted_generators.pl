# The plain-SQL edition's generators keep their promise on one server: 8 sessions make ids of
# every generator (uuid_v7(), uuid_v7_at(ts), uuid_v1_at(ts), uuid_v6_at(ts) and
# snowflake_next, the *_at ones all for one and the same ts, the hardest case; and in one row of
# ten snowflake_next of Sony's layout and of the javascript one, from their presets), the server
# crashes (immediate stop) in the middle and runs again, the sessions go on; then the database is
# dumped, restored into another, and the restored copy, given a node id of its own, makes more. No id twice, in any column,
# across all of it. The edition is installed as a role that is not a superuser would install it.
use strict;
use warnings;
use File::Basename qw(dirname);
use IPC::Run;
use Time::HiRes qw(sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $edition = dirname(__FILE__) . '/../../hosted/idgen_hosted.sql';
my $node = PostgreSQL::Test::Cluster->new('hosted_generators');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE ROLE app LOGIN; CREATE DATABASE appdb OWNER app; CREATE DATABASE restored OWNER app');
$node->safe_psql('appdb', 'CREATE SCHEMA idgen', extra_params => [ '-U', 'app' ]);
{
    local $ENV{PGOPTIONS} = '-c search_path=idgen';
    $node->psql('appdb', undef, on_error_die => 1, extra_params => [ '-U', 'app', '-v', 'ON_ERROR_STOP=1', '-f', $edition ]);
}
$node->safe_psql('appdb', q{
    SELECT idgen.idgen_set_node_id(1);
    SELECT idgen.snowflake_create('orders', '2024-01-01', 1024);
    SELECT idgen.snowflake_create('sony', preset => 'sonyflake');
    SELECT idgen.snowflake_create('js', preset => 'javascript');
    CREATE TABLE ids (phase text, v7 uuid, v7at uuid, v1at uuid, v6at uuid, sf bigint, sony bigint, js bigint);
}, extra_params => [ '-U', 'app' ]);

# Each transaction: 1,000 rows of every generator (100 of the presets' sequencers).
my $dir = PostgreSQL::Test::Utils::tempdir('hosted_generators');
sub script {
    my ($phase) = @_;
    open my $f, '>', "$dir/$phase.sql" or die $!;
    print $f qq{INSERT INTO ids SELECT '$phase', idgen.uuid_v7(), idgen.uuid_v7_at('2025-06-01 12:00:00+00'),
        idgen.uuid_v1_at('2025-06-01 12:00:00+00'), idgen.uuid_v6_at('2025-06-01 12:00:00+00'), idgen.snowflake_next('orders'),
        CASE WHEN g % 10 = 0 THEN idgen.snowflake_next('sony') END, CASE WHEN g % 10 = 0 THEN idgen.snowflake_next('js') END
    FROM generate_series(1, 1000) g;\n};
    close $f;
    return "$dir/$phase.sql";
}
sub pgbench {
    my ($db, $phase, $transactions) = @_;
    return [ 'pgbench', '-n', '-U', 'app', '-h', $node->host, '-p', $node->port, '-c', '8', '-j', '2',
             '-t', $transactions, '-f', script($phase), $db ];
}
sub rows { my ($db, $where) = @_; return $node->safe_psql($db, "SELECT count(*) FROM ids WHERE $where"); }

# Phase 1: 8 sessions, stopped by the crash part way.
my ($out, $err) = ('', '');
my $bench = IPC::Run::start(pgbench('appdb', 'before_crash', 100), '>', \$out, '2>', \$err);
my $waited = 0;
while (rows('appdb', q{phase = 'before_crash'}) < 100_000 && $waited < 120) { sleep(0.2); $waited += 0.2; }
$node->stop('immediate');
$bench->finish;
my $before = 0;
$node->start;
$before = rows('appdb', q{phase = 'before_crash'});
cmp_ok($before, '>=', 100_000, "$before rows of each generator committed before the crash");

# Phase 2: the same after the crash, to 800,000 ids of each generator in all.
IPC::Run::run(pgbench('appdb', 'after_crash', int((800_000 - $before) / 8000) + 1), '>', \$out, '2>', \$err)
  or diag($err);
my $total = rows('appdb', 'true');
cmp_ok($total, '>=', 800_000, "$total rows of each generator in all, 8 sessions, across the crash");
for my $col (qw(v7 v7at v1at v6at sf sony js)) {
    is($node->safe_psql('appdb', "SELECT count($col) - count(DISTINCT $col) FROM ids"), 0, "$col: no id twice across the crash");
}
# Each layout's node id where its formula puts it (Sony's machine id lowest), every javascript id
# below 2^53, and the times read back by the decoders given the layout.
is($node->safe_psql('appdb', q{SELECT count(*) FROM ids WHERE (sf >> 12) & 1023 <> 1 OR sony & 65535 <> 1
                                                         OR (js >> 6) & 63 <> 1 OR js >= 9007199254740992
                                                         OR idgen.snowflake_timestamp(sony, '2014-09-01', 65536, 'sonyflake')
                                                            NOT BETWEEN now() - interval '1 hour' AND now() + interval '1 hour'
                                                         OR idgen.snowflake_timestamp(js, '2020-01-01', 64, 'javascript')
                                                            NOT BETWEEN now() - interval '1 hour' AND now() + interval '1 hour'}),
   0, "the presets' ids carry node 1 where their layouts put it, and their times");
is($node->safe_psql('appdb', q{SELECT count(*) FROM ids WHERE idgen.uuid_v7_timestamp(v7at) <> '2025-06-01 12:00:00+00'
                                                         OR idgen.uuid_v1_timestamp(v1at) <> '2025-06-01 12:00:00+00'
                                                         OR idgen.uuid_v6_timestamp(v6at) <> '2025-06-01 12:00:00+00'}),
   0, 'every *_at id has exactly its time');

# Dump, restore into another database (as the role), and make more ids there.
my $dump = "$dir/appdb.dump";
command_ok([ 'pg_dump', '-Fc', '-U', 'app', '-h', $node->host, '-p', $node->port, '-f', $dump, 'appdb' ], 'pg_dump');
command_ok([ 'pg_restore', '-U', 'app', '-h', $node->host, '-p', $node->port, '-d', 'restored', $dump ], 'pg_restore as the role');
# The original goes on beside it on this server: the copy makes ids under a node id of its own.
$node->safe_psql('restored', 'SELECT idgen.idgen_set_node_id(2)', extra_params => [ '-U', 'app' ]);
IPC::Run::run(pgbench('restored', 'after_restore', 13), '>', \$out, '2>', \$err) or diag($err);
cmp_ok(rows('restored', q{phase = 'after_restore'}), '>=', 100_000, 'the restored copy makes more ids');
for my $col (qw(v7 v7at v1at v6at sf sony js)) {
    is($node->safe_psql('restored', "SELECT count($col) - count(DISTINCT $col) FROM ids"), 0,
       "$col: no id twice after the restore, old ids and new");
}

$node->stop;
done_testing();
