// Declarations only (include/FuzzerDriver.h); libFuzzer defines the function.
#include "FuzzerDriver.h"
