#!/bin/bash
# Reproduces the real Spack check of uts's recipe (docs/spack.md): a Spack
# from its public repository, every dependency an external from this
# machine, uts built from this checkout with `spack develop`, its unit
# tests at install time and its smoke test after. Not run by CI (minutes of
# concretizing and a full build); the extended suite's `spack` test runs it
# where UTS_SPACK_ROOT names a Spack.
#
#   packaging/spack/try.sh --spack DIR [--packages DIR] [--work DIR] [--spec SPEC]
#
# --spack DIR     a Spack 1.x checkout (git clone https://github.com/spack/spack)
# --packages DIR  a spack-packages checkout to use as the builtin repository
#                 (offline); without it Spack clones its own
# --work DIR      where the configuration, environment, stage and installation
#                 go (default: a new folder under /tmp); nothing is written
#                 to ~/.spack
# --spec SPEC     the uts spec (default: uts@develop+mpi+otf2+tbb~simgrid)
#
# The concretizer (clingo) must be importable, or Spack must reach its
# bootstrap mirror: an offline machine puts clingo's Python module on
# PYTHONPATH (docs/spack.md).
set -euo pipefail

die() { echo "try.sh: $*" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
checkout=$(cd "$here/../.." && pwd)
spack_root=""
packages=""
work=""
spec="uts@develop+mpi+otf2+tbb~simgrid"
while [ $# -gt 0 ]; do
  case "$1" in
    --spack) [ $# -ge 2 ] || die "--spack needs a folder"; spack_root=$2; shift 2 ;;
    --packages) [ $# -ge 2 ] || die "--packages needs a folder"; packages=$2; shift 2 ;;
    --work) [ $# -ge 2 ] || die "--work needs a folder"; work=$2; shift 2 ;;
    --spec) [ $# -ge 2 ] || die "--spec needs a spec"; spec=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (--help lists them)" ;;
  esac
done
[ -n "$spack_root" ] || die "--spack DIR is required: a Spack 1.x checkout"
[ -x "$spack_root/bin/spack" ] || die "no bin/spack under '$spack_root'"
if [ -n "$packages" ]; then
  [ -f "$packages/repos/spack_repo/builtin/repo.yaml" ] \
    || die "'$packages' is not a spack-packages checkout (no repos/spack_repo/builtin/repo.yaml)"
  packages=$(cd "$packages" && pwd)
fi
[ -n "$work" ] || work=$(mktemp -d /tmp/uts-spack-try.XXXXXX)
mkdir -p "$work"
work=$(cd "$work" && pwd)

# Spack's own configuration and caches in $work, none of ~/.spack.
export SPACK_USER_CONFIG_PATH="$work/config"
export SPACK_USER_CACHE_PATH="$work/cache"
mkdir -p "$SPACK_USER_CONFIG_PATH"
spack() { "$spack_root/bin/spack" "$@"; }
step() { printf '\n$ spack %s\n' "$*"; spack "$@"; }

echo "Spack $(spack --version); uts checkout: $checkout; work: $work"

cat > "$SPACK_USER_CONFIG_PATH/config.yaml" <<EOF
config:
  install_tree:
    root: $work/opt
  build_stage:
  - $work/stage
  source_cache: $work/source-cache
  test_stage: $work/test-stage
EOF
if [ -n "$packages" ]; then
  printf 'repos::\n  builtin: %s\n' "$packages/repos/spack_repo/builtin" \
    > "$SPACK_USER_CONFIG_PATH/repos.yaml"
fi

# The externals: what `spack external find` detects (the compiler, Ninja,
# pkg-config), then Meson with the Python that runs it, and the libraries at
# the versions pkg-config or their headers give, in /usr (Spack 1.1
# detected none of Debian's Open MPI, hwloc, OTF2 and SimGrid). None is
# buildable: the run shows the recipe against what the machine has
# (gcc-runtime and compiler-wrapper are Spack's own, made from the compiler
# and from Spack itself).
step external find --scope user --not-buildable gcc ninja pkgconf
pc_version() {  # the version of the first of the pkg-config names found
  local name
  for name in "$@"; do
    if pkg-config --exists "$name" 2>/dev/null; then pkg-config --modversion "$name"; return 0; fi
  done
  return 1
}
cryptopp_version=$(pc_version libcrypto++ libcryptopp cryptopp) \
  || die "Crypto++ has no pkg-config file here: give the cryptopp external by hand"
# Debian's libcrypto++.pc says 8.7 for 8.7.0.
case "$cryptopp_version" in *.*.*) ;; *) cryptopp_version="$cryptopp_version.0" ;; esac
cxxopts_version=$(pc_version cxxopts) || die "cxxopts has no pkg-config file here"
tbb_version=$(pc_version tbb) || die "oneTBB has no pkg-config file here"
hwloc_version=$(pc_version hwloc) || die "hwloc has no pkg-config file here"
openmpi_version=$(pc_version ompi) || die "Open MPI has no pkg-config file here (ompi.pc)"
otf2_version=$(pc_version otf2) || die "OTF2 has no pkg-config file here"
simgrid_version=$(pc_version simgrid) || die "SimGrid has no pkg-config file here"
doctest_h=/usr/include/doctest/doctest.h
[ -f "$doctest_h" ] || die "no $doctest_h (doctest)"
# Meson's recipe depends on python: the Python that runs meson (its #!
# line), given explicitly (Spack 1.1 deprecates guessing it).
meson_bin=$(command -v meson) || die "no meson on PATH"
meson_version=$("$meson_bin" --version)
meson_prefix=$(dirname "$(dirname "$meson_bin")")
meson_python=$(head -n 1 "$meson_bin" | sed -n 's/^#! *//p')
case "$meson_python" in
  */env\ *) meson_python=$(command -v "${meson_python##* }") || die "no ${meson_python##* } on PATH" ;;
