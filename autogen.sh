#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Generate ./configure from a git checkout (release tarballs ship it).
set -e
cd "$(dirname "$0")"
autoreconf --force --install --warnings=all
