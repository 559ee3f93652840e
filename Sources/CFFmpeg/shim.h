#ifndef WALKSCAPE_CFFMPEG_SHIM_H
#define WALKSCAPE_CFFMPEG_SHIM_H
// FFmpeg's libraries as Playback decodes with them: containers (libavformat), codecs
// (libavcodec), sample formats and rates (libswresample).
//
// They are loaded when first needed (dlopen), not linked: libavcodec brings some 130 shared
// libraries with it, and loading them at every start cost each `walkscape` run (MP3 walks, `--version`,
// `tours --installed`) about 50 ms of CPU and 40 MiB. Each function is reached as `ws_NAME()`, which
// returns the library's own function (NULL when the libraries are missing: check
// `ws_ff_available()` first). Macros Swift cannot import are wrapped in inline functions.
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>

#define WS_FF_STR2(x) #x
#define WS_FF_STR(x) WS_FF_STR2(x)

/// The libraries by the sonames these headers belong to, loaded once; NULL when one is missing.
/// The first use may come from several threads at once (a download judges narrations side by
/// side): one loads while the others wait for it, instead of finding "tried" and no handle yet.
static inline void *ws_ff_library(int which) {
    static void *handles[4];
    static int tried[4];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static const char *names[4] = {
        "libavutil.so." WS_FF_STR(LIBAVUTIL_VERSION_MAJOR),
        "libswresample.so." WS_FF_STR(LIBSWRESAMPLE_VERSION_MAJOR),
        "libavcodec.so." WS_FF_STR(LIBAVCODEC_VERSION_MAJOR),
        "libavformat.so." WS_FF_STR(LIBAVFORMAT_VERSION_MAJOR),
    };
    pthread_mutex_lock(&lock);
    if (!tried[which]) {
        handles[which] = dlopen(names[which], RTLD_NOW | RTLD_LOCAL);
        tried[which] = 1;
    }
    void *handle = handles[which];
    pthread_mutex_unlock(&lock);
    return handle;
}

/// 1 when all four libraries load.
static inline int ws_ff_available(void) {
    for (int i = 0; i < 4; i++) {
        if (!ws_ff_library(i)) return 0;
    }
    return 1;
}

/// 1 when libavutil and libswresample load: all a sample conversion needs. libavcodec and
/// libavformat (and the 130 libraries they bring) are left unloaded.
static inline int ws_swr_available(void) {
    return ws_ff_library(0) && ws_ff_library(1);
}

/// The first of the libraries, in the order above, that has `name`: one whose symbols are in
/// libavutil or libswresample loads nothing more.
static inline void *ws_ff_symbol(const char *name) {
    for (int i = 0; i < 4; i++) {
        void *library = ws_ff_library(i);
        void *symbol = library ? dlsym(library, name) : NULL;
        if (symbol) return symbol;
    }
    return NULL;
}

// Each function is looked up once; two threads looking it up together find the same address.
#define WS_FF(name)                                                          \
    static inline __typeof__(&name) ws_##name(void) {                        \
        static __typeof__(&name) function;                                   \
        __typeof__(&name) found = __atomic_load_n(&function, __ATOMIC_ACQUIRE); \
        if (!found) {                                                        \
            found = (__typeof__(&name))ws_ff_symbol(#name);                  \
            __atomic_store_n(&function, found, __ATOMIC_RELEASE);            \
        }                                                                    \
        return found;                                                        \
    }

WS_FF(av_channel_layout_copy)
WS_FF(av_channel_layout_default)
WS_FF(av_channel_layout_uninit)
WS_FF(av_find_best_stream)
WS_FF(av_frame_alloc)
WS_FF(av_frame_free)
WS_FF(av_frame_unref)
WS_FF(av_freep)
WS_FF(av_malloc)
WS_FF(av_packet_alloc)
WS_FF(av_packet_free)
WS_FF(av_packet_unref)
WS_FF(av_read_frame)
WS_FF(avcodec_alloc_context3)
WS_FF(avcodec_free_context)
WS_FF(avcodec_open2)
WS_FF(avcodec_parameters_to_context)
WS_FF(avcodec_receive_frame)
WS_FF(avcodec_send_packet)
WS_FF(avcodec_version)
WS_FF(avformat_alloc_context)
WS_FF(avformat_close_input)
WS_FF(avformat_find_stream_info)
WS_FF(avformat_open_input)
WS_FF(avformat_version)
WS_FF(avio_alloc_context)
WS_FF(avio_context_free)
WS_FF(swr_alloc_set_opts2)
WS_FF(swr_convert)
WS_FF(swr_free)
WS_FF(swr_get_out_samples)
WS_FF(swr_init)
WS_FF(swresample_version)
WS_FF(av_log_set_level)
WS_FF(swr_set_matrix)
WS_FF(av_opt_set_double)
WS_FF(av_strerror)

static inline int ws_averror_eof(void) { return AVERROR_EOF; }
static inline int ws_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int ws_avseek_size(void) { return AVSEEK_SIZE; }
/// FFmpeg prints its own diagnostics on stderr; Playback reports errors itself.
static inline void ws_av_quiet(void) {
    if (ws_av_log_set_level()) ws_av_log_set_level()(AV_LOG_QUIET);
}
static inline const char *ws_av_error_text(int code, char *buffer, size_t size) {
    if (!ws_av_strerror() || ws_av_strerror()(code, buffer, size) < 0) snprintf(buffer, size, "error %d", code);
    return buffer;
}
#endif
