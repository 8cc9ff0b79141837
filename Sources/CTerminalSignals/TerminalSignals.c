#include "TerminalSignals.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t armed = 0;
static volatile sig_atomic_t pending = 0;
static volatile sig_atomic_t interrupt_signal_number = 0;
static volatile sig_atomic_t interrupted_once = 0;
static int terminal_descriptor = -1;
static int wake_descriptor = -1;
static struct termios original_modes;
static int atexit_registered = 0;

static const int interrupt_signals[] = {SIGINT, SIGTERM, SIGHUP};
// Every signal whose default action dumps core (SIGQUIT: Ctrl-backslash at a terminal).
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE, SIGQUIT, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ};
#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

static struct sigaction previous_interrupt[COUNT(interrupt_signals)];
static struct sigaction previous_crash[COUNT(crash_signals)];
static struct sigaction previous_suspend;
static struct sigaction previous_resize;
static struct sigaction previous_continue;

static const char reset_sequence[] =
  "\033[?1000l\033[?1002l\033[?1006l"  // mouse reporting off
  "\033[?2004l"  // bracketed paste off
  "\033[0m\033[?25h\033[?1049l\033[?1l\033>"  // plain text, cursor on, main screen, keypad off
  "\r\n";

static void write_all(int descriptor, const char *bytes, size_t count) {
  while (count > 0) {
    ssize_t written = write(descriptor, bytes, count);
    if (written < 0) {
      if (errno == EINTR) continue;
      return;
    }
    bytes += written;
    count -= (size_t)written;
  }
}

void terminal_signals_restore_now(void) {
  if (!armed) return;
  armed = 0;
  int saved = errno;
  write_all(terminal_descriptor, reset_sequence, sizeof reset_sequence - 1);
  tcsetattr(terminal_descriptor, TCSADRAIN, &original_modes);
  errno = saved;
}

static void wake(void) {
  int saved = errno;
  char byte = 1;
  // Non-blocking: a full pipe already holds a wake-up.
  ssize_t ignored = write(wake_descriptor, &byte, 1);
  (void)ignored;
  errno = saved;
}

static void die_by(int signal_number) {
  struct sigaction default_action;
  memset(&default_action, 0, sizeof default_action);
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal_number, &default_action, NULL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal_number);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  raise(signal_number);
  _exit(128 + signal_number);
}

static void on_interrupt(int signal_number) {
  if (!armed) die_by(signal_number);
  if (interrupted_once) {
    // The loop has not answered the first one: restore here and end now.
    terminal_signals_restore_now();
    die_by(signal_number);
  }
  interrupted_once = 1;
  interrupt_signal_number = signal_number;
  pending |= TERMINAL_SIGNAL_INTERRUPT;
  wake();
}

static void on_crash(int signal_number) {
  terminal_signals_restore_now();
  die_by(signal_number);
}

static void on_suspend(int signal_number) {
  (void)signal_number;
  pending |= TERMINAL_SIGNAL_SUSPEND;
  wake();
}

static void on_resize(int signal_number) {
  (void)signal_number;
  pending |= TERMINAL_SIGNAL_RESIZE;
  wake();
}

static void on_continue(int signal_number) {
  (void)signal_number;
  pending |= TERMINAL_SIGNAL_CONTINUE;
  wake();
}

static void restore_at_exit(void) { terminal_signals_restore_now(); }

static int install(int signal_number, void (*handler)(int), int flags, struct sigaction *previous) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  // Every handler runs with the others held off, so they never interleave.
  for (size_t i = 0; i < COUNT(interrupt_signals); i++) sigaddset(&action.sa_mask, interrupt_signals[i]);
  sigaddset(&action.sa_mask, SIGTSTP);
  sigaddset(&action.sa_mask, SIGWINCH);
  action.sa_flags = flags;
  return sigaction(signal_number, &action, previous);
}

