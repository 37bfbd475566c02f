// libFuzzer's entry for programs that have a `main` of their own (SwiftPM gives every
// executable one): runs the fuzzer with the command line's options on `callback`.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
