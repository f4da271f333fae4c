# Shared by scripts/run and scripts/test: install missing Debian packages and
# configure/build a Meson build directory. Source it; do not run it.

uts_here=${BASH_SOURCE[0]}
if [[ $uts_here == */* ]]; then uts_here=${uts_here%/*}; else uts_here=.; fi
UTS_ROOT=$(cd "$uts_here/../.." && pwd)  # no dirname: works with a bare PATH

# Packages every build needs, and the extra ones some steps need.
UTS_BUILD_PACKAGES="g++ meson ninja-build pkg-config libcrypto++-dev libcxxopts-dev doctest-dev libomp-dev libhwloc-dev libopenmpi-dev openmpi-bin libopen-trace-format2-dev python3"
UTS_TEST_PACKAGES="clang-14 libsimgrid-dev spin numactl python3-matplotlib python3-scipy python3-jsonschema python3-pytest groff-base otf2-tools"

uts_log() { printf '== %s\n' "$*" >&2; }

# Install whichever of the given packages are missing (sudo only when not
# root). Without dpkg-query or apt-get (not a Debian system, e.g. a cluster
# node), or without root and sudo, it says which packages it could not
# check or install and goes on (status 0): what is really needed then fails
# later with its own message (meson's, or a script's fallback note).
uts_install() {
  local missing=() pkg
  [ $# -eq 0 ] && return 0
  if ! command -v dpkg-query >/dev/null; then
    uts_log "no dpkg-query (not a Debian system): not checking or installing $*; going on with what is installed"
    return 0
  fi
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null; then
    uts_log "no apt-get: cannot install ${missing[*]}; going on without them"
    return 0
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
      uts_log "not root and no sudo: cannot install ${missing[*]}; going on without them"
      return 0
    fi
    sudo="sudo"
  fi
  uts_log "installing: ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# uts_configure DIR [MESON SETUP OPTIONS...]: set up DIR once, later
# reconfigure it with the options given.
uts_configure() {
  local dir="$1"; shift
  if [ ! -f "$UTS_ROOT/$dir/build.ninja" ]; then
    uts_log "configuring $dir $*"
    meson setup "$UTS_ROOT/$dir" "$UTS_ROOT" "$@" >/dev/null
  else
    # --reconfigure, not meson configure: it also knows options added to
    # meson_options.txt since the directory was set up.
    meson setup --reconfigure "$UTS_ROOT/$dir" "$UTS_ROOT" "$@" >/dev/null
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
