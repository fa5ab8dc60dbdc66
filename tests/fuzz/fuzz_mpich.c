/* fuzz_mpich: libFuzzer target for the UCX TCP decoders, MPICH ch4:ucx and Open MPI over UCX,
 * which share their record hooks and differ in the UCP tag layout (input: fuzz_dec.h). */
#include "tests/fuzz/fuzz_dec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A UCX TCP connection's opening bytes in each direction. */
static const uint8_t pre0[8] = { 0x78, 0x56, 0x34, 0x12, 0xbe, 0xba, 0xfe, 0xca };
static const uint8_t pre1[9] = { 32, 4, 0, 0, 0, 3, 0, 0, 0 };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t *const pre[2] = { pre0, pre1 };
	static const size_t len[2] = { sizeof pre0, sizeof pre1 };

	fuzz_dec_run(&dec_ompi_ucx, pre, len, data, size);
	return fuzz_dec_run(&dec_mpich, pre, len, data, size);
}
