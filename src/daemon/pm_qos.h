/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * CPU wake-up latency through the kernel's PM QoS interface: while a file
 * descriptor of /dev/cpu_dma_latency holds a value written to it, no CPU
 * enters an idle state whose exit latency is longer than that many
 * microseconds (Documentation/power/pm_qos_interface.rst). An idle virtual
 * or embedded CPU otherwise sinks into deep idle between the 1 kHz timer's
 * wake-ups and every wake-up pays for it; cyclictest holds 0 us for the same
 * reason. The request ends when the descriptor is closed (or the process
 * dies). Leader thread only, at start-up and shutdown.
 */
#ifndef FULMAR_DAEMON_PM_QOS_H
#define FULMAR_DAEMON_PM_QOS_H

#include <stdint.h>

#define PM_QOS_CPU_DMA_LATENCY "/dev/cpu_dma_latency"

/*
 * Holds the latency request latency_us (>= 0) through path: the open file
 * descriptor (keep it open while the request should hold), or -errno:
 * -ENOENT without the interface, -EACCES/-EPERM without permission.
 */
int pm_qos_hold(const char *path, int32_t latency_us);

/* Ends the request; a negative fd is a no-op. */
void pm_qos_release(int fd);

#endif
