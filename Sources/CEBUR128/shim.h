#ifndef WALKSCAPE_CEBUR128_SHIM_H
#define WALKSCAPE_CEBUR128_SHIM_H
#include <stddef.h>
#include <ebur128.h>
#endif
