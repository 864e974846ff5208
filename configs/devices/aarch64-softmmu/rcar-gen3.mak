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
# What to plug into USB 2.0 (rcar-usb-test, the fuzzer): a keyboard, a
# stick, and the hub QEMU adds on a bus's last free port
CONFIG_USB_HID=y
CONFIG_USB_STORAGE_CLASSIC=y
CONFIG_USB_HUB=y
