# uuid_v7() under real processes, with idgen.ordering = strict (090 tests the default
# order, session). 8 clients x 100,000 UUIDs into a primary key: each
# session's UUIDs strictly increase, and no UUID sorts below one whose call had ended before its
# own call started. Then the strict server-wide order with a causal witness: with the server's
# clock frozen (every UUID then comes from the shared clock's counter and lead, none from the
# wall clock), four sessions take turns under an advisory lock and number their calls with a
# sequence; sorted by UUID they come out in the order of the numbers. Then an independent
# decoder (Python, from RFC 9562's field tables) reads 10,000 UUIDs of each kind as idgen does,
# and from PostgreSQL 17 on, core's uuid_extract_version/uuid_extract_timestamp agree (and on 18,
# idgen reads core uuidv7()'s sub-millisecond fraction).
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $node = idgen_node('v7', node_id => 77, faketime => '+0', conf => "idgen.ordering = strict\n");
start_node($node);
$node->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    CREATE SEQUENCE call_order;
    CREATE TABLE v7 (u uuid PRIMARY KEY, pid int, n bigint, t0 timestamptz, t1 timestamptz);
});

# 8 clients x 100 transactions x 1,000 UUIDs. Within a target list PostgreSQL evaluates left to
# right: t0 before the call, n and t1 after it.
$node->pgbench('--no-vacuum --client=8 --jobs=2 --transactions=100', 0,
    [qr{processed: 800/800}], [qr{^$}], 'uuid_v7(): 8 clients x 100,000 UUIDs into a primary key',
    { 'v7' => 'INSERT INTO v7 SELECT u, pg_backend_pid(), nextval(\'call_order\'), t0, clock_timestamp() '
        . 'FROM (SELECT clock_timestamp() AS t0, uuid_v7() AS u FROM generate_series(1, 1000) OFFSET 0) s;' });
is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT u) FROM v7'), '800000|800000', '800,000 distinct UUIDs');
is($node->safe_psql('postgres', q{
    SELECT count(*) FROM (SELECT u, lag(u) OVER (PARTITION BY pid ORDER BY n) AS prev FROM v7) s WHERE u <= prev}),
    '0', 'each session\'s UUIDs strictly increase');
