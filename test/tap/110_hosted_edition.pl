# The plain-SQL edition (hosted/idgen_hosted.sql) as a hosted service's user installs it: a
# server without idgen preloaded and without its extension, a role that is not a superuser,
# `psql -f` into a schema of the role's own. Every function of the edition is SQL or PL/pgSQL,
# none needs the library, and each finds the others whatever the caller's search_path.
# (sql/hosted_differential.sql compares its answers with the C extension's;
# 111_hosted_generators.pl tests its generators.)
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

$node->stop;
done_testing();
