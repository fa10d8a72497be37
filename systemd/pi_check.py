"""`make pi-check`: the Raspberry Pi install, proven on an emulated arm64 Debian Bookworm.

Slow (the first run builds the root: tens of minutes) and root-only, so it is not part of
`make test` or CI. What it does, in order (docs/pi.md says why each part is there):

1. installs qemu-user-static and debootstrap on the host when missing, mounts binfmt_misc
   and registers qemu's aarch64 interpreter (or says plainly that the host forbids it);
2. builds, or reuses, an arm64 Bookworm root in .pi-root/ (git-ignored);
3. stands in for Raspberry Pi OS's camera packages with their binary interface: apt's
   numpy 1.24, simplejpeg 1.6.6 (Raspberry Pi OS's version) compiled against it in the
   system site-packages, and a small picamera2 that imports simplejpeg as the real one does;
4. gives pip in the root the host's CA bundle and index configuration;
5. copies this checkout in and runs `systemd/install-pi.sh --no-system` (all but apt-get
   and systemctl), which must get past its picamera2 import check;
6. runs `systemd-analyze verify` on the unit it installed, `companion doctor`, and the
   Yokir and Yonac demos, whose final scores must equal the x86 run's;
7. writes benchmarks/results/pi-check.md.

Usage: python3 systemd/pi_check.py [--reuse-venv] [--root DIR] [--out FILE]
(`make pi-check` runs it; PI_ROOT=DIR and PI_CHECK_REUSE_VENV=1 work there too.)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import re
import shlex
import shutil
import ssl
import subprocess
import sys
import tarfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
SUITE = "bookworm"
MIRROR = os.environ.get("PI_CHECK_MIRROR", "http://deb.debian.org/debian")
# What Raspberry Pi OS Bookworm gives the install: Python 3.11, venv and pip, apt's numpy;
# gcc and libturbojpeg to build the simplejpeg stand-in; systemd for systemd-analyze.
ROOT_PACKAGES = ("python3", "python3-venv", "python3-pip", "python3-numpy", "python3-dev", "gcc",
                 "libc6-dev", "libturbojpeg0-dev", "ca-certificates", "systemd")
# Raspberry Pi OS Bookworm's python3-simplejpeg is 1.6.6, linked with the system
# libturbojpeg and built against the system numpy: the same recipe as below.
SIMPLEJPEG = ("simplejpeg-1.6.6", "https://files.pythonhosted.org/packages/25/50/"
              "6a4ea4f14d72d21c0fe0e3ef4c916b162fc6208f7a32c145f690c7c678b0/simplejpeg-1.6.6.tar.gz",
              "942294f9fd602375289759f1b70dd734e1c939063d8479c04dffb23074a8d662")
APP = "/home/pi/table-companion"  # the checkout's place inside the root
DEMO_GAMES = ("yokir", "yonac")
HOST_CA = "/etc/ssl/certs/host-ca-bundle.crt"  # inside the root
NICE = ["nice", "-n", "10"]  # the machine is shared: emulated work yields to the rest


class CheckFailed(Exception):
    """A step of the check failed; the message says which and why."""


def say(text: str) -> None:
    print(f"==> {text}", flush=True)


def run(cmd: list[str], *, check: bool = True, capture: bool = False, env: dict | None = None,
        input: str | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, text=True, env=env, input=input,
                          stdout=subprocess.PIPE if capture else None,
                          stderr=subprocess.STDOUT if capture else None)
    if check and proc.returncode != 0:
        tail = "\n".join((proc.stdout or "").splitlines()[-15:])
        raise CheckFailed(f"{shlex.join(cmd)} exited with {proc.returncode}\n{tail}")
    return proc


# ---------------------------------------------------------------- the host: qemu and binfmt

def ensure_host_tools() -> None:
    missing = [p for p in ("qemu-user-static", "debootstrap")
               if run(["dpkg", "-s", p], check=False, capture=True).returncode != 0]
    if missing:
        say(f"installing {' '.join(missing)} on the host")
        run(["apt-get", "update", "-q"])
        run(["apt-get", "install", "-y", "-q", *missing],
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})


def ensure_binfmt() -> str:
    """aarch64 binaries run through qemu; returns how (for the report)."""
    if platform.machine() == "aarch64":
        return "native arm64 host: no emulation"
    binfmt = Path("/proc/sys/fs/binfmt_misc")
    if not (binfmt / "register").exists():
        say("mounting binfmt_misc")
        if run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(binfmt)], check=False).returncode:
            raise CheckFailed("the host forbids mounting binfmt_misc (a container without privileges?): "
                              "run `make pi-check` on a machine or VM where you are root, or in a "
                              "container started with --privileged")
    entry = binfmt / "qemu-aarch64"
    if not entry.exists():
        conf = Path("/usr/lib/binfmt.d/qemu-aarch64.conf")
        say(f"registering qemu's aarch64 interpreter from {conf}")
        try:
            (binfmt / "register").write_text(conf.read_text().strip() + "\n")
        except OSError as exc:
            raise CheckFailed(f"the host forbids registering {conf} in binfmt_misc ({exc}): run "
                              "`make pi-check` where you are root of the kernel, not only of a "
                              "container") from None
    lines = entry.read_text().splitlines()
    if "enabled" not in lines:
        raise CheckFailed(f"{entry} is registered but disabled: echo 1 > {entry}")
    flags = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("flags:")), "")
    if "F" not in flags:
        raise CheckFailed(f"{entry} lacks the F flag, so the interpreter is not found inside a "
                          "chroot: re-register it from /usr/lib/binfmt.d/qemu-aarch64.conf")
    return f"qemu-user-static {package_version('qemu-user-static')} through binfmt_misc (flags {flags})"


def package_version(name: str, root: Path | None = None) -> str:
    cmd = ["dpkg-query", "-W", "-f=${Version}", name]
    if root is not None:
        cmd[1:1] = ["--admindir", str(root / "var/lib/dpkg")]
    proc = run(cmd, check=False, capture=True)
    return proc.stdout.strip() if proc.returncode == 0 else "not installed"


# ---------------------------------------------------------------- the root and its mounts

def mounts_under(root: Path) -> list[str]:
    points = []
    for line in Path("/proc/mounts").read_text().splitlines():
        point = line.split()[1].replace("\\040", " ")
        if point == str(root) or point.startswith(f"{root}/"):
            points.append(point)
    return points


def build_root(root: Path) -> bool:
    """Debootstrap the root unless a finished one is there; True when it was built now."""
    stamp = root / ".pi-check-base"
    if stamp.exists():
        return False
    if root.exists():
        if mounts_under(root):
            raise CheckFailed(f"{root} is half-built and still has mounts: {mounts_under(root)}")
        say(f"removing the unfinished root {root}")
        shutil.rmtree(root)
    say(f"building an arm64 Debian {SUITE} root in {root} (emulated: tens of minutes)")
    run([*NICE, "debootstrap", "--arch=arm64", "--variant=minbase",
         f"--include={','.join(ROOT_PACKAGES)}", SUITE, str(root), MIRROR])
    stamp.write_text(f"{SUITE} {MIRROR}\n")
    return True


class Mounts:
    """/proc, /sys, /dev and the host's local pip indexes mounted into the root while the
    check runs, and always unmounted after."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.points: list[Path] = []

    def __enter__(self) -> Mounts:
        for kind, source, target in (("proc", "proc", "proc"), ("sysfs", "sys", "sys")):
            self._mount(["-t", kind, source], target)
        self._mount(["--rbind", "/dev"], "dev")
        run(["mount", "--make-rslave", str(self.root / "dev")])
        return self

    def _mount(self, args: list[str], target: str) -> None:
        point = self.root / target.lstrip("/")
        run(["mount", *args, str(point)])
        self.points.append(point)

    def bind_read_only(self, host_path: str) -> None:
        """Show a host file or folder (a local wheel folder or index) at the same path."""
        src = Path(host_path)
        point = self.root / host_path.lstrip("/")
        if src.is_dir():
            point.mkdir(parents=True, exist_ok=True)
        else:
            point.parent.mkdir(parents=True, exist_ok=True)
            point.touch()
        self._mount(["--bind", "-o", "ro", str(src)], host_path)
        run(["mount", "-o", "remount,bind,ro", str(point)], check=False)

    def __exit__(self, *exc: object) -> None:
        for point in reversed(self.points):
            if run(["umount", "-R", str(point)], check=False, capture=True).returncode:
                run(["umount", "-l", "-R", str(point)], check=False, capture=True)
        self.points.clear()


