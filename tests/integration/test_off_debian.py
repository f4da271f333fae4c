#!/usr/bin/python3
"""The build off Debian, and scripts/run and scripts/test without apt-get or
root: what a RHEL/Rocky cluster node with modules or Spack looks like, made
on this machine by hiding what Debian installed.

usage: test_off_debian.py SOURCE_ROOT WORK_DIR --part PART
  configure      meson setup with Crypto++'s pkg-config file hidden and a
                 copy of Crypto++ under a non-system prefix (CPATH,
                 LIBRARY_PATH, as a module sets them), doctest hidden; the
                 libcryptopp.pc name (Fedora's) under PKG_CONFIG_PATH; the
                 error when no Crypto++ is found at all
  build          the first of those compiled (uts only), then
                 uts --preset T1 --verify against the prefix's library, its
                 record's cryptopp_version the prefix's header's (extended)
  scripts        the scripts on a copy of the sources, as an unprivileged
                 user (nobody, when the test runs as root), PATH without
                 apt-get, dpkg-query and sudo: the block saying what is
                 missing, no traceback, the documented exit status
  scripts-build  scripts/run so, building the copy and running T1L (extended)
Debian's own Crypto++ and doctest are hidden only where the test can
(root and unshare: bind mounts in a private mount namespace); the test says
so otherwise. Exits 77 (skip) when there is no Crypto++ to copy.
"""
import glob
import grp
import json
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import tempfile

from uts_check import Tally

TIMEOUT = 3000


def pkg_config_var(names, var):
    for name in names:
        p = subprocess.run(["pkg-config", "--variable=" + var, name], capture_output=True, text=True)
        if p.returncode == 0 and p.stdout.strip():
            return p.stdout.strip()
    return None


def can_hide():
    """Bind mounts in a private mount namespace: root, and unshare working."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "true"], capture_output=True)
    return p.returncode == 0


class OffDebian:
    """A temporary world: pkg-config files without Crypto++'s and doctest's,
    Crypto++ (headers and shared library only, as Spack installs it) under a
    prefix, and what to bind over Debian's own copies."""

    def __init__(self, work):
        self.work = work
        include = pkg_config_var(["libcrypto++", "libcryptopp"], "includedir")
        libdir = pkg_config_var(["libcrypto++", "libcryptopp"], "libdir")
        if not include or not os.path.isfile(os.path.join(include, "cryptopp", "sha.h")) or not libdir:
            print("SKIP: no Crypto++ found by pkg-config (libcrypto++ or libcryptopp) to copy under a prefix")
            sys.exit(77)
        self.header_dir = os.path.realpath(os.path.join(include, "cryptopp"))
        libs = sorted(set(glob.glob(os.path.join(libdir, "libcrypto++.*")) + glob.glob(os.path.join(libdir, "libcryptopp.*"))))
        # pkg-config's own search path, each .pc linked but Crypto++'s and doctest's.
        self.pc = os.path.join(work, "pkgconfig")
        os.makedirs(self.pc)
        p = subprocess.run(["pkg-config", "--variable", "pc_path", "pkg-config"], capture_output=True, text=True)
        dirs = [d for d in (os.environ.get("PKG_CONFIG_PATH", "") + ":" + p.stdout.strip()).split(":") if d]
        for d in dirs:
            for f in glob.glob(os.path.join(d, "*.pc")):
                name = os.path.basename(f)
                if name not in ("libcrypto++.pc", "libcryptopp.pc", "doctest.pc") and not os.path.exists(os.path.join(self.pc, name)):
                    os.symlink(f, os.path.join(self.pc, name))
        # The prefix: include/cryptopp and lib/ with the shared objects (the
        # links among them kept as they are).
        self.prefix = os.path.join(work, "cryptopp-prefix")
        shutil.copytree(self.header_dir, os.path.join(self.prefix, "include", "cryptopp"))
        os.makedirs(os.path.join(self.prefix, "lib"))
        for f in libs:
            if ".so" in os.path.basename(f):
                shutil.copy2(f, os.path.join(self.prefix, "lib", os.path.basename(f)), follow_symlinks=False)
        if not os.path.exists(os.path.join(self.prefix, "lib", "libcryptopp.so")):
            so = [f for f in libs if f.endswith(".so")]
            if so:
                os.symlink(os.path.realpath(so[0]), os.path.join(self.prefix, "lib", "libcryptopp.so"))
        self.header_version = None
        for name in ("config_ver.h", "config.h"):
            path = os.path.join(self.prefix, "include", "cryptopp", name)
            m = os.path.isfile(path) and re.search(r"#define CRYPTOPP_VERSION (\d+)", open(path).read())
            if m:
                self.header_version = m.group(1)
                break
        # What to hide: Debian's Crypto++ headers and library files, doctest's
        # headers and CMake files (meson finds doctest by its CMake config).
        self.hide_dirs = [self.header_dir]
        for d in ["/usr/include/doctest", "/usr/local/include/doctest"] + glob.glob("/usr/lib/cmake/doctest") + \
                glob.glob("/usr/lib/*/cmake/doctest") + glob.glob("/usr/share/doctest"):
            if os.path.isdir(d):
                self.hide_dirs.append(os.path.realpath(d))
        self.hide_files = sorted({os.path.realpath(f) for f in libs if os.path.isfile(f)})
        self.empty = os.path.join(work, "empty")
        os.makedirs(self.empty)
        self.hiding = can_hide()
        if not self.hiding:
            print("note  Debian's own Crypto++ and doctest are not hidden (needs root and unshare -m): "
                  "the prefix is found beside them, the pkg-config files alone are hidden", flush=True)

    def env(self, module=True, pc_path=None):
        env = {k: v for k, v in os.environ.items()
               if k not in ("PKG_CONFIG_PATH", "CPATH", "LIBRARY_PATH", "LD_LIBRARY_PATH", "CPPFLAGS", "LDFLAGS")}
        env["PKG_CONFIG_LIBDIR"] = self.pc
        if pc_path:
            env["PKG_CONFIG_PATH"] = pc_path
        if module:
            # What `module load cryptopp` sets.
            env.update(CPATH=os.path.join(self.prefix, "include"), LIBRARY_PATH=os.path.join(self.prefix, "lib"),
                       LD_LIBRARY_PATH=os.path.join(self.prefix, "lib"))
        return env

    def wrap(self, cmd, hide=True):
        """cmd in a mount namespace where Debian's copies are hidden (when the
        test can hide them)."""
        if not (hide and self.hiding):
            return cmd
        script = ["set -e"]
        script += ['mount --bind "%s" "%s"' % (self.empty, d) for d in self.hide_dirs]
        script += ['mount --bind /dev/null "%s"' % f for f in self.hide_files]
        script.append('exec "$@"')
        return ["unshare", "-m", "--propagation", "private", "sh", "-c", "\n".join(script), "sh"] + cmd


