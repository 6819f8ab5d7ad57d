# snowflake_convert under the traffic most applications send: autocommit statements, each its own
# transaction, taking its locks in the order its foreign-key checks do (an insert or an update in
# the referencing table locks it, then the referenced one; a delete in the referenced table locks
# it, then the referencing one). 4 pgbench clients run them through a conversion that widens the
# key and the column that references it, begun while a slow read holds the table (so that
# statements of both kinds come to wait for it); pgbench counts the failed transactions (a
# deadlock is one: --max-tries stays 1, nothing is retried). With simple queries none fails. With
# server-side prepared statements, what docs/migrating.md says: statements that return nothing of
# the widened type go on; one that returns it aborts its client ("cached plan must not change
# result type"); a key already bigint converts without widening and every statement goes on. Last,
# the caller's lock_timeout bounds a conversion that a transaction left open keeps waiting.
use strict;
use warnings;
use IPC::Run;
use Time::HiRes qw(sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdgenTest;

my $node = idgen_node('convert_autocommit', node_id => 7);
start_node($node);
$node->safe_psql('postgres', 'CREATE EXTENSION idgen');
my $dir = PostgreSQL::Test::Utils::tempdir('convert_autocommit');

# One statement of each path, no BEGIN: a parent row made and deleted again (its delete checks
# the referencing table), a row referencing one of 100 parents kept throughout, moved to another
# and deleted, and a parent updated. No statement can fail on the data (no key is made twice, no
# referenced row deleted): whatever fails, fails on the conversion.
my $statements = <<'EOF';
INSERT INTO child (parent_id, amount) VALUES (:p, :k);
UPDATE parent SET name = name WHERE id = :p;
UPDATE child SET parent_id = :q WHERE parent_id = :p AND amount = :k;
DELETE FROM parent WHERE tag = :k;
DELETE FROM child WHERE parent_id = :q AND amount = :k;
EOF
my $header = "\\set p random(1, 100)\n\\set q random(1, 100)\n\\set k random(1, 1000000000)\n";
my %script = (
    # nothing of the key's type comes back to the client
    plain => $header . "INSERT INTO parent (name, tag) VALUES ('gone', :k);\n" . $statements,
    # the new key comes back (RETURNING), as an ORM's insert reads it
    returning => $header . "INSERT INTO parent (name, tag) VALUES ('gone', :k) RETURNING id \\gset\n" . $statements);
for my $name (keys %script) {
    open my $f, '>', "$dir/$name.sql" or die $!;
    print $f $script{$name};
    close $f;
}

# Tables made afresh (keys of $key_type, the column that references them of $ref_type), pgbench
# started, the conversion run once the clients are well under way; returns pgbench's exit status,
# its output, and how many rows the clients inserted after the conversion.
sub through_conversion {
    my ($mode, $script, $key_type, $ref_type, $widen) = @_;
    $node->safe_psql('postgres', qq{
        DROP TABLE IF EXISTS child, parent;
        CREATE TABLE parent (id $key_type PRIMARY KEY, name text NOT NULL, tag integer);
        CREATE INDEX ON parent (tag);
        CREATE TABLE child (id bigserial PRIMARY KEY, parent_id $ref_type NOT NULL REFERENCES parent (id),
                            amount integer NOT NULL);
        CREATE INDEX ON child (parent_id);
        INSERT INTO parent (name) SELECT 'kept ' || i FROM generate_series(1, 100) i;
    });
    my ($out, $err) = ('', '');
    my $bench = IPC::Run::start(
        [ 'pgbench', '-n', '-M', $mode, '--failures-detailed', '-h', $node->host, '-p', $node->port,
          '-c', '4', '-j', '2', '-T', '6', '-f', "$dir/$script.sql", 'postgres' ],
        '>', \$out, '2>', \$err);
    my $waited = 0;
    while ($node->safe_psql('postgres', 'SELECT last_value FROM child_id_seq') < 2000 && $waited < 30) {
        sleep(0.1);
        $waited += 0.1;
    }
    # A slow report reads the key's table while the conversion begins: the conversion waits for
    # it, and meanwhile the clients' statements come to wait for the conversion.
    my ($report_out, $report_err) = ('', '');
    my $report = IPC::Run::start(
        [ 'psql', '-XAtq', '-h', $node->host, '-p', $node->port, '-d', 'postgres',
          '-c', 'SELECT count(*) > 0 FROM parent, pg_sleep(0.4)' ],
        '>', \$report_out, '2>', \$report_err);
    sleep(0.1);
    my $converted = $node->safe_psql('postgres', qq{
        SELECT string_agg(format('%s.%s %s', converted_table, converted_column, widened), ', ' ORDER BY converted_table::text)
        FROM snowflake_convert('parent', 'id', widen => $widen)});
    my $at_conversion = $node->safe_psql('postgres', 'SELECT last_value FROM child_id_seq');
    $report->finish;
    is($report_out . $report_err, "t\n", "$mode, $script: the slow report read the table");
    $bench->finish;
    my $after = $node->safe_psql('postgres', 'SELECT last_value FROM child_id_seq') - $at_conversion;
    note("$mode, $script, $key_type: $_") for ($out =~ /^(number of (?:transactions actually processed|failed transactions|deadlock failures): .*)$/mg);
    return ($bench->result(0), $out . $err, $converted, $after);
}

sub failed_transactions {
    my ($output) = @_;
    return $output =~ /^number of failed transactions: (\d+)/m ? $1 : 'none reported';
}

# Simple queries, the key widened: no statement of any path fails, before, during or after.
my ($status, $output, $converted, $after) = through_conversion('simple', 'returning', 'serial', 'integer', 'true');
is($converted, 'child.parent_id t, parent.id t', 'simple: the key and the column that references it, widened');
is(failed_transactions($output), '0', 'simple: 0 failed transactions') or diag($output);
is($status, 0, 'simple: no client aborted') or diag($output);
unlike($output, qr/ERROR|abort/, 'simple: no client saw an error');
cmp_ok($after, '>', 0, "simple: $after rows inserted after the conversion");
is($node->safe_psql('postgres', q{INSERT INTO parent (name) VALUES ('new') RETURNING snowflake_node('parent_id_seq', id)}),
   '7', 'simple: new keys are Snowflake ids of node 7');

# Prepared statements, the key widened: those that return nothing of the widened type are planned
# again and go on.
($status, $output, $converted, $after) = through_conversion('prepared', 'plain', 'serial', 'integer', 'true');
is($converted, 'child.parent_id t, parent.id t', 'prepared: the key and the column that references it, widened');
is(failed_transactions($output), '0', 'prepared, nothing of the widened type returned: 0 failed transactions') or diag($output);
is($status, 0, 'prepared, nothing of the widened type returned: no client aborted') or diag($output);
cmp_ok($after, '>', 0, "prepared: $after rows inserted after the conversion");

# A prepared statement that returns the widened column cannot change its result type: each
# client's next execution of it fails and pgbench aborts the client (an error that is not a
# serialization failure or a deadlock); no transaction is counted failed.
($status, $output) = through_conversion('prepared', 'returning', 'serial', 'integer', 'true');
my @aborted = $output =~ /client \d+ script 0 aborted in command \d+ query 0: ERROR:  cached plan must not change result type/g;
is(scalar @aborted, 4, 'prepared, RETURNING the widened key: each of the 4 clients aborted on its plan') or diag($output);
is(() = $output =~ /ERROR/g, 4, 'prepared, RETURNING the widened key: no other error') or diag($output);
is(failed_transactions($output), '0', 'prepared, RETURNING the widened key: 0 failed transactions') or diag($output);

# The way through for such statements: the key already bigint (widened beforehand, in a
# maintenance window), converted without widening: every prepared statement goes on.
($status, $output, $converted, $after) = through_conversion('prepared', 'returning', 'bigserial', 'bigint', 'false');
is($converted, 'parent.id f', 'prepared, bigint key: converted without widening');
is(failed_transactions($output), '0', 'prepared, bigint key, RETURNING it: 0 failed transactions') or diag($output);
is($status, 0, 'prepared, bigint key, RETURNING it: no client aborted') or diag($output);
cmp_ok($after, '>', 0, "prepared, bigint key: $after rows inserted after the conversion");

# The caller's lock_timeout bounds the conversion's attempts together: a session that holds the
# table past it (a transaction left open) makes it give up with 55P03, having changed nothing.
my $holder = $node->background_psql('postgres');
$holder->query_safe('BEGIN; LOCK TABLE parent IN ACCESS SHARE MODE');
my ($ret, $stdout, $stderr) = $node->psql('postgres',
    "SET lock_timeout = '1500ms'; SELECT * FROM snowflake_convert('parent', 'id', sequencer => 'other')", timeout => 60);
like($stderr, qr/ERROR:  snowflake_convert: could not lock public.parent within lock_timeout \(1500ms\)/,
     'a held table: the conversion gives up at the caller\'s lock_timeout');
$holder->query_safe('COMMIT');
$holder->quit;
is($node->safe_psql('postgres', q{SELECT count(*) FROM snowflake_definitions WHERE name = 'other'}), '0', 'and changed nothing');

$node->stop;
done_testing();