def chroot(root: Path, script: str, *, check: bool = True, capture: bool = True,
           nice: bool = True) -> subprocess.CompletedProcess:
    """Run a bash script inside the root as root, with a clean environment."""
    cmd = [*(NICE if nice else []), "chroot", str(root), "/bin/bash", "-euo", "pipefail", "-c", script]
    return run(cmd, check=check, capture=capture, env=chroot_env())


def chroot_env() -> dict[str, str]:
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
           "LANG": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive", "SSL_CERT_FILE": HOST_CA,
           "REQUESTS_CA_BUNDLE": HOST_CA, "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "PIP_ROOT_USER_ACTION": "ignore"}
    env.update({k: v for k, v in os.environ.items()
                if k.lower() in ("http_proxy", "https_proxy", "no_proxy", "all_proxy")})
    return env


def chroot_popen(root: Path, script: str) -> subprocess.Popen:
    """`chroot` started in the background, its output (stderr too) to be read at the end."""
    return subprocess.Popen([*NICE, "chroot", str(root), "/bin/bash", "-euo", "pipefail", "-c", script],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=chroot_env())


def ensure_root_packages(root: Path) -> None:
    missing = [p for p in ROOT_PACKAGES if package_version(p, root) == "not installed"]
    if missing:
        say(f"installing {' '.join(missing)} in the root")
        chroot(root, f"apt-get update -q && apt-get install -y -q {' '.join(missing)}")


