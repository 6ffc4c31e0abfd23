#!/bin/sh
# setup-debian.sh: install the Debian 12 packages harness needs to build, test, plot and run.
#
# Usage: scripts/setup-debian.sh [--print]
#   Runs apt-get as root, or through sudo otherwise.  Safe to run again: apt-get installs
#   only what is missing.  --print lists the packages and installs nothing.
#   docs/dependencies.md says why each package is here.
set -eu

PACKAGES="
	build-essential autoconf automake libtool pkg-config
	libtomlplusplus-dev libgsl-dev libhdf5-dev hdf5-tools libcsv-dev
	libssl-dev libjansson-dev zlib1g-dev libopenblas-dev
	check valgrind git procps
	gnuplot-nox chromium poppler-utils
	python3-numpy python3-scipy python3-h5py python3-pandas
	slurm-wlm munge
"

if [ "${1:-}" = --print ]; then
	# shellcheck disable=SC2086 # one word per package
	printf '%s\n' $PACKAGES
	exit 0
fi
if [ $# -gt 0 ]; then
	echo "usage: $0 [--print]" >&2
	exit 2
fi

if [ "$(id -u)" -eq 0 ]; then
	SUDO=
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "setup-debian.sh: need root or sudo to install packages" >&2
	exit 1
fi

# Skip apt-get entirely when everything is already installed (idempotent and offline-safe).
missing=
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "setup-debian.sh: all packages already installed"
	exit 0
fi

echo "setup-debian.sh: installing:$missing"
# apt-get and dpkg talk a lot even with -qq: keep their output, show it only on failure.
log=$(mktemp "${TMPDIR:-/tmp}/setup-debian.XXXXXX")
trap 'rm -f "$log"' EXIT
apt() {
	if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -qq -o Dpkg::Use-Pty=0 "$@" >"$log" 2>&1; then
		cat "$log" >&2
		echo "setup-debian.sh: apt-get $1 failed" >&2
		exit 1
	fi
}
apt update
# shellcheck disable=SC2086 # one word per package
apt install -y --no-install-recommends $missing
echo "setup-debian.sh: done"