esac
[ -x "$meson_python" ] || die "cannot tell which Python runs $meson_bin"
python_version=$("$meson_python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
python_prefix=$("$meson_python" -c 'import sys; print(sys.prefix)')
doctest_version=$(awk '/#define DOCTEST_VERSION_(MAJOR|MINOR|PATCH) /{printf "%s%s", sep, $3; sep="."}' "$doctest_h")

# An environment that develops uts from this checkout as it is on disk,
# with the externals above.
env_dir="$work/env"
rm -rf "$env_dir"
mkdir -p "$env_dir"
cat > "$env_dir/spack.yaml" <<EOF
spack:
  specs:
  - $spec
  view: false
  concretizer:
    unify: true
  packages:
    cryptopp:
      buildable: false
      externals: [{spec: cryptopp@$cryptopp_version, prefix: /usr}]
    cxxopts:
      buildable: false
      externals: [{spec: cxxopts@$cxxopts_version, prefix: /usr}]
    doctest:
      buildable: false
      externals: [{spec: doctest@$doctest_version, prefix: /usr}]
    intel-tbb:
      buildable: false
      externals: [{spec: intel-tbb@$tbb_version, prefix: /usr}]
    hwloc:
      buildable: false
      externals: [{spec: hwloc@$hwloc_version, prefix: /usr}]
    openmpi:
      buildable: false
      externals: [{spec: openmpi@$openmpi_version, prefix: /usr}]
    otf2:
      buildable: false
      externals: [{spec: otf2@$otf2_version, prefix: /usr}]
    simgrid:
      buildable: false
      externals: [{spec: simgrid@$simgrid_version, prefix: /usr}]
    python:
      buildable: false
      externals: [{spec: python@$python_version, prefix: $python_prefix}]
    meson:
      buildable: false
      externals:
      - spec: meson@$meson_version
        prefix: $meson_prefix
        dependencies: [{spec: python, deptypes: [build, run]}]
    tbb:
      require: intel-tbb
    mpi:
      require: openmpi
EOF
printf '\n%s:\n' "$env_dir/spack.yaml"; cat "$env_dir/spack.yaml"
printf '\n%s (spack external find):\n' "$SPACK_USER_CONFIG_PATH/packages.yaml"
cat "$SPACK_USER_CONFIG_PATH/packages.yaml"

step -e "$env_dir" repo add "$checkout/packaging/spack/spack_repo/uts"
step -e "$env_dir" repo list
step -e "$env_dir" develop --no-clone --path "$checkout" uts@=develop
# With --test=root the test dependencies (doctest) enter the DAG.
step -e "$env_dir" concretize -f --test=root
step -e "$env_dir" install --test=root
step -e "$env_dir" find -v -l -p uts
step -e "$env_dir" test run uts
step -e "$env_dir" test results -l
# `spack develop` left a link to the build folder in the checkout (e.g.
# build-linux-debian12-zen3-<hash>); the build stays under $work/stage.
find "$checkout" -maxdepth 1 -type l -name 'build-*' -lname "$work/*" -delete
echo
echo "try.sh: OK (uts from $checkout installed under $work/opt; its Spack test passed)"
