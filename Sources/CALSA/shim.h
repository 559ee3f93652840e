#ifndef WALKSCAPE_CALSA_SHIM_H
#define WALKSCAPE_CALSA_SHIM_H
#include <alsa/asoundlib.h>

/* alsa-lib prints its own diagnostics to stderr ("ALSA lib pcm.c:...") before
 * returning an error code. The handler is variadic, which Swift cannot
 * implement, so the silencer lives here. We report errors ourselves. */
static void ws_alsa_quiet_handler(const char *file, int line, const char *function,
                                  int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void ws_alsa_silence(void) {
    snd_lib_error_set_handler(ws_alsa_quiet_handler);
}
#endif
