#!/usr/bin/env bash
# Install Table Companion on a Raspberry Pi running Raspberry Pi OS and enable the kiosk.
# Run from the checkout: `make install-pi`. Needs sudo for the service and the groups.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="$(pwd)"
user="${COMPANION_USER:-${SUDO_USER:-$(id -un)}}"

say() { printf '==> %s\n' "$*"; }

if ! python3 -c 'import picamera2' 2>/dev/null; then
  say "picamera2 is missing: installing Raspberry Pi OS's package (it needs libcamera)"
  sudo apt-get install -y python3-picamera2 || {
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
.venv/bin/python -c 'import picamera2' || {
  echo "The venv cannot import picamera2; recreate it: rm -rf .venv && make install-pi" >&2; exit 1; }

say "giving $user the camera, GPIO, input and display groups"
for group in video render input gpio; do
  getent group "$group" >/dev/null && sudo usermod -aG "$group" "$user"
done

unit=/etc/systemd/system/table-companion-kiosk.service
say "installing $unit"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@USER@|$user|g" systemd/table-companion-kiosk.service.in \
  | sudo tee "$unit" >/dev/null
if command -v systemd-analyze >/dev/null; then sudo systemd-analyze verify "$unit"; fi
sudo systemctl daemon-reload
sudo systemctl enable --now table-companion-kiosk.service
say "done: the kiosk starts at boot. Logs: journalctl -u table-companion-kiosk -f"