def run(cmd, env=None, cwd=None):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, -1, e.stdout or "", "timed out")


def summary(out):
    """Meson's summary lines, name -> value."""
    lines = {}
    for line in out.splitlines():
        if line.strip() == "User defined options":  # the command line's -D, not what was found
            break
        m = re.match(r"^\s{4}(\S[^:]*?)\s*: (.*)$", line)
        if m:
            lines[m.group(1)] = m.group(2)
    return lines


CHEAP = ["-Dmpi=disabled", "-Dotf2=disabled", "-Dsimgrid=disabled", "-Doptimization=0", "-Dwerror=true"]


def setup_prefix(world, source, build):
    """meson setup as on a node with a Crypto++ module loaded."""
    p = run(world.wrap(["meson", "setup", build, source, "-Dtests=auto"] + CHEAP), env=world.env())
    return p, summary(p.stdout)


def part_configure(tally, world, source, work):
    p, s = setup_prefix(world, source, os.path.join(work, "build-prefix"))
    tally.check(p.returncode == 0, "meson setup, Crypto++'s .pc hidden, Crypto++ under a prefix (CPATH, LIBRARY_PATH)",
                p.stdout[-1500:] + p.stderr[-500:])
    crypto = s.get("Crypto++", "")
    tally.check(re.match(r"[0-9.]+ \(header and (static|shared) library -l(cryptopp|crypto\+\+)\)$", crypto) is not None,
                "summary: Crypto++ found by header and library", crypto)
    if world.hiding:
        tally.check(crypto.endswith("(header and shared library -lcryptopp)"),
                    "summary: the prefix's shared library (Debian's archive hidden)", crypto)
        tally.check(s.get("doctest") == "not found" and s.get("tests", "").startswith("off"),
                    "summary: doctest hidden, tests off under -Dtests=auto", "%s / %s" % (s.get("doctest"), s.get("tests")))
    for name in ("OpenMP", "hwloc", "cxxopts", "doctest", "MPI", "OTF2", "SimGrid", "tests", "mpi", "otf2", "simgrid",
                 "fuzz", "loop_args"):
        tally.check(name in s, "summary lists " + name, str(sorted(s)))

    # Fedora's name for the file, found under PKG_CONFIG_PATH.
    pc2 = os.path.join(work, "fedora-pc")
    os.makedirs(pc2)
    with open(os.path.join(pc2, "libcryptopp.pc"), "w") as f:
        f.write("prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\nName: libcryptopp\n"
                "Description: Crypto++ (as Fedora names it)\nVersion: 8.7.0\nCflags: -I${includedir}\n"
                "Libs: -L${libdir} -lcryptopp\n" % world.prefix)
    p = run(world.wrap(["meson", "setup", os.path.join(work, "build-fedora-pc"), source, "-Dtests=disabled"] + CHEAP),
            env=world.env(module=False, pc_path=pc2))
    s = summary(p.stdout)
    tally.check(p.returncode == 0 and s.get("Crypto++", "").endswith("(pkg-config libcryptopp)"),
                "meson setup finds libcryptopp.pc under PKG_CONFIG_PATH", s.get("Crypto++", p.stdout[-1000:]))
    tally.check(s.get("doctest") == "not used (-Dtests=disabled)" and s.get("tests") == "off",
                "-Dtests=disabled: doctest not looked for", "%s / %s" % (s.get("doctest"), s.get("tests")))

    if world.hiding:
        # Nothing anywhere: meson's error names the packages to install.
        p = run(world.wrap(["meson", "setup", os.path.join(work, "build-none"), source, "-Dtests=disabled"] + CHEAP),
                env=world.env(module=False))
        err = [line for line in p.stdout.splitlines() if "ERROR" in line]
        tally.check(p.returncode != 0 and len(err) == 1 and "Crypto++ not found" in err[0]
                    and "cryptopp-devel" in err[0] and "libcrypto++-dev" in err[0] and "spack" in err[0].lower(),
                    "no Crypto++ at all: one meson error naming the packages per system", "\n".join(err) or p.stdout[-800:])
    else:
        print("note  the no-Crypto++ error is not checked: Debian's copy cannot be hidden here", flush=True)


