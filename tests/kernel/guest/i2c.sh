# SPDX-License-Identifier: GPL-3.0-or-later
# Guest side of the I2C test: i2c-dev on our I2C_RDWR adapter (a chip at 0x68)
# and on i2c-stub (SMBus only, a chip at 0x1e).
modprobe i2c-dev
modprobe fulmar_i2c_virt addrs=0x68
modprobe i2c-stub chip_addr=0x1e
timeout 60 /bin/ktest_i2c
