#!/usr/bin/env python3
"""Rewrites a version 6 trace.dat without its kallsyms and printk formats (the bulk of a small
trace), for events whose payloads need neither. Usage: strip_kallsyms.py IN OUT"""
import struct
import sys

data = open(sys.argv[1], "rb").read()
pos = 3 + len("tracing")
end = data.index(b"\0", pos)
assert data[pos:end] == b"6", "only version 6 files"
pos = end + 1 + 2 + 4  # endian, long size, page size


def take_cstring(p):
    e = data.index(b"\0", p)
    return e + 1


for tag in (b"header_page\0", b"header_event\0"):
    assert data[pos:pos + len(tag)] == tag
    pos += len(tag)
    (size,) = struct.unpack_from("<Q", data, pos)
    pos += 8 + size
(count,) = struct.unpack_from("<I", data, pos)
pos += 4
for _ in range(count):
    (size,) = struct.unpack_from("<Q", data, pos)
    pos += 8 + size
(systems,) = struct.unpack_from("<I", data, pos)
pos += 4
for _ in range(systems):
    pos = take_cstring(pos)
    (count,) = struct.unpack_from("<I", data, pos)
    pos += 4
    for _ in range(count):
        (size,) = struct.unpack_from("<Q", data, pos)
        pos += 8 + size
head = data[:pos]
(kallsyms,) = struct.unpack_from("<I", data, pos)
after_kallsyms = pos + 4 + kallsyms
(printk,) = struct.unpack_from("<I", data, after_kallsyms)
rest = after_kallsyms + 4 + printk
# The CPU data offsets are absolute and the pages page-aligned: the file shrinks by whole pages
# (the kallsyms block keeps a few newlines) and the offsets move by as much.
page = 4096
removed = (rest - pos - 8) // page * page
pad = (rest - pos - 8) - removed
tail = bytearray(data[rest:])
t = 0
(size,) = struct.unpack_from("<Q", tail, t)  # cmdlines
t += 8 + size
(cpus,) = struct.unpack_from("<I", tail, t)
t += 4
assert tail[t:t + 10] == b"options  \0"
t += 10
while True:
    (option,) = struct.unpack_from("<H", tail, t)
    t += 2
    if option == 0:
        break
    (size,) = struct.unpack_from("<I", tail, t)
    if option == 3:  # an instance buffer: its flyrecord's offset, then its name
        (offset,) = struct.unpack_from("<Q", tail, t + 4)
        struct.pack_into("<Q", tail, t + 4, offset - removed)
    t += 4 + size
assert tail[t:t + 10] == b"flyrecord\0", tail[t:t + 10]
t += 10
for cpu in range(cpus):
    (offset, size) = struct.unpack_from("<QQ", tail, t)
    struct.pack_into("<Q", tail, t, offset - removed)
    t += 16
body = head + struct.pack("<I", pad) + b"\n" * pad + struct.pack("<I", 0) + bytes(tail)
assert len(data) - len(body) == removed
print(f"removed {removed} bytes", file=sys.stderr)
open(sys.argv[2], "wb").write(body)
