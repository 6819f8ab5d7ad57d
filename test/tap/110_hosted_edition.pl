# The plain-SQL edition (hosted/idgen_hosted.sql) as a hosted service's user installs it: a
# server without idgen preloaded and without its extension, a role that is not a superuser,
# `psql -f` into a schema of the role's own. Every function of the edition is SQL or PL/pgSQL,
# none needs the library, and each finds the others whatever the caller's search_path.
# The node id is the database's, set by the edition's owner only: until then, and in a copy of
# the database, the generators refuse. A snowflake_next cancelled while it waits leaves no lock
# behind; a caller with the README's grants makes ids; a sequencer made again starts above its
# dropped ids, compared as ids, or is refused where that lies far ahead. (sql/hosted_differential.sql
# compares its answers with the C extension's; 111_hosted_generators.pl tests its generators.)
use strict;
use warnings;
use File::Basename qw(dirname);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $edition = dirname(__FILE__) . '/../../hosted/idgen_hosted.sql';
my $node = PostgreSQL::Test::Cluster->new('hosted');
$node->init;
$node->start;
is($node->safe_psql('postgres', 'SHOW shared_preload_libraries'), '', 'nothing preloaded');
$node->safe_psql('postgres', q{
    CREATE ROLE app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE;
    CREATE DATABASE appdb OWNER app;
});

# The role installs the edition into its own schema, as the README says.
$node->safe_psql('appdb', 'CREATE SCHEMA idgen', extra_params => [ '-U', 'app' ]);
{
    local $ENV{PGOPTIONS} = '-c search_path=idgen';
    my ($ret, $out, $err) = $node->psql('appdb', undef, extra_params => [ '-U', 'app', '-v', 'ON_ERROR_STOP=1', '-f', $edition ]);
    is($ret, 0, 'a role that is not a superuser installs the edition with psql -f') or diag($err);
}
is($node->safe_psql('appdb', q{
    SELECT string_agg(DISTINCT l.lanname, ',' ORDER BY l.lanname)
    FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.pronamespace = 'idgen'::regnamespace}),
   'plpgsql,sql', 'every function is SQL or PL/pgSQL');
is($node->safe_psql('appdb', q{SELECT count(*) FROM pg_extension WHERE extname = 'idgen'}), 0, 'no C extension in the database');

