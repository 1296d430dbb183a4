/**
 * The process guard's helper, run as
 * `perl -e GUARD_HELPER PARENT PRCTL PID-FILE GUARD_KILL N NAME=VALUE… COMMAND ARGS…`
 * (perl-base is part of every Debian and Ubuntu system). It stands between us and the child's process:
 *
 * - it is a child subreaper, so every process the child's tree orphans (background jobs, double-forked daemons,
 *   `setsid` escapees) is re-parented to it instead of to init, and stays findable as its descendant;
 * - its parent-death signal (USR1, checked against PARENT after arming) makes it SIGSTOP then SIGKILL all its
 *   descendants when we die, however we die, and reap them (for at most 0.5 s) so that none lingers as a zombie
 *   waiting for init; the child also gets SIGKILL if the helper itself is killed;
 * - when the child ends, it writes the child's wait status to PID-FILE.exit (when a PID-FILE was given: a caller
 *   that did not spawn the process, such as an MCP SDK, can still say how the server ended), kills whatever the
 *   child left behind, then exits with the child's exact status (a signal is raised again on itself, with core dumps off so no second core file appears). Children that are
 *   exiting (zombies, tasks the kernel is tearing down) can run no code and are left to init; one still running
 *   gets 10 ms to start exiting on its own first — the init of a sandbox's PID namespace outlives bubblewrap's
 *   outer process by about that, and killing it costs a walk over /proc;
 * - USR2 asks it to kill the whole tree now (the SIGKILL step of an escalation, escapees included);
 * - it ignores TERM/INT/HUP, which reach the child directly through the process group.
 *
 * It never writes to the child's output (it closes its copies of stdio), and the child gets the environment it was
 * given: PERL* variables travel as NAME=VALUE arguments so that they cannot change how the helper itself runs.
 * Syscall and signal numbers are Linux's; PRCTL is the prctl syscall number of this architecture. The code that
 * kills a tree is compiled only when it is needed: every spawn pays for compiling the rest.
 */
export const GUARD_HELPER = String.raw`$0 = 'birdie-guard';
my ($parent, $nr, $pidfile, $code, $n) = splice @ARGV, 0, 5;
my @restore = splice @ARGV, 0, $n;
my $me = $$;
my $kill;
sub kill_tree { ($kill //= eval $code // sub {})->(@_) }
sub fail { syswrite STDERR, "birdie-guard: $_[0]\n"; exit 125 }
if ($pidfile ne '-') { open my $p, '>', $pidfile or fail("cannot write $pidfile: $!"); print $p "$me\n"; close $p }
syscall($nr, 36, 1, 0, 0, 0) == 0 or fail("cannot become a child subreaper: $!");
$SIG{USR1} = sub { kill_tree(1); exit 137 };
$SIG{USR2} = sub { kill_tree(0) };
syscall($nr, 1, 10, 0, 0, 0) == 0 or fail("cannot set a parent-death signal: $!");
exit 137 if getppid() != $parent;
$SIG{$_} = 'IGNORE' for qw(TERM INT HUP);
my $child = fork;
defined $child or fail("cannot fork: $!");
if (!$child) {
  $SIG{$_} = 'DEFAULT' for qw(TERM INT HUP USR1 USR2);
  syscall($nr, 1, 9, 0, 0, 0);
  exit 137 if getppid() != $me;
  delete $ENV{PERL_BADLANG};
  for (@restore) { my ($k, $v) = split /=/, $_, 2; $ENV{$k} = $v }
  exec { $ARGV[0] } @ARGV;
  syswrite STDERR, "birdie-guard: cannot run $ARGV[0]: $!\n";
  exit 127;
}
open STDIN, '<', '/dev/null';
open STDOUT, '>', '/dev/null';
open STDERR, '>', '/dev/null';
my $status;
for (;;) {
  my $w = waitpid -1, 0;
  if ($w == $child) { $status = $?; last }
  if ($w == -1) { $status = 9; last }
}
if ($pidfile ne '-' && open my $x, '>', "$pidfile.exit") { print $x "$status\n"; close $x }
sub gone { open my $f, '<', "/proc/$_[0]/stat" or return 1; my $l = <$f> // ''; $l =~ /\) (\S) (?:\S+ ){5}(\d+)/ && ($1 eq 'Z' || $2 & 4) }
my $left = 1;
for my $try (0 .. 20) {
  open my $c, '<', "/proc/$me/task/$me/children" or last;
  $left = grep { !gone($_) } (<$c> // '') =~ /(\d+)/g;
  last if !$left || $try == 20;
  select undef, undef, undef, 0.0005;
}
kill_tree(1) if $left;
my $sig = $status & 127;
exit($status >> 8) if !$sig;
syscall($nr, 4, 0, 0, 0, 0);
my $name = (qw(ZERO HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM STKFLT CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF WINCH IO PWR SYS))[$sig];
$SIG{$name} = 'DEFAULT' if $name;
kill $sig, $$;
exit 128 + $sig;
`;

/**
 * The helper's tree killer, handed over as an argument and compiled on first use: a sub
 * that SIGSTOPs every descendant (found through /proc, until a pass finds no new one, so that none can fork a new
 * one meanwhile), SIGKILLs them all and, when asked, reaps them for at most 0.5 s.
 */
export const GUARD_KILL = String.raw`sub {
  my ($reap) = @_;
  my %seen;
  for (1 .. 100) {
    my %kids;
    opendir my $d, '/proc' or last;
    while (defined(my $e = readdir $d)) {
      next if $e !~ /^\d+$/;
      open my $f, '<', "/proc/$e/stat" or next;
      my $l = <$f>;
      next if !defined $l || $l !~ /\) (\S) (\d+)/ || $1 eq 'Z' || $1 eq 'X';
      push @{ $kids{$2} }, $e;
    }
    my @new;
    my @todo = ($$);
    while (@todo) { for (@{ $kids{ shift @todo } || [] }) { push @todo, $_; push @new, $_ if !$seen{$_}++ } }
    last if !@new;
    kill 'STOP', @new;
  }
  kill 'KILL', keys %seen;
  return if !$reap;
  for (1 .. 100) {
    1 while waitpid(-1, 1) > 0;
    return if waitpid(-1, 1) == -1;
    select undef, undef, undef, 0.005;
  }
}`;

/** prctl(2)'s syscall number on the architectures whose signal numbers match the helper's (USR1 10, KILL 9). */
export const PRCTL_SYSCALL: Readonly<Partial<Record<NodeJS.Architecture, number>>> = {
  x64: 157,
  ia32: 172,
  arm64: 167,
  arm: 172,
  riscv64: 167,
  loong64: 167,
  ppc64: 171,
  s390x: 172,
};
