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
#   $etcd->snapshot_save($f); ...; $etcd->restore_snapshot($f);   # back to the snapshot's keys
#   $etcd->wipe;                     # rebuilt empty behind the same endpoints
#   $etcd->requests('Range');        # range requests the members answered so far
#   IdgenEtcd->new(members => 1, tls => $certs, args => [...]);   # https:// client URLs, the
#                                    # members' certificate and key, clients' certificates
#                                    # checked against the CA (etcd's --client-cert-auth); $certs
#                                    # is make_certificates' hash. etcdctl then uses the client's
#                                    # certificate, and $etcd->{user} = 'root:pw' once auth is on.
package IdgenEtcd;

use strict;
use warnings;
use File::Path;
use HTTP::Tiny;
use IPC::Run;
use JSON::PP;
use MIME::Base64 qw(decode_base64);
use Time::HiRes qw(time sleep);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;

my @clusters;    # every cluster made, for the stop at END

# Certificates for an etcd with TLS, made with openssl under $dir: a CA; the members'
# certificate for 127.0.0.1; a client certificate; an expired client certificate (signed as of
# 2020 under libfaketime); and a second CA, which signed only a client certificate of its own
# (foreign_cert). Returns their paths. The
# client certificates have no CommonName, which etcd's JSON gateway requires with
# --client-cert-auth (it refuses a request whose certificate names a CN).
sub make_certificates {
    my ($dir) = @_;
    my %c = map { ($_ => "$dir/$_.pem") }
      qw(ca ca_key server_cert server_key client_cert client_key expired_cert other_ca other_ca_key foreign_cert
         foreign_key);
    my $run = sub {
        my $err = '';
        IPC::Run::run([@_], '<', '/dev/null', '>', '/dev/null', '2>', \$err) or die "@_: $err";
    };
    open my $ext, '>', "$dir/san.ext" or die $!;
    print $ext "subjectAltName = IP:127.0.0.1\n";
    close $ext;
    for my $ca ([ $c{ca}, $c{ca_key}, 'idgen test CA' ], [ $c{other_ca}, $c{other_ca_key}, 'another CA' ]) {
        $run->('openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', $ca->[1], '-out', $ca->[0],
               '-days', '2', '-subj', "/CN=$ca->[2]");
    }
    my $sign = sub {
        my ($ca, $subject, $cert, $key, @pre) = @_;
        $run->('openssl', 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', $key, '-out', "$cert.csr", '-subj', $subject);
        $run->(@pre, 'openssl', 'x509', '-req', '-in', "$cert.csr", '-CA', $c{$ca}, '-CAkey', $c{"${ca}_key"},
               '-CAcreateserial', '-out', $cert, '-days', '1', '-extfile', "$dir/san.ext");
    };
    $sign->('ca', '/CN=127.0.0.1', $c{server_cert}, $c{server_key});
    # Clients without a CommonName: etcd refuses a gateway request whose certificate has one.
    $sign->('ca', '/O=idgen test client', $c{client_cert}, $c{client_key});
    $sign->('other_ca', '/O=idgen test client', $c{foreign_cert}, $c{foreign_key});
    $sign->('ca', '/O=idgen test client', $c{expired_cert}, "$dir/expired_key.pem", 'faketime', '2020-01-01 00:00:00');
    $c{expired_key} = "$dir/expired_key.pem";
    return \%c;
}

# The programs this needs that are not in PATH.
sub missing_programs {
    return grep { my $p = $_; !grep { -x "$_/$p" } split /:/, $ENV{PATH} } qw(etcd etcdctl);
}

sub new {
    my ($class, %opt) = @_;
    my $base = PostgreSQL::Test::Utils::tempdir('etcd');
    my @members = map {
        { name => "e$_", dir => "$base/e$_", log => "$base/e$_.log", tls => $opt{tls} ? 1 : 0,
          client => PostgreSQL::Test::Cluster::get_free_port(), peer => PostgreSQL::Test::Cluster::get_free_port() }
    } 1 .. ($opt{members} // 3);
    my $self = bless { members => \@members, http => HTTP::Tiny->new(timeout => 2), tls => $opt{tls},
                       args => $opt{args} // [] }, $class;
    push @clusters, $self;
    return $self;
}

sub _client_url { my ($m) = @_; return ($m->{tls} ? 'https' : 'http') . "://127.0.0.1:$m->{client}"; }
sub _running { my ($self) = @_; return grep { $_->{harness} } @{ $self->{members} }; }

# How many lines of the members' logs match $re (etcd logs each refused TLS handshake).
sub log_lines {
    my ($self, $re) = @_;
    my $n = 0;
    for my $m (@{ $self->{members} }) {
        open my $fh, '<', $m->{log} or next;
        while (<$fh>) { $n++ if $_ =~ $re; }
    }
    return $n;
}

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
              '--initial-cluster-token', "idgen-test-$self->{members}[0]{client}", $self->_tls_flags,
              @{ $self->{args} } ],
            '<', '/dev/null', '>>', $m->{log}, '2>&1');
    }
    $self->wait_healthy($opt{seconds} // 60);
}

