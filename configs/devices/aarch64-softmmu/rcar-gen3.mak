# SPDX-License-Identifier: GPL-2.0-or-later
#
# The R-Car Gen3 boards alone (configure --without-default-devices
# --with-devices-aarch64=rcar-gen3): a small build for sanitizers and
# fuzzing.

CONFIG_RCAR_GEN3_BOARDS=y
# An EEPROM to put on the I2C buses (rcar-i2c-test)
CONFIG_AT24C=y
# A sensor whose transfer state migrates (rcar-i2c-test)
CONFIG_TMP105=y
