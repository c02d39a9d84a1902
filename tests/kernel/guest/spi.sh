# SPDX-License-Identifier: GPL-3.0-or-later
# Guest side of the SPI test: spidev on our virtual controller's chip select 0.
modprobe fulmar_spi_virt
timeout 60 /bin/ktest_spi /dev/spidev0.0
