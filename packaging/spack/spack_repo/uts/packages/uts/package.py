# The Spack recipe of uts, kept in the uts repository beside the sources it
# builds (docs/spack.md: `spack repo add packaging/spack/spack_repo/uts`).
#
# Written for Spack 1.x: package API v2 (repo.yaml), build systems from the
# spack-packages repository (spack_repo.builtin), compilers as dependencies.

import os

from spack_repo.builtin.build_systems.meson import MesonPackage

from spack.package import *


def _checkout_root():
    """The uts checkout this recipe sits in, or None where it was copied
    out of one (Spack keeps a copy of the recipe in each installation)."""
    # packaging/spack/spack_repo/uts/packages/uts/package.py: six levels down.
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, *([os.pardir] * 6)))
    if os.path.exists(os.path.join(root, ".git")) and os.path.isfile(
        os.path.join(root, "meson.build")
    ):
        return root
    return None


_ROOT = _checkout_root()


class Uts(MesonPackage):
    """Unbalanced Tree Search (UTS) on per-thread work-stealing deques:
    OpenMP threads on a node, optionally MPI ranks across nodes, SHA-1
    hashed many children at a time (SHA-NI, AVX-512). Tree size, depth,
    leaves and checksum match the UTS reference exactly (--verify)."""

    # uts has no public address yet: the recipe builds the git checkout it
    # was added from (its `main` branch), or, with `spack develop`, the
    # working tree as it is (docs/spack.md). Give homepage and git the
    # public address once there is one.
    homepage = "file://" + _ROOT if _ROOT else None
    git = "file://" + _ROOT if _ROOT else None

    license("MIT")

    version("develop", branch="main")

    variant("mpi", default=False, description="MPI ranks across nodes (-Dmpi)")
    variant("otf2", default=False, description="OTF2 event traces, --trace FILE.otf2 (-Dotf2)")
    variant(
        "simgrid",
        default=False,
        description="Also build uts-smpi, run under SimGrid's SMPI simulator (-Dsimgrid)",
    )
    variant(
        "tbb",
        default=False,
        description="oneTBB, for the scheduler that runs the same traversal on TBB tasks "
        "(the foreign-scheduler comparison)",
    )

    depends_on("cxx", type="build")
    # OpenMP comes from the compiler (GCC's libgomp, or clang's libomp);
    # meson.build asks for dependency('openmp').

    # C++20: the project builds and tests with GCC 12 and clang 14.
    conflicts("%gcc@:11", msg="uts needs GCC 12 or later (C++20)")
    conflicts("%clang@:13", msg="uts needs clang 14 or later (C++20)")

    # meson_version in meson.build; MesonPackage adds ninja and pkgconfig.
    depends_on("meson@1.0:", type="build")

    depends_on("cryptopp")
    depends_on("cxxopts")
    depends_on("hwloc")
    # doctest is needed only for the unit tests, which are built only when
    # Spack runs tests (spack install --test=root; -Dtests below).
    depends_on("doctest", type="test")

    depends_on("mpi", when="+mpi")
    depends_on("otf2", when="+otf2")
    depends_on("simgrid", when="+simgrid")
    # The virtual: intel-tbb (oneTBB from source) and intel-oneapi-tbb
    # provide it.
    depends_on("tbb", when="+tbb")

    # The meson suites `spack install --test=root` runs: the unit tests
    # (seconds). The whole suite is scripts/test's, ~15 min on two cores.
    check_suites = ["unit"]

    def _meson_options(self):
        """The option names the source's meson_options.txt declares."""
        names = set()
        for name in ("meson.options", "meson_options.txt"):
            path = os.path.join(self.stage.source_path, name)
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    for line in f:
                        line = line.strip()
                        if line.startswith("option("):
                            names.add(line[len("option(") :].split(",")[0].strip(" '\""))
        return names

    def meson_args(self):
        spec = self.spec

        def feature(name):
            return "enabled" if spec.satisfies(f"+{name}") else "disabled"

        args = [f"-D{name}={feature(name)}" for name in ("mpi", "otf2", "simgrid")]
        # Options that a source may not have yet: Meson stops at an unknown
        # -D, so each is passed only where meson_options.txt declares it.
        # -Dtests: build the unit tests (and need doctest) only when Spack
        # runs tests. -Dtbb: the oneTBB scheduler's option; the tbb variant
        # brings the dependency in either way.
        options = self._meson_options()
        if "tests" in options:
            args.append("-Dtests=" + ("enabled" if self.run_tests else "disabled"))
        if "tbb" in options:
            args.append(f"-Dtbb={feature('tbb')}")
        return args

    def check(self):
        """Build-time tests (spack install --test=root): check_suites."""
        with working_dir(self.build_directory):
            meson = Executable(self.spec["meson"].prefix.bin.meson)
            for suite in self.check_suites:
                meson("test", "--no-rebuild", "--print-errorlogs", "--suite", suite)

    def test_verify_t1(self):
        """The installed uts explores tree T1 and verifies it (Verify: OK)"""
        uts = which(self.prefix.bin.uts)
        out = uts("--preset", "T1", "--verify", output=str, error=str)
        print(out, end="")  # into the test log (spack test results -l)
        assert "Verify: OK" in out, f"no 'Verify: OK' in uts's output:\n{out}"
