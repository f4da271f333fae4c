"""Small trees of every type, shape and RNG convention, shared by the
integration tests: uts arguments plus the same tree for reference_uts.py."""

SMALL_TREES = [
    # name, uts arguments, reference parameters
    ("bin", "-t 0 -b 200 -q 0.24 -m 4 -r 2", dict(type="binomial", b0=200.0, q=0.24, m=4, seed=2)),
    ("bin-frac-b0", "-t bin -b 50.5 -q 0.32 -m 3 -r 11", dict(type="binomial", b0=50.5, q=0.32, m=3, seed=11)),
    ("geo-linear", "-t 1 -a 0 -d 14 -b 3.5 -r 4", dict(type="geometric", shape="linear", depth=14, b0=3.5, seed=4)),
    ("geo-expdec", "-t geo -a expdec -d 6 -b 3 -r 7", dict(type="geometric", shape="expdec", depth=6, b0=3.0, seed=7)),
    ("geo-cyclic", "-t 1 -a 2 -d 4 -b 2.5 -r 9", dict(type="geometric", shape="cyclic", depth=4, b0=2.5, seed=9)),
    ("geo-fixed", "-t 1 -a fixed -d 6 -b 3 -r 1", dict(type="geometric", shape="fixed", depth=6, b0=3.0, seed=1)),
    ("geo-cap", "-t 1 -a 3 -d 2 -b 150 -r 4", dict(type="geometric", shape="fixed", depth=2, b0=150.0, seed=4)),
    ("hybrid", "-t 2 -a 0 -d 10 -b 4 -q 0.2 -m 4 -r 7", dict(type="hybrid", shape="linear", depth=10, b0=4.0, q=0.2, m=4, seed=7)),
    ("hybrid-shift", "-t hybrid -a fixed -d 8 -b 3 -f 0.25 -q 0.22 -m 4 -r 1",
     dict(type="hybrid", shape="fixed", depth=8, b0=3.0, shift=0.25, q=0.22, m=4, seed=1)),
    ("balanced", "-t 3 -d 5 -b 3", dict(type="balanced", depth=5, b0=3.0)),
    ("paper2003-geo", "-t 1 -a 3 -d 5 -b 4 --rng paper2003 --root-id ffff0000",
     dict(type="geometric", shape="fixed", depth=5, b0=4.0, rng="paper2003", root_id="ffff0000")),
    # Right-alignment of a short id: x = 0x101, u tiny, so the root is a leaf.
    ("paper2003-short-id", "-t 1 -a 3 -d 5 -b 4 --rng paper2003 --root-id 101",
     dict(type="geometric", shape="fixed", depth=5, b0=4.0, rng="paper2003", root_id="101")),
    ("paper2003-bin", "-t 0 -b 30 -q 0.2 -m 4 --rng paper2003 --root-id 0123456789abcdef0123456789ABCDEF01234567",
     dict(type="binomial", b0=30.0, q=0.2, m=4, rng="paper2003", root_id="0123456789abcdef0123456789ABCDEF01234567")),
    ("negative-seed", "-t 1 -a 3 -d 5 -b 3 -r -17", dict(type="geometric", shape="fixed", depth=5, b0=3.0, seed=-17)),
]
