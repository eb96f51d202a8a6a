#!/usr/bin/env python3
"""Seeds for payload_printer_fuzzer: for every 10th event of tracefs_formats.txt.gz (in id
order) and every event of the systems in KEPT, a payload as the kernel would write one: the
common fields, each field filled with a pattern, __data_loc and __rel_loc fields pointing at
a NUL-terminated string after the fixed part.

    tests/fuzz/payload_seeds.py tests/fuzz/tracefs_formats.txt.gz tests/fuzz/corpus_payload_printer
"""
import gzip
import os
import re
import struct
import sys

# Systems whose print formats use the most of the printer: all their events are seeded.
KEPT = {"sched", "ftrace", "irq", "timer", "kmem", "block"}
FIELD = re.compile(r"\tfield:(.*?);\toffset:(\d+);\tsize:(\d+);")


def events(path):
    text = gzip.open(path, "rt").read()
    found = []
    for chunk in text.split("==> ")[1:]:
        system, _, body = chunk.partition("\n")
        name = re.search(r"^name: (.*)$", body, re.M)
        ident = re.search(r"^ID: (\d+)$", body, re.M)
        if name and ident:
            found.append((int(ident.group(1)), system, name.group(1), FIELD.findall(body)))
    return sorted(found)


def payload(ident, fields):
    fixed = max((int(o) + int(s) for _, o, s in fields), default=8)
    data = bytearray((i * 7 + 3) & 0xFF for i in range(fixed))
    struct.pack_into("<H", data, 0, ident & 0xFFFF)
    tail = bytearray()
    for declaration, offset, size in fields:
        offset, size = int(offset), int(size)
        if "__data_loc" in declaration or "__rel_loc" in declaration:
            text = b"seed-string\0"
            where = fixed + len(tail)
            if "__rel_loc" in declaration:
                where -= offset + size
            struct.pack_into("<I", data, offset, (len(text) << 16) | (where & 0xFFFF))
            tail += text
        elif "char" in declaration and "[" in declaration:
            data[offset:offset + size] = (b"comm-seed" + b"\0" * size)[:size]
    return bytes(data + tail)


def main():
    source, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for index, (ident, system, name, fields) in enumerate(events(source)):
        if index % 10 and system not in KEPT:
            continue
        with open(os.path.join(out, f"{system}-{name}"), "wb") as f:
            f.write(payload(ident, fields))


main()
