# SPDX-License-Identifier: GPL-3.0-or-later
# Guest side of the IIO test: an iio_dummy device named adc0 made through configfs.
modprobe iio_dummy
mkdir /sys/kernel/config/iio/devices/dummy/adc0
timeout 60 /bin/ktest_iio
