#ifndef WALKSCAPE_CFFMPEG_SHIM_H
#define WALKSCAPE_CFFMPEG_SHIM_H
// FFmpeg's libraries as Playback decodes with them: containers (libavformat), codecs
// (libavcodec), sample formats and rates (libswresample). Macros Swift cannot import are
// wrapped in inline functions.
#include <errno.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>

static inline int ws_averror_eof(void) { return AVERROR_EOF; }
static inline int ws_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int ws_avseek_size(void) { return AVSEEK_SIZE; }
/// FFmpeg prints its own diagnostics on stderr; Playback reports errors itself.
static inline void ws_av_quiet(void) { av_log_set_level(AV_LOG_QUIET); }
static inline const char *ws_av_error_text(int code, char *buffer, size_t size) {
    av_strerror(code, buffer, size);
    return buffer;
}
#endif