# ---------------------------------------------------------------- pip: the host's trust and index

CA_CANDIDATES = ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt")
PATH_KEYS = ("find-links", "extra-index-url", "index-url", "constraint", "requirement")


def host_pip_config() -> dict[str, dict[str, str]]:
    """The host's effective pip configuration (files and PIP_* variables), by section."""
    proc = run([sys.executable, "-m", "pip", "config", "list"], check=False, capture=True)
    config: dict[str, dict[str, str]] = {}
    for line in proc.stdout.splitlines():
        match = re.match(r"^([^.=]*)\.([^=]+)='(.*)'$", line.strip())
        if not match:
            continue
        section, key, value = match.groups()
        section = "global" if section in (":env:", "") else section
        config.setdefault(section, {})[key] = value
    return config


def host_ca_bundle(config: dict[str, dict[str, str]]) -> str:
    for candidate in (config.get("global", {}).get("cert"), os.environ.get("PIP_CERT"),
                      os.environ.get("SSL_CERT_FILE"), ssl.get_default_verify_paths().cafile,
                      *CA_CANDIDATES):
        if candidate and Path(candidate).is_file():
            return candidate
    raise CheckFailed("found no CA bundle on the host to give pip in the root")


def local_paths(key: str, value: str) -> list[str]:
    """The host files and folders a pip setting needs (file:// URLs and plain paths). A
    local index's pages link to files beside its `simple/` folder, so for an index the
    folder holding `simple/` is needed."""
    paths = []
    for word in value.split():
        path = Path(word[len("file://"):] if word.startswith("file://") else word)
        if key.endswith("index-url") and path.name == "simple":
            path = path.parent
        if path.is_absolute() and path.exists() and str(path) not in paths:
            paths.append(str(path))
    return paths


def configure_pip(root: Path, mounts: Mounts) -> list[str]:
    """Give pip in the root the host's CA bundle and index settings; returns what was set."""
    config = host_pip_config()
    bundle = host_ca_bundle(config)
    shutil.copyfile(bundle, root / HOST_CA.lstrip("/"))
    lines, notes = [], [f"CA bundle: the host's {bundle}, copied to {HOST_CA}"]
    for section in sorted(config, key=lambda s: s != "global"):
        lines.append(f"[{section}]")
        for key, value in sorted(config[section].items()):
            if key == "cert":
                continue
            for path in local_paths(key, value) if key in PATH_KEYS else []:
                mounts.bind_read_only(path)
                notes.append(f"{key}: host path {path} mounted read-only at the same place")
            lines.append(f"{key} = {value}")
            notes.append(f"{section}.{key} = {value}")
        if section == "global":
            lines.append(f"cert = {HOST_CA}")
    if "global" not in config:
        lines[:0] = ["[global]", f"cert = {HOST_CA}"]
    (root / "etc/pip.conf").write_text("# written by systemd/pi_check.py from the host's pip settings\n"
                                       + "\n".join(lines) + "\n")
    return notes


# ---------------------------------------------------------------- Raspberry Pi OS's camera packages

