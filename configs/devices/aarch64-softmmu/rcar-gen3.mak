# SPDX-License-Identifier: GPL-2.0-or-later
#
# The R-Car Gen3 boards alone (configure --without-default-devices
# --with-devices-aarch64=rcar-gen3): a small build for sanitizers and
# fuzzing.

CONFIG_RCAR_GEN3_BOARDS=y
