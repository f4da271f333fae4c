#!/usr/bin/env python3
"""An independent, deliberately plain implementation of the UTS tree rules
(docs/tree-rules.md), used to cross-check small trees.

It shares no code with the C++ binary: SHA-1 comes from hashlib, log/pow/sin
from Python's math module (the C library's), and the traversal is a simple
explicit stack. Slow (tens of thousands of nodes per second), so only for
small trees.
"""
import hashlib
import math
import struct
import sys

MAX_CHILDREN = 100


def variate(node_id, rng):
    x = struct.unpack(">I", node_id[16:20])[0]
    if rng == "uts":
        return (x & 0x7FFFFFFF) / 2147483648.0
    return x / 4294967296.0


def geometric_mean(p, h):
    b0, d, shape = p["b0"], p["depth"], p["shape"]
    if h == 0:
        return b0
    if shape == "expdec":
        return b0 * math.pow(float(h), -math.log(b0) / math.log(float(d)))
    if shape == "cyclic":
        if h > 5 * d:
            return 0.0
        return math.pow(b0, math.sin(2.0 * 3.141592653589793 * float(h) / float(d)))
    if shape == "fixed":
        return b0 if h < d else 0.0
    return b0 * (1.0 - float(h) / float(d))  # linear


def geometric_children(p, node_id, h):
    b = geometric_mean(p, h)
    prob = 1.0 / (1.0 + b)
    u = variate(node_id, p["rng"])
    try:
        n = math.floor(math.log(1.0 - u) / math.log(1.0 - prob))
    except (ValueError, ZeroDivisionError):
        # log(0) = -inf in C; x/-inf -> 0, and NaN cases give no children.
        a = math.log(1.0 - u) if u < 1.0 else -math.inf
        bb = math.log(1.0 - prob) if prob < 1.0 else -math.inf
        if bb == 0.0 or math.isnan(a) or math.isnan(bb):
            return 0
        r = a / bb
        n = 0 if (math.isnan(r) or math.isinf(r)) else math.floor(r)
    return n


def num_children(p, node_id, h):
    t = p["type"]
    if t == "binomial" and h == 0:
        n = math.floor(p["b0"])
        return min(n, math.ceil(p["b0"]))
    if t == "balanced":
        return math.floor(p["b0"]) if h < p["depth"] else 0
    if t == "geometric" or (t == "hybrid" and h < p["shift"] * p["depth"]):
        n = geometric_children(p, node_id, h)
    else:
        n = p["m"] if variate(node_id, p["rng"]) < p["q"] else 0
    if n <= 0:
        return 0
    return min(n, MAX_CHILDREN)


def root_id(p):
    if p["rng"] == "paper2003":
        return bytes.fromhex(p["root_id"].rjust(40, "0"))
    return hashlib.sha1(bytes(16) + struct.pack(">i", p["seed"])).digest()


def traverse(p):
    size = leaves = depth = 0
    checksum = 0
    stack = [(root_id(p), 0)]
    while stack:
        node_id, h = stack.pop()
        size += 1
        checksum = (checksum + struct.unpack(">Q", node_id[:8])[0]) % (1 << 64)
        depth = max(depth, h)
        n = num_children(p, node_id, h)
        if n == 0:
            leaves += 1
        for i in range(n):
            stack.append((hashlib.sha1(node_id + struct.pack(">I", i)).digest(), h + 1))
    return size, depth, leaves, checksum


DEFAULTS = {"type": "geometric", "shape": "linear", "b0": 4.0, "depth": 6, "q": 15 / 64,
            "m": 4, "shift": 0.5, "seed": 0, "rng": "uts", "root_id": None}

if __name__ == "__main__":
    params = dict(DEFAULTS)
    for arg in sys.argv[1:]:
        key, value = arg.split("=", 1)
        params[key] = type(DEFAULTS[key])(value) if DEFAULTS[key] is not None else value
    print("%d %d %d 0x%016x" % traverse(params))
