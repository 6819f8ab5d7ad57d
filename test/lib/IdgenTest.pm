# Helpers for idgen's TAP tests: a cluster with idgen preloaded, optionally running under
# libfaketime so a test can move its wall clock (backwards too) while it runs, and the
# checks every generator's process tests share; standbys and restored copies of such a
# cluster, and the work the replication and move tests repeat on every server that becomes
# a primary (ids_setup, ids_generate, ids_check).
package IdgenTest;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use POSIX ();
use Time::HiRes ();

our @EXPORT = qw(idgen_node app_server idgen_standby start_node restart_node set_clock freeze_clock clock_reads
    psql_error psql_retry all_unique ids_setup ids_generate ids_first_round ids_check write_durable_record);

my $LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
# Under libfaketime every clock read fopen()s the clock file, which is not async-signal-safe:
# a SIGALRM arriving inside it (or inside malloc) whose handler reads the clock too
# (PostgreSQL's timeout handler does) deadlocks on glibc's stdio lock or corrupts the heap
# ("free(): corrupted unsorted chunks", seen once in the soak). PostgreSQL leaves the timer of
# a cancelled timeout to fire harmlessly later, so the timeouts every backend arms (the lock
# wait's deadlock_timeout, the connection's authentication_timeout) are kept far away.
our $FAKETIME_TIMEOUTS = "deadlock_timeout = '1h'\nauthentication_timeout = '10min'\n";

