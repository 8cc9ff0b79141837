// Signal handling for the terminal backend, in C so that the handlers are plainly
// async-signal-safe: they set flags, write a byte to a self-pipe, and, when the program cannot
// be asked, restore the terminal with write(2) and tcsetattr(3) before ending the process.
#ifndef TERMINAL_SIGNALS_H
#define TERMINAL_SIGNALS_H

#include <termios.h>

/// Bits of `terminal_signals_take_pending`.
enum {
  TERMINAL_SIGNAL_INTERRUPT = 1,
  TERMINAL_SIGNAL_SUSPEND = 2,
  TERMINAL_SIGNAL_RESIZE = 4,
  /// SIGCONT after a stop the backend did not make itself (SIGSTOP): the terminal's modes and
  /// contents may have been changed meanwhile.
  TERMINAL_SIGNAL_CONTINUE = 8,
};

/// Installs the handlers (SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGWINCH, SIGCONT, and the crash signals
/// SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE, SIGQUIT, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ: every one
/// whose default action dumps core) and, once per process, an atexit restore.
/// `terminal` is the terminal's descriptor, `original` its modes to restore, `wake` the write
/// end of a non-blocking pipe written once per signal. Returns 0, or -1 with errno set.
int terminal_signals_arm(int terminal, const struct termios *original, int wake);

/// Puts back the handlers found by `terminal_signals_arm`; the restore is no longer needed.
void terminal_signals_disarm(void);

/// The pending bits, cleared; `interrupt_signal` receives the signal of an interrupt. After a
/// first interrupt, a second one restores the terminal in the handler and ends the process with
/// the default action: a loop that stopped answering can still be stopped.
int terminal_signals_take_pending(int *interrupt_signal);

/// Writes the reset sequences (leave the alternate screen, show the cursor, plain text, mouse
/// and bracketed paste off) and restores the original modes. Async-signal-safe.
void terminal_signals_restore_now(void);

/// Stops the process with the default SIGTSTP action; returns after SIGCONT with the handler
/// installed again. Called from the main loop, after the terminal was put back.
void terminal_signals_suspend_self(void);

#endif