def part_build(tally, world, source, work):
    build = os.path.join(work, "build-prefix")
    p, s = setup_prefix(world, source, build)
    tally.check(p.returncode == 0, "meson setup with Crypto++ under a prefix", p.stdout[-1500:])
    if p.returncode != 0:
        return
    p = run(world.wrap(["nice", "meson", "compile", "-C", build, "uts"]), env=world.env())
    tally.check(p.returncode == 0, "uts compiled against the prefix's Crypto++", p.stdout[-2000:])
    if p.returncode != 0:
        return
    uts = os.path.join(build, "uts")
    p = run(world.wrap([uts, "--preset", "T1", "--verify"]), env=world.env())
    tally.check(p.returncode == 0 and "Verify: OK" in p.stdout, "uts --preset T1 --verify prints Verify: OK",
                p.stdout[-500:] + p.stderr[-500:])
    p = run(world.wrap([uts, "--preset", "T1", "--verify", "--format", "json"]), env=world.env())
    try:
        record = json.loads(p.stdout)
        version = record["build"]["cryptopp_version"]
    except (ValueError, KeyError) as e:
        version = "unreadable record: %s" % e
    tally.check(world.header_version is not None and version == world.header_version,
                "the record's cryptopp_version is the prefix header's CRYPTOPP_VERSION",
                "%s, header %s" % (version, world.header_version))
    if world.hiding:
        p = run(world.wrap(["ldd", uts]), env=world.env())
        line = [x for x in p.stdout.splitlines() if "crypto" in x]
        tally.check(len(line) == 1 and world.prefix in line[0], "uts loads the prefix's libcrypto++", "\n".join(line))


