# A serial key converted in place while 4 sessions insert into its table and into a table that
# references it: snowflake_convert(widen => true) waits for them, takes both tables for its one
# transaction and lets them go on. No insert fails; every key is distinct; every key issued after
# the conversion is a Snowflake id of node 7, above every serial value; the referencing column
# holds the new ids as well.
use strict;
use warnings;
use IPC::Run;
use Time::HiRes qw(sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $node = idgen_node('convert_under_load', node_id => 7);
start_node($node);
$node->safe_psql('postgres', q{
    CREATE EXTENSION idgen;
    CREATE TABLE orders (id serial PRIMARY KEY, client integer NOT NULL);
    CREATE TABLE lines (id bigserial PRIMARY KEY, order_id integer NOT NULL REFERENCES orders (id));
});

my $dir = PostgreSQL::Test::Utils::tempdir('convert_under_load');
open my $f, '>', "$dir/insert.sql" or die $!;
print $f "BEGIN;\nINSERT INTO orders (client) VALUES (:client_id) RETURNING id AS order_id \\gset\n"
  . "INSERT INTO lines (order_id) VALUES (:order_id);\nCOMMIT;\n";
close $f;
my ($out, $err) = ('', '');
my $bench = IPC::Run::start(
    [ 'pgbench', '-n', '-h', $node->host, '-p', $node->port, '-c', '4', '-j', '2', '-T', '8',
      '-f', "$dir/insert.sql", 'postgres' ],
    '>', \$out, '2>', \$err);

# Convert once the sessions have been inserting for a while.
my $waited = 0;
while ($node->safe_psql('postgres', 'SELECT count(*) FROM orders') < 1000 && $waited < 30) { sleep(0.1); $waited += 0.1; }
my $converted = $node->safe_psql('postgres', q{
    SELECT string_agg(format('%s.%s %s', converted_table, converted_column, widened), ', ' ORDER BY converted_table::text)
    FROM snowflake_convert('orders', 'id', widen => true)});
is($converted, 'lines.order_id t, orders.id t', 'the key and the column that references it, both widened');
my $serial_max = $node->safe_psql('postgres', q{SELECT max(id) FROM orders WHERE id < 2147483648});
$bench->finish;
is($bench->result(0), 0, 'pgbench ended well') or diag($err);
unlike($out . $err, qr/abort|ERROR/, 'no session saw an error');

my ($before, $after) = split /\|/, $node->safe_psql('postgres', q{
    SELECT count(*) FILTER (WHERE id < 2147483648), count(*) FILTER (WHERE id >= 2147483648) FROM orders});
cmp_ok($before, '>=', 1000, "$before serial keys before the conversion");
cmp_ok($after, '>', 0, "$after Snowflake keys after it");
is($node->safe_psql('postgres', q{SELECT count(*) - count(DISTINCT id) FROM orders}), '0', 'no key twice');
is($node->safe_psql('postgres', qq{
    SELECT count(*) FROM orders WHERE id >= 2147483648 AND (id <= $serial_max OR snowflake_node('orders_id_seq', id) <> 7)}),
   '0', 'every new key is a Snowflake id of node 7, above every serial value');
is($node->safe_psql('postgres', q{SELECT count(*) FROM lines WHERE order_id >= 2147483648}), $after,
   'each new order has its line, referencing the new key');
is($node->safe_psql('postgres', q{SELECT count(*) FROM orders o WHERE NOT EXISTS (SELECT FROM lines l WHERE l.order_id = o.id)}),
   '0', 'and each old one too');
$node->stop;
done_testing();
