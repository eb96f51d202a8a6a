#pragma once
// The fixed parts of a seekable perf.data file: the header, the attrs section with the ids it
// points to, and the feature section table after the data. Each check names the offset and the
// field that is wrong, so a corrupt file gives a one-line error instead of a crash.
#include <map>
#include <string>
#include <vector>

#include "base/bytes.hpp"
#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "format/perf_format.hpp"
#include "perfdata/attrs.hpp"

namespace sonde::perfdata {

// What the first bytes of a file say it is.
enum class FileKind { File, Pipe };

// Validates magic and header size. A pipe-mode stream saved to a file is FileKind::Pipe.
Result<FileKind> identify(Bytes head);

// The header of a seekable file, with attrs and data sections checked against the file size.
// A data section that runs past the end of the file is cut to what is there, with a warning,
// and `data_cut` set: its last record may then be partial, which is no corruption.
Result<FileHeader> read_file_header(Bytes file, Diagnostics& diagnostics, bool& data_cut);

Result<void> read_attr_section(Bytes file, const FileHeader& header, AttrTable& attrs);

// The feature sections present, by id. Sections that lie outside the file are left out with a
// warning (a cut file loses its features before its data).
std::map<int, Bytes> read_feature_table(Bytes file, const FileHeader& header, Diagnostics& diagnostics);

}  // namespace sonde::perfdata