PICAMERA2_STANDIN = '''\
"""Stand-in for Raspberry Pi OS's python3-picamera2, written by systemd/pi_check.py.

It loads what matters for the install: numpy and simplejpeg, the binary modules the real
picamera2 imports on load (picamera2/encoders/jpeg_encoder.py), from the system
site-packages. There is no camera in the emulated root, so opening one fails as the real
picamera2 does when no camera is attached.
"""

import numpy  # noqa: F401
import simplejpeg  # noqa: F401

STAND_IN = True


class Picamera2:
    def __init__(self, camera_num=0, **kwargs):
        raise IndexError("list index out of range (stand-in: no camera in the emulated root)")

    @staticmethod
    def global_camera_info():
        return []
'''


def fetch_simplejpeg(root: Path, bundle: str) -> Path:
    name, url, sha256 = SIMPLEJPEG
    cache = root / "var/cache/pi-check" / f"{name}.tar.gz"
    if not cache.exists() or hashlib.sha256(cache.read_bytes()).hexdigest() != sha256:
        say(f"downloading {url}")
        cache.parent.mkdir(parents=True, exist_ok=True)
        context = ssl.create_default_context(cafile=bundle)
        with urllib.request.urlopen(url, context=context, timeout=120) as response:
            data = response.read()
        if hashlib.sha256(data).hexdigest() != sha256:
            raise CheckFailed(f"{url} does not have the expected sha256 {sha256}")
        cache.write_bytes(data)
    return cache


