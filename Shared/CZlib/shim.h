#include <zlib.h>
// deflateInit2/inflateInit2 are macros Swift cannot import.
static inline int czlib_deflateInit2(z_streamp strm, int level, int method, int windowBits, int memLevel, int strategy) {
    return deflateInit2(strm, level, method, windowBits, memLevel, strategy);
}
static inline int czlib_inflateInit2(z_streamp strm, int windowBits) { return inflateInit2(strm, windowBits); }
