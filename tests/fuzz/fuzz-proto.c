/* fuzz-proto.c: the record-protocol parser the scheduler runs on a unit's output (fd 3).
 * The first byte chooses how the rest is cut into reads, as a pipe would deliver it. */
#include "config.h"

#include "harness/record/proto.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t chunk = (size_t)data[0] + 1;
	data++;
	size--;
	struct rec_unit_data u;
	rec_unit_data_init(&u);
	struct proto_in in;
	proto_in_init(&in, &u);
	for (size_t off = 0; off < size; off += chunk)
		proto_in_feed(&in, (const char *)data + off, size - off < chunk ? size - off : chunk);
	proto_in_end(&in);
	proto_in_release(&in);
	rec_unit_data_release(&u);
	return 0;
}
