/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A self-oscillating buzzer on a GPIO line, as a board device (driver.h):
 * tunes as on/off patterns on the tone thread at 100 Hz. Start-up once, arm
 * and disarm on each change, low battery while the voltage stays under
 * FS_BATT_VOLTAGE (if set) for 3 s, failsafe while RC frames have stopped
 * for FS_SHORT_TIMEOUT (1.5 s) after having come, or the receiver says
 * failsafe. A tune starts over anything less urgent.
 */
#ifndef FULMAR_DRIVERS_BUZZER_H
#define FULMAR_DRIVERS_BUZZER_H

#include <stdbool.h>
#include <stdint.h>

struct drv_inst;

/* The tunes, most urgent last. */
enum buzzer_tune {
	BUZZER_TUNE_NONE = 0,
	BUZZER_TUNE_STARTUP,
	BUZZER_TUNE_DISARM,
	BUZZER_TUNE_ARM,
	BUZZER_TUNE_LOW_BATTERY,       /* repeats while the battery is low */
	BUZZER_TUNE_FAILSAFE,          /* repeats while RC is lost or says failsafe */
	BUZZER_TUNE_COUNT,
};

struct buzzer {
	enum buzzer_tune playing;
	unsigned int step;             /* index in the tune's pattern */
	uint64_t step_end_us;
	uint64_t again_us[BUZZER_TUNE_COUNT];  /* a repeating tune may start again then */
	bool started, armed, low, failsafe;
	uint64_t low_since_us;
	uint32_t plays[BUZZER_TUNE_COUNT];
	uint32_t gpio_errors;
	int p_low_volt;
};

/* The buzzer's state (tests, reports). */
const struct buzzer *buzzer_of(const struct drv_inst *d);

#endif
