/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Driver descriptors: how a chip driver (or an RC decoder, a servo output, a
 * battery monitor, a buzzer) tells the board backend what it needs, so that
 * the backend (src/daemon/board_io.c) is one generic loop over a board's
 * devices and knows no chip.
 *
 * As in Zephyr's device model and Linux's platform drivers, each driven
 * device is three things:
 *   - const config: the board's entry (struct board_dev: where the device
 *     is, and its settings in .drv), with the configuration's overrides
 *     applied;
 *   - mutable data: the driver's own state, drv->priv_size bytes the backend
 *     allocates zeroed at start-up (d->priv), one per device, so two of the
 *     same chip are two instances;
 *   - const ops: struct driver below, one per driver, exported by the
 *     driver's own file and named by the board tables that use it.
 *
 * The life of an instance (all on the leader thread, before the threads
 * start, except the tasks):
 *   probe   create the driver's state on its bus: no waiting, no transfer
 *           needed (the driver's set-up state machine does those);
 *   setup   polled on the start-up clock until it says done (1), fails for
 *           good (-ENODEV: nothing answers; -EBADMSG: the chip's own data is
 *           corrupt) or runs past BOARD_IO_SETUP_TIMEOUT_US;
 *   start   after the set-up: health slots, a part that comes up after the
 *           chip (an MPU9250's AK8963);
 *   tasks   what runs on which thread at which rate, with the instance as the
 *           context; every bus has exactly one thread (docs/design.md);
 *   close   after the threads stopped: outputs off, backends closed.
 *
 * What an instance gives the flight code goes through the host (struct
 * drv_host): samples to the sensor hub by kind, health as a slot with its
 * MAV_SYS_STATUS_SENSOR bits, servo outputs as a struct rcout.
 */
#ifndef FULMAR_DRIVERS_DRIVER_H
#define FULMAR_DRIVERS_DRIVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/sensor_sample.h"
#include "fulmar/board.h"
#include "fulmar/task.h"

/* MAV_SYS_STATUS_SENSOR bits (MAVLink common.xml). */
#define DRV_SENSOR_GYRO 0x00000001u
#define DRV_SENSOR_ACCEL 0x00000002u
#define DRV_SENSOR_MAG 0x00000004u
#define DRV_SENSOR_ABS_PRESSURE 0x00000008u
#define DRV_SENSOR_DIFF_PRESSURE 0x00000010u
#define DRV_SENSOR_GPS 0x00000020u
#define DRV_SENSOR_LASER_POSITION 0x00000100u   /* a rangefinder */
#define DRV_SENSOR_MOTOR_OUTPUTS 0x00008000u
#define DRV_SENSOR_RC_RECEIVER 0x00010000u
#define DRV_SENSOR_GYRO2 0x00020000u
#define DRV_SENSOR_ACCEL2 0x00040000u
#define DRV_SENSOR_MAG2 0x00080000u
#define DRV_SENSOR_BATTERY 0x02000000u

/* A device with no good sample (or output write) for this long is unhealthy. */
#define DRV_IMU_STALE_US 50000u
#define DRV_SLOW_STALE_US 500000u
#define DRV_GPS_STALE_US 2000000u

/* The buses a driver sits on: a mask of these. */
#define DRV_BUS(kind) (1u << (kind))

/* One device's (or part's) health and counts: written by its owner thread, read by any. */
struct drv_slot {
	const struct board_dev *desc;
	const char *label;             /* the device's name, or e.g. "imu.mag" for a part of it */
	const char *chip;              /* the driver's name */
	uint32_t bits;                 /* MAV_SYS_STATUS_SENSOR bits it stands for */
	uint32_t stale_us;             /* 0: healthy while running */
	_Atomic uint64_t samples;      /* good samples, frames or output writes */
	_Atomic uint64_t errors;       /* failed transfers and refused data */
	_Atomic uint64_t last_ok_us;   /* the owner's clock at the last good one */
	_Atomic bool running;          /* set up and producing */
};

static inline void drv_ok(struct drv_slot *s, uint64_t now_us, uint64_t n)
{
	atomic_fetch_add_explicit(&s->samples, n, memory_order_relaxed);
	atomic_store_explicit(&s->last_ok_us, now_us, memory_order_relaxed);
}

static inline void drv_error(struct drv_slot *s)
{
	atomic_fetch_add_explicit(&s->errors, 1, memory_order_relaxed);
}

static inline void drv_running(struct drv_slot *s, bool on)
{
	atomic_store_explicit(&s->running, on, memory_order_relaxed);
}

/* Alive without a new sample (an output with nothing to change). */
static inline void drv_alive(struct drv_slot *s, uint64_t now_us)
{
	atomic_store_explicit(&s->last_ok_us, now_us, memory_order_relaxed);
}

struct driver;
struct drv_inst;
struct rcout;

/*
 * A polled chip's start-up (ms4525, lightware_i2c, lidarlite): until it has
 * answered once, a failed transfer is tried again DRV_STARTUP_RETRY_US later,
 * and the DRV_STARTUP_TRIES-th failure declares it absent: -ENODEV from then
 * on, without bus traffic. After the first answer a failure is the caller's
 * to count and the chip is polled on at its own pace.
 */
#define DRV_STARTUP_TRIES 10
#define DRV_STARTUP_RETRY_US 20000u
struct drv_startup {
	bool answered;
	bool absent;
	uint8_t tries;
};
/* A failed transfer at now_us: err, or -ENODEV once absent; *next_us moved to the retry. */
int drv_startup_failed(struct drv_startup *s, int err, uint64_t now_us, uint64_t *next_us);

/*
 * Most sensors are a chip polled on the timer thread: *_poll() advances its
 * set-up or gives a sample, *_next_poll_us() says when to come back. Such a
 * driver gives these three (wrapping its own typed functions) and takes
 * DRV_POLLED() in its descriptor for the set-up and the task (polled.c).
 */
struct drv_polled {
	enum sensor_kind kind;         /* what its samples are */
	int (*poll)(void *chip, uint64_t now_us, void *sample);  /* 1 a sample, 0 none, <0 error */
	uint64_t (*next_us)(const void *chip);
	bool (*is_running)(const void *chip);  /* NULL: running once a sample came */
	uint32_t rate_hz;              /* the task's; 0 every timer wake (polled when due) */
	bool eio_answers;              /* at set-up, -EIO is the chip's own fault bits: it answers */
	const char *detail;            /* for the message when nothing answers */
};

/* What the board backend does for its drivers. */
struct drv_host {
	/* Owner thread: a sample into the sensor hub (IMU: its ring). 0, or <0 refused. */
	int (*publish)(void *ctx, enum sensor_kind k, const void *sample);
	/* Any thread: the latest sample of a kind; its generation, 0 when none yet. */
	uint32_t (*latest)(void *ctx, enum sensor_kind k, void *out);
	/* Any thread: whether the vehicle is armed. */
	bool (*armed)(void *ctx);
	/* Start-up: the open handle of another device of the board (a chip select, an enable line). */
	void *(*find)(void *ctx, const char *name, enum board_dev_kind kind);
	/* Start-up: the first instance of a driver already started, or NULL. */
	struct drv_inst *(*instance_of)(void *ctx, const struct driver *drv);
	/*
	 * Start-up: a health slot. It stands for bits, or for bits2 when an
	 * earlier slot already stands for bits (a second IMU, a second compass).
	 * NULL when the backend has no room left.
	 */
	struct drv_slot *(*add_slot)(void *ctx, struct drv_inst *d, const char *label,
				     uint32_t bits, uint32_t bits2, uint32_t stale_us);
	/* Start-up: runs a set-up state machine to its end (see struct drv_setup). */
	int (*run_setup)(void *ctx, struct drv_inst *d, const struct driver *drv, int *last_err);
	const struct board *board;
	void *ctx;
};

/* One driven device. */
struct drv_inst {
	const struct driver *drv;
	const struct board_dev *desc;  /* the board's entry, overrides applied */
	/*
	 * The opened device: struct spi_dev * (behind its chip select when the
	 * entry names one), struct i2c_bus *, struct uart *, struct gpio_line *,
	 * struct analog_in * or struct mmio *, as desc->kind says.
	 */
	void *handle;
	const struct drv_host *host;
	struct drv_slot *slot;         /* its health: added by the backend after the set-up */
	unsigned int role_index;       /* 0 for the board's first device of its role, 1 the next */
	void *priv;                    /* drv->priv_size bytes, zeroed, the driver's */
	char task_name[2][32];         /* storage for task names a driver composes */
};

struct driver {
	const char *name;              /* the chip or function: "MS5611", "SBUS receiver" */
	uint32_t buses;                /* DRV_BUS(BOARD_DEV_SPI) | ... */
	/*
	 * What it is on the board, for the limit below and the message when a
	 * board has more: "barometer", "RC input", "servo output". A board may
	 * have at most max (0: 1) devices of one role.
	 */
	const char *role;
	unsigned int max;
	/* Open order: pass 0 first (IMUs: an MPU9250's AK8963 takes the first compass's bits). */
	unsigned int pass;
	size_t priv_size;

	/* Creates the instance's state on its bus (nothing blocks). 0, or -errno with err set. */
	int (*probe)(struct drv_inst *d, char *err, size_t err_len);
	/*
	 * The set-up, polled: 1 done, 0 go on, -errno a transfer error (retried
	 * until the time-out), -ENODEV or -EBADMSG final. next_us: when to poll
	 * again (0: soon). setup NULL: none. setup_detail: what the message
	 * adds when nothing answers (" (reset and PROM read)"), or NULL.
	 */
	int (*setup)(struct drv_inst *d, uint64_t now_us);
	uint64_t (*next_us)(const struct drv_inst *d);
	void (*setup_detail)(const struct drv_inst *d, char *buf, size_t len);
	/* The slot the backend adds for it after the set-up (bits 0: none). */
	uint32_t bits, bits2, stale_us;
	bool running_at_start;         /* healthy from the set-up on (else from its first sample) */
	/* After the slot is added: a driver's own checks and parts. 0, or -errno with err set. */
	int (*start)(struct drv_inst *d, char *err, size_t err_len);
	/* Its tasks, at most 2 (the instance is their context). */
	size_t (*tasks)(struct drv_inst *d, struct sched_task out[2]);
	const struct drv_polled *polled;   /* with DRV_POLLED() */
	/* Servo outputs it drives (main thread writes them), or NULL. */
	struct rcout *(*outputs)(struct drv_inst *d);
	/* After the threads stopped: outputs off, backends closed. */
	void (*close)(struct drv_inst *d);
};

static inline int drv_publish(struct drv_inst *d, enum sensor_kind k, const void *sample)
{
	return d->host->publish(d->host->ctx, k, sample);
}

int drv_polled_setup(struct drv_inst *d, uint64_t now_us);
uint64_t drv_polled_next(const struct drv_inst *d);
void drv_polled_detail(const struct drv_inst *d, char *buf, size_t len);
size_t drv_polled_tasks(struct drv_inst *d, struct sched_task out[2]);
#define DRV_POLLED(p) \
	.polled = (p), .setup = drv_polled_setup, .next_us = drv_polled_next, \
	.setup_detail = drv_polled_detail, .tasks = drv_polled_tasks

/* One task, named after the device (suffix NULL) or "<device>-<suffix>". */
size_t drv_task(struct drv_inst *d, struct sched_task *out, unsigned int i, const char *suffix,
		enum sched_thread_id thread, uint32_t rate_hz, void (*run)(void *ctx, uint64_t now_us));

#endif
