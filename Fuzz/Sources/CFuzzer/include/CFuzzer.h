#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt): runs the fuzzing loop with `callback` as LLVMFuzzerTestOneInput.
/// SwiftPM links an executable target through its own `<module>_main` entry point, so each target's
/// entry calls the driver instead of relying on libFuzzer's main.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
