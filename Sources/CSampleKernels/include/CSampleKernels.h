// Sample loops the Swift compiler leaves scalar, written with SSE2 (every x86-64 has it; elsewhere
// the same arithmetic in plain C, which the compiler vectorises for the target). Each gives
// exactly what its scalar rule below says, for every sample value.
#ifndef CSAMPLEKERNELS_H
#define CSAMPLEKERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Mono to interleaved stereo, each sample 3 dB down: (s * 23170 + 16384) >> 15 (1/sqrt 2 in
/// Q15, rounded to nearest) on both channels. `out` holds 2 * `count` samples.
void ws_upmix_unity(const int16_t *in, int16_t *out, size_t count);

/// Mono to interleaved stereo, each sample times q / 65536 (q < 2^22), rounded half away from
/// zero and saturated to 16 bits, on both channels. `out` holds 2 * `count` samples.
void ws_upmix_q16(const int16_t *in, int16_t *out, size_t count, uint32_t q);

#endif
