#!/usr/bin/env bash
# Install Table Companion on a Raspberry Pi running 64-bit Raspberry Pi OS (Bookworm) and
# enable the kiosk. Run from the checkout: `make install-pi`. Needs sudo for the service and
# the groups. Why each step is there: docs/pi.md.
#
#   --no-system   skip apt-get and systemctl, run everything else (the venv, the picamera2
#                 import check, the groups, the unit file and its verification). `make
#                 pi-check` uses it inside an emulated arm64 root, where there is no init.
#   --print-unit  print the unit filled in for this checkout and this machine, and stop.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="$(pwd)"
user="${COMPANION_USER:-${SUDO_USER:-$(id -un)}}"
no_system=0
print_unit=0
for arg in "$@"; do
  case "$arg" in
    --no-system) no_system=1 ;;
    --print-unit) print_unit=1 ;;
    -h|--help) sed -n '2,10s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "install-pi.sh: unknown option $arg (known: --no-system, --print-unit)" >&2; exit 2 ;;
  esac
done

say() { printf '==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# The groups the kiosk needs (camera, GPU, touchscreen, GPIO) that exist on this machine:
# plain Debian has no gpio group, and systemd refuses to start a unit naming a missing one.
groups=""
for group in video render input gpio; do
  getent group "$group" >/dev/null && groups="${groups:+$groups }$group"
done

render_unit() {
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@USER@|$user|g" -e "s|@GROUPS@|$groups|g" \
    systemd/table-companion-kiosk.service.in
}

if [ "$print_unit" = 1 ]; then render_unit; exit 0; fi

# PyPI has no 32-bit ARM wheels of numpy, opencv-python-headless or Kivy: on a 32-bit
# Raspberry Pi OS pip would try to compile them for hours. A 64-bit kernel can run a
# 32-bit userland, so ask Python how wide a pointer is rather than asking uname.
if ! python3 -c 'import struct, sys; sys.exit(struct.calcsize("P") != 8)'; then
  echo "This is a 32-bit Python ($(python3 -c 'import platform; print(platform.machine())')):" \
    "Table Companion needs 64-bit Raspberry Pi OS (see docs/pi.md)." >&2
  exit 1
fi

if ! python3 -c 'import picamera2' 2>/dev/null; then
  if [ "$no_system" = 1 ]; then
    echo "picamera2 is not importable by the system python3, and --no-system forbids apt-get." >&2
    exit 1
  fi
  say "picamera2 is missing: installing Raspberry Pi OS's package (it needs libcamera)"
  as_root apt-get install -y python3-picamera2 || {
    echo "Could not install python3-picamera2: is this Raspberry Pi OS?" >&2; exit 1; }
fi

# The venv sees the system site-packages, so Raspberry Pi OS's picamera2 and libcamera
# bindings are importable; everything else comes from PyPI into the venv.
if [ ! -x .venv/bin/python ]; then
  say "creating .venv (with system site-packages, for picamera2)"
  python3 -m venv --system-site-packages .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .

# Raspberry Pi OS's picamera2 imports its simplejpeg, built against the system numpy 1.24;
# the venv has numpy 2 (opencv 5 needs it), and the old build refuses to load with
# "numpy.dtype size changed". A simplejpeg built against numpy 2 in the venv comes first on
# sys.path and shadows the system one (builds against numpy 2 also load under numpy 1.x).
# --ignore-installed: pip would otherwise count the system copy as installed and do nothing;
# --no-deps: keep the numpy the package already chose. docs/pi.md says why not numpy<2.
say "installing a numpy-2 build of simplejpeg into .venv (picamera2 imports it)"
.venv/bin/python -m pip install -q --ignore-installed --no-deps 'simplejpeg>=1.8'

if ! problem="$(.venv/bin/python - 2>&1 <<'EOF'
import numpy as np
import simplejpeg
import picamera2  # noqa: F401  (loads its encoders, which import simplejpeg)

image = np.zeros((16, 16, 3), np.uint8)
image[:, 8:] = (200, 40, 10)
back = simplejpeg.decode_jpeg(simplejpeg.encode_jpeg(image, quality=95))
assert back.shape == image.shape and abs(int(back[4, 12, 0]) - 200) < 16, "round trip changed the image"
print(f"picamera2 imports with numpy {np.__version__}; simplejpeg from {simplejpeg.__file__}")
EOF
)"; then
  echo "The venv cannot import picamera2 or use its simplejpeg:" >&2
  echo "$problem" | tail -n 3 | sed 's/^/    /' >&2
  cat >&2 <<'EOF'
Recreating the venv will not help: it gets numpy 2 again. See "picamera2 does not import"
in docs/pi.md. Check which simplejpeg the venv loads:
    .venv/bin/python -c 'import simplejpeg; print(simplejpeg.__file__)'
(it must be under .venv/, not /usr/lib/python3/dist-packages/), and that it installed:
    .venv/bin/python -m pip install --ignore-installed --no-deps 'simplejpeg>=1.8'
EOF
  exit 1
fi
say "$problem"

say "giving $user the camera, GPIO, input and display groups that exist here: ${groups:-none}"
for group in $groups; do
  as_root usermod -aG "$group" "$user"
done

unit=/etc/systemd/system/table-companion-kiosk.service
say "installing $unit"
render_unit | as_root tee "$unit" >/dev/null
if command -v systemd-analyze >/dev/null; then as_root systemd-analyze verify "$unit"; fi
if [ "$no_system" = 1 ]; then
  say "done, without systemctl (--no-system): the unit is installed but not enabled"
  exit 0
fi
as_root systemctl daemon-reload
as_root systemctl enable --now table-companion-kiosk.service
say "done: the kiosk starts at boot. Logs: journalctl -u table-companion-kiosk -f"
