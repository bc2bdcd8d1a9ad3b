// Intentionally empty: the target only exports the declaration in include/CLibFuzzer.h.
#include "CLibFuzzer.h"