# Called from another search_path, schema-qualified: the RFC 9562 examples and the C tests' values.
my @calls = (
    [ q{idgen.uuid_v1_timestamp('c232ab00-9414-11ec-b3c8-9f6bdeced846')}, '2022-02-22 19:22:22+00' ],
    [ q{idgen.uuid_v1_to_v6('c232ab00-9414-11ec-b3c8-9f6bdeced846')}, '1ec9414c-232a-6b00-b3c8-9f6bdeced846' ],
    [ q{idgen.uuid_v7_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')}, '2022-02-22 19:22:22.000797+00' ],
    [ q{idgen.uuid_v7_min('2022-02-22 19:22:22+00')}, '017f22e2-79b0-7000-8000-000000000000' ],
    [ q{idgen.form_uuid_v1('2022-02-22 19:22:22+00', 13256, '9f:6b:de:ce:d8:46')}, 'c232ab00-9414-11ec-b3c8-9f6bdeced846' ],
    [ q{idgen.snowflake_timestamp(idgen.snowflake_min_id('2026-03-01', '2020-01-01', 512), '2020-01-01', 512)}, '2026-03-01 00:00:00+00' ],
);
for my $call (@calls) {
    is($node->safe_psql('appdb', "SET search_path = public; SET timezone = 'UTC'; SELECT $call->[0]"), $call->[1], $call->[0]);
}
my ($ret, $out, $err) = $node->psql('appdb', q{SET search_path = public; SELECT idgen.uuid_v7_min('infinity')}, extra_params => [ '-U', 'app' ]);
like($err, qr/timestamp out of range for a version-7 UUID/, 'errors as the C extension raises them');

# The node id. Until the owner gives the database one, every generator refuses, with the
# command in its hint.
$node->safe_psql('postgres', 'CREATE ROLE caller LOGIN');
$node->safe_psql('appdb', q{
    GRANT USAGE ON SCHEMA idgen TO caller;
    GRANT SELECT ON ALL TABLES IN SCHEMA idgen TO caller;
    REVOKE ALL ON idgen.idgen_mask_keys FROM caller;
    GRANT USAGE ON ALL SEQUENCES IN SCHEMA idgen TO caller;
    ALTER DEFAULT PRIVILEGES IN SCHEMA idgen GRANT USAGE ON SEQUENCES TO caller;
    SELECT idgen.snowflake_create('n', '2024-01-01', 1024)}, extra_params => [ '-U', 'app' ]);
for my $call ('idgen.uuid_v7()', 'idgen.uuid_v7_at(now())', 'idgen.uuid_v1_at(now())', 'idgen.uuid_v6_at(now())',
              q{idgen.snowflake_next('n')}, 'idgen.idgen_node_id()') {
    my ($ret, $out, $err) = $node->psql('appdb', "\\set VERBOSITY verbose\nSELECT $call", extra_params => [ '-U', 'caller' ]);
    like($err, qr/55000: this database has no idgen node id.*HINT:.*SELECT idgen\.idgen_set_node_id\(n\)/s,
         "no node id yet: $call refuses (55000, with the command)");
}
($ret, $out, $err) = $node->psql('appdb', "\\set VERBOSITY verbose\nSELECT idgen.idgen_set_node_id(3)", extra_params => [ '-U', 'caller' ]);
like($err, qr/42501: only the owner of the idgen edition \(app\) may set its node id/, 'a caller may not set it');
($ret, $out, $err) = $node->psql('appdb', 'SELECT idgen.idgen_set_node_id(8192)', extra_params => [ '-U', 'app' ]);
like($err, qr/node id 8192 is outside 0\.\.8191/, 'node ids are 0..8191');
$node->safe_psql('appdb', 'SELECT idgen.idgen_set_node_id(3)', extra_params => [ '-U', 'app' ]);
# Every id holds it (read back from the fields it lies in); a session's idgen.node_id changes nothing.
my $node_bits = q{
    SET idgen.node_id = 5;
    SELECT idgen.idgen_node_id(), (('x' || right(idgen.uuid_v7()::text, 4))::bit(16)::integer >> 1) & 8191,
           (('x' || replace(idgen.uuid_v1_node(idgen.uuid_v1_at(now()))::text, ':', ''))::bit(48)::bigint >> 34) & 63
           | ((('x' || replace(idgen.uuid_v1_node(idgen.uuid_v1_at(now()))::text, ':', ''))::bit(48)::bigint >> 41) << 6),
           (idgen.snowflake_next('n') >> 12) & 1023};
is($node->safe_psql('appdb', $node_bits, extra_params => [ '-U', 'caller' ]), '3|3|3|3',
   'uuid_v7, uuid_v1_at and snowflake_next ids hold node id 3, whatever the session sets');
# A copy of the database on the same server (as CREATE DATABASE ... TEMPLATE makes one, or a
# restore) is another database: it refuses until its owner gives it a node id of its own.
$node->safe_psql('postgres', 'CREATE DATABASE copydb TEMPLATE appdb OWNER app');
($ret, $out, $err) = $node->psql('copydb', "\\set VERBOSITY verbose\nSELECT idgen.uuid_v7()", extra_params => [ '-U', 'caller' ]);
like($err, qr/55000: this database's idgen node id 3 was given on another server or in another database.*HINT:.*idgen_set_node_id\(n\).*idgen_set_node_id\(3\)/s,
     'a copy of the database refuses, naming its original\'s node id');
$node->safe_psql('copydb', 'SELECT idgen.idgen_set_node_id(4)', extra_params => [ '-U', 'app' ]);
is($node->safe_psql('copydb', $node_bits, extra_params => [ '-U', 'caller' ]), '4|4|4|4', 'the copy makes ids under its own');
is($node->safe_psql('appdb', $node_bits, extra_params => [ '-U', 'caller' ]), '3|3|3|3', 'the original under its own');
$node->restart;
is($node->safe_psql('appdb', $node_bits, extra_params => [ '-U', 'caller' ]), '3|3|3|3',
   'after a restart the server knows its database again, no step needed');

# No lock outlives a call. snowflake_next is cancelled by statement_timeout at each point where
# it can wait: the sequencer's lock, shared (a jump holds it) and exclusive (for its own jump,
# while a call holds it shared), and its sequence (held by an ALTER SEQUENCE). The cancelled
# session stays connected, as behind a pooler; it holds no lock afterwards, and calls from other
# sessions, each needing a jump, return at once.
$node->safe_psql('appdb', q{SELECT idgen.snowflake_create('c', '2024-01-01', 1024)}, extra_params => [ '-U', 'app' ]);
my ($key, $sequence) = split /\|/,
    $node->safe_psql('appdb', q{SELECT serial::oid::integer, serial FROM idgen.snowflake_definitions WHERE name = 'c'});
my $victim = $node->background_psql('appdb', on_error_stop => 0, extra_params => [ '-U', 'app' ]);
my $victim_pid = $victim->query_safe('SELECT pg_backend_pid()');
my %blocks = (
    'the shared lock' => [ "SELECT pg_advisory_lock(1768842596, $key)", "SELECT pg_advisory_unlock(1768842596, $key)" ],
    'the exclusive lock of its jump' =>
      [ "SELECT pg_advisory_lock_shared(1768842596, $key)", "SELECT pg_advisory_unlock_shared(1768842596, $key)" ],
    'the sequence' => [ "BEGIN; ALTER SEQUENCE $sequence NO CYCLE", 'ROLLBACK' ],
);
for my $point (sort keys %blocks) {
    my ($hold, $release) = @{ $blocks{$point} };
    my $blocker = $node->background_psql('appdb');
    $blocker->query_safe($hold);
    $victim->query(q{SET statement_timeout = '300ms'; SELECT pg_sleep(0.01); SELECT idgen.snowflake_next('c')});
    like($victim->{stderr}, qr/canceling statement due to statement timeout/, "$point: the call waiting for it is cancelled");
    $victim->{stderr} = '';
    $blocker->query_safe($release);
    $blocker->quit;
    is($node->safe_psql('appdb', "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = $victim_pid"),
        '0', "$point: the cancelled session holds no lock");
    my ($ret, $out, $err) = $node->psql('appdb', q{SET statement_timeout = '5s';
        SELECT pg_sleep(0.01), idgen.snowflake_next('c'); SELECT pg_sleep(0.01), idgen.snowflake_next('c')},
        extra_params => [ '-U', 'app' ]);
    is("$ret $err", '0 ', "$point: the next calls from another session return at once, jumps included");
}
$victim->quit;

# The grants the README gives a role that calls snowflake_next (the schema, SELECT on the tables,
# USAGE on the sequences, also those of sequencers made later) are enough, jumps included: the
# jump's setval runs as the edition's owner.
$node->safe_psql('appdb', q{SELECT idgen.snowflake_create('granted', '2024-01-01', 1024)}, extra_params => [ '-U', 'app' ]);
my @granted = map {
    $node->safe_psql('appdb', q{SELECT pg_sleep(0.002), idgen.snowflake_next('granted')}, extra_params => [ '-U', 'caller' ])
} 1 .. 5;
is(scalar(grep { /^\|\d+$/ } @granted), 5, 'a role with the README\'s grants makes ids, each a jump to its millisecond');
($ret, $out, $err) = $node->psql('appdb', q{SELECT idgen._idgen_snowflake_jump('no_such')}, extra_params => [ '-U', 'caller' ]);
like($err, qr/Snowflake sequencer "no_such" does not exist/, 'the jump takes a name and nothing else');

# A sequencer dropped after its ids ran 10 s ahead of the clock (as when the clock steps back),
# made again under its name with an earlier epoch and another node count: its ids start above
# the old ones, compared as ids and as times.
my $ahead = $node->safe_psql('appdb', q{
    SET search_path = idgen;
    SELECT snowflake_create('again', '2024-01-01', 1024);
    SELECT setval(serial, _idgen_snowflake_now_value(epoch, counter_bits, tick_ms) + (10000::bigint << counter_bits))
    FROM snowflake_definitions WHERE name = 'again' \g /dev/null
    SELECT snowflake_next('again') AS id, snowflake_timestamp(snowflake_next('again'), '2024-01-01', 1024) AS ts \gset
    SELECT snowflake_drop('again');
    SELECT snowflake_create('again', '2023-01-01', 512);
    SELECT :'id', :'ts';}, extra_params => [ '-U', 'app' ]);
my ($old_id, $old_ts) = split /\|/, (grep { /\|/ } split /\n/, $ahead)[0];
my ($new_id, $new_ts) = split /\|/, $node->safe_psql('appdb',
    q{SELECT i, idgen.snowflake_timestamp(i, '2023-01-01', 512) FROM idgen.snowflake_next('again') i},
    extra_params => [ '-U', 'caller' ]);
cmp_ok($node->safe_psql('appdb', "SELECT $new_id > $old_id AND '$new_ts'::timestamptz > '$old_ts'::timestamptz"), 'eq', 't',
    "a sequencer made again starts above the dropped one's ids ($new_id after $old_id, $new_ts after $old_ts)");
# Made again with a later epoch: the same time is a smaller id, and above the old ids lies a year
# ahead of the clock. Refused; a new name is the way.
($ret, $out, $err) = $node->psql('appdb', q{
    SELECT idgen.snowflake_drop('again');
    SELECT idgen.snowflake_create('again', '2025-01-01', 512);}, extra_params => [ '-U', 'app' ]);
like($err, qr/cannot issue ids above those of its earlier definitions.*\n.*ms ahead of the clock/,
    'made again with a later epoch: refused (55000), how far ahead in the detail');

# A sequencer made in a transaction that rolls back after a burst of draws (8 ids per ms: the
# javascript layout with 512 nodes), then made again under its name at once: nothing remembers
# the rolled-back ids, which waited for the clock rather than run ahead of it, and the new one
# starts at the tick after its own creation, above them.
my $rolled_back_max = (grep { /^\d+$/ } split /\n/, $node->safe_psql('appdb', q{
    BEGIN;
    SELECT idgen.snowflake_create('rb', '2024-01-01', 512, layout => 'javascript') \g /dev/null
    SELECT max(idgen.snowflake_next('rb')) FROM generate_series(1, 2000);
    ROLLBACK;}, extra_params => [ '-U', 'app' ]))[0];
my $made_after = (grep { /^\d+$/ } split /\n/, $node->safe_psql('appdb', q{
    SELECT idgen.snowflake_create('rb', '2024-01-01', 512, layout => 'javascript') \g /dev/null
    SELECT min(idgen.snowflake_next('rb')) FROM generate_series(1, 10);}, extra_params => [ '-U', 'app' ]))[0];
cmp_ok($made_after, '>', $rolled_back_max,
    "a sequencer made again after its creation rolled back starts above the rolled-back ids ($made_after > $rolled_back_max)");

# Keyed masking. The edition was installed without pgcrypto (the rest of it works, above): keys
# are made from PostgreSQL's own random source, and masking refuses, saying what to do. pgcrypto
# then created, by the database's owner (it is trusted), in a schema on no search_path, and bound
# by _idgen_mask_bind: a caller with the README's grants masks and unmasks, reads no key, and finds
# a row by its masked id through the primary key. The file run again keeps the keys.
$node->safe_psql('appdb', q{SELECT idgen.id_mask_key_create('orders'); SELECT idgen.id_mask_key_create('small', 16)},
                 extra_params => [ '-U', 'app' ]);
is($node->safe_psql('appdb', q{SELECT string_agg(name || ':' || octet_length(key), ',' ORDER BY name) FROM idgen.idgen_mask_keys},
                    extra_params => [ '-U', 'app' ]),
   'orders:32,small:16', 'without pgcrypto: keys of 32 and 16 bytes are made');
($ret, $out, $err) = $node->psql('appdb', "\\set VERBOSITY verbose\nSELECT idgen.id_mask(1, 'orders')", extra_params => [ '-U', 'caller' ]);
like($err, qr/55000: idgen's masking needs the extension pgcrypto.*HINT:  CREATE EXTENSION pgcrypto \(in any schema\); then, as the edition's owner, SELECT idgen\._idgen_mask_bind\(\)/s,
     'without pgcrypto: masking refuses (55000), with what to do');
($ret, $out, $err) = $node->psql('appdb', 'SELECT idgen._idgen_mask_bind()', extra_params => [ '-U', 'caller' ]);
like($err, qr/permission denied for function _idgen_mask_bind/, 'a caller may not bind');
$node->safe_psql('appdb', q{
    CREATE SCHEMA crypto;
    CREATE EXTENSION pgcrypto SCHEMA crypto;
    CREATE TABLE public.orders (id bigint PRIMARY KEY, item text);
    INSERT INTO public.orders SELECT g, 'item ' || g FROM generate_series(1, 10000) g;
    ANALYZE public.orders;
    GRANT SELECT ON public.orders TO caller;}, extra_params => [ '-U', 'app' ]);
is($node->safe_psql('appdb', 'SELECT idgen._idgen_mask_bind()', extra_params => [ '-U', 'app' ]),
   'masking uses crypto.encrypt', 'the owner binds the edition to pgcrypto, in the schema it is in');
is($node->safe_psql('appdb', q{
    SELECT idgen.id_unmask(idgen.id_mask(4242, 'orders'), 'orders'), idgen.id_mask(4242, 'orders') <> 4242,
           idgen.uuid_unmask(idgen.uuid_mask('01890a5d-ac96-774b-bcce-b302099a8057', 'small'), 'small')},
                    extra_params => [ '-U', 'caller' ]),
   '4242|t|01890a5d-ac96-774b-bcce-b302099a8057', 'a caller masks and unmasks ids and UUIDs');
($ret, $out, $err) = $node->psql('appdb', 'SELECT count(*) FROM idgen.idgen_mask_keys', extra_params => [ '-U', 'caller' ]);
like($err, qr/permission denied for table idgen_mask_keys/, 'a caller reads no key');
like($node->safe_psql('appdb', q{
    SET plan_cache_mode = force_generic_plan;
    PREPARE by_masked(bigint) AS SELECT * FROM orders WHERE id = idgen.id_unmask($1, 'orders');
    EXPLAIN (COSTS OFF) EXECUTE by_masked(0);}, extra_params => [ '-U', 'caller' ]),
     qr/Index Scan using orders_pkey on orders\s+Index Cond: \(id = idgen\._idgen_mask_id\(\$1, 'orders'::text, 63, true\)\)/,
     'a row by its masked id: an index scan of the primary key');
my $masked = $node->safe_psql('appdb', q{SELECT idgen.id_mask(4242, 'orders', 53)}, extra_params => [ '-U', 'caller' ]);
{
    local $ENV{PGOPTIONS} = '-c search_path=idgen';
    $node->psql('appdb', undef, on_error_die => 1, extra_params => [ '-U', 'app', '-v', 'ON_ERROR_STOP=1', '-f', $edition ]);
}
is($node->safe_psql('appdb', q{SELECT idgen.id_mask(4242, 'orders', 53)}, extra_params => [ '-U', 'caller' ]), $masked,
   'the file run again: the same keys, the same masks');

# A schema whose name needs quoting: the sequencers' sequences and the dropped sequencers' ends
# are found in it (and pgcrypto, for its masking).
$node->safe_psql('appdb', 'CREATE SCHEMA "Id Gen"', extra_params => [ '-U', 'app' ]);
{
    local $ENV{PGOPTIONS} = '-c search_path="Id\\ Gen"';
    $node->psql('appdb', undef, on_error_die => 1, extra_params => [ '-U', 'app', '-v', 'ON_ERROR_STOP=1', '-f', $edition ]);
}
is(join(',', grep { length } split /\n/, $node->safe_psql('appdb', q{
    SELECT "Id Gen".idgen_set_node_id(1);
    SELECT "Id Gen".snowflake_create('q', '2024-01-01', 1024);
    SELECT "Id Gen".snowflake_next('q') > 0;
    SELECT "Id Gen".snowflake_drop('q');
    SELECT "Id Gen".snowflake_create('q', '2024-01-01', 1024);
    SELECT count(*) FROM "Id Gen"._idgen_snowflake_retired WHERE name = 'q';
    SELECT "Id Gen".id_mask_key_create('k');
    SELECT "Id Gen".id_unmask("Id Gen".id_mask(7, 'k', 20), 'k', 20)}, extra_params => [ '-U', 'app' ])),
   't,1,7', 'a schema whose name needs quoting: node id, create, next, drop and create again, masking');

$node->stop;
done_testing();
