#!/usr/bin/env python3
#
# Linux's own MMC test suite (drivers/mmc/core/mmc_test.c) on the eMMC of
# the emulated Renesas Salvator-XS in HS400.  Apart from the other R-Car
# boot tests because it runs for about 6 minutes: its performance cases
# move data for seconds at each transfer size.
#
# RCAR_GUEST_DIR and RCAR_REQUIRE_GUEST: see test_rcar_gen3.py.
#
# SPDX-License-Identifier: GPL-2.0-or-later

import os

from qemu_test import LinuxKernelTest
from test_rcar_gen3 import RCarGen3Emmc


class RCarGen3MmcTest(RCarGen3Emmc):

    # Cases an eMMC 5.1 device in a DDR mode cannot do: partial blocks (7-10)
    # and TRIM (29, 32), which the card does not offer
    UNSUPPORTED_BY_CARD = [7, 8, 9, 10, 29, 32]
    # Commands during a transfer need MMC_CAP_CMD_DURING_TFR, which the
    # TMIO/SDHI driver does not set (46-51)
    UNSUPPORTED_BY_HOST = [46, 47, 48, 49, 50, 51]
    # The last one, "Re-tuning reliability", retunes for 30 s: it runs
    # because the host can retune (SCC tuning in HS200, for HS400)
    CASES = 52
    # "Random read/write performance by transfer size" do random I/O for
    # 10 s at each transfer size: 7 of the suite's 14 minutes on a 2-core
    # host, and nothing the other cases do not, but measure speed (which is
    # make bench's).  RCAR_MMC_TEST_ALL=1 runs them too.
    TIMED_RANDOM = [] if os.getenv('RCAR_MMC_TEST_ALL') else [33, 34]
    # The names of some cases have "failure" in them
    EXPECTED_ERRORS = 'mmc0: Test case [0-9]+[.]'

    def cases_with(self, result):
        """A guest command that prints the numbers of the cases whose
        result is @result, in order.  Performance cases print lines of
        their own between "Test case N." and "Result:"."""
        return ('dmesg | awk \'/mmc0: Test case/ { n = $0; '
                'sub(/.*Test case /, "", n); sub(/[.].*/, "", n) } '
                f'/mmc0: Result: {result}/ {{ printf "%s ", n }}\'')

    @staticmethod
    def numbers(cases):
        """What cases_with() prints for these cases."""
        return ''.join(f'{n} ' for n in cases)

    def test_mmc_test_hs400(self):
        self.boot_emmc()
        self.check_mode('HS400', '10 (mmc HS400)', 200000000)
        self.run_in_guest('echo mmc0:0001 > /sys/bus/mmc/drivers/mmcblk/unbind'
                          '; echo mmc0:0001 > /sys/bus/mmc/drivers/mmc_test/'
                          'bind; echo "BOU""ND"', 'BOUND')
        # One case at a time; each write returns when its case is done
        skip = '|'.join(str(n) for n in self.TIMED_RANDOM) or 0
        self.run_in_guest(f'for n in $(seq {self.CASES}); do case $n in '
                          f'{skip}) continue ;; esac; echo $n > '
                          '/sys/kernel/debug/mmc0/mmc0:0001/test; done; '
                          'echo "TESTS""DONE"', 'TESTSDONE')
        self.check_guest_value('dmesg | grep -c "mmc0: Test case"', 'CASES',
                               self.CASES - len(self.TIMED_RANDOM))
        self.check_guest_value(self.cases_with(r'UNSUPPORTED \(by card\)'),
                               'BYCARD', self.numbers(self.UNSUPPORTED_BY_CARD))
        self.check_guest_value(self.cases_with(r'UNSUPPORTED \(by host\)'),
                               'BYHOST', self.numbers(self.UNSUPPORTED_BY_HOST))
        unsupported = self.UNSUPPORTED_BY_CARD + self.UNSUPPORTED_BY_HOST
        passed = [n for n in range(1, self.CASES + 1)
                  if n not in unsupported + self.TIMED_RANDOM]
        self.check_guest_value(self.cases_with('OK'), 'PASSED',
                               self.numbers(passed))
        self.check_guest_value('dmesg | grep -c -E "Result: (ERROR|FAILED)|'
                               'stage failed"', 'FAILURES', 0)
        # power_off() checks that the eMMC is still in HS400
        self.power_off()


if __name__ == '__main__':
    LinuxKernelTest.main()
