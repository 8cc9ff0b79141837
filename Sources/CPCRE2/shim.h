// The part of PCRE2's 8-bit API that PatternMatching calls, declared here after the library's
// documented interface (pcre2api(3)), so that building needs only PCRE2's runtime library
// (Debian's libpcre2-8-0, present on every Debian system: grep and systemd link it), not its
// development package. The functions are the width-suffixed symbols the library exports
// (pcre2_compile is pcre2_compile_8 in the 8-bit library); the constants are PCRE2's ABI, stable
// across its 10.x releases.
#ifndef CPCRE2_SHIM_H
#define CPCRE2_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef uint8_t PCRE2_UCHAR8;
typedef const PCRE2_UCHAR8 *PCRE2_SPTR8;

typedef struct pcre2_real_code_8 pcre2_code_8;
typedef struct pcre2_real_match_data_8 pcre2_match_data_8;
typedef struct pcre2_real_match_context_8 pcre2_match_context_8;
typedef struct pcre2_real_compile_context_8 pcre2_compile_context_8;
typedef struct pcre2_real_general_context_8 pcre2_general_context_8;

// Compile options.
#define PCRE2_CASELESS 0x00000008u
#define PCRE2_ENDANCHORED 0x20000000u
#define PCRE2_ANCHORED 0x80000000u
#define PCRE2_UCP 0x00020000u
#define PCRE2_UTF 0x00080000u
#define PCRE2_MATCH_INVALID_UTF 0x04000000u
// Match options.
#define PCRE2_NO_UTF_CHECK 0x40000000u
// JIT options.
#define PCRE2_JIT_COMPLETE 0x00000001u

// Match results.
#define PCRE2_ERROR_NOMATCH (-1)
#define PCRE2_ERROR_JIT_STACKLIMIT (-46)
#define PCRE2_ERROR_MATCHLIMIT (-47)
#define PCRE2_ERROR_NOMEMORY (-48)
#define PCRE2_ERROR_DEPTHLIMIT (-53)
#define PCRE2_ERROR_HEAPLIMIT (-63)
// Compile errors about the pattern as a whole (pcre2api(3), "COMPILATION ERROR CODES").
#define PCRE2_ERROR_PATTERN_TOO_LARGE 120
#define PCRE2_ERROR_HEAP_FAILED 121
#define PCRE2_ERROR_PATTERN_TOO_COMPLICATED 186
#define PCRE2_ERROR_PATTERN_STRING_TOO_LONG 188

pcre2_code_8 *pcre2_compile_8(
  PCRE2_SPTR8 pattern, size_t length, uint32_t options, int *errorcode, size_t *erroroffset,
  pcre2_compile_context_8 *ccontext);
void pcre2_code_free_8(pcre2_code_8 *code);
int pcre2_jit_compile_8(pcre2_code_8 *code, uint32_t options);
int pcre2_get_error_message_8(int errorcode, PCRE2_UCHAR8 *buffer, size_t bufflen);

pcre2_match_context_8 *pcre2_match_context_create_8(pcre2_general_context_8 *gcontext);
void pcre2_match_context_free_8(pcre2_match_context_8 *mcontext);
int pcre2_set_match_limit_8(pcre2_match_context_8 *mcontext, uint32_t value);
int pcre2_set_depth_limit_8(pcre2_match_context_8 *mcontext, uint32_t value);
int pcre2_set_heap_limit_8(pcre2_match_context_8 *mcontext, uint32_t value);

pcre2_match_data_8 *pcre2_match_data_create_8(uint32_t ovecsize, pcre2_general_context_8 *gcontext);
void pcre2_match_data_free_8(pcre2_match_data_8 *match_data);
int pcre2_match_8(
  const pcre2_code_8 *code, PCRE2_SPTR8 subject, size_t length, size_t startoffset, uint32_t options,
  pcre2_match_data_8 *match_data, pcre2_match_context_8 *mcontext);

#endif
