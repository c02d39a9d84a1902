# SPDX-License-Identifier: GPL-3.0-or-later
# Guest side of the GPIO test: gpio-sim (the program sets its banks up).
modprobe gpio-sim
timeout 60 /bin/ktest_gpio