# A new, initialised cluster with idgen preloaded. Options:
#   node_id  => N          idgen.node_id
#   faketime => '+0'       run the server under libfaketime, starting at this offset or time
#   conf     => '...'      more postgresql.conf lines
#   init     => {...}      options of PostgreSQL::Test::Cluster's init (allows_streaming => 1,
#                          has_archiving => 1)
#   uuid_identity => [NODE, CLOCK_SEQ]
#                          the random node and clock sequence of uuid_v1() (idgen.identity,
#                          written before the first start) instead of random ones
sub idgen_node {
    my ($name, %opt) = @_;
    my $node = PostgreSQL::Test::Cluster->new($name);
    $node->init(%{ $opt{init} // {} });
    my $conf = "shared_preload_libraries = 'idgen'\n";
    $conf .= "idgen.node_id = $opt{node_id}\n" if defined $opt{node_id};
    $conf .= $opt{conf} if defined $opt{conf};
    $node->append_conf('postgresql.conf', $conf);
    _use_faketime($node, $opt{faketime}) if defined $opt{faketime};
    _write_uuid_identity($node, @{ $opt{uuid_identity} }) if defined $opt{uuid_identity};
    return $node;
}

# The old server of the move tests: started, with a database "app" holding the extension and
# the Snowflake sequencer 's' (128 nodes, 4 of them for backfills), then $sql run there.
sub app_server {
    my ($name, $node_id, $conf, $sql) = @_;
    my $node = idgen_node($name, node_id => $node_id, conf => $conf);
    start_node($node);
    $node->safe_psql('postgres', 'CREATE DATABASE app');
    $node->safe_psql('app', "CREATE EXTENSION idgen;
        SELECT snowflake_create('s', '2010-01-01 00:00:00+00', 128, backfill_nodes => 4); $sql");
    return $node;
}

# idgen.identity as the server writes it: the payload { uint64 random node; int32 clock
# sequence; 4 bytes of padding }, little-endian.
sub _write_uuid_identity {
    my ($node, $random_node, $clock_seq) = @_;
    write_durable_record($node, 'idgen.identity', 0x1D6E4944, pack('Q<', $random_node) . pack('l<', $clock_seq) . "\0" x 4);
}

# A state file of the data directory as the server writes it: a durable record [magic]
# [payload size][payload][CRC-32C of all before it], little-endian.
sub write_durable_record {
    my ($node, $file, $magic, $payload) = @_;
    my $record = pack('VV', $magic, length $payload) . $payload;
    my $crc = 0xFFFFFFFF;
    for my $byte (unpack 'C*', $record) {
        $crc ^= $byte;
        $crc = ($crc & 1) ? ($crc >> 1) ^ 0x82F63B78 : $crc >> 1 for 1 .. 8;
    }
    unlink $node->data_dir . "/$file";
    PostgreSQL::Test::Utils::append_to_file($node->data_dir . "/$file", $record . pack('V', $crc ^ 0xFFFFFFFF));
}

# Makes the node run under libfaketime with its own clock file, starting at $spec.
sub _use_faketime {
    my ($node, $spec) = @_;
    die "libfaketime is not installed at $LIBFAKETIME" unless -e $LIBFAKETIME;
    $node->append_conf('postgresql.conf', $FAKETIME_TIMEOUTS);
    $node->{idgen_clock_file} = $node->basedir . '/faketime.rc';
    set_clock($node, $spec);
}

# A new node made from the backup $backup of $upstream, with the upstream's postgresql.conf
# as it was at the backup (as HA tools leave it), not started. Options:
#   restoring => 1         replay WAL from the upstream's archive (PITR) instead of streaming
#                          from it; stays a standby until promoted
#   faketime  => '-5'      run under libfaketime with its own clock, starting at this offset
#   clock_of  => $node     run under libfaketime on that node's clock file: one clock for both
# It is named in pg_stat_replication by its node name (cluster_name), as
# synchronous_standby_names and wait_for_catchup expect.
sub idgen_standby {
    my ($upstream, $backup, $name, %opt) = @_;
    my $node = PostgreSQL::Test::Cluster->new($name);
    $node->init_from_backup($upstream, $backup,
        $opt{restoring} ? (has_restoring => 1) : (has_streaming => 1));
    $node->append_conf('postgresql.conf', "cluster_name = '$name'\n");
    if ($opt{clock_of}) {
        die 'clock_of: that node has no clock file' unless $opt{clock_of}{idgen_clock_file};
        $node->append_conf('postgresql.conf', $FAKETIME_TIMEOUTS);
        $node->{idgen_clock_file} = $opt{clock_of}{idgen_clock_file};
    } elsif (defined $opt{faketime}) {
        _use_faketime($node, $opt{faketime});
    }
    return $node;
}

# The environment the server needs: libfaketime reading the node's clock file, seen at once
# by every process (also open sessions), the monotonic clock left alone.
sub _with_clock_env {
    my ($node, $code) = @_;
    local %ENV = %ENV;
    if ($node->{idgen_clock_file}) {
        $ENV{LD_PRELOAD} = $LIBFAKETIME;
        $ENV{FAKETIME_TIMESTAMP_FILE} = $node->{idgen_clock_file};
        $ENV{FAKETIME_NO_CACHE} = '1';
        $ENV{FAKETIME_DONT_FAKE_MONOTONIC} = '1';
        delete $ENV{FAKETIME};
    }
    $code->();
}

sub start_node { my ($node) = @_; _with_clock_env($node, sub { $node->start }); }

sub restart_node {
    my ($node, $mode) = @_;
    $node->stop($mode // 'fast');
    start_node($node);
}

# Moves a faketime node's clock: '-1h' (an offset from the real clock), '+0', or a frozen
# absolute time such as '2030-01-01 00:00:00'.
sub set_clock {
    my ($node, $spec) = @_;
    die $node->name . ' does not run under libfaketime' unless $node->{idgen_clock_file};
    open(my $fh, '>', $node->{idgen_clock_file}) or die "cannot write clock file: $!";
    print $fh "$spec\n";
    close $fh;
}

# Stops the node's clock at the instant $t (whole seconds since 1970).
sub freeze_clock {
    my ($node, $t) = @_;
    # libfaketime reads an absolute time in the server's local time zone, which is ours.
    set_clock($node, POSIX::strftime('%Y-%m-%d %H:%M:%S', localtime($t)));
}

# Sets the node's clock running so that it reads $t (seconds since 1970, fractional) now.
sub clock_reads {
    my ($node, $t) = @_;
    set_clock($node, sprintf('%+.6f', $t - Time::HiRes::time()));
}

# Runs SQL expected to fail; returns its stderr (with the SQLSTATE, VERBOSITY verbose).
sub psql_error {
    my ($node, $sql) = @_;
    my ($ret, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\n$sql");
    return $ret == 0 ? '' : $err;
}

# Runs SQL (one statement, or a script that may run again from its start) as a client that
# retries on SQLSTATE 55000 only: a clock behind the ids already issued, which a new primary may
# report for a while after a promotion, until its clock comes within idgen.max_lead. Any other
# error, or 55000 for longer than $opt{seconds} (default 60), fails the test (dies). Returns
# the output and how many attempts it took.
sub psql_retry {
    my ($node, $db, $sql, %opt) = @_;
    my $deadline = Time::HiRes::time() + ($opt{seconds} // 60);
    for (my $try = 1;; $try++) {
        my ($ret, $out, $err) = $node->psql($db, "\\set VERBOSITY verbose\n$sql", on_error_stop => 1);
        return ($out, $try) if $ret == 0;
        die "psql_retry on " . $node->name . ": an error other than 55000:\n$err" unless $err =~ /ERROR:\s+55000:/;
        die "psql_retry on " . $node->name . ": still 55000 after $try attempts:\n$err"
            if Time::HiRes::time() > $deadline;
        Time::HiRes::sleep(0.3);
    }
}

# ---- The work of the replication and move tests ------------------------------------------
# Every server that becomes a primary (the first one, then each promoted standby, restored
# copy, dump restore or upgraded cluster) does the same work, as a "round" tagged in the rows:
#   live:     $opt{live_rows} rows of snowflake_next('ids') (8192 nodes: 512 ids per ms, so a
#             bulk statement runs ahead of the clock), uuid_v1(), unique_timestamp(),
#             locality_uuid(), uuid_v7();
#   backfill: the same $opt{history_rows} historical times every round (70% on their own
#             microsecond, 25% in groups of ten, 5% on one microsecond), each with uuid_v1_at(ts),
#             uuid_v1_at(ts, '08:00:2b:01:02:03'), snowflake_at('ids', ts) and uuid_v7_at(ts).
# The tables replicate (or are dumped, or upgraded) with everything else, so the server that
# generates round n holds rounds 1 .. n and counts duplicates itself.
my @ids_columns = (
    # generator, table, column
    [ 'snowflake_next',     'live',     'sf' ],
    [ 'uuid_v1',            'live',     'u1' ],
    [ 'unique_timestamp',   'live',     'ut' ],
    [ 'locality_uuid',      'live',     'lu' ],
    [ 'uuid_v1_at(ts)',     'backfill', 'ua' ],
    [ 'uuid_v1_at(ts,mac)', 'backfill', 'un' ],
    [ 'snowflake_at',       'backfill', 'sa' ],
    [ 'uuid_v7',            'live',     'u7' ],
    [ 'uuid_v7_at',         'backfill', 'a7' ],
);

# On the first primary, before any backup or dump: the extension, the sequencer (64 node ids
# reserved for snowflake_at) and the tables.
sub ids_setup {
    my ($node, %opt) = @_;
    my $db = $opt{db} // 'postgres';
    my $h = $opt{history_rows};
    my ($distinct, $grouped) = (int($h * 0.7), int($h * 0.25));
    $node->safe_psql($db, qq{
        CREATE EXTENSION idgen;
        SELECT snowflake_create('ids', '2010-01-01 00:00:00+00', 8192, backfill_nodes => 64);
        CREATE TABLE live (round int, sf bigint, u1 uuid, ut bigint, lu uuid, u7 uuid);
        CREATE TABLE backfill (round int, i int, ts timestamptz, ua uuid, un uuid, sa bigint, a7 uuid);
        CREATE TABLE history (i int, ts timestamptz);
        INSERT INTO history
        SELECT g, CASE
            WHEN g <= $distinct THEN '2015-01-01 00:00:00+00'::timestamptz + (g::bigint * 2654435761 % 31536000000000) * interval '1 microsecond'
            WHEN g <= $distinct + $grouped THEN '2016-01-01 00:00:00+00'::timestamptz + (g % ($grouped / 10)) * interval '1117 milliseconds 3 microseconds'
            ELSE '2017-06-15 12:00:00.123456+00' END
        FROM generate_series(1, $h) g ORDER BY random();
    });
}

# One round of the work on $node; with not_before => T (seconds since 1970), the live ids are
# made once the server's own clock reads T (it sleeps until then, in the same session).
# Clients retry on 55000 (psql_retry).
sub ids_generate {
    my ($node, $round, %opt) = @_;
    my $db = $opt{db} // 'postgres';
    my $wait = defined $opt{not_before} ? "SELECT pg_sleep_until(to_timestamp($opt{not_before}));\n" : '';
    my (undef, $tries_live) = psql_retry($node, $db, $wait . qq{
        INSERT INTO live SELECT $round, snowflake_next('ids'), uuid_v1(), unique_timestamp(), locality_uuid(), uuid_v7()
        FROM generate_series(1, $opt{live_rows});});
    my (undef, $tries_backfill) = psql_retry($node, $db, qq{
        INSERT INTO backfill SELECT $round, i, ts, uuid_v1_at(ts), uuid_v1_at(ts, '08:00:2b:01:02:03'), snowflake_at('ids', ts),
                                    uuid_v7_at(ts)
        FROM history ORDER BY i;});
    note $node->name . ": round $round generated ($tries_live and $tries_backfill attempts)";
}

# Round 1 on the first primary, with its clock (a libfaketime node's) standing still at an
# instant F, a whole second just ahead: every generator packs its values as densely as it can,
# all from F on, and the Snowflake ids run ahead of the clock (195 ms for 100,000). Returns F.
# A later primary whose work starts just before its own clock reads F (not_before => F - 0.05)
# passes through every millisecond this round used: unless it knows what was handed out here,
# it hands out the same values.
sub ids_first_round {
    my ($node, %opt) = @_;
    my $f = int(Time::HiRes::time()) + 2;
    freeze_clock($node, $f);
    cmp_ok($node->safe_psql($opt{db} // 'postgres', 'SELECT extract(epoch FROM clock_timestamp())'), '==', $f,
        $node->name . ': the clock stands still at F');
    ids_generate($node, 1, %opt);
    return $f;
}

# On the server that generated the last of $rounds rounds: every round's rows are there, each
# generator's values occur once (also all Snowflake ids together and all v1 UUIDs together),
# and every retrospective id carries its row's time. Prints a summary; returns the number of
# duplicates summed over the generators (each counted within its own column).
sub ids_check {
    my ($node, $rounds, $what, %opt) = @_;
    my $db = $opt{db} // 'postgres';
    my %expect = (live => $rounds * $opt{live_rows}, backfill => $rounds * $opt{history_rows});
    my @checks = map { [ $_->[0], $expect{ $_->[1] }, "SELECT $_->[2] AS v FROM $_->[1]", 1 ] } @ids_columns;
    push @checks,
        [ 'all Snowflake ids', $expect{live} + $expect{backfill}, 'SELECT sf AS v FROM live UNION ALL SELECT sa FROM backfill', 0 ],
        [ 'all v1 UUIDs', $expect{live} + 2 * $expect{backfill},
          'SELECT u1 AS v FROM live UNION ALL SELECT ua FROM backfill UNION ALL SELECT un FROM backfill', 0 ];
    my ($total, @summary) = (0);
    for my $c (@checks) {
        my ($name, $n, $query, $counted) = @$c;
        my ($count, $dups) = split /\|/, $node->safe_psql($db, "SELECT count(v), count(v) - count(DISTINCT v) FROM ($query) s");
        is($count, $n, "$what: $name: all $n values of $rounds rounds are there");
        is($dups, 0, "$what: $name: no value twice");
        $total += $dups if $counted;
        push @summary, sprintf('%-20s %8d ids %8d duplicates', $name, $count, $dups);
    }
    is($node->safe_psql($db, q{
        SELECT count(*) FROM backfill
        WHERE uuid_v1_timestamp(ua) = ts AND uuid_v1_timestamp(un) = ts AND uuid_v7_timestamp(a7) = ts
          AND snowflake_timestamp('ids', sa) = date_trunc('milliseconds', ts)}), $expect{backfill},
        "$what: every retrospective id carries its row's time");
    diag("$what:\n" . join("\n", map { "    $_" } @summary));
    return $total;
}

# True when the list holds no value twice.
sub all_unique {
    my %seen;
    for (@_) { return 0 if $seen{$_}++; }
    return 1;
}

1;