sub _tls_flags {
    my ($self) = @_;
    my $t = $self->{tls} or return ();
    return ('--cert-file', $t->{server_cert}, '--key-file', $t->{server_key}, '--trusted-ca-file', $t->{ca},
            '--client-cert-auth');
}

# etcdctl's flags for TLS and, once auth is enabled, the user.
sub _etcdctl_flags {
    my ($self) = @_;
    my @flags;
    push @flags, "--cacert=$self->{tls}{ca}", "--cert=$self->{tls}{client_cert}", "--key=$self->{tls}{client_key}"
      if $self->{tls};
    push @flags, "--user=$self->{user}" if $self->{user};
    return @flags;
}

# Whether member $m answers as healthy: its /health over plain HTTP, or etcdctl over TLS.
sub _healthy {
    my ($self, $m) = @_;
    if (!$self->{tls}) {
        my $r = $self->{http}->get(_client_url($m) . '/health');
        return $r->{success} && $r->{content} =~ /"health":\s*"true"/;
    }
    my ($out, $err) = ('', '');
    local $ENV{ETCDCTL_API} = '3';
    IPC::Run::run([ 'etcdctl', '--endpoints=' . _client_url($m), '--command-timeout=2s', $self->_etcdctl_flags,
                    'endpoint', 'health' ], '<', '/dev/null', '>', \$out, '2>', \$err);
    return "$out$err" =~ /is healthy/;
}

# Waits until every running member reports itself healthy (it has a leader, so the cluster
# has a quorum); dies after $seconds with the tail of the members' logs.
sub wait_healthy {
    my ($self, $seconds) = @_;
    my $until = time + $seconds;
    my @waiting = $self->_running;
    while (@waiting) {
        @waiting = grep { !$self->_healthy($_) } @waiting;
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
    IPC::Run::run([ 'etcdctl', "--endpoints=$endpoints", '--command-timeout=5s', $self->_etcdctl_flags, @args ],
        '<', '/dev/null',
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

# How many gRPC requests of $method ('Range', 'Txn', ...) the running members have answered
# (etcd's grpc_server_handled_total, every code; plain HTTP members only).
sub requests {
    my ($self, $method) = @_;
    my $n = 0;
    for my $m ($self->_running) {
        my $r = $self->{http}->get(_client_url($m) . '/metrics');
        die "etcd: no metrics from $m->{name}" unless $r->{success};
        $n += $1 while $r->{content} =~ /^grpc_server_handled_total\{[^}]*grpc_method="$method"[^}]*\} (\S+)$/mg;
    }
    return $n;
}

# An etcd that forgets. snapshot_save writes the members' keys to $file (etcdctl snapshot
# save, from one member); restore_snapshot stops every member, gives each a data directory
# restored from $file (etcdctl snapshot restore, the same names, URLs and cluster token) and
# starts them: every key written since the snapshot is gone. wipe stops them, empties their data
# directories and starts them: an etcd rebuilt empty behind the same endpoints.
sub snapshot_save {
    my ($self, $file) = @_;
    my ($m) = $self->_running;
    local $ENV{ETCDCTL_API} = '3';
    my $out = '';
    IPC::Run::run([ 'etcdctl', '--endpoints=' . _client_url($m), $self->_etcdctl_flags, 'snapshot', 'save', $file ],
        '<', '/dev/null', '>', \$out, '2>&1') or die "etcdctl snapshot save failed: $out";
}

sub restore_snapshot {
    my ($self, $file) = @_;
    $self->stop;
    my $cluster = join(',', map { "$_->{name}=http://127.0.0.1:$_->{peer}" } @{ $self->{members} });
    local $ENV{ETCDCTL_API} = '3';
    for my $m (@{ $self->{members} }) {
        my $out = '';
        File::Path::rmtree($m->{dir});
        IPC::Run::run([ 'etcdctl', 'snapshot', 'restore', $file, '--data-dir', $m->{dir}, '--name', $m->{name},
                        '--initial-cluster', $cluster, '--initial-advertise-peer-urls', "http://127.0.0.1:$m->{peer}",
                        '--initial-cluster-token', "idgen-test-$self->{members}[0]{client}" ],
            '<', '/dev/null', '>', \$out, '2>&1') or die "etcdctl snapshot restore failed: $out";
    }
    $self->start;
}

sub wipe {
    my ($self) = @_;
    $self->stop;
    File::Path::rmtree($_->{dir}) for @{ $self->{members} };
    $self->start;
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
