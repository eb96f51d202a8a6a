#pragma once
// Whether a tracepoint payload holds what its format declares, checked before libtraceevent
// prints it: tep_print_event reads each field at its declared offset without comparing it with
// the record's size (fuzzing: a 24-byte payload of a 60-byte event was read past its end). A
// damaged trace.dat page or perf.data sample is reported, not read beyond.
#include <cstddef>

struct tep_event;

namespace sonde::tracedat {

// Every event starts with the common fields (type, flags, preempt count, pid), which
// libtraceevent reads without looking at the record's size.
constexpr int kCommonFieldsSize = 8;
// Zeros kept after a payload libtraceevent prints: past any 16-bit __data_loc offset and length,
// so a damaged string without its NUL ends inside the buffer.
constexpr size_t kPayloadPadding = 65536 + 64;

// What checking a payload against its event needs, worked out once per event: the end of its
// fixed fields, and whether any part depends on the payload (__data_loc places, counts taken
// from fields, bitmasks). Without such parts the size alone decides.
struct PayloadShape {
  int fixed_end = 0;
  bool variable = false;
};
PayloadShape payload_shape(const tep_event* event);

// True when the fixed fields end within `size` bytes, every __data_loc / __rel_loc field's place
// (offset and length, 16 bits each, in its 4 bytes) lies within them too, the byte counts the
// print format takes from the payload (__print_hex(buf, REC->len), __print_array) stay within
// them, and no bitmask it shows is empty.
bool payload_holds_fields(const tep_event* event, const void* data, int size);
// The same, with the event's shape worked out beforehand (the formatter's per-record path).
bool payload_holds_fields(const tep_event* event, const PayloadShape& shape, const void* data, int size);

}  // namespace sonde::tracedat
