// The ncursesw API as Swift sees it. SwiftPM drops pkg-config's -D_XOPEN_SOURCE=600, so the
// wide-character declarations are switched on here, before the header.
#ifndef CNCURSESW_SHIM_H
#define CNCURSESW_SHIM_H

#define NCURSES_WIDECHAR 1
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <sys/ioctl.h>
#include <langinfo.h>
#include <ncursesw/curses.h>

// Macros and globals that do not import into Swift.
static inline attr_t cnc_attribute_bold(void) { return A_BOLD; }
static inline attr_t cnc_attribute_dim(void) { return A_DIM; }
static inline attr_t cnc_attribute_italic(void) { return A_ITALIC; }
static inline attr_t cnc_attribute_underline(void) { return A_UNDERLINE; }
static inline attr_t cnc_attribute_reverse(void) { return A_REVERSE; }
static inline attr_t cnc_attribute_normal(void) { return A_NORMAL; }

static inline WINDOW *cnc_standard_screen(void) { return stdscr; }
static inline WINDOW *cnc_current_screen(void) { return curscr; }
static inline int cnc_colors(void) { return COLORS; }
static inline int cnc_color_pairs(void) { return COLOR_PAIRS; }
static inline int cnc_rows(WINDOW *window) { int rows, columns; getmaxyx(window, rows, columns); (void)columns; return rows; }
static inline int cnc_columns(WINDOW *window) { int rows, columns; getmaxyx(window, rows, columns); (void)rows; return columns; }
static inline int cnc_utf8_locale(void) {
  const char *codeset = nl_langinfo(CODESET);
  return codeset != NULL && (codeset[0] == 'U' || codeset[0] == 'u') && (codeset[1] == 'T' || codeset[1] == 't')
    && (codeset[2] == 'F' || codeset[2] == 'f');
}

// The C library's column count of a character (what ncurses counts a cell by); declared here
// because <wchar.h> hides it without _XOPEN_SOURCE.
extern int wcwidth(wchar_t character);
static inline int cnc_character_width(wchar_t character) { return wcwidth(character); }

// The size the kernel holds for the terminal on `descriptor`; 0 or -1 with errno set.
static inline int cnc_window_size(int descriptor, int *rows, int *columns) {
  struct winsize size;
  if (ioctl(descriptor, TIOCGWINSZ, &size) != 0) return -1;
  *rows = size.ws_row;
  *columns = size.ws_col;
  return 0;
}

// Mouse: the event bits of mouse protocol version 2 (button 4 and 5 are the wheel).
static inline mmask_t cnc_button1_pressed(void) { return BUTTON1_PRESSED; }
static inline mmask_t cnc_button2_pressed(void) { return BUTTON2_PRESSED; }
static inline mmask_t cnc_button3_pressed(void) { return BUTTON3_PRESSED; }
static inline mmask_t cnc_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t cnc_button5_pressed(void) {
#ifdef BUTTON5_PRESSED
  return BUTTON5_PRESSED;
#else
  return 0;
#endif
}

#endif
