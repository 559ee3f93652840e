#ifndef WALKSCAPE_CFUZZERSHIM_H
#define WALKSCAPE_CFUZZERSHIM_H
#include <stddef.h>
#include <stdint.h>

/* libFuzzer's driver entry point. Weak, so the fuzz executables also link (and explain
 * themselves) in an ordinary build without -sanitize=fuzzer, where it resolves to NULL. */
extern int LLVMFuzzerRunDriver(int *argc, char ***argv,
                               int (*callback)(const uint8_t *data, size_t size)) __attribute__((weak));

static inline int ws_fuzzer_available(void) { return LLVMFuzzerRunDriver != NULL; }
#endif
