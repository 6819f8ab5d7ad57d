# Helpers for idgen's TAP tests: a cluster with idgen preloaded, optionally running under
# libfaketime so a test can move its wall clock (backwards too) while it runs, and the
# checks every generator's process tests share.
package IdgenTest;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(idgen_node start_node restart_node set_clock psql_error all_unique);

my $LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

# A new, initialised cluster with idgen preloaded. Options:
#   node_id  => N          idgen.node_id
#   faketime => '+0'       run the server under libfaketime, starting at this offset or time
#   conf     => '...'      more postgresql.conf lines
sub idgen_node {
    my ($name, %opt) = @_;
    my $node = PostgreSQL::Test::Cluster->new($name);
    $node->init;
    my $conf = "shared_preload_libraries = 'idgen'\n";
    $conf .= "idgen.node_id = $opt{node_id}\n" if defined $opt{node_id};
    $conf .= $opt{conf} if defined $opt{conf};
    $node->append_conf('postgresql.conf', $conf);
    if (defined $opt{faketime}) {
        die "libfaketime is not installed at $LIBFAKETIME" unless -e $LIBFAKETIME;
        # Under libfaketime every clock read fopen()s the clock file, which is not
        # async-signal-safe: a SIGALRM arriving inside it whose handler reads the clock too
        # (PostgreSQL's timeout handler does) deadlocks on glibc's stdio lock. PostgreSQL leaves
        # the timer of a cancelled deadlock_timeout to fire harmlessly, so keep that far away.
        $node->append_conf('postgresql.conf', "deadlock_timeout = '1h'\n");
        $node->{idgen_clock_file} = $node->basedir . '/faketime.rc';
        set_clock($node, $opt{faketime});
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
    open(my $fh, '>', $node->{idgen_clock_file}) or die "cannot write clock file: $!";
    print $fh "$spec\n";
    close $fh;
}

# Runs SQL expected to fail; returns its stderr (with the SQLSTATE, VERBOSITY verbose).
sub psql_error {
    my ($node, $sql) = @_;
    my ($ret, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\n$sql");
    return $ret == 0 ? '' : $err;
}

# True when the list holds no value twice.
sub all_unique {
    my %seen;
    for (@_) { return 0 if $seen{$_}++; }
    return 1;
}

1;
