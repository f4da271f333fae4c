# Shared by scripts/run and scripts/test: install missing Debian packages,
# or, where that cannot be done (no apt-get, no root), say what is missing
# and how to get it; configure/build a Meson build directory. Source it; do
# not run it.
# shellcheck shell=bash disable=SC2034  # its variables are read by the scripts that source it

uts_here=${BASH_SOURCE[0]}
if [[ $uts_here == */* ]]; then uts_here=${uts_here%/*}; else uts_here=.; fi
UTS_ROOT=$(cd "$uts_here/../.." && pwd)  # no dirname: works with a bare PATH

# Packages every build needs, and the extra ones some steps need.
UTS_BUILD_PACKAGES="g++ meson ninja-build pkg-config libcrypto++-dev libcxxopts-dev doctest-dev libomp-dev libhwloc-dev libopenmpi-dev openmpi-bin libopen-trace-format2-dev libtbb-dev python3"
UTS_TEST_PACKAGES="clang-14 libsimgrid-dev spin numactl python3-matplotlib python3-scipy python3-jsonschema python3-pytest groff-base otf2-tools slurm-wlm munge python3-venv python3-pip python3-requests python3-lxml python3-yaml python3-argcomplete python3-filelock python3-semver python3-tabulate"

uts_log() { printf '== %s\n' "$*" >&2; }

# Whether uts_install can install Debian packages here: apt-get and
# dpkg-query, and root or sudo. Off Debian (a RHEL or SUSE cluster node) or
# without root, uts_check says what is missing instead.
uts_can_install() {
  command -v apt-get >/dev/null && command -v dpkg-query >/dev/null &&
    { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null; }
}

# Install whichever of the given packages are missing (sudo only when not
# root). Without dpkg-query or apt-get (not a Debian system, e.g. a cluster
# node), or without root and sudo, it says which packages it could not
# check or install and goes on (status 0); quiet about that when
# uts_install_quiet=1 (uts_prepare: uts_check says it in its block).
uts_install() {
  local missing=() pkg say=uts_log
  [ "${uts_install_quiet:-0}" = 1 ] && say=:
  [ $# -eq 0 ] && return 0
  if ! command -v dpkg-query >/dev/null; then
    $say "no dpkg-query (not a Debian system): not checking or installing $*; going on with what is installed"
    return 0
  fi
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null; then
    $say "no apt-get: cannot install ${missing[*]}; going on without them"
    return 0
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
      $say "not root and no sudo: cannot install ${missing[*]}; going on without them"
      return 0
    fi
    sudo="sudo"
  fi
  uts_log "installing: ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# uts_prepare run|test PACKAGES...: what scripts/run and scripts/test do
# first: install the Debian packages where that can be done, then check
# what the build needs (uts_check: one block when something is missing).
uts_prepare() {
  local what="$1"; shift
  uts_install_quiet=1 uts_install "$@"
  uts_check "$what"
}

# How to get each thing uts_check can find missing: the package under dnf
# (Fedora; RHEL/Rocky with EPEL and CRB), under zypper (openSUSE/SLES), and
# under Spack. docs/building.md ("Off Debian") says more.
declare -gA UTS_DNF=([compiler]=gcc-c++ [OpenMP]=libgomp [meson]=meson [ninja]=ninja-build
  [pkg-config]=pkgconf-pkg-config [python3]=python3 [Crypto++]=cryptopp-devel [cxxopts]=cxxopts-devel
  [hwloc]=hwloc-devel [doctest]=doctest-devel [MPI]=openmpi-devel [OTF2]=otf2-devel
  [SimGrid]=simgrid-devel [oneTBB]=tbb-devel [clang-14]=clang [spin]=spin [numactl]=numactl)
declare -gA UTS_ZYPPER=([compiler]=gcc-c++ [OpenMP]=libgomp1 [meson]=meson [ninja]=ninja
  [pkg-config]=pkgconf [python3]=python3 [Crypto++]=libcryptopp-devel [cxxopts]=cxxopts-devel
  [hwloc]=hwloc-devel [doctest]=doctest-devel [MPI]=openmpi4-devel [OTF2]=otf2-devel
  [SimGrid]=simgrid-devel [oneTBB]=tbb-devel [clang-14]=clang [spin]=spin [numactl]=numactl)
declare -gA UTS_SPACK=([compiler]=gcc [OpenMP]=gcc [meson]=meson [ninja]=ninja [pkg-config]=pkgconf
  [python3]=python [Crypto++]=cryptopp [cxxopts]=cxxopts [hwloc]=hwloc [doctest]=doctest
  [MPI]=openmpi [OTF2]=otf2 [SimGrid]=simgrid [oneTBB]=intel-oneapi-tbb [clang-14]=llvm [spin]=spin [numactl]=numactl)

# uts_probe_cxx CODE ARGS...: whether CODE compiles (and links, unless ARGS
# hold -E) with the C++ compiler Meson will use, and the flags the
# environment gives it (CPPFLAGS, CXXFLAGS, LDFLAGS; CPATH and LIBRARY_PATH
# the compiler reads itself).
uts_probe_cxx() {
  local code="$1"; shift
  local dir rc=0
  dir=$(mktemp -d)
  printf '%s\n' "$code" >"$dir/probe.cpp"
  # shellcheck disable=SC2086  # the flags are lists, as the compiler gets them
  "$uts_cxx" -std=c++20 ${CPPFLAGS:-} ${CXXFLAGS:-} "$@" "$dir/probe.cpp" -o "$dir/probe" ${LDFLAGS:-} \
    >/dev/null 2>&1 || rc=$?
  rm -rf "$dir"
  return $rc
}

# uts_probe_lib NAME HEADER LIB... [-- PKG-CONFIG NAMES]: a library found as
# Meson will (meson.build): by one of its pkg-config names, else its header
# by the compiler and (when LIBs are given) one of its libraries linked.
uts_probe_lib() {
  local header="$1"; shift
  local libs=() pcs=() lib
  while [ $# -gt 0 ] && [ "$1" != -- ]; do libs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  pcs=("$@")
  for lib in "${pcs[@]}"; do uts_pc_exists "$lib" && return 0; done
  uts_probe_cxx "#include <$header>" -E || return 1
  [ ${#libs[@]} -eq 0 ] && return 0
  for lib in "${libs[@]}"; do uts_probe_cxx 'int main() { return 0; }' "-l$lib" && return 0; done
  return 1
}

# uts_pc_exists NAME: pkg-config knows NAME (false without pkg-config).
uts_pc_exists() {
  [ -n "$uts_pkg_config" ] && "$uts_pkg_config" --exists "$1" 2>/dev/null
}

# uts_check run|test: probe what the build needs (and, for test, what the
# tests need) and, when something is missing, print one short block: what,
# and how to get it with dnf, zypper, Spack or environment modules. Stops
# the script with one line (status 1) when something required is missing;
# else sets UTS_MPI_OPTION, UTS_SIMGRID_OPTION and UTS_TBB_OPTION (enabled where it is
# there, or where uts_install put it; auto otherwise) and UTS_HAVE_CLANG.
uts_check() {
  local what="$1" required=() optional=() v major
  uts_cxx=${CXX:-}
  if [ -z "$uts_cxx" ]; then
    for v in c++ g++ clang++; do command -v $v >/dev/null && { uts_cxx=$v; break; }; done
  fi
  uts_pkg_config=$(command -v pkg-config || command -v pkgconf || true)
  if [ -z "$uts_cxx" ] || ! uts_probe_cxx 'int main() { return 0; }'; then
    required+=(compiler)
  elif ! uts_probe_cxx $'#include <omp.h>\nint main() { return omp_get_max_threads() > 0 ? 0 : 1; }' -fopenmp; then
    required+=(OpenMP)
  fi
  if ! command -v meson >/dev/null; then
    required+=(meson)
  else
    v=$(meson --version 2>/dev/null || true); major=${v%%.*}
    [[ $major =~ ^[0-9]+$ ]] && [ "$major" -ge 1 ] || required+=(meson)
  fi
  command -v ninja >/dev/null || command -v ninja-build >/dev/null || command -v samu >/dev/null || required+=(ninja)
  command -v python3 >/dev/null || required+=(python3)
  [ -n "$uts_pkg_config" ] || optional+=(pkg-config)
  if [[ " ${required[*]} " != *" compiler "* ]]; then
    uts_probe_lib cryptopp/sha.h cryptopp crypto++ -- libcrypto++ libcryptopp || required+=(Crypto++)
    uts_probe_lib cxxopts.hpp -- cxxopts || required+=(cxxopts)
    uts_probe_lib hwloc.h hwloc -- hwloc || required+=(hwloc)
    if [ "$what" = test ]; then uts_probe_lib doctest/doctest.h -- doctest || required+=(doctest); fi
  fi
  UTS_MPI_OPTION=enabled UTS_SIMGRID_OPTION=enabled UTS_TBB_OPTION=enabled
  if ! uts_can_install; then
    # Optional features: built where found, else left out (auto) rather
    # than failing the build (scripts/test asks for both).
    if ! command -v mpicxx >/dev/null && ! uts_pc_exists ompi-cxx && ! uts_pc_exists mpi; then
      optional+=(MPI); UTS_MPI_OPTION=auto
    fi
    uts_pc_exists otf2 || optional+=(OTF2)
    # oneTBB: --scheduler tbb (Debian's and Spack's give tbb.pc; else its
    # header and library as Meson's CMake lookup would find them).
    if ! uts_probe_lib oneapi/tbb/version.h tbb -- tbb; then
      optional+=(oneTBB); UTS_TBB_OPTION=auto
    fi
    if ! uts_pc_exists simgrid; then
      [ "$what" = test ] && optional+=(SimGrid)
      UTS_SIMGRID_OPTION=auto
    fi
  fi
  UTS_HAVE_CLANG=1
  if [ "$what" = test ]; then
    command -v clang++-14 >/dev/null || { optional+=(clang-14); UTS_HAVE_CLANG=0; }
    for v in spin numactl; do command -v $v >/dev/null || optional+=("$v"); done
  fi
  [ ${#required[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && return 0

  local all=("${required[@]}" "${optional[@]}") dnf=() zypper=() spack=() why
  for v in "${all[@]}"; do dnf+=("${UTS_DNF[$v]}"); zypper+=("${UTS_ZYPPER[$v]}"); spack+=("${UTS_SPACK[$v]}"); done
  if ! command -v apt-get >/dev/null || ! command -v dpkg-query >/dev/null; then why="not a Debian system"
  elif [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null; then why="not root and no sudo"
  else why="installed packages incomplete"; fi
  {
    echo "== uts $what: checked what the build needs ($why)"
    [ ${#required[@]} -eq 0 ] || echo "==   missing, needed: ${required[*]}"
    [ ${#optional[@]} -eq 0 ] || echo "==   missing, optional (built and tested without): ${optional[*]}"
    echo "==   dnf:     sudo dnf install ${dnf[*]}   (RHEL/Rocky: EPEL and CRB enabled)"
    echo "==   zypper:  sudo zypper install ${zypper[*]}"
    echo "==   Spack:   spack install ${spack[*]} && spack load ${spack[*]}   (or uts itself: docs/spack.md)"
    echo "==   modules: module avail, module load each; a prefix P by hand: export CPATH=P/include LIBRARY_PATH=P/lib LD_LIBRARY_PATH=P/lib PKG_CONFIG_PATH=P/lib/pkgconfig"
    [[ " ${required[*]} " != *" meson "* && " ${required[*]} " != *" ninja "* ]] ||
      echo "==   meson, ninja without root: python3 -m pip install --user meson ninja"
    echo "==   (docs/building.md, \"Off Debian\")"
  } >&2
  if [ ${#required[@]} -gt 0 ]; then
    echo "scripts/$what: cannot build uts without: ${required[*]} (how to get them: above)" >&2
    exit 1
  fi
}

# uts_configure DIR [MESON SETUP OPTIONS...]: set up DIR once, later
# reconfigure it with the options given.
uts_configure() {
  local dir="$1"; shift
  if [ ! -f "$UTS_ROOT/$dir/build.ninja" ]; then
    uts_log "configuring $dir $*"
  else
    # --reconfigure, not meson configure: it also knows options added to
    # meson_options.txt since the directory was set up.
    set -- --reconfigure "$@"
  fi
  # Quiet unless it fails; then meson's own error, not its whole output.
  local out
  if ! out=$(meson setup "$@" "$UTS_ROOT/$dir" "$UTS_ROOT" 2>&1); then
    printf '%s\n' "$out" | grep -E 'ERROR' >&2 || printf '%s\n' "$out" | tail -n 5 >&2
    echo "meson setup $dir failed (its log: $dir/meson-logs/meson-log.txt)" >&2
    exit 1
  fi
}

# uts_build DIR [MESON SETUP OPTIONS...]: configure DIR, build every target.
uts_build() {
  uts_configure "$@"
  uts_compile "$1"
}

# uts_compile DIR [TARGETS...]: build DIR (every target, or those named);
# quiet unless it fails, then the errors again.
uts_compile() {
  local dir="$1"; shift
  uts_log "building $dir${*:+ ($*)}"
  meson compile -C "$UTS_ROOT/$dir" "$@" >/dev/null || meson compile -C "$UTS_ROOT/$dir" "$@"
}

# uts_reframe DIR: ReFrame for the ReFrame check's test
# (tests/integration/test_reframe.py, docs/reframe.md), in a venv
# DIR/reframe-venv over Debian's Python, whose packages (python3-requests,
# -lxml, -yaml, -jsonschema, -filelock, -semver, -tabulate) give most of
# what it needs; pip adds reframe-hpc and archspec from PyPI. Debian 12
# packages no ReFrame, so without PyPI (a machine that cannot reach it)
# the test skips, and this says why in one line. Already there: nothing.
uts_reframe() {
  local venv="$UTS_ROOT/$1/reframe-venv" version=4.7.4
  if [ -x "$venv/bin/reframe" ] && "$venv/bin/reframe" --version >/dev/null 2>&1; then return 0; fi
  rm -rf "$venv"
  # Without pip inside (ensurepip takes 20 s on 2 busy cores): Debian's pip installs into it.
  if ! /usr/bin/python3 -m venv --without-pip --system-site-packages "$venv" 2>/dev/null; then
    uts_log "ReFrame check's test skipped: /usr/bin/python3 cannot make a venv (python3-venv)"; return 0
  fi
  if /usr/bin/python3 -m pip --python "$venv/bin/python" install --quiet --disable-pip-version-check \
       --retries 0 --timeout 15 "reframe-hpc==$version" >/dev/null 2>&1 \
     && "$venv/bin/reframe" --version >/dev/null 2>&1; then
    return 0
  fi
  uts_log "ReFrame check's test skipped: reframe-hpc $version could not be installed from PyPI (set UTS_REFRAME to a reframe of your own)"
  rm -rf "$venv"
}
