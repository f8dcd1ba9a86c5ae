"""Reads a TensorBoard event file without TensorBoard, TensorFlow or the protobuf package.

The record framing (TFRecord: length, masked CRC-32C of it, data, masked CRC-32C of the data)
and the fields of Event, Summary, Summary.Value and HistogramProto are decoded from the wire
format here, with the field numbers of TensorBoard's event.proto and summary.proto, so this
reader shares no code and no schema file with the writer it checks. Every CRC is verified.
Prints JSON: the file version, the scalars and the histograms by tag, each a list of [step, ...].
"""
import json
import struct
import sys

POLY = 0x82F63B78        # CRC-32C (Castagnoli), reflected
TABLE = []
for n in range(256):
    c = n
    for _ in range(8):
        c = (c >> 1) ^ POLY if c & 1 else c >> 1
    TABLE.append(c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked(c):
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def fields(b):
    """(field number, wire type, value) of a message's bytes."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 1:
            v, i = b[i:i + 8], i + 8
        elif wire == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wire == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wire)
        yield num, wire, v


def varint(b, i):
    shift = result = 0
    while True:
        byte = b[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, i


def doubles(wire, v):
    if wire == 2:                                   # packed
        return list(struct.unpack("<%dd" % (len(v) // 8), v))
    return [struct.unpack("<d", v)[0]]


def histogram(b):
    h = {"min": 0.0, "max": 0.0, "num": 0.0, "sum": 0.0, "sum_squares": 0.0, "limits": [], "counts": []}
    names = {1: "min", 2: "max", 3: "num", 4: "sum", 5: "sum_squares"}
    for num, wire, v in fields(b):
        if num in names:
            h[names[num]] = struct.unpack("<d", v)[0]
        elif num == 6:
            h["limits"] += doubles(wire, v)
        elif num == 7:
            h["counts"] += doubles(wire, v)
    return h


out = {"version": None, "scalars": {}, "histograms": {}, "records": 0}
data = open(sys.argv[1], "rb").read()
i = 0
while i < len(data):
    head = data[i:i + 8]
    (length,) = struct.unpack("<Q", head)
    (head_crc,) = struct.unpack("<I", data[i + 8:i + 12])
    assert masked(crc32c(head)) == head_crc, "record %d: the length's CRC" % out["records"]
    body = data[i + 12:i + 12 + length]
    (body_crc,) = struct.unpack("<I", data[i + 12 + length:i + 16 + length])
    assert masked(crc32c(body)) == body_crc, "record %d: the data's CRC" % out["records"]
    i += 16 + length
    out["records"] += 1
    step, wall, summary = 0, None, None
    for num, wire, v in fields(body):
        if num == 1:
            wall = struct.unpack("<d", v)[0]
        elif num == 2:
            step = v
        elif num == 3:
            out["version"] = v.decode()
        elif num == 5:
            summary = v
    assert wall is not None and wall > 1e9, "record %d: a wall time" % out["records"]
    for num, wire, v in fields(summary or b""):
        if num != 1:
            continue
        tag, value, histo = None, None, None
        for n, w, x in fields(v):
            if n == 1:
                tag = x.decode()
            elif n == 2:
                value = struct.unpack("<f", x)[0]
            elif n == 5:
                histo = histogram(x)
        if value is not None:
            out["scalars"].setdefault(tag, []).append([step, value])
        if histo is not None:
            out["histograms"].setdefault(tag, []).append([step, histo])
print(json.dumps(out))
