#!/usr/bin/env bash
# Installs rotel, the Rust OpenTelemetry collector, into bench/target/peers/rotel with npm (on
# first use; later runs find it there) and prints the binary's path as its last line of output.
#
# The npm registry serves rotel for Linux x86-64 as the package rotel-agent-linux-x64; version
# 0.0.1-alpha ships rotel 0.0.2, the only build it serves here. The package holds the binary and
# nothing else (no install scripts). Needs npm and a Linux x86-64 machine.
#
#   ROTEL_NPM_PACKAGE=rotel-agent-linux-x64@0.0.1-alpha bench/peers/install-rotel.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package="${ROTEL_NPM_PACKAGE:-rotel-agent-linux-x64@0.0.1-alpha}"
mkdir -p "$here/../target/peers/rotel"
prefix="$(cd "$here/../target/peers/rotel" && pwd)"
name="${package%@*}"
binary="$prefix/node_modules/$name/bin/rotel-agent"
# What the last install was of: a different ROTEL_NPM_PACKAGE installs again.
stamp="$prefix/installed-package"

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "install-rotel: $package is a Linux x86-64 build; this is $(uname -s)-$(uname -m)" >&2
  exit 1
fi
if [ -x "$binary" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$package" ]; then
  echo "$binary"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install-rotel: npm is not on PATH" >&2
  exit 1
fi

# --ignore-scripts: only the files of the package, nothing run at install time.
npm install --prefix "$prefix" --no-save --no-audit --no-fund --ignore-scripts "$package" >&2
if [ ! -x "$binary" ]; then
  echo "install-rotel: $package holds no executable bin/rotel-agent" >&2
  exit 1
fi
echo "$package" >"$stamp"
echo "install-rotel: $package, $("$binary" --version)" >&2
echo "$binary"
