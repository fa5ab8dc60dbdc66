/* fuzz_ompi: libFuzzer target for the Open MPI ob1/TCP decoder (input format: fuzz_dec.h). */
#include "tests/fuzz/fuzz_dec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The 24-byte BTL handshakes of world ranks 0 and 1 (jobid 0x41a40001). */
static const uint8_t pre0[24] = { 1, 0, 0xa4, 0x41, 0, 0, 0, 0, 'O', 'P', 'A', 'L', '-', 'T', 'C', 'P', '-', 'B', 'T', 'L', 0, 0, 0, 0 };
static const uint8_t pre1[24] = { 1, 0, 0xa4, 0x41, 1, 0, 0, 0, 'O', 'P', 'A', 'L', '-', 'T', 'C', 'P', '-', 'B', 'T', 'L', 0, 0, 0, 0 };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t *const pre[2] = { pre0, pre1 };
	static const size_t len[2] = { sizeof pre0, sizeof pre1 };

	return fuzz_dec_run(&dec_ompi, pre, len, data, size);
}