is($node->safe_psql('postgres', q{
    SELECT count(*) FROM (SELECT t1, max(t0) OVER (ORDER BY u ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS started
                          FROM v7) s WHERE started > t1}),
    '0', 'across sessions, no UUID sorts below one whose call ended before it started');

# The causal witness, clock frozen: calls serialised by the lock, numbered in call order.
freeze_clock($node, time);
$node->safe_psql('postgres', 'CREATE TABLE turns (n bigint, u uuid)');
$node->pgbench('--no-vacuum --client=4 --jobs=2 --transactions=2000', 0,
    [qr{processed: 8000/8000}], [qr{^$}], 'four sessions taking turns, clock frozen',
    { 'turn' => "BEGIN;\nSELECT pg_advisory_xact_lock(80);\nINSERT INTO turns SELECT nextval('call_order'), uuid_v7();\nCOMMIT;\n" });
set_clock($node, '+0');
is($node->safe_psql('postgres', q{
    SELECT count(*) FILTER (WHERE u <= prev), count(DISTINCT u)
    FROM (SELECT u, lag(u) OVER (ORDER BY n) AS prev FROM turns) s}),
    '0|8000', 'sorted by UUID, the 8,000 turns of four sessions are in the order the server issued them');

# An independent decoder: RFC 9562's field tables read in Python.
my $rows = $node->safe_psql('postgres', q{
    SELECT kind, u, (extract(epoch FROM ts) * 1000000)::bigint
    FROM (SELECT 'v7' AS kind, u, uuid_v7_timestamp(u) AS ts FROM (SELECT uuid_v7() AS u FROM generate_series(1, 10000)) a
          UNION ALL
          SELECT 'v7at', u, uuid_v7_timestamp(u)
          FROM (SELECT uuid_v7_at(timestamptz '1970-01-01 00:00:00+00' + (g::bigint * 2654435761 % 2000000000) * interval '100 seconds' + (g % 1000) * interval '1 microsecond') AS u
                FROM generate_series(1, 10000) g) b
          UNION ALL
          SELECT 'v6', u, uuid_v6_timestamp(u) FROM (SELECT uuid_v6() AS u FROM generate_series(1, 10000)) c
          UNION ALL
          SELECT 'v6at', u, uuid_v6_timestamp(u)
          FROM (SELECT uuid_v6_at(timestamptz '1600-01-01 00:00:00+00' + g * interval '100 days 1.000003 seconds') AS u
                FROM generate_series(1, 10000) g) d) s});
my $py = q{
import sys
bad, seen = 0, {}
for line in sys.stdin:
    kind, text, us = line.strip().split('|')
    x = int(text.replace('-', ''), 16)
    version, variant = (x >> 76) & 0xF, (x >> 62) & 0x3
    if kind.startswith('v7'):
        ms, frac, rand_b = x >> 80, (x >> 64) & 0xFFF, x & ((1 << 62) - 1)
        got = ms * 1000 + frac * 1000 // 4096          # method 3: the fraction of a millisecond in 1/4096
        retro = rand_b >> 61
        node = (rand_b >> 48) & 0x1FFF if retro else (rand_b >> 44) & 0x1FFF
        ok = version == 7 and retro == (kind == 'v7at') and node == 77
    else:
        ticks = (x >> 96) << 28 | ((x >> 80) & 0xFFFF) << 12 | (x >> 64) & 0xFFF
        got = (ticks - 0x01B21DD213814000) // 10
        ok = version == 6
    seen[kind] = seen.get(kind, 0) + 1
    if not (ok and variant == 2 and got == int(us)):
        bad += 1
print(bad, ' '.join('%s=%d' % kv for kv in sorted(seen.items())))
};
my ($stdout, $stderr);
IPC::Run::run([ 'python3', '-c', $py ], '<', \$rows, '>', \$stdout, '2>', \$stderr);
chomp $stdout;
is($stdout, '0 v6=10000 v6at=10000 v7=10000 v7at=10000',
    'an independent decoder agrees on version, variant, time and node id of 40,000 UUIDs') or diag $stderr;

# PostgreSQL's own readers (17: uuid_extract_version, uuid_extract_timestamp; 18: uuidv7()).
my $version = $node->safe_psql('postgres', 'SHOW server_version_num');
SKIP: {
    skip 'uuid_extract_timestamp() is new in PostgreSQL 17', 2 if $version < 170000;
    # 17's uuid_extract_timestamp() reads version 1 only and gives NULL for 7; 18 reads 7 to the millisecond.
    my $v7_time = $version < 180000
        ? 'uuid_extract_timestamp(u) IS NULL'
        : q{uuid_extract_timestamp(u) = date_trunc('milliseconds', uuid_v7_timestamp(u))};
    is($node->safe_psql('postgres', qq{
        SELECT count(*) FILTER (WHERE uuid_extract_version(u) = 7 AND $v7_time)
        FROM (SELECT uuid_v7() AS u FROM generate_series(1, 5000)
              UNION ALL SELECT uuid_v7_at(now() - g * interval '1.000001 seconds') FROM generate_series(1, 5000) g) s}),
        '10000', 'uuid_extract_version reads uuid_v7() and uuid_v7_at() as version 7, and uuid_extract_timestamp as idgen does (to the ms; NULL on 17)');
    is($node->safe_psql('postgres', q{
        SELECT count(*) FILTER (WHERE uuid_extract_version(u) = 1 AND uuid_extract_timestamp(u) = uuid_v1_timestamp(u))
        FROM (SELECT uuid_v1() AS u FROM generate_series(1, 1000)) s}),
        '1000', 'and uuid_v1() as uuid_v1_timestamp does');
}
SKIP: {
    skip 'uuidv7() is new in PostgreSQL 18', 1 if $version < 180000;
    is($node->safe_psql('postgres', q{
        SELECT count(*) FILTER (WHERE uuid_v7_timestamp(u) BETWEEN t0 AND t1
                                  AND date_trunc('milliseconds', uuid_v7_timestamp(u)) = uuid_extract_timestamp(u))
        FROM (SELECT clock_timestamp() AS t0, uuidv7() AS u, clock_timestamp() AS t1 FROM generate_series(1, 1000) OFFSET 0) s}),
        '1000', 'uuid_v7_timestamp reads core uuidv7()\'s sub-millisecond fraction within the call');
}

$node->stop;
done_testing();
