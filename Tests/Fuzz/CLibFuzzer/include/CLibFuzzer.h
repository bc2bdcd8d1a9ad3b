// libFuzzer's driver entry point (compiler-rt FuzzerInterface.h), called from each harness's main.swift.
// SwiftPM links executables with their own `main`, so the harnesses cannot use libFuzzer's `main`; they hand
// their LLVMFuzzerTestOneInput to this instead, which parses the usual -runs=N etc. flags.
#pragma once
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
