// PCRE2 (8-bit code units) as Swift sees it. The library's function names are macros over
// width-suffixed symbols (pcre2_compile -> pcre2_compile_8); Swift imports the suffixed ones.
#ifndef CPCRE2_SHIM_H
#define CPCRE2_SHIM_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#endif
