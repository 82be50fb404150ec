# Inside the sandbox: relay 127.0.0.1:PORT to the worker's egress proxy socket, run the agent.
#
# Usage: perl egress_forwarder.pl SOCKET PORT -- AGENT_ARGV...
#
# The same contract as egress_forwarder.py, which runs where the host has no /usr/bin/perl:
# it listens before the agent starts, leaves the relay to a detached grandchild (one child per
# connection) and then becomes the agent (exec). Perl starts in 1-2 ms where Python needs
# 8-12, and this stands between bubblewrap and every networked agent (issue 13). It loads no
# module (not even `constant`): the socket numbers below are Linux's, where bubblewrap runs.
sub AF_UNIX () { 1 }
sub AF_INET () { 2 }
sub SOCK_STREAM () { 1 }
sub SOL_SOCKET () { 1 }
sub SO_REUSEADDR () { 2 }
sub SHUT_WR () { 1 }
sub SHUT_RDWR () { 2 }
sub READ_CHUNK () { 65536 }
sub NOT_STARTED () { 127 }

my ($socket_path, $port, $separator, @argv) = @ARGV;
if (!@argv || $separator ne '--' || $port !~ /^\d+$/ || length($socket_path) > 107) {
    print STDERR "usage: perl egress_forwarder.pl SOCKET PORT -- AGENT_ARGV...\n";
    exit 2;
}

socket(my $listener, AF_INET, SOCK_STREAM, 0) or die "codedesk egress forwarder: socket: $!\n";
setsockopt($listener, SOL_SOCKET, SO_REUSEADDR, pack('i', 1));
bind($listener, pack('S n C4 x8', AF_INET, $port, 127, 0, 0, 1))
    or die "codedesk egress forwarder: cannot listen on port $port: $!\n";
listen($listener, 64) or die "codedesk egress forwarder: listen: $!\n";

detach_relay();
close($listener);  # the agent never holds the listener (Perl marks it close-on-exec anyway)
{ exec { $argv[0] } @argv; }
print STDERR "codedesk: could not start '$argv[0]': $!\n";
exit NOT_STARTED;

# Serve in a grandchild (double fork); return once the middle child has gone, so the relay is
# no child of the agent (an agent that waits for all its children does not wait for it).
sub detach_relay {
    my $middle = fork() // die "codedesk egress forwarder: fork: $!\n";
    if ($middle == 0) {
        serve() if fork() == 0;
        exit 0;
    }
    waitpid($middle, 0);
}

# Accept the agent's connections for as long as the sandbox lives, each relayed by a child.
sub serve {
    $SIG{CHLD} = 'IGNORE';  # connection children are reaped by the kernel
    while (1) {
        accept(my $conn, $listener) or exit 0;
        my $child = fork();
        if (defined $child && $child == 0) {
            close($listener);
            relay($conn);
            exit 0;
        }
        close($conn);
    }
}

# One connection of the agent, relayed both ways to the proxy socket.
sub relay {
    my ($conn) = @_;
    socket(my $upstream, AF_UNIX, SOCK_STREAM, 0) or return;
    if (!connect($upstream, pack('S a108', AF_UNIX, $socket_path))) {
        print STDERR "codedesk egress forwarder: proxy unreachable: $!\n";
        return;
    }
    binmode($_) for $conn, $upstream;  # bytes, whatever PERL_UNICODE says
    my %target = (fileno($conn) => $upstream, fileno($upstream) => $conn);
    my %source = (fileno($conn) => $conn, fileno($upstream) => $upstream);
    while (%source) {
        my $wanted = '';
        vec($wanted, $_, 1) = 1 for keys %source;
        select(my $ready = $wanted, undef, undef, undef) > 0 or next;
        for my $fd (keys %source) {
            next unless vec($ready, $fd, 1);
            my $read = sysread($source{$fd}, my $data, READ_CHUNK);
            if (defined $read && $read == 0) {  # this side ended: so does its copy's writing
                shutdown($target{$fd}, SHUT_WR);
                delete $source{$fd};
            } elsif (!defined $read || !write_all($target{$fd}, $data)) {
                shutdown($_, SHUT_RDWR) for $conn, $upstream;
                return;
            }
        }
    }
}

sub write_all {
    my ($handle, $data) = @_;
    while (length $data) {
        my $written = syswrite($handle, $data) // return 0;
        substr($data, 0, $written) = '';
    }
    return 1;
}
