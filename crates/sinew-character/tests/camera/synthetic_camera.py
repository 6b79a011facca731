"""Writes synthetic_camera.vmd: a camera (and light) VMD of our own that exercises what the
wavefile camera does not: a different Bezier curve on each of the six channels, roll, a turn
past 2 pi, a positive distance, zero distance, a perspective-off key, two keys on one frame
(the later one in file order counts), keys out of order in the file, cuts in a row, and light
keys. Run: python3 synthetic_camera.py (writes next to this script)."""

import struct
from pathlib import Path

# frame, distance, target, rotation, curves (x, y, z, rotation, distance, fov as x1, x2, y1, y2), fov, orthographic
LIN = [20, 107, 20, 107]
CAMERA = [
    (30, -25.0, (5.0, 12.0, 3.0), (-0.4, 1.2, -0.2),
     [[100, 20, 10, 110], [20, 107, 90, 30], [0, 127, 127, 0], [64, 64, 0, 127], [127, 0, 20, 107], [10, 30, 120, 100]], 45, 0),
    (0, -40.0, (1.0, 10.0, -2.0), (0.1, 0.2, 0.3), [LIN] * 6, 30, 0),
    (31, 10.0, (-3.0, 8.0, 1.0), (0.5, -2.5, 0.1), [LIN] * 6, 20, 1),
    (32, -35.0, (-2.0, 9.0, 2.0), (-1.5707963, 0.3, 0.0), [LIN] * 6, 25, 0),
    (60, -99.0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), [LIN] * 6, 10, 0),  # replaced by the next key
    (60, -60.0, (4.0, 15.0, -6.0), (0.2, 6.5, 1.0),
     [[30, 90, 5, 120], [120, 5, 30, 90], [45, 45, 100, 27], [0, 0, 127, 127], [20, 107, 20, 107], [127, 127, 0, 0]], 60, 0),
    (61, 0.0, (4.0, 15.0, -6.0), (0.0, 0.0, 0.0), [LIN] * 6, 60, 0),
    (90, -45.0, (0.0, 10.0, 0.0), (1.2, -0.7, -2.0),
     [[90, 40, 20, 60], [15, 100, 70, 127], [127, 127, 127, 127], [5, 120, 60, 10], [70, 20, 0, 127], [40, 90, 10, 10]], 33, 1),
]
LIGHT = [
    (0, (0.6, 0.6, 0.6), (-0.5, -1.0, 0.5)),
    (40, (1.0, 0.5, 0.25), (0.5, -1.0, -0.5)),
    (41, (0.2, 0.3, 0.4), (0.0, -1.0, 0.0)),
    (80, (0.9, 0.9, 1.0), (1.0, -0.5, 0.0)),
]

out = bytearray(b"Vocaloid Motion Data 0002".ljust(30, b"\0"))
out += "カメラ・照明".encode("shift_jis").ljust(20, b"\0")
out += struct.pack("<II", 0, 0)  # bone, morph keys
out += struct.pack("<I", len(CAMERA))
for frame, distance, target, rotation, curves, fov, ortho in CAMERA:
    out += struct.pack("<If3f3f", frame, distance, *target, *rotation)
    out += bytes(b for c in curves for b in c)
    out += struct.pack("<IB", fov, ortho)
out += struct.pack("<I", len(LIGHT))
for frame, color, direction in LIGHT:
    out += struct.pack("<I3f3f", frame, *color, *direction)
out += struct.pack("<II", 0, 0)  # self-shadow, property keys
Path(__file__).with_name("synthetic_camera.vmd").write_bytes(bytes(out))
