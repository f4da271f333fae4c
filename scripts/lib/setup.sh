# Shared by scripts/run and scripts/test: install missing Debian packages and
# configure/build a Meson build directory. Source it; do not run it.

UTS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# Packages every build needs, and the extra ones some steps need.
UTS_BUILD_PACKAGES="g++ meson ninja-build pkg-config libcrypto++-dev libcxxopts-dev doctest-dev libomp-dev libhwloc-dev libopenmpi-dev openmpi-bin python3"
UTS_TEST_PACKAGES="clang-14 spin numactl python3-matplotlib"

uts_log() { printf '== %s\n' "$*" >&2; }

# Install whichever of the given packages are missing (sudo only when not root).
uts_install() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  uts_log "installing: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "need root or sudo to install: ${missing[*]}" >&2; return 1; }
    sudo="sudo"
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# uts_build DIR [meson setup options...]: configure once, then compile.
uts_build() {
  local dir="$1"; shift
  if [ ! -f "$UTS_ROOT/$dir/build.ninja" ]; then
    uts_log "configuring $dir $*"
    meson setup "$UTS_ROOT/$dir" "$UTS_ROOT" "$@" >/dev/null
  else
    meson configure "$UTS_ROOT/$dir" "$@" >/dev/null
  fi
  uts_log "building $dir"
  meson compile -C "$UTS_ROOT/$dir" >/dev/null || meson compile -C "$UTS_ROOT/$dir"
}