def stand_in_camera_packages(root: Path, bundle: str) -> None:
    """simplejpeg compiled against apt's numpy, and the picamera2 stand-in, in the system
    site-packages (/usr/lib/python3/dist-packages, where apt puts them on the Pi)."""
    stamp = root / ".pi-check-standins"
    if stamp.exists():
        return
    name = SIMPLEJPEG[0]
    source = fetch_simplejpeg(root, bundle)
    build = root / "tmp" / name
    shutil.rmtree(build, ignore_errors=True)
    with tarfile.open(source) as tar:
        try:
            tar.extractall(root / "tmp", filter="data")
        except TypeError:  # a Python 3.11 from before extraction filters (3.11.4)
            tar.extractall(root / "tmp")  # the archive's sha256 was checked
    say(f"compiling {name} against the root's apt numpy (as Raspberry Pi OS's package is)")
    chroot(root, f"""
        cd /tmp/{name}
        site=/usr/lib/python3/dist-packages
        numpy_inc=$(python3 -c 'import numpy; print(numpy.get_include())')
        ext=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
        mkdir -p $site/simplejpeg $site/{name}.egg-info
        gcc -O2 -fPIC -shared -I/usr/include/python3.11 -I"$numpy_inc" -Isimplejpeg \\
            simplejpeg/_jpeg.c simplejpeg/_color.c -lturbojpeg -o $site/simplejpeg/_jpeg$ext
        cp simplejpeg/__init__.py simplejpeg/_jpeg.pyi $site/simplejpeg/
        printf 'Metadata-Version: 2.1\\nName: simplejpeg\\nVersion: 1.6.6\\n' > $site/{name}.egg-info/PKG-INFO
    """)
    pkg = root / "usr/lib/python3/dist-packages/picamera2"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(PICAMERA2_STANDIN)
    info = root / "usr/lib/python3/dist-packages/picamera2-0.3.25.egg-info"
    info.mkdir(exist_ok=True)
    (info / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: picamera2\nVersion: 0.3.25\n")
    chroot(root, "python3 -c 'import numpy, simplejpeg, picamera2; "
                 "a = numpy.zeros((8, 8, 3), numpy.uint8); "
                 "assert simplejpeg.decode_jpeg(simplejpeg.encode_jpeg(a)).shape == a.shape'")
    shutil.rmtree(build, ignore_errors=True)
    stamp.write_text("simplejpeg 1.6.6 against apt numpy; picamera2 stand-in\n")


# ---------------------------------------------------------------- the install and the runs

def copy_checkout(root: Path, reuse_venv: bool) -> None:
    """The checkout's tracked and new (not ignored) files into the root; the root's .venv
    is kept only with --reuse-venv."""
    app = root / APP.lstrip("/")
    venv = app / ".venv"
    if app.exists():
        for child in app.iterdir():
            if child == venv and reuse_venv:
                continue
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    app.mkdir(parents=True, exist_ok=True)
    files = run(["git", "-C", str(CHECKOUT), "ls-files", "-co", "--exclude-standard", "-z"],
                capture=True).stdout.split("\0")
    for rel in filter(None, files):
        src = CHECKOUT / rel
        if not src.is_file():
            continue  # deleted in the working tree
        dst = app / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


@dataclass
class Timed:
    seconds: float
    output: str
    status: int


def timed(fn, *args, **kw) -> Timed:
    began = time.perf_counter()
    proc = fn(*args, **kw, check=False)
    return Timed(time.perf_counter() - began, proc.stdout or "", proc.returncode)


SCORES = re.compile(r"^Scores match the full-information game: (.*)$", re.M)


def final_scores(out: str) -> str | None:
    match = SCORES.search(out)
    return match.group(1).strip() if match else None


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    ok: bool = True
    failures: list[str] = field(default_factory=list)

    def add(self, *text: str) -> None:
        self.lines.extend(text)

    def fail(self, why: str) -> None:
        self.ok = False
        self.failures.append(why)


def root_versions(root: Path) -> tuple[str, str]:
    probe = chroot(root, f"""cd {APP} && .venv/bin/python - <<'EOF'
import importlib.metadata as md, platform, sys, pathlib
print("- Python", platform.python_version(), "on", platform.machine(),
      "(" + platform.freedesktop_os_release().get("PRETTY_NAME", "?") + ")")
import numpy, cv2, simplejpeg, picamera2
print("- numpy", numpy.__version__, "from", pathlib.Path(numpy.__file__).parent)
print("- OpenCV", cv2.__version__)
print("- simplejpeg", simplejpeg.__version__, "from", pathlib.Path(simplejpeg.__file__).parent)
print("- picamera2 (stand-in)" if getattr(picamera2, "STAND_IN", False) else "- picamera2",
      "from", pathlib.Path(picamera2.__file__).parent)
print("@@wheels")
for name in ("numpy", "opencv-python-headless", "kivy", "pillow", "simplejpeg", "gpiozero", "fpdf2",
             "platformdirs"):
    try:
        dist = md.distribution(name)
    except md.PackageNotFoundError:
        print(f"| {{name}} | not installed | |")
        continue
    wheel = dist.read_text("WHEEL") or ""
    tags = ", ".join(line.split(": ", 1)[1] for line in wheel.splitlines() if line.startswith("Tag:"))
    print(f"| {{name}} | {{dist.version}} | {{tags or 'no WHEEL file'}} |")
EOF""", check=False)
    text = proc_text(probe)
    versions, _, wheels = text.partition("@@wheels\n")
    return versions.strip(), wheels.strip()


def proc_text(proc: subprocess.CompletedProcess) -> str:
    return proc.stdout or ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pi_check.py", description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(os.environ.get("PI_ROOT", CHECKOUT / ".pi-root")),
                        help="the emulated root (default .pi-root/ in the checkout, or $PI_ROOT)")
    parser.add_argument("--reuse-venv", action="store_true",
                        default=os.environ.get("PI_CHECK_REUSE_VENV", "") not in ("", "0"),
                        help="keep the root's .venv from the last run (faster; default: a fresh one; "
                             "or set PI_CHECK_REUSE_VENV=1)")
    parser.add_argument("--out", type=Path, default=CHECKOUT / "benchmarks/results/pi-check.md")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("make pi-check needs root (debootstrap, chroot, mount): run it as root or with sudo",
              file=sys.stderr)
        return 2
    host_companion = CHECKOUT / ".venv/bin/companion"
    if not host_companion.exists():
        print(f"{host_companion} is missing: `make venv` first (make pi-check does)", file=sys.stderr)
        return 2
    root = args.root.resolve()
    report = Report()
    began = time.perf_counter()
    try:
        ensure_host_tools()
        emulation = ensure_binfmt()
        t0 = time.perf_counter()
        built = build_root(root)
        root_time = time.perf_counter() - t0
        if run(["chroot", str(root), "/bin/true"], check=False).returncode:
            raise CheckFailed(f"cannot run the root's arm64 programs ({emulation})")
        with Mounts(root) as mounts:
            (root / "etc/resolv.conf").write_text(Path("/etc/resolv.conf").read_text())
            ensure_root_packages(root)
            pip_notes = configure_pip(root, mounts)
            t0 = time.perf_counter()
            stand_in_camera_packages(root, str(root / HOST_CA.lstrip("/")))
            standin_time = time.perf_counter() - t0
            check_run(root, args, report, host_companion, emulation=emulation, built=built,
                      root_time=root_time, standin_time=standin_time, pip_notes=pip_notes)
    except CheckFailed as exc:
        report.fail(str(exc).splitlines()[0])
        print(f"pi-check FAILED: {exc}", file=sys.stderr)
    total = time.perf_counter() - began
    if report.lines:
        report.add("", f"Whole check: {total / 60:.1f} min of wall time on this shared 2-core machine.")
        verdict = "PASS" if report.ok else "FAIL: " + "; ".join(report.failures)
        args.out.write_text("\n".join([f"# make pi-check: {verdict}", "", *report.lines]) + "\n")
        say(f"wrote {args.out}")
    say("pi-check " + ("passed" if report.ok else "FAILED: " + "; ".join(report.failures)))
    return 0 if report.ok else 1


