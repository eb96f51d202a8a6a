#pragma once
// Whether a tracepoint payload holds what its format declares, checked before libtraceevent
// prints it: tep_print_event reads each field at its declared offset without comparing it with
// the record's size (fuzzing: a 24-byte payload of a 60-byte event was read past its end). A
// damaged trace.dat page or perf.data sample is reported, not read beyond.
struct tep_event;

namespace sonde::tracedat {

// True when the fixed fields end within `size` bytes, every __data_loc / __rel_loc field's place
// (offset and length, 16 bits each, in its 4 bytes) lies within them too, the byte counts the
// print format takes from the payload (__print_hex(buf, REC->len), __print_array) stay within
// them, and no bitmask it shows is empty.
bool payload_holds_fields(const tep_event* event, const void* data, int size);

}  // namespace sonde::tracedat
