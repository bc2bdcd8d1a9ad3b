import FuzzSupport

// libFuzzer drives the harness; see FuzzSupport.runLibFuzzer.
runLibFuzzer(fuzzAPIBodies)