def check_run(root: Path, args: argparse.Namespace, report: Report, host_companion: Path, *,
              emulation: str, built: bool, root_time: float, standin_time: float,
              pip_notes: list[str]) -> None:
    user = chroot(root, "id -u pi >/dev/null 2>&1 || useradd -m -s /bin/bash pi", check=False)
    if user.returncode:
        raise CheckFailed(f"could not add the user pi in the root: {proc_text(user)}")
    copy_checkout(root, args.reuse_venv)
    commit = run(["git", "-C", str(CHECKOUT), "describe", "--always", "--dirty"], capture=True,
                 check=False).stdout.strip()
    venv_kept = args.reuse_venv and (root / APP.lstrip("/") / ".venv/bin/python").exists()

    say("running systemd/install-pi.sh --no-system in the root (emulated)")
    install = timed(chroot, root, f"cd {APP} && COMPANION_USER=pi bash systemd/install-pi.sh --no-system")
    print(install.output, flush=True)
    passed_import = "picamera2 imports with numpy" in install.output
    if install.status or not passed_import:
        raise CheckFailed("install-pi.sh --no-system did not get past the picamera2 import check"
                          if not passed_import else f"install-pi.sh --no-system exited with {install.status}")

    # the same system simplejpeg loaded under the venv's numpy: the failure the fix avoids
    unfixed = chroot(root, f"""cd {APP} && .venv/bin/python - <<'EOF' 2>&1 || true
import numpy, sys
sys.path.insert(0, "/usr/lib/python3/dist-packages")
for name in [m for m in sys.modules if m.startswith("simplejpeg")]:
    del sys.modules[name]
try:
    import simplejpeg
    print("system simplejpeg", simplejpeg.__file__, "loads under numpy", numpy.__version__)
except Exception as exc:
    print(f"{{type(exc).__name__}}: {{exc}}")
EOF""", check=False)
    versions, wheels = root_versions(root)

    unit_path = "/etc/systemd/system/table-companion-kiosk.service"
    verify = chroot(root, f"systemd-analyze verify {unit_path} 2>&1; echo \"exit status $?\"", check=False)
    verify_text = proc_text(verify).strip()
    unit_text = (root / unit_path.lstrip("/")).read_text() if (root / unit_path.lstrip("/")).exists() else ""
    groups_line = next((ln for ln in unit_text.splitlines() if ln.startswith("SupplementaryGroups=")),
                       "(no unit written)")
    if not verify_text.endswith("exit status 0") or "table-companion-kiosk.service" in verify_text:
        report.fail("systemd-analyze verify refused the unit")
    if "gpio" in groups_line:
        report.fail("the unit names the gpio group, which the Debian root does not have")

    doctor = timed(chroot, root, f"cd {APP} && .venv/bin/companion doctor --frames 8 2>&1")
    if doctor.status:
        report.fail(f"companion doctor exited with {doctor.status} in the root")

    # the emulated demos run side by side (each is one process on one core), the x86 ones meanwhile
    say(f"demos {', '.join(DEMO_GAMES)}: arm64 (emulated, side by side) and x86 (native)")
    began = time.perf_counter()
    arm_procs = {game: chroot_popen(root, f"cd {APP} && .venv/bin/companion demo --game {game} --headless")
                 for game in DEMO_GAMES}
    host_runs = {}
    for game in DEMO_GAMES:
        t0 = time.perf_counter()
        host = run([*NICE, str(host_companion), "demo", "--game", game, "--headless"], check=False,
                   capture=True)
        host_runs[game] = (host, time.perf_counter() - t0)
    demo_rows = []
    for game, proc in arm_procs.items():
        arm_out, _ = proc.communicate()
        arm_s = time.perf_counter() - began
        host, host_s = host_runs[game]
        x86_scores, arm_scores = final_scores(host.stdout), final_scores(arm_out)
        same = host.returncode == 0 and proc.returncode == 0 and x86_scores is not None \
            and x86_scores == arm_scores
        if not same:
            report.fail(f"demo {game}: arm64 {arm_scores!r} (exit {proc.returncode}) vs x86 "
                        f"{x86_scores!r} (exit {host.returncode})")
        demo_rows.append(f"| {game} | {x86_scores} | {arm_scores} | {'yes' if same else 'NO'} | "
                         f"{host_s:.0f} s | {arm_s / 60:.1f} min |")
        print(f"    {game}: x86 {x86_scores} | arm64 {arm_scores} | {'same' if same else 'DIFFERENT'}",
              flush=True)

    say("writing the report")
    report.add(
        f"Run on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} from checkout {commit}, "
        f"by `make pi-check` (systemd/pi_check.py).",
        "",
        "An arm64 Debian Bookworm root (Raspberry Pi OS Bookworm's base, Python 3.11) run under",
        f"emulation on an x86_64 host: {emulation}. Every timing below marked *emulated* is qemu's,",
        "many times a Pi's; they say the check ran, not how fast a Pi is. Memory figures under",
        "qemu include qemu's own (a bare Python: 37 MB under qemu, 10 MB natively): the kiosk's",
        "memory must be measured on a real Pi with `companion doctor` (docs/pi.md).",
        "",
        "## Result",
        "",
        f"- `install-pi.sh --no-system` (everything but apt-get and systemctl): exit {install.status}, "
        f"{'got past' if passed_import else 'did NOT get past'} its picamera2 import check "
        f"({install.seconds / 60:.1f} min, emulated, {'reused' if venv_kept else 'fresh'} .venv).",
        "- Without the fix, the system simplejpeg under the venv's numpy: "
        f"`{proc_text(unfixed).strip().splitlines()[-1] if proc_text(unfixed).strip() else '?'}`",
        f"- The unit: `{groups_line}`; `systemd-analyze verify` in the root: "
        f"{verify_text.splitlines()[-1] if verify_text else '?'}"
        + ("" if verify_text.strip() == "exit status 0" else
           "; its messages: " + "; ".join(verify_text.splitlines()[:-1])),
        "",
        "The arm64 demos ran side by side under emulation while the x86 ones ran natively one",
        "after the other; each time is wall time on this shared machine.",
        "",
        "| demo | x86 final scores | arm64 final scores | same | x86 time | arm64 time (emulated) |",
        "|---|---|---|---|---|---|",
        *demo_rows,
        "",
        "## Versions in the root's .venv",
        "",
        versions,
        "",
        "Installed distributions and their wheel tags (a `linux_aarch64` tag would mean pip built it):",
        "",
        "| package | version | wheel tags |",
        "|---|---|---|",
        wheels,
        "",
        "## The emulated root",
        "",
        f"- {root.name}/: debootstrap {package_version('debootstrap')} --variant=minbase {SUITE} "
        f"from {MIRROR}; " + (f"built in this run ({root_time / 60:.1f} min, emulated second stage)"
                              if built else "reused from an earlier run"),
        f"- stand-ins for Raspberry Pi OS's camera packages: apt's python3-numpy "
        f"{package_version('python3-numpy', root)}, {SIMPLEJPEG[0]} compiled against it and linked "
        f"with libturbojpeg {package_version('libturbojpeg0-dev', root)}, and a picamera2 that "
        "imports simplejpeg, all in /usr/lib/python3/dist-packages"
        + (f" (built in {standin_time:.0f} s, emulated)" if standin_time > 1 else " (reused)"),
        *[f"- pip: {note}" for note in pip_notes],
        "",
        "## `companion doctor` in the root (emulated: its frame rate and memory are not a Pi's)",
        "",
        "```",
        doctor.output.strip(),
        "```",
    )


if __name__ == "__main__":
    sys.exit(main())