def copy_sources(source, dest):
    p = subprocess.run(["git", "-C", source, "ls-files", "-z"], capture_output=True)
    if p.returncode == 0 and p.stdout:
        for name in p.stdout.decode().split("\0"):
            if name and os.path.lexists(os.path.join(source, name)):
                os.makedirs(os.path.dirname(os.path.join(dest, name)), exist_ok=True)
                shutil.copy2(os.path.join(source, name), os.path.join(dest, name), follow_symlinks=False)
    else:
        shutil.copytree(source, dest, symlinks=True, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("build*", "__pycache__", ".git"))


def others_can_run(path):
    """Whether any user can run path: it and every folder above it open to others."""
    path = os.path.realpath(path)
    if not os.stat(path).st_mode & stat.S_IXOTH:
        return False
    while path != "/":
        path = os.path.dirname(path)
        if not os.stat(path).st_mode & stat.S_IXOTH:
            return False
    return True


def bare_path(work, hidden, others):
    """A PATH of one folder: every command of this PATH but the hidden ones
    (and, for another user, those it can run: not a pyenv shim under /root)."""
    bindir = os.path.join(work, "bin-" + "-".join(sorted(hidden)).replace("+", "p"))
    os.makedirs(bindir)
    for d in os.environ.get("PATH", "/usr/bin:/bin").split(":"):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            target = os.path.join(d, name)
            if name in hidden or os.path.lexists(os.path.join(bindir, name)):
                continue
            if os.path.isfile(target) and os.access(target, os.X_OK) and (not others or others_can_run(target)):
                os.symlink(target, os.path.join(bindir, name))
    return bindir


NO_INSTALL = {"apt-get", "apt", "dpkg", "dpkg-query", "sudo"}


class Scripts:
    """The scripts on a copy of the sources, as an unprivileged user."""

    def __init__(self, tally, world, source, work):
        self.world = world
        self.work = work
        self.copy = os.path.join(work, "uts")
        os.makedirs(work)
        copy_sources(source, self.copy)
        self.user = []
        if os.geteuid() == 0:
            if shutil.which("setpriv"):
                nobody = pwd.getpwnam("nobody")
                group = "nogroup" if "nogroup" in [g.gr_name for g in grp.getgrall()] else str(nobody.pw_gid)
                os.chmod(work, 0o755)
                for root, dirs, files in os.walk(work):
                    for n in dirs + files:
                        os.lchown(os.path.join(root, n), nobody.pw_uid, -1)
                os.lchown(work, nobody.pw_uid, -1)
                self.user = ["setpriv", "--reuid=nobody", "--regid=" + group, "--clear-groups"]
                print("note  the scripts run as nobody (setpriv)", flush=True)
            else:
                print("note  no setpriv: the scripts run as root, with sudo and apt-get off PATH", flush=True)
        else:
            print("note  the scripts run as this unprivileged user", flush=True)

    def run(self, script, args, hidden, hide_cryptopp=False):
        env = ["env", "-i", "HOME=" + self.work, "PATH=" + bare_path(self.work, NO_INSTALL | set(hidden), bool(self.user)),
               "LANG=C.UTF-8"]
        if hide_cryptopp:
            env.append("PKG_CONFIG_LIBDIR=" + self.world.pc)
        cmd = self.user + env + ["bash", os.path.join(self.copy, "scripts", script)] + args
        if hide_cryptopp:
            cmd = self.world.wrap(cmd)
        return run(cmd, cwd=self.copy)


def no_traceback(tally, p, label):
    tally.check("Traceback" not in p.stdout + p.stderr, label + ": no traceback", p.stderr[-800:])


def block_checks(tally, p, label, needed, optional):
    err = p.stderr
    tally.check(err.count("checked what the build needs") == 1, label + ": one block", err[-1500:])
    for how in ("dnf:", "zypper:", "Spack:", "modules:"):
        tally.check(re.search(r"^==\s+" + how, err, re.M) is not None, label + ": the block says how with " + how, err[-1500:])
    if needed:
        m = re.search(r"^==\s+missing, needed: (.*)$", err, re.M)
        tally.check(m is not None and set(needed) <= set(m.group(1).split()), label + ": needed and missing: " + " ".join(needed),
                    err[-1500:])
    if optional:
        m = re.search(r"^==\s+missing, optional.*: (.*)$", err, re.M)
        tally.check(m is not None and set(optional) <= set(m.group(1).split()),
                    label + ": optional and missing: " + " ".join(optional), err[-1500:])