int terminal_signals_arm(int terminal, const struct termios *original, int wake) {
  terminal_descriptor = terminal;
  wake_descriptor = wake;
  original_modes = *original;
  pending = 0;
  interrupt_signal_number = 0;
  interrupted_once = 0;
  armed = 1;
  for (size_t i = 0; i < COUNT(interrupt_signals); i++) {
    if (install(interrupt_signals[i], on_interrupt, SA_RESTART, &previous_interrupt[i]) != 0) return -1;
  }
  for (size_t i = 0; i < COUNT(crash_signals); i++) {
    // One the parent left ignored (a script's `trap '' QUIT`, SIGXFSZ for EFBIG) stays ignored.
    if (sigaction(crash_signals[i], NULL, &previous_crash[i]) != 0) return -1;
    if (previous_crash[i].sa_handler == SIG_IGN) continue;
    if (install(crash_signals[i], on_crash, SA_NODEFER, &previous_crash[i]) != 0) return -1;
  }
  if (install(SIGTSTP, on_suspend, SA_RESTART, &previous_suspend) != 0) return -1;
  if (install(SIGWINCH, on_resize, SA_RESTART, &previous_resize) != 0) return -1;
  if (install(SIGCONT, on_continue, SA_RESTART, &previous_continue) != 0) return -1;
  // A parent may have left these blocked; the loop's thread must receive them.
  sigset_t ours;
  sigemptyset(&ours);
  for (size_t i = 0; i < COUNT(interrupt_signals); i++) sigaddset(&ours, interrupt_signals[i]);
  sigaddset(&ours, SIGTSTP);
  sigaddset(&ours, SIGWINCH);
  sigaddset(&ours, SIGCONT);
  sigprocmask(SIG_UNBLOCK, &ours, NULL);
  if (!atexit_registered) {
    atexit_registered = 1;
    atexit(restore_at_exit);
  }
  return 0;
}

void terminal_signals_disarm(void) {
  armed = 0;
  for (size_t i = 0; i < COUNT(interrupt_signals); i++) sigaction(interrupt_signals[i], &previous_interrupt[i], NULL);
  for (size_t i = 0; i < COUNT(crash_signals); i++) sigaction(crash_signals[i], &previous_crash[i], NULL);
  sigaction(SIGTSTP, &previous_suspend, NULL);
  sigaction(SIGWINCH, &previous_resize, NULL);
  sigaction(SIGCONT, &previous_continue, NULL);
  pending = 0;
}

int terminal_signals_take_pending(int *interrupt_signal) {
  sigset_t set, old;
  sigemptyset(&set);
  for (size_t i = 0; i < COUNT(interrupt_signals); i++) sigaddset(&set, interrupt_signals[i]);
  sigaddset(&set, SIGTSTP);
  sigaddset(&set, SIGWINCH);
  sigprocmask(SIG_BLOCK, &set, &old);
  int bits = pending;
  if (interrupt_signal != NULL) *interrupt_signal = interrupt_signal_number;
  pending = 0;
  sigprocmask(SIG_SETMASK, &old, NULL);
  return bits;
}

void terminal_signals_suspend_self(void) {
  struct sigaction ours;
  struct sigaction default_action;
  memset(&default_action, 0, sizeof default_action);
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(SIGTSTP, &default_action, &ours);
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGTSTP);
  sigprocmask(SIG_UNBLOCK, &set, &old);
  // Stops here until SIGCONT.
  raise(SIGTSTP);
  sigprocmask(SIG_SETMASK, &old, NULL);
  sigaction(SIGTSTP, &ours, NULL);
  // The SIGCONT that ended this stop is the caller's to handle, not a stop of someone else's.
  sigemptyset(&set);
  sigaddset(&set, SIGCONT);
  sigprocmask(SIG_BLOCK, &set, &old);
  pending &= ~TERMINAL_SIGNAL_CONTINUE;
  sigprocmask(SIG_SETMASK, &old, NULL);
}
