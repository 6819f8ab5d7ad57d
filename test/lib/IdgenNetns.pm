# A network of its own for the partition test: every etcd member, every server and the clients
# live on a host of their own (a network namespace with one veth into a bridge, which has a
# namespace of its own too), all on 10.231.0.0/24. The test cuts, thins and heals real links with
# iptables inside a host's namespace, as a firewall on that host would; no address, route or
# rule is made outside the namespaces, and every namespace goes at END (also on die and on
# SIGINT/SIGTERM), after the processes started in them; those of a test killed outright go when
# the next one starts. Needs root, iproute2 and iptables.
#
#   my $net = IdgenNetns->new;            # dies with the reason when namespaces cannot be made
#   $net->add_host('e1', 11);             # host e1 at 10.231.0.11
#   $net->in('e1', 'etcd', ...);          # the command line that runs etcd on e1
#   $net->cut('s1', $net->address('e1'), ...);   # s1 neither sends to nor hears from those
#   $net->lossy('s3', 0.3);               # s3 loses 30% of its packets, both ways, at random
#   $net->heal('s1');                     # every rule on s1 gone
package IdgenNetns;

use strict;
use warnings;
use IPC::Run;

my @networks;    # every network made, for the teardown at END

sub _run {
    my (@cmd) = @_;
    my $err = '';
    IPC::Run::run([@cmd], '<', '/dev/null', '>', '/dev/null', '2>', \$err) or die "@cmd: $err";
}

sub new {
    my ($class) = @_;
    my $self = bless { tag => "ig$$", hosts => {}, made => [] }, $class;
    die "not root\n" if $> != 0;
    for my $p (qw(ip iptables)) {
        die "$p not installed\n" unless grep { -x "$_/$p" } split(/:/, $ENV{PATH}), '/usr/sbin', '/sbin';
    }
    _remove_stale();
    push @networks, $self;
    $self->{switch} = "$self->{tag}-switch";
    _run('ip', 'netns', 'add', $self->{switch});
    push @{ $self->{made} }, $self->{switch};
    _run('ip', 'netns', 'exec', $self->{switch}, 'ip', 'link', 'add', 'br0', 'type', 'bridge');
    _run('ip', 'netns', 'exec', $self->{switch}, 'ip', 'link', 'set', 'br0', 'up');
    return $self;
}

sub _ns { my ($self, $host) = @_; return "$self->{tag}-$host"; }
sub address { my ($self, $host) = @_; return $self->{hosts}{$host} // die "no host $host"; }

# A host named $name at 10.231.0.$octet, its interface eth0 plugged into the switch.
sub add_host {
    my ($self, $name, $octet) = @_;
    my $ns = $self->_ns($name);
    _run('ip', 'netns', 'add', $ns);
    push @{ $self->{made} }, $ns;
    _run('ip', 'link', 'add', 'eth0', 'netns', $ns, 'type', 'veth', 'peer', 'name', $name, 'netns', $self->{switch});
    _run('ip', 'netns', 'exec', $self->{switch}, 'ip', 'link', 'set', $name, 'master', 'br0', 'up');
    _run('ip', 'netns', 'exec', $ns, 'ip', 'addr', 'add', "10.231.0.$octet/24", 'dev', 'eth0');
    _run('ip', 'netns', 'exec', $ns, 'ip', 'link', 'set', $_, 'up') for qw(lo eth0);
    $self->{hosts}{$name} = "10.231.0.$octet";
}

# The command line that runs @cmd on host $host.
sub in { my ($self, $host, @cmd) = @_; return ('ip', 'netns', 'exec', $self->_ns($host), @cmd); }

sub _iptables { my ($self, $host, @rule) = @_; _run($self->in($host, 'iptables', @rule)); }

# Host $host drops every packet to or from @addresses.
sub cut {
    my ($self, $host, @addresses) = @_;
    for my $a (@addresses) {
        $self->_iptables($host, '-A', 'INPUT', '-s', $a, '-j', 'DROP');
        $self->_iptables($host, '-A', 'OUTPUT', '-d', $a, '-j', 'DROP');
    }
}

# Host $host drops each packet on its link (in and out) with probability $p.
sub lossy {
    my ($self, $host, $p) = @_;
    $self->_iptables($host, '-A', 'INPUT', '-i', 'eth0', '-m', 'statistic', '--mode', 'random', '--probability', $p, '-j', 'DROP');
    $self->_iptables($host, '-A', 'OUTPUT', '-o', 'eth0', '-m', 'statistic', '--mode', 'random', '--probability', $p, '-j', 'DROP');
}

sub heal { my ($self, $host) = @_; $self->_iptables($host, '-F'); }

# The pids of the processes running in any of the network's namespaces.
sub _pids {
    my ($self) = @_;
    my @pids;
    for my $ns (@{ $self->{made} }) {
        push @pids, grep { /^\d+$/ } split /\s+/, `ip netns pids $ns 2>/dev/null`;
    }
    return @pids;
}

# The namespaces of a test that was killed (SIGKILL: no END ran), whose process is gone, with
# whatever still runs in them.
sub _remove_stale {
    my @stale = grep { /^ig(\d+)-/ && !kill(0, $1) } map { (split ' ')[0] } split /\n/, `ip netns list 2>/dev/null`;
    bless({ made => \@stale }, __PACKAGE__)->teardown if @stale;
}

# Kills every process still in the namespaces, then removes them (their veths go with them).
sub teardown {
    my ($self) = @_;
    for my $signal ('TERM', 'KILL') {
        my @pids = $self->_pids or last;
        kill $signal, @pids;
        for (1 .. 50) { last unless $self->_pids; select(undef, undef, undef, 0.1); }
    }
    system('ip', 'netns', 'del', $_) for reverse @{ $self->{made} };
    $self->{made} = [];
}

END {
    local $?;
    $_->teardown for @networks;
}
$SIG{$_} ||= sub { die "caught SIG$_[0]\n" } for qw(INT TERM);

1;