def part_scripts(tally, world, source, work):
    sc = Scripts(tally, world, source, work)
    # Something optional missing: the block, and the build can go on.
    p = sc.run("test", ["--check"], {"numactl", "spin"})
    label = "scripts/test --check, numactl and spin off PATH"
    tally.check(p.returncode == 0 and p.stdout.strip().splitlines()[-1:] == ["scripts/test: the build and the tests can go on"],
                label + ": exit 0, the build can go on", "exit %d\n%s%s" % (p.returncode, p.stdout[-500:], p.stderr[-1500:]))
    block_checks(tally, p, label, [], ["numactl", "spin"])
    dnf = re.search(r"^==\s+dnf:.*$", p.stderr, re.M)
    tally.check(dnf is not None and "numactl" in dnf.group(0), label + ": the dnf line names the package", p.stderr[-800:])
    no_traceback(tally, p, label)

    # meson missing: the block, then one line, exit 1, nothing built.
    p = sc.run("run", ["--threads", "1"], {"meson"})
    label = "scripts/run, meson off PATH"
    last = p.stderr.strip().splitlines()[-1:] or [""]
    tally.check(p.returncode == 1 and last[0] == "scripts/run: cannot build uts without: meson (how to get them: above)",
                label + ": exit 1 with one line", "exit %d, last line %r" % (p.returncode, last[0]))
    block_checks(tally, p, label, ["meson"], [])
    tally.check("pip install --user meson" in p.stderr, label + ": says pip install --user meson", p.stderr[-800:])
    tally.check(not os.path.exists(os.path.join(sc.copy, "build")), label + ": no build folder made")
    no_traceback(tally, p, label)

    # Crypto++ missing (its .pc and, where the test can, Debian's copy hidden).
    if world.hiding:
        p = sc.run("test", [], set(), hide_cryptopp=True)
        label = "scripts/test, Crypto++ hidden"
        last = p.stderr.strip().splitlines()[-1:] or [""]
        tally.check(p.returncode == 1 and last[0].startswith("scripts/test: cannot build uts without: ")
                    and "Crypto++" in last[0], label + ": exit 1 with one line",
                    "exit %d, last line %r" % (p.returncode, last[0]))
        block_checks(tally, p, label, ["Crypto++"], [])
        tally.check("cryptopp-devel" in p.stderr and "libcryptopp-devel" in p.stderr and "spack install cryptopp" in p.stderr,
                    label + ": names cryptopp-devel, libcryptopp-devel, spack install cryptopp", p.stderr[-800:])
        no_traceback(tally, p, label)
    else:
        print("note  Crypto++ missing is not checked: Debian's copy cannot be hidden here (needs root and unshare)",
              flush=True)


def part_scripts_build(tally, world, source, work):
    sc = Scripts(tally, world, source, work)
    p = sc.run("run", ["--threads", "2"], {"numactl"})
    tally.check(p.returncode == 0 and "Verify: OK" in p.stdout,
                "scripts/run without apt-get, dpkg-query, sudo (unprivileged): builds and verifies T1L",
                "exit %d\n%s\n%s" % (p.returncode, p.stdout[-800:], p.stderr[-2000:]))
    no_traceback(tally, p, "scripts/run, full build")


def main():
    if len(sys.argv) != 5 or sys.argv[3] != "--part" or sys.argv[4] not in ("configure", "build", "scripts", "scripts-build"):
        print("usage: test_off_debian.py SOURCE_ROOT WORK_DIR --part configure|build|scripts|scripts-build", file=sys.stderr)
        return 2
    source, parent, part = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[4]
    for tool in ("meson", "pkg-config", "bash"):
        if shutil.which(tool) is None:
            print("SKIP: %s not found" % tool)
            return 77
    tally = Tally()
    os.makedirs(parent, exist_ok=True)
    if part.startswith("scripts") and os.geteuid() == 0 and not others_can_run(parent):
        # nobody must reach the copy (a checkout under /root is closed to it).
        parent = tempfile.gettempdir()
    with tempfile.TemporaryDirectory(prefix="off-debian-" + part + "-", dir=parent) as work:
        os.chmod(work, 0o755)  # the unprivileged user of the scripts parts goes through it
        world = OffDebian(os.path.join(work, "world"))
        {"configure": part_configure, "build": part_build, "scripts": part_scripts,
         "scripts-build": part_scripts_build}[part](tally, world, source, os.path.join(work, "test"))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
