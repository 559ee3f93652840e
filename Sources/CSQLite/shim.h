#ifndef WALKSCAPE_CSQLITE_SHIM_H
#define WALKSCAPE_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
