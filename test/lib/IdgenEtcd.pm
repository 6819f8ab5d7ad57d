# An etcd cluster for the TAP tests of idgen's cluster mode, whose servers lease
# their node ids from etcd: the tests must lose one member, lose all of them and get them
# back, and look at the keys idgen writes, so they need a real cluster of their own (three
# members on 127.0.0.1, free ports, data under the test's tmp dir) that they can kill and
# restart, and an etcdctl that talks to it. Needs Debian's etcd-server and etcd-client.
# No member outlives the test: every member still running is stopped at END (also on die,
# and on SIGINT/SIGTERM).
#
#   my $etcd = IdgenEtcd->new;       # three members, not started
#   $etcd->start;                    # starts the members not running, waits until healthy
#   $etcd->client_urls;              # 'http://127.0.0.1:P1,...' for idgen.registry
#   $etcd->kill_member(0); $etcd->start;
#   $etcd->stop; $etcd->start;       # the same data directories: the keys are still there
#   $etcd->kill_all; $etcd->start;   # the same, after SIGKILL
#   $etcd->put('/k', 'v'); $etcd->get_prefix('/k');   # { '/k' => 'v' }
package IdgenEtcd;

use strict;
use warnings;
use HTTP::Tiny;
use IPC::Run;
use JSON::PP;
use MIME::Base64 qw(decode_base64);
use Time::HiRes qw(time sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;

my @clusters;    # every cluster made, for the stop at END

# The programs this needs that are not in PATH.
sub missing_programs {
    return grep { my $p = $_; !grep { -x "$_/$p" } split /:/, $ENV{PATH} } qw(etcd etcdctl);
}

sub new {
    my ($class, %opt) = @_;
    my $base = PostgreSQL::Test::Utils::tempdir('etcd');
    my @members = map {
        { name => "e$_", dir => "$base/e$_", log => "$base/e$_.log",
          client => PostgreSQL::Test::Cluster::get_free_port(), peer => PostgreSQL::Test::Cluster::get_free_port() }
    } 1 .. ($opt{members} // 3);
    my $self = bless { members => \@members, http => HTTP::Tiny->new(timeout => 2) }, $class;
    push @clusters, $self;
    return $self;
}

sub _client_url { my ($m) = @_; return "http://127.0.0.1:$m->{client}"; }
sub _running { my ($self) = @_; return grep { $_->{harness} } @{ $self->{members} }; }

# The client URLs of all members, comma-separated (the value of idgen.registry).
sub client_urls { my ($self) = @_; return join(',', map { _client_url($_) } @{ $self->{members} }); }

# Starts every member that is not running and waits until all of them are healthy. A member
# started again keeps its data directory; etcd then ignores the --initial-cluster* flags.
sub start {
    my ($self, %opt) = @_;
    my $cluster = join(',', map { "$_->{name}=http://127.0.0.1:$_->{peer}" } @{ $self->{members} });
    for my $m (grep { !$_->{harness} } @{ $self->{members} }) {
        $m->{harness} = IPC::Run::start(
            [ 'etcd', '--name', $m->{name}, '--data-dir', $m->{dir},
              '--listen-client-urls', _client_url($m), '--advertise-client-urls', _client_url($m),
              '--listen-peer-urls', "http://127.0.0.1:$m->{peer}",
              '--initial-advertise-peer-urls', "http://127.0.0.1:$m->{peer}",
              '--initial-cluster', $cluster, '--initial-cluster-state', 'new',
              '--initial-cluster-token', "idgen-test-$self->{members}[0]{client}" ],
            '<', '/dev/null', '>>', $m->{log}, '2>&1');
    }
    $self->wait_healthy($opt{seconds} // 60);
}

# Waits until every running member reports itself healthy (it has a leader, so the cluster
# has a quorum); dies after $seconds with the tail of the members' logs.
sub wait_healthy {
    my ($self, $seconds) = @_;
    my $until = time + $seconds;
    my @waiting = $self->_running;
    while (@waiting) {
        @waiting = grep {
            my $r = $self->{http}->get(_client_url($_) . '/health');
            !($r->{success} && $r->{content} =~ /"health":\s*"true"/);
        } @waiting;
        last unless @waiting;
        die 'etcd: not healthy after ' . $seconds . ' s: ' . join(', ', map { $_->{name} } @waiting) . "\n"
          . join('', map { "---- $_->{log}\n" . _tail($_->{log}) } @waiting)
          if time > $until;
        sleep(0.2);
    }
}

sub _tail {
    my ($file) = @_;
    my @lines = split /\n/, -e $file ? PostgreSQL::Test::Utils::slurp_file($file) : '';
    return join("\n", @lines[ ($#lines > 20 ? $#lines - 20 : 0) .. $#lines ]) . "\n";
}

# Kills member $i (0-based) with SIGKILL.
sub kill_member {
    my ($self, $i) = @_;
    my $m = $self->{members}[$i];
    die "etcd: $m->{name} is not running" unless $m->{harness};
    $m->{harness}->signal('KILL');
    $m->{harness}->finish;
    delete $m->{harness};
}

# Kills every running member with SIGKILL: etcd is gone at one instant.
sub kill_all {
    my ($self) = @_;
    $self->kill_member($_) for grep { $self->{members}[$_]{harness} } 0 .. $#{ $self->{members} };
}

# Stops every running member: SIGTERM, SIGKILL after $grace + 1 seconds (IPC::Run's kill_kill
# waits a second more; default 1: a leader whose followers have gone spends some 7 s trying to
# hand its leadership over before it exits).
sub stop {
    my ($self, $grace) = @_;
    my @running = $self->_running;
    $_->{harness}->signal('TERM') for @running;
    for my $m (@running) {
        $m->{harness}->kill_kill(grace => $grace // 1);
        delete $m->{harness};
    }
}

# Runs etcdctl (v3 API) against the running members with @args; returns its standard
# output, dies when it fails.
sub etcdctl {
    my ($self, @args) = @_;
    my $endpoints = join(',', map { _client_url($_) } $self->_running);
    my ($out, $err) = ('', '');
    local $ENV{ETCDCTL_API} = '3';
    IPC::Run::run([ 'etcdctl', "--endpoints=$endpoints", '--command-timeout=5s', @args ], '<', '/dev/null',
        '>', \$out, '2>', \$err)
      or die "etcdctl @args failed: $err";
    return $out;
}

# The keys under $prefix and their values: { key => value }.
sub get_prefix {
    my ($self, $prefix) = @_;
    my $kvs = decode_json($self->etcdctl('get', '--prefix', $prefix, '-w', 'json'))->{kvs} // [];
    return { map { decode_base64($_->{key}) => decode_base64($_->{value} // '') } @$kvs };
}

sub put { my ($self, $key, $value) = @_; $self->etcdctl('put', $key, $value); }
sub del { my ($self, $key) = @_; $self->etcdctl('del', $key); }

# The status of every running member, by member index: { id => hex member id, leader => 0|1 }.
sub _status {
    my ($self) = @_;
    my %index = map { (_client_url($self->{members}[$_]) => $_) } 0 .. $#{ $self->{members} };
    my %status;
    # -w simple: endpoint, id, version, db size, is leader, is learner, term, index, applied, errors
    for (split /\n/, $self->etcdctl('endpoint', 'status', '-w', 'simple')) {
        my ($url, $id, undef, undef, $leader) = split /,\s*/;
        $status{ $index{$url} } = { id => $id, leader => $leader eq 'true' ? 1 : 0 };
    }
    return \%status;
}

# The index of the member that leads now.
sub leader {
    my ($self) = @_;
    my $status = $self->_status;
    my ($i) = grep { $status->{$_}{leader} } keys %$status;
    die 'etcd: no member leads' unless defined $i;
    return $i;
}

# Makes sure member $i does not lead (moves the leadership to another running member), so
# that it can be killed without an election.
sub make_follower {
    my ($self, $i) = @_;
    my $status = $self->_status;
    return unless $status->{$i}{leader};
    my ($to) = grep { $_ != $i } sort keys %$status;
    $self->etcdctl('move-leader', $status->{$to}{id});
    my $until = time + 10;
    while ($self->leader == $i) { die "etcd: member $i still leads" if time > $until; sleep(0.2); }
}

END {
    local $?;
    $_->stop for @clusters;
}
# So that END runs when the test is interrupted too.
$SIG{$_} ||= sub { die "caught SIG$_[0]\n" } for qw(INT TERM);

1;
